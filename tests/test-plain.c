/* tests/test-plain.c -- a plain Cuba integrand (a host function of
   Cuba's integrand_t type) goes to every g routine as it is, without a
   cast or a wrapper (include/gcuba/plain.h: C11 _Generic here), and gives
   the bits of the same function wrapped by gcuba_host_integrand(f, 1);
   one that takes Cuba's extra arguments gets nvec points a call.  This
   file is part of gcuba. */
#include <math.h>
#include <string.h>
#include "tap.h"
#include "gcuba.h"

static int Integrand(const int *ndim, const double x[], const int *ncomp,
                     double f[], void *userdata)
{
  (void)ndim;
  (void)ncomp;
  (void)userdata;
  f[0] = exp(-x[0] - 2 * x[1]);
  return 0;
}

static int Line(const int *ndim, const double x[], const int *ncomp,
                double f[], void *userdata)
{
  (void)ndim;
  (void)ncomp;
  (void)userdata;
  f[0] = exp(-x[0]);
  return 0;
}

/* Cuba's nvec form: the extra arguments declared, cast to the plain type */
static int most;
static int Vector(const int *ndim, const double x[], const int *ncomp,
                  double f[], void *userdata, const int *nvec,
                  const int *core)
{
  int i;
  (void)ncomp;
  (void)userdata;
  (void)core;
  if (*nvec > most) most = *nvec;
  for (i = 0; i < *nvec; ++i)
    f[i] = exp(-x[i * *ndim] - 2 * x[i * *ndim + 1]);
  return 0;
}

typedef struct {
  int nregions, neval, fail;
  double I, E, P;
} res;

static int same(const res *a, const res *b)
{
  return a->fail == b->fail && a->neval == b->neval &&
         a->nregions == b->nregions && !memcmp(&a->I, &b->I, sizeof a->I) &&
         !memcmp(&a->E, &b->E, sizeof a->E);
}

int main(void)
{
  const double truth = (1 - exp(-1.0)) * (1 - exp(-2.0)) / 2;
  gintegrand_t d = gcuba_host_integrand(Integrand, 1);
  res a, b;
  int nr[2], ne[2], fl[2];
  double I[2], E[2], P[2], J[2], F[2], Q[2];
  plan(0);
#if !defined(__STDC_VERSION__) || __STDC_VERSION__ < 201112L
  skip_all("C11 needed for plain integrands in C");
#endif
  memset(&a, 0, sizeof a);
  memset(&b, 0, sizeof b);
  gCuhre(2, 1, Integrand, NULL, 1, 1e-8, 0, 0, 0, 100000, 0, NULL, NULL,
         &a.nregions, &a.neval, &a.fail, &a.I, &a.E, &a.P);
  gCuhre(2, 1, d, NULL, 1, 1e-8, 0, 0, 0, 100000, 0, NULL, NULL,
         &b.nregions, &b.neval, &b.fail, &b.I, &b.E, &b.P);
  ok(a.fail == 0 && same(&a, &b) && fabs(a.I - truth) <= 1e-8 * truth,
     "gCuhre: a plain function, as gcuba_host_integrand(f, 1) (%.15g)",
     a.I);
  memset(&a, 0, sizeof a);
  memset(&b, 0, sizeof b);
  gVegas(2, 1, Integrand, NULL, 1, 1e-3, 0, 0, 0, 0, 1000000, 1000, 500,
         1000, 0, NULL, NULL, &a.neval, &a.fail, &a.I, &a.E, &a.P);
  gVegas(2, 1, d, NULL, 1, 1e-3, 0, 0, 0, 0, 1000000, 1000, 500, 1000, 0,
         NULL, NULL, &b.neval, &b.fail, &b.I, &b.E, &b.P);
  ok(a.fail == 0 && same(&a, &b) && fabs(a.I - truth) <= 4 * a.E,
     "gVegas: the same (%.10g +- %.1e)", a.I, a.E);
  memset(&a, 0, sizeof a);
  memset(&b, 0, sizeof b);
  gSuave(2, 1, Integrand, NULL, 1, 1e-3, 0, 0, 0, 0, 1000000, 1000, 2, 25,
         NULL, NULL, &a.nregions, &a.neval, &a.fail, &a.I, &a.E, &a.P);
  gSuave(2, 1, d, NULL, 1, 1e-3, 0, 0, 0, 0, 1000000, 1000, 2, 25, NULL,
         NULL, &b.nregions, &b.neval, &b.fail, &b.I, &b.E, &b.P);
  ok(a.fail == 0 && same(&a, &b) && fabs(a.I - truth) <= 1e-3 * truth,
     "gSuave: the same (%.10g +- %.1e)", a.I, a.E);
  /* gDivonne: the bits of the wrapped function, whatever its fail
     (test-divonne checks the answers) */
  memset(&a, 0, sizeof a);
  memset(&b, 0, sizeof b);
  gDivonne(2, 1, Integrand, NULL, 1, 1e-3, 0, 0, 0, 0, 50000, 47, 1, 1, 5,
           0, 10, .25, 0, 2, NULL, 0, NULL, NULL, NULL, &a.nregions,
           &a.neval, &a.fail, &a.I, &a.E, &a.P);
  gDivonne(2, 1, d, NULL, 1, 1e-3, 0, 0, 0, 0, 50000, 47, 1, 1, 5, 0, 10,
           .25, 0, 2, NULL, 0, NULL, NULL, NULL, &b.nregions, &b.neval,
           &b.fail, &b.I, &b.E, &b.P);
  ok(same(&a, &b), "gDivonne: the same (fail %d, %.10g +- %.1e)", a.fail,
     a.I, a.E);
  memset(&a, 0, sizeof a);
  gRomberg(1, Line, NULL, 1, 1e-10, 0, 0, 0, 100000, &a.neval, &a.fail,
           &a.I, &a.E, &a.P);
  ok(a.fail == 0 && fabs(a.I - (1 - exp(-1.0))) <= 1e-10,
     "gRomberg: a plain function (%.15g)", a.I);
  gCuhreBatch(2, 2, 1, Integrand, NULL, 0, 1, 1e-8, 0, 0, 0, 100000, 0, nr,
              ne, fl, I, E, P);
  gCuhreBatch(2, 2, 1, d, NULL, 0, 1, 1e-8, 0, 0, 0, 100000, 0, nr, ne, fl,
              J, F, Q);
  ok(fl[0] == 0 && fl[1] == 0 && !memcmp(I, J, sizeof I),
     "gCuhreBatch: the same");
  memset(&a, 0, sizeof a);
  most = 0;
  gVegas(2, 1, (gcuba_integrand_fn)Vector, NULL, 64, 1e-3, 0, 0, 0, 0,
         1000000, 1000, 500, 1000, 0, NULL, NULL, &a.neval, &a.fail, &a.I,
         &a.E, &a.P);
  ok(a.fail == 0 && most > 1 && most <= 64 && fabs(a.I - truth) <= 4 * a.E,
     "Cuba's nvec form, cast to the plain type: up to %d points a call "
     "(nvec 64), %.10g +- %.1e", most, a.I, a.E);
  return done();
}
