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
#include <string.h>
#include "vegas/grid.h"
#include "vegas/refine.h"
#include "common/pool.h"

void gcuba_vegas_grid_init(double *grid, int nb, int ngrids)
{
  int g, i;
  grid[0] = 0;
  for (i = 1; i < nb; ++i) grid[i] = (double)i / (double)nb;
  grid[nb] = 1;
  /* (the other axes the same bits: one division per bin, not per cell) */
  for (g = 1; g < ngrids; ++g)
    memcpy(grid + (size_t)g * (nb + 1), grid, sizeof(double) * (nb + 1));
}

int gcuba_vegas_grid_check(const double *e, int nb)
{
  int i;
  if (nb < 1 || e[0] != 0 || e[nb] != 1) return 0;
  for (i = 1; i <= nb; ++i)
    if (!(e[i] > e[i - 1])) return 0; /* also catches NaN */
  return 1;
}

/* the refinement itself: vegas/refine.h */

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
  return gcuba_vegas_refine_axis(e, nb, d, nrows, alpha, mode, scratch);
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
    gcuba_vegas_strict(e, nb);
  }
}
