/* tests/test-batch.c -- gCuhreBatch, gVegasBatch and their llg forms.
   1. 200 3-D Gaussian peaks (random centres, widths 0.05 .. 0.5) at
      epsrel 1e-6: every integral fail = 0 within the tolerance of its
      true value, and each the same bits (integral, error, neval,
      nregions) as a single gCuhre call with its parameters; the same for
      1-D integrals x^a at 1e-10.
   2. gVegasBatch on 5-D Gaussians at 1e-3: the single calls' bits, and
      true errors within 4 sigma.
   3. One pathological member (NaN, -999, a budget it cannot meet) fails
      alone: the others' results are those of their single calls; below
      the rounding floor (epsrel 1e-16) the pipeline's integrals stop
      with fail 2 where their single calls do.
   4. Vector integrands (ncomp 3, outputs at b * ncomp + c), userstride 0,
      the int forms' counts, nintegrals = 0 (nothing written), nintegrals
      < 0, NULL arrays, bad arguments: every fail[b] set.
   Runs the CPU backend (integrals in parallel on CPU threads); its GPU
   build (GCUBA_DEVICE=gpu) runs parts 1 (1-D) and 2 (1-D Vegas), one
   after another on the GPU, and the pipeline (check_pipeline*: the 3-D
   peak built by nvcc with GCUBA_BATCH, test-batch-cu.cu).  This file is part of gcuba. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "tap.h"
#include "suite.h"
#include "gpu.h"

#include "peak.h"
GCUBA_INTEGRAND(gpeak)(const int *ndim, const double x[], const int *ncomp,
                       double f[], void *userdata) TEST_BATCH_PEAK_BODY
#ifdef SUITE_GPU
/* the same built by nvcc with the pipeline (test-batch-cu.cu) */
GCUBA_DECLARE_INTEGRAND(gpeak_cu);
#endif

static unsigned long long rng = 12345;
static double rnd(void)
{
  rng = rng * 6364136223846793005ULL + 1442695040888963407ULL;
  return (double)(rng >> 11) * 0x1.0p-53;
}

#define NB 200

TAP_UNUSED static void make_peaks(struct peak *p, int n)
{
  int b, i;
  for (b = 0; b < n; ++b) {
    for (i = 0; i < 5; ++i) p[b].c[i] = 0.1 + 0.8 * rnd();
    p[b].w = 0.05 + 0.45 * rnd();
    p[b].mode = 0;
    p[b].s = 0.5;
  }
}

#ifndef SUITE_GPU
static void check_cuhre(void)
{
  static struct peak p[NB];
  static int nreg[NB], fail[NB];
  static long long nev[NB];
  static double I[NB], E[NB], P[NB];
  int b, honest = 1, same = 1;
  make_peaks(p, NB);
  llgCuhreBatch(NB, 3, 1, gpeak, p, sizeof p[0], 1, 1e-6, 0, 0, 0,
                10000000, 0, nreg, nev, fail, I, E, P);
  for (b = 0; b < NB; ++b) {
    double t = peak_truth(&p[b], 3), i1, e1, p1;
    int r1, f1;
    long long n1;
    if (fail[b] != 0 || !(fabs(I[b] - t) <= 1e-6 * t)) {
      honest = 0;
      diag("integral %d: fail %d, %.17g, true %.17g", b, fail[b], I[b], t);
    }
    llgCuhre(3, 1, gpeak, &p[b], 1, 1e-6, 0, 0, 0, 10000000, 0, NULL, NULL,
             &r1, &n1, &f1, &i1, &e1, &p1);
    if (i1 != I[b] || e1 != E[b] || p1 != P[b] || n1 != nev[b] ||
        r1 != nreg[b] || f1 != fail[b]) {
      same = 0;
      diag("integral %d: batch %.17g +- %.3g (%lld), single %.17g +- %.3g "
           "(%lld)", b, I[b], E[b], nev[b], i1, e1, n1);
    }
  }
  ok(honest, "gCuhreBatch, %d 3-D peaks at 1e-6: every one fail 0 within "
     "the tolerance", NB);
  ok(same, "gCuhreBatch: each integral the bits of its single gCuhre call");
  ok(!strcmp(gcuba_last_backend(), "cpu"), "backend %s",
     gcuba_last_backend());
}

#endif

static void check_1d(void)
{
  static struct suite_1d p[NB];
  static int nreg[NB], fail[NB];
  static long long nev[NB];
  static double I[NB], E[NB], P[NB];
  int b, honest = 1, same = 1;
  memset(p, 0, sizeof p);
  for (b = 0; b < NB; ++b) {
    p[b].kind[0] = SUITE_1D_POW;
    p[b].c[0] = -0.9 + 2.9 * rnd();
  }
  llgCuhreBatch(NB, 1, 1, S(f1d), p, sizeof p[0], 1, 1e-10, 0, 0, 0, 100000,
                0, nreg, nev, fail, I, E, P);
  for (b = 0; b < NB; ++b) {
    double t = suite_1d_truth(&p[b], 0), i1, e1, p1;
    int r1, f1;
    long long n1;
    if (fail[b] != 0 || !(fabs(I[b] - t) <= 1e-10 * fabs(t))) honest = 0;
    gcuba_userdata_size(sizeof p[b]);
    llgCuhre(1, 1, S(f1d), &p[b], 1, 1e-10, 0, 0, 0, 100000, 0, NULL, NULL,
             &r1, &n1, &f1, &i1, &e1, &p1);
    gcuba_userdata_size(0);
    if (i1 != I[b] || e1 != E[b] || n1 != nev[b] || f1 != fail[b])
      same = 0;
  }
  ok(honest && same, "gCuhreBatch, %d 1-D integrals x^a (a in -0.9 .. 2) at "
     "1e-10: all fail 0 within the tolerance, each its single call's bits",
     NB);
  ok(!strcmp(gcuba_last_backend(), SUITE_BACKEND ? "gpu" : "cpu"),
     "backend %s", gcuba_last_backend());
}

/* gVegasBatch on 1-D peaks (the suite's integrand: CPU or GPU build).
   On the CPU each integral is its single call, bit for bit; on the GPU
   the pipeline refines the grids on the device, whose log1p rounds
   differently from the host's in the last bits of a weight: the same
   neval and fail, the answers up to rounding */
#ifdef SUITE_GPU
#define AGREE "answer up to rounding"
/* within rel relative: the integral 1e-12; its error 1e-8 (a variance
   is a difference of sums that cancels: measured 2e-12 on these) */
static int agree(double u, double v, double rel)
{
  return fabs(u - v) <= rel * fabs(u);
}
#else
#define AGREE "bits"
static int agree(double u, double v, double rel)
{
  (void)rel;
  return u == v;
}
#endif
static void check_vegas_1d(void)
{
  enum { N = 20 };
  static struct suite_1d p[N];
  static int fail[N];
  static long long nev[N];
  static double I[N], E[N], P[N];
  int b, same = 1, within = 0;
  memset(p, 0, sizeof p);
  for (b = 0; b < N; ++b) {
    p[b].kind[0] = SUITE_1D_PEAK;
    p[b].c[0] = 0.2 + 0.6 * rnd();
    p[b].w[0] = 0.05 + 0.2 * rnd();
  }
  llgVegasBatch(N, 1, 1, S(f1d), p, sizeof p[0], 1, 1e-3, 0, 0, 7, 0,
                1000000, 10000, 5000, 1000, 0, nev, fail, I, E, P);
  for (b = 0; b < N; ++b) {
    double t = suite_1d_truth(&p[b], 0), i1, e1, p1;
    int f1;
    long long n1;
    gcuba_userdata_size(sizeof p[b]);
    llgVegas(1, 1, S(f1d), &p[b], 1, 1e-3, 0, 0, 7, 0, 1000000, 10000, 5000,
             1000, 0, NULL, NULL, &n1, &f1, &i1, &e1, &p1);
    gcuba_userdata_size(0);
    if (n1 != nev[b] || f1 != fail[b] || !agree(i1, I[b], 1e-12) ||
        !agree(e1, E[b], 1e-8)) {
      same = 0;
      diag("member %d: batch %.17g +- %.17g (%lld, fail %d), single %.17g "
           "+- %.17g (%lld, fail %d)", b, I[b], E[b], nev[b], fail[b], i1, e1,
           n1, f1);
    }
    if (fail[b] == 0 && fabs(I[b] - t) <= 4 * E[b]) ++within;
  }
  ok(same && within == N, "gVegasBatch, %d 1-D peaks at 1e-3: each its "
     "single call's %s, %d within 4 sigma", N, AGREE, within);
}

#ifndef SUITE_GPU
static void check_vegas(void)
{
  enum { N = 40 };
  static struct peak p[N];
  static int fail[N];
  static long long nev[N];
  static double I[N], E[N], P[N];
  int b, same = 1, within = 0, conv = 0;
  make_peaks(p, N);
  for (b = 0; b < N; ++b) p[b].w = 0.3 + 0.2 * rnd();
  llgVegasBatch(N, 5, 1, gpeak, p, sizeof p[0], 1, 1e-3, 0, 0, 1, 0,
                1000000, 10000, 5000, 1000, 0, nev, fail, I, E, P);
  for (b = 0; b < N; ++b) {
    double t = peak_truth(&p[b], 5), i1, e1, p1;
    int f1;
    long long n1;
    llgVegas(5, 1, gpeak, &p[b], 1, 1e-3, 0, 0, 1, 0, 1000000, 10000, 5000,
             1000, 0, NULL, NULL, &n1, &f1, &i1, &e1, &p1);
    if (i1 != I[b] || e1 != E[b] || n1 != nev[b] || f1 != fail[b])
      same = 0;
    if (fail[b] == 0) {
      ++conv;
      if (fabs(I[b] - t) <= 4 * E[b]) ++within;
    }
  }
  ok(same, "gVegasBatch, %d 5-D peaks: each integral the bits of its single "
     "gVegas call", N);
  ok(conv == N && within == N, "gVegasBatch at 1e-3: %d of %d converged, %d "
     "within 4 sigma of the true value", conv, N, within);
}

static void check_pathological(void)
{
  enum { N = 8 };
  static struct peak p[N];
  static int nreg[N], fail[N];
  static long long nev[N];
  static double I[N], E[N], P[N];
  int b, good = 1;
  make_peaks(p, N);
  p[2].mode = 1;
  p[5].mode = 2;
  p[6].w = 0.003; /* a needle: 1e-9 cannot be met within 50000 */
  llgCuhreBatch(N, 3, 1, gpeak, p, sizeof p[0], 1, 1e-9, 0, 0, 0, 50000, 0,
                nreg, nev, fail, I, E, P);
  for (b = 0; b < N; ++b) {
    double i1, e1, p1;
    int r1, f1;
    long long n1;
    llgCuhre(3, 1, gpeak, &p[b], 1, 1e-9, 0, 0, 0, 50000, 0, NULL, NULL,
             &r1, &n1, &f1, &i1, &e1, &p1);
    if (f1 != fail[b] || n1 != nev[b] || (f1 >= 0 && i1 != I[b])) {
      good = 0;
      diag("member %d: batch fail %d neval %lld %.17g, single fail %d "
           "neval %lld %.17g", b, fail[b], nev[b], I[b], f1, n1, i1);
    }
  }
  ok(good && fail[2] == GCUBA_FAIL_NAN && fail[5] == GCUBA_FAIL_ABORT &&
     fail[6] == 1 && nev[6] <= 50000 && fail[3] >= 0,
     "a NaN member (fail %d), a -999 member (fail %d) and an unreachable "
     "one (fail %d, neval %lld) fail alone; every member as its single call",
     fail[2], fail[5], fail[6], nev[6]);
}

static void check_api(void)
{
  struct peak p[3], one;
  int nreg[3], fail[3] = {7, 7, 7}, neval[3];
  long long nev[3];
  double I[9], E[9], P[9], i1[3], e1[3], p1[3];
  int r1, f1, n1, good;
  make_peaks(p, 3);
  /* ncomp 3: outputs at b * 3 + c; the int form */
  gCuhreBatch(3, 3, 3, gpeak, p, sizeof p[0], 1, 1e-5, 0, 0, 0, 1000000, 0,
              nreg, neval, fail, I, E, P);
  gCuhre(3, 3, gpeak, &p[1], 1, 1e-5, 0, 0, 0, 1000000, 0, NULL, NULL, &r1,
         &n1, &f1, i1, e1, p1);
  good = fail[1] == f1 && neval[1] == n1 && nreg[1] == r1 &&
         !memcmp(i1, I + 3, sizeof i1) && !memcmp(e1, E + 3, sizeof e1);
  ok(good && fail[0] == 0 && fail[2] == 0,
     "ncomp 3, int counts: integral 1's components at [3 .. 5], as its "
     "single call (%.10g %.10g %.10g)", I[3], I[4], I[5]);
  /* userstride 0: all share p[0] */
  one = p[0];
  gCuhreBatch(2, 3, 1, gpeak, &one, 0, 1, 1e-5, 0, 0, 0, 1000000, 0, nreg,
              neval, fail, I, E, P);
  ok(fail[0] == 0 && fail[1] == 0 && I[0] == I[1],
     "userstride 0: every integral gets the same block");
  fail[0] = fail[1] = 7;
  gCuhreBatch(0, 3, 1, gpeak, p, sizeof p[0], 1, 1e-5, 0, 0, 0, 1000, 0,
              NULL, NULL, fail, NULL, NULL, NULL);
  ok(fail[0] == 7 && fail[1] == 7, "nintegrals 0: nothing is written");
  gCuhreBatch(-1, 3, 1, gpeak, p, sizeof p[0], 1, 1e-5, 0, 0, 0, 1000, 0,
              nreg, neval, fail, I, E, P);
  ok(fail[0] == GCUBA_FAIL_PARAM, "nintegrals -1: fail[0] %d", fail[0]);
  gCuhreBatch(3, 3, 1, gpeak, p, sizeof p[0], 1, 1e-5, 0, 0, 0, 1000, 0,
              nreg, NULL, fail, I, E, P);
  ok(fail[0] == GCUBA_FAIL_NULL && fail[2] == GCUBA_FAIL_NULL,
     "neval NULL: every fail[b] %d", fail[2]);
  gCuhreBatch(3, 3, 1, gpeak, p, sizeof p[0], 1, 1e-5, 0, 0, 0, 1000, 0,
              nreg, neval, fail, NULL, E, P);
  ok(fail[1] == GCUBA_FAIL_NULL, "integral NULL: fail %d", fail[1]);
  gCuhreBatch(3, 0, 1, gpeak, p, sizeof p[0], 1, 1e-5, 0, 0, 0, 1000, 0,
              nreg, neval, fail, I, E, P);
  ok(fail[0] == GCUBA_FAIL_NDIM && fail[2] == GCUBA_FAIL_NDIM &&
     neval[2] == 0, "gCuhreBatch ndim 0: every fail[b] -1");
  gCuhreBatch(3, 3, 1, NULL, p, sizeof p[0], 1, 1e-5, 0, 0, 0, 1000, 0,
              nreg, neval, fail, I, E, P);
  ok(fail[1] == GCUBA_FAIL_NULL, "NULL integrand: fail %d", fail[1]);
  gCuhreBatch(3, 3, 1, gpeak, p, sizeof p[0], 1, -1, 0, 0, 0, 1000, 0, nreg,
              neval, fail, I, E, P);
  ok(fail[0] == GCUBA_FAIL_TOLERANCE, "negative epsrel: fail %d", fail[0]);
  gVegasBatch(3, 3, 1, gpeak, p, sizeof p[0], 1, 1e-3, 0, 0, 0, 0, 1000, 1,
              0, 1000, 0, neval, fail, I, E, P);
  ok(fail[0] == GCUBA_FAIL_PARAM && fail[2] == GCUBA_FAIL_PARAM,
     "gVegasBatch nstart 1: every fail[b] -6");
  gVegasBatch(3, 3, 1, gpeak, p, sizeof p[0], 1, 1e-3, 0, 0, 0, 0, 2000,
              1000, 500, 1000, 0, neval, fail, I, E, P);
  ok(fail[0] >= 0 && fail[2] >= 0 && neval[1] > 0 && neval[1] <= 2000,
     "gVegasBatch int counts: fail %d %d %d, neval %d", fail[0], fail[1],
     fail[2], neval[1]);
  (void)nev;
}
#endif

#ifdef SUITE_GPU
/* the GPU pipeline (gCuhreBatch, ndim >= 2, where a single call would
   run on the GPU) */

/* every member of a batch of n (results fail, nev, I, E) against its
   single call on the CPU backend, with its features cut where they are
   (GCUBA_CUTS unset): the same fail and neval, the answers within half
   their errors; the count of those alike, the first unlike said */
static int against_cpu(gintegrand_t f, const struct peak *p, int n,
                       double eps, long long maxeval, const int *fail,
                       const long long *nev, const double *I,
                       const double *E)
{
  int b, alike = 0, said = 0;
  setenv("GCUBA_DEVICE", "cpu", 1);
  for (b = 0; b < n; ++b) {
    double i1, e1, p1;
    int r1, f1;
    long long n1;
    llgCuhre(3, 1, f, (void *)&p[b], 1, eps, 0, 0, 0, maxeval, 0, NULL,
             NULL, &r1, &n1, &f1, &i1, &e1, &p1);
    if (f1 == fail[b] && n1 == nev[b] &&
        (f1 < 0 || fabs(i1 - I[b]) <= 0.5 * (e1 + E[b])))
      ++alike;
    else if (said++ < 5)
      diag("member %d (mode %d): pipeline %.17g +- %.3g (%lld, fail %d), "
           "CPU call %.17g +- %.3g (%lld, fail %d)", b, p[b].mode, I[b],
           E[b], nev[b], fail[b], i1, e1, n1, f1);
  }
  battery_backend();
  return alike;
}

static void check_pipeline(void)
{
  enum { N = 2000, S0 = 37, NS = 50 };
  static struct peak p[N];
  static int nreg[N], fail[N], nreg2[N], fail2[N];
  static long long nev[N], nev2[N];
  static double I[N], E[N], P[N], I2[N], E2[N], P2[N];
  int b, same = 1, sub = 1, alike, honest = 0, conv = 0, steps = 0;
  make_peaks(p, N);
  /* one member in four with a step along x0 off the dyadic grid, on a
     wide peak: the scan of the cube's lines finds it, and the splits cut
     there (or search where to) */
  for (b = 0; b < N; b += 4) {
    p[b].mode = 3;
    p[b].s = 0.2 + 0.6 * rnd();
    p[b].w = 0.3 + 0.2 * rnd();
    ++steps;
  }
  llgCuhreBatch(N, 3, 1, gpeak_cu, p, sizeof p[0], 1, 1e-6, 0, 0, 0,
                2000000, 0, nreg, nev, fail, I, E, P);
  ok(!strcmp(gcuba_last_backend(), "gpu"), "pipeline: backend %s",
     gcuba_last_backend());
  for (b = 0; b < N; ++b)
    if (fail[b] == 0) {
      const double t = peak_truth(&p[b], 3);
      ++conv;
      if (fabs(I[b] - t) <= 1e-6 * t) ++honest;
      else
        diag("member %d (mode %d): %.17g, true %.17g", b, p[b].mode, I[b],
             t);
    }
  ok(honest == conv && conv >= N * 8 / 10, "pipeline, %d 3-D peaks (%d "
     "with a step) at 1e-6, maxeval 2e6: %d converged, every one within "
     "the tolerance of its true value (%d)", N, steps, conv, honest);
  alike = against_cpu(gpeak_cu, p, N, 1e-6, 2000000, fail, nev, I, E);
  ok(alike == N, "pipeline against single CPU calls, cuts included: the "
     "same fail and neval, within half the errors, %d of %d", alike, N);
  /* deterministic, and independent of the other members */
  llgCuhreBatch(N, 3, 1, gpeak_cu, p, sizeof p[0], 1, 1e-6, 0, 0, 0,
                2000000, 0, nreg2, nev2, fail2, I2, E2, P2);
  for (b = 0; b < N; ++b)
    if (I2[b] != I[b] || E2[b] != E[b] || P2[b] != P[b] ||
        nev2[b] != nev[b] || nreg2[b] != nreg[b] || fail2[b] != fail[b])
      same = 0;
  llgCuhreBatch(NS, 3, 1, gpeak_cu, p + S0, sizeof p[0], 1, 1e-6, 0, 0, 0,
                2000000, 0, nreg2, nev2, fail2, I2, E2, P2);
  for (b = 0; b < NS; ++b)
    if (I2[b] != I[S0 + b] || E2[b] != E[S0 + b] || P2[b] != P[S0 + b] ||
        nev2[b] != nev[S0 + b] || fail2[b] != fail[S0 + b])
      sub = 0;
  ok(same && sub, "pipeline: the same bits run again (%d) and for %d "
     "members run as a batch of their own (%d)", same, NS, sub);
}

static void check_pipeline_members(void)
{
  enum { N = 8 };
  static struct peak p[N], q;
  static int nreg[N], fail[N], r1, f1;
  static long long nev[N], n1;
  static double I[N], E[N], P[N], i1, e1, p1;
  int b, good = 1, alike;
  make_peaks(p, N);
  p[2].mode = 1;
  p[5].mode = 2;
  p[6].w = 0.003; /* a needle: 1e-9 cannot be met within 50000 */
  llgCuhreBatch(N, 3, 1, gpeak_cu, p, sizeof p[0], 1, 1e-9, 0, 0, 0, 50000, 0,
                nreg, nev, fail, I, E, P);
  for (b = 0; b < N; ++b) {
    if (b == 2 || b == 5) continue;
    q = p[b];
    llgCuhreBatch(1, 3, 1, gpeak_cu, &q, sizeof q, 1, 1e-9, 0, 0, 0, 50000, 0,
                  &r1, &n1, &f1, &i1, &e1, &p1);
    if (f1 != fail[b] || n1 != nev[b] || i1 != I[b] || e1 != E[b]) {
      good = 0;
      diag("member %d: fail %d neval %lld %.17g, alone fail %d neval %lld "
           "%.17g", b, fail[b], nev[b], I[b], f1, n1, i1);
    }
  }
  alike = against_cpu(gpeak_cu, p, N, 1e-9, 50000, fail, nev, I, E);
  ok(good && alike == N && fail[2] == GCUBA_FAIL_NAN &&
     fail[5] == GCUBA_FAIL_ABORT && fail[6] == 1 && nev[6] <= 50000,
     "pipeline: a NaN member (fail %d), a -999 member (fail %d) and an "
     "unreachable one (fail %d, neval %lld) fail alone; the others as run "
     "alone; all %d as their CPU calls", fail[2], fail[5], fail[6], nev[6],
     alike);
}

/* tolerances below the rounding floor (epsrel 1e-16: half a rounding
   unit of the total): the pipeline stops its integrals as their single
   calls do (fail 2, gcuba_cuhre_roundoff), none claimed, the true errors
   within the errors.  There the leaves' errors are rounding noise, which
   the GPU's rule kernel and the CPU's round differently: the partitions
   part, the counts agree within a factor 1.5, not exactly, and one call
   may still run to maxeval (fail 1) where the other stopped. */
static void check_pipeline_floor(void)
{
  enum { N = 24 };
  static struct peak p[N];
  static int nreg[N], fail[N];
  static long long nev[N];
  static double I[N], E[N], P[N];
  int alike = 0, apart = 0, b, nfloor = 0, good = 1;
  make_peaks(p, N);
  llgCuhreBatch(N, 3, 1, gpeak_cu, p, sizeof p[0], 1, 1e-16, 0, 0, 0,
                10000000, 0, nreg, nev, fail, I, E, P);
  setenv("GCUBA_DEVICE", "cpu", 1);
  for (b = 0; b < N; ++b) {
    const double te = fabs(I[b] - peak_truth(&p[b], 3));
    double i1, e1, p1;
    int r1, f1;
    long long n1;
    llgCuhre(3, 1, gpeak_cu, (void *)&p[b], 1, 1e-16, 0, 0, 0, 10000000, 0,
             NULL, NULL, &r1, &n1, &f1, &i1, &e1, &p1);
    nfloor += fail[b] == GCUBA_FAIL_ROUNDOFF;
    if (f1 == fail[b] && n1 <= 1.5 * nev[b] && nev[b] <= 1.5 * n1 &&
        fabs(i1 - I[b]) <= e1 + E[b])
      ++alike;
    else if (f1 > 0 && fabs(i1 - I[b]) <= e1 + E[b])
      ++apart;
    else
      diag("member %d: pipeline %.17g +- %.3g (%lld, fail %d), CPU call "
           "%.17g +- %.3g (%lld, fail %d)", b, I[b], E[b], nev[b], fail[b],
           i1, e1, n1, f1);
    if (fail[b] == 0 || fail[b] < 0 || !(te <= E[b] + 1e-15 * I[b])) {
      good = 0;
      diag("member %d: fail %d, %.17g +- %.3g, true error %.3g", b, fail[b],
           I[b], E[b], te);
    }
  }
  battery_backend();
  ok(good && nfloor >= N / 2 && alike >= N - 2 && alike + apart == N,
     "pipeline at epsrel 1e-16: %d of %d integrals stop at the rounding "
     "floor (fail 2), none claimed, every true error within its error "
     "(within the truth's rounding); %d with their CPU calls' fail, within "
     "1.5x their neval and within the errors, %d with fail 1 and 2 apart",
     nfloor, N, alike, apart);
}

static void check_pipeline_memory(void)
{
  enum { N = 20 };
  static struct peak p[N];
  static int nreg[N], fail[N];
  static long long nev[N];
  static double I[N], E[N], P[N];
  int alike, limited = 0, b;
  make_peaks(p, N);
  /* a region store of about 50 leaves per integral: the narrow peaks
     run out of it, in the pipeline as on the CPU backend */
  setenv("GCUBA_MEMLIMIT", "8K", 1);
  llgCuhreBatch(N, 3, 1, gpeak_cu, p, sizeof p[0], 1, 1e-6, 0, 0, 0, 10000000,
                0, nreg, nev, fail, I, E, P);
  for (b = 0; b < N; ++b) limited += fail[b] != 0;
  alike = against_cpu(gpeak_cu, p, N, 1e-6, 10000000, fail, nev, I, E);
  unsetenv("GCUBA_MEMLIMIT");
  ok(alike == N && limited > 0 && limited < N, "GCUBA_MEMLIMIT 8K: %d "
     "integrals stopped by the region limit, %d converged; all %d as their "
     "CPU calls", limited, N - limited, alike);
}

/* an integrand from a file that defines no macro (suite-cu.cu): the
   pipeline all the same */
static void check_no_macro(void)
{
  int nreg[2], fail[2], r1, f1;
  long long nev[2], n1;
  double I[2], E[2], P[2], i1, e1, p1;
  llgCuhreBatch(2, 3, 1, f3_cu, NULL, 0, 1, 1e-6, 0, 0, 0, 10000000, 0,
                nreg, nev, fail, I, E, P);
  setenv("GCUBA_DEVICE", "cpu", 1);
  llgCuhre(3, 1, f3_cu, NULL, 1, 1e-6, 0, 0, 0, 10000000, 0, NULL, NULL,
           &r1, &n1, &f1, &i1, &e1, &p1);
  battery_backend();
  ok(fail[0] == 0 && f1 == 0 && I[0] == I[1] && nev[0] == n1 &&
         nev[1] == n1 && nreg[1] == r1 && fabs(I[0] - i1) <= E[0] + e1,
     "an integrand built without any macro: the pipeline, each integral "
     "with its CPU call's fail %d and neval %lld", f1, n1);
}

static void check_pipeline_api(void)
{
  struct peak p[3], one;
  int nreg[3], fail[3], neval[3], b, good = 1;
  double I[9], E[9], P[9];
  make_peaks(p, 3);
  gCuhreBatch(3, 3, 3, gpeak_cu, p, sizeof p[0], 1, 1e-5, 0, 0, 0, 1000000, 0,
              nreg, neval, fail, I, E, P);
  for (b = 0; b < 9; ++b) {
    const double t = (b % 3 + 1) * peak_truth(&p[b / 3], 3);
    if (fail[b / 3] != 0 || !(fabs(I[b] - t) <= 1e-5 * t)) good = 0;
  }
  ok(good, "pipeline, ncomp 3: integral b's components at [3 b .. 3 b + 2] "
     "within the tolerance (%.10g %.10g %.10g)", I[3], I[4], I[5]);
  one = p[0];
  gcuba_userdata_size(sizeof one);
  gCuhreBatch(2, 3, 1, gpeak_cu, &one, 0, 1, 1e-5, 0, 0, 0, 1000000, 0, nreg,
              neval, fail, I, E, P);
  ok(fail[0] == 0 && fail[1] == 0 && I[0] == I[1],
     "pipeline, userstride 0 with gcuba_userdata_size: one shared block");
  gcuba_userdata_size(0);
  gCuhreBatch(2, 3, 1, gpeak_cu, &one, 0, 1, 1e-5, 0, 0, 0, 1000000, 0, nreg,
              neval, fail, I, E, P);
  ok(fail[0] == GCUBA_FAIL_PARAM && fail[1] == GCUBA_FAIL_PARAM,
     "pipeline, userstride 0 and no size: fail %d %d", fail[0], fail[1]);
}
#endif

int main(void)
{
  battery_start();
  plan(0);
  check_1d();
  check_vegas_1d();
#ifdef SUITE_GPU
  check_pipeline();
  check_pipeline_members();
  check_pipeline_memory();
  check_pipeline_floor();
  check_pipeline_api();
  check_no_macro();
#else
  /* host-only integrands (gpeak is built by cc) */
  check_cuhre();
  check_vegas();
  check_pathological();
  check_api();
#endif
  return battery_done();
}
