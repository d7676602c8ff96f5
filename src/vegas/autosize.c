/* src/vegas/autosize.c -- GCUBA_VEGASAUTO in the gVegas driver: on the
   frozen grid, the size of the iterations from the variance per sample
   and its measured fall with the samples, and the polish of the grid
   before the iterations grow.  This file is part of gcuba. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "vegas/driver_int.h"
#include "common/coll.h"

/* the variance of iteration j, the components weighted by
   1/tolerance^2 */
static double scaled_var(const vegas *v, long long j)
{
  double s = 0;
  int comp;
  for (comp = 0; comp < v->ncomp; ++comp) {
    const double tol = gcuba_vegas_tolerance_scale(v->c, v->res[comp]),
                 w = 1 / (tol * tol);
    s += w * v->hV[j * v->ncomp + comp];
  }
  return s;
}

/* the variance per sample of iteration j over that of j - 1
   (gcuba_vegas_polish(): j sampled the refined grid, j - 1 the grid
   before); NaN when undefined */
static double polish_ratio(const vegas *v, long long j)
{
  return scaled_var(v, j) * (double)v->hcalls[j] /
         (scaled_var(v, j - 1) * (double)v->hcalls[j - 1]);
}

/* GCUBA_VEGASAUTO: on a frozen grid, the samples per iteration for which
   NMIN_WINDOW iterations meet every component's tolerance, from the
   variance per sample of the latest iteration (as for plain Monte Carlo:
   stratification only makes the error fall faster), with 20% to spare.
   Sizes never decrease and never fall below Cuba's schedule.  When an
   iteration is to be more than twice the size of the latest, the window
   restarts with it: fail = 0 then rests on NMIN_WINDOW iterations of the
   new size, not on small ones that the chi^2 test could hardly check. */
#define AUTO_SPARE 1.2
#define AUTO_STRAT 0.5
static long long auto_need(const vegas *v, long long j)
{
  const gcuba_call *c = v->c;
  /* Sobol points: the variance of independent samples, n^-1; else the
     assumed exponent, or the one measured at the polish when the
     variance fell faster (at most stratification's 1 + 2/ndim) */
  const double e0 = 1 + AUTO_STRAT / v->ndim, emax = 1 + 2.0 / v->ndim;
  const double expo = v->sobol           ? 1
                      : !(v->expo > e0)  ? e0
                      : v->expo < emax   ? v->expo
                                         : emax;
  const double left = (double)(c->maxeval - c->neval);
  double need = 0;
  int comp;
  for (comp = 0; comp < v->ncomp; ++comp) {
    const double V = v->hV[j * v->ncomp + comp];
    const double tol = gcuba_vegas_tolerance(c, v->res[comp]);
    double m;
    if (!(tol > 0) || !(V >= 0)) continue;
    m = (double)v->hcalls[j] *
        pow(AUTO_SPARE * V / (tol * tol) / NMIN_WINDOW, 1 / expo);
    if (m > need) need = m;
  }
  return (long long)(need > left ? left : need);
}

void gcuba_vegas_autosize(vegas *v)
{
  const gcuba_call *c = v->c;
  long long j = v->k - 1;
  long long n;
  if (!v->frozen || j < 0 || j < v->settled_at) return;
  /* adaptive stratification: the first iteration on new cubes samples
     with an allocation learnt on others; the next tells the variance */
  if (v->beta > 0 && (v->cold & 2)) return;
  /* just after a polish that restored the grid before, the polishing
     iteration sampled the grid in use */
  if (v->frozen == POLISH_DONE && j == v->settled_at &&
      !(polish_ratio(v, j) <= 1))
    --j;
  n = auto_need(v, j);
  /* (adaptive stratification: the first iteration on new cubes may have
     asked for more than its successors need) */
  if (v->beta > 0 && n < v->nsamples && n >= c->nstart) {
    v->nsamples = n;
    return;
  }
  /* (and grows step by step: the variance per sample of finer cubes is
     known only once they have been sampled twice) */
  if (v->beta > 0 && (double)n > VP_GROW * (double)v->hcalls[j])
    n = (long long)(VP_GROW * (double)v->hcalls[j]);
  if (n <= v->nsamples) return;
  if (v->frozen == FROZEN && v->adapt_max < 0 && !(v->beta > 0) &&
      (double)v->hcalls[j] < POLISH_SPB * v->nb &&
      (double)n >= POLISH_GROW * POLISH_SPB * v->nb) {
    v->frozen = POLISHING;
    v->nsamples = (long long)(POLISH_SPB * v->nb);
    gcuba_log(c, 2, "iterations grow from %lld to %lld samples: one of %lld "
              "samples refines the grid first", v->hcalls[j], n,
              v->nsamples);
    return;
  }
  if (n > 2 * v->hcalls[j] && v->wstart < v->k) {
    gcuba_log(c, 2, "iterations grow from %lld to %lld samples "
              "(GCUBA_VEGASAUTO): the combination restarts", v->hcalls[j],
              n);
    v->wstart = v->k;
  }
  v->nsamples = n;
}

/* At the polish: the polishing iteration and the one before it sampled
   the same frozen grid, with sizes at least POLISH_EXPO apart, so their
   variances (scaled_var()) tell how the variance falls with the samples,
   n^-expo.  gcuba_vegas_autosize() assumes 1 + AUTO_STRAT/ndim, which is
   right for peaks and edges that the cubes never resolve (f4, f6:
   1.01-1.02 measured) but too slow for integrands that stratification
   keeps resolving (f7 8D, f8 8D, f3 8D: 1.21-1.22), whose iterations
   then came out up to three times too large (an error of 0.57 eps at
   3.2e-7). */
static void measure_expo(vegas *v)
{
  const long long j = v->k - 1;
  double a, b;
  if (j < 1 || j - 1 < v->settled_at ||
      (double)v->hcalls[j] < POLISH_EXPO * (double)v->hcalls[j - 1])
    return;
  a = scaled_var(v, j - 1);
  b = scaled_var(v, j);
  if (!(a > 0) || !(b > 0)) return;
  v->expo = log(a / b) / log((double)v->hcalls[j] / (double)v->hcalls[j - 1]);
  gcuba_log(v->c, 2, "the variance fell as n^-%.3f from %lld to %lld samples "
            "on the frozen grid", v->expo, v->hcalls[j - 1], v->hcalls[j]);
}

/* GCUBA_VEGASAUTO, once per call: the frozen grid was learnt from the
   small iterations of the adaptation (f3 3D from nstart 1e5: about 1000
   samples per bin), and its noise costs the large iterations that follow.
   So before they grow past POLISH_GROW times POLISH_SPB samples per bin,
   gcuba_vegas_autosize() has one iteration of POLISH_SPB samples per bin
   accumulate the bins again (POLISHING), from which the grid is refined
   as at the freeze (floored).  The next iteration, of about the same
   size, samples the refined grid (POLISHED) and accumulates the bins too;
   when its variance per sample (the components weighted by
   1/tolerance^2) is above the polishing iteration's, the grid before is
   restored (on f4 5D the refined grid sampled worse).  When it is
   POLISH_AGAIN of it or less and the iterations are still to grow past
   POLISH_GROW times its size, its bins refine the grid again, and the
   next iteration judges that refinement in turn: the stratified variance
   keeps falling over several refinements after the adaptation's gain
   says that the grid has settled (f3 3D at 6.4e-8: 0.50, 0.63, 0.78 and
   0.93 times the variance per sample of the grid before; half the
   samples in all).  Every iteration is combined as any other: every
   grid's estimate is unbiased.  0, or the fail code (set) */
int gcuba_vegas_polish(vegas *v)
{
  gcuba_call *c = v->c;
  const size_t ng = (size_t)v->ngrids * (v->nb + 1);
  if (gcuba_vegas_grid_here(v)) return c->fail;
  if (v->frozen == POLISHING) {
    /* (a call polishes once: gold is NULL here) */
    v->gold = (double *)malloc(sizeof(double) * ng);
    if (gcuba_coll_status(c, v->gold ? 0 : GCUBA_FAIL_NOMEM)) {
      if (c->fail == 0) gcuba_fail(c, GCUBA_FAIL_NOMEM, "grid copy");
      return c->fail;
    }
    memcpy(v->gold, v->grid, sizeof(double) * ng);
    measure_expo(v);
    gcuba_vegas_refine(v, 1);
    v->frozen = POLISHED;
    v->settled_at = v->k;
    gcuba_log(c, 2, "grid refined from %lld samples", v->hcalls[v->k - 1]);
  } else {
    const long long j = v->k - 1;
    const double r = polish_ratio(v, j);
    const int again = r <= POLISH_AGAIN &&
                      (double)auto_need(v, j) >=
                          POLISH_GROW * (double)v->hcalls[j];
    if (!(r <= 1)) {
      memcpy(v->grid, v->gold, sizeof(double) * ng);
      v->grid_changed = 1;
    }
    gcuba_log(c, 2, "the refined grid sampled with %.3g times the variance "
              "per sample: %s", r,
              r <= 1 ? "kept" : "the grid before is restored");
    if (again) {
      /* this iteration's bins, on the refined grid, refine it again */
      memcpy(v->gold, v->grid, sizeof(double) * ng);
      gcuba_vegas_refine(v, 1);
      v->settled_at = v->k;
      gcuba_log(c, 2, "grid refined again from %lld samples",
                v->hcalls[j]);
      return 0;
    }
    v->frozen = POLISH_DONE;
    free(v->gold);
    v->gold = NULL;
  }
  return 0;
}
