/* src/vegas/grid.c -- the VEGAS importance map on the host: uniform
   initialisation, damped refinement (Lepage 1978/1980, the same steps as in
   Cuba's and m-Cubes' Vegas: three-point smoothing of the bin contributions
   (optional: off for Cuba's flags bit 3, "sharp edges"),
   normalisation, weights ((1 - r)/ln(1/r))^alpha, new edges at equal
   cumulative weight with the weight spread uniformly inside each old bin;
   then gcuba's own two steps: zero runs at the ends kept apart and a
   defensive mixture with the uniform map),
   the shared-grid variant, rebinning and validity check.  Edges are kept
   strictly increasing even when contributions vanish or the grid gets very
   fine.  This file is part of gcuba. */
#include <math.h>
#include <float.h>
#include "vegas/grid.h"
#include "common/pool.h"

void gcuba_vegas_grid_init(double *grid, int nb, int ngrids)
{
  int g, i;
  for (g = 0; g < ngrids; ++g) {
    double *e = grid + (size_t)g * (nb + 1);
    e[0] = 0;
    for (i = 1; i < nb; ++i) e[i] = (double)i / (double)nb;
    e[nb] = 1;
  }
}

int gcuba_vegas_grid_check(const double *e, int nb)
{
  int i;
  if (nb < 1 || e[0] != 0 || e[nb] != 1) return 0;
  for (i = 1; i <= nb; ++i)
    if (!(e[i] > e[i - 1])) return 0; /* also catches NaN */
  return 1;
}

/* make x[0] = 0 < x[1] < ... < x[nb] = 1, moving as few edges as possible
   by as little as possible (a few ulps), for edges that rounding or an
   extremely fine grid made equal */
static void strict(double *x, int nb)
{
  int i;
  x[0] = 0;
  x[nb] = 1;
  for (i = 1; i < nb; ++i)
    if (!(x[i] > x[i - 1])) x[i] = nextafter(x[i - 1], 2.0);
  for (i = nb - 1; i > 0; --i)
    if (!(x[i] < x[i + 1])) x[i] = nextafter(x[i + 1], -1.0);
}

/* ((1 - r)/ln(1/r))^alpha for r = m/tot, 0 < m <= tot, written with
   1 - r = rest/tot and ln(1/r) = log1p(rest/m), rest = tot - m, so that r
   near 1 (limit 1) and r near 0 (limit 0) stay accurate */
static double damp(double m, double tot, double alpha)
{
  double rest = tot - m, q;
  if (!(rest > 0)) return 1;
  q = (rest / tot) / log1p(rest / m);
  /* Cuba's and the default alpha without a call to pow */
  return alpha == 1.5 ? q * sqrt(q) : pow(q, alpha);
}

int gcuba_vegas_grid_refine1(double *e, int nb, const double *d, int nrows,
                             double alpha, double *scratch)
{
  return gcuba_vegas_grid_refine1_ex(e, nb, d, nrows, alpha,
                                     GCUBA_VEGAS_GRID_SMOOTH, scratch);
}

int gcuba_vegas_grid_refine1_ex(double *e, int nb, const double *d,
                                int nrows, double alpha, int mode,
                                double *scratch)
{
  const int smooth = mode & GCUBA_VEGAS_GRID_SMOOTH,
            floored = mode & GCUBA_VEGAS_GRID_FLOOR;
  double *w = scratch, *x = scratch + nb;
  double smax = 0, tot, wsum, avg, acc, prev, cur, cum, m;
  int i, r, k, k0 = 0, k1 = nb - 1, lead, trail, nn;

  for (i = 0; i < nb; ++i) {
    double s = 0;
    for (r = 0; r < nrows; ++r) s += d[(size_t)r * nb + i];
    if (!(s >= 0) || s > DBL_MAX) return -1;
    w[i] = s;
    if (s > smax) smax = s;
  }
  if (nb < 2 || !(alpha > 0) || smax == 0) return 1;

  /* normalise to max 1 (no overflow below), then (unless smooth = 0)
     smooth with the neighbours: ends average two bins, inner bins three */
  for (i = 0; i < nb; ++i) w[i] /= smax;
  if (!smooth) {
    tot = 0;
    for (i = 0; i < nb; ++i) tot += w[i];
  } else {
    prev = w[0];
    cur = w[1];
    tot = w[0] = 0.5 * (prev + cur);
    for (i = 1; i < nb - 1; ++i) {
      double next = w[i + 1];
      tot += w[i] = (prev + cur + next) / 3.0;
      prev = cur;
      cur = next;
    }
    tot += w[nb - 1] = 0.5 * (prev + cur);
  }

  /* damped importance of each bin; empty bins get none */
  wsum = 0;
  for (i = 0; i < nb; ++i) {
    w[i] = w[i] > 0 ? damp(w[i], tot, alpha) : 0;
    wsum += w[i];
  }
  if (!(wsum > 0) || wsum > DBL_MAX) return 1;

  /* Zero runs at the ends: old bins without weight before the first and
     after the last with weight (the integrand vanishes there, as beyond
     a cut) become one new bin each, so that no new bin spans both such a
     run and the start of the integrand's support.  (A bin that did, wide
     and with almost all of its samples in the zero run, would weight its
     rare samples in the support heavily: iterations then agree on an
     estimate that misses part of the integral.  Genz's discontinuous
     family claimed 3-7% errors at epsrel 1e-3 that way.) */
  while (w[k0] == 0) ++k0;
  while (w[k1] == 0) --k1;
  lead = k0 > 0;
  trail = k1 < nb - 1;
  nn = nb - lead - trail; /* the bins over the weight */
  if (nn < 2) {
    lead = trail = 0;
    nn = nb;
  }

  /* new edge lead + j (0 < j < nn) where the cumulative weight reaches
     j*wsum/nn, the weight of old bin k being spread uniformly over
     [e[k], e[k+1]] */
  avg = wsum / nn;
  acc = 0;
  k = -1;
  x[0] = 0;
  if (lead) x[1] = e[k0];
  for (i = 1; i < nn; ++i) {
    double target = avg * i, t;
    while (acc < target && k < nb - 1) acc += w[++k];
    t = w[k] > 0 ? 1 - (acc - target) / w[k] : 1;
    if (t < 0) t = 0;
    if (t > 1) t = 1;
    x[lead + i] = e[k] + t * (e[k + 1] - e[k]);
  }
  if (trail) x[nb - 1] = e[k1 + 1];
  x[nb] = 1;
  strict(x, nb);

  /* The defensive mixture: the new map's density p becomes
     (1 - DEFENSIVE) p + DEFENSIVE, i.e. new edges at equal mass of bins
     of mass (1 - DEFENSIVE)/nb + DEFENSIVE width (linear inside each);
     or, floored, max(p, DEFENSIVE)/Z (grid.h).  No bin is wider than
     1/(nb DEFENSIVE) (floored: Z times that), so no part of the axis is
     sampled so rarely that its samples, when they come, dominate the
     estimate: with the zero runs above, Genz's discontinuous family went
     from 9 false claims in 60 calls to none. */
#define MASS(k) (floored ? GCUBA_VEGAS_FLOORIN(x[(k) + 1] - x[k], nb)      \
                         : GCUBA_VEGAS_MIXIN(x[(k) + 1] - x[k], nb))
  tot = 1;
  if (floored)
    for (tot = 0, k = 0; k < nb; ++k) tot += MASS(k);
  cum = 0;
  k = 0;
  e[0] = 0;
  for (i = 1; i < nb; ++i) {
    const double target = tot * i / nb;
    double t;
    m = MASS(k);
    while (k < nb - 1 && cum + m < target) {
      cum += m;
      ++k;
      m = MASS(k);
    }
    t = (target - cum) / m;
    if (t < 0) t = 0;
    if (t > 1) t = 1;
    e[i] = x[k] + t * (x[k + 1] - x[k]);
  }
#undef MASS
  e[nb] = 1;
  strict(e, nb);
  return 0;
}

int gcuba_vegas_grid_refine(double *grid, int nb, int ndim, int shared,
                            const double *d, double alpha, double *scratch)
{
  return gcuba_vegas_grid_refine_ex(grid, nb, ndim, shared, d, alpha,
                                    GCUBA_VEGAS_GRID_SMOOTH, scratch);
}

int gcuba_vegas_grid_refine_ex(double *grid, int nb, int ndim, int shared,
                               const double *d, double alpha, int mode,
                               double *scratch)
{
  return gcuba_vegas_grid_refine_par(grid, nb, ndim, shared, d, alpha, mode,
                                     scratch, 1);
}

/* the axes of refine_par (common/pool.h) */
typedef struct {
  double *grid, *scratch;
  const double *d;
  double alpha;
  size_t step;
  int nb, mode, n;
} refine_loop;

static int refine_item(void *ctx, long long a, int tid)
{
  refine_loop *L = (refine_loop *)ctx;
  (void)tid;
  if (gcuba_vegas_grid_refine1_ex(L->grid + (size_t)a * (L->nb + 1), L->nb,
                                  L->d + (size_t)a * L->nb, 1, L->alpha,
                                  L->mode, L->scratch + (size_t)a * L->step))
    __atomic_fetch_add(&L->n, 1, __ATOMIC_RELAXED);
  return 0;
}

int gcuba_vegas_grid_refine_par(double *grid, int nb, int ndim, int shared,
                                const double *d, double alpha, int mode,
                                double *scratch, int nthreads)
{
  int n = 0, par;
  size_t step;
  if (shared)
    return gcuba_vegas_grid_refine1_ex(grid, nb, d, ndim, alpha, mode,
                                       scratch) != 0;
  if (nthreads > ndim) nthreads = ndim;
  /* the axes are independent: the same bits with any number of threads;
     serial (one scratch for every axis) below GCUBA_VEGAS_GRID_PAR */
  par = nthreads >= 2 && (long long)ndim * nb >= GCUBA_VEGAS_GRID_PAR;
  step = par ? GCUBA_VEGAS_GRID_SCRATCH(nb) : 0;
  {
    refine_loop L;
    L.grid = grid;
    L.nb = nb;
    L.d = d;
    L.alpha = alpha;
    L.mode = mode;
    L.scratch = scratch;
    L.step = step;
    L.n = 0;
    gcuba_pool_for(par ? nthreads : 1, ndim, 1, refine_item, &L);
    n = L.n;
  }
  return n;
}

void gcuba_vegas_grid_resize(const double *old, int nbold, double *grid,
                             int nb, int ngrids)
{
  int g, i;
  for (g = 0; g < ngrids; ++g) {
    const double *o = old + (size_t)g * (nbold + 1);
    double *e = grid + (size_t)g * (nb + 1);
    for (i = 0; i <= nb; ++i) {
      /* y = i/nb lies in old bin j at fraction rem/nb, exactly */
      long long num = (long long)i * nbold, j = num / nb, rem = num % nb;
      e[i] = j >= nbold ? 1 :
        o[j] + ((double)rem / (double)nb) * (o[j + 1] - o[j]);
    }
    strict(e, nb);
  }
}
