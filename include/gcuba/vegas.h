/* gcuba/vegas.h -- per-sample building blocks of gcuba's Vegas, shared by
   the host (C99) and device (CUDA) back ends: the counter-based random
   numbers (Philox-4x32-10), the stratification of [0,1)^d into g^d cubes with
   the same number of samples each (m-Cubes), the VEGAS importance map (one
   grid per axis, or one grid shared by all axes as in m-Cubes1D), the
   per-cube contribution to an iteration's integral and variance, and the bin
   accumulators that drive the grid refinement (src/vegas/grid.c).  All
   functions here are pure: their results depend only on their arguments, so a
   sample is the same bits whichever thread, launch shape or back end computes
   it.  This file is part of gcuba. */
#ifndef GCUBA_VEGAS_H
#define GCUBA_VEGAS_H

#include <stdint.h>
#include <math.h>
#include "hd.h"

/* ------------------------------------------------------------------------
   Random numbers.

   One Philox-4x32-10 evaluation gives four 32-bit words, i.e. two doubles.
   Sample `sample` of iteration `iter` needs ceil(ndim/2) evaluations, block
   j = 0, 1, ... giving u[2j] and u[2j+1].  Layout:

     key = { seed & 0xffffffff, seed >> 32 }
     ctr = { sample & 0xffffffff, sample >> 32, iter, j }

   Double k of a block (k = 0, 1) is built from words 2k (high) and 2k+1
   (low): the top 52 bits m of hi:lo give u = (2m + 1) / 2^53, which is exact
   in a double and lies in [2^-53, 1 - 2^-53], never 0 or 1 (Random123's
   "open_open 64->53" convention; 53 random bits with equal spacing cannot
   avoid both ends).  Callers use sample = cube * npg + k (see
   gcuba_vegas_sample), so the stream is fixed by (seed, iter, cube, k, dim)
   alone. */

#define GCUBA_VEGAS_2M53 (1.0 / 9007199254740992.0) /* 2^-53 */

GCUBA_HDI double gcuba_vegas_u01(uint32_t hi, uint32_t lo)
{
  uint64_t m = ((uint64_t)hi << 20) | (uint64_t)(lo >> 12);
  return (double)(2 * m + 1) * GCUBA_VEGAS_2M53;
}

/* Philox-4x32-10 (Salmon, Moraes, Dror, Shaw, "Parallel random numbers:
   as easy as 1, 2, 3", SC11): ten rounds of two 32x32->64 multiplications
   with the published constants; the key is bumped by the Weyl constants
   between rounds.  Bit-identical to Random123's philox4x32 (the test
   checks its known answers, and against Random123 itself when the
   headers are installed). */
#define GCUBA_PHILOX_M0 0xD2511F53u
#define GCUBA_PHILOX_M1 0xCD9E8D57u
#define GCUBA_PHILOX_W0 0x9E3779B9u
#define GCUBA_PHILOX_W1 0xBB67AE85u

GCUBA_HDI void gcuba_philox4x32_10(uint32_t *x, uint32_t k0, uint32_t k1)
{
  int r;
  for (r = 0; r < 10; ++r) {
    uint64_t p0 = (uint64_t)GCUBA_PHILOX_M0 * x[0];
    uint64_t p1 = (uint64_t)GCUBA_PHILOX_M1 * x[2];
    uint32_t y0 = (uint32_t)(p1 >> 32) ^ x[1] ^ k0;
    uint32_t y2 = (uint32_t)(p0 >> 32) ^ x[3] ^ k1;
    x[0] = y0;
    x[1] = (uint32_t)p1;
    x[2] = y2;
    x[3] = (uint32_t)p0;
    k0 += GCUBA_PHILOX_W0;
    k1 += GCUBA_PHILOX_W1;
  }
}

/* the four raw words of block `block` (see the layout above) */
GCUBA_HDI void gcuba_vegas_philox(uint64_t seed, uint32_t iter,
                                  uint64_t sample, uint32_t block,
                                  uint32_t *w)
{
  w[0] = (uint32_t)sample;
  w[1] = (uint32_t)(sample >> 32);
  w[2] = iter;
  w[3] = block;
  gcuba_philox4x32_10(w, (uint32_t)seed, (uint32_t)(seed >> 32));
}

/* u[0..ndim-1], uniform in the open interval (0,1) */
GCUBA_HDI void gcuba_vegas_uniforms(uint64_t seed, uint32_t iter,
                                    uint64_t sample, int ndim, double *u)
{
  uint32_t w[4];
  int j;
  for (j = 0; 2 * j < ndim; ++j) {
    gcuba_vegas_philox(seed, iter, sample, (uint32_t)j, w);
    u[2 * j] = gcuba_vegas_u01(w[0], w[1]);
    if (2 * j + 1 < ndim) u[2 * j + 1] = gcuba_vegas_u01(w[2], w[3]);
  }
}

/* ------------------------------------------------------------------------
   Stratification (Lepage's stratified VEGAS as used by m-Cubes).

   g = the largest integer with 2 g^ndim <= ncall (the "(ncall/2)^(1/ndim)"
   of Lepage's and m-Cubes' code, computed with an exact integer check so
   that pow() rounding cannot give g one too large or too small), at least 1.
   When maxcubes > 0, g is lowered further until g^ndim <= maxcubes (e.g. to
   bound per-cube memory on a device); g is also kept below 2^31 so that a
   cube coordinate fits an int and (c + u)/g keeps >= 20 bits of u.
   ncubes = g^ndim, npg = max(ncall / ncubes, 2) (integer division: so each
   cube has a sample variance), calls = ncubes * npg, which is <= ncall
   whenever ncall >= 2 (otherwise it is 2). */

typedef struct {
  int ndim;       /* dimension */
  int g;          /* cubes per axis, >= 1 */
  int64_t ncubes; /* g^ndim */
  int64_t npg;    /* samples per cube, >= 2 */
  int64_t calls;  /* ncubes * npg: integrand calls per iteration */
} gcuba_vegas_strat_t;

/* g^n, saturating at limit + 1 */
GCUBA_HDI int64_t gcuba_vegas_ipow(int64_t g, int n, int64_t limit)
{
  int64_t p = 1;
  int i;
  for (i = 0; i < n; ++i) {
    if (p > limit / g) return limit + 1;
    p *= g;
  }
  return p;
}

GCUBA_HDI void gcuba_vegas_strat(int64_t ncall, int ndim, int64_t maxcubes,
                                 gcuba_vegas_strat_t *s)
{
  int64_t lim = ncall / 2, g;
  if (ndim < 1) ndim = 1;
  if (maxcubes > 0 && maxcubes < lim) lim = maxcubes;
  if (lim < 1) lim = 1;
  g = (int64_t)pow((double)lim, 1.0 / (double)ndim);
  if (g > 2147483646) g = 2147483646;
  if (g < 1) g = 1;
  while (g > 1 && gcuba_vegas_ipow(g, ndim, lim) > lim) --g;
  while (g < 2147483646 && gcuba_vegas_ipow(g + 1, ndim, lim) <= lim) ++g;
  s->ndim = ndim;
  s->g = (int)g;
  s->ncubes = gcuba_vegas_ipow(g, ndim, lim);
  s->npg = ncall / s->ncubes;
  if (s->npg < 2) s->npg = 2;
  s->calls = s->ncubes * s->npg;
}

/* cube index -> coordinates c[0..ndim-1] in 0..g-1; axis 0 varies slowest,
   axis ndim-1 fastest (cube = sum c[a] g^(ndim-1-a), as in m-Cubes) */
GCUBA_HDI void gcuba_vegas_cube_coords(int64_t cube, int g, int ndim, int *c)
{
  int a;
  for (a = ndim - 1; a >= 0; --a) {
    c[a] = (int)(cube % g);
    cube /= g;
  }
}

/* the point of cube c with offsets u in (0,1): y = (c + u)/g, kept < 1
   (for large g the sum can round up to g) */
GCUBA_HDI void gcuba_vegas_point(int ndim, int g, const int *c,
                                 const double *u, double *y)
{
  const double fg = (double)g;
  int a;
  for (a = 0; a < ndim; ++a) {
    double t = ((double)c[a] + u[a]) / fg;
    y[a] = t < 1.0 ? t : 1.0 - GCUBA_VEGAS_2M53;
  }
}

/* ------------------------------------------------------------------------
   The importance map.

   A grid has nb bins with edges e[0] = 0 < e[1] < ... < e[nb] = 1; axis a
   uses grid + a*(nb+1), or grid itself for every axis when `shared` is set
   (m-Cubes1D).  y in [0,1) falls in bin b = floor(y nb) and maps linearly
   onto [e[b], e[b+1]):  x = e[b] + (y nb - b)(e[b+1] - e[b]).  The Jacobian
   is prod_a nb (e[b_a+1] - e[b_a]), so that E_y[f(x(y)) J(y)] = int f dx.
   x is clamped below e[b+1] so that x lies in its bin (and x < 1) even when
   rounding would land on the upper edge.  y and x may be the same array.
   bin may be NULL.  Returns the Jacobian.

   Bitwise agreement of host and device: wherever a product feeds a sum,
   this file calls fma() explicitly (one rounding, the same in IEEE
   arithmetic everywhere), so that the compilers' contraction of a*b + c
   (nvcc's default --fmad=true, gcc's -ffp-contract=fast on FMA hardware)
   cannot make the two differ; everything else is single IEEE operations
   (+ - * / sqrt, correctly rounded on both).  Code that calls these
   functions must take the same care with its own sums (e.g. s2 += F*F). */

GCUBA_HDI double gcuba_vegas_map(const double *grid, int nb, int shared,
                                 int ndim, const double *y, double *x,
                                 int *bin)
{
  const double fnb = (double)nb;
  double jac = 1.0;
  int a;
  for (a = 0; a < ndim; ++a) {
    const double *e = grid + (shared ? 0 : (long)a * (nb + 1));
    double lo, hi, fr, t;
    int b = (int)(y[a] * fnb);
    if (b > nb - 1) b = nb - 1;
    if (b < 0) b = 0;
    lo = e[b];
    hi = e[b + 1];
    fr = fma(y[a], fnb, -(double)b);
    if (fr < 0) fr = 0;
    t = fma(fr, hi - lo, lo);
    if (t >= hi) t = nextafter(hi, lo);
    if (t < lo) t = lo;
    x[a] = t;
    if (bin) bin[a] = b;
    jac *= fnb * (hi - lo);
  }
  return jac;
}

/* One complete sample: point k (0 <= k < npg) of cube `cube` (coordinates c,
   from gcuba_vegas_cube_coords) in iteration iter.  Uses the random stream
   sample = cube*npg + k, writes x[0..ndim-1] and bin[0..ndim-1] (may be
   NULL), returns the Jacobian of the map.  The caller then multiplies the
   integrand by the returned Jacobian. */
GCUBA_HDI double gcuba_vegas_sample(uint64_t seed, uint32_t iter,
                                    const gcuba_vegas_strat_t *s,
                                    int64_t cube, int64_t k, const int *c,
                                    const double *grid, int nb, int shared,
                                    double *x, int *bin)
{
  uint64_t sample = (uint64_t)cube * (uint64_t)s->npg + (uint64_t)k;
  gcuba_vegas_uniforms(seed, iter, sample, s->ndim, x);
  gcuba_vegas_point(s->ndim, s->g, c, x, x);
  return gcuba_vegas_map(grid, nb, shared, s->ndim, x, x, bin);
}

/* ------------------------------------------------------------------------
   Per-cube estimate (stratified VEGAS, Lepage 1980 / m-Cubes).

   For one cube with npg samples F_k = f(x_k) J(y_k), with s1 = sum F_k and
   s2 = sum F_k^2, the cube's mean is s1/npg and its sample variance
   s^2 = (s2 - s1^2/npg)/(npg - 1).  As each cube has volume 1/ncubes in y:

     I   = sum_cubes (s1/npg) / ncubes
     Var = sum_cubes  s^2 / (npg ncubes^2)
         = sum_cubes (npg s2 - s1^2) / (npg^2 (npg - 1) ncubes^2)

   which is what m-Cubes computes (per cube f2b = (sqrt(npg s2) - s1)
   (sqrt(npg s2) + s1), summed and scaled by dv2g = 1/(npg-1) with F already
   divided by calls); a negative rounding residue is set to 0.  *ip and *vp
   receive this cube's terms; summing them over the cubes in a fixed order
   gives reproducible totals.  The factors are grouped so that no
   intermediate overflows before the division. */
GCUBA_HDI void gcuba_vegas_cube_estimate(double s1, double s2, int64_t npg,
                                         int64_t ncubes, double *ip,
                                         double *vp)
{
  const double n = (double)npg, nc = (double)ncubes;
  double t = sqrt(s2 * n), v = (t - s1) * (t + s1);
  if (!(v > 0)) v = 0;
  *ip = s1 / n / nc;
  *vp = v / (n * n * (n - 1.0)) / (nc * nc);
}

/* ------------------------------------------------------------------------
   Bin accumulators for the refinement.

   d[a*nb + b] collects, for every sample whose axis-a coordinate fell in bin
   b, (f J)^2 -- the layout is per axis also for the shared grid, whose
   refinement sums the rows (gcuba_vegas_grid_refine).  This is what Lepage's
   VEGAS, Numerical Recipes, Cuba (margsum += (weight f)^2) and the released
   m-Cubes (atomicAdd(d, f*f)) accumulate, they with f J divided by the
   number of samples first; a common factor does not matter because the
   refinement normalises each row.  Why the square: with N samples, d_b / N
   estimates int_{y in bin b} (f J)^2 dy = int_{x in bin b} f^2 J dx, about
   nb dx_b^2 <f^2>_b (the other axes averaged over), so sqrt(d_b) is
   proportional to dx_b rms(f)_b; the refinement drives all d_b to the same
   value, i.e. every bin gets the same share of int |f| (for a separable f):
   the density of VEGAS's variance-optimal map.  (An early m-Cubes prototype
   accumulated |f J| instead: same fixed point, other convergence rate.)
   Several components: weight each component's rows by 1/I_c^2 and add them
   before refining, as Cuba does.  fma() keeps host and device bitwise
   equal; summing over samples in a fixed order is the caller's job. */
GCUBA_HDI void gcuba_vegas_bin_add(double *d, int nb, int ndim,
                                   const int *bin, double fj)
{
  int a;
  for (a = 0; a < ndim; ++a) {
    double *p = d + (long)a * nb + bin[a];
    *p = fma(fj, fj, *p);
  }
}

#endif /* GCUBA_VEGAS_H */
