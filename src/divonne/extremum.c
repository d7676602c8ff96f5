/* src/divonne/extremum.c -- the smallest value of one component of the
   integrand in a box, searched from the best point of a sampling: the
   spread of a region (half its volume times max - min) is only as good as
   its extrema.  gcuba's own search: a projected descent with the
   gradient by finite differences, each coordinate scaled by the box's
   width, with a step that doubles after a success and shrinks fourfold
   after a failure; coordinates at a face whose gradient points outwards
   stay there.  It stops after a step that gains less than 5% of
   1 + |f| (Cuba's tolerance), when the step falls below 2^-20 of the
   box, or after 50 ndim evaluations (the budget of Cuba's search).  This file is
   part of gcuba. */
#include <math.h>
#include <string.h>
#include "divonne/divonne_int.h"

#define STEP0 .25
#define STEPMIN 0x1p-20
#define FD 0x1p-16 /* the finite difference, relative to the box */
#define FTOL 5e-2  /* a step that gains less (relative to 1 + |f|) ends it */

double gcuba_divonne_minimum(divonne *d, const double *lo, const double *hi,
                             double *x, double fx)
{
  const int nd = d->ndim;
  const long long budget = d->neval + 50LL * nd;
  double g[GCUBA_MAXDIM], y[GCUBA_MAXDIM];
  double step = STEP0;
  int j;
  while (d->neval < budget && step >= STEPMIN) {
    double big = 0, fy;
    int moved = 0;
    /* the gradient, in units of the box's widths */
    for (j = 0; j < nd; ++j) {
      const double w = hi[j] - lo[j], xj = x[j];
      double h = FD * w;
      if (w <= 0) {
        g[j] = 0;
        continue;
      }
      if (xj + h > hi[j]) h = -h;
      x[j] = xj + h;
      g[j] = (gcuba_divonne_point(d, x) - fx) / h * w;
      x[j] = xj;
      /* at a face, pointing outwards: the coordinate stays */
      if ((xj <= lo[j] && g[j] > 0) || (xj >= hi[j] && g[j] < 0)) g[j] = 0;
      if (fabs(g[j]) > big) big = fabs(g[j]);
    }
    if (!(big > 0)) break;
    /* descend: the largest move is step times its axis' width */
    while (d->neval < budget && step >= STEPMIN) {
      for (j = 0; j < nd; ++j) {
        double v = x[j] - step * g[j] / big * (hi[j] - lo[j]);
        y[j] = v < lo[j] ? lo[j] : v > hi[j] ? hi[j] : v;
      }
      fy = gcuba_divonne_point(d, y);
      if (fy < fx) {
        const double gain = fx - fy;
        memcpy(x, y, (size_t)nd * sizeof(double));
        fx = fy;
        if (gain <= FTOL * (1 + fabs(fx))) return fx;
        step = 2 * step < 1 ? 2 * step : 1;
        moved = 1;
        break;
      }
      step *= .25;
    }
    if (!moved) break;
  }
  return fx;
}
