/* bench/bench-adversarial.c -- gCuhre on features off the dyadic grid: the
   adversarial sweep.  Products over all d axes of one of five features
   (bench/adversarial.h: a Lorentzian, a Gaussian, an exponential kink, an
   absolute-value kink, a step), each at three widths and four positions
   (0.5, 0.3, 0.123456, 0.7071), d = 2..5, epsrel 1e-3, 1e-5, 1e-7, 1e-9,
   maxeval 2e6, key 0: 960 calls against the analytic values.  Per kind
   and in all: calls, converged (fail = 0), honest (fail = 0 and the true
   relative error within epsrel), false claims (fail = 0 beyond epsrel),
   the worst false claim, evaluations.

   Options: --backend cpu|gpu|auto  --threads N  --key K  --maxeval N
   --dims 2,3  --kinds step,gauss  --per-call FILE (one line per call:
   kind d c w epsrel fail neval estimate error true_relerr, to compare two
   builds call for call).  This file is part of gcuba. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "gcuba.h"
#include "adversarial.h"

ADVERSARIAL_GCUBA_INTEGRAND(adversarial_c)
#ifdef ADVERSARIAL_HAVE_CU
GCUBA_DECLARE_INTEGRAND(adversarial_cu);
#endif

static const double eps_list[] = {1e-3, 1e-5, 1e-7, 1e-9};

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

int main(int argc, char **argv)
{
  const char *kinds = NULL, *dims = NULL, *percall = NULL;
  long long maxeval = 2000000;
  int key = 0, threads = -1, k, i;
  FILE *pc = NULL;
  gintegrand_t f = adversarial_c;
  struct {
    int calls, conv, honest, nfalse;
    long long neval;
    double worst;
    char where[96];
  } s[FEAT_KINDS + 1];
  double t0;
  for (i = 1; i < argc; ++i) {
    const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
    if (!strcmp(a, "--help") || !v) {
      printf("usage: bench-adversarial [--backend cpu|gpu|auto] [--threads N] "
             "[--key K] [--maxeval N] [--dims 2,3] [--kinds step,gauss] "
             "[--per-call FILE]\n");
      return !strcmp(a, "--help") ? 0 : 2;
    }
    ++i;
    if (!strcmp(a, "--backend")) setenv("GCUBA_DEVICE", v, 1);
    else if (!strcmp(a, "--threads")) threads = atoi(v);
    else if (!strcmp(a, "--key")) key = atoi(v);
    else if (!strcmp(a, "--maxeval")) maxeval = (long long)atof(v);
    else if (!strcmp(a, "--dims")) dims = v;
    else if (!strcmp(a, "--kinds")) kinds = v;
    else if (!strcmp(a, "--per-call")) percall = v;
    else {
      fprintf(stderr, "bench-adversarial: unknown option %s\n", a);
      return 2;
    }
  }
  if (threads >= 0) gcubacores(&threads, &threads);
#ifdef ADVERSARIAL_HAVE_CU
  /* the nvcc-built integrand carries the GPU kernels (the CPU backend
     runs its host function) */
  f = adversarial_cu;
#endif
  if (percall && !(pc = strcmp(percall, "-") ? fopen(percall, "w") : stdout)) {
    perror(percall);
    return 2;
  }
  memset(s, 0, sizeof s);
  t0 = now_ms();
  for (k = 0; k < FEAT_KINDS; ++k) {
    int d, iw, ic, ie;
    if (!listed(kinds, feat_names[k])) continue;
    for (d = 2; d <= 5; ++d) {
      char ds[4];
      snprintf(ds, sizeof ds, "%d", d);
      if (!listed(dims, ds)) continue;
      for (iw = 0; iw < 3; ++iw)
        for (ic = 0; ic < 4; ++ic)
          for (ie = 0; ie < 4; ++ie) {
            struct feature p;
            double I, E, P, truth, rel, eps = eps_list[ie];
            long long nev;
            int nreg, fail, j;
            p.kind = k;
            p.w = feat_widths[k][iw];
            p.c = feat_centres[ic];
            truth = feature_truth(&p, d);
            gcuba_userdata_size(sizeof p);
            llgCuhre(d, 1, f, &p, 1, eps, 0, 0, 0, maxeval, key, NULL, NULL,
                     &nreg, &nev, &fail, &I, &E, &P);
            rel = fabs(I - truth) / fabs(truth);
            if (pc)
              fprintf(pc, "%s %d %g %g %g %d %lld %.17g %.3g %.3g\n",
                      feat_names[k], d, p.c, p.w, eps, fail, nev, I, E, rel);
            for (j = 0; j < 2; ++j) {
              const int q = j ? FEAT_KINDS : k;
              ++s[q].calls;
              s[q].neval += nev;
              if (fail != 0) continue;
              ++s[q].conv;
              if (rel <= eps) {
                ++s[q].honest;
                continue;
              }
              ++s[q].nfalse;
              if (rel / eps > s[q].worst) {
                s[q].worst = rel / eps;
                snprintf(s[q].where, sizeof s[q].where,
                         "%s %dD c %g w %g at %g: true %.2g", feat_names[k],
                         d, p.c, p.w, eps, rel);
              }
            }
          }
    }
  }
  if (pc && pc != stdout) fclose(pc);
  printf("# bench-adversarial: key %d, maxeval %lld, backend %s, %.1f s\n", key,
         maxeval, gcuba_last_backend(), (now_ms() - t0) * 1e-3);
  printf("%-8s %6s %6s %6s %6s %12s  %s\n", "kind", "calls", "conv",
         "honest", "false", "mean neval", "worst false claim (x epsrel)");
  for (k = 0; k <= FEAT_KINDS; ++k) {
    if (!s[k].calls) continue;
    printf("%-8s %6d %6d %6d %6d %12.0f  ", k < FEAT_KINDS ? feat_names[k]
                                                          : "all",
           s[k].calls, s[k].conv, s[k].honest, s[k].nfalse,
           (double)s[k].neval / s[k].calls);
    if (s[k].nfalse) printf("%.3g: %s\n", s[k].worst, s[k].where);
    else printf("-\n");
  }
  return 0;
}
