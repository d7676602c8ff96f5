/* tests/test-cuhre-args.c -- every Cuhre argument does what Cuba
   documents: ncomp > 1, nvec batches of a host function, mineval,
   maxeval (neval exact, within maxeval plus one bisection), keys,
   flags bits (LAST, GCUBA_NORELFINISH on a sign-changing integrand;
   verbosity 3 lists the regions), llgCuhre = gCuhre, thread-count
   independence, backend selection.  This file is part of gcuba. */
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "tap.h"
#include "suite.h"
#include "gpu.h"
#include "capture.h"

static int maxbatch, ncalls;

/* the f4 Gaussian as a Cuba host function with nvec batches */
static int gauss_nvec(const int *ndim, const double x[], const int *ncomp,
                      double f[], void *userdata, const int *nvec,
                      const int *core)
{
  int i, d;
  (void)ncomp; (void)userdata; (void)core;
#ifdef _OPENMP
#pragma omp atomic
#endif
  ++ncalls;
  if (*nvec > maxbatch) maxbatch = *nvec; /* racy max is fine: >= check */
  for (i = 0; i < *nvec; ++i) {
    double s = 0;
    for (d = 0; d < *ndim; ++d) {
      double t = x[i * *ndim + d] - 0.5;
      s += t * t;
    }
    f[i] = exp(-625 * s);
  }
  return 0;
}

/* a wide Gaussian, exp(-|x - 1/2|^2 / 0.09) */
static int gauss_wide(const int *ndim, const double x[], const int *ncomp,
                      double f[], void *userdata)
{
  double s = 0;
  int d;
  (void)ncomp; (void)userdata;
  for (d = 0; d < *ndim; ++d) s += (x[d] - 0.5) * (x[d] - 0.5);
  f[0] = exp(-s / 0.09);
  return 0;
}

/* changes sign: sin(6 pi x) sin(6 pi y) + x/2, integral 1/4 */
static int wave(const int *ndim, const double x[], const int *ncomp,
                double f[], void *userdata)
{
  (void)ndim; (void)ncomp; (void)userdata;
  f[0] = 10 * sin(6 * M_PI * x[0]) * sin(6 * M_PI * x[1]) + 0.5 * x[0];
  return 0;
}

typedef struct {
  int nregions, fail;
  long long neval;
  double integral[3], error[3], prob[3];
} result;

static void cuhre(result *r, int ndim, int ncomp, gintegrand_t f,
                  long long nvec, double epsrel, int flags, long long mineval,
                  long long maxeval, int key)
{
  llgCuhre(ndim, ncomp, f, NULL, nvec, epsrel, 1e-20, flags, mineval,
           maxeval, key, NULL, NULL, &r->nregions, &r->neval, &r->fail,
           r->integral, r->error, r->prob);
}

static int same(const result *a, const result *b, int ncomp)
{
  return a->fail == b->fail && a->neval == b->neval &&
         a->nregions == b->nregions &&
         !memcmp(a->integral, b->integral, sizeof(double) * ncomp) &&
         !memcmp(a->error, b->error, sizeof(double) * ncomp);
}

/* Verbosity 3 lists every region as it is evaluated (Cuba's layout).
   The regions of the listing that no later one splits (a child starts at
   its parent's lower corner and is narrower along one axis only) must be
   the call's nregions, tile the unit cube, and add up to its integral and
   error.  Returns the number of regions listed, -1 when the listing does
   not parse. */
#define LIST_MAX 20000
static double list_lo[LIST_MAX][3], list_w[LIST_MAX][3], list_avg[LIST_MAX],
    list_err[LIST_MAX];
static int list_parse(const char *buf, int ndim, int *nleaves, double *vol,
                      double *avg, double *err)
{
  const char *p = buf;
  int n = 0, i, j, d;
  *nleaves = 0;
  *vol = *avg = *err = 0;
  while ((p = strstr(p, "\nRegion (")) != NULL) {
    if (n == LIST_MAX) return -1;
    p += 7;
    for (d = 0; d < ndim; ++d) {
      double a, b;
      int k = 0;
      if (sscanf(p, " (%lf) - (%lf)%n", &a, &b, &k) != 2 || !k) return -1;
      list_lo[n][d] = a;
      list_w[n][d] = b - a;
      p += k;
    }
    if (sscanf(p, " [1] %lf +- %lf", &list_avg[n], &list_err[n]) != 2)
      return -1;
    ++n;
  }
  for (i = 0; i < n; ++i) {
    int split = 0;
    for (j = i + 1; j < n && !split; ++j) {
      int same = 0, narrower = 0;
      for (d = 0; d < ndim; ++d) {
        if (list_lo[j][d] != list_lo[i][d]) break;
        if (list_w[j][d] == list_w[i][d]) ++same;
        else if (list_w[j][d] < list_w[i][d]) ++narrower;
      }
      split = d == ndim && same == ndim - 1 && narrower == 1;
    }
    if (split) continue;
    ++*nleaves;
    *vol += list_w[i][0] * list_w[i][1] * list_w[i][2];
    *avg += list_avg[i];
    *err += list_err[i];
  }
  return n;
}

static void check_listing(void)
{
  static char buf[8 << 20];
  const char *file = "test-cuhre-args.regions";
  result a, b;
  double vol, avg, err;
  int n, nleaves, save = capture_begin(file);
  cuhre(&a, 3, 1, S(f3), 1, 1e-5, 3, 0, 100000000, 0);
  capture_end(save, file, buf, sizeof buf);
  n = list_parse(buf, 3, &nleaves, &vol, &avg, &err);
  ok(a.fail == 0 && n > 0 && strlen(buf) < sizeof buf - 1,
     "verbosity 3 lists the regions: %d listed (fail %d)", n, a.fail);
  ok(nleaves == a.nregions && fabs(vol - 1) <= 1e-12,
     "  ... the unsplit ones are the %d regions (%d) and tile the cube "
     "(volume %.15g)", a.nregions, nleaves, vol);
  /* the call's error also has a term for the rounding of its total,
     GCUBA_CUHRE_ROUND units (cuhre_policy.h) */
  ok(fabs(avg - a.integral[0]) <= 1e-13 * fabs(a.integral[0]) &&
         fabs(err - a.error[0]) <=
             1e-12 * a.error[0] + 4 * DBL_EPSILON * fabs(a.integral[0]),
     "  ... their integrals add up to %.15g (%.15g), their errors to %.6g "
     "(%.6g, %.2g less)", a.integral[0], avg, a.error[0], err,
     a.error[0] - err);
  save = capture_begin(file);
  cuhre(&b, 3, 1, S(f3), 1, 1e-5, 2, 0, 100000000, 0);
  capture_end(save, file, buf, sizeof buf);
  ok(!strstr(buf, "Region (") && same(&a, &b, 1),
     "verbosity 2 lists none, and the listing changes no result");
}

int main(void)
{
  double g = sqrt(M_PI) / 25 * erf(12.5), truth3[3];
  result a, b;
  int c, one = 1, two = 2, ok3 = 1, n32, f32, nr32;
  gintegrand_t hv = gcuba_host_integrand((gcuba_host_fn)gauss_nvec, 1);
  gintegrand_t hw = gcuba_host_integrand(wave, 0);
  battery_start();
  plan(0);

  /* ncomp = 3 */
  truth3[0] = g * g * g;
  truth3[1] = 1.0846560846560847e-02;
  truth3[2] = 2;
  cuhre(&a, 3, 3, S(f43c), 1, 1e-5, 0, 0, 100000000, 0);
  for (c = 0; c < 3; ++c)
    if (!(fabs(a.integral[c] - truth3[c]) <= 1e-5 * truth3[c] &&
          a.error[c] <= 1e-5 * fabs(a.integral[c])))
      ok3 = 0;
  ok(a.fail == 0 && ok3, "ncomp = 3: fail %d, %.10g %.10g %.10g, neval %lld",
     a.fail, a.integral[0], a.integral[1], a.integral[2], a.neval);

  /* nvec: batches of at most nvec points, same answer as one by one
     (host functions: CPU backend) */
  setenv("GCUBA_DEVICE", "auto", 1);
  ncalls = maxbatch = 0;
  cuhre(&a, 5, 1, hv, 100, 1e-4, 0, 0, 100000000, 0);
  ok(a.fail == 0 && maxbatch <= 100 && maxbatch > 1 &&
         ncalls >= a.neval / 100,
     "nvec = 100: %d calls for %lld points, largest batch %d", ncalls,
     a.neval, maxbatch);
  cuhre(&b, 5, 1, f4_c, 1, 1e-4, 0, 0, 100000000, 0);
  ok(same(&a, &b, 1), "nvec batches give the same result as points");
  ncalls = maxbatch = 0;
  cuhre(&a, 5, 1, hv, 1, 1e-3, 0, 0, 100000000, 0);
  ok(maxbatch == 1, "nvec = 1: one point per call");
  battery_backend();

  /* mineval */
  cuhre(&a, 3, 1, S(f3), 1, 1e-3, 0, 200000, 100000000, 0);
  ok(a.fail == 0 && a.neval >= 200000, "mineval 200000: neval %lld",
     a.neval);
  /* maxeval is a budget: stops with fail 1 when no further bisection
     (2 x 453 points in 6D) fits */
  cuhre(&a, 6, 1, S(f4), 1, 1e-7, 0, 0, 3000000, 0);
  ok(a.fail == 1 && a.neval <= 3000000 && a.neval > 3000000 - 2 * 453,
     "maxeval 3e6: fail %d, neval %lld", a.fail, a.neval);
  ok(fabs(a.integral[0] - 1.2700170928250806e-07) <= 3 * a.error[0],
     "  ... with the best estimate %.10g +- %.2e", a.integral[0],
     a.error[0]);

  check_listing();

  /* llgCuhre and gCuhre agree */
  cuhre(&a, 5, 1, S(f6), 1, 1e-4, 0, 0, 100000000, 0);
  gCuhre(5, 1, S(f6), NULL, 1, 1e-4, 1e-20, 0, 0, 100000000, 0, NULL, NULL,
         &nr32, &n32, &f32, b.integral, b.error, b.prob);
  ok(f32 == a.fail && n32 == a.neval && nr32 == a.nregions &&
         b.integral[0] == a.integral[0] && b.error[0] == a.error[0],
     "gCuhre and llgCuhre agree");

  /* flags: LAST changes nothing in gcuba; unknown keys mean key 0 */
  cuhre(&b, 5, 1, S(f6), 1, 1e-4, GCUBA_LAST, 0, 100000000, 0);
  ok(same(&a, &b, 1), "flags LAST: same result (gcuba always returns the "
     "final total)");
  cuhre(&b, 5, 1, S(f6), 1, 1e-4, 0, 0, 100000000, 5);
  ok(same(&a, &b, 1), "key 5 falls back to the default rule, as in Cuba");
  cuhre(&b, 5, 1, S(f6), 1, 1e-4, 0, 0, 100000000, 9);
  ok(same(&a, &b, 1), "key 9 is the default rule in 5D");

  /* sign changes: with and without relative-error finishing */
  setenv("GCUBA_DEVICE", "auto", 1);
  cuhre(&a, 2, 1, hw, 1, 1e-6, GCUBA_NORELFINISH, 0, 100000000, 0);
  ok(a.fail == 0 && fabs(a.integral[0] - 0.25) <= 1e-6 * 0.25,
     "sign-changing integrand, GCUBA_NORELFINISH: %.15g +- %.2e (fail %d)",
     a.integral[0], a.error[0], a.fail);
  cuhre(&a, 2, 1, hw, 1, 1e-6, 0, 0, 100000000, 0);
  ok(a.fail == 0 && fabs(a.integral[0] - 0.25) <= 1e-6 * 0.25,
     "sign-changing integrand, default flags: %.15g +- %.2e (fail %d)",
     a.integral[0], a.error[0], a.fail);
  /* a positive peak whose finished regions come to half the tolerance:
     the finishing threshold is lowered, not switched off (switched off,
     this took 2.6e9 evaluations) */
  cuhre(&a, 5, 1, S(f4), 1, 6.4e-8, 0, 0, 100000000000LL, 0);
  ok(a.fail == 0 && fabs(a.integral[0] - 1.791326036748786e-06) <=
                        6.4e-8 * 1.791326036748786e-06 &&
     a.neval < 1000000000,
     "f4 5D at 6.4e-8, relative-error finishing lowered: %.15g +- %.2e, "
     "%lld evaluations (fail %d)", a.integral[0], a.error[0], a.neval,
     a.fail);
  battery_backend();
  /* deeper: the finished errors take at most 3/4 of the tolerance and one
     iteration's finishing a quarter of what is left, so finishing goes on
     (with 1/2 and 1/2 it stopped early and this took 2.9e10 evaluations) */
  cuhre(&a, 5, 1, S(f4), 1, 2.56e-9, 0, 0, 100000000000LL, 0);
  ok(a.fail == 0 && fabs(a.integral[0] - 1.791326036748786e-06) <=
                        2.56e-9 * 1.791326036748786e-06 &&
     a.neval < 3000000000LL,
     "f4 5D at 2.56e-9, finishing kept on: %.15g +- %.2e, %lld evaluations "
     "(fail %d)", a.integral[0], a.error[0], a.neval, a.fail);
  battery_backend();
  /* finishing off: every region stays; the minimum batch counts only
     those that carry the error (with 5% of all regions it took 2.0e9;
     since the bridged error estimate 1.4e8 on the CPU, 5.4e8 on an H200,
     where it took 4.9e8 before) */
  cuhre(&a, 5, 1, S(f4), 1, 1e-7, GCUBA_NORELFINISH, 0, 100000000000LL, 0);
  ok(a.fail == 0 && fabs(a.integral[0] - 1.791326036748786e-06) <=
                        1e-7 * 1.791326036748786e-06 &&
     a.neval < 700000000,
     "f4 5D at 1e-7 without finishing: %.15g +- %.2e, %lld evaluations "
     "(fail %d)", a.integral[0], a.error[0], a.neval, a.fail);
  battery_backend();

  /* a smooth integrand whose regions' errors from the rule's asymptotic
     branch can be far too small while the children's sum agrees with
     the parent: with the children's rule errors capped at their parent's
     error (tried, withdrawn) regions were finished on errors 25x below
     their true ones, and 1e-8 was claimed with a true error of 5.8e-9 at
     1e-9, 6.0e-9 */
  {
    double w = pow(0.3 * sqrt(M_PI) * erf(0.5 / 0.3), 4);
    gintegrand_t hg = gcuba_host_integrand(gauss_wide, 0);
    double eps[2] = {1e-8, 1e-9};
    setenv("GCUBA_DEVICE", "auto", 1); /* a host function: CPU backend */
    for (c = 0; c < 2; ++c) {
      cuhre(&a, 4, 1, hg, 1, eps[c], 0, 0, 1000000000LL, 0);
      ok(a.fail == 0 && fabs(a.integral[0] - w) <= eps[c] * w,
         "4D Gaussian of width 0.3 at %g: true relative error %.2e "
         "(fail %d, %lld evaluations)", eps[c], fabs(a.integral[0] - w) / w,
         a.fail, a.neval);
    }
    battery_backend();
  }

  /* thread count: bit-identical results */
  gcubacores(&one, &one);
  cuhre(&a, 5, 1, S(f6), 1, 1e-5, 0, 0, 100000000, 0);
  gcubacores(&two, &one);
  cuhre(&b, 5, 1, S(f6), 1, 1e-5, 0, 0, 100000000, 0);
  ok(same(&a, &b, 1), "1 and 2 threads: identical results (%.17g)",
     a.integral[0]);

  /* backend selection */
  setenv("GCUBA_DEVICE", "gpu", 1);
  cuhre(&a, 3, 1, f3_c, 1, 1e-3, 0, 0, 1000000, 0);
  ok(a.fail == GCUBA_FAIL_NODEVICE || a.fail == GCUBA_FAIL_NOTAVAIL,
     "GCUBA_DEVICE=gpu with a host-only integrand: fail %d", a.fail);
  setenv("GCUBA_DEVICE", "tpu", 1);
  cuhre(&a, 3, 1, S(f3), 1, 1e-3, 0, 0, 1000000, 0);
  ok(a.fail == GCUBA_FAIL_ENV, "GCUBA_DEVICE=tpu: fail %d", a.fail);
  setenv("GCUBA_DEVICE", "cpu", 1);
  cuhre(&a, 3, 1, S(f3), 1, 1e-3, 0, 0, 1000000, 0);
  ok(a.fail == 0 && !strcmp(gcuba_last_backend(), "cpu"),
     "GCUBA_DEVICE=cpu runs on the CPU");
  battery_backend();
  cuhre(&a, 3, 1, S(f3), 1, 1e-3, 0, 0, 1000000, 0);
  ok(a.fail == 0 && !strcmp(gcuba_last_backend(), SUITE_BACKEND ? "gpu"
                                                                : "cpu"),
     "the battery's backend: %s", gcuba_last_backend());
  return battery_done();
}
