/* bench/bench-boxes.c -- gCuhre on products of steps and kinks at a
   different point on every axis (bench/boxes.h), which the cube's central
   lines may all miss: for each kind (step, mixed and inner with w = 0
   or 0.25, kink with w = 0.01), d = 4..8 and --instances instances (20),
   the points uniform in (0, 1) from a fixed sequence (inner: widths
   0.2 .. 0.7), at epsrel 1e-3, 1e-4, 1e-5,
   maxeval 2e7, key 0.  Per kind and dimension and in all: calls,
   converged (fail = 0), honest (fail = 0 and the true relative error
   within epsrel), false claims, the worst false claim, evaluations.

   Options: --backend cpu|gpu|auto  --threads N  --instances N
   --kinds step,kink,mixed,inner (the kinds run; all by default)
   --maxeval N  --per-call FILE (one line per call: kind d w epsrel fail
   neval estimate error true_relerr, to compare two builds call for
   call).  This file is part of gcuba. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "gcuba.h"
#include "boxes.h"

BOXES_GCUBA_INTEGRAND(boxes_c)
#ifdef BOXES_HAVE_CU
GCUBA_DECLARE_INTEGRAND(boxes_cu);
#endif

static const double eps_list[] = {1e-3, 1e-4, 1e-5};
#define NEPS 3
#define DMIN 4
#define DMAX 8

static double now_ms(void)
{
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec * 1e3 + ts.tv_nsec * 1e-6;
}

/* the fixed sequence of the instances' points, uniform in (0, 1) */
static double next_u(unsigned *s)
{
  *s = *s * 1103515245u + 12345u;
  return ((*s >> 8) & 0xffffff) / 16777216.0;
}

typedef struct {
  int calls, conv, honest, nfalse;
  long long neval;
  double worst;
  char where[96];
} tally;

int main(int argc, char **argv)
{
  const char *percall = NULL;
  long long maxeval = 20000000;
  int ninst = 20, threads = -1, i, k, d, e;
  const char *only = NULL; /* --kinds: a comma-separated list */
  FILE *pc = NULL;
  gintegrand_t f = boxes_c;
  static tally s[BOX_KINDS][DMAX + 1], all;
  double t0;
  for (i = 1; i < argc; ++i) {
    const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
    if (!strcmp(a, "--help") || !v) {
      printf("usage: bench-boxes [--backend cpu|gpu|auto] [--threads N] "
             "[--instances N] [--maxeval N] [--per-call FILE] "
             "[--kinds step,kink,mixed,inner]\n");
      return !strcmp(a, "--help") ? 0 : 2;
    }
    ++i;
    if (!strcmp(a, "--backend")) setenv("GCUBA_DEVICE", v, 1);
    else if (!strcmp(a, "--threads")) threads = atoi(v);
    else if (!strcmp(a, "--instances")) ninst = atoi(v);
    else if (!strcmp(a, "--maxeval")) maxeval = (long long)atof(v);
    else if (!strcmp(a, "--per-call")) percall = v;
    else if (!strcmp(a, "--kinds")) only = v;
    else {
      fprintf(stderr, "bench-boxes: unknown option %s\n", a);
      return 2;
    }
  }
  if (threads >= 0) gcubacores(&threads, &threads);
#ifdef BOXES_HAVE_CU
  f = boxes_cu; /* the nvcc-built integrand carries the GPU kernels */
#endif
  if (percall && !(pc = strcmp(percall, "-") ? fopen(percall, "w") : stdout)) {
    perror(percall);
    return 2;
  }
  t0 = now_ms();
  for (e = 0; e < NEPS; ++e) {
    unsigned seed = 12345; /* the same instances at every epsrel */
    const double eps = eps_list[e];
    for (k = 0; k < BOX_KINDS; ++k)
      for (d = DMIN; d <= DMAX; ++d)
        for (i = 0; i < ninst; ++i) {
          struct boxes p;
          double I, E, P, truth, rel;
          long long nev;
          int nreg, fail, j;
          p.kind = k;
          p.n = d;
          for (j = 0; j < d; ++j) p.c[j] = next_u(&seed);
          for (j = 0; j < d; ++j) /* inner: widths 0.2 .. 0.7 */
            if (k == BOX_INNER) {
              p.a[j] = 0.3 * p.c[j];
              p.c[j] = p.a[j] + 0.2 + 0.5 * next_u(&seed);
            } else
              p.a[j] = 0;
          p.w = k == BOX_KINK ? 0.01 : next_u(&seed) < 0.5 ? 0 : 0.25;
          if (only && !strstr(only, box_names[k])) continue;
          truth = boxes_truth(&p);
          gcuba_userdata_size(sizeof p);
          llgCuhre(d, 1, f, &p, 1, eps, 0, 0, 0, maxeval, 0, NULL, NULL,
                   &nreg, &nev, &fail, &I, &E, &P);
          rel = fabs(I - truth) / fabs(truth);
          if (pc)
            fprintf(pc, "%s %d %g %g %d %lld %.17g %.3g %.3g\n", box_names[k],
                    d, p.w, eps, fail, nev, I, E, rel);
          for (j = 0; j < 2; ++j) {
            tally *q = j ? &all : &s[k][d];
            ++q->calls;
            q->neval += nev;
            if (fail != 0) continue;
            ++q->conv;
            if (rel <= eps) {
              ++q->honest;
              continue;
            }
            ++q->nfalse;
            if (rel / eps > q->worst) {
              q->worst = rel / eps;
              snprintf(q->where, sizeof q->where,
                       "%s %dD instance %d w %g at %g: true %.2g",
                       box_names[k], d, i, p.w, eps, rel);
            }
          }
        }
  }
  if (pc && pc != stdout) fclose(pc);
  printf("# bench-boxes: %d instances, maxeval %lld, backend %s, %.1f s\n",
         ninst, maxeval, gcuba_last_backend(), (now_ms() - t0) * 1e-3);
  printf("%-6s %3s %6s %6s %6s %6s %12s  %s\n", "kind", "d", "calls", "conv",
         "honest", "false", "mean neval", "worst false claim (x epsrel)");
  for (k = 0; k <= BOX_KINDS; ++k)
    for (d = DMIN; d <= DMAX; ++d) {
      const tally *q = k < BOX_KINDS ? &s[k][d] : &all;
      if (k == BOX_KINDS && d > DMIN) break;
      if (!q->calls) continue; /* a kind --kinds left out */
      printf("%-6s %3s %6d %6d %6d %6d %12.0f  ",
             k < BOX_KINDS ? box_names[k] : "all",
             k < BOX_KINDS ? (char[4]){(char)('0' + d), 0} : "*", q->calls,
             q->conv, q->honest, q->nfalse, (double)q->neval / q->calls);
      if (q->nfalse) printf("%.3g: %s\n", q->worst, q->where);
      else printf("-\n");
    }
  return all.nfalse != 0;
}
