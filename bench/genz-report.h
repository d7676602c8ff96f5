/* bench/genz-report.h -- what programs running the Genz protocol
   (bench/genz.h) share so that their outputs can be compared line by
   line: the per-instance line, the per-group counts (converged, honest,
   false claims, mean and sd of neval) and their table and CSV rows, and
   the parsing of list options.  Host C99, header only; used by
   bench/bench-genz.c, tests/test-genz.c and the Cuba driver outside the
   project.

   Counts per group (routine, d, family) of n instances:
     conv    fail = 0 (the routine says it converged)
     honest  fail = 0 and true relative error <= epsrel
     false   fail = 0 and true relative error > epsrel (a false claim)
     right   true relative error <= epsrel, whatever fail says
   This file is part of gcuba. */
#ifndef GCUBA_BENCH_GENZ_REPORT_H
#define GCUBA_BENCH_GENZ_REPORT_H

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "genz.h"

struct genz_result {
  int fail;
  long long neval;
  double integral, error, prob;
  double ms; /* wall time of the call */
};

struct genz_stats {
  int n, conv, honest, nfalse, right;
  double sum_neval, sum_neval2, ms;
  long long max_neval;
};

static inline double genz_relerr(double estimate, double truth)
{
  return fabs(estimate - truth) / fabs(truth);
}

static inline void genz_stats_add(struct genz_stats *st,
                                  const struct genz_result *r, double truth,
                                  double epsrel)
{
  double rel = genz_relerr(r->integral, truth);
  int right = rel <= epsrel; /* false for NaN */
  ++st->n;
  st->conv += r->fail == 0;
  st->honest += r->fail == 0 && right;
  st->nfalse += r->fail == 0 && !right;
  st->right += right;
  st->sum_neval += (double)r->neval;
  st->sum_neval2 += (double)r->neval * (double)r->neval;
  if (r->neval > st->max_neval) st->max_neval = r->neval;
  st->ms += r->ms;
}

static inline void genz_stats_merge(struct genz_stats *to,
                                    const struct genz_stats *st)
{
  to->n += st->n;
  to->conv += st->conv;
  to->honest += st->honest;
  to->nfalse += st->nfalse;
  to->right += st->right;
  to->sum_neval += st->sum_neval;
  to->sum_neval2 += st->sum_neval2;
  if (st->max_neval > to->max_neval) to->max_neval = st->max_neval;
  to->ms += st->ms;
}

static inline double genz_stats_mean(const struct genz_stats *st)
{
  return st->n ? st->sum_neval / st->n : 0;
}

/* sample standard deviation of neval (0 for n < 2) */
static inline double genz_stats_sd(const struct genz_stats *st)
{
  double m = genz_stats_mean(st), v;
  if (st->n < 2) return 0;
  v = (st->sum_neval2 - st->n * m * m) / (st->n - 1);
  return v > 0 ? sqrt(v) : 0;
}

/* ---- per-instance lines ------------------------------------------- */

static inline void genz_instance_header(FILE *fp)
{
  fprintf(fp, "# %-8s %2s %-13s %4s %4s %9s %24s %10s %24s %10s\n",
          "routine", "d", "family", "inst", "fail", "neval", "estimate",
          "error", "truth", "relerr");
}

static inline void genz_instance_line(FILE *fp, const char *routine,
                                      const struct genz_instance *g, int k,
                                      const struct genz_result *r,
                                      double truth)
{
  fprintf(fp, "%-10s %2d %-13s %4d %4d %9lld %24.16e %10.3e %24.16e %10.3e\n",
          routine, g->d, genz_names[g->family - 1], k, r->fail, r->neval,
          r->integral, r->error, truth, genz_relerr(r->integral, truth));
}

/* ---- the summary table and CSV ------------------------------------ */

static inline void genz_group_header(FILE *fp)
{
  fprintf(fp, "%-10s %2s %-13s %3s %10s %10s %10s %4s %6s %5s %5s %9s\n",
          "routine", "d", "family", "n", "neval_mean", "neval_sd",
          "neval_max", "conv", "honest", "false", "right", "ms");
}

static inline void genz_group_line(FILE *fp, const char *routine, int d,
                                   const char *family,
                                   const struct genz_stats *st)
{
  char dd[16];
  if (d > 0) snprintf(dd, sizeof dd, "%2d", d);
  else snprintf(dd, sizeof dd, "%2s", "*");
  fprintf(fp, "%-10s %2s %-13s %3d %10.1f %10.1f %10lld %4d %6d %5d %5d "
          "%9.1f\n", routine, dd, family, st->n, genz_stats_mean(st),
          genz_stats_sd(st), st->max_neval, st->conv, st->honest, st->nfalse,
          st->right, st->ms);
}

static inline void genz_csv_header(FILE *fp)
{
  fprintf(fp, "routine,d,family,n,neval_mean,neval_sd,neval_max,converged,"
              "honest,false_claims,right,ms\n");
}

static inline void genz_csv_line(FILE *fp, const char *routine, int d,
                                 const char *family,
                                 const struct genz_stats *st)
{
  fprintf(fp, "%s,%d,%s,%d,%.1f,%.1f,%lld,%d,%d,%d,%d,%.3f\n", routine, d,
          family, st->n, genz_stats_mean(st), genz_stats_sd(st),
          st->max_neval, st->conv, st->honest, st->nfalse, st->right, st->ms);
}

/* ---- list options ------------------------------------------------- */

/* "5,8,10" into v[0..max-1]: the count, or -1 on a bad item (not in
   lo..hi) */
static inline int genz_parse_ints(const char *s, int *v, int max, int lo,
                                  int hi)
{
  int n = 0;
  while (*s) {
    char *end;
    long x = strtol(s, &end, 10);
    if (end == s || (*end && *end != ',') || x < lo || x > hi || n == max)
      return -1;
    v[n++] = (int)x;
    s = *end ? end + 1 : end;
  }
  return n;
}

/* "1,gauss,c0" into family numbers: the count, or -1 */
static inline int genz_parse_families(const char *s, int *v, int max)
{
  int n = 0;
  while (*s) {
    int len = (int)strcspn(s, ","), f = genz_family_of(s, len);
    if (!f || n == max) return -1;
    v[n++] = f;
    s += len;
    if (*s == ',') ++s;
  }
  return n;
}

/* "cuhre,vegas": bit 1 cuhre, bit 2 vegas; 0 on a bad item */
static inline int genz_parse_routines(const char *s)
{
  int m = 0;
  while (*s) {
    int len = (int)strcspn(s, ",");
    if (len == 5 && !strncmp(s, "cuhre", 5)) m |= 1;
    else if (len == 5 && !strncmp(s, "vegas", 5)) m |= 2;
    else if (len == 5 && !strncmp(s, "suave", 5)) m |= 4;
    else if (len == 7 && !strncmp(s, "divonne", 7)) m |= 8;
    else return 0;
    s += len;
    if (*s == ',') ++s;
  }
  return m;
}

#endif
