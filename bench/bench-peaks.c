/* bench/bench-peaks.c -- `make bench-peaks`: are gCuhre's claims honest
   on many random peaks?  Sets of N instances (bench/peaks.h: a Gaussian
   or a product of Lorentzians, the centre uniform in the cube, the width
   log-uniform in [wmin, wmax]) in 2 to 6 dimensions at epsrel 1e-3 ..
   1e-8, each set one llgCuhreBatch call (or, with --single, a loop of
   llgCuhre calls), against the closed forms.  Per set and in all:
   integrals, converged (fail = 0), honest (fail = 0 and the true relative
   error within epsrel), false claims (fail = 0 beyond it), the worst
   false claim in units of epsrel, mean evaluations and the time.  Exits
   1 when a claim is false.

   Options: --backend cpu|gpu|auto  --threads N  --n N (default 200)
   --kinds gauss,lorentz  --dims 2,3,4,5,6  --eps 1e-3,1e-5 (default
   1e-3 .. 1e-8, every decade)  --seed S (default 1)  --wmin W (0.05)
   --wmax W (0.5)  --maxeval N (1e7)  --single  --show (a line for each
   false claim: the instance, to run again).  This file is part of
   gcuba. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "gcuba.h"
#include "peaks.h"

GCUBA_INTEGRAND(peaks_c)(const int *ndim, const double x[], const int *ncomp,
                         double f[], void *userdata) PEAKS_BODY
#ifdef BENCH_HAVE_CU
GCUBA_DECLARE_INTEGRAND(peaks_cu);
#endif

static const char *const kind_names[PEAKS_KINDS] = {"gauss", "lorentz"};

static int listed(const char *list, const char *item)
{
  size_t n = strlen(item);
  const char *p = list;
  if (!list) return 1;
  while ((p = strstr(p, item)) != NULL) {
    if ((p == list || p[-1] == ',') && (p[n] == 0 || p[n] == ',')) return 1;
    p += n;
  }
  return 0;
}

static double now_ms(void)
{
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec * 1e3 + ts.tv_nsec * 1e-6;
}

typedef struct {
  long long n, conv, honest, nfalse, neval;
  double worst, ms;
} tally;

static void add(tally *t, const tally *s)
{
  t->n += s->n;
  t->conv += s->conv;
  t->honest += s->honest;
  t->nfalse += s->nfalse;
  t->neval += s->neval;
  t->ms += s->ms;
  if (s->worst > t->worst) t->worst = s->worst;
}

static void line(const char *what, const tally *t)
{
  printf("%-22s %7lld %7lld %7lld %6lld %9.2f %12.0f %10.1f\n", what, t->n,
         t->conv, t->honest, t->nfalse, t->worst,
         t->n ? (double)t->neval / t->n : 0.0, t->ms);
}

int main(int argc, char **argv)
{
  const char *kinds = NULL, *dims = NULL, *epslist = NULL;
  long long maxeval = 10000000;
  unsigned long long seed = 1;
  double wmin = 0.05, wmax = 0.5;
  int n = 200, threads = -1, single = 0, show = 0, k, d, i;
  gintegrand_t f = peaks_c;
  tally all;
  char eps_default[] = "1e-3,1e-4,1e-5,1e-6,1e-7,1e-8", *eps_buf;
  for (i = 1; i < argc; ++i) {
    const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
    if (!strcmp(a, "--single")) {
      single = 1;
      continue;
    }
    if (!strcmp(a, "--show")) {
      show = 1;
      continue;
    }
    if (!strcmp(a, "--help") || !v) {
      printf("usage: bench-peaks [--backend cpu|gpu|auto] [--threads N] "
             "[--n N] [--kinds gauss,lorentz] [--dims 2,3,4,5,6] "
             "[--eps 1e-3,1e-5] [--seed S] [--wmin W] [--wmax W] "
             "[--maxeval N] [--single] [--show]\n");
      return !strcmp(a, "--help") ? 0 : 2;
    }
    ++i;
    if (!strcmp(a, "--backend")) setenv("GCUBA_DEVICE", v, 1);
    else if (!strcmp(a, "--threads")) threads = atoi(v);
    else if (!strcmp(a, "--n")) n = atoi(v);
    else if (!strcmp(a, "--kinds")) kinds = v;
    else if (!strcmp(a, "--dims")) dims = v;
    else if (!strcmp(a, "--eps")) epslist = v;
    else if (!strcmp(a, "--seed")) seed = strtoull(v, NULL, 10);
    else if (!strcmp(a, "--wmin")) wmin = atof(v);
    else if (!strcmp(a, "--wmax")) wmax = atof(v);
    else if (!strcmp(a, "--maxeval")) maxeval = (long long)atof(v);
    else {
      fprintf(stderr, "bench-peaks: unknown option %s\n", a);
      return 2;
    }
  }
  if (n < 1 || !(wmin > 0) || !(wmax >= wmin)) {
    fprintf(stderr, "bench-peaks: --n must be positive, 0 < wmin <= wmax\n");
    return 2;
  }
  if (threads >= 0) gcubacores(&threads, &threads);
#ifdef BENCH_HAVE_CU
  /* the nvcc-built integrand carries the GPU kernels (the CPU backend
     runs its host function) */
  f = peaks_cu;
#endif
  eps_buf = (char *)malloc(strlen(epslist ? epslist : eps_default) + 1);
  {
    struct peaks_inst *p = (struct peaks_inst *)malloc(sizeof *p * n);
    int *nreg = (int *)malloc(sizeof(int) * n), *fail = (int *)malloc(
        sizeof(int) * n);
    long long *nev = (long long *)malloc(sizeof(long long) * n);
    double *I = (double *)malloc(sizeof(double) * n), *E = (double *)malloc(
        sizeof(double) * n), *P = (double *)malloc(sizeof(double) * n);
    if (!p || !nreg || !fail || !nev || !I || !E || !P || !eps_buf) {
      fprintf(stderr, "bench-peaks: out of memory\n");
      return 2;
    }
    memset(&all, 0, sizeof all);
    printf("# bench-peaks: %d instances a set, widths %g..%g, seed %llu, "
           "maxeval %lld, %s\n", n, wmin, wmax, seed, maxeval,
           single ? "a loop of llgCuhre calls" : "one llgCuhreBatch call a set");
    printf("%-22s %7s %7s %7s %6s %9s %12s %10s\n", "set", "n", "conv",
           "honest", "false", "worst", "mean neval", "ms");
    for (k = 0; k < PEAKS_KINDS; ++k) {
      if (!listed(kinds, kind_names[k])) continue;
      for (d = 2; d <= PEAKS_MAXDIM; ++d) {
        char ds[4], *tok;
        snprintf(ds, sizeof ds, "%d", d);
        if (!listed(dims, ds)) continue;
        strcpy(eps_buf, epslist ? epslist : eps_default);
        for (tok = strtok(eps_buf, ","); tok; tok = strtok(NULL, ",")) {
          const double eps = atof(tok);
          tally t;
          char what[48];
          double t0;
          memset(&t, 0, sizeof t);
          for (i = 0; i < n; ++i) peaks_draw(&p[i], k, d, seed, i, wmin, wmax);
          t0 = now_ms();
          if (single) {
            gcuba_userdata_size(sizeof *p);
            for (i = 0; i < n; ++i)
              llgCuhre(d, 1, f, &p[i], 1, eps, 0, 0, 0, maxeval, 0, NULL,
                       NULL, &nreg[i], &nev[i], &fail[i], &I[i], &E[i],
                       &P[i]);
            gcuba_userdata_size(0);
          } else
            llgCuhreBatch(n, d, 1, f, p, sizeof *p, 1, eps, 0, 0, 0, maxeval,
                          0, nreg, nev, fail, I, E, P);
          t.ms = now_ms() - t0;
          for (i = 0; i < n; ++i) {
            const double truth = peaks_truth(&p[i], d),
                         rel = fabs(I[i] - truth) / truth;
            ++t.n;
            t.neval += nev[i];
            if (fail[i] != 0) continue;
            ++t.conv;
            if (rel <= eps) {
              ++t.honest;
              continue;
            }
            ++t.nfalse;
            if (rel / eps > t.worst) t.worst = rel / eps;
            if (show) {
              int j;
              printf("  false: %s %dD instance %d (seed %llu): c",
                     kind_names[k], d, i, seed);
              for (j = 0; j < d; ++j) printf(" %.17g", p[i].c[j]);
              printf(" w %.17g at %g: %.17g +- %.3g, true %.17g (%.2f x "
                     "epsrel), neval %lld\n", p[i].w, eps, I[i], E[i], truth,
                     rel / eps, nev[i]);
            }
          }
          snprintf(what, sizeof what, "%s %dD %g", kind_names[k], d, eps);
          line(what, &t);
          fflush(stdout);
          add(&all, &t);
        }
      }
    }
    line("all", &all);
    printf("# backend %s\n", gcuba_last_backend());
    free(p);
    free(nreg);
    free(fail);
    free(nev);
    free(I);
    free(E);
    free(P);
  }
  free(eps_buf);
  return all.nfalse ? 1 : 0;
}
