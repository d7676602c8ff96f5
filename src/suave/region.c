/* src/suave/region.c -- one region of gSuave: its allocation, its
   estimate from its sets of samples, and its cut: the axis (where the
   halves fluctuate least), the samples each half gets, the grids each
   half inherits (the passes over the samples: passes.c).  The algorithm
   is Cuba's Suave (T. Hahn, Comput. Phys. Commun. 168 (2005) 78);
   gcuba/detail/suave.h has the map of a point.  This file is part of
   gcuba. */
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "suave/suave_int.h"
#include "vegas/grid.h"
#include "gcuba/detail/vegas.h"
#include "common/chisq.h"

/* Cuba's floor of a set's unnormalised variance, 2^-104 */
#define NOTZERO 0x1p-104
/* in the sets' chi^2 a set's inverse variance is at most this many times
   the region's own set's per sample in the region (a set whose samples
   there all gave 0 has none: Cuba's demo 11, a ball's indicator, got an
   error of 3e9 from such sets).  Genz's protocol at 1, 4, 16, 64:
   274, 273, 272, 269 claims, all within 4 errors; at 1 the test suite's
   f3 8D and f6 6D at 1e-2 were claimed 12% and 2% off (the chi^2
   refuses them from 4 on); at 64 demo 11's error grew from 8.2e-4 to
   9.8e-4 */
#define SUAVE_CHICAP 16
/* the Sobol shrink of a region's variance (gcuba_suave_region_estimate):
   from 4 degrees of freedom (with 2, Genz's discontinuous family got 3
   more false claims), at most to 0.49 of the variance (0.7 of the error,
   gVegas's bound) */
#define SHRINK_DF 4
#define SHRINK_MIN 0.49

size_t gcuba_suave_sample_bytes(const suave *s, long long n, long long nown)
{
  return sizeof(double) * (size_t)n *
             (2 + (size_t)s->ndim + (size_t)s->ncomp) +
         (size_t)nown * (size_t)s->ndim;
}

sreg *gcuba_suave_region_new(suave *s, long long n, long long nown)
{
  /* (the samples of a region on the device are in its block there) */
  const size_t bytes = sizeof(sreg) +
                       sizeof(double) * (2 * (size_t)s->ndim +
                                         (size_t)s->ndim * (NB + 1) +
                                         4 * (size_t)s->ncomp) +
                       (s->dev ? 0 : gcuba_suave_sample_bytes(s, n, nown));
  sreg *r;
  /* the block of the region cut last, when it fits without wasting more
     than half of it: its pages are in memory already (a fresh block of
     many megabytes is mapped and zeroed page by page) */
  if (s->spare && s->spare->cap >= bytes && s->spare->cap / 2 <= bytes) {
    r = s->spare;
    s->spare = NULL;
  } else {
    if (!(r = (sreg *)malloc(bytes))) return NULL;
    r->cap = bytes;
  }
  r->n = n;
  r->nown = nown;
  r->bytes = bytes;
  r->div = r->df = 0;
  r->blk = NULL;
  r->se = NULL;
  r->nset = 0;
  if (s->dev && !(r->blk = s->dev->alloc(s->dctx, n, nown))) {
    gcuba_suave_region_drop(s, r);
    return NULL;
  }
  gcuba_suave_region_ptrs(s, r);
  return r;
}

void gcuba_suave_region_drop(suave *s, sreg *r)
{
  if (!r) return;
  /* (queued sets' records are known by their region) */
  if (s->qreg[0] == r) s->qreg[0] = NULL;
  if (s->qreg[1] == r) s->qreg[1] = NULL;
  if (r->blk) s->dev->release(s->dctx, r->blk);
  free(r->se);
  free(r);
}

void gcuba_suave_region_free(suave *s, sreg *r)
{
  if (!r) return;
  if (s->dev || (s->spare && s->spare->cap >= r->cap)) {
    gcuba_suave_region_drop(s, r);
    return;
  }
  free(s->spare);
  s->spare = r;
}

void gcuba_suave_region_ptrs(const suave *s, sreg *r)
{
  double *p = (double *)(r + 1);
  r->lo = p;
  r->hi = p += s->ndim;
  r->grid = p += s->ndim;
  r->avg = p += (size_t)s->ndim * (NB + 1);
  r->var = p += s->ncomp;
  r->chisq = p += s->ncomp;
  r->dev = p += s->ncomp;
  p += s->ncomp;
  if (r->blk) {
    r->w = r->x = r->f = r->sn = NULL;
    r->bin = NULL;
    return;
  }
  r->w = p;
  r->x = p += r->n;
  r->f = p += (size_t)r->n * s->ndim;
  r->sn = p += (size_t)r->n * s->ncomp;
  r->bin = (unsigned char *)(p + r->n);
}

/* the inverse of a set's variance: of the N samples drawn, those in the
   region give w f summing to sum, their squares to sq.  The unbiased
   variance of the sum over all N with the terms outside the region zero.
   Cuba's Suave puts the number of samples that fell into the region in
   place of N: that leaves out the fluctuation of that number, so a set
   inherited from a larger region gets too small a variance (none at all
   where f is constant) and too large a weight; on Genz's protocol the
   sets' chi^2 said so, and the false claims went from 26 to 8 with N. */
static double set_weight(double sum, double sq, double N)
{
  const double v = N * sq - sum * sum;
  return (N - 1) / (v > NOTZERO ? v : NOTZERO);
}

int gcuba_suave_region_estimate(suave *s, sreg *r)
{
  const int nc = s->ncomp;
  const size_t sw = SETW(nc);
  const long long n = gcuba_suave_sets(s, r);
  long long i, used;
  int c;
  if (n < 0) return 1;
  for (c = 0; c < nc; ++c) {
    /* the region's own set (the last), drawn with its own grid */
    const double *own = s->set + (n - 1) * sw;
    const double xown = set_weight(own[2 + 3 * c], own[3 + 3 * c], own[0]);
    double A = 0, as = 0, av = 0, ch = 0, lw = 0, ls = 0, ld = 0, dev = 0,
           var, avg;
    for (used = i = 0; i < n; ++i) {
      const double *q = s->set + i * sw;
      const double sum = q[2 + 3 * c];
      double x, a;
      /* sets of fewer than nmin samples in the region do not count */
      if (q[1] < s->nmin) continue;
      x = set_weight(sum, q[3 + 3 * c], q[0]);
      /* the set's weight in the estimate: its inverse variance, but for
         an inherited set at most the region's own set's per sample in the
         region.  A set whose samples missed a peak or a jump has a small
         sum and a small variance together, and by its variance alone
         would outweigh the sets that found it: every estimate of Genz's
         5-D discontinuous family came out low, by 0.5 to 137 errors (0.7
         to 2.9 with the cap), and Cuba's Suave, which weighs the same
         way, claims 11 of them falsely */
      a = xown * q[1] / own[1];
      if (a > x) a = x;
      A += a;
      as += a * sum;
      av += a * (a / x);
      lw = x;
      ls = sum;
      ld = q[4 + 3 * c];
      /* the deviation counts with the set's weight in the estimate */
      if (ld * a > dev) dev = ld * a;
      ++used;
    }
    r->df = (int)used - 1;
    avg = as / A;
    /* the variance of that weighted mean, from the sets' own variances */
    var = av / (A * A);
    /* chi^2 of the sets against it, each with its own variance, but not
       below SUAVE_CHICAP's share of the own set's per sample */
    for (i = 0; i < n; ++i) {
      const double *q = s->set + i * sw;
      const double sum = q[2 + 3 * c];
      if (q[1] < s->nmin) continue;
      double x = set_weight(sum, q[3 + 3 * c], q[0]);
      if (x > SUAVE_CHICAP * xown * q[1] / own[1])
        x = SUAVE_CHICAP * xown * q[1] / own[1];
      ch += x * (sum - avg) * (sum - avg);
    }
    /* flags bit 2: the last set alone (the region's own) */
    r->dev[c] = s->last ? ld : dev / A;
    r->var[c] = s->last ? 1 / lw : var;
    r->avg[c] = s->last ? ls : avg;
    /* a constant integrand: its first set has no variance, and the
       others' chi^2 against it means nothing (Cuba's rule) */
    r->chisq[c] = var < .9 * NOTZERO ? 0 : ch;
    /* Sobol points: sets that agree better than their variances say
       (quasi-random points integrate smooth integrands better than
       independent ones) lower the variance by chi^2 / q, q the 5%
       quantile of chi^2 with the region's degrees of freedom (a 95%
       upper bound on the ratio of the true variance to the estimate),
       from SHRINK_DF of them on, at most by SHRINK_MIN */
    if (s->sobol && r->df >= SHRINK_DF) {
      const double q = gcuba_chisq_quantile(0.05, r->df);
      double g = q > 0 ? r->chisq[c] / q : 1;
      if (g < SHRINK_MIN) g = SHRINK_MIN;
      if (g < 1) r->var[c] *= g;
    }
  }
  return 0;
}

int gcuba_suave_cut_plan(suave *s, const sreg *r, int comp, double err,
                         int *dim, long long *nl, long long *nr)
{
  const int nd = s->ndim;
  const double avg = r->avg[comp];
  const double norm = 1 / (err * (fabs(avg) > err ? fabs(avg) : err));
  const double flat = 2 / (3 * s->flatness);
  const double amax = ldexp(1.0, (int)((DBL_MAX_EXP - 2) / s->flatness));
  const long long mins = s->nmin > SUAVE_MINSAMPLES ? s->nmin
                                                    : SUAVE_MINSAMPLES;
  double best = INFINITY, bias, fsum;
  int a;
  /* the halves' fluctuations: sum of (1 + |w| (f - avg)^2 norm)^flatness
     over each half's samples (passes.c) */
  if (gcuba_suave_scan(s, r, comp, avg, norm, amax)) return 1;
  /* (Cuba 4.2.2 keeps max(sum, LDBL_MAX/2) instead of the minimum, so
     every half's fluctuation is the same there and it always cuts the
     widest axis in two even halves; gcuba cuts as Suave is described) */
  for (a = 0; a < 2 * nd; ++a) s->fl[a] = pow(s->fl[a], flat);
  /* the axis whose halves fluctuate least, the widest preferred the more
     the region has been cut and the tighter the tolerance */
  bias = s->c->epsrel < 1e-50
             ? 2
             : pow(2.0, -(double)r->div / nd) / s->c->epsrel;
  if (bias < 2) bias = 2;
  *dim = 0;
  for (a = 0; a < nd; ++a) {
    const double v = (s->fl[2 * a] + s->fl[2 * a + 1]) *
                     (bias - r->hi[a] + r->lo[a]);
    if (v < best) {
      best = v;
      *dim = a;
    }
  }
  /* the new samples in proportion to the halves' fluctuations */
  fsum = s->fl[2 * *dim] + s->fl[2 * *dim + 1];
  *nl = fsum == 0 ? s->nnew / 2
                  : (long long)(s->fl[2 * *dim] / fsum * (double)s->nnew);
  if (*nl < mins) *nl = mins;
  *nr = s->nnew - *nl > mins ? s->nnew - *nl : mins;
  return 0;
}

/* the map of grid e at y in [0, 1] */
static double map_at(const double *e, double y)
{
  const double p = y * NB;
  int b = (int)p;
  if (b > NB - 1) b = NB - 1;
  return e[b] + (p - b) * (e[b + 1] - e[b]);
}

/* e's map on [0, 1/2] and on [1/2, 1], each stretched over [0, 1] */
static void stretch(const double *e, double *el, double *er)
{
  double ym;
  int b = 0, i;
  while (b < NB - 1 && e[b + 1] < .5) ++b;
  ym = (b + (.5 - e[b]) / (e[b + 1] - e[b])) / NB;
  el[0] = er[0] = 0;
  for (i = 1; i < NB; ++i) {
    el[i] = 2 * map_at(e, ym * i / NB);
    er[i] = 2 * map_at(e, ym + (1 - ym) * i / NB) - 1;
  }
  el[NB] = er[NB] = 1;
}

int gcuba_suave_halves(suave *s, const sreg *r, int dim, sreg *L, sreg *R)
{
  const int nd = s->ndim, nc = s->ncomp;
  double *scale = s->fl + 2 * nd; /* [ncomp] */
  double *e = s->marg + (size_t)nd * NB; /* [NB + 1] */
  int a, c;
  /* the bin contributions of r's own set, the components scaled by the
     totals (Cuba's Reweight; passes.c) */
  for (c = 0; c < nc; ++c)
    scale[c] = nc == 1 ? 1 : s->tavg[c] == 0 ? 0 : 1 / s->tavg[c];
  if (gcuba_suave_marg(s, r, scale)) return 1;
  memcpy(L->lo, r->lo, sizeof(double) * nd);
  memcpy(L->hi, r->hi, sizeof(double) * nd);
  memcpy(R->lo, r->lo, sizeof(double) * nd);
  memcpy(R->hi, r->hi, sizeof(double) * nd);
  L->hi[dim] = R->lo[dim] = .5 * (r->lo[dim] + r->hi[dim]);
  for (a = 0; a < nd; ++a) {
    double *el = L->grid + (size_t)a * (NB + 1);
    double *er = R->grid + (size_t)a * (NB + 1);
    memcpy(e, r->grid + (size_t)a * (NB + 1), sizeof(double) * (NB + 1));
    gcuba_vegas_grid_refine1_ex(e, NB, s->marg + (size_t)a * NB, 1,
                                GCUBA_VEGAS_ALPHA,
                                s->smooth ? GCUBA_VEGAS_GRID_SMOOTH : 0,
                                s->gs);
    if (a == dim)
      stretch(e, el, er);
    else {
      memcpy(el, e, sizeof(double) * (NB + 1));
      memcpy(er, e, sizeof(double) * (NB + 1));
    }
  }
  return 0;
}
