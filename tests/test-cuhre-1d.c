/* tests/test-cuhre-1d.c -- gCuhre with ndim = 1: adaptive Gauss-Kronrod
   (G10-K21 by default, G7-K15 with key 15) with Wynn's epsilon
   extrapolation for endpoint singularities.
   1. Issue 22's integrals at epsrel 1e-14: I1 = int e^{cos x} and
      I2 = int sqrt(exp(cos(x^{x^x}))): fail = 0, true error <= 1e-14.
   2. A family of peaks, oscillations, jumps, kinks, interior and endpoint
      singularities at random parameters and 1e-4 to 1e-12: every
      fail = 0 is within the tolerance of the true value, and most
      converge.
   3. Extrapolation: x^-0.9 and log x converge in a few hundred
      evaluations (plain bisection needs tens of thousands).
   4. maxeval is a budget; vector integrands; the same bits for any
      number of threads; a state file resumes to the uninterrupted
      answer; NaN and -999 give their fail codes.
   Runs on the CPU backend, and on the GPU in its GPU build.
   This file is part of gcuba. */
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include "tap.h"
#include "suite.h"
#include "gpu.h"

typedef struct {
  int nregions, fail;
  long long neval;
  double integral[3], error[3], prob[3];
} result;

static void run(result *r, int ncomp, gintegrand_t f, void *ud,
                size_t size, double epsrel, double epsabs, long long maxeval,
                int key, const char *statefile)
{
  gcuba_userdata_size(size);
  llgCuhre(1, ncomp, f, ud, 1, epsrel, epsabs, 0, 0, maxeval, key,
           statefile, NULL, &r->nregions, &r->neval, &r->fail, r->integral,
           r->error, r->prob);
  gcuba_userdata_size(0);
}

static void one(struct suite_1d *p, int kind, double c, double w)
{
  memset(p, 0, sizeof *p);
  p->kind[0] = kind;
  p->c[0] = c;
  p->w[0] = w;
}

static double relerr(const result *r, const struct suite_1d *p, int j)
{
  const double t = suite_1d_truth(p, j);
  return fabs(r->integral[j] - t) / fabs(t);
}

static void check_issue(void)
{
  static const int keys[2] = {0, 15};
  int k, i;
  for (k = 0; k < 2; ++k)
    for (i = 0; i < 2; ++i) {
      struct suite_1d p;
      result r;
      double e;
      one(&p, i == 0 ? SUITE_1D_I1 : SUITE_1D_I2, 0, 0);
      run(&r, 1, S(f1d), &p, sizeof p, 1e-14, 0, 1000000, keys[k], NULL);
      e = relerr(&r, &p, 0);
      ok(r.fail == 0 && e <= 1e-14 && r.error[0] <= 1e-14 * 2.35,
         "I%d at epsrel 1e-14, key %d: fail %d, %.17g, true rel. error "
         "%.2g, reported %.2g, neval %lld", i + 1, keys[k], r.fail,
         r.integral[0], e, r.error[0] / fabs(suite_1d_truth(&p, 0)),
         r.neval);
    }
}

static unsigned long long rng = 0x9e3779b97f4a7c15ULL;
static double rnd(void)
{
  rng = rng * 6364136223846793005ULL + 1442695040888963407ULL;
  return (double)(rng >> 11) * 0x1.0p-53;
}

static void check_family(int n)
{
  static const char *names[SUITE_1D_KINDS] = {"", "", "x^a", "log x",
    "peak", "cos(wx)", "jump", "kink", "log|x-c|", "x^a log x"};
  static const double eps[4] = {1e-4, 1e-7, 1e-10, 1e-12};
  int kind, total = 0, conv = 0, bad = 0;
  for (kind = SUITE_1D_POW; kind < SUITE_1D_KINDS; ++kind) {
    int i, e, kc = 0, kt = 0;
    long long ev = 0;
    for (i = 0; i < n; ++i) {
      struct suite_1d p;
      double c = rnd(), w = 0;
      if (kind == SUITE_1D_POW) c = -0.95 + 2.95 * c;
      if (kind == SUITE_1D_POWLOG) c = -0.9 + 2 * c;
      if (kind == SUITE_1D_PEAK) w = pow(10, -1 - 3 * rnd());
      if (kind == SUITE_1D_COS) w = pow(10, 3 * rnd());
      one(&p, kind, c, w);
      for (e = 0; e < 4; ++e) {
        result r;
        double te, t = suite_1d_truth(&p, 0);
        run(&r, 1, S(f1d), &p, sizeof p, eps[e], 0, 200000, 0, NULL);
        te = fabs(r.integral[0] - t);
        ++kt;
        ev += r.neval;
        if (r.neval > 200000) ++bad;
        if (r.fail == 0) {
          ++kc;
          if (!(te <= eps[e] * fabs(t))) {
            ++bad;
            diag("false claim: %s c %.17g w %.17g epsrel %g: %.17g +- "
                 "%.3g, true error %.3g", names[kind], c, w, eps[e],
                 r.integral[0], r.error[0], te);
          }
        } else if (r.fail != GCUBA_FAIL_ACCURACY &&
                   r.fail != GCUBA_FAIL_ROUNDOFF) {
          ++bad;
          diag("%s c %g w %g epsrel %g: fail %d", names[kind], c, w,
               eps[e], r.fail);
        }
      }
    }
    diag("%-10s %3d of %3d converged, mean neval %lld", names[kind], kc,
         kt, ev / kt);
    total += kt;
    conv += kc;
  }
  ok(bad == 0, "family: every fail = 0 within the tolerance, every "
     "neval <= maxeval (%d calls)", total);
  ok(conv >= 0.95 * total, "family: %d of %d converged", conv, total);
}

static void check_extrapolation(void)
{
  struct suite_1d p;
  result r;
  one(&p, SUITE_1D_POW, -0.9, 0);
  run(&r, 1, S(f1d), &p, sizeof p, 1e-10, 0, 1000000, 0, NULL);
  ok(r.fail == 0 && relerr(&r, &p, 0) <= 1e-10 && r.neval < 2000,
     "x^-0.9 at 1e-10: fail %d, true rel. error %.2g, neval %lld "
     "(plain bisection: 13818)", r.fail, relerr(&r, &p, 0), r.neval);
  one(&p, SUITE_1D_LOG, 0, 0);
  run(&r, 1, S(f1d), &p, sizeof p, 1e-12, 0, 1000000, 0, NULL);
  ok(r.fail == 0 && relerr(&r, &p, 0) <= 1e-12 && r.neval < 2000,
     "log x at 1e-12: fail %d, true rel. error %.2g, neval %lld", r.fail,
     relerr(&r, &p, 0), r.neval);
  one(&p, SUITE_1D_POWLOG, -0.5, 0);
  run(&r, 1, S(f1d), &p, sizeof p, 1e-12, 0, 1000000, 0, NULL);
  ok(r.fail == 0 && relerr(&r, &p, 0) <= 1e-12 && r.neval < 3000,
     "log x / sqrt x at 1e-12: fail %d, true rel. error %.2g, neval %lld",
     r.fail, relerr(&r, &p, 0), r.neval);
}

static void check_budget(void)
{
  static const long long maxevals[4] = {21, 100, 1000, 5000};
  int i, good = 1;
  for (i = 0; i < 4; ++i) {
    struct suite_1d p;
    result r;
    one(&p, SUITE_1D_COS, 0, 1000);
    run(&r, 1, S(f1d), &p, sizeof p, 1e-12, 0, maxevals[i], 0, NULL);
    if (r.neval > (maxevals[i] < 23 ? 23 : maxevals[i]) || r.fail != 1 ||
        !isfinite(r.integral[0])) {
      good = 0;
      diag("maxeval %lld: neval %lld, fail %d", maxevals[i], r.neval,
           r.fail);
    }
  }
  ok(good, "cos(1000 x) at 1e-12: neval <= maxeval (21 .. 5000; one "
     "region, 23 evaluations, is the least), fail 1");
}

static void check_vector(void)
{
  struct suite_1d p;
  result r;
  int j, good = 1;
  memset(&p, 0, sizeof p);
  p.kind[0] = SUITE_1D_POW;
  p.c[0] = -0.5;
  p.kind[1] = SUITE_1D_LOG;
  p.kind[2] = SUITE_1D_COS;
  p.w[2] = 30;
  run(&r, 3, S(f1d), &p, sizeof p, 1e-10, 0, 1000000, 0, NULL);
  for (j = 0; j < 3; ++j)
    if (!(relerr(&r, &p, j) <= 1e-10)) good = 0;
  ok(r.fail == 0 && good,
     "ncomp 3 (x^-1/2, log x, cos 30x) at 1e-10: fail %d, true rel. "
     "errors %.2g %.2g %.2g, neval %lld", r.fail, relerr(&r, &p, 0),
     relerr(&r, &p, 1), relerr(&r, &p, 2), r.neval);
}

static void check_repeat(void)
{
  struct suite_1d p;
  result a, b;
  one(&p, SUITE_1D_PEAK, 0.3141592653589793, 1e-3);
  run(&a, 1, S(f1d), &p, sizeof p, 1e-11, 0, 1000000, 0, NULL);
#ifndef SUITE_GPU
  {
    const int one_thread = 1, two = 2, zero = 0;
    gcubacores(&one_thread, &zero);
    run(&b, 1, S(f1d), &p, sizeof p, 1e-11, 0, 1000000, 0, NULL);
    gcubacores(&two, &zero);
  }
#else
  run(&b, 1, S(f1d), &p, sizeof p, 1e-11, 0, 1000000, 0, NULL);
#endif
  ok(a.fail == 0 && b.fail == 0 && a.integral[0] == b.integral[0] &&
     a.error[0] == b.error[0] && a.neval == b.neval,
     "the same bits on a second run%s: %.17g +- %.3g, neval %lld",
     SUITE_BACKEND ? "" : " with one thread", a.integral[0], a.error[0],
     a.neval);
}

static void check_state(void)
{
  char path[64];
  struct suite_1d p;
  result full, part, res;
  snprintf(path, sizeof path, "test-cuhre-1d-%d.state", (int)getpid());
  unlink(path);
  /* (the start depends on maxeval, as in more dimensions: both runs
     above the threshold of the uniform start, 64 x 46 evaluations) */
  one(&p, SUITE_1D_LOGIN, 0.6180339887498949, 0);
  run(&full, 1, S(f1d), &p, sizeof p, 1e-12, 0, 1000000, 0, NULL);
  run(&part, 1, S(f1d), &p, sizeof p, 1e-12, 0, 3000, 0, path);
  run(&res, 1, S(f1d), &p, sizeof p, 1e-12, 0, 1000000, 0, path);
  ok(full.fail == 0 && full.neval > 3000 && part.fail == 1 &&
     res.fail == 0 && res.integral[0] == full.integral[0] &&
     res.error[0] == full.error[0] && res.neval == full.neval &&
     access(path, F_OK) != 0,
     "state file: stopped at maxeval 3000 (fail %d), resumed: %.17g, neval "
     "%lld, as the uninterrupted run (%.17g, %lld); file removed",
     part.fail, res.integral[0], res.neval, full.integral[0], full.neval);
  unlink(path);
}

static void check_bad(void)
{
  struct suite_1d p;
  result r;
  one(&p, SUITE_1D_NAN, 0.7, 0);
  run(&r, 1, S(f1d), &p, sizeof p, 1e-8, 0, 100000, 0, NULL);
  ok(r.fail == GCUBA_FAIL_NAN, "NaN beyond x = 0.7: fail %d", r.fail);
  run(&r, 1, S(fabort), NULL, 0, 1e-8, 0, 100000, 0, NULL);
  ok(r.fail == GCUBA_FAIL_ABORT, "-999 beyond x = 0.7: fail %d", r.fail);
}

int main(void)
{
  battery_start();
  plan(0);
  check_issue();
  check_family(SUITE_BACKEND ? 10 : 40);
  check_extrapolation();
  check_budget();
  check_vector();
  check_repeat();
  check_state();
  check_bad();
  return battery_done();
}
