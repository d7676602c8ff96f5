/* src/common/chisq.c -- chi-square probabilities for gcuba (Cuba's `prob`,
   the chi-square CDF) through the regularised incomplete gamma function:
   power series below x = a + 1, Lentz continued fraction above, with the
   common factor x^a e^-x / Gamma(a+1) computed in a form that stays accurate
   for large a (Stirling remainder and a cancellation-free a ln(a/x) + x - a).
   Also the running combination of Vegas iterations, gcuba_vegas_combine_t.
   This file is part of gcuba. */
#define _DEFAULT_SOURCE /* lgamma_r */
#include "config.h"
#include <math.h>
#include <float.h>
#include "chisq.h"

#define MAXTERMS 1000000
#define LN_SQRT_2PI 0.91893853320467274178 /* ln sqrt(2 pi) */

/* ln Gamma(x), x > 0.  lgamma writes the global signgam: the CPU threads
   of gVegasBatch's pipeline, computing their integrals' probabilities at
   once, fought over its cache line (16 threads: 4 times the time of the
   calls on one); lgamma_r gives the same value without it */
static double lngamma(double x)
{
#ifdef HAVE_LGAMMA_R
  int sign;
  return lgamma_r(x, &sign);
#else
  return lgamma(x);
#endif
}

/* ln Gamma(a+1) - [(a + 1/2) ln a - a + ln sqrt(2 pi)] */
static double stirlerr(double a)
{
  if (a >= 10) {
    double r = 1 / a, r2 = r * r;
    return r * (1.0 / 12 - r2 * (1.0 / 360 - r2 * (1.0 / 1260 - r2 *
           (1.0 / 1680 - r2 * (1.0 / 1188 - r2 * (691.0 / 360360 -
            r2 / 156))))));
  }
  return lngamma(a + 1) - (a + 0.5) * log(a) + a - LN_SQRT_2PI;
}

/* a ln(a/x) + x - a >= 0, without cancellation for x near a */
static double bd0(double a, double x)
{
  double diff = a - x, sum = a + x;
  if (fabs(diff) < 0.1 * sum) {
    double v = diff / sum, v2 = v * v, s = diff * v, term = 2 * a * v, s1;
    int j;
    for (j = 1; j < 1000; ++j) {
      term *= v2;
      s1 = s + term / (2 * j + 1);
      if (s1 == s) break;
      s = s1;
    }
    return s;
  }
  return a * log(a / x) + x - a;
}

/* ln(x^a e^-x / Gamma(a+1)), x > 0 */
static double lfactor(double a, double x)
{
  if (a < 10) return a * log(x) - x - lngamma(a + 1);
  return -bd0(a, x) - stirlerr(a) - LN_SQRT_2PI - 0.5 * log(a);
}

/* P(a, x) by its series, for x < a + 1:
   x^a e^-x / Gamma(a+1) * sum_n x^n / ((a+1)...(a+n)) */
static double pseries(double a, double x)
{
  double sum = 1, term = 1;
  int n;
  for (n = 1; n < MAXTERMS; ++n) {
    term *= x / (a + n);
    sum += term;
    if (term < sum * (0.5 * DBL_EPSILON)) break;
  }
  return exp(lfactor(a, x)) * sum;
}

/* Q(a, x) by its continued fraction, for x >= a + 1:
   x^a e^-x / Gamma(a) * 1/(x+1-a - 1(1-a)/(x+3-a - 2(2-a)/(x+5-a - ...))),
   evaluated with the modified Lentz method */
static double qfrac(double a, double x)
{
  const double tiny = 1e-300;
  double b = x + 1 - a, c = 1 / tiny, dd = 1 / b, h = dd;
  int i;
  for (i = 1; i < MAXTERMS; ++i) {
    double an = -i * (i - a), del;
    b += 2;
    dd = an * dd + b;
    if (fabs(dd) < tiny) dd = tiny;
    c = b + an / c;
    if (fabs(c) < tiny) c = tiny;
    dd = 1 / dd;
    del = dd * c;
    h *= del;
    if (fabs(del - 1) < DBL_EPSILON) break;
  }
  return exp(lfactor(a, x)) * a * h;
}

double gcuba_chisq_gammp(double a, double x)
{
  double p;
  if (!(a > 0) || !(x >= 0)) return NAN;
  if (x == 0) return 0;
  if (x > DBL_MAX) return 1;
  p = x < a + 1 ? pseries(a, x) : 1 - qfrac(a, x);
  return p < 0 ? 0 : p > 1 ? 1 : p;
}

double gcuba_chisq_gammq(double a, double x)
{
  double q;
  if (!(a > 0) || !(x >= 0)) return NAN;
  if (x == 0) return 1;
  if (x > DBL_MAX) return 0;
  q = x < a + 1 ? 1 - pseries(a, x) : qfrac(a, x);
  return q < 0 ? 0 : q > 1 ? 1 : q;
}

double gcuba_chisq_prob(double chi2, int ndof)
{
  if (ndof <= 0) return GCUBA_CHISQ_NODOF;
  if (chi2 != chi2) return chi2;
  if (chi2 <= 0) return 0;
  return gcuba_chisq_gammp(0.5 * ndof, 0.5 * chi2);
}

double gcuba_chisq_q(double chi2, int ndof)
{
  if (ndof <= 0) return GCUBA_CHISQ_NODOF;
  if (chi2 != chi2) return chi2;
  if (chi2 <= 0) return 1;
  return gcuba_chisq_gammq(0.5 * ndof, 0.5 * chi2);
}

double gcuba_chisq_quantile(double p, int ndof)
{
  double lo = 0, hi = ndof + 20 * sqrt(2.0 * ndof) + 40;
  int i;
  if (ndof <= 0 || !(p > 0 && p < 1)) return p == 0 && ndof > 0 ? 0 : NAN;
  for (i = 0; i < 200 && hi - lo > 1e-15 * hi; ++i) {
    const double mid = 0.5 * (lo + hi);
    if (gcuba_chisq_prob(mid, ndof) < p)
      lo = mid;
    else
      hi = mid;
  }
  return 0.5 * (lo + hi);
}

/* ------------------------------------------------------------------------ */


void gcuba_vegas_combine_init(gcuba_vegas_combine_t *c)
{
  c->n = 0;
  c->wsum = c->wisum = c->ref = c->csum = c->cisum = 0;
  c->last = c->lastw = 0;
}

void gcuba_vegas_combine_result(const gcuba_vegas_combine_t *c, int last,
                                double *integral, double *error,
                                double *chi2, int *ndof, double *prob)
{
  double sig2 = 0, avg = 0, x2 = 0;
  int nd = (int)c->n - 1;
  if (c->n > 0) {
    sig2 = 1 / c->wsum;
    avg = sig2 * c->wisum;
    x2 = c->cisum - avg * c->csum;
  }
  if (integral) *integral = (last && c->n > 0) ? c->last : avg;
  if (error) *error = sqrt((last && c->n > 0) ? 1 / c->lastw : sig2);
  if (chi2) *chi2 = x2;
  if (ndof) *ndof = nd;
  if (prob) *prob = gcuba_chisq_prob(x2, nd);
}
