/* bench/bench-batch.c -- `make bench-batch`: many integrals in one call.
   N 3-D Gaussian peaks exp(-|x - c|^2 / w^2) with random centres in
   [0.1, 0.9]^3 and widths 0.05 .. 0.5, each at epsrel 1e-6 (issue 20's
   case), integrated (a) by one gCuhreBatch call on CPU threads, (b) by a
   loop of gCuhre calls on the CPU, and when the integrand was built by
   nvcc and a device is usable (c) by one gCuhreBatch call on the GPU
   (its pipeline) and (d) by a loop of gCuhre calls on the GPU.  For each: integrals per second, evaluations,
   and the integrals not within the tolerance of their true value (fail
   != 0 or a true error above it).
   Options: --n N (default 10000), --loop N (integrals of the loops,
   default min(N, 2000)), --show (print each integral not within the
   tolerance), --oned N (then N 1-D peaks at epsrel 1e-10 by one
   gCuhreBatch call: issue 20's one-dimensional case), --vegas N (then
   N 5-D peaks of widths 0.2 .. 0.5 at epsrel 1e-3 by one gVegasBatch
   call on CPU threads, and with a device by its GPU pipeline and a loop
   of single GPU calls (--loop of them): integrals per second, and those
   not fail = 0 within 4 sigma of the true value), --vegas-dim D (their
   dimension, default 5), --only-vegas (no gCuhre parts), --verbose (the GPU pipeline's
   call at verbosity 2: where its time goes).  This file is part of gcuba. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include "gcuba.h"

#include "batch-peak.h"
GCUBA_INTEGRAND(bpeak)(const int *ndim, const double x[], const int *ncomp,
                       double f[], void *userdata) BATCH_PEAK_BODY

#ifdef BENCH_HAVE_CU
GCUBA_DECLARE_INTEGRAND(bpeak_cu);
#endif

static double now_ms(void)
{
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec * 1e3 + ts.tv_nsec * 1e-6;
}

static int ndim_ = 3;

static double truth(const struct peak *p)
{
  double v = 1;
  int i;
  for (i = 0; i < ndim_; ++i)
    v *= 0.5 * sqrt(acos(-1.0)) * p->w *
         (erf((1 - p->c[i]) / p->w) + erf(p->c[i] / p->w));
  return v;
}

static int show;

/* a gVegasBatch line: integrals/s, mean neval, and those not claimed or
   more than 4 errors off */
static void vreport(const char *what, const struct peak *p, int n, double ms,
                    const long long *ev, const int *fail, const double *I,
                    const double *E)
{
  long long tot = 0;
  int b, bad = 0;
  if (n < 1) return; /* (--loop 0) */
  for (b = 0; b < n; ++b) {
    tot += ev[b];
    if (fail[b] != 0 || !(fabs(I[b] - truth(&p[b])) <= 4 * E[b])) ++bad;
  }
  printf("%-34s %8d %10.1f %14.0f %12lld %6d\n", what, n, ms,
         n / (ms * 1e-3), tot / n, bad);
}

static int bad_count(const struct peak *p, const int *fail, const double *I,
                     int n)
{
  int b, bad = 0;
  for (b = 0; b < n; ++b) {
    double t = truth(&p[b]);
    if (fail[b] != 0 || !(fabs(I[b] - t) <= 1e-6 * t)) {
      ++bad;
      if (show)
        printf("  integral %d: c %.17g %.17g %.17g w %.17g: fail %d, "
               "%.17g, true %.17g, true relative error %.3g\n", b,
               p[b].c[0], p[b].c[1], p[b].c[2], p[b].w, fail[b], I[b], t,
               fabs(I[b] - t) / t);
    }
  }
  return bad;
}

static void report(const char *what, int n, double ms, const long long *ev,
                   int bad)
{
  long long s = 0;
  int b;
  if (n < 1) return;
  for (b = 0; b < n; ++b) s += ev[b];
  printf("%-34s %8d %10.1f %14.0f %12.0f %6d\n", what, n, ms, n / ms * 1e3,
         (double)s / n, bad);
}

static void loop(const char *what, gintegrand_t f, struct peak *p, int n,
                 int *fail, long long *ev, double *I)
{
  double t0 = now_ms(), E, P;
  int b, r;
  for (b = 0; b < n; ++b) {
    gcuba_userdata_size(sizeof p[b]);
    llgCuhre(3, 1, f, &p[b], 1, 1e-6, 0, 0, 0, 100000000, 0, NULL, NULL, &r,
             &ev[b], &fail[b], &I[b], &E, &P);
  }
  gcuba_userdata_size(0);
  report(what, n, now_ms() - t0, ev, bad_count(p, fail, I, n));
}

int main(int argc, char **argv)
{
  int n = 10000, nloop = -1, b, i, *nreg, *fail, noned = 0, nvegas = 0;
  int vdim = 5, only_vegas = 0;
  int verbose = 0;
  long long *ev;
  double *I, *E, *P, t0;
  struct peak *p;
  unsigned long long rng = 2026;
  for (i = 1; i < argc; ++i) {
    if (!strcmp(argv[i], "--n") && i + 1 < argc) n = atoi(argv[++i]);
    else if (!strcmp(argv[i], "--loop") && i + 1 < argc)
      nloop = atoi(argv[++i]);
    else if (!strcmp(argv[i], "--show"))
      show = 1;
    else if (!strcmp(argv[i], "--oned") && i + 1 < argc)
      noned = atoi(argv[++i]);
    else if (!strcmp(argv[i], "--vegas") && i + 1 < argc)
      nvegas = atoi(argv[++i]);
    else if (!strcmp(argv[i], "--only-vegas"))
      only_vegas = 1;
    else if (!strcmp(argv[i], "--vegas-dim") && i + 1 < argc)
      vdim = atoi(argv[++i]);
    else if (!strcmp(argv[i], "--verbose"))
      verbose = 2;
    else {
      fprintf(stderr, "usage: %s [--n N] [--loop N] [--show] [--oned N] "
              "[--vegas N] [--vegas-dim D] [--only-vegas] [--verbose]\n", argv[0]);
      return 2;
    }
  }
  if (n < 1) n = 1;
  if (vdim < 1 || vdim > 5) vdim = 5; /* (struct peak's centres) */
  (void)verbose; /* (the GPU's) */
  if (noned > n) n = noned;
  if (nvegas > n) n = nvegas;
  if (nloop < 0 || nloop > n) nloop = n < 2000 ? n : 2000;
  p = (struct peak *)malloc(sizeof *p * n);
  nreg = (int *)malloc(sizeof *nreg * n);
  fail = (int *)malloc(sizeof *fail * n);
  ev = (long long *)malloc(sizeof *ev * n);
  I = (double *)malloc(sizeof *I * n);
  E = (double *)malloc(sizeof *E * n);
  P = (double *)malloc(sizeof *P * n);
  if (!p || !nreg || !fail || !ev || !I || !E || !P) return 1;
  for (b = 0; b < n; ++b) {
    /* three centres and the width (the 3-D instances of before), then
       the centres of axes 4 and 5 */
    for (i = 0; i < 4; ++i) {
      rng = rng * 6364136223846793005ULL + 1442695040888963407ULL;
      if (i < 3) p[b].c[i] = 0.1 + 0.8 * (double)(rng >> 11) * 0x1.0p-53;
      else p[b].w = 0.05 + 0.45 * (double)(rng >> 11) * 0x1.0p-53;
    }
    for (i = 3; i < 5; ++i) {
      rng = rng * 6364136223846793005ULL + 1442695040888963407ULL;
      p[b].c[i] = 0.1 + 0.8 * (double)(rng >> 11) * 0x1.0p-53;
    }
  }
  if (!only_vegas) {
    printf("bench-batch: 3-D Gaussian peaks at epsrel 1e-6; GCUBACORES %s, "
           "%ld CPUs online\n%-34s %8s %10s %14s %12s %6s\n",
           getenv("GCUBACORES") ? getenv("GCUBACORES") : "unset",
           sysconf(_SC_NPROCESSORS_ONLN), "method",
           "integrals", "ms", "integrals/s", "neval/int", "bad");
    t0 = now_ms();
    llgCuhreBatch(n, 3, 1, bpeak, p, sizeof p[0], 1, 1e-6, 0, 0, 0, 100000000,
                  0, nreg, ev, fail, I, E, P);
    report("gCuhreBatch, CPU threads", n, now_ms() - t0, ev,
           bad_count(p, fail, I, n));
    setenv("GCUBA_DEVICE", "cpu", 1);
    loop("gCuhre loop, CPU threads", bpeak, p, nloop, fail, ev, I);
    unsetenv("GCUBA_DEVICE");
  #ifdef BENCH_HAVE_CU
    if (gcuba_device_count() > 0) {
      double e1, p1, i1;
      int r1, f1;
      long long n1;
      /* one call first: the CUDA context */
      gcuba_userdata_size(sizeof p[0]);
      llgCuhre(3, 1, bpeak_cu, &p[0], 1, 1e-6, 0, 0, 0, 100000000, 0, NULL,
               NULL, &r1, &n1, &f1, &i1, &e1, &p1);
      t0 = now_ms();
      llgCuhreBatch(n, 3, 1, bpeak_cu, p, sizeof p[0], 1, 1e-6, 0, verbose, 0,
                    100000000, 0, nreg, ev, fail, I, E, P);
      report("gCuhreBatch, GPU pipeline", n, now_ms() - t0, ev,
             bad_count(p, fail, I, n));
      loop("gCuhre loop, GPU", bpeak_cu, p, nloop, fail, ev, I);
    }
  #endif
  }
  if (noned > 0) {
    /* 1-D: a peak of width 0.05 .. 0.5 at 1e-10 */
    int bad = 0;
    ndim_ = 1;
    t0 = now_ms();
    llgCuhreBatch(noned, 1, 1, bpeak, p, sizeof p[0], 1, 1e-10, 0, 0, 0,
                  100000000, 0, nreg, ev, fail, I, E, P);
    t0 = now_ms() - t0;
    for (b = 0; b < noned; ++b)
      if (fail[b] != 0 || !(fabs(I[b] - truth(&p[b])) <= 1e-10 * truth(&p[b])))
        ++bad;
    printf("\n1-D peaks at epsrel 1e-10\n");
    report("gCuhreBatch, CPU threads", noned, t0, ev, bad);
  }
  if (nvegas > 0) {
    /* gVegasBatch at 1e-3 on peaks of width 0.2 .. 0.5 (issue 49's case;
       the widths above mapped there), 4 sigma */
    ndim_ = vdim;
    for (b = 0; b < nvegas; ++b) p[b].w = 0.2 + (p[b].w - 0.05) * (0.3 / 0.45);
    printf("\n%d-D peaks (widths 0.2 .. 0.5) at epsrel 1e-3, gVegasBatch, "
           "nstart 1000, nincrease 500, seed 0\n", vdim);
    const int nv = nloop < nvegas ? nloop : nvegas;
    /* (the CPU threads and the GPU loop take the first --loop of them) */
    t0 = now_ms();
    llgVegasBatch(nv, vdim, 1, bpeak, p, sizeof p[0], 1, 1e-3, 0, 0, 0, 0,
                  10000000, 1000, 500, 1000, 0, ev, fail, I, E, P);
    vreport("gVegasBatch, CPU threads", p, nv, now_ms() - t0, ev, fail, I,
            E);
#ifdef BENCH_HAVE_CU
    if (gcuba_device_count() > 0) {
      /* a small batch first: the CUDA context, the kernels loaded */
      llgVegasBatch(2, vdim, 1, bpeak_cu, p, sizeof p[0], 1, 1e-3, 0, 0, 0,
                    0, 10000000, 1000, 500, 1000, 0, ev, fail, I, E, P);
      t0 = now_ms();
      llgVegasBatch(nvegas, vdim, 1, bpeak_cu, p, sizeof p[0], 1, 1e-3, 0,
                    verbose, 0, 0, 10000000, 1000, 500, 1000, 0, ev, fail, I,
                    E, P);
      vreport("gVegasBatch, GPU pipeline", p, nvegas, now_ms() - t0, ev,
              fail, I, E);
      /* single GPU calls, one after another */
      gcuba_userdata_size(sizeof p[0]);
      t0 = now_ms();
      for (b = 0; b < nv; ++b)
        llgVegas(vdim, 1, bpeak_cu, &p[b], 1, 1e-3, 0, 0, 0, 0, 10000000,
                 1000, 500, 1000, 0, NULL, NULL, &ev[b], &fail[b], &I[b],
                 &E[b], &P[b]);
      gcuba_userdata_size(0);
      vreport("gVegas loop, GPU", p, nv, now_ms() - t0, ev, fail, I, E);
    }
#endif
  }
  gcuba_release();
  free(p);
  free(nreg);
  free(fail);
  free(ev);
  free(I);
  free(E);
  free(P);
  return 0;
}
