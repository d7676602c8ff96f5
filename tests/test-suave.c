/* tests/test-suave.c -- gSuave: Cuba's demo integrands (converged
   wherever Cuba 4.2.2's Suave converges, every fail = 0 within 4 errors
   of the true value), test integrands of the suite against
   their analytic values, bad arguments (each its fail code, no work
   done), an integrand's abort and NaN, the same bits for any thread
   count and through a state file, Cuba's nvec form (weights, iteration),
   a pseudo-random seed and many components.  Built twice: CPU integrands, and
   (test-suave-gpu) nvcc-built ones on the GPU.  This file is part of
   gcuba. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "tap.h"
#include "suite.h"
#include "gpu.h"
#include "gaussians.h"

#ifdef SUITE_GPU
#define SF "test-suave-gpu.state"
#else
#define SF "test-suave.state"
#endif

typedef struct {
  int nregions, fail;
  long long neval;
  double I, E, P;
} result;

static void run(result *r, int ndim, gintegrand_t f, void *ud, int flags,
                int seed, double epsrel, long long maxeval, long long nnew,
                const char *sf)
{
  r->nregions = r->fail = 12345;
  r->neval = -1;
  llgSuave(ndim, 1, f, ud, 1, epsrel, 1e-12, flags, seed, 0, maxeval, nnew,
           2, 25, sf, NULL, &r->nregions, &r->neval, &r->fail, &r->I, &r->E,
           &r->P);
}

static int same(const result *a, const result *b)
{
  return a->fail == b->fail && a->neval == b->neval &&
         a->nregions == b->nregions && !memcmp(&a->I, &b->I, sizeof a->I) &&
         !memcmp(&a->E, &b->E, sizeof a->E);
}

/* Cuba's demo (demo-c.c: epsrel 1e-3, epsabs 1e-12, flags LAST, maxeval
   50000, nnew 1000, nmin 2, flatness 25), its 11 integrands in 3D */
/* Cuba 4.2.2's Suave there (one core): fail and neval */
static const int cuba_fail[12] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1};
static const long long cuba_neval[12] = {0, 7000, 37000, 7000, 13000, 5000,
  13000, 27000, 6000, 7000, 43000, 50000};

static void check_demo(void)
{
  int k, conv = 1, honest = 1;
  for (k = 1; k <= 11; ++k) {
    struct suite_param p = {0};
    result r;
    double err;
    p.k = k;
    p.a = 1;
    gcuba_userdata_size(sizeof p);
    run(&r, 3, S(cubademo), &p, GCUBA_LAST, 0, 1e-3, 50000, 1000, NULL);
    gcuba_userdata_size(0);
    err = fabs(r.I - suite_demo_truth[k]);
    diag("demo %2d: %.10f +- %.3e, fail %d, neval %lld, regions %d (Cuba: "
         "fail %d, neval %lld), true error %.2e", k, r.I, r.E, r.fail,
         r.neval, r.nregions, cuba_fail[k], cuba_neval[k], err);
    if (cuba_fail[k] == 0 && r.fail != 0) conv = 0;
    if (r.fail == 0 && !(err <= 4 * r.E)) honest = 0;
    if (r.fail < 0 || r.neval > 50000) conv = honest = 0;
  }
  ok(conv, "Cuba's demo: converges on every integrand where Cuba's Suave "
     "does, within maxeval");
  ok(honest, "Cuba's demo: every fail = 0 within 4 errors of the true "
     "value");
}

/* the suite's integrands at their analytic values: every fail = 0
   within 4 errors of the truth (a statistical error: claimed at the
   tolerance, about one answer in three lies beyond it).  f3 8D, f6 6D
   and f7 8D at 1e-2: Cuba's Suave claims them 2 to 60% off; gSuave's
   chi^2 rule refuses f3 and f6, and claims f7 within 2 errors */
static void check_suite(void)
{
  static const struct {
    int idx;
    double epsrel;
    long long maxeval;
  } cases[] = {{2, 1e-2, 400000}, {2, 1e-3, 400000}, {11, 1e-2, 400000},
               {3, 1e-2, 300000},  {9, 1e-2, 300000},  {10, 1e-2, 300000}};
  int i;
  for (i = 0; i < (int)(sizeof cases / sizeof cases[0]); ++i) {
    const struct suite_case *sc = &suite_cases[cases[i].idx];
    result r;
    double rel;
    run(&r, sc->d, suite_family(sc->family, SUITE_BACKEND), NULL, 0, 0, cases[i].epsrel,
        cases[i].maxeval, 1000, NULL);
    rel = fabs(r.I - sc->truth) / fabs(sc->truth);
    ok(r.fail >= 0 &&
           (r.fail != 0 || (fabs(r.I - sc->truth) <= 4 * r.E &&
                            r.E <= cases[i].epsrel * fabs(r.I))),
       "%s %dD at %g: fail %d, neval %lld, %.6e +- %.2e, true relative "
       "error %.2e (%.1f errors)", sc->name, sc->d, cases[i].epsrel, r.fail,
       r.neval, r.I, r.E, rel, fabs(r.I - sc->truth) / r.E);
  }
}

static void check_args(void)
{
  result r;
  int nreg, fail;
  long long neval;
  double I, E, P;
#define BAD(call, code, what)                                               \
  do {                                                                      \
    fail = 12345;                                                           \
    neval = -1;                                                             \
    call;                                                                   \
    ok(fail == (code) && neval <= 0, "%s: fail %d", what, fail);           \
  } while (0)
  BAD(llgSuave(0, 1, S(f4), NULL, 1, 1e-3, 0, 0, 0, 0, 1000, 100, 2, 25,
               NULL, NULL, &nreg, &neval, &fail, &I, &E, &P),
      GCUBA_FAIL_NDIM, "ndim 0");
  BAD(llgSuave(2, 0, S(f4), NULL, 1, 1e-3, 0, 0, 0, 0, 1000, 100, 2, 25,
               NULL, NULL, &nreg, &neval, &fail, &I, &E, &P),
      GCUBA_FAIL_NCOMP, "ncomp 0");
  BAD(llgSuave(2, 1, NULL, NULL, 1, 1e-3, 0, 0, 0, 0, 1000, 100, 2, 25,
               NULL, NULL, &nreg, &neval, &fail, &I, &E, &P),
      GCUBA_FAIL_NULL, "NULL integrand");
  BAD(llgSuave(2, 1, S(f4), NULL, 1, -1, 0, 0, 0, 0, 1000, 100, 2, 25, NULL,
               NULL, &nreg, &neval, &fail, &I, &E, &P),
      GCUBA_FAIL_TOLERANCE, "negative epsrel");
  BAD(llgSuave(2, 1, S(f4), NULL, 1, 1e-3, 0, 0, 0, 5000, 1000, 100, 2, 25,
               NULL, NULL, &nreg, &neval, &fail, &I, &E, &P),
      GCUBA_FAIL_EVALS, "mineval > maxeval");
  BAD(llgSuave(2, 1, S(f4), NULL, 1, 1e-3, 0, 0, 0, 0, 1, 100, 2, 25, NULL,
               NULL, &nreg, &neval, &fail, &I, &E, &P),
      GCUBA_FAIL_EVALS, "maxeval 1");
  BAD(llgSuave(2, 1, S(f4), NULL, 1, 1e-3, 0, 0, 0, 0, 1000, 1, 2, 25, NULL,
               NULL, &nreg, &neval, &fail, &I, &E, &P),
      GCUBA_FAIL_PARAM, "nnew 1");
  BAD(llgSuave(2, 1, S(f4), NULL, 1, 1e-3, 0, 0, 0, 0, 1000, 100, -1, 25,
               NULL, NULL, &nreg, &neval, &fail, &I, &E, &P),
      GCUBA_FAIL_PARAM, "nmin -1");
  BAD(llgSuave(2, 1, S(f4), NULL, 1, 1e-3, 0, 0, 0, 0, 1000, 100, 2, 0, NULL,
               NULL, &nreg, &neval, &fail, &I, &E, &P),
      GCUBA_FAIL_PARAM, "flatness 0");
  BAD(llgSuave(2, 1, S(f4), NULL, 1, 1e-3, 0, 0, 0, 0, 1000, 100, 2, NAN,
               NULL, NULL, &nreg, &neval, &fail, &I, &E, &P),
      GCUBA_FAIL_PARAM, "flatness NaN");
  BAD(llgSuave(2, 1, S(f4), NULL, 1, 1e-3, 0, 0, 0, 0, 1000, 100, 2, 25,
               NULL, NULL, NULL, &neval, &fail, &I, &E, &P),
      GCUBA_FAIL_NULL, "nregions NULL");
  /* the integrand's -999 and NaN */
  run(&r, 2, S(fabort), NULL, 0, 0, 1e-3, 100000, 1000, NULL);
  ok(r.fail == GCUBA_FAIL_ABORT, "integrand returns -999: fail %d",
     r.fail);
  run(&r, 2, S(fnan), NULL, 0, 0, 1e-3, 100000, 1000, NULL);
  ok(r.fail == GCUBA_FAIL_NAN, "integrand returns NaN: fail %d", r.fail);
  /* maxeval below nnew: one smaller set, fail 1 */
  run(&r, 5, S(f4), NULL, 0, 0, 1e-6, 500, 1000, NULL);
  ok(r.fail == 1 && r.neval == 500 && r.nregions == 1,
     "maxeval 500 < nnew: fail %d, neval %lld, regions %d", r.fail, r.neval,
     r.nregions);
#undef BAD
}

static void check_state(void)
{
  result whole, a, b, kept;
  int pieces;
  unlink(SF);
  run(&whole, 3, S(f3), NULL, 0, 0, 1e-3, 200000, 1000, NULL);
  for (pieces = 2; pieces <= 3; ++pieces) {
    long long m = whole.neval / pieces;
    int i;
    unlink(SF);
    for (i = 1; i < pieces; ++i)
      run(&a, 3, S(f3), NULL, 0, 0, 1e-3, m * i, 1000, SF);
    run(&b, 3, S(f3), NULL, 0, 0, 1e-3, 200000, 1000, SF);
    ok(whole.fail == 0 && a.fail == 1 && same(&whole, &b),
       "f3 3D in %d pieces through a state file: the same bits (%.15g, "
       "neval %lld)", pieces, b.I, b.neval);
    ok(access(SF, F_OK) != 0, "the state file is removed after success");
  }
  run(&kept, 3, S(f3), NULL, GCUBA_KEEPSTATE, 0, 1e-3, 200000, 1000, SF);
  ok(access(SF, F_OK) == 0 && same(&whole, &kept),
     "flags bit 4 keeps the file");
  run(&kept, 3, S(f3), NULL, GCUBA_KEEPSTATE, 0, 1e-3, 200000, 1000, SF);
  ok(same(&whole, &kept), "a kept file resumes at the answer");
  run(&kept, 5, S(f4), NULL, 0, 0, 1e-3, 200000, 1000, SF);
  ok(kept.fail == GCUBA_FAIL_STATE, "another problem's state: fail %d",
     kept.fail);
  unlink(SF);
}

#ifndef SUITE_GPU
static int seen_iter, seen_calls;
static double seen_wsum;
static int nvec_fn(const int *ndim, const double x[], const int *ncomp,
                   double f[], void *userdata, const int *nvec,
                   const int *core, const double weight[], const int *iter)
{
  int i;
  (void)ncomp;
  (void)userdata;
  (void)core;
  for (i = 0; i < *nvec; ++i) {
    f[i] = exp(-x[i * *ndim] - 2 * x[i * *ndim + 1]);
    if (seen_calls == 0 || *iter == 1) seen_wsum += weight[i];
  }
  if (*iter > seen_iter) seen_iter = *iter;
  ++seen_calls;
  return 0;
}

/* component k: a 3-D Gaussian of its own centre and width, times k + 1
   (as tests/test-ncomp-gpu.cu) */
static int gaussians(const int *ndim, const double x[], const int *ncomp,
                     double f[], void *userdata)
{
  (void)userdata;
  gaussians_eval(*ndim, x, *ncomp, f, 1);
  return 0;
}

/* many components: each is tested for the sets' agreement at 5%/ncomp,
   and a chi^2 a little above its degrees of freedom widens the error
   instead of holding the claim back (16 components once took 1,166,000
   evaluations, now 586,000; 8 components ran to maxeval 2e6, their errors
   a third of the tolerance) */
static void check_ncomp(void)
{
  static const struct {
    int ncomp;
    double epsrel;
  } cases[] = {{16, 1e-3}, {256, 1e-2}};
  int i;
  for (i = 0; i < 2; ++i) {
    const int nc = cases[i].ncomp;
    double *I = (double *)malloc(sizeof(double) * 3 * nc), *E = I + nc,
           *P = E + nc, worst = 0;
    long long neval;
    int nreg, fail, k;
    llgSuave(3, nc, gcuba_host_integrand((gcuba_host_fn)gaussians, 0), NULL,
             1, cases[i].epsrel, 0, 0, 1, 0, 1000000, 1000, 2, 25, NULL,
             NULL, &nreg, &neval, &fail, I, E, P);
    for (k = 0; k < nc; ++k) {
      const double t = gaussians_truth(k, 3);
      double z;
      z = fabs(I[k] - t) / E[k];
      if (!(z <= worst)) worst = z;
      if (!(E[k] <= cases[i].epsrel * fabs(I[k]))) worst = INFINITY;
    }
    ok(fail == 0 && worst <= 4,
       "%d components at epsrel %g: fail %d, neval %lld, every error within "
       "the tolerance, every answer within %.2f of its errors", nc,
       cases[i].epsrel, fail, neval, worst);
    free(I);
  }
}

static void check_cpu(void)
{
  result one, three, nv, p1, p2;
  const double truth = (1 - exp(-1.0)) * (1 - exp(-2.0)) / 2;
  int n = 1;
  gcubacores(&n, &n);
  run(&one, 6, S(f4), NULL, 0, 0, 1e-3, 300000, 1000, NULL);
  n = 3;
  gcubacores(&n, &n);
  run(&three, 6, S(f4), NULL, 0, 0, 1e-3, 300000, 1000, NULL);
  ok(same(&one, &three), "f4 6D: one thread and three give the same bits "
     "(%.15g, neval %lld)", one.I, one.neval);
  /* steps of several pieces (src/suave/passes.c): the passes over the
     samples on the threads */
  n = 1;
  gcubacores(&n, &n);
  run(&one, 3, S(f3), NULL, 0, 0, 1e-4, 4000000, 40000, NULL);
  n = 3;
  gcubacores(&n, &n);
  run(&three, 3, S(f3), NULL, 0, 0, 1e-4, 4000000, 40000, NULL);
  ok(same(&one, &three) && one.fail == 0 &&
         fabs(one.I - suite_cases[2].truth) <= 4 * one.E,
     "f3 3D, nnew 40000: one thread and three give the same bits, %.8e "
     "+- %.1e (true %.8e), fail %d, neval %lld", one.I, one.E,
     suite_cases[2].truth, one.fail, one.neval);
  n = -1;
  gcubacores(&n, &n);
  run(&nv, 2, gcuba_host_integrand((gcuba_host_fn)nvec_fn, 1), NULL, 0, 0,
      1e-4, 200000, 1000, NULL);
  ok(nv.fail == 0 && fabs(nv.I - truth) <= 1e-4 * truth,
     "Cuba's nvec form: %.10f (true %.10f), fail %d", nv.I, truth, nv.fail);
  ok(fabs(seen_wsum - 1) < 0.2 && seen_iter >= 2,
     "it gets the first set's weights (sum %.3f, the volume 1) and the "
     "iteration (up to %d)", seen_wsum, seen_iter);
  run(&p1, 3, S(f3), NULL, 0, 7, 1e-3, 300000, 1000, NULL);
  run(&p2, 3, S(f3), NULL, 0, 7, 1e-3, 300000, 1000, NULL);
  ok(same(&p1, &p2) && p1.fail == 0 &&
     fabs(p1.I - suite_cases[2].truth) <= 4 * p1.E,
     "seed 7 (Philox): reproducible, %.6e +- %.1e (true %.6e)", p1.I, p1.E,
     suite_cases[2].truth);
}
#endif

#ifdef SUITE_GPU
/* the GPU backend keeps the samples on the device and makes the passes
   there (cuda/suave.cu): the same points as the CPU backend's for the
   same integrand (compiled for both), sums in another order and the
   device's pow and exp, so the same answer within rounding unless a
   cut's decision ties (then within the errors); steps of one piece
   (nnew 1000) and of several (40000), Sobol and Philox points.  A run
   through a state file at nnew 40000 gives the bits of a whole one */
static void check_gpu(void)
{
  static const struct {
    long long nnew, maxeval;
    double epsrel;
    int seed;
  } cases[] = {{1000, 300000, 1e-3, 0}, {40000, 4000000, 1e-4, 0},
               {1000, 300000, 1e-3, 7}, {40000, 4000000, 1e-4, 7}};
  const double truth = suite_cases[2].truth;
  result cpu, gpu, whole, a, b;
  int i;
  for (i = 0; i < (int)(sizeof cases / sizeof cases[0]); ++i) {
    double e;
    setenv("GCUBA_DEVICE", "cpu", 1);
    run(&cpu, 3, S(f3), NULL, 0, cases[i].seed, cases[i].epsrel,
        cases[i].maxeval, cases[i].nnew, NULL);
    battery_backend();
    run(&gpu, 3, S(f3), NULL, 0, cases[i].seed, cases[i].epsrel,
        cases[i].maxeval, cases[i].nnew, NULL);
    e = cpu.E > gpu.E ? cpu.E : gpu.E;
    ok(gpu.fail == 0 && cpu.fail == 0 && fabs(gpu.I - cpu.I) <= 2 * e &&
           fabs(gpu.I - truth) <= 4 * gpu.E &&
           fabs((double)(gpu.neval - cpu.neval)) <= 0.2 * (double)cpu.neval,
       "f3 3D, nnew %lld, seed %d: GPU %.12e +- %.1e (neval %lld), CPU "
       "%.12e +- %.1e (neval %lld), apart by %.1e of the error, true %.8e",
       cases[i].nnew, cases[i].seed, gpu.I, gpu.E, gpu.neval, cpu.I, cpu.E,
       cpu.neval, fabs(gpu.I - cpu.I) / e, truth);
  }
  unlink(SF);
  run(&whole, 3, S(f3), NULL, 0, 0, 1e-4, 4000000, 40000, NULL);
  run(&a, 3, S(f3), NULL, 0, 0, 1e-4, whole.neval / 2, 40000, SF);
  run(&b, 3, S(f3), NULL, 0, 0, 1e-4, 4000000, 40000, SF);
  ok(whole.fail == 0 && a.fail == 1 && same(&whole, &b),
     "f3 3D, nnew 40000, in 2 pieces through a state file: the same bits "
     "(%.15g, neval %lld)", b.I, b.neval);
  unlink(SF);
}
#endif

int main(void)
{
  battery_start();
  plan(0);
  battery_backend();
  check_args();
  check_demo();
  check_suite();
  check_state();
#ifndef SUITE_GPU
  check_cpu();
  check_ncomp();
#else
  check_gpu();
#endif
  return done();
}
