/* src/vegas/strat.c -- the stratification of a gVegas iteration: cubes
   with the same samples each (Sobol points: one per cube), or, with
   adaptive stratification (GCUBA_VEGASPLUS, GCUBA_VEGAS_BETA), units
   allocated to the cubes by their variances in the previous iteration
   (gcuba/detail/vegas.h), in host memory or by the backend's units op.  This
   file is part of gcuba. */
#include <math.h>
#include <stdlib.h>
#include "vegas/driver_int.h"

/* room for the units and variances of nr cubes: 0, or -1 */
int gcuba_vegas_units_reserve(vegas *v, long long nr)
{
  void *p;
  int bad = 0;
  if (nr <= v->nrcap) return 0;
  if ((p = realloc(v->R, sizeof(int64_t) * (nr + 1)))) v->R = (int64_t *)p;
  else bad = 1;
  if ((p = realloc(v->Rp, sizeof(int64_t) * (nr + 1)))) v->Rp = (int64_t *)p;
  else bad = 1;
  if ((p = realloc(v->cv, sizeof(double) * nr))) v->cv = (double *)p;
  else bad = 1;
  if ((p = realloc(v->cvp, sizeof(double) * nr))) v->cvp = (double *)p;
  else bad = 1;
  if ((p = realloc(v->ws, sizeof(double) * nr))) v->ws = (double *)p;
  else bad = 1;
  if (bad) return -1;
  v->nrcap = nr;
  return 0;
}

/* an iteration of ncall samples: stratified, or with Sobol points one
   sample per cube */
void gcuba_vegas_iter_strat(const vegas *v, long long ncall,
                            gcuba_vegas_strat_t *s)
{
  if (v->sobol)
    gcuba_vegas_strat_qmc(ncall, v->ndim, s);
  else
    gcuba_vegas_strat(ncall, v->ndim, 0, s);
}

/* the stratification of an iteration with nr cubes (nr determines g and r:
   (g+1)^r g^(ndim-r) grows with g, then r) */
static void strat_of(int ndim, long long nr, gcuba_vegas_strat_t *s)
{
  long long g = (long long)pow((double)nr, 1.0 / ndim) + 1;
  for (; g >= 1; --g) {
    long long n = gcuba_vegas_ipow(g, ndim, nr);
    int r;
    for (r = 0; r < ndim && n <= nr; ++r) {
      if (n == nr) {
        s->ndim = ndim;
        s->g = (int)g;
        s->r = r;
        s->ncubes = nr;
        s->inv[0] = 1.0 / (double)(g + 1);
        s->inv[1] = 1.0 / (double)g;
        return;
      }
      n = n / g * (g + 1);
    }
  }
  s->ndim = ndim; /* (not reached for an nr of gcuba_vegas_strat) */
  s->g = 1;
  s->r = 0;
  s->ncubes = 1;
  s->inv[0] = 0.5;
  s->inv[1] = 1;
}

/* the canonical tree's sum of w[0..n) (gcuba/detail/vegas.h), with scr holding
   gcuba_vegas_tree_next(n) values */
static double tree_sum(const double *w, long long n, double *scr)
{
  double g[GCUBA_VEGAS_GROUP];
  const double *src = w;
  if (n == 1) return w[0];
  while (n > 1) {
    const long long m = gcuba_vegas_tree_next(n);
    long long j;
    for (j = 0; j < m; ++j) {
      const long long i0 = j * GCUBA_VEGAS_GROUP;
      int i;
      for (i = 0; i < GCUBA_VEGAS_GROUP; ++i)
        g[i] = i0 + i < n ? src[i0 + i] : 0;
      gcuba_vegas_tree_group(g);
      scr[j] = g[0];
    }
    src = scr;
    n = m;
  }
  return scr[0];
}

/* Adaptive stratification: the iteration of ncall samples as units
   (gcuba/detail/vegas.h) into it: about ncall/(2 VP_UNITS) cubes, ncall/VP_NPG
   units; each cube gets one, and the others go to the cubes in proportion
   to sigma_h^beta (Lepage's VEGAS+), sigma_h^2 being the mean of the
   variances of its units in the previous iteration (of the previous cube
   that holds its centre when the cubes changed); evenly without one.  In
   host memory, or by the backend's units op, with the same bits.  0, or
   a fail code. */
int gcuba_vegas_alloc_units(vegas *v, long long ncall, gcuba_vegas_iter *it)
{
  gcuba_vegas_strat_t s, o;
  long long ustar = ncall / VP_NPG, nr, extra, h, total;
  const int bk = (int)floor(v->beta * 32 + 0.5);
  gcuba_vegas_strat(ncall / VP_UNITS, v->ndim, VP_MAXCUBES, &s);
  /* the cubes stay while they are at least half as many as these (and
     each can have a unit): the allocation learnt on them carries over */
  if (v->nrp > 0 && ustar >= v->nrp && s.ncubes <= 2 * v->nrp &&
      s.ncubes != v->nrp)
    strat_of(v->ndim, v->nrp, &s);
  nr = s.ncubes;
  if (ustar < nr) ustar = nr;
  extra = ustar - nr;
  v->cold = (v->cold & ~1) | (v->nrp != nr);
  if (v->nrp > 0)
    strat_of(v->ndim, v->nrp, &o);
  else
    o = s;
  if (v->ops->units) {
    gcuba_vegas_units u;
    int64_t n = 0;
    int rc;
    u.s = s;
    u.o = o;
    u.nrp = v->nrp;
    u.extra = extra;
    u.bk = bk;
    u.R = v->units_put ? v->Rp : NULL;
    u.cvar = v->units_put ? v->cvp : NULL;
    if ((rc = v->ops->units(v->ctx, &u, &n))) return rc;
    v->units_put = 0;
    total = n;
    it->R = NULL;
    it->cvar = NULL;
  } else {
    double sum = 0;
    if (gcuba_vegas_units_reserve(v, nr))
      return gcuba_fail(v->c, GCUBA_FAIL_NOMEM, "the cubes' units");
    if (v->nrp > 0) {
      for (h = 0; h < nr; ++h) {
        const long long ho =
            v->nrp == nr ? h : gcuba_vegas_unit_from(&s, &o, h);
        v->cv[h] = gcuba_vegas_unit_weight(v->cvp[ho],
                                           v->Rp[ho + 1] - v->Rp[ho], bk);
      }
      sum = tree_sum(v->cv, nr, v->ws);
    }
    v->R[0] = 0;
    for (h = 0; h < nr; ++h)
      v->R[h + 1] = v->R[h] + gcuba_vegas_unit_count(v->nrp > 0 ? v->cv[h]
                                                                : 0,
                                                     sum, extra, nr);
    {
      const long long d = nr + extra - v->R[nr];
      for (h = 0; h < nr; ++h)
        v->R[h + 1] = gcuba_vegas_unit_spread(v->R[h + 1], h, d > 0 ? d : 0,
                                              nr);
    }
    total = v->R[nr];
    it->R = v->R;
    it->cvar = v->cv;
  }
  s.npg = VP_NPG;
  s.ncubes = total;
  s.calls = s.ncubes * VP_NPG;
  it->strat = s;
  it->nreal = nr;
  return 0;
}
