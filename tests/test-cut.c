/* tests/test-cut.c -- where gCuhre cuts a region (include/gcuba/detail/cut.h),
   on functions of the line's fraction t in [0, 1]: jumps and kinks at
   points off any dyadic grid are found to within 1e-9 (jumps) and 1e-5
   (kinks), a jump beside a steep slope too; smooth functions, steep
   exponentials, narrow peaks, a log singularity and a jump before the
   first point of the scan are cut in the middle; no search takes more
   than GCUBA_CUT_MAXEVALS evaluations or more rounds than it may.
   This file is part of gcuba. */
#include <math.h>
#include <stdio.h>
#include "tap.h"
#include "gcuba/detail/cut.h"

enum { JUMP, JUMPSLOPE, KINK, EXPKINK, SMOOTH, STEEP, PEAK, CONST, LORENTZ,
       LOG };
static const char *const names[] = {"jump",   "jump beside a slope", "kink",
                                    "exp(-2 |t - u|)", "cosine", "exp(40 t)",
                                    "Gaussian peak", "constant",
                                    "Lorentzian (w 0.02)"};

static double fn(int kind, double u, double t)
{
  switch (kind) {
  case JUMP: return t < u ? 1 + t : 0.3 - t;
  case JUMPSLOPE: return t < u ? exp(7 * (0.5 + 0.5 * t)) : 0; /* f6's */
  case KINK: return fabs(t - u) + 0.1 * t * t;
  case EXPKINK: return exp(-2 * fabs(t - u));
  case SMOOTH: return cos(3 * t + u);
  case STEEP: return exp(40 * t);
  case PEAK: return exp(-((t - u) / 0.05) * ((t - u) / 0.05));
  case CONST: return 2.5;
  case LORENTZ: return 0.02 / ((t - u) * (t - u) + 0.0004);
  default: return log(fabs(t - u));
  }
}

/* the cut for kind at u; *nev evaluations in *nround rounds */
static double search(int kind, double u, int *nev, int *nround)
{
  gcuba_cut s;
  double x[GCUBA_CUT_MAXPTS], g[GCUBA_CUT_MAXPTS];
  int n, k;
  gcuba_cut_init(&s);
  *nev = *nround = 0;
  while ((n = gcuba_cut_points(&s, x)) > 0 && *nround < 1000) {
    for (k = 0; k < n; ++k) g[k] = fn(kind, u, x[k]);
    gcuba_cut_take(&s, g);
    *nev += n;
    ++*nround;
  }
  return s.cut;
}

int main(void)
{
  static const double us[] = {0.2724, 0.123456, 0.7071, 1.0 / 3, 0.91};
  const int nu = (int)(sizeof us / sizeof *us);
  int kind, i, nev, nr, maxev = 0, maxr = 0;
  for (kind = JUMP; kind <= LORENTZ; ++kind) {
    int good = 0;
    double worst = 0, c = 0;
    for (i = 0; i < nu; ++i) {
      double u = us[i], want, tol;
      c = search(kind, u, &nev, &nr);
      if (nev > maxev) maxev = nev;
      if (nr > maxr) maxr = nr;
      want = kind <= EXPKINK ? u : 0.5;
      tol = kind <= JUMPSLOPE ? 1e-9 : kind <= EXPKINK ? 1e-5 : 0;
      good += fabs(c - want) <= tol;
      if (fabs(c - want) > worst) worst = fabs(c - want);
    }
    ok(good == nu, "%s: cut %s in %d of %d (worst distance %.2g)",
       names[kind], kind <= EXPKINK ? "at the feature" : "in the middle",
       good, nu, worst);
  }
  ok(maxev <= GCUBA_CUT_MAXEVALS && maxr <= 2 + GCUBA_CUT_ZOOM +
         GCUBA_CUT_BISECT, "at most %d evaluations (%d) in %d rounds",
     GCUBA_CUT_MAXEVALS, maxev, maxr);
  {
    /* a jump before the first point of the scan (1/50): the middle */
    double c = search(JUMP, 0.0002, &nev, &nr);
    ok(c == 0.5, "a jump at 0.0002: cut at %g (the middle)", c);
    /* log |t - u|: a singularity is not cut next to (rule points would
       come within rounding of it) */
    c = search(LOG, 0.2724, &nev, &nr);
    ok(c == 0.5, "log |t - 0.2724|: cut at %g (the middle)", c);
  }
  return done();
}
