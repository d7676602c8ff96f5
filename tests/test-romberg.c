/* tests/test-romberg.c -- gRomberg and llgRomberg (tests/romberg-cases.h
   has the integrands and their true values).  Compiled by cc for the CPU
   battery; test-romberg-gpu.cu includes it with ROMB_GPU under nvcc: the
   same battery on the GPU (skips without a device, fails then with
   GCUBA_TEST_REQUIRE_GPU=1) plus CPU/GPU bit-for-bit checks.
   - I1 = int e^{cos x} at epsrel 1e-14: fail 0, true error <= 1e-14;
     I2 = int sqrt(exp(cos(x^x^x))) at 1e-14 likewise.
   - No false claim (fail 0 with a true error above the tolerance) for any
     integrand of the honesty table at 1e-3 .. 1e-12; the smooth ones
     converge; polynomials exact; the periodic one spectrally.
   - ncomp 3; userdata; -999 (fail -99); NaN and an endpoint Inf (-9);
     argument errors with their codes; maxeval a budget; mineval; a
     tolerance below the rounding floor stops early with fail 2.
   - Determinism: the same bits run after run, for 1 to 4 threads, for
     the point and nvec forms and any nvec, for blocks of any size.
   This file is part of gcuba. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "tap.h"
#include "gpu.h"
#include "romberg-cases.h"

typedef struct {
  double I[3], E[3], P[3];
  long long neval;
  int fail;
} result;

static void romb(gintegrand_t f, int ncomp, void *ud, long long nvec,
                 double epsrel, double epsabs, long long mineval,
                 long long maxeval, result *r)
{
  memset(r, 0, sizeof *r);
  llgRomberg(ncomp, f, ud, nvec, epsrel, epsabs, 0, mineval, maxeval,
             &r->neval, &r->fail, r->I, r->E, r->P);
}

static int same(const result *a, const result *b, int ncomp)
{
  return a->fail == b->fail && a->neval == b->neval &&
         !memcmp(a->I, b->I, sizeof(double) * ncomp) &&
         !memcmp(a->E, b->E, sizeof(double) * ncomp);
}

static double relerr(double a, double b) { return fabs(a - b) / fabs(b); }

static const romb_case cases[] = {
#define ROMB_ROW_(n, f, t) {n, f, t},
    ROMB_CASES(ROMB_ROW_)
#undef ROMB_ROW_
};
#define NCASES ((int)(sizeof cases / sizeof cases[0]))

#ifdef ROMB_GPU
#define ROMB_BACKEND "gpu"
#else
#define ROMB_BACKEND "cpu"
/* plain Cuba host functions: e^{cos x}, one point and nvec form */
static int pt_fn(const int *ndim, const double x[], const int *ncomp,
                 double f[], void *userdata)
{
  (void)ndim;
  (void)ncomp;
  (void)userdata;
  f[0] = exp(cos(x[0]));
  return 0;
}
static int maxnv;
static int vec_fn(const int *ndim, const double x[], const int *ncomp,
                  double f[], void *userdata, const int *nvec,
                  const int *core)
{
  int i;
  (void)ndim;
  (void)ncomp;
  (void)userdata;
  (void)core;
  if (*nvec > maxnv) maxnv = *nvec;
  for (i = 0; i < *nvec; ++i) f[i] = exp(cos(x[i]));
  return 0;
}
#endif

GCUBA_INTEGRAND(romb_zero)(const int *ndim, const double x[],
                           const int *ncomp, double f[], void *userdata)
{
  f[0] = 0;
  return 0;
}

static void accuracy(void)
{
  result r;
  int i, e;
  const double eps[] = {1e-3, 1e-6, 1e-9, 1e-12};
  romb(romb_i1, 1, NULL, 1, 1e-14, 0, 0, 1000000, &r);
  ok(r.fail == 0 && relerr(r.I[0], ROMB_I1) <= 1e-14,
     "I1 = int e^cos x at epsrel 1e-14: fail %d, %.17g +- %.2g, true "
     "relative error %.2g, %lld evaluations",
     r.fail, r.I[0], r.E[0], relerr(r.I[0], ROMB_I1), r.neval);
  ok(!strcmp(gcuba_last_backend(), ROMB_BACKEND), "backend %s",
     gcuba_last_backend());
  romb(romb_i2, 1, NULL, 1, 1e-14, 0, 0, 1000000000, &r);
  ok(r.fail == 0 && relerr(r.I[0], ROMB_I2) <= 1e-14,
     "I2 = int sqrt(exp(cos(x^x^x))) at epsrel 1e-14: fail %d, %.17g +- "
     "%.2g, true relative error %.2g, %lld evaluations",
     r.fail, r.I[0], r.E[0], relerr(r.I[0], ROMB_I2), r.neval);
  /* the honesty table */
  for (i = 0; i < NCASES; ++i) {
    int nfalse = 0, nconv = 0;
    for (e = 0; e < 4; ++e) {
      double t = cases[i].truth, tol = eps[e] * fabs(t);
      romb(*cases[i].f, 1, NULL, 1, eps[e], 0, 0, 1 << 22, &r);
      if (r.fail == 0) ++nconv;
      if (r.fail == 0 && !(fabs(r.I[0] - t) <= tol)) {
        ++nfalse;
        diag("%s at %g: %.17g +- %.3g, true error %.3g", cases[i].name,
             eps[e], r.I[0], r.E[0], fabs(r.I[0] - t));
      }
      if (r.fail < 0) ++nfalse;
    }
    ok(nfalse == 0, "%s: no false claim at epsrel 1e-3 .. 1e-12 (%d of 4 "
       "converged within 2^22 evaluations)", cases[i].name, nconv);
  }
  /* the case that fooled the diagonal: its differences small while the
     trapezoid's fall as h log h (claimed 7.3e-5, true error 1.4e-4) */
  romb(romb_login, 1, NULL, 1, 1e-4, 0, 0, 1 << 22, &r);
  ok(!(r.fail == 0) || fabs(r.I[0] - ROMB_LOGIN) <= 1e-4 * fabs(ROMB_LOGIN),
     "log|x - 0.9355| at 1e-4: fail %d, %.17g +- %.3g, true error %.3g",
     r.fail, r.I[0], r.E[0], fabs(r.I[0] - ROMB_LOGIN));
  /* the smooth ones converge at every tolerance */
  for (i = 0; i < NCASES; ++i) {
    int smooth = *cases[i].f != romb_jump && *cases[i].f != romb_kink &&
                 *cases[i].f != romb_sqrt && *cases[i].f != romb_login,
        nconv = 0;
    if (!smooth) continue;
    for (e = 0; e < 4; ++e) {
      romb(*cases[i].f, 1, NULL, 1, eps[e], 0, 0, 1 << 22, &r);
      nconv += r.fail == 0;
    }
    ok(nconv == 4, "%s converges at 1e-3 .. 1e-12 within 2^22", cases[i].name);
  }
  romb(romb_cubic, 1, NULL, 1, 1e-14, 0, 0, 100000, &r);
  ok(r.fail == 0 && r.I[0] == 2 && r.neval == 129,
     "cubic: exactly 2 (%.17g), %lld evaluations, fail %d", r.I[0],
     r.neval, r.fail);
  romb(romb_poly9, 1, NULL, 1, 1e-14, 0, 0, 100000, &r);
  ok(r.fail == 0 && fabs(r.I[0] - 2) <= 4e-16 && r.neval == 129,
     "10 x^9 + 1: %.17g at the first level accepted (%lld evaluations)",
     r.I[0], r.neval);
  romb(romb_per, 1, NULL, 1, 1e-14, 0, 0, 100000, &r);
  ok(r.fail == 0 && relerr(r.I[0], ROMB_PER) <= 1e-14 && r.neval <= 2049,
     "e^sin 2 pi x at 1e-14: %.17g, true %.2g, %lld evaluations", r.I[0],
     relerr(r.I[0], ROMB_PER), r.neval);
  romb(romb_zero, 1, NULL, 1, 1e-6, 0, 0, 100000, &r);
  ok(r.fail == 0 && r.I[0] == 0 && r.neval == 1025,
     "f = 0: 0 accepted only at level 10 (%lld evaluations, fail %d)",
     r.neval, r.fail);
  romb(romb_i1, 1, NULL, 1, 1e-17, 0, 0, 1000000000, &r);
  ok(r.fail == GCUBA_FAIL_ROUNDOFF && r.neval < 100000 && r.E[0] > 0 &&
         relerr(r.I[0], ROMB_I1) <= 1e-15,
     "epsrel 1e-17, below the rounding floor: fail %d after %lld "
     "evaluations, +- %.2g, true %.2g",
     r.fail, r.neval, r.E[0], relerr(r.I[0], ROMB_I1));
  ok(r.P[0] == 0, "prob = 0");
}

static void vector_user(void)
{
  result r;
  romb_param p = {3.0};
  romb(romb_vec, 3, NULL, 1, 1e-12, 0, 0, 1 << 22, &r);
  ok(r.fail == 0 && relerr(r.I[0], ROMB_I1) <= 1e-12 &&
         relerr(r.I[1], 2.0) <= 1e-12 && relerr(r.I[2], ROMB_COS100) <= 1e-12,
     "ncomp 3 at 1e-12: %.15g %.15g %.15g, fail %d, %lld evaluations",
     r.I[0], r.I[1], r.I[2], r.fail, r.neval);
#ifdef ROMB_GPU
  gcuba_userdata_size(sizeof p);
#endif
  romb(romb_user, 1, &p, 1, 1e-12, 0, 0, 100000, &r);
#ifdef ROMB_GPU
  gcuba_userdata_size(0);
#endif
  ok(r.fail == 0 && relerr(r.I[0], 1.0) <= 1e-12,
     "userdata: a x^2 with a = 3: %.17g, fail %d", r.I[0], r.fail);
}

static void errors(void)
{
  result r;
  int fail = 7, neval = 7;
  double I[1], E[1], P[1];
  romb(romb_abort, 1, NULL, 1, 1e-10, 0, 0, 100000, &r);
  ok(r.fail == -99 && r.neval == 5, "-999 at level 3: fail %d after %lld "
     "evaluations", r.fail, r.neval);
  romb(romb_nan, 1, NULL, 1, 1e-10, 0, 0, 100000, &r);
  ok(r.fail == GCUBA_FAIL_NAN && r.neval == 3 && r.I[0] == 1,
     "NaN at level 2: fail %d, the last level's estimate %g", r.fail,
     r.I[0]);
  romb(romb_endsing, 1, NULL, 1, 1e-10, 0, 0, 100000, &r);
  ok(r.fail == GCUBA_FAIL_NAN && r.neval == 0,
     "1/sqrt x: Inf at the endpoint 0: fail %d", r.fail);
  romb(romb_i1, 0, NULL, 1, 1e-3, 0, 0, 1000, &r);
  ok(r.fail == GCUBA_FAIL_NCOMP, "ncomp 0: fail %d", r.fail);
  romb(romb_i1, GCUBA_MAXCOMP + 1, NULL, 1, 1e-3, 0, 0, 1000, &r);
  ok(r.fail == GCUBA_FAIL_NCOMP, "ncomp %d: fail %d", GCUBA_MAXCOMP + 1,
     r.fail);
  romb(NULL, 1, NULL, 1, 1e-3, 0, 0, 1000, &r);
  ok(r.fail == GCUBA_FAIL_NULL, "NULL integrand: fail %d", r.fail);
  llgRomberg(1, romb_i1, NULL, 1, 1e-3, 0, 0, 0, 1000, &r.neval, &r.fail,
             NULL, E, P);
  ok(r.fail == GCUBA_FAIL_NULL, "NULL integral: fail %d", r.fail);
  llgRomberg(1, romb_i1, NULL, 1, 1e-3, 0, 0, 0, 1000, NULL, &r.fail, I, E,
             P);
  ok(r.fail == GCUBA_FAIL_NULL, "NULL neval: fail %d", r.fail);
  llgRomberg(1, romb_i1, NULL, 1, 1e-3, 0, 0, 0, 1000, &r.neval, NULL, I, E,
             P);
  ok(1, "NULL fail: returns");
  romb(romb_i1, 1, NULL, 1, -1e-3, 0, 0, 1000, &r);
  ok(r.fail == GCUBA_FAIL_TOLERANCE, "epsrel < 0: fail %d", r.fail);
  romb(romb_i1, 1, NULL, 1, 1e-3, NAN, 0, 1000, &r);
  ok(r.fail == GCUBA_FAIL_TOLERANCE, "epsabs NaN: fail %d", r.fail);
  romb(romb_i1, 1, NULL, 0, 1e-3, 0, 0, 1000, &r);
  ok(r.fail == GCUBA_FAIL_EVALS, "nvec 0: fail %d", r.fail);
  romb(romb_i1, 1, NULL, 1, 1e-3, 0, 2000, 1000, &r);
  ok(r.fail == GCUBA_FAIL_EVALS, "mineval > maxeval: fail %d", r.fail);
  romb(romb_i1, 1, NULL, 1, 1e-3, 0, 0, 2, &r);
  ok(r.fail == GCUBA_FAIL_EVALS && r.neval == 0,
     "maxeval 2 (< 3): fail %d", r.fail);
  setenv("GCUBA_DEVICE", "nowhere", 1);
  romb(romb_i1, 1, NULL, 1, 1e-3, 0, 0, 1000, &r);
  ok(r.fail == GCUBA_FAIL_ENV, "GCUBA_DEVICE=nowhere: fail %d", r.fail);
  battery_backend();
#ifndef ROMB_GPU
  setenv("GCUBA_DEVICE", "gpu", 1);
  romb(romb_i1, 1, NULL, 1, 1e-3, 0, 0, 1000, &r);
  ok(r.fail == GCUBA_FAIL_NODEVICE,
     "GCUBA_DEVICE=gpu, integrand compiled by cc: fail %d", r.fail);
  battery_backend();
#endif
  gRomberg(1, romb_i1, NULL, 1, 1e-10, 0, 0, 0, 100000, &neval, &fail, I, E,
           P);
  romb(romb_i1, 1, NULL, 1, 1e-10, 0, 0, 100000, &r);
  ok(fail == r.fail && neval == r.neval && I[0] == r.I[0] && E[0] == r.E[0],
     "gRomberg = llgRomberg (%d evaluations)", neval);
}

static void budget(void)
{
  result r;
  romb(romb_jump, 1, NULL, 1, 1e-12, 0, 0, 1000, &r);
  ok(r.fail == 1 && r.neval == 513 && r.E[0] > 0,
     "jump at 1e-12, maxeval 1000: fail %d, %lld evaluations (level 9 "
     "would need 1024 more), +- %.2g", r.fail, r.neval, r.E[0]);
  romb(romb_jump, 1, NULL, 1, 1e-12, 0, 0, 65537, &r);
  ok(r.fail == 1 && r.neval == 65537, "maxeval 65537 is spent exactly: "
     "%lld evaluations", r.neval);
  romb(romb_cubic, 1, NULL, 1, 1e-6, 0, 1000, 100000, &r);
  ok(r.fail == 0 && r.neval == 1025, "mineval 1000: %lld evaluations",
     r.neval);
}

static void determinism(void)
{
  result a, b, c, d;
  int n, ok1 = 1, ok2 = 1;
  const int cores[] = {1, 2, 3, 4};
  romb(romb_jump, 1, NULL, 1, 1e-9, 0, 0, 1 << 21, &a);
  romb(romb_i2, 1, NULL, 1, 1e-13, 0, 0, 1 << 21, &c);
  for (n = 0; n < 4; ++n) {
    gcubacores(&cores[n], NULL);
    romb(romb_jump, 1, NULL, 1, 1e-9, 0, 0, 1 << 21, &b);
    ok1 &= same(&a, &b, 1);
    romb(romb_i2, 1, NULL, 1, 1e-13, 0, 0, 1 << 21, &d);
    ok2 &= same(&c, &d, 1);
  }
  {
    const int none = -1;
    gcubacores(&none, NULL);
  }
  ok(ok1 && ok2, "the same bits for 1, 2, 3 and 4 threads and run after "
     "run (jump to 2^21 evaluations, I2)");
  /* the tree does not depend on the block: ncomp 3 has blocks of a
     quarter of ncomp 1's; component 1 of romb_vec is romb_i1 */
  romb(romb_i1, 1, NULL, 1, 1e-3, 0, 1 << 20, 1 << 21, &a);
  romb(romb_vec, 3, NULL, 1, 1e-3, 0, 1 << 20, 1 << 21, &b);
  ok(a.neval == b.neval && a.I[0] == b.I[0] && a.E[0] == b.E[0],
     "ncomp 1 and 3 (other block sizes): component 1 the same bits "
     "(%lld evaluations)", a.neval);
#ifndef ROMB_GPU
  {
    const long long nv[] = {1, 7, 64, 100000};
    int i, allsame = 1;
    romb(gcuba_host_integrand(pt_fn, 0), 1, NULL, 1, 1e-13, 0, 0, 1 << 20,
         &a);
    for (i = 0; i < 4; ++i) {
      maxnv = 0;
      romb(gcuba_host_integrand((gcuba_host_fn)vec_fn, 1), 1, NULL, nv[i], 1e-13, 0, 0,
           1 << 20, &b);
      allsame &= same(&a, &b, 1) && maxnv <= nv[i];
    }
    ok(allsame, "point form and nvec form with nvec 1, 7, 64, 100000: the "
       "same bits, batches within nvec");
  }
#endif
}

#ifdef ROMB_GPU
/* the CPU and GPU backends: the same bits where the integrand's values
   are the same bits (the cubic, the jump: exact values), the same numbers
   to rounding otherwise */
static void cpu_gpu(void)
{
  result a, b;
  setenv("GCUBA_DEVICE", "cpu", 1);
  romb(romb_jump, 1, NULL, 1, 1e-12, 0, 0, (1LL << 25) + 1, &a);
  battery_backend();
  romb(romb_jump, 1, NULL, 1, 1e-12, 0, 0, (1LL << 25) + 1, &b);
  ok(same(&a, &b, 1) && a.neval == (1LL << 25) + 1,
     "jump to level 25 (blocks of 2^22 on the GPU): CPU and GPU the same "
     "bits, %.17g", b.I[0]);
  setenv("GCUBA_DEVICE", "cpu", 1);
  romb(romb_vec, 3, NULL, 1, 1e-3, 0, 1 << 16, 1 << 17, &a);
  battery_backend();
  romb(romb_vec, 3, NULL, 1, 1e-3, 0, 1 << 16, 1 << 17, &b);
  ok(a.neval == b.neval && a.I[1] == b.I[1] && a.E[1] == b.E[1] &&
         relerr(b.I[0], a.I[0]) <= 1e-14 && fabs(b.I[2] - a.I[2]) <= 1e-15,
     "ncomp 3: the cubic the same bits, e^cos x and cos 100 x to rounding");
  romb(romb_jump, 1, NULL, 1, 1e-12, 0, 0, (1LL << 25) + 1, &a);
  romb(romb_jump, 1, NULL, 1, 1e-12, 0, 0, (1LL << 25) + 1, &b);
  ok(same(&a, &b, 1), "GPU: the same bits run after run");
}
#endif

int main(void)
{
#ifdef ROMB_GPU
  gpu_required_or_skip();
#endif
  battery_backend();
  accuracy();
  vector_user();
  errors();
  budget();
  determinism();
#ifdef ROMB_GPU
  cpu_gpu();
#endif
  return battery_done();
}
