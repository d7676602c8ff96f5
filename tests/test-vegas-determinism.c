/* tests/test-vegas-determinism.c -- gVegas gives the same bits for the same
   call: run after run, for any number of CPU threads, for seed 0 too, for
   any nvec and batch size of an nvec-form integrand, across slices of an
   iteration larger than 2^24 samples, with adaptive stratification too
   (GCUBA_VEGAS_BETA), and for a costly integrand whose small iterations
   the threads share chunk by chunk; another seed gives other numbers.
   This file is part of gcuba. */
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include "tap.h"
#include "suite.h"

typedef struct {
  double I[3], E[3], P[3];
  long long neval;
  int fail;
} result;

static void run(int ndim, int ncomp, gintegrand_t f, long long nvec,
                double epsrel, int flags, int seed, long long maxeval,
                long long nstart, long long nincrease, long long nbatch,
                result *r)
{
  memset(r, 0, sizeof *r);
  llgVegas(ndim, ncomp, f, NULL, nvec, epsrel, 1e-20, flags, seed, 0,
           maxeval, nstart, nincrease, nbatch, 0, NULL, NULL, &r->neval,
           &r->fail, r->I, r->E, r->P);
}

static int same(const result *a, const result *b)
{
  return a->fail == b->fail && a->neval == b->neval &&
         !memcmp(a->I, b->I, sizeof a->I) && !memcmp(a->E, b->E, sizeof a->E) &&
         !memcmp(a->P, b->P, sizeof a->P);
}

/* the Gaussian f4 as a plain Cuba host function, one point and nvec form;
   both compute each value with the same code */
static double gauss(int ndim, const double *x)
{
  double s = 0;
  int i;
  for (i = 0; i < ndim; ++i) s += (x[i] - 0.5) * (x[i] - 0.5);
  return exp(-625 * s);
}

static int point_fn(const int *ndim, const double x[], const int *ncomp,
                    double f[], void *userdata)
{
  (void)ncomp;
  (void)userdata;
  f[0] = gauss(*ndim, x);
  return 0;
}

static int maxn, badweight;
static int nvec_fn(const int *ndim, const double x[], const int *ncomp,
                   double f[], void *userdata, const int *nvec,
                   const int *core, const double weight[], const int *iter)
{
  int i;
  (void)ncomp;
  (void)userdata;
  (void)core;
  if (*nvec > maxn) maxn = *nvec;
  for (i = 0; i < *nvec; ++i) {
    f[i] = gauss(*ndim, x + (size_t)i * *ndim);
    if (!(weight[i] > 0) || *iter < 1) badweight = 1;
  }
  return 0;
}

/* x1 (products only: the same bits from every compiler) */
static int lin_fn(const int *ndim, const double x[], const int *ncomp,
                  double f[], void *userdata)
{
  (void)ndim;
  (void)ncomp;
  (void)userdata;
  f[0] = 3 * x[0] * x[0];
  return 0;
}

/* a broad Gaussian at a cost of some microseconds a point; counts the
   threads that call it */
static volatile double sink;
static pthread_t callers[64];
static int ncallers;
static pthread_mutex_t callers_lock = PTHREAD_MUTEX_INITIALIZER;
static int slow_fn(const int *ndim, const double x[], const int *ncomp,
                   double f[], void *userdata)
{
  double s = 0;
  int i;
  pthread_t me = pthread_self();
  (void)ncomp;
  (void)userdata;
  for (i = 0; i < 4000; ++i) s += sqrt((double)i + x[0]);
  sink = s;
  for (s = 0, i = 0; i < *ndim; ++i) s += (x[i] - 0.5) * (x[i] - 0.5);
  f[0] = exp(-4 * s);
  pthread_mutex_lock(&callers_lock);
  for (i = 0; i < ncallers && !pthread_equal(callers[i], me); ++i) continue;
  if (i == ncallers && ncallers < 64) callers[ncallers++] = me;
  pthread_mutex_unlock(&callers_lock);
  return 0;
}

/* slow_fn in 6D with Cuba's nstart 1000 and nincrease 500 on n threads */
static void slow_threads(int n, result *r)
{
  gcubacores(&n, &n);
  ncallers = 0;
  run(6, 1, gcuba_host_integrand(slow_fn, 0), 1, 1e-3, 0, 3, 6000, 1000,
      500, 1000, r);
  n = -1;
  gcubacores(&n, &n);
}

/* lin_fn in 1D with iterations of 18e6 samples up to maxeval, on 1 CPU
   thread (a) and on 2 (b) */
static void lin_threads(long long maxeval, result *a, result *b)
{
  int n = 1;
  gcubacores(&n, &n);
  run(1, 1, gcuba_host_integrand(lin_fn, 0), 1, 1e-3, 0, 9, maxeval,
      18000000, 0, 1000, a);
  n = 2;
  gcubacores(&n, &n);
  run(1, 1, gcuba_host_integrand(lin_fn, 0), 1, 1e-3, 0, 9, maxeval,
      18000000, 0, 1000, b);
  n = -1;
  gcubacores(&n, &n);
}

int main(void)
{
  result a, b, c;
  int n, ok1 = 1;
  gintegrand_t pf, vf;
  plan(0);

  run(5, 1, f4_c, 1, 1e-3, 0, 7, 100000000, 10000, 10000, 1000, &a);
  run(5, 1, f4_c, 1, 1e-3, 0, 7, 100000000, 10000, 10000, 1000, &b);
  ok(a.fail == 0 && same(&a, &b),
     "two identical calls: the same bits (%.17g +- %.17g, prob %.17g, "
     "neval %lld)", a.I[0], a.E[0], a.P[0], a.neval);
  for (n = 1; n <= 3; ++n) {
    gcubacores(&n, &n);
    run(5, 1, f4_c, 1, 1e-3, 0, 7, 100000000, 10000, 10000, 1000, &b);
    ok1 &= same(&a, &b);
  }
  ok(ok1, "1, 2 and 3 CPU threads: the same bits");
  {
    result r1, r2;
    n = 1;
    gcubacores(&n, &n);
    run(3, 3, f43c_c, 1, 1e-3, GCUBA_VEGAS1D, 3, 100000000, 5000, 5000, 1000,
        &r1);
    n = 3;
    gcubacores(&n, &n);
    run(3, 3, f43c_c, 1, 1e-3, GCUBA_VEGAS1D, 3, 100000000, 5000, 5000, 1000,
        &r2);
    ok(same(&r1, &r2), "three components, one grid for all axes: 1 and 3 "
       "threads agree");
  }
  n = -1;
  gcubacores(&n, &n);

  run(5, 1, f4_c, 1, 1e-3, 0, 0, 100000000, 10000, 10000, 1000, &b);
  run(5, 1, f4_c, 1, 1e-3, 0, 0, 100000000, 10000, 10000, 1000, &c);
  ok(b.fail == 0 && same(&b, &c), "seed 0: deterministic (%.15g)", b.I[0]);
  ok(memcmp(b.I, a.I, sizeof a.I) != 0, "seed 0 and seed 7 differ");

  /* nvec form: batching does not change a bit */
  pf = gcuba_host_integrand(point_fn, 0);
  vf = gcuba_host_integrand((gcuba_host_fn)nvec_fn, 1);
  run(4, 1, pf, 1, 1e-3, 0, 5, 100000000, 10000, 10000, 1000, &a);
  ok(a.fail == 0, "point-form host function: fail %d, %.12g +- %.3g", a.fail,
     a.I[0], a.E[0]);
  maxn = 0;
  run(4, 1, vf, 1, 1e-3, 0, 5, 100000000, 10000, 10000, 1000, &b);
  ok(same(&a, &b) && maxn == 1, "nvec form, nvec 1: the same bits, at most "
     "%d point per call", maxn);
  maxn = 0;
  run(4, 1, vf, 7, 1e-3, 0, 5, 100000000, 10000, 10000, 1000, &b);
  ok(same(&a, &b) && maxn == 7, "nvec 7: the same bits, %d points per call",
     maxn);
  maxn = 0;
  run(4, 1, vf, 100000, 1e-3, 0, 5, 100000000, 10000, 10000, 300, &b);
  ok(same(&a, &b) && maxn <= 300 && maxn > 7,
     "nvec 100000, nbatch 300: the same bits, %d points per call (<= "
     "nbatch)", maxn);
  ok(!badweight, "nvec form receives positive weights and iteration >= 1");
  /* the same with adaptive stratification (units of cubes) */
  setenv("GCUBA_VEGAS_BETA", "0.75", 1);
  run(4, 1, pf, 1, 1e-3, 0, 5, 100000000, 10000, 10000, 1000, &a);
  run(4, 1, vf, 7, 1e-3, 0, 5, 100000000, 10000, 10000, 1000, &b);
  run(4, 1, vf, 100000, 1e-3, 0, 5, 100000000, 10000, 10000, 300, &c);
  unsetenv("GCUBA_VEGAS_BETA");
  ok(a.fail == 0 && same(&a, &b) && same(&a, &c),
     "GCUBA_VEGAS_BETA=0.75: point form, nvec 7 and nvec 100000 with nbatch "
     "300 give the same bits (%.15g)", a.I[0]);

  /* a costly integrand: iterations of 1000-3000 samples shared chunk by
     chunk, with and without adaptive stratification */
  {
    result r1, r;
    int k, same3 = 1, team = 1;
    slow_threads(1, &r1);
    for (k = 2; k <= 4; ++k) {
      slow_threads(k, &r);
      same3 &= same(&r1, &r);
      team &= ncallers > 1;
    }
    ok(same3 && r1.neval > 3000, "a costly integrand (6D, nstart 1000, "
       "nincrease 500): 1, 2, 3 and 4 threads, the same bits (%.15g +- "
       "%.2g, neval %lld)", r1.I[0], r1.E[0], r1.neval);
    ok(team, "its small iterations are shared by the threads");
    setenv("GCUBA_VEGAS_BETA", "0.75", 1);
    slow_threads(1, &r1);
    slow_threads(3, &r);
    unsetenv("GCUBA_VEGAS_BETA");
    ok(same(&r1, &r) && ncallers > 1, "and with GCUBA_VEGAS_BETA=0.75: 1 "
       "and 3 threads, the same bits, %d threads called it", ncallers);
  }

  /* an iteration of more than 2^24 samples (a slice and a part) */
  lin_threads(18000000, &a, &b);
  ok(same(&a, &b) && a.neval == 18000000 && fabs(a.I[0] - 1) < 4 * a.E[0],
     "18e6 samples in one iteration (2 slices), 1 and 2 threads: the same "
     "bits, %.15g +- %.2g", a.I[0], a.E[0]);
  setenv("GCUBA_VEGAS_BETA", "0.75", 1);
  lin_threads(36000000, &a, &b);
  unsetenv("GCUBA_VEGAS_BETA");
  ok(same(&a, &b) && a.neval == 36000000 && fabs(a.I[0] - 1) < 4 * a.E[0],
     "GCUBA_VEGAS_BETA=0.75: 2 iterations of 18e6 samples (2 slices), 1 "
     "and 2 threads: the same bits, %.15g +- %.2g", a.I[0], a.E[0]);
  return done();
}
