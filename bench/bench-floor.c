/* bench/bench-floor.c -- gCuhre at tolerances near double precision, on
   the workloads of Cuba programs (issue 52; the integrands of
   bench/floor.h), on the CPU backend:
     key 13:  2-D products of damped oscillators of sizes 1, 100, 10^4
              and frequencies w = 1, 4, ..., 13 at epsrel = epsabs =
              1e-13 and 1e-14, maxeval 1e8 (30 calls);
     key 9:   2-D, 3-D and 4-D products exp(-(d+1) x_d) cos(w (d+1) x_d
              / 2), w = 1, 3, 5, 7, 9, at epsrel = epsabs = 1e-12,
              maxeval 1e7 (15 calls).
   One line per call: fail, evaluations, the error estimate, the true
   error (against the closed form in long double) and the time; then for
   each workload the evaluations in all, the calls that ran to maxeval
   (fail 1) or stopped at the rounding floor (fail 2), and the claims
   (fail 0) whose true error is above the tolerance (false; there should
   be none).  Usage: bench-floor [--threads N] (gcubacores, default as
   set).  Exits 1 when a claim is false.  This file is part of gcuba. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "gcuba.h"
#include "floor.h"

static double now_ms(void)
{
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec * 1e3 + ts.tv_nsec * 1e-6;
}

struct tally {
  long long neval;
  int n, atmax, floor, falseclaims;
  double ms;
};

static void one(struct tally *t, const char *what, int ndim, int key,
                double eps, long long maxeval, gcuba_host_fn f, void *ud,
                long double truth)
{
  long long neval;
  int nregions, fail;
  double I, E, P, te, tol, t0 = now_ms(), ms;
  llgCuhre(ndim, 1, gcuba_host_integrand(f, 0), ud, 1, eps, eps, 0, 0,
           maxeval, key, NULL, NULL, &nregions, &neval, &fail, &I, &E, &P);
  ms = now_ms() - t0;
  te = (double)fabsl((long double)I - truth);
  tol = fmax(eps, eps * fabs(I));
  printf("%-22s %4d %12lld %10.2e %10.2e %9.1f%s\n", what, fail, neval, E,
         te, ms, fail == 0 && te > tol ? "  FALSE" : "");
  t->neval += neval;
  t->ms += ms;
  ++t->n;
  t->atmax += fail == 1;
  t->floor += fail == GCUBA_FAIL_ROUNDOFF;
  t->falseclaims += fail == 0 && te > tol;
}

static void total(const char *what, const struct tally *t)
{
  printf("# %s: %d calls, %lld evaluations, %.1f ms; %d at maxeval, %d at "
         "the rounding floor, %d false claims\n\n", what, t->n, t->neval,
         t->ms, t->atmax, t->floor, t->falseclaims);
}

int main(int argc, char **argv)
{
  static const double scale[3] = {1, 100, 10000}, eps13[2] = {1e-13, 1e-14};
  struct tally a, b;
  char what[64];
  int i, k, e;
  for (i = 1; i < argc; ++i)
    if (!strcmp(argv[i], "--threads") && i + 1 < argc) {
      const int n = atoi(argv[++i]), p = 10000;
      gcubacores(&n, &p);
    } else {
      fprintf(stderr, "usage: bench-floor [--threads N]\n");
      return 2;
    }
  memset(&a, 0, sizeof a);
  memset(&b, 0, sizeof b);
  printf("%-22s %4s %12s %10s %10s %9s\n", "call", "fail", "neval", "error",
         "true err", "ms");
  for (i = 0; i < 3; ++i)
    for (k = 0; k < 5; ++k)
      for (e = 0; e < 2; ++e) {
        struct floor_par p;
        p.s = scale[i];
        p.w = 1 + 3 * k;
        snprintf(what, sizeof what, "2D s %g w %g %g", p.s, p.w, eps13[e]);
        one(&a, what, 2, 13, eps13[e], 100000000, floor_osc, &p,
            floor_osc_truth(&p));
      }
  total("key 13, 2-D, epsrel = epsabs = 1e-13, 1e-14", &a);
  for (i = 2; i <= 4; ++i)
    for (k = 0; k < 5; ++k) {
      double w = 1 + 2 * k;
      snprintf(what, sizeof what, "%dD w %g 1e-12", i, w);
      one(&b, what, i, 9, 1e-12, 10000000, floor_prod, &w,
          floor_prod_truth(i, w));
    }
  total("key 9, 2-4 D, epsrel = epsabs = 1e-12", &b);
  return a.falseclaims + b.falseclaims ? 1 : 0;
}
