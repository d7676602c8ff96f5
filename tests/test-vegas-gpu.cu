/* tests/test-vegas-gpu.cu -- gVegas on the GPU (GPU test: skips without a
   device, fails then with GCUBA_TEST_REQUIRE_GPU=1).
   - The same samples on both backends: for integrands whose arithmetic is
     exact on host and device (products only), the GPU and CPU backends
     return the same bits (integral, error, prob, neval), through every
     kernel variant (ncomp 1 / <= 8 / more, ndim <= 16 / <= 64 / more),
     the shared grid, 500 bins, a frozen grid, and an iteration of three
     slices; the suite integrands (exp, contracted sums: the same to
     rounding) agree within their errors.
   - Adaptive stratification (GCUBA_VEGAS_BETA): the same bits on both
     backends through the kernel variants, the shared grid, a frozen
     grid, GCUBA_VEGASAUTO and iterations of several slices.
   - Seed 0 (Sobol points, independent-sample variance): the same bits on
     both backends too, through every kernel variant, the bin pass and an
     iteration of several slices.
   - Reproducible: two identical GPU calls give the same bits.
   - The suite at 1e-3 and 1e-4: fail = 0, true value within 4 errors.
   - NaN, -999, userdata in host memory (refused; copied with
     gcuba_userdata_size), device and managed memory.
   - Throughput (diagnostic): samples per second on f4 8D.
   GCUBA_TEST_QUICK=1 leaves out the largest runs (for compute-sanitizer).
   This file is part of gcuba. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <cuda_runtime.h>
#define SUITE_HAVE_CU 1
#include "suite.h"
#include "capture.h"
#include "gpu.h"

/* exact on host and device: products only */
GCUBA_INTEGRAND(fx)(const int *ndim, const double x[], const int *ncomp,
                    double f[], void *userdata)
{
  double p = 1;
  for (int i = 0; i < *ndim; ++i) p *= 3 * x[i] * x[i];
  f[0] = p;
  return 0;
}

/* ncomp components: (c+1) prod 2 x_i, the last one constant 2 */
GCUBA_INTEGRAND(fxn)(const int *ndim, const double x[], const int *ncomp,
                     double f[], void *userdata)
{
  double p = 1;
  for (int i = 0; i < *ndim; ++i) p *= 2 * x[i];
  for (int c = 0; c < *ncomp - 1; ++c) f[c] = (c + 1) * p;
  f[*ncomp - 1] = 2;
  return 0;
}

typedef struct {
  double I[12], E[12], P[12];
  long long neval;
  int fail;
  char backend[4];
  double ms;
} result;

static double now_ms(void)
{
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec * 1e3 + t.tv_nsec / 1e6;
}

static int seed = 3; /* of every call */

static void run(const char *dev, gintegrand_t f, int ndim, int ncomp,
                void *ud, double epsrel, int flags, long long maxeval,
                long long nstart, long long nincrease, result *r)
{
  double t0;
  memset(r, 0, sizeof *r);
  setenv("GCUBA_DEVICE", dev, 1);
  t0 = now_ms();
  llgVegas(ndim, ncomp, f, ud, 1, epsrel, 1e-20, flags, seed, 0, maxeval,
           nstart, nincrease, 1000, 0, NULL, NULL, &r->neval, &r->fail, r->I,
           r->E, r->P);
  r->ms = now_ms() - t0;
  strncpy(r->backend, gcuba_last_backend(), 3);
  unsetenv("GCUBA_DEVICE");
}

static int same(const result *a, const result *b, int ncomp)
{
  return a->fail == b->fail && a->neval == b->neval &&
         !memcmp(a->I, b->I, sizeof(double) * ncomp) &&
         !memcmp(a->E, b->E, sizeof(double) * ncomp) &&
         !memcmp(a->P, b->P, sizeof(double) * ncomp);
}

/* GPU and CPU: the same bits */
static void both(const char *what, gintegrand_t f, int ndim, int ncomp,
                 double epsrel, int flags, long long maxeval,
                 long long nstart, long long nincrease)
{
  result g, c;
  run("gpu", f, ndim, ncomp, NULL, epsrel, flags, maxeval, nstart, nincrease,
      &g);
  run("cpu", f, ndim, ncomp, NULL, epsrel, flags, maxeval, nstart, nincrease,
      &c);
  int k = 0;
  while (k < ncomp - 1 && !memcmp(&g.I[k], &c.I[k], sizeof(double)) &&
         !memcmp(&g.E[k], &c.E[k], sizeof(double)) &&
         !memcmp(&g.P[k], &c.P[k], sizeof(double)))
    ++k;
  ok(!strcmp(g.backend, "gpu") && !strcmp(c.backend, "cpu") &&
     same(&g, &c, ncomp) && g.fail >= 0,
     "%s: GPU and CPU the same bits (fail %d, %.17g +- %.17g, prob %.17g, "
     "neval %lld; CPU fail %d, %.17g +- %.17g, prob %.17g, neval %lld "
     "(component %d); %.0f ms vs %.0f ms)", what, g.fail, g.I[k], g.E[k],
     g.P[k], g.neval, c.fail, c.I[k], c.E[k], c.P[k], c.neval, k + 1, g.ms,
     c.ms);
}

static void suite(int family, int d, double truth, double epsrel,
                  long long nstart, long long nincrease)
{
  result g;
  double pull;
  run("gpu", suite_family(family, 1), d, 1, NULL, epsrel, 0, 4000000000LL,
      nstart, nincrease, &g);
  pull = fabs(g.I[0] - truth) / g.E[0];
  ok(g.fail == 0 && pull <= 4 && g.E[0] <= epsrel * fabs(g.I[0]) &&
     g.P[0] >= 0 && g.P[0] <= 1 && !strcmp(g.backend, "gpu"),
     "GPU f%d %dD epsrel %.0e: fail %d, %.12g +- %.2e (%.2f errors off), "
     "prob %.3f, neval %lld, %.1f ms", family, d, epsrel, g.fail, g.I[0],
     g.E[0], pull, g.P[0], g.neval, g.ms);
}

/* three (or, with four, a fourth) shapes in turn (ndim, ncomp, one grid
   for all axes), verbosity 2 with stderr to file; the number of calls
   that logged reused buffers */
static int shapes(const char *file, result r[], int four)
{
  static char log[1 << 18];
  const char *key = "buffers of an earlier call reused", *q;
  int n = 0, save = capture_begin(file);
  run("gpu", fx, 4, 1, NULL, 1e-3, 2, 10000000, 100000, 100000, &r[0]);
  run("gpu", fxn, 5, 3, NULL, 1e-3, 2, 10000000, 100000, 100000, &r[1]);
  run("gpu", fx, 6, 1, NULL, 1e-3, 2 | GCUBA_VEGAS1D, 10000000, 100000,
      100000, &r[2]);
  if (four)
    run("gpu", fx, 3, 1, NULL, 1e-3, 2, 10000000, 100000, 100000, &r[3]);
  capture_end(save, file, log, sizeof log);
  for (q = log; (q = strstr(q, key)) != NULL; q += strlen(key)) ++n;
  return n;
}

int main(void)
{
  result a, b;
  struct suite_param p = {2.5, 3}, *dp, *mp;
  const double g = sqrt(M_PI) / 25 * erf(12.5);
  /* GCUBA_TEST_QUICK=1: no throughput runs, smaller slices test (for
     compute-sanitizer) */
  const int quick = getenv("GCUBA_TEST_QUICK") != NULL;
  gpu_required_or_skip();
  plan(0);

  /* warm up: CUDA context, module loading */
  run("gpu", fx, 2, 1, NULL, 1e-2, 0, 100000, 1000, 0, &a);

  both("fx 4D (ncomp 1, ndim <= 16 kernel)", fx, 4, 1, 1e-4, 0,
       100000000, 100000, 100000);
  both("fxn 5D, 3 components (ncomp <= 8 kernel)", fxn, 5, 3, 1e-3, 0,
       50000000, 100000, 100000);
  both("fxn 20D, 10 components (general kernel)", fxn, 20, 10, 1e-3, 0,
       4000000, 200000, 200000);
  both("fx 70D (general kernel: ndim > 64), 2 iterations", fx, 70, 1,
       1e-9, 0, 400000, 200000, 0);
  both("fx 30D, 1 component (ndim <= 64 kernel)", fx, 30, 1, 1e-9, 0,
       1000000, 250000, 250000);
  both("fx 6D, one grid for all axes", fx, 6, 1, 1e-3, GCUBA_VEGAS1D,
       50000000, 100000, 100000);
  setenv("GCUBA_VEGAS_NBINS", "500", 1);
  both("fx 5D, 500 bins", fx, 5, 1, 1e-3, 0, 50000000, 100000, 100000);
  unsetenv("GCUBA_VEGAS_NBINS");
  setenv("GCUBA_VEGAS_ADAPT", "2", 1);
  both("fx 4D, grid frozen after 2 refinements", fx, 4, 1, 1e-4, 0,
       100000000, 200000, 200000);
  unsetenv("GCUBA_VEGAS_ADAPT");
  if (!quick)
    both("fx 2D, 2 iterations of 34e6 samples (3 slices each)", fx, 2, 1,
         1e-12, 0, 68000000, 34000000, 0);
  else
    both("fx 2D, 2 iterations of 18e6 samples (2 slices each)", fx, 2, 1,
         1e-12, 0, 36000000, 18000000, 0);

  /* adaptive stratification (GCUBA_VEGAS_BETA): units of cubes */
  setenv("GCUBA_VEGAS_BETA", "0.75", 1);
  both("beta 0.75: fx 4D (ncomp 1, ndim <= 16 kernel)", fx, 4, 1, 1e-4, 0,
       100000000, 100000, 100000);
  both("beta 0.75: fxn 5D, 3 components (ncomp <= 8 kernel)", fxn, 5, 3,
       1e-3, 0, 50000000, 100000, 100000);
  both("beta 0.75: fxn 20D, 10 components (general kernel)", fxn, 20, 10,
       1e-3, 0, 4000000, 200000, 200000);
  both("beta 0.75: fx 30D, 1 component (ndim <= 64 kernel)", fx, 30, 1,
       1e-9, 0, 1000000, 250000, 250000);
  both("beta 0.75: fx 6D, one grid for all axes, GCUBA_VEGASAUTO", fx, 6, 1,
       1e-4, GCUBA_VEGAS1D | GCUBA_VEGASAUTO, 50000000, 100000, 100000);
  setenv("GCUBA_VEGAS_ADAPT", "2", 1);
  setenv("GCUBA_VEGAS_BETA", "1", 1);
  both("beta 1: fx 4D, grid frozen after 2 refinements", fx, 4, 1, 1e-4, 0,
       100000000, 200000, 200000);
  unsetenv("GCUBA_VEGAS_ADAPT");
  setenv("GCUBA_VEGAS_BETA", "0.75", 1);
  if (!quick)
    both("beta 0.75: fx 2D, 2 iterations of 34e6 samples (3 slices each)",
         fx, 2, 1, 1e-12, 0, 68000000, 34000000, 0);
  else
    both("beta 0.75: fx 2D, 2 iterations of 18e6 samples (2 slices each)",
         fx, 2, 1, 1e-12, 0, 36000000, 18000000, 0);
  unsetenv("GCUBA_VEGAS_BETA");

  /* seed 0: Sobol points */
  seed = 0;
  both("seed 0 (Sobol): fx 4D (ncomp 1, ndim <= 16 kernel)", fx, 4, 1, 1e-4,
       0, 4000000, 100000, 100000);
  both("seed 0 (Sobol): fxn 5D, 3 components (ncomp <= 8 kernel)", fxn, 5,
       3, 1e-3, 0, 4000000, 100000, 100000);
  both("seed 0 (Sobol): fxn 20D, 10 components (general kernel)", fxn, 20,
       10, 1e-3, 0, 2000000, 200000, 200000);
  both("seed 0 (Sobol): fx 70D (general kernel: ndim > 64)", fx, 70, 1,
       1e-9, 0, 400000, 200000, 0);
  both("seed 0 (Sobol): fx 6D, one grid for all axes", fx, 6, 1, 1e-3,
       GCUBA_VEGAS1D, 4000000, 100000, 100000);
  both("seed 0 (Sobol): fx 2D, 2 iterations of 18e6 samples (2 slices "
       "each)", fx, 2, 1, 1e-12, 0, 36000000, 18000000, 0);
  suite(4, 5, 1.791326036748786e-06, 1e-3, 100000, 100000);
  suite(2, 6, 1.2868879901109878e+13, 1e-3, 100000, 100000);
  seed = 3;

  /* the suite integrands: exp() and fused sums differ in the last bits
     between host and device; the runs agree within their errors */
  run("gpu", f4_cu, 5, 1, NULL, 1e-3, 0, 100000000, 10000, 10000, &a);
  run("cpu", f4_cu, 5, 1, NULL, 1e-3, 0, 100000000, 10000, 10000, &b);
  ok(a.fail == 0 && b.fail == 0 && fabs(a.I[0] - b.I[0]) <= a.E[0],
     "f4 5D: GPU %.15g +- %.2g, CPU %.15g +- %.2g", a.I[0], a.E[0], b.I[0],
     b.E[0]);
  run("gpu", f4_cu, 5, 1, NULL, 1e-3, 0, 100000000, 10000, 10000, &b);
  ok(same(&a, &b, 1), "two identical GPU calls: the same bits");

  /* idle buffers kept for three shapes: calls that alternate between
     them allocate only in the first round, and give the same bits */
  {
    result r1[4], r2[4];
    int n1, n2;
    gcuba_release();
    n1 = shapes("test-vegas-gpu-shapes1.log", r1, 0);
    n2 = shapes("test-vegas-gpu-shapes2.log", r2, 0);
    ok(n2 == n1 + 3 && same(&r1[0], &r2[0], 1) &&
       same(&r1[1], &r2[1], 3) && same(&r1[2], &r2[2], 1) &&
       r2[0].fail == 0 && r2[1].fail == 0 && r2[2].fail == 0,
       "three shapes in turn: %d messages of reused buffers after "
       "gcuba_release(), %d in the second round; the same bits "
       "(%.0f, %.0f, %.0f ms, then %.0f, %.0f, %.0f ms)", n1, n2, r1[0].ms,
       r1[1].ms, r1[2].ms, r2[0].ms, r2[1].ms, r2[2].ms);
    /* ... and no more: four shapes in turn find none of theirs (the
       least recently used is freed each time) */
    gcuba_release();
    n1 = shapes("test-vegas-gpu-shapes3.log", r1, 1);
    n2 = shapes("test-vegas-gpu-shapes4.log", r2, 1);
    ok(n2 == n1 && same(&r1[0], &r2[0], 1) && same(&r1[1], &r2[1], 3) &&
       same(&r1[2], &r2[2], 1) && same(&r1[3], &r2[3], 1) &&
       r2[3].fail == 0,
       "four shapes in turn: %d messages of reused buffers after "
       "gcuba_release(), %d in the second round (three kept); the same "
       "bits", n1, n2);
  }

  suite(2, 6, 1.2868879901109878e+13, 1e-3, 100000, 100000);
  suite(3, 3, 1.0846560846560847e-02, 1e-3, 100000, 100000);
  suite(4, 5, 1.791326036748786e-06, 1e-3, 100000, 100000);
  suite(5, 8, 2.425217625641885e-06, 1e-3, 100000, 100000);
  suite(6, 6, 1.5477367885091207e+08, 1e-3, 100000, 100000);
  suite(2, 6, 1.2868879901109878e+13, 1e-4, 1000000, 1000000);
  suite(3, 3, 1.0846560846560847e-02, 1e-4, 1000000, 1000000);
  suite(4, 5, 1.791326036748786e-06, 1e-4, 1000000, 1000000);
  suite(5, 8, 2.425217625641885e-06, 1e-4, 1000000, 1000000);
  suite(6, 6, 1.5477367885091207e+08, 1e-4, 1000000, 1000000);
  suite(4, 8, 6.3838021900043837e-10, 1e-4, 1000000, 1000000);

  /* misbehaving integrands, userdata */
  run("gpu", fnan_cu, 2, 1, NULL, 1e-3, 0, 1000000, 10000, 0, &a);
  ok(a.fail == GCUBA_FAIL_NAN, "NaN on the GPU: fail %d", a.fail);
  run("gpu", fabort_cu, 2, 1, NULL, 1e-3, 0, 1000000, 10000, 0, &a);
  ok(a.fail == GCUBA_FAIL_ABORT && a.neval == 0, "-999 on the GPU: fail %d",
     a.fail);
  {
    /* host userdata of no known size: read in place where the GPU reads
       pageable memory (HMM/ATS), else refused under GCUBA_DEVICE=gpu and
       run on CPU threads under auto */
    int dev = 0, pageable = 0;
    cudaGetDevice(&dev);
    cudaDeviceGetAttribute(&pageable, cudaDevAttrPageableMemoryAccess, dev);
    run("gpu", fparam_cu, 3, 1, &p, 1e-3, 0, 100000000, 10000, 10000, &a);
    if (pageable)
      ok(a.fail == 0 && fabs(a.I[0] - 2.5 / 64) <= 4 * a.E[0],
         "userdata in host memory, no size, GCUBA_DEVICE=gpu: read in "
         "place (pageable memory access), %.12g +- %.2g", a.I[0], a.E[0]);
    else
      ok(a.fail == GCUBA_FAIL_PARAM,
         "userdata in host memory, no size, GCUBA_DEVICE=gpu: fail %d (%s)",
         a.fail, gcuba_strerror(a.fail));
    run("auto", fparam_cu, 3, 1, &p, 1e-3, 0, 100000000, 10000, 10000, &a);
    ok(a.fail == 0 && fabs(a.I[0] - 2.5 / 64) <= 4 * a.E[0] &&
           !strcmp(a.backend, pageable ? "gpu" : "cpu"),
       "userdata in host memory, no size, auto: on the %s (pageable "
       "memory access %d), %.12g +- %.2g", a.backend, pageable, a.I[0],
       a.E[0]);
  }
  gcuba_userdata_size(sizeof p);
  run("gpu", fparam_cu, 3, 1, &p, 1e-3, 0, 100000000, 10000, 10000, &a);
  gcuba_userdata_size(0);
  ok(a.fail == 0 && fabs(a.I[0] - 2.5 / 64) <= 4 * a.E[0],
     "userdata in host memory with gcuba_userdata_size: copied, %.12g +- "
     "%.2g (2.5/4^3)", a.I[0], a.E[0]);
  if (cudaMalloc((void **)&dp, sizeof p) == cudaSuccess &&
      cudaMemcpy(dp, &p, sizeof p, cudaMemcpyHostToDevice) == cudaSuccess) {
    run("gpu", fparam_cu, 3, 1, dp, 1e-3, 0, 100000000, 10000, 10000, &a);
    ok(a.fail == 0 && fabs(a.I[0] - 2.5 / 64) <= 4 * a.E[0],
       "userdata in device memory: %.12g +- %.2g (2.5/4^3)", a.I[0], a.E[0]);
    cudaFree(dp);
  } else
    ok(0, "cudaMalloc for userdata");
  if (cudaMallocManaged((void **)&mp, sizeof p) == cudaSuccess) {
    *mp = p;
    run("gpu", fparam_cu, 3, 1, mp, 1e-3, 0, 100000000, 10000, 10000, &a);
    ok(a.fail == 0 && fabs(a.I[0] - 2.5 / 64) <= 4 * a.E[0],
       "userdata in managed memory: %.12g +- %.2g", a.I[0], a.E[0]);
    cudaFree(mp);
  } else
    ok(0, "cudaMallocManaged for userdata");

  /* 3 components from the suite: one grid for all */
  run("gpu", f43c_cu, 3, 3, NULL, 1e-3, 0, 100000000, 100000, 100000, &a);
  ok(a.fail == 0 && fabs(a.I[0] - g * g * g) <= 4 * a.E[0] &&
     fabs(a.I[1] - 1.0846560846560847e-02) <= 4 * a.E[1] &&
     fabs(a.I[2] - 2) <= 4 * a.E[2], "3 components on the GPU");

  if (quick) return battery_done();
  /* throughput, f4 8D: iterations of 2^27 samples on a frozen grid, and
     on an adapting one (diagnostics only) */
  setenv("GCUBA_VEGAS_ADAPT", "0", 1);
  run("gpu", f4_cu, 8, 1, NULL, 1e-12, 0, 5 * 134217728LL, 134217728LL, 0,
      &a);
  unsetenv("GCUBA_VEGAS_ADAPT");
  diag("f4 8D, frozen grid: %lld samples in %.1f ms: %.2f G samples/s",
       a.neval, a.ms, a.neval / a.ms / 1e6);
  setenv("GCUBA_VEGAS_ADAPT", "1000", 1);
  run("gpu", f4_cu, 8, 1, NULL, 1e-12, 0, 5 * 134217728LL, 134217728LL, 0,
      &b);
  unsetenv("GCUBA_VEGAS_ADAPT");
  diag("f4 8D, adapting grid: %lld samples in %.1f ms: %.2f G samples/s",
       b.neval, b.ms, b.neval / b.ms / 1e6);
  ok(a.fail == 1 && b.fail == 1 && a.neval == b.neval, "throughput runs");
  return battery_done();
}
