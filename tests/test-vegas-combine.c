/* tests/test-vegas-combine.c -- TAP tests of the statistics of gcuba's
   Vegas iterations: the chi-square probability (closed forms, quantiles,
   Cuba's convention) and the combination of iterations.  Split from
   test-vegas-core.c.  This file is part of gcuba. */
#include <math.h>
#include <string.h>
#include "tap.h"
#include "gcuba/detail/vegas.h"
#include "common/chisq.h"

#define PI 3.14159265358979323846

static double sq(double x) { return x * x; }

/* ------------------------------------------------------------ chisq */

static void test_chisq(void)
{
  static const double xs[] = { 1e-6, 0.01, 0.5, 1, 2, 3.7, 5, 10, 30, 80 };
  static const struct { double x; int k; double p; } tab[] = {
    { 3.8414588206941244691, 1, 0.95 },
    { 5.9914645471079802105, 2, 0.95 },
    { 11.07049769351635188, 5, 0.95 },
    { 18.307038053275144003, 10, 0.95 },
    { 23.209251158954357102, 10, 0.99 },
    { 3.9402991361190600947, 10, 0.05 },
    { 0.45493642311957275194, 1, 0.5 },
    { 0.11483180189911703915, 3, 0.01 },
    { 124.34211340400407469, 100, 0.95 },
    { 1074.6794488034409643, 1000, 0.95 },
    /* P values computed with mpmath at 40 digits */
    { 1000, 1000, 0.50594714617076035805 },
    { 1100, 1000, 0.98538559187370480595 },
    { 900, 1000, 0.010717238091289741557 },
    { 5200, 5000, 0.97618100197925934549 },
    { 10, 3, 0.9814338645369567667 },
    { 0.1, 7, 2.3114187985968838217e-6 },
    { 50, 25, 0.99786884808089682335 },
    { 200, 150, 0.99602681402917838867 },
    { 1e-5, 1, 0.0025231283168055979416 },
    { 100000, 100000, 0.50059470810479331139 },
    { 100500, 100000, 0.86814518839661622151 },
  };
  double dmax = 0, qmax = 0, x, p, prev;
  int i, good = 1;

  for (i = 0; i < (int)(sizeof xs / sizeof *xs); ++i) {
    x = xs[i];
    dmax = fmax(dmax, fabs(gcuba_chisq_prob(x, 2) - (1 - exp(-x / 2))));
    dmax = fmax(dmax, fabs(gcuba_chisq_prob(x, 1) - erf(sqrt(x / 2))));
    dmax = fmax(dmax, fabs(gcuba_chisq_prob(x, 3) - (erf(sqrt(x / 2)) -
                sqrt(2 * x / PI) * exp(-x / 2))));
    dmax = fmax(dmax, fabs(gcuba_chisq_prob(x, 4) -
                (1 - exp(-x / 2) * (1 + x / 2))));
    qmax = fmax(qmax, fabs(gcuba_chisq_q(x, 2) / exp(-x / 2) - 1));
  }
  ok(dmax < 1e-13, "ndof 1-4 closed forms (P = 1 - exp(-x/2) for 2): "
     "max dev %.1e", dmax);
  ok(qmax < 1e-12, "upper tail exp(-x/2) for ndof 2, relative %.1e", qmax);
  dmax = 0;
  for (i = 0; i < (int)(sizeof tab / sizeof *tab); ++i)
    dmax = fmax(dmax, fabs(gcuba_chisq_prob(tab[i].x, tab[i].k) - tab[i].p));
  ok(dmax < 1e-10, "tabulated quantiles and reference values: max dev %.1e",
     dmax);
  ok(fabs(gcuba_chisq_q(60, 10) / 3.6243009520614880262e-9 - 1) < 1e-10,
     "far tail Q(chi2 60, ndof 10) = 3.62e-9");

  /* the quantile inverts the CDF: -2 ln(1 - p) for 2 degrees of freedom,
     tabulated values for others, and the round trip */
  dmax = fabs(gcuba_chisq_quantile(0.05, 2) / (-2 * log(0.95)) - 1);
  for (i = 0; i < (int)(sizeof tab / sizeof *tab); ++i)
    dmax = fmax(dmax, fabs(gcuba_chisq_quantile(tab[i].p, tab[i].k) /
                               tab[i].x - 1));
  ok(dmax < 1e-10, "chi^2 quantiles of the table: max relative dev %.1e",
     dmax);
  good = 1;
  for (i = 1; i <= 60; ++i)
    for (p = 0.01; p < 1; p += 0.07) {
      const double x = gcuba_chisq_quantile(p, i);
      if (!(fabs(gcuba_chisq_prob(x, i) - p) < 1e-12)) good = 0;
    }
  ok(good && gcuba_chisq_quantile(0, 3) == 0 &&
         isnan(gcuba_chisq_quantile(1, 3)) &&
         isnan(gcuba_chisq_quantile(0.5, 0)),
     "quantile round trip for 1..60 degrees; p = 0 gives 0, p = 1 or no "
     "degree NaN");

  /* Cuba's convention: prob -> 1 for chi^2 >> ndof (inconsistent) */
  ok(gcuba_chisq_prob(100, 10) > 0.999 && gcuba_chisq_prob(1, 10) < 0.001,
     "prob near 1 means large chi^2");
  ok(gcuba_chisq_prob(3, 0) == -999 && gcuba_chisq_prob(3, -1) == -999 &&
     gcuba_chisq_prob(0, 5) == 0 && gcuba_chisq_prob(-1, 5) == 0 &&
     gcuba_chisq_prob(HUGE_VAL, 5) == 1 && gcuba_chisq_prob(1e9, 5) == 1,
     "edge cases: ndof 0 -> -999, chi2 <= 0 -> 0, huge -> 1");
  prev = -1;
  for (i = 0; i <= 400; ++i) {
    p = gcuba_chisq_prob(i * 0.1, 7);
    if (p < prev || p < 0 || p > 1) good = 0;
    prev = p;
  }
  ok(good, "prob non-decreasing in chi2, within [0,1]");
}

/* ---------------------------------------------------------- combine */

static void test_combine(void)
{
  gcuba_vegas_combine_t c;
  double I, E, X, P, v, s = 0, si = 0, m, x2;
  int nd, i, good = 1;

  gcuba_vegas_combine_init(&c);
  gcuba_vegas_combine_add(&c, 1.0, 0.01, 1000);
  gcuba_vegas_combine_result(&c, 0, &I, &E, &X, &nd, &P);
  ok(I == 1 && close_rel(E, 0.1, 1e-15) && X == 0 && nd == 0 && P == -999,
     "one iteration: I, its error, chi2 0, ndof 0, prob -999");
  gcuba_vegas_combine_add(&c, 1.2, 0.04, 1000);
  gcuba_vegas_combine_add(&c, 0.9, 0.01, 1000);
  /* w = 100, 25, 100: I = 220/225 = 44/45, error 1/15,
     chi2 = 100 (1/45)^2 + 25 (2/9)^2 + 100 (7/90)^2 = 17/9 */
  gcuba_vegas_combine_result(&c, 0, &I, &E, &X, &nd, &P);
  ok(close_rel(I, 44.0 / 45, 1e-14) && close_rel(E, 1.0 / 15, 1e-14),
     "weighted mean %.15f, error %.15f", I, E);
  ok(close_rel(X, 17.0 / 9, 1e-13) && nd == 2 &&
     close_rel(P, 1 - exp(-17.0 / 18), 1e-12),
     "chi2 %.15f on %d dof, prob %.12f", X, nd, P);
  gcuba_vegas_combine_result(&c, 1, &I, &E, &X, &nd, &P);
  ok(I == 0.9 && close_rel(E, 0.1, 1e-15) && close_rel(X, 17.0 / 9, 1e-13) &&
     nd == 2, "last-iteration flag: I and error of the last, chi2 as before");

  /* large common offset: shifted sums match a two-pass computation */
  gcuba_vegas_combine_init(&c);
  for (i = 0; i < 10; ++i) {
    double Ii = 1e8 + sin(3.0 * i), vi = 0.5 + 0.1 * i;
    gcuba_vegas_combine_add(&c, Ii, vi, 1e6);
    s += 1 / vi;
    si += Ii / vi;
  }
  m = si / s;
  x2 = 0;
  for (i = 0; i < 10; ++i)
    x2 += sq(1e8 + sin(3.0 * i) - m) / (0.5 + 0.1 * i);
  gcuba_vegas_combine_result(&c, 0, &I, &E, &X, &nd, &P);
  ok(close_rel(I, m, 1e-15) && close_rel(E, 1 / sqrt(s), 1e-14) &&
     close_rel(X, x2, 1e-6) && nd == 9,
     "offset 1e8: chi2 %.10f vs two-pass %.10f", X, x2);

  /* zero variance: Cuba's floor 2^-104/(calls-1), finite result */
  gcuba_vegas_combine_init(&c);
  gcuba_vegas_combine_add(&c, 2.0, 0.0, 1001);
  gcuba_vegas_combine_add(&c, 2.0, 0.0, 1001);
  gcuba_vegas_combine_result(&c, 0, &I, &E, &X, &nd, &P);
  v = ldexp(1.0, -104) / 1000;
  ok(I == 2 && close_rel(E, sqrt(v / 2), 1e-14) && X == 0 && P == 0,
     "zero variance floored as in Cuba: error %.3e", E);

  /* empty */
  gcuba_vegas_combine_init(&c);
  gcuba_vegas_combine_result(&c, 0, &I, &E, &X, &nd, &P);
  good = I == 0 && E == 0 && X == 0 && nd == -1 && P == -999;
  ok(good, "no iteration: zeros, ndof -1");
}

int main(void)
{
  plan(0);
  test_chisq();
  test_combine();
  return done();
}
