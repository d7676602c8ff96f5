/* src/cuhre/oned.c -- the gCuhre driver for one dimension (which Cuba's
   Cuhre refuses): the breadth-first iteration of iter.c over
   Gauss-Kronrod pairs (QUADPACK's rules and error, gcuba/detail/rule.h), with
   Wynn's epsilon algorithm over the iteration totals for endpoint
   singularities and a stop at the integrand's rounding floor.  QUADPACK
   keeps one routine per job; so does gcuba.  This file is part of
   gcuba. */
#include <float.h>
#include <math.h>
#include <string.h>
#include "cuhre/iter.h"

/* One dimension: convergence acceleration (QUADPACK's QAGS idea, done
   over the breadth-first iterations).  Near an integrable endpoint
   singularity (x^-0.9, log x) each iteration bisects the interval at the
   singular end, and the iteration totals converge geometrically (x^a:
   ratio 2^-(1+a)); Wynn's epsilon algorithm extrapolates such a sequence.
   The totals of the last WYNN_TERMS iterations form the table; its even
   columns are estimates, and the one whose two newest entries agree best
   is taken.  The extrapolation's error is the spread of the newest
   estimate and the three before it (as in QUADPACK's qelg), at least
   5 eps |result|.  It replaces the plain result only when that error
   meets the tolerance, is below the plain error, and the extrapolated
   value lies within the plain error bar of the total: an irregular
   sequence (an iteration that splits elsewhere) gives a wide spread and
   is not used. */
/* one dimension: a run whose error has not halved while its evaluations
   grew STALL-fold is at its rounding floor (cos(1000 x) at 1e-12, where
   the integral is 1e-3 of the integral of |f|) and splitting will not
   lower it: it stops there (gcuba_cuhre_roundoff) rather than at maxeval */
#define STALL 8

static double wynn(const double *s, int n)
{
  double a[WYNN_TERMS], b[WYNN_TERMS], c[WYNN_TERMS];
  double *prev = a, *cur = b, *next = c, *sw, best = s[n - 1];
  double bestd = HUGE_VAL;
  int j, k;
  for (k = 0; k < n; ++k) {
    prev[k] = 0;
    cur[k] = s[k];
  }
  for (j = 1; j < n; ++j) {
    const int len = n - j; /* entries of column j */
    for (k = 0; k < len; ++k) {
      double d = cur[k + 1] - cur[k];
      double m = fabs(cur[k]) > fabs(cur[k + 1]) ? fabs(cur[k]) : fabs(cur[k + 1]);
      if (!(fabs(d) > 4 * DBL_EPSILON * m)) {
        /* column j - 1 stands still here: if it holds estimates, they
           have converged to rounding; either way the columns beyond are
           rounding noise */
        if ((j - 1) % 2 == 0) return cur[len];
        return best;
      }
      next[k] = prev[k + 1] + 1 / d;
    }
    if (j % 2 == 0 && len >= 2) {
      double d = fabs(next[len - 1] - next[len - 2]);
      if (d < bestd) {
        bestd = d;
        best = next[len - 1];
      }
    }
    sw = prev;
    prev = cur;
    cur = next;
    next = sw;
  }
  return best;
}

/* Is the end of the sequence s[0..n-1] one that extrapolation can
   trust?  The last WYNN_REG differences d_k = s_k - s_{k-1} must be
   nonzero, of one sign and shrinking, with ratios d_k / d_{k-1} that
   change little from one to the next: a geometric sequence (x^a at an
   end: ratio 2^-(1+a)) or a slowly varying one (log x).  A jump or a
   kink inside an interval gives differences whose size and sign follow
   the binary digits of its position, and an iteration that splits only
   where the integrand is a polynomial leaves the total unchanged: neither
   is extrapolated. */
#define WYNN_REG 4
static int regular(const double *s, int n)
{
  double d[WYNN_REG + 1], rho[WYNN_REG];
  int k;
  if (n < WYNN_REG + 2) return 0;
  for (k = 0; k <= WYNN_REG; ++k) d[k] = s[n - 1 - k] - s[n - 2 - k];
  for (k = 0; k < WYNN_REG; ++k) {
    /* d[k] is newer than d[k + 1] */
    if (!(d[k] != 0) || !(d[k + 1] != 0)) return 0;
    rho[k] = d[k] / d[k + 1];
    if (!(rho[k] > 0 && rho[k] < 1)) return 0;
  }
  for (k = 0; k + 1 < WYNN_REG; ++k)
    if (fabs(rho[k] - rho[k + 1]) > 0.1 * (rho[k] + rho[k + 1])) return 0;
  return 1;
}

/* the iteration's totals into the sequence, and the extrapolations:
   xres, xerr, xok per component */
static void extrapolate(cuhre *t)
{
  const int nc = t->ncomp;
  int comp, k;
  if (t->nseq == WYNN_TERMS) {
    for (comp = 0; comp < nc; ++comp)
      memmove(t->seq + comp * WYNN_TERMS, t->seq + comp * WYNN_TERMS + 1,
              sizeof(double) * (WYNN_TERMS - 1));
    --t->nseq;
  }
  for (comp = 0; comp < nc; ++comp)
    t->seq[comp * WYNN_TERMS + t->nseq] = t->st.tot[comp];
  ++t->nseq;
  for (comp = 0; comp < nc; ++comp) {
    double *r = t->res + 3 * comp, x, e;
    t->xok[comp] = 0;
    t->xres[comp] = t->st.tot[comp];
    t->xerr[comp] = HUGE_VAL;
    if (t->nseq < 3) continue;
    x = wynn(t->seq + comp * WYNN_TERMS, t->nseq);
    if (t->nres == 3 && regular(t->seq + comp * WYNN_TERMS, t->nseq)) {
      e = fabs(x - r[0]) + fabs(x - r[1]) + fabs(x - r[2]);
      if (e < 5 * DBL_EPSILON * fabs(x)) e = 5 * DBL_EPSILON * fabs(x);
      t->xres[comp] = x;
      t->xerr[comp] = e;
      t->xok[comp] =
          e <= gcuba_budget(x, t->c->epsrel, t->c->epsabs) &&
          e < t->st.err[comp] && fabs(x - t->st.tot[comp]) <= t->st.err[comp];
    }
    for (k = 2; k > 0; --k) r[k] = r[k - 1];
    r[0] = x;
  }
  if (t->nseq >= 3 && t->nres < 3) ++t->nres;
}

void gcuba_cuhre1d_drive(gcuba_call *c, const gcuba_cuhre_ops *ops)
{
  cuhre t;
  int comp;
  if (gcuba_cuhre_open(&t, c, ops)) return;
  if (gcuba_cuhre_begin(&t))
    for (;;) {
      long long nleaves;
      double excess;
      int worst, o;
      /* two passing iterations in a row: a kink between the nodes can
         make one partition's estimate agree by chance (|x - 0.672039| at
         1e-9: an error 2.8e-10 reported, 5e-10 true; 2e-7 reported one
         iteration later) */
      int conv = gcuba_cuhre_evaluate(&t, 2, &excess, &worst, &nleaves);
      if (conv < 0) break;
      /* every component converged, plainly or extrapolated */
      extrapolate(&t);
      if (!conv) {
        conv = 1;
        for (comp = 0; comp < t.ncomp; ++comp)
          if (t.st.pconv[comp] < 2 && !t.xok[comp]) conv = 0;
      }
      if ((o = gcuba_cuhre_stop(&t.st, conv, nleaves, c->neval, c->mineval,
                                worst)) != GCUBA_CUHRE_GOON) {
        gcuba_cuhre_end(&t, o, worst);
        break;
      }
      if (gcuba_cuhre_floor_stop(&t, STALL, 0, 1) ||
          gcuba_cuhre_split(&t, excess, worst, nleaves))
        break;
    }
  gcuba_cuhre_results(&t);
  /* the extrapolation where it is the better answer */
  for (comp = 0; comp < t.ncomp && t.mem; ++comp)
    if (t.st.pconv[comp] < 2 && t.xerr[comp] < t.st.err[comp] &&
        fabs(t.xres[comp] - t.st.tot[comp]) <= t.st.err[comp]) {
      c->integral[comp] = t.xres[comp];
      c->error[comp] = t.xerr[comp];
    }
  gcuba_cuhre_close(&t);
}
