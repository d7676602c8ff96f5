/* bench/bench-batch.c -- `make bench-batch`: many integrals in one call.
   N 3-D Gaussian peaks exp(-|x - c|^2 / w^2) with random centres in
   [0.1, 0.9]^3 and widths 0.05 .. 0.5, each at epsrel 1e-6 (issue 20's
   case), integrated (a) by one gCuhreBatch call on CPU threads, (b) by a
   loop of gCuhre calls on the CPU, (c) by a loop of gCuhre calls on the
   GPU when the integrand was built by nvcc and a device is usable (the
   batch's GPU mode today).  For each: integrals per second, evaluations,
   and the integrals not within the tolerance of their true value (fail
   != 0 or a true error above it).
   Options: --n N (default 10000), --loop N (integrals of the loops,
   default min(N, 2000)), --show (print each integral not within the
   tolerance).  This file is part of gcuba. */
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

static double truth(const struct peak *p)
{
  double v = 1;
  int i;
  for (i = 0; i < 3; ++i)
    v *= 0.5 * sqrt(acos(-1.0)) * p->w *
         (erf((1 - p->c[i]) / p->w) + erf(p->c[i] / p->w));
  return v;
}

static int show;

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
  int n = 10000, nloop = -1, b, i, *nreg, *fail;
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
    else {
      fprintf(stderr, "usage: %s [--n N] [--loop N] [--show]\n", argv[0]);
      return 2;
    }
  }
  if (n < 1) n = 1;
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
    for (i = 0; i < 3; ++i) {
      rng = rng * 6364136223846793005ULL + 1442695040888963407ULL;
      p[b].c[i] = 0.1 + 0.8 * (double)(rng >> 11) * 0x1.0p-53;
    }
    rng = rng * 6364136223846793005ULL + 1442695040888963407ULL;
    p[b].w = 0.05 + 0.45 * (double)(rng >> 11) * 0x1.0p-53;
  }
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
    loop("gCuhre loop, GPU", bpeak_cu, p, nloop, fail, ev, I);
  }
#endif
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
