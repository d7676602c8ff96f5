/* tests/test-cuba.c -- a program written for Cuba (Cuba's cuba.h, Cuba's
   names, a plain integrand without a cast) linked with libgcuba-cuba:
   Vegas, llVegas, Suave, llSuave, Divonne, llDivonne, Cuhre and llCuhre
   give the bits of gcuba's g routines on the same function (Divonne's
   xgiven and peakfinder passed on); by default one thread (an
   integrand that keeps scratch in a global gives the answer it gives
   under Cuba); cubacores is gcubacores.  This file is part of gcuba. */
#include <math.h>
#include <string.h>
#include "cuba.h"
#include "gcuba.h"
#include "tap.h"

/* scratch in a global, as some Cuba programs keep it: safe only when one
   worker evaluates at a time (Cuba's workers are processes) */
static double scratch[3];
static int Integrand(const int *ndim, const cubareal x[], const int *ncomp,
                     cubareal f[], void *userdata)
{
  (void)ncomp;
  (void)userdata;
  scratch[0] = x[0];
  scratch[1] = *ndim > 1 ? x[1] : 0;
  scratch[2] = exp(-scratch[0] - 2 * scratch[1]);
  f[0] = scratch[2];
  return 0;
}

/* Cuba's demo integrand, smooth, in 3 dimensions */
static int Demo(const int *ndim, const cubareal x[], const int *ncomp,
                cubareal f[], void *userdata)
{
  (void)ndim;
  (void)ncomp;
  (void)userdata;
  f[0] = sin(x[0]) * cos(x[1]) * exp(x[2]);
  return 0;
}

/* Divonne's peak finder: the centre of the region b, one point */
static void Centre(const int *ndim, const cubareal b[], int *n,
                   cubareal x[], void *userdata)
{
  int d;
  (void)userdata;
  if (*n < 1) return;
  for (d = 0; d < *ndim; ++d) x[d] = (b[2 * d] + b[2 * d + 1]) / 2;
  *n = 1;
}

/* Cuba's nvec form, cast to integrand_t: records the cores it runs on */
static int maxcore = -1;
static int Vector(const int *ndim, const cubareal x[], const int *ncomp,
                  cubareal f[], void *userdata, const int *nvec,
                  const int *core)
{
  int i;
  (void)ncomp;
  (void)userdata;
  if (*core > maxcore) maxcore = *core;
  for (i = 0; i < *nvec; ++i)
    f[i] = exp(-x[i * *ndim] - 2 * x[i * *ndim + 1]);
  return 0;
}

typedef struct {
  int nregions, fail;
  long long neval;
  double I, E, P;
} res;

static int same(const res *a, const res *b)
{
  return a->fail == b->fail && a->neval == b->neval &&
         a->nregions == b->nregions && !memcmp(&a->I, &b->I, sizeof a->I) &&
         !memcmp(&a->E, &b->E, sizeof a->E) &&
         !memcmp(&a->P, &b->P, sizeof a->P);
}

int main(void)
{
  const double truth = (1 - exp(-1.0)) * (1 - exp(-2.0)) / 2;
  gintegrand_t d = gcuba_host_integrand((gcuba_host_fn)Integrand, 1);
  gintegrand_t d3 = gcuba_host_integrand((gcuba_host_fn)Demo, 1);
  cubareal xgiven[3] = {.5, .5, .5};
  res a, b;
  int n, e;
  plan(0);

  memset(&a, 0, sizeof a);
  memset(&b, 0, sizeof b);
  Vegas(2, 1, Integrand, NULL, 1, 1e-3, 0, 0, 0, 0, 1000000, 1000, 500, 1000,
        0, NULL, NULL, &e, &a.fail, &a.I, &a.E, &a.P);
  a.neval = e;
  llgVegas(2, 1, d, NULL, 1, 1e-3, 0, 0, 0, 0, 1000000, 1000, 500, 1000, 0,
           NULL, NULL, &b.neval, &b.fail, &b.I, &b.E, &b.P);
  ok(a.fail == 0 && same(&a, &b) && fabs(a.I - truth) <= 4 * a.E,
     "Vegas = gVegas (%.10g +- %.1e)", a.I, a.E);
  memset(&a, 0, sizeof a);
  llVegas(2, 1, Integrand, NULL, 1, 1e-3, 0, 0, 0, 0, 1000000, 1000, 500,
          1000, 0, NULL, NULL, &a.neval, &a.fail, &a.I, &a.E, &a.P);
  ok(same(&a, &b), "llVegas = gVegas");

  memset(&a, 0, sizeof a);
  memset(&b, 0, sizeof b);
  Suave(2, 1, Integrand, NULL, 1, 1e-3, 0, 0, 0, 0, 1000000, 1000, 2, 25,
        NULL, NULL, &a.nregions, &e, &a.fail, &a.I, &a.E, &a.P);
  a.neval = e;
  llgSuave(2, 1, d, NULL, 1, 1e-3, 0, 0, 0, 0, 1000000, 1000, 2, 25, NULL,
           NULL, &b.nregions, &b.neval, &b.fail, &b.I, &b.E, &b.P);
  ok(a.fail == 0 && same(&a, &b) && fabs(a.I - truth) <= 1e-3 * truth,
     "Suave = gSuave (%.10g +- %.1e)", a.I, a.E);
  memset(&a, 0, sizeof a);
  llSuave(2, 1, Integrand, NULL, 1, 1e-3, 0, 0, 0, 0, 1000000, 1000, 2, 25,
          NULL, NULL, &a.nregions, &a.neval, &a.fail, &a.I, &a.E, &a.P);
  ok(same(&a, &b), "llSuave = gSuave");

  /* Divonne: Cuba's demo arguments; the bits of gDivonne whatever its
     fail (test-divonne checks the answers) */
  memset(&a, 0, sizeof a);
  memset(&b, 0, sizeof b);
  Divonne(3, 1, Demo, NULL, 1, 1e-3, 0, 0, 0, 0, 50000, 47, 1, 1, 5, 0, 10,
          .25, 0, 3, NULL, 0, NULL, NULL, NULL, &a.nregions, &e, &a.fail,
          &a.I, &a.E, &a.P);
  a.neval = e;
  llgDivonne(3, 1, d3, NULL, 1, 1e-3, 0, 0, 0, 0, 50000, 47, 1, 1, 5, 0, 10,
             .25, 0, 3, NULL, 0, NULL, NULL, NULL, &b.nregions, &b.neval,
             &b.fail, &b.I, &b.E, &b.P);
  ok(same(&a, &b), "Divonne = gDivonne (fail %d, %.10g +- %.1e)", a.fail,
     a.I, a.E);
  memset(&a, 0, sizeof a);
  llDivonne(3, 1, Demo, NULL, 1, 1e-3, 0, 0, 0, 0, 50000, 47, 1, 1, 5, 0, 10,
            .25, 0, 3, NULL, 0, NULL, NULL, NULL, &a.nregions, &a.neval,
            &a.fail, &a.I, &a.E, &a.P);
  ok(same(&a, &b), "llDivonne = gDivonne");
  memset(&a, 0, sizeof a);
  memset(&b, 0, sizeof b);
  Divonne(3, 1, Demo, NULL, 1, 1e-3, 0, 0, 0, 0, 50000, 47, 1, 1, 5, 0, 10,
          .25, 1, 3, xgiven, 1, Centre, NULL, NULL, &a.nregions, &e,
          &a.fail, &a.I, &a.E, &a.P);
  a.neval = e;
  llgDivonne(3, 1, d3, NULL, 1, 1e-3, 0, 0, 0, 0, 50000, 47, 1, 1, 5, 0, 10,
             .25, 1, 3, xgiven, 1, Centre, NULL, NULL, &b.nregions,
             &b.neval, &b.fail, &b.I, &b.E, &b.P);
  ok(same(&a, &b), "Divonne with xgiven and a peakfinder = gDivonne "
     "(fail %d)", a.fail);

  memset(&a, 0, sizeof a);
  memset(&b, 0, sizeof b);
  Cuhre(2, 1, Integrand, NULL, 1, 1e-9, 0, 0, 0, 1000000, 0, NULL, NULL,
        &a.nregions, &e, &a.fail, &a.I, &a.E, &a.P);
  a.neval = e;
  llgCuhre(2, 1, d, NULL, 1, 1e-9, 0, 0, 0, 1000000, 0, NULL, NULL,
           &b.nregions, &b.neval, &b.fail, &b.I, &b.E, &b.P);
  ok(a.fail == 0 && same(&a, &b) && fabs(a.I - truth) <= 1e-9 * truth,
     "Cuhre = gCuhre (%.15g)", a.I);
  memset(&a, 0, sizeof a);
  llCuhre(2, 1, Integrand, NULL, 1, 1e-9, 0, 0, 0, 1000000, 0, NULL, NULL,
          &a.nregions, &a.neval, &a.fail, &a.I, &a.E, &a.P);
  ok(same(&a, &b), "llCuhre = gCuhre");

  /* one thread unless asked for: every call on core 0 */
  memset(&a, 0, sizeof a);
  Vegas(2, 1, (integrand_t)Vector, NULL, 32, 1e-3, 0, 0, 0, 0, 1000000,
        20000, 20000, 1000, 0, NULL, NULL, &e, &a.fail, &a.I, &a.E, &a.P);
  ok(a.fail == 0 && maxcore == 0 && fabs(a.I - truth) <= 4 * a.E,
     "Cuba's names use one thread by default (cores up to %d), nvec form: "
     "%.10g +- %.1e", maxcore, a.I, a.E);
  n = 2;
  cubacores(&n, &n);
  memset(&b, 0, sizeof b);
  Vegas(2, 1, (integrand_t)Vector, NULL, 32, 1e-3, 0, 0, 0, 0, 1000000,
        20000, 20000, 1000, 0, NULL, NULL, &e, &b.fail, &b.I, &b.E, &b.P);
  ok(!memcmp(&a.I, &b.I, sizeof a.I) && !memcmp(&a.E, &b.E, sizeof a.E),
     "cubacores(2): the bits of one thread");
  cubafork(NULL);
  cubawait(NULL);
  return done();
}
