/* src/vegas/grid.h -- host-side handling of the VEGAS importance map of
   gcuba's Vegas: uniform initialisation, the damped refinement of Lepage's
   VEGAS (smoothing, ((1 - r)/ln(1/r))^alpha weights, redistribution of the
   edges into bins of equal weight) for per-axis grids and for the grid
   shared by all axes (m-Cubes1D), rebinning to another bin count, and a
   validity check.  A grid is nb+1 doubles e[0] = 0 < ... < e[nb] = 1; ndim
   per-axis grids lie one after the other (axis a at a*(nb+1)), a shared grid
   is a single one; see gcuba/detail/vegas.h for the map itself and the bin
   accumulators d[a*nb + b].  No global state, no allocation: the refinement
   takes caller-provided scratch.  This file is part of gcuba. */
#ifndef GCUBA_VEGAS_GRID_H
#define GCUBA_VEGAS_GRID_H

#include <stddef.h>
#include "vegas/refine.h" /* the mixture, the mode bits, the scratch */

/* ngrids grids of nb bins set to the identity map e[i] = i/nb */
void gcuba_vegas_grid_init(double *grid, int nb, int ngrids);

/* 1 when e[0..nb] is a valid grid: e[0] = 0, e[nb] = 1, finite, strictly
   increasing; 0 otherwise */
int gcuba_vegas_grid_check(const double *e, int nb);

/* Refine the single grid e[0..nb] from the bin contributions
   sum_{r < nrows} d[r*nb + b] (nrows = 1 for an axis of its own, ndim for
   the shared grid).  scratch: GCUBA_VEGAS_GRID_SCRATCH(nb) doubles; d is not
   modified.  Returns 0 when refined; 1 when the grid was left as it is for
   lack of information (all contributions 0, nb < 2, or alpha <= 0, which
   disables adaptation); -1 when left as it is because a contribution is
   negative, infinite or NaN. */
int gcuba_vegas_grid_refine1(double *e, int nb, const double *d, int nrows,
                             double alpha, double *scratch);

/* the same with mode bits: without GCUBA_VEGAS_GRID_SMOOTH the
   three-point smoothing of the contributions is off (gVegas's flags bit
   3, GCUBA_SHARPEDGES: bins then follow sharp edges of the integrand);
   with GCUBA_VEGAS_GRID_FLOOR the floored form replaces the mixture
   (refine1 is mode GCUBA_VEGAS_GRID_SMOOTH) */
int gcuba_vegas_grid_refine1_ex(double *e, int nb, const double *d,
                                int nrows, double alpha, int mode,
                                double *scratch);

/* Refine ndim per-axis grids (shared = 0; grid a from row a of d) or the
   one shared grid (shared != 0; from the sum of the ndim rows of d).
   Returns the number of grids left unchanged (0: all refined). */
int gcuba_vegas_grid_refine(double *grid, int nb, int ndim, int shared,
                            const double *d, double alpha, double *scratch);

int gcuba_vegas_grid_refine_ex(double *grid, int nb, int ndim, int shared,
                               const double *d, double alpha, int mode,
                               double *scratch);

/* the same on up to nthreads CPU threads, one axis each, when there
   are at least GCUBA_VEGAS_GRID_PAR bins in all (the same bits as
   refine_ex); scratch: GCUBA_VEGAS_GRID_SCRATCH_PAR(nb, ndim) doubles.
   From 512 bins: 5D and more at Cuba's 128 (on the GPU the host's
   refinement lies between two iterations: a threshold of 512 rather than
   4096 made the shallow levels shorter) */
#define GCUBA_VEGAS_GRID_PAR 512
#define GCUBA_VEGAS_GRID_SCRATCH_PAR(nb, ndim) \
  ((size_t)(ndim) * GCUBA_VEGAS_GRID_SCRATCH(nb))
int gcuba_vegas_grid_refine_par(double *grid, int nb, int ndim, int shared,
                                const double *d, double alpha, int mode,
                                double *scratch, int nthreads);

/* Rebin ngrids grids of nbold bins (old) into grids of nb bins (grid; must
   not overlap old): the new edge i is the old map at y = i/nb.  The map is
   kept exactly when nb is a multiple of nbold (up to rounding of the
   interpolation); otherwise the new map is the piecewise-linear
   interpolation of the old one at the new knots, with the same cumulative
   distribution at every new edge. */
void gcuba_vegas_grid_resize(const double *old, int nbold, double *grid,
                             int nb, int ngrids);

#endif /* GCUBA_VEGAS_GRID_H */
