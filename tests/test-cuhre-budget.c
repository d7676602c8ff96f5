/* tests/test-cuhre-budget.c -- gCuhre's maxeval is a budget: neval <=
   maxeval for every key, dimension, ncomp and budget, except when one
   rule application on the unit cube already costs more (then exactly
   that one, and fail 1); the run stops only when no further bisection
   fits; a resumed state file keeps to the budget of the resuming call;
   a Cuba-sized budget starts from the unit cube and converges on a smooth
   integrand in a few bisections, as Cuba's Cuhre does; whenever fail = 0
   the true error is within the tolerance.
   Runs on the CPU backend, and on the GPU in its GPU build.
   This file is part of gcuba. */
#include <math.h>
#include <stdio.h>
#include <unistd.h>
#include "tap.h"
#include "suite.h"
#include "gpu.h"

/* evaluations per region for (ndim, key): the points of the rule Cuba
   chooses, plus the 2 ndim boundary probes of the degree 7 and 9 rules */
static long long npoints(int ndim, int key)
{
  long long n = ndim;
  if (key == 13 && ndim == 2) return 65;
  if (key == 11 && ndim == 3) return 127;
  if (key == 7) return 1 + 6 * n + 2 * n * (n - 1) + (1LL << n) + 2 * n;
  if (key == 0 && ndim == 2) return 65;
  if (key == 0 && ndim == 3) return 127;
  return 1 + 8 * n + 6 * n * (n - 1) + 4 * n * (n - 1) * (n - 2) / 3 +
         (1LL << n) + 2 * n;
}

/* f3, the corner peak (1 + sum_i i x_i)^-(d+1), by inclusion-exclusion
   over the corners: sum_S (-1)^|S| / (1 + sum_{i in S} i) / (d! prod i) */
static double f3_truth(int d)
{
  double s = 0, fact = 1;
  unsigned m;
  int i;
  for (m = 0; m < 1u << d; ++m) {
    double a = 1;
    int bits = 0;
    for (i = 0; i < d; ++i)
      if (m >> i & 1) {
        a += i + 1;
        ++bits;
      }
    s += (bits % 2 ? -1 : 1) / a;
  }
  for (i = 1; i <= d; ++i) fact *= (double)i * i;
  return s / fact;
}

/* the 1D factor of f4, exp(-625 (x - 1/2)^2) over [0, 1] */
static double f4_1d(void) { return sqrt(M_PI) / 25 * erf(12.5); }

typedef struct {
  int nregions, fail;
  long long neval;
  double integral[3], error[3], prob[3];
} result;

static void run(result *r, int ndim, int ncomp, gintegrand_t f, double epsrel,
                long long maxeval, int key, const char *state)
{
  llgCuhre(ndim, ncomp, f, NULL, 1, epsrel, 1e-20, 0, 0, maxeval, key, state,
           NULL, &r->nregions, &r->neval, &r->fail, r->integral, r->error,
           r->prob);
}

int main(void)
{
  static const int keys[] = {0, 7, 9, 11, 13};
  static const long long budgets[] = {100, 1000, 5000, 20000, 150000,
                                      1000000, 20000000};
  int d, k, b, bad = 0, honest_bad = 0, runs = 0;
  result r;
  char state[64];
  battery_start();
  plan(0);

  /* neval <= maxeval over keys, dimensions and budgets (f4, ncomp 1,
     and f43c, ncomp 3) */
  for (d = 2; d <= 9; ++d)
    for (k = 0; k < 5; ++k)
      for (b = 0; b < 7; ++b) {
        int key = keys[k], nc = d % 2 ? 3 : 1;
        long long np = npoints(d, key), m = budgets[b];
        double truth = pow(f4_1d(), d);
        if ((key == 13 && d != 2) || (key == 11 && d != 3)) continue;
        if (m > 1000000 && d > 6) continue; /* keep the test short */
        run(&r, d, nc, nc == 3 ? S(f43c) : S(f4), 1e-9, m, key, NULL);
        ++runs;
        if (np > m ? !(r.neval == np && r.fail == 1)
                   : !(r.neval <= m && (r.fail == 0 || r.neval > m - 2 * np))) {
          ++bad;
          diag("d %d key %d ncomp %d maxeval %lld: neval %lld, fail %d "
               "(points per rule %lld)", d, key, nc, m, r.neval, r.fail, np);
        }
        if (r.fail == 0 && !(fabs(r.integral[0] - truth) <= 1e-9 * truth)) {
          ++honest_bad;
          diag("d %d key %d: claimed %.15g, true %.15g", d, key,
               r.integral[0], truth);
        }
      }
  ok(bad == 0, "neval <= maxeval (or one rule application, fail 1), and "
     "no bisection left unspent, in %d of %d runs", runs - bad, runs);
  ok(honest_bad == 0, "fail = 0 only within the tolerance (%d runs)", runs);

  /* a Cuba-sized budget starts from the unit cube: the 5D corner peak
     (smooth) converges at 1e-3 in a few bisections, as Cuba's Cuhre
     does, in a small fraction of the budget */
  ok(fabs(f3_truth(3) - 1.0846560846560847e-02) <= 1e-15,
     "corner peak truth by inclusion-exclusion, 3D: %.17g", f3_truth(3));
  run(&r, 5, 1, S(f3), 1e-3, 150000, 0, NULL);
  ok(r.fail == 0 && r.neval <= 20000 &&
         fabs(r.integral[0] - f3_truth(5)) <= 1e-3 * f3_truth(5),
     "5D corner peak at 1e-3, maxeval 150000: fail %d, %.10g (true "
     "%.10g) in %lld evaluations, %d regions", r.fail, r.integral[0],
     f3_truth(5), r.neval, r.nregions);

  /* a state file: interrupted at 60000, resumed with 100000 */
  snprintf(state, sizeof state, "cuhre-budget-%d.tmp", (int)getpid());
  remove(state);
  run(&r, 6, 1, S(f4), 1e-9, 60000, 0, state);
  ok(r.fail == 1 && r.neval <= 60000 && access(state, F_OK) == 0,
     "interrupted at maxeval 60000: neval %lld, state kept", r.neval);
  run(&r, 6, 1, S(f4), 1e-9, 100000, 0, state);
  ok(r.fail == 1 && r.neval <= 100000 && r.neval > 100000 - 2 * 453,
     "resumed with maxeval 100000: neval %lld in all", r.neval);
  remove(state);
  return battery_done();
}
