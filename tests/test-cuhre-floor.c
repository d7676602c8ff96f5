/* tests/test-cuhre-floor.c -- gCuhre near double precision (the workload
   of Cuba programs that ask for epsrel = epsabs = 1e-13 .. 1e-14 with the
   degree-13 rule): smooth 2-D products of damped oscillators, scaled so
   that the tolerance lies within a few hundred rounding units of the
   integral.  Every call ends with fail 0 and a true error (against the
   closed form in long double) within the tolerance, or with fail 2
   (GCUBA_FAIL_ROUNDOFF: the error estimate stopped falling at the
   rounding floor) and a true error within its error estimate, after at
   most 2e6 evaluations of the 1e8 allowed; the floor is reached by some.
   Below the floor's guard (a tolerance of 1e-6) a call converges as
   before.  And the second workload: 2-D and 4-D products
   exp(-(d+1) x_d) cos(w (d+1) x_d / 2) at epsrel = epsabs = 1e-12 with
   the degree-9 rule and maxeval 1e7 converge honestly, before maxeval
   (they ran to it before gcuba_rule_nullerr's deep regions and
   gcuba_twolevel's cap).  This file is part of gcuba. */
#include <math.h>
#include "tap.h"
#include "gcuba.h"

typedef struct {
  double s, w;
} par;

static int osc(const int *ndim, const double x[], const int *ncomp,
               double f[], void *userdata)
{
  const par *p = (const par *)userdata;
  (void)ndim;
  (void)ncomp;
  f[0] = p->s * exp(-x[0]) * cos(p->w * x[0]) * exp(-2 * x[1]) *
         cos(0.5 * p->w * x[1]);
  return 0;
}

static int prod(const int *ndim, const double x[], const int *ncomp,
                double f[], void *userdata)
{
  const double w = *(const double *)userdata;
  double v = 1;
  int d;
  (void)ncomp;
  for (d = 0; d < *ndim; ++d)
    v *= exp(-(d + 1) * x[d]) * cos(w * (d + 1) * 0.5 * x[d]);
  f[0] = v;
  return 0;
}

/* int_0^1 exp(-a x) cos(w x) dx */
static long double ix(long double a, long double w)
{
  return (a + expl(-a) * (w * sinl(w) - a * cosl(w))) / (a * a + w * w);
}

int main(void)
{
  static const double scale[3] = {1, 100, 10000}, eps[2] = {1e-13, 1e-14};
  int i, k, e, good = 1, nfloor = 0, nconv = 0, n = 0;
  long long maxn = 0;
  plan(0);
  for (i = 0; i < 3; ++i)
    for (k = 0; k < 5; ++k)
      for (e = 0; e < 2; ++e) {
        par p;
        long long neval;
        int nregions, fail;
        double I, E, P, tol, te;
        long double truth;
        p.s = scale[i];
        p.w = 1 + 3 * k;
        truth = p.s * ix(1, p.w) * ix(2, 0.5L * p.w);
        llgCuhre(2, 1, gcuba_host_integrand(osc, 0), &p, 1, eps[e], eps[e],
                 0, 0, 100000000, 13, NULL, NULL, &nregions, &neval, &fail,
                 &I, &E, &P);
        tol = fmax(eps[e], eps[e] * fabs(I));
        te = (double)fabsl((long double)I - truth);
        ++n;
        if (neval > maxn) maxn = neval;
        if (fail == GCUBA_OK && te <= tol) ++nconv;
        else if (fail == GCUBA_FAIL_ROUNDOFF && te <= E && neval <= 2000000)
          ++nfloor;
        else {
          good = 0;
          diag("scale %g w %g epsrel %g: fail %d, %.17g +- %.3g, true "
               "error %.3g, tolerance %.3g, neval %lld", p.s, p.w, eps[e],
               fail, I, E, te, tol, neval);
        }
      }
  ok(good, "%d calls at epsrel = epsabs = 1e-13, 1e-14 (key 13): %d fail 0 "
     "within the tolerance, %d fail 2 within their error; at most %lld "
     "evaluations of 1e8", n, nconv, nfloor, maxn);
  ok(nfloor > 0 && nconv > 0, "the rounding floor is reached by some calls "
     "(%d), not by others (%d)", nfloor, nconv);
  {
    par p = {100, 7};
    long long neval;
    int nregions, fail;
    double I, E, P;
    const long double truth = p.s * ix(1, p.w) * ix(2, 0.5L * p.w);
    llgCuhre(2, 1, gcuba_host_integrand(osc, 0), &p, 1, 1e-6, 0, 0, 0,
             100000000, 13, NULL, NULL, &nregions, &neval, &fail, &I, &E,
             &P);
    ok(fail == 0 && fabsl((long double)I - truth) <= 1e-6 * fabs(I),
       "at epsrel 1e-6 the same integrand converges: fail %d, neval %lld",
       fail, neval);
  }
  {
    static const int nd[2] = {2, 4};
    int j, ok12 = 1;
    long long tot = 0, most = 0;
    for (j = 0; j < 2; ++j)
      for (k = 0; k < (nd[j] == 2 ? 4 : 3); ++k) {
        double w = 1 + 2 * k, I, E, P, te;
        long double truth = 1;
        long long neval;
        int nregions, fail, d;
        for (d = 0; d < nd[j]; ++d)
          truth *= ix(d + 1, w * (d + 1) * 0.5L);
        llgCuhre(nd[j], 1, gcuba_host_integrand(prod, 0), &w, 1, 1e-12,
                 1e-12, 0, 0, 10000000, 9, NULL, NULL, &nregions, &neval,
                 &fail, &I, &E, &P);
        te = (double)fabsl((long double)I - truth);
        tot += neval;
        if (neval > most) most = neval;
        if (fail != GCUBA_OK || te > 1e-12 || te > E || neval >= 10000000) {
          ok12 = 0;
          diag("%dD w %g: fail %d, %.17g +- %.3g, true error %.3g, neval "
               "%lld", nd[j], w, fail, I, E, te, neval);
        }
      }
    ok(ok12, "2-D (w = 1, 3, 5, 7) and 4-D (w = 1, 3, 5) oscillatory "
       "products at epsrel = epsabs = 1e-12, key 9: fail 0 within the "
       "tolerance and the estimate, %lld evaluations in all, at most %lld "
       "of 1e7", tot, most);
  }
  return done();
}
