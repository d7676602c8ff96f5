/* gcuba/detail/suave.h -- the numerics of one gSuave sample, shared by
   host and device: a region's importance grid maps a uniform point u of
   [0,1)^ndim to a point x of the region, its bins and its weight.

   A region of gSuave (src/suave/) is a box [lo, hi] split div times from
   the unit cube, so of volume 2^-div, with one grid per axis:
   GCUBA_SUAVE_NB bins with edges 0 = e[0] < ... < e[NB] = 1, fractions
   of the axis' width (the layout of gVegas's grids, src/vegas/grid.h,
   whose refinement gSuave uses).  u on an axis falls in bin
   b = floor(u NB) at the relative position u NB - b; the bin's width
   e[b+1] - e[b] times NB is the axis' factor of the weight.  A set of
   nnew samples drawn in a region gives each sample the weight
   2^-div/nnew times those factors, so that the sum of w f over the set
   estimates the region's integral.  Integer and single IEEE operations
   with one fma per axis: the same bits on every backend.

   This file is part of gcuba. */
#ifndef GCUBA_SUAVE_H
#define GCUBA_SUAVE_H

#include <math.h>
#include "gcuba/hd.h"

/* bins per axis of a region's grid (Cuba's Suave: 64) */
#define GCUBA_SUAVE_NB 64

/* one axis of the map: x and bin of the uniform u on the axis lo..hi
   with grid e (NB + 1 edges); returns the axis' factor NB (e[b+1] -
   e[b]) */
GCUBA_HDI double gcuba_suave_map1(double u, double lo, double hi,
                                  const double *e, double *x,
                                  unsigned char *bin)
{
  const double pos = u * GCUBA_SUAVE_NB;
  int b = (int)pos;
  double diff;
  if (b > GCUBA_SUAVE_NB - 1) b = GCUBA_SUAVE_NB - 1;
  diff = e[b + 1] - e[b];
  *x = fma(fma(pos - b, diff, e[b]), hi - lo, lo);
  *bin = (unsigned char)b;
  return diff * GCUBA_SUAVE_NB;
}

/* x[0..ndim) and bin[0..ndim) of the uniform point u in the region
   lo/hi with grids e (ndim rows of NB + 1 edges); returns the product
   of the axes' factors, axis by axis */
GCUBA_HDI double gcuba_suave_map(int ndim, const double *u, const double *lo,
                                 const double *hi, const double *e,
                                 double *x, unsigned char *bin)
{
  double wt = 1;
  int a;
  for (a = 0; a < ndim; ++a, e += GCUBA_SUAVE_NB + 1)
    wt *= gcuba_suave_map1(u[a], lo[a], hi[a], e, x + a, bin + a);
  return wt;
}

#endif
