/* src/suave/driver.c -- gSuave: Cuba's Suave (subregion-adaptive Vegas)
   over a backend's ops (suave.h).  The run starts with one region, the
   unit cube, and nnew samples of it; then, step by step, the region with
   the largest error (of the component furthest from its tolerance) is
   cut in two along the axis where the halves fluctuate least
   (region.c), each half inherits the samples that fell into it and the
   grids of the region, refined on the region's own samples, and draws
   new samples, nnew between the two in proportion to their
   fluctuations.  A region's estimate combines its sets of samples with
   inverse-variance weights; the totals are the regions' sums, the
   difference between the halves and the region they came from added to
   the halves' variances (Cuba's rule).  The run stops when every
   component meets its tolerance (and the checks of "honest" below
   hold), or before a step would take neval past maxeval (fail 1).
   This file is part of gcuba. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "suave/suave_int.h"
#include "common/chisq.h"
#include "common/state.h"
#include "vegas/grid.h"
#include "vegas/sobol.h"

/* Cuba's floor of epsabs */
#define NOTZERO 0x1p-104
/* fail = 0 when every component's error is at most this fraction of its
   tolerance (Cuba and gVegas: 1).  Genz's protocol (bench-genz --routines
   suave): at 1, 272 claims, all within 4 errors, 6 of them off by more
   than the tolerance; at 0.75, 264.  (Before the sets' weights were
   capped, region.c, 1 gave 5 claims 6 to 40 errors off in the 5-D
   discontinuous family, and 0.75 kept all but one of them back) */
#define SUAVE_CLAIM 1.0
/* ... and no single sample moves the estimate by more than this fraction
   of the tolerance (a peak found by few samples: their variance, from
   the same few, is no guide).  Genz's protocol: the same claims at 0.1,
   0.25 and 0.5; at 0.1 Cuba's demo 10, an integrable spike, runs past
   its 50000 evaluations (1.1 tenths at 49000), at 0.25 it converges at
   40000 */
#define SUAVE_ONE 0.25
/* ... and the sets' chi^2 CDF (prob) is at most this (Cuba's manual:
   reject a result whose prob exceeds 0.95).  The test suite's f3 8D, f6
   6D and f7 8D at epsrel 1e-2 were claimed 2 to 67% off with prob 0.96
   to 1 (Cuba's Suave claims them too); Genz's protocol loses one honest
   answer (264 -> 263) */
#define SUAVE_PROB 0.95
/* ... or chi^2 is at most this many times its degrees of freedom.  With
   hundreds of sets, a chi^2 somewhat above its degrees of freedom (the
   sets' variances somewhat low, which the error's widening below takes
   in) has prob near 1: 3-D Gaussians with 8 components ran to maxeval at
   chi^2/df 1.02-1.05 (df 16,000), their errors a third of the tolerance,
   and with 1024 components chi^2/df is 1.3 to 1.7 (df 460) on most of
   them while every answer lies within 2.7 of its widened errors.  Below
   about 35 degrees of freedom the 95% quantile is above 1.5 df and
   decides alone.  (Genz's protocol: 265 claims, 264 within 4 errors, as
   at 2; at 1.2, 264 and 263) */
#define SUAVE_CHIDF 1.5
/* (with ncomp components, each is tested at level (1 - SUAVE_PROB) /
   ncomp, so that the chance that any of them blocks a claim by chance
   stays 5%, Bonferroni's correction: 1024 components at epsrel 1e-2
   took 975 regions, 36 times 64 components' 27, before every component
   passed at 5% alone) */

/* out of host memory, or the device's failure (logged) */
static int nomem(suave *s, const char *what)
{
  if (s->c->fail < 0) return s->c->fail;
  return gcuba_fail(s->c, GCUBA_FAIL_NOMEM, "gSuave: %s", what);
}

static int reserve(suave *s, long long m)
{
  const int nd = s->ndim, nc = s->ncomp;
  void *p;
  if (m <= s->scap) return 0;
  if (m < 2 * s->scap) m = 2 * s->scap;
  if (!(p = realloc(s->sx, sizeof(double) * (size_t)m * nd))) return 1;
  s->sx = (double *)p;
  if (!(p = realloc(s->sw, sizeof(double) * (size_t)m))) return 1;
  s->sw = (double *)p;
  if (!(p = realloc(s->sf, sizeof(double) * (size_t)m * nc))) return 1;
  s->sf = (double *)p;
  if (!(p = realloc(s->sb, (size_t)m * nd))) return 1;
  s->sb = (unsigned char *)p;
  s->scap = m;
  return 0;
}

static int add_region(suave *s, sreg *r)
{
  if (s->nreg == s->cap) {
    const long long cap = s->cap ? 2 * s->cap : 64;
    sreg **p = (sreg **)realloc(s->reg, sizeof(sreg *) * (size_t)cap);
    if (!p) return 1;
    s->reg = p;
    s->cap = cap;
  }
  s->reg[s->nreg++] = r;
  return 0;
}

static void free_regions(suave *s)
{
  long long i;
  for (i = 0; i < s->nreg; ++i) gcuba_suave_region_drop(s, s->reg[i]);
  s->nreg = 0;
}

/* the m points x (weights w) evaluated into f */
static int evaluate(suave *s, long long m, const double *x, const double *w,
                    int iter, double *f)
{
  const int rc = s->ops->eval(s->ctx, m, x, w, iter, f);
  if (rc) return s->c->fail ? s->c->fail : gcuba_fail(s->c, rc, "%s",
                                                      gcuba_fail_message(rc));
  s->c->neval += m;
  return 0;
}

/* the last m samples of r, its new set: the set's size, its end */
static void end_set(sreg *r, long long m)
{
  long long k;
  for (k = r->n - m; k < r->n; ++k) r->sn[k] = (double)m;
  r->w[r->n - 1] = -r->w[r->n - 1];
}

/* the new set of m samples of r, last in its arrays, from s's scratch
   starting at point k0 */
static void take_set(suave *s, sreg *r, long long k0, long long m)
{
  const int nd = s->ndim, nc = s->ncomp;
  const long long at = r->n - m;
  memcpy(r->w + at, s->sw + k0, sizeof(double) * m);
  memcpy(r->x + at * nd, s->sx + k0 * nd, sizeof(double) * m * nd);
  memcpy(r->f + at * nc, s->sf + k0 * nc, sizeof(double) * m * nc);
  memcpy(r->bin, s->sb + k0 * nd, (size_t)m * nd);
  end_set(r, m);
}

/* r's new set of m samples drawn into its own arrays, last */
static void draw_set(suave *s, sreg *r, long long m)
{
  const long long at = r->n - m;
  gcuba_suave_draw(s, r, m, r->x + at * s->ndim, r->w + at, r->bin);
}

/* ... and evaluated there */
static int eval_set(suave *s, sreg *r, long long m, int iter)
{
  const long long at = r->n - m;
  return evaluate(s, m, r->x + at * s->ndim, r->w + at, iter,
                  r->f + at * s->ncomp);
}

/* on the device: r's own set (its last nown samples) drawn, its end
   marked and evaluated there; 0 or a fail code */
static int dev_set(suave *s, sreg *r)
{
  int rc;
  if ((rc = s->dev->draw(s->dctx, r->blk, r->lo, r->hi, r->grid,
                         1 / ldexp((double)r->nown, r->div), s->next)))
    return rc;
  s->next += (uint64_t)r->nown;
  s->c->neval += r->nown;
  r->se[r->nset++] = r->n;
  return 0;
}

/* the first region: the unit cube and nnew samples */
static int start(suave *s)
{
  const int nd = s->ndim;
  /* (a maxeval below nnew shrinks the first set) */
  const long long n = s->nnew < s->c->maxeval ? s->nnew : s->c->maxeval;
  sreg *r = gcuba_suave_region_new(s, n, n);
  int a, rc;
  if (!r || (s->dev && !(r->se = (long long *)malloc(sizeof(long long)))) ||
      add_region(s, r)) {
    gcuba_suave_region_drop(s, r);
    return nomem(s, "the first region");
  }
  for (a = 0; a < nd; ++a) {
    r->lo[a] = 0;
    r->hi[a] = 1;
  }
  gcuba_vegas_grid_init(r->grid, NB, nd);
  if (s->dev) {
    if ((rc = dev_set(s, r))) return rc;
    return gcuba_suave_region_estimate(s, r) ? nomem(s, "the sets of a region")
                                             : 0;
  }
  draw_set(s, r, n);
  if ((rc = eval_set(s, r, n, 1))) return rc;
  end_set(r, n);
  return gcuba_suave_region_estimate(s, r)
             ? nomem(s, "the sets of a region")
             : 0;
}

/* cut region i for component comp; 0, 1 when the step would pass
   maxeval or the device's memory, or a fail code */
static int cut(suave *s, long long i, int comp)
{
  gcuba_call *c = s->c;
  sreg *r = s->reg[i], *L, *R;
  const double err = sqrt(r->var[comp]);
  long long nl, nr;
  int dim, rc, k, direct;
  if (gcuba_suave_cut_plan(s, r, comp, err > c->epsabs ? err : c->epsabs,
                           &dim, &nl, &nr))
    return nomem(s, "the pieces of a region's passes");
  if (c->neval + nl + nr > c->maxeval) return 1;
  /* a step of more than a piece draws and evaluates each half's new set
     in its own arrays (two calls of the executor, no copy); a smaller
     one both halves' in s's scratch (one call); on the device in the
     halves' blocks there */
  direct = nl + nr > SUAVE_PIECE || s->dev;
  L = gcuba_suave_region_new(s, s->fn[2 * dim] + nl, nl);
  R = gcuba_suave_region_new(s, s->fn[2 * dim + 1] + nr, nr);
  if (s->dev && (!L || !R) && c->fail == 0) {
    /* the device's memory is full: the run ends as at maxeval */
    gcuba_suave_region_drop(s, L);
    gcuba_suave_region_drop(s, R);
    gcuba_log(c, 1, "gSuave: the device's memory holds no more samples "
              "(%lld evaluations, %lld regions): the run stops", c->neval,
              s->nreg);
    return 1;
  }
  if (L && R) L->div = R->div = r->div + 1;
  if (!L || !R || gcuba_suave_share(s, r, dim, L, R) ||
      gcuba_suave_halves(s, r, dim, L, R) ||
      (!direct && reserve(s, nl + nr)) || add_region(s, R)) {
    gcuba_suave_region_drop(s, L);
    gcuba_suave_region_drop(s, R);
    return nomem(s, "the halves of a region");
  }
  if (s->dev) {
    /* (the parent's block is freed after the share, in the device's
       order) */
    if ((rc = dev_set(s, L)) || (rc = dev_set(s, R)) ||
        gcuba_suave_sets_ahead(s, L) || gcuba_suave_sets_ahead(s, R))
      return rc ? rc : nomem(s, "the sets of a region");
  } else if (direct) {
    draw_set(s, L, nl);
    draw_set(s, R, nr);
  } else {
    gcuba_suave_draw(s, L, nl, s->sx, s->sw, s->sb);
    gcuba_suave_draw(s, R, nr, s->sx + nl * s->ndim, s->sw + nl,
                     s->sb + nl * s->ndim);
  }
  /* (an abort below leaves the totals of the last step: L and R have no
     estimate yet) */
  memcpy(s->pavg, r->avg, sizeof(double) * s->ncomp);
  s->reg[i] = L;
  s->dirty = i;
  gcuba_suave_region_free(s, r);
  r = NULL;
  if (s->dev) {
    /* (drawn, evaluated and their ends marked there: above) */
  } else if (direct) {
    if ((rc = eval_set(s, L, nl, L->div + 1)) ||
        (rc = eval_set(s, R, nr, L->div + 1)))
      return rc;
    end_set(L, nl);
    end_set(R, nr);
  } else {
    if ((rc = evaluate(s, nl + nr, s->sx, s->sw, L->div + 1, s->sf)))
      return rc;
    take_set(s, L, 0, nl);
    take_set(s, R, nl, nr);
  }
  if (gcuba_suave_region_estimate(s, L) || gcuba_suave_region_estimate(s, R))
    return nomem(s, "the sets of a region");
  /* the halves' difference from their region counts in their variances:
     a quarter of it each, and their own variances grown by the factor
     (1 + |d/4| / sigma)^2 (Cuba's rule) */
  for (k = 0; k < s->ncomp; ++k) {
    const double d = L->avg[k] + R->avg[k] - s->pavg[k];
    const double d2 = (.25 * d) * (.25 * d), v = L->var[k] + R->var[k];
    if (v > 0) {
      const double g = (1 + sqrt(d2 / v)) * (1 + sqrt(d2 / v));
      L->var[k] *= g;
      R->var[k] *= g;
    }
    L->var[k] += d2;
    R->var[k] += d2;
  }
  return 0;
}

/* region i's avg, var, chisq, dev and df into the mirror */
static void mirror(suave *s, long long i)
{
  const int nc = s->ncomp;
  const sreg *r = s->reg[i];
  double *m = s->mir + (size_t)i * MIRW(nc);
  memcpy(m, r->avg, sizeof(double) * nc);
  memcpy(m + nc, r->var, sizeof(double) * nc);
  memcpy(m + 2 * nc, r->chisq, sizeof(double) * nc);
  memcpy(m + 3 * nc, r->dev, sizeof(double) * nc);
  m[4 * nc] = (double)r->df;
}

/* the mirror up to date: the regions added since the last round and the
   one the last cut replaced; 0, or 1 when out of memory */
static int mirror_sync(suave *s)
{
  long long i;
  if (s->nreg > s->mcap) {
    const long long cap = 2 * s->nreg;
    double *m = (double *)realloc(s->mir, sizeof(double) *
                                              MIRW(s->ncomp) * (size_t)cap);
    if (!m) return 1;
    s->mir = m;
    s->mcap = cap;
  }
  if (s->dirty >= 0 && s->dirty < s->nmir) mirror(s, s->dirty);
  for (i = s->nmir; i < s->nreg; ++i) mirror(s, i);
  s->nmir = s->nreg;
  s->dirty = -1;
  return 0;
}

/* the totals over the regions (the mirror's, in the list's order) */
static void totals(suave *s)
{
  const int nc = s->ncomp;
  const double *m = s->mir;
  long long i;
  int k;
  memset(s->tavg, 0, sizeof(double) * 4 * nc);
  s->df = 0;
  for (i = 0; i < s->nreg; ++i, m += MIRW(nc)) {
    for (k = 0; k < nc; ++k) {
      s->tavg[k] += m[k];
      s->tvar[k] += m[nc + k];
      s->tchisq[k] += m[2 * nc + k];
      if (m[3 * nc + k] > s->tdev[k]) s->tdev[k] = m[3 * nc + k];
    }
    s->df += (long long)m[4 * nc];
  }
}

/* the region with the largest variance of component comp (the first of
   equals) */
static long long worst(const suave *s, int comp)
{
  const size_t w = MIRW(s->ncomp);
  const double *m = s->mir + s->ncomp + comp;
  double vmax = -1;
  long long i, imax = 0;
  for (i = 0; i < s->nreg; ++i, m += w)
    if (*m > vmax) {
      vmax = *m;
      imax = i;
    }
  return imax;
}

static double tolerance(const suave *s, int k)
{
  const double t = s->c->epsrel * fabs(s->tavg[k]);
  const double a = s->c->epsabs > NOTZERO ? s->c->epsabs : NOTZERO;
  return t > a ? t : a;
}

/* component k's error: the regions' variances, widened by sqrt(chi^2 /
   df) when the sets disagree more than their errors say (the Particle
   Data Group's scale factor) */
static double error(const suave *s, int k)
{
  const double r = s->df > 0 ? s->tchisq[k] / (double)s->df : 0;
  return sqrt(s->tvar[k] * (r > 1 ? r : 1));
}

static void report(const suave *s)
{
  const gcuba_call *c = s->c;
  int k;
  if (c->verbose < 1) return;
  gcuba_log(c, 1, "Iteration %lld:  %lld integrand evaluations so far",
            s->nreg, c->neval);
  for (k = 0; k < s->ncomp; ++k)
    gcuba_log(c, 1, "[%d] %.15g +- %.15g  \tchisq %.15g (%lld df)", k + 1,
              s->tavg[k], error(s, k), s->tchisq[k], s->df);
}

static void outputs(suave *s)
{
  gcuba_call *c = s->c;
  int k;
  for (k = 0; k < s->ncomp; ++k) {
    c->integral[k] = s->tavg[k];
    c->error[k] = error(s, k);
    c->prob[k] = gcuba_chisq_prob(s->tchisq[k], (int)s->df);
  }
  c->nregions = s->nreg;
}

/* the loop: 0 when it ended (c->fail 0 or 1), else a fail code */
static int run(suave *s)
{
  gcuba_call *c = s->c;
  int rc;
  for (;;) {
    double ratio = -1;
    int k, comp = 0;
    if (mirror_sync(s)) return nomem(s, "the regions' totals");
    totals(s);
    outputs(s);
    report(s);
    for (k = 0; k < s->ncomp; ++k) {
      double q = error(s, k) / (SUAVE_CLAIM * tolerance(s, k));
      /* no claim while one sample moves the answer by a tenth of the
         tolerance (a peak found by few samples: their variance, from the
         same few, is no guide) */
      if (s->tdev[k] > SUAVE_ONE * tolerance(s, k) && q <= 1) q = 1.5;
      /* no claim while the sets disagree (prob > SUAVE_PROB and chi^2
         above SUAVE_CHIDF df) */
      if (s->df > 0 && q <= 1 &&
          s->tchisq[k] > SUAVE_CHIDF * (double)s->df &&
          gcuba_chisq_prob(s->tchisq[k], (int)s->df) >
              1 - (1 - SUAVE_PROB) / s->ncomp)
        q = 1.5;
      if (q > ratio) {
        ratio = q;
        comp = k;
      }
    }
    if (ratio <= 1 && c->neval >= c->mineval) {
      c->fail = 0;
      return 0;
    }
    if (c->neval >= c->maxeval ||
        (rc = cut(s, worst(s, comp), comp)) == 1) {
      c->fail = GCUBA_FAIL_ACCURACY;
      return 0;
    }
    if (rc) return rc;
    if (c->statefile && (rc = gcuba_suave_save_state(s))) return rc;
  }
}

static void teardown(suave *s)
{
  free_regions(s);
  free(s->reg);
  free(s->mir);
  if (s->dctx) s->dev->destroy(s->dctx);
  if (s->ctx) s->ops->destroy(s->ctx);
  free(s->sx);
  free(s->sw);
  free(s->sf);
  free(s->sb);
  free(s->scr);
  free(s->pc);
  free(s->spare);
  free(s->set);
  free(s->right);
  free(s->qrec[0]);
  free(s->qrec[1]);
}

static int setup(suave *s)
{
  gcuba_call *c = s->c;
  const int nd = c->ndim, nc = c->ncomp;
  double *p;
  s->ndim = nd;
  s->ncomp = nc;
  s->nnew = c->nnew;
  s->nmin = c->nmin > 2 ? c->nmin : 2;
  s->flatness = c->flatness;
  s->last = (c->flags & GCUBA_LAST) != 0;
  s->smooth = !(c->flags & GCUBA_SHARPEDGES);
  s->seed = (uint64_t)(uint32_t)c->seed;
  s->next = s->seed == 0; /* Sobol: the origin is skipped */
  /* fl, fn, marg (+ one grid), the refinement's scratch, the totals
     and the region cut's estimates */
  s->scr = (double *)malloc(
      sizeof(double) * (2 * (size_t)nd + (size_t)nc +
                        2 * (size_t)nd + (size_t)nd * NB + NB + 1 +
                        GCUBA_VEGAS_GRID_SCRATCH(NB) + 8 * (size_t)nc));
  if (!s->scr) return nomem(s, "scratch");
  p = s->scr;
  s->fl = p;
  s->fn = (long long *)(p += 2 * nd + nc);
  s->marg = p += 2 * nd;
  s->gs = p += (size_t)nd * NB + NB + 1;
  s->tavg = p += GCUBA_VEGAS_GRID_SCRATCH(NB);
  s->tvar = s->tavg + nc;
  s->tchisq = s->tvar + nc;
  s->tdev = s->tchisq + nc;
  s->pavg = s->tdev + nc;
  if (s->seed == 0) {
    s->sobol = gcuba_sobol_table(nd);
    if (!s->sobol) return nomem(s, "Sobol direction numbers");
  }
  s->ctx = s->ops->create(c, &c->fail);
  if (!s->ctx) return c->fail;
  /* the samples where the integrand runs, when the executor keeps them */
  if (s->ops->suave) {
    int rc = 0;
    s->dev = s->ops->suave;
    s->dctx = s->dev->create(s->ctx, s->sobol, s->seed, &rc);
    if (!s->dctx) return rc ? rc : nomem(s, "the device's passes");
  }
  return 0;
}

void gcuba_suave_drive(gcuba_call *c, const gcuba_points_ops *ops)
{
  suave s;
  int rc, resumed = 0;
  memset(&s, 0, sizeof s);
  s.c = c;
  s.ops = ops;
  s.dirty = -1;
  c->neval = 0;
  c->nregions = 0;
  if (c->verbose >= 2)
    gcuba_log(c, 2, "%s input parameters:\n  ndim %d\n  ncomp %d\n  nvec "
              "%lld\n  epsrel %g\n  epsabs %g\n  flags %d\n  seed %d\n  "
              "mineval %lld\n  maxeval %lld\n  nnew %lld\n  nmin %lld\n  "
              "flatness %g\n  statefile \"%s\"", c->routine, c->ndim,
              c->ncomp, c->nvec, c->epsrel, c->epsabs, c->flags, c->seed,
              c->mineval, c->maxeval, c->nnew, c->nmin, c->flatness,
              c->statefile ? c->statefile : "");
  if (!(rc = setup(&s))) {
    if (c->statefile) resumed = gcuba_suave_load_state(&s);
    if (resumed > 0 && (c->flags & GCUBA_RESETSTATE)) {
      gcuba_log(c, 1, "flags bit 5: state reset");
      free_regions(&s);
      c->neval = 0;
      s.next = s.seed == 0;
      resumed = 0;
    }
    rc = resumed < 0 ? resumed : resumed ? 0 : start(&s);
    if (!rc) rc = run(&s);
  }
  if (rc) {
    /* the best estimate so far stays with the fail code */
    c->fail = rc;
  } else if (c->fail == 0 && c->statefile)
    gcuba_state_remove(c);
  teardown(&s);
}
