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
   before.  This file is part of gcuba. */
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
  return done();
}
