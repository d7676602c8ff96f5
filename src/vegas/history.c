/* src/vegas/history.c -- the history of the gVegas driver's iterations
   and their combination: the window of iterations combined with weights
   by samples, its chi^2 and the rules that drop iterations from its
   front, the results, and when fail = 0 may be claimed (doc/vegas.md,
   "When gVegas says fail = 0").  This file is part of gcuba. */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "vegas/driver_int.h"
#include "common/chisq.h"

int gcuba_vegas_hist_reserve(vegas *v, long long n)
{
  long long cap = v->hcap ? v->hcap : 16;
  double *a, *b;
  long long *cl;
  if (n <= v->hcap) return 0;
  while (cap < n) cap *= 2;
  a = (double *)realloc(v->hI, sizeof(double) * cap * v->ncomp);
  if (!a) return -1;
  v->hI = a;
  b = (double *)realloc(v->hV, sizeof(double) * cap * v->ncomp);
  if (!b) return -1;
  v->hV = b;
  b = (double *)realloc(v->hX, sizeof(double) * cap * v->ncomp);
  if (!b) return -1;
  v->hX = b;
  cl = (long long *)realloc(v->hcalls, sizeof(long long) * cap);
  if (!cl) return -1;
  v->hcalls = cl;
  v->hcap = cap;
  return 0;
}

/* Cuba's tolerance for an estimate I: max(epsrel |I|, epsabs) (NaN for a
   NaN I) */
double gcuba_vegas_tolerance(const gcuba_call *c, double I)
{
  const double t = c->epsrel * fabs(I);
  return t < c->epsabs ? c->epsabs : t;
}

/* a scale for errors of I: the tolerance, else |I|, else 1 */
double gcuba_vegas_tolerance_scale(const gcuba_call *c, double I)
{
  const double t = gcuba_vegas_tolerance(c, I);
  return t > 0 ? t : fabs(I) > 0 ? fabs(I) : 1;
}

/* The combination of iterations [w0, k) for component comp: weights
   proportional to the samples (see doc/vegas.md: Cuba's inverse-variance
   weights are biased towards iterations whose variance came out low),
   error^2 = sum n_k^2 V_k / N^2, chi^2 = sum (I_k - I)^2 / V_k with k - w0 - 1
   degrees of freedom, prob its CDF.  With `last', integral and error are
   those of the latest iteration (chi^2 unchanged). */
void gcuba_vegas_hist_combine(const vegas *v, long long w0, int comp,
                              int last, double *I, double *E, double *chi2,
                              int *ndof, double *prob)
{
  long long j;
  double N = 0, S = 0, W = 0, x2 = 0, mean, err;
  int nd;
  for (j = w0; j < v->k; ++j) {
    const double n = (double)v->hcalls[j];
    N += n;
    S += n * v->hI[j * v->ncomp + comp];
    W += n * n * v->hV[j * v->ncomp + comp];
  }
  mean = N > 0 ? S / N : 0;
  err = N > 0 ? sqrt(W) / N : 0;
  for (j = w0; j < v->k; ++j) {
    const double n = (double)v->hcalls[j];
    double var = v->hV[j * v->ncomp + comp], dv;
    const double vmin = VARFLOOR / (n > 1 ? n - 1 : 1);
    if (!(var >= vmin)) var = var != var ? var : vmin;
    dv = v->hI[j * v->ncomp + comp] - mean;
    x2 += dv * dv / var;
  }
  nd = (int)(v->k - w0) - 1;
  if (last && v->k > w0) {
    mean = v->hI[(v->k - 1) * v->ncomp + comp];
    err = sqrt(v->hV[(v->k - 1) * v->ncomp + comp]);
  }
  if (I) *I = mean;
  if (E) *E = err;
  if (chi2) *chi2 = x2;
  if (ndof) *ndof = nd;
  if (prob) *prob = gcuba_chisq_prob(x2, nd);
}

/* Seed 0: the factor on the error of a window of Sobol iterations.  Their
   variances are those of independent samples, which overstate a
   quasi-random error (Genz's oscillatory family in 10D: chi^2/df 0.017
   over 22 iterations, true errors 5-10 times below the error).  The
   iterations, disjoint stretches of the sequence, show the true scale s^2
   of their variances in their chi^2 = sum (I_k - I)^2 / V_k: with the
   SOBOL_ALPHA quantile q of chi^2(ndof), chi^2 / q bounds s^2 from above
   at confidence 1 - SOBOL_ALPHA.  The error takes the square root of that
   bound when it is below 1, but never less than SOBOL_FLOOR of itself
   (a floor of 0.5 made false claims on the 10D oscillatory family).
   Pseudo-random seeds keep their variances. */
#define SOBOL_NDOF 2
#define SOBOL_ALPHA 0.05
#define SOBOL_FLOOR 0.7
#define SOBOL_NQ 128 /* quantiles kept, ndof < SOBOL_NQ */
static double sobol_quantile(int ndof)
{
  /* the bisection takes ~50 chi^2 CDFs, a step of a batch's driver most
     of its time: each quantile computed once per process (a race
     computes the same bits twice, harmlessly: atomic words) */
  static uint64_t q[SOBOL_NQ];
  uint64_t u;
  double x;
  if (ndof >= SOBOL_NQ) return gcuba_chisq_quantile(SOBOL_ALPHA, ndof);
  if ((u = __atomic_load_n(&q[ndof], __ATOMIC_RELAXED))) {
    memcpy(&x, &u, sizeof x);
    return x;
  }
  x = gcuba_chisq_quantile(SOBOL_ALPHA, ndof);
  memcpy(&u, &x, sizeof u);
  __atomic_store_n(&q[ndof], u, __ATOMIC_RELAXED);
  return x;
}

static double sobol_scale(double chi2, int ndof)
{
  const double b = chi2 / sobol_quantile(ndof);
  if (!(b < 1)) return 1; /* NaN too */
  return b > SOBOL_FLOOR * SOBOL_FLOOR ? sqrt(b) : SOBOL_FLOOR;
}

/* the largest chi^2 CDF over the components of window [w0, k) */
static double window_prob(const vegas *v, long long w0)
{
  double pmax = 0, p;
  int comp, ndof;
  for (comp = 0; comp < v->ncomp; ++comp) {
    gcuba_vegas_hist_combine(v, w0, comp, 0, NULL, NULL, NULL, &ndof, &p);
    if (ndof > 0 && !(p <= pmax)) pmax = p; /* NaN counts as inconsistent */
  }
  return pmax;
}

/* the largest error / tolerance over the components of window [w0, k) */
static double window_score(const vegas *v, long long w0)
{
  double worst = 0;
  int comp;
  for (comp = 0; comp < v->ncomp; ++comp) {
    double I, E, tol;
    gcuba_vegas_hist_combine(v, w0, comp, 0, &I, &E, NULL, NULL, NULL);
    tol = gcuba_vegas_tolerance_scale(v->c, I);
    if (!(E / tol <= worst)) worst = E / tol; /* NaN wins */
  }
  return worst;
}

/* Rule 3: drop iterations from the window's front while it is
   inconsistent.  Rule 3b: iterations sampled on grids that were refined
   since (every iteration before the grid froze) leave the front when that
   lowers the combined error relative to the tolerance: with weights by
   samples, a small iteration on a poor early grid can otherwise dominate
   the error of many later ones.  Iterations on the frozen grid are
   equivalent and never leave by 3b (no choosing among them by their
   noise), and the window keeps NMIN_WINDOW iterations. */
void gcuba_vegas_update_window(vegas *v)
{
  long long w0 = v->wstart, lim, j, best;
  double sbest, s;
  while (w0 < v->k - 1 && !(window_prob(v, w0) <= P_DROP)) ++w0;
  if (w0 != v->wstart)
    gcuba_log(v->c, 2, "iterations %lld..%lld left the combination: "
              "inconsistent with the later ones (chi^2)", v->wstart + 1, w0);
  v->wstart = w0;
  lim = v->k - NMIN_WINDOW;
  if (v->frozen && v->settled_at < lim) lim = v->settled_at;
  if (lim <= w0) return;
  best = w0;
  sbest = window_score(v, w0);
  for (j = w0 + 1; j <= lim; ++j)
    if ((s = window_score(v, j)) < sbest) {
      sbest = s;
      best = j;
    }
  if (best != w0) {
    gcuba_log(v->c, 2, "iterations %lld..%lld left the combination: "
              "sampled on earlier grids, they raised its error", w0 + 1,
              best);
    v->wstart = best;
  }
}

void gcuba_vegas_results(vegas *v)
{
  int comp, ndof;
  for (comp = 0; comp < v->ncomp; ++comp) {
    gcuba_vegas_hist_combine(v, v->wstart, comp, v->last, &v->res[comp],
                             &v->err[comp], &v->chi2[comp], &ndof,
                             &v->prob[comp]);
    if (v->sobol && !v->last && ndof >= SOBOL_NDOF)
      v->err[comp] *= sobol_scale(v->chi2[comp], ndof);
  }
}

/* Rule 5: the most that one sample moves the result of component comp:
   the largest |F - I_j| of the window's iterations over the window's
   samples (each sample's weight in the combination), or over the last
   iteration's with `last'.  A heavy tail (an integrable singularity that
   the map cannot flatten, a narrow peak found by a few samples) shows
   here long before the variance notices it: the variance of such
   samples is itself estimated from a handful of them. */
static double single(const vegas *v, int comp)
{
  long long j, j0 = v->last ? v->k - 1 : v->wstart;
  double N = 0, X = 0;
  for (j = j0; j < v->k; ++j) {
    const double x = v->hX[j * v->ncomp + comp];
    N += (double)v->hcalls[j];
    if (!(x <= X)) X = x; /* NaN wins */
  }
  return N > 0 ? X / N : 0;
}

/* Rule 4, short window: the run's last two iterations (the earlier one
   may be warm-up, or have left the window) agree for every component:
   chi^2 CDF of the two, combined by samples, at most P_CLAIM.  It lets a
   window of one or two iterations claim at loose tolerances where Cuba
   stops after two (6-D peaks at epsrel 5e-2, with rule 5's KAPPA: 2,500-
   3,000 evaluations instead of 4,800-7,300, tests/test-vegas-loose);
   the other rules still hold. */
static int pair_agrees(const vegas *v)
{
  int comp, nd;
  double p;
  if (v->k < 2) return 0;
  for (comp = 0; comp < v->ncomp; ++comp) {
    gcuba_vegas_hist_combine(v, v->k - 2, comp, 0, NULL, NULL, NULL, &nd,
                             &p);
    if (!(p <= P_CLAIM)) return 0;
  }
  return 1;
}

/* fail = 0 may be claimed: doc/vegas.md, "When gVegas says fail = 0" */
int gcuba_vegas_converged(vegas *v)
{
  const gcuba_call *c = v->c;
  long long nwin = v->k - v->wstart;
  int comp;
  for (comp = 0; comp < v->ncomp; ++comp) {
    if (!(v->err[comp] <= gcuba_vegas_tolerance(c, v->res[comp]))) return 0;
  }
  if (c->neval < c->mineval) return 0;
  if (v->warm < 0) {
    gcuba_log(c, 3, "tolerance met, but the grid is still warming up");
    return 0;
  }
  if (nwin < NMIN_WINDOW && !pair_agrees(v)) {
    gcuba_log(c, 3, "tolerance met, but only %lld iteration(s) in the "
              "combination (need %d, or 2 in the run that agree)", nwin,
              NMIN_WINDOW);
    return 0;
  }
  for (comp = 0; comp < v->ncomp; ++comp) {
    const double tol = gcuba_vegas_tolerance(c, v->res[comp]),
                 shift = single(v, comp),
                 kappa = gcuba_vegas_edge_depth(v) < EDGE_NARROW
                           ? KAPPA_EDGE : KAPPA;
    if (!(shift <= kappa * tol)) {
      gcuba_log(c, 2, "tolerance met, but one sample moves the estimate "
                "of component %d by %.3g (%.0f%% of the tolerance): the "
                "error rests on too few samples", comp + 1, shift,
                100 * shift / tol);
      return 0;
    }
  }
  if (!gcuba_vegas_edge_settled(v)) {
    gcuba_log(c, 2, "tolerance met, but the map still chases an edge (its "
              "narrowest edge bin is %.3g of a uniform one, %.3g times "
              "what it was %d refinements ago): an integrable singularity "
              "at the boundary is not resolved",
              gcuba_vegas_edge_depth(v), gcuba_vegas_chase(v), NCHASE);
    return 0;
  }
  if (!(window_prob(v, v->wstart) <= P_CLAIM)) {
    gcuba_log(c, 2, "tolerance met, but the iterations are not consistent "
              "(chi^2 probability %.4f > %.2f)", window_prob(v, v->wstart),
              P_CLAIM);
    return 0;
  }
  return 1;
}
