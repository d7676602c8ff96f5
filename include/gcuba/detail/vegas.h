/* detail/vegas.h -- per-sample building blocks of gcuba's Vegas, shared by
   the host (C99) and device (CUDA) back ends: the counter-based random
   numbers (Philox-4x32-10), the stratification of [0,1)^d into cubes of
   g or g+1 parts per axis with the same number of samples each (m-Cubes),
   the VEGAS importance map (one grid per axis, or one grid shared by all
   axes as in m-Cubes1D), the per-cube contribution to an iteration's
   integral and variance, a sample's bin contribution, the canonical order
   of every sum of an iteration (chunks, slices, the fixed tree) and the
   exact 128-bit fixed-point bin sums.  All functions here are pure: their
   results depend only on their arguments, so a sample is the same bits
   whichever thread, launch shape or back end computes it.  This file is
   part of gcuba. */
#ifndef GCUBA_VEGAS_H
#define GCUBA_VEGAS_H

#include <stdint.h>
#include <math.h>
#include "gcuba/hd.h"

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
   Quasi-random numbers (seed 0, as Cuba's Vegas: Sobol).

   Point i of the Sobol sequence in Gray-code order, on the axis whose 64
   direction numbers (binary fractions, Joe and Kuo's: src/vegas/sobol.c)
   are v[0..63]: the XOR of v[b] over the set bits b of i ^ (i >> 1).  As
   a double, its top 52 bits m give (2m + 1) / 2^53, in the open interval
   like gcuba_vegas_u01 (so point 0, the origin, is 2^-53 on every axis).
   Integer operations and one exact conversion: the same bits on every
   back end. */
/* point i's bits on one axis: one step per set bit of its Gray code */
GCUBA_HDI uint64_t gcuba_vegas_sobol_bits(const uint64_t *v, uint64_t i)
{
  uint64_t g = i ^ (i >> 1), x = 0;
#if defined(__CUDA_ARCH__)
  if (!(g >> 32)) { /* (the usual case, in 32-bit operations) */
    unsigned h = (unsigned)g;
    for (; h; h &= h - 1) x ^= v[__ffs((int)h) - 1];
    return x;
  }
  for (; g; g &= g - 1) x ^= v[__ffsll((long long)g) - 1];
#elif defined(__GNUC__)
  for (; g; g &= g - 1) x ^= v[__builtin_ctzll(g)];
#else
  int b;
  for (b = 0; g; ++b, g >>= 1)
    if (g & 1) x ^= v[b];
#endif
  return x;
}

/* those bits as the double in (0, 1) */
GCUBA_HDI double gcuba_vegas_sobol_value(uint64_t x)
{
  return (double)(2 * (x >> 12) + 1) * GCUBA_VEGAS_2M53;
}

GCUBA_HDI double gcuba_vegas_sobol(const uint64_t *v, uint64_t i)
{
  return gcuba_vegas_sobol_value(gcuba_vegas_sobol_bits(v, i));
}

/* point i + 1's bits from point i's, x: the Gray codes of i and i + 1
   differ in the lowest set bit of i + 1, so a walk over consecutive
   points costs one XOR per axis and point (i + 1 < 2^64) */
GCUBA_HDI uint64_t gcuba_vegas_sobol_step(const uint64_t *v, uint64_t x,
                                          uint64_t i)
{
#if defined(__CUDA_ARCH__)
  return x ^ v[__ffsll((long long)(i + 1)) - 1];
#elif defined(__GNUC__)
  return x ^ v[__builtin_ctzll(i + 1)];
#else
  int b = 0;
  for (i += 1; !(i & 1); i >>= 1) ++b;
  return x ^ v[b];
#endif
}

/* a walk over consecutive points on ndim axes (v: each axis' 64
   direction numbers, axis after axis): q[ndim] the bits of point i ... */
GCUBA_HDI void gcuba_vegas_sobol_walk_start(const uint64_t *v, int ndim,
                                            uint64_t i, uint64_t *q)
{
  int a;
  for (a = 0; a < ndim; ++a) q[a] = gcuba_vegas_sobol_bits(v + 64 * a, i);
}

/* ... u[ndim] point i's values from its bits q, which move on to point
   i + 1's */
GCUBA_HDI void gcuba_vegas_sobol_walk(const uint64_t *v, int ndim,
                                      uint64_t i, uint64_t *q, double *u)
{
  int a;
  for (a = 0; a < ndim; ++a) {
    u[a] = gcuba_vegas_sobol_value(q[a]);
    q[a] = gcuba_vegas_sobol_step(v + 64 * a, q[a], i);
  }
}

/* ------------------------------------------------------------------------
   Stratification (Lepage's stratified VEGAS as used by m-Cubes, with the
   cube count refined axis by axis).

   lim = ncall/2 (lowered to maxcubes when maxcubes > 0), at least 1.
   g = the largest integer with g^ndim <= lim (the "(ncall/2)^(1/ndim)" of
   Lepage's and m-Cubes' code, computed with an exact integer check so that
   pow() rounding cannot give g one too large or too small), at least 1 and
   below 2^31 (a cube coordinate fits an int and (c + u)/g keeps >= 20 bits
   of u).  Then r = the largest number of axes that can be divided into g+1
   instead of g parts with the cube count still <= lim: axes 0..r-1 have g+1
   parts, axes r..ndim-1 have g (r < ndim).  All cubes have the same volume
   1/ncubes; ncubes = (g+1)^r g^(ndim-r) >= lim/2 whenever g < 2^31 - 2, so
   high dimensions (where g = 1 or 2) still get about ncall/2 cubes instead
   of the few that a common g allows.
   ncubes = (g+1)^r g^(ndim-r), npg = max(ncall / ncubes, 2) (integer
   division: so each cube has a sample variance), calls = ncubes * npg,
   which is <= ncall whenever ncall >= 2 (otherwise it is 2). */

typedef struct {
  int ndim;       /* dimension */
  int g;          /* parts per axis on axes r..ndim-1, >= 1 */
  int r;          /* axes 0..r-1 have g+1 parts */
  int64_t ncubes; /* (g+1)^r g^(ndim-r) */
  int64_t npg;    /* samples per cube, >= 2 */
  int64_t calls;  /* ncubes * npg: integrand calls per iteration */
  double inv[2];  /* 1/(g+1), 1/g: y = (c + u) * inv (no division per
                     sample; the same rounding on every back end) */
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
  int64_t lim = ncall / 2, g, n;
  int r;
  if (ndim < 1) ndim = 1;
  if (maxcubes > 0 && maxcubes < lim) lim = maxcubes;
  if (lim < 1) lim = 1;
  g = (int64_t)pow((double)lim, 1.0 / (double)ndim);
  if (g > 2147483646) g = 2147483646;
  if (g < 1) g = 1;
  while (g > 1 && gcuba_vegas_ipow(g, ndim, lim) > lim) --g;
  while (g < 2147483646 && gcuba_vegas_ipow(g + 1, ndim, lim) <= lim) ++g;
  n = gcuba_vegas_ipow(g, ndim, lim);
  r = 0;
  if (g < 2147483646)
    while (r < ndim - 1 && n / g <= lim / (g + 1)) {
      n = n / g * (g + 1);
      ++r;
    }
  s->ndim = ndim;
  s->g = (int)g;
  s->r = r;
  s->ncubes = n;
  s->npg = ncall / s->ncubes;
  if (s->npg < 2) s->npg = 2;
  s->calls = s->ncubes * s->npg;
  s->inv[0] = 1.0 / (double)(g + 1);
  s->inv[1] = 1.0 / (double)g;
}

/* With quasi-random points (seed 0) there are no strata: every sample is
   a "cube" of its own (g = 1, npg = 1), so that an iteration takes
   exactly ncall samples (at least 2), as Cuba's Vegas does, and the
   cubes only fix the order of the sums. */
GCUBA_HDI void gcuba_vegas_strat_qmc(int64_t ncall, int ndim,
                                     gcuba_vegas_strat_t *s)
{
  s->ndim = ndim < 1 ? 1 : ndim;
  s->g = 1;
  s->r = 0;
  s->ncubes = ncall < 2 ? 2 : ncall;
  s->npg = 1;
  s->calls = s->ncubes;
  s->inv[0] = 0.5;
  s->inv[1] = 1.0;
}

/* parts of axis a */
GCUBA_HDI int gcuba_vegas_parts(const gcuba_vegas_strat_t *s, int a)
{
  return a < s->r ? s->g + 1 : s->g;
}

/* cube index -> coordinates c[0..ndim-1], c[a] in 0..parts(a)-1; axis 0
   varies slowest, axis ndim-1 fastest (mixed radix; with r = 0 this is
   cube = sum c[a] g^(ndim-1-a), as in m-Cubes) */
GCUBA_HDI void gcuba_vegas_cube_coords(const gcuba_vegas_strat_t *s,
                                       int64_t cube, int *c)
{
  int a;
  for (a = s->ndim - 1; a >= 0; --a) {
    int64_t p = gcuba_vegas_parts(s, a);
    c[a] = (int)(cube % p);
    cube /= p;
  }
}

/* the coordinates of cube+1 from those of cube (an odometer) */
GCUBA_HDI void gcuba_vegas_cube_next(const gcuba_vegas_strat_t *s, int *c)
{
  int a;
  for (a = s->ndim - 1; a >= 0; --a) {
    if (++c[a] < gcuba_vegas_parts(s, a)) return;
    c[a] = 0;
  }
}

/* coordinate a: part c of its parts, offset u in (0,1): y = (c + u)/parts,
   computed as (c + u) * (1/parts) and kept < 1 (the product can round up
   to 1) */
GCUBA_HDI double gcuba_vegas_point1(const gcuba_vegas_strat_t *s, int a,
                                    int c, double u)
{
  double t = ((double)c + u) * s->inv[a < s->r ? 0 : 1];
  return t < 1.0 ? t : 1.0 - GCUBA_VEGAS_2M53;
}

/* the point of cube c with offsets u in (0,1); y and u may be the same */
GCUBA_HDI void gcuba_vegas_point(const gcuba_vegas_strat_t *s, const int *c,
                                 const double *u, double *y)
{
  int a;
  for (a = 0; a < s->ndim; ++a) y[a] = gcuba_vegas_point1(s, a, c[a], u[a]);
}

/* ------------------------------------------------------------------------
   Adaptive stratification (VEGAS+, Lepage 2021), as units.

   The cubes above are then fewer (about ncall/8) and get different numbers
   of samples: cube h (0 <= h < nreal, coordinates from
   gcuba_vegas_cube_coords) is sampled by r_h >= 1 units of npg samples
   each, units R[h] .. R[h+1]-1 of the iteration (R[0] = 0, R[nreal] = the
   iteration's units).  A unit is sampled and summed exactly as a cube of
   the uniform case (its samples are unit*npg + k), so the sampling
   kernels, the chunks and slices, the tree and the bin sums stay those
   of uniform cubes of npg samples, with the units in the place of the
   cubes; only a unit's weight differs: it estimates the integral over
   its cube with weight 1/(nreal r_h), i.e. its k factors are those of a
   cube of an iteration of nreal r_h cubes (gcuba_vegas_unit_k).  The
   driver chooses r_h from the cubes' variances of the previous iteration
   (src/vegas/driver.c).  With every r_h = 1 this is the uniform case. */

/* the cube of unit u: the largest h with R[h] <= u (R increasing) */
GCUBA_HDI int64_t gcuba_vegas_unit_cube(const int64_t *R, int64_t nreal,
                                        int64_t u)
{
  int64_t lo = 0, hi = nreal; /* R[lo] <= u < R[hi] */
  while (hi - lo > 1) {
    const int64_t m = lo + (hi - lo) / 2;
    if (R[m] <= u)
      lo = m;
    else
      hi = m;
  }
  return lo;
}

/* the k factors of a unit of a cube with r units among nreal cubes, and
   the factor that scales its samples' F to their weight in the iteration
   (units / (nreal r), 1 in the uniform case): the extremes of F, which
   bound how far one sample moves the estimate, are taken of F times it */
GCUBA_HDI void gcuba_vegas_unit_k(int64_t npg, int64_t nreal, int64_t r,
                                  int64_t units, double *k, double *rho)
{
  const double n = (double)npg, nc = (double)nreal * (double)r;
  k[0] = 1.0 / (n * nc);
  k[1] = 1.0 / (n * n * (n - 1.0)) / (nc * nc);
  k[2] = n;
  *rho = (double)units / nc;
}

/* The allocation (the driver's alloc_units; the same on the host and on
   the device, so that both backends draw the same units).  Cube h of the
   new cubes s takes the variance of cube ho of the previous iteration's
   cubes o: itself when the cubes are the same, else the one that holds
   its centre (gcuba_vegas_unit_from). */
GCUBA_HDI int64_t gcuba_vegas_unit_from(const gcuba_vegas_strat_t *s,
                                        const gcuba_vegas_strat_t *o,
                                        int64_t h)
{
  /* (coordinates as gcuba_vegas_cube_coords: the last axis fastest; the
     centre of cube h on axis a, (2 c_a + 1)/(2 p_a), lies in cube
     (2 c_a + 1) po_a / (2 p_a) of o on that axis) */
  int64_t ho = 0, mul = 1, rest = h;
  int a;
  for (a = s->ndim - 1; a >= 0; --a) {
    const int64_t p = gcuba_vegas_parts(s, a), po = gcuba_vegas_parts(o, a);
    ho += (2 * (rest % p) + 1) * po / (2 * p) * mul;
    rest /= p;
    mul *= po;
  }
  return ho;
}

/* sigma_h^beta with sigma_h^2 = cv / r (a cube's unit variances summed
   over its r units) and beta = bk/32 (0 <= bk <= 32), as a product of
   repeated square roots of sigma_h^2 (IEEE square roots and products: the
   same bits on every device); 0 for a variance that is not positive */
GCUBA_HDI double gcuba_vegas_unit_weight(double cv, int64_t r, int bk)
{
  double m = cv / (double)r, w = 1;
  int j;
  if (!(m > 0)) return 0;
  for (j = 1; j <= 6; ++j) {
    m = sqrt(m);
    if ((bk >> (6 - j)) & 1) w *= m;
  }
  return w;
}

/* the units of a cube of weight w among nr cubes whose weights sum to sum
   (the canonical tree), with extra units beyond one per cube: one, and
   its share of the extra ones rounded down (a share scaled by 1 - 2^-40,
   so that rounding never gives the cubes more than extra); without a
   usable sum, the extra ones evenly.  gcuba_vegas_unit_spread then hands
   out what the rounding left. */
GCUBA_HDI int64_t gcuba_vegas_unit_count(double w, double sum, int64_t extra,
                                         int64_t nr)
{
  int64_t r;
  if (!(sum > 0 && sum <= 1.7976931348623157e308)) return 1 + extra / nr;
  r = (int64_t)((double)extra * (w / sum) * (1 - 9.094947017729282e-13));
  if (r < 0 || r > extra) r = extra; /* (rounding) */
  return 1 + r;
}

/* R[h+1] after the counts left d >= 0 of the units unallocated: they go
   one to a cube, spread evenly over the nr cubes (cube h gets
   m(h) - m(h-1) of them, m(h) = min(d, ceil((h+1) d / nr))), so that
   R[nr] is the iteration's units */
GCUBA_HDI int64_t gcuba_vegas_unit_spread(int64_t R1, int64_t h, int64_t d,
                                          int64_t nr)
{
  const int64_t m = ((h + 1) * d + nr - 1) / nr;
  return R1 + (m < d ? m : d);
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

   Edge powers (epow, NULL when all are 0): epow[2a] and epow[2a+1] are
   exponents k of axis a's first and last bin, which then map by a power
   law instead: with u = y nb - b in the first bin, x = e[0] + u^g (e[1] -
   e[0]), and with u = 1 - (y nb - b) in the last, x = e[nb] - u^g (e[nb]
   - e[nb-1]), g = 2^k (u read back from the linear map's x); the
   Jacobian has the factor g u^(g-1) more.  An
   integrable singularity x^-p on that face keeps a finite variance in the
   bin for p < 1 - 1/(2g) (a linear bin: p < 1/2), however narrow the bin
   (the Vegas driver raises k while the map chases the face, see
   doc/vegas.md).  u^(g-1) is a product of squarings, so host and device
   get the same bits.

   Bitwise agreement of host and device: wherever a product feeds a sum,
   this file calls fma() explicitly (one rounding, the same in IEEE
   arithmetic everywhere), so that the compilers' contraction of a*b + c
   (nvcc's default --fmad=true, gcc's -ffp-contract=fast on FMA hardware)
   cannot make the two differ; everything else is single IEEE operations
   (+ - * / sqrt, correctly rounded on both).  Code that calls these
   functions must take the same care with its own sums (e.g. s2 += F*F). */

/* the bin of y in [0,1): floor(y nb), clamped to 0..nb-1 (shared by the map
   and by the bin accumulation, so both see the same bin) */
GCUBA_HDI int gcuba_vegas_bin_of(double y, int nb)
{
  int b = (int)(y * (double)nb);
  if (b > nb - 1) b = nb - 1;
  if (b < 0) b = 0;
  return b;
}

/* the power law of an edge bin: u in [0,1] becomes u^g, g = 2^k (k >= 1),
   *dj = g u^(g-1) */
GCUBA_HDI double gcuba_vegas_powlaw(double u, int k, double *dj)
{
  double p = u, q = u;
  int i;
  for (i = 1; i < k; ++i) {
    q = q * q;
    p = p * q;
  }
  *dj = ldexp(p, k);
  return p * u;
}

/* The edge powers applied to a point x that the linear map put in the
   first or last bin of an axis, after the linear map's loop, which stays
   as it was without them (the position in the bin is read back from x,
   the same way on host and device); returns the Jacobian's extra factor.
   On an H200, f3 3D of bench-vegas (a cheap integrand) at 6.4e-8 samples
   12% slower than without the edge powers, with them in the loop or
   here, inlined or not; f5 8D and f6 6D do not move. */
GCUBA_HDI double gcuba_vegas_map_edges(const double *grid, int nb,
                                       int shared, int ndim, double *x,
                                       const int *epow)
{
  double jac = 1.0;
  int a;
  for (a = 0; a < ndim; ++a) {
    const double *e = grid + (shared ? 0 : (long)a * (nb + 1));
    const int first = x[a] < e[1];
    const int k = first ? epow[2 * a]
                        : x[a] >= e[nb - 1] ? epow[2 * a + 1] : 0;
    double lo, hi, u, dj, t;
    if (k <= 0) continue;
    lo = first ? e[0] : e[nb - 1];
    hi = first ? e[1] : e[nb];
    u = first ? (x[a] - lo) / (hi - lo) : (hi - x[a]) / (hi - lo);
    if (u < 0) u = 0;
    if (u > 1) u = 1;
    u = gcuba_vegas_powlaw(u, k, &dj);
    t = first ? fma(u, hi - lo, lo) : fma(-u, hi - lo, hi);
    if (t >= hi) t = nextafter(hi, lo);
    if (t < lo) t = lo;
    x[a] = t;
    jac *= dj;
  }
  return jac;
}

GCUBA_HDI double gcuba_vegas_map(const double *grid, int nb, int shared,
                                 int ndim, const double *y, double *x,
                                 int *bin, const int *epow)
{
  const double fnb = (double)nb;
  double jac = 1.0;
  int a;
  for (a = 0; a < ndim; ++a) {
    const double *e = grid + (shared ? 0 : (long)a * (nb + 1));
    double lo, hi, fr, t;
    int b = gcuba_vegas_bin_of(y[a], nb);
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
  if (epow) jac *= gcuba_vegas_map_edges(grid, nb, shared, ndim, x, epow);
  return jac;
}

/* The point y in [0,1)^ndim of sample `sample` = cube*npg + k of an
   iteration.  Pseudo-random (sobol NULL): the stream (seed, iter,
   sample) placed in cube c (coordinates from gcuba_vegas_cube_coords).
   Quasi-random (sobol: ndim*64 direction numbers): Sobol point
   qoff + sample + 1, where qoff is the samples of the earlier
   iterations (point 0, the origin, is skipped as in Cuba), on the whole
   of [0,1)^ndim: the cubes are then only groups of consecutive points
   (the order of the sums), not strata. */
/* axis a of the quasi-random point of sample `sample` */
GCUBA_HDI double gcuba_vegas_qy(const uint64_t *sobol, uint64_t qoff,
                                uint64_t sample, int a)
{
  return gcuba_vegas_sobol(sobol + (long)a * 64, qoff + sample + 1);
}

GCUBA_HDI void gcuba_vegas_y(uint64_t seed, uint32_t iter,
                             const uint64_t *sobol, uint64_t qoff,
                             const gcuba_vegas_strat_t *s, uint64_t sample,
                             const int *c, double *y)
{
  int a;
  if (sobol) {
    for (a = 0; a < s->ndim; ++a)
      y[a] = gcuba_vegas_qy(sobol, qoff, sample, a);
    return;
  }
  gcuba_vegas_uniforms(seed, iter, sample, s->ndim, y);
  gcuba_vegas_point(s, c, y, y);
}

/* One complete sample: point k (0 <= k < npg) of cube `cube` (coordinates c,
   from gcuba_vegas_cube_coords) in iteration iter, i.e. sample =
   cube*npg + k of gcuba_vegas_y; writes x[0..ndim-1] and bin[0..ndim-1]
   (may be NULL), returns the Jacobian of the map (with the edge powers
   epow, see gcuba_vegas_map).  The caller then multiplies the integrand
   by the returned Jacobian. */
GCUBA_HDI double gcuba_vegas_sample(uint64_t seed, uint32_t iter,
                                    const uint64_t *sobol, uint64_t qoff,
                                    const gcuba_vegas_strat_t *s,
                                    int64_t cube, int64_t k, const int *c,
                                    const double *grid, int nb, int shared,
                                    const int *epow, double *x, int *bin)
{
  uint64_t sample = (uint64_t)cube * (uint64_t)s->npg + (uint64_t)k;
  gcuba_vegas_y(seed, iter, sobol, qoff, s, sample, c, x);
  return gcuba_vegas_map(grid, nb, shared, s->ndim, x, x, bin, epow);
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

/* The same with the divisions done once per iteration (what the back ends
   use): k[0] = 1/(npg ncubes), k[1] = 1/(npg^2 (npg-1) ncubes^2), k[2] =
   npg from gcuba_vegas_cube_k; then I = s1 k[0], Var = v k[1].  (Results
   may differ from gcuba_vegas_cube_estimate's in the last bit.) */
GCUBA_HDI void gcuba_vegas_cube_k(int64_t npg, int64_t ncubes, double *k)
{
  const double n = (double)npg, nc = (double)ncubes;
  k[0] = 1.0 / (n * nc);
  k[1] = 1.0 / (n * n * (n - 1.0)) / (nc * nc);
  k[2] = n;
}

/* Quasi-random points are not strata: the variance is then Cuba's, that
   of independent samples, Var = (sum F^2 / N - I^2) / (N - 1) with N =
   calls.  gcuba_vegas_cube_k_iid sets k[0] = 1/N, k[1] = 1/(N (N-1)),
   k[2] = 0 (the mark), and the cube's V term is s2 k[1]; the caller
   subtracts I^2 / (N - 1) from the total (gcuba_vegas_iid_var). */
GCUBA_HDI void gcuba_vegas_cube_k_iid(int64_t calls, double *k)
{
  const double n = (double)calls;
  k[0] = 1.0 / n;
  k[1] = 1.0 / n / (n > 1 ? n - 1.0 : 1.0);
  k[2] = 0;
}

GCUBA_HDI double gcuba_vegas_iid_var(double sum, double I, int64_t calls)
{
  const double n = (double)calls;
  double v = sum - I * I / (n > 1 ? n - 1.0 : 1.0);
  return v > 0 ? v : 0;
}

/* A product that the caller adds to a sum (the cube's terms go into the
   chunk sums): on the device an explicitly rounded multiplication, which
   nvcc never fuses with the addition (with an ordinary * it may, and
   did, after inlining: the chunk sums then differed from the host's in
   the last bit). */
#if defined(__CUDA_ARCH__)
#define GCUBA_VEGAS_MUL(a, b) __dmul_rn((a), (b))
#else
#define GCUBA_VEGAS_MUL(a, b) ((a) * (b))
#endif

GCUBA_HDI void gcuba_vegas_cube_estimate_k(double s1, double s2,
                                           const double *k, double *ip,
                                           double *vp)
{
  double t, v;
  *ip = GCUBA_VEGAS_MUL(s1, k[0]);
  if (k[2] == 0) {
    *vp = GCUBA_VEGAS_MUL(s2, k[1]);
    return;
  }
  t = sqrt(s2 * k[2]);
  v = (t - s1) * (t + s1);
  if (!(v > 0)) v = 0;
  *vp = GCUBA_VEGAS_MUL(v, k[1]);
}

/* A unit's share of its cube's variance for the allocation: the sum over
   the components of qw_c (npg s2 - s1^2) (the weights of the bin
   contributions; the clamp at 0 as above), accumulated in component order
   from u = 0 as u = fma(v_c, qw_c, u) */
GCUBA_HDI double gcuba_vegas_unit_var(double u, double s1, double s2,
                                      double npg, double qw)
{
  double t = sqrt(s2 * npg), v = (t - s1) * (t + s1);
  if (!(v > 0)) v = 0;
  return fma(v, qw, u);
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

/* ------------------------------------------------------------------------
   One sample into its cube's sums: F = f J, s1 += F, s2 += F^2, with the
   products fused explicitly (s1 = fma(f, J, s1), F = f*J, s2 = fma(F, F,
   s2)) so that no compiler contraction can make host and device differ.
   Returns F (what the bins of the first component see). */
GCUBA_HDI double gcuba_vegas_acc(double f, double jac, double *s1, double *s2)
{
  double fj = f * jac;
  *s1 = fma(f, jac, *s1);
  *s2 = fma(fj, fj, *s2);
  return fj;
}

/* A sample's contribution to the bins: q = sum_c w_c F_c^2 over the
   components, accumulated in component order as q = fma(F_c F_c, w_c, q)
   from q = 0.  The driver sets the weights (the grid serves every
   component in proportion to 1/tolerance_c^2; first iteration: the first
   component alone); with one component w = 1 and q = F^2 exactly. */
GCUBA_HDI double gcuba_vegas_q(double q, double F, double w)
{
  return fma(F * F, w, q);
}

/* the final q of a sample: NaN (from an infinite F) counts as +inf, so that
   every back end sees the same largest q (and then no bin sums) */
GCUBA_HDI double gcuba_vegas_qfix(double q)
{
  return q <= 1.7976931348623157e308 ? q : (double)INFINITY;
}

/* The largest and smallest F of an iteration are found with integer
   atomics on the device: a double's order key (an unsigned integer that
   orders like the double; NaN never occurs, the iteration then fails)
   and back. */
GCUBA_HDI uint64_t gcuba_vegas_okey(double v)
{
  union {
    double d;
    uint64_t u;
  } b;
  b.d = v;
  return (b.u >> 63) ? ~b.u : (b.u | 0x8000000000000000ull);
}

GCUBA_HDI double gcuba_vegas_okey_value(uint64_t k)
{
  union {
    double d;
    uint64_t u;
  } b;
  b.u = (k >> 63) ? (k & 0x7fffffffffffffffull) : ~k;
  return b.d;
}

/* ------------------------------------------------------------------------
   The order of every sum of an iteration (the same on every back end, so
   that results do not depend on threads, launch shape or back end).

   The cubes 0..ncubes-1 are cut into chunks of cpt consecutive cubes (a
   chunk is what one thread does: "a batch of cubes per thread"), and the
   chunks into slices of spc consecutive chunks.  For every component c:
     cube:   s1, s2 summed over k = 0..npg-1 in order (gcuba_vegas_acc),
             then gcuba_vegas_cube_estimate_k gives (I_cube, V_cube);
     chunk:  I and V summed over its cubes in order, starting from 0;
     slice:  the chunk sums reduced by the canonical tree: groups of
             GCUBA_VEGAS_GROUP (256) consecutive values, padded with zeros,
             each reduced by halving (v[i] += v[i + h] for i < h, h = 128,
             64, ..., 1), the group results reduced the same way, until one
             value is left;
     total:  the slice results added in slice order, starting from 0.
   cpt: the largest power of two with cpt*npg <= 32 and cpt <= ncubes/2^18
   (at least 1): small iterations get one cube per thread, large ones about
   32 samples per thread.  spc: min(2^24 / (cpt npg), 2^22 / ncomp),
   rounded down to a multiple of 256 when above it, at least 1 (a slice is
   at most 2^24 samples, its chunk sums at most 2^22 values per kind).

   Bin contributions (adapting iterations only): for each slice, qmax = the
   largest q (gcuba_vegas_q) of a sample in the slice; every q is turned into
   a 128-bit integer round-down(F^2 2^E) with E = gcuba_vegas_fx_exp(qmax,
   slice samples), so that the slice's sum cannot overflow; integer sums are
   exact, hence the same in any order (per-thread, per-block in shared
   memory, atomics).  Each cell's slice sum is converted to a double by
   gcuba_vegas_fx_value and added to d[a*nb + b] in slice order. */

#define GCUBA_VEGAS_GROUP 256
#define GCUBA_VEGAS_SLICE_SAMPLES ((int64_t)1 << 24)
#define GCUBA_VEGAS_SLICE_VALUES ((int64_t)1 << 22)

typedef struct {
  int64_t cpt;     /* cubes per chunk */
  int64_t nchunks; /* ceil(ncubes / cpt) */
  int64_t spc;     /* chunks per slice */
  int64_t nslices; /* ceil(nchunks / spc) */
} gcuba_vegas_plan_t;

GCUBA_HDI void gcuba_vegas_plan(const gcuba_vegas_strat_t *s, int ncomp,
                                gcuba_vegas_plan_t *p)
{
  int64_t cpt = 1, spc, v;
  while (2 * cpt * s->npg <= 32 && 2 * cpt <= (s->ncubes >> 18)) cpt *= 2;
  spc = GCUBA_VEGAS_SLICE_SAMPLES / (cpt * s->npg);
  v = GCUBA_VEGAS_SLICE_VALUES / (ncomp > 0 ? ncomp : 1);
  if (v < spc) spc = v;
  if (spc > GCUBA_VEGAS_GROUP) spc -= spc % GCUBA_VEGAS_GROUP;
  if (spc < 1) spc = 1;
  p->cpt = cpt;
  p->nchunks = (s->ncubes + cpt - 1) / cpt;
  p->spc = spc;
  p->nslices = (p->nchunks + spc - 1) / spc;
}

/* number of tree levels for n values (0 for n <= 1) and the size after
   one level */
GCUBA_HDI int64_t gcuba_vegas_tree_next(int64_t n)
{
  return (n + GCUBA_VEGAS_GROUP - 1) / GCUBA_VEGAS_GROUP;
}

/* the canonical reduction of one group held in v[0..255] (zero-padded):
   the result is in v[0] */
GCUBA_HDI void gcuba_vegas_tree_group(double *v)
{
  int h, i;
  for (h = GCUBA_VEGAS_GROUP / 2; h > 0; h /= 2)
    for (i = 0; i < h; ++i) v[i] = v[i] + v[i + h];
}

/* ------------------------------------------------------------------------
   Exact bin sums: 128-bit fixed point (hi, lo), value = hi 2^64 + lo. */

#define GCUBA_VEGAS_FX_NONE (-100000) /* no usable scale: no bin sums */

/* the scale exponent for a slice of n samples whose largest contribution is
   qmax: qmax 2^E < 2^(126 - bits(n)), so the sum stays below 2^126 */
GCUBA_HDI int gcuba_vegas_fx_exp(double qmax, int64_t n)
{
  int e, bits = 0;
  if (!(qmax > 0) || !(qmax <= 1.7976931348623157e308))
    return GCUBA_VEGAS_FX_NONE;
  (void)frexp(qmax, &e); /* qmax < 2^e */
  while (n > 0) {
    ++bits;
    n >>= 1;
  }
  return 126 - bits - e;
}

/* q >= 0 as round-down(q 2^E) in (hi, lo) */
GCUBA_HDI void gcuba_vegas_fx_split(double q, int E, uint64_t *hi,
                                    uint64_t *lo)
{
  const double two64 = 18446744073709551616.0;
  double v = ldexp(q, E);
  if (!(v >= 1)) {
    *hi = *lo = 0;
  } else if (v < two64) {
    *hi = 0;
    *lo = (uint64_t)v;
  } else {
    double h = floor(v / two64); /* exact: v / 2^64 is exact */
    *hi = (uint64_t)h;
    *lo = (uint64_t)(v - ldexp(h, 64)); /* exact (see doc/vegas.md) */
  }
}

/* the same with p = 2^E given (E in -1022..1023, where 2^E is a normal
   double): q p is then q 2^E exactly wherever it is >= 1, and below 1
   both give 0, so the bits are gcuba_vegas_fx_split's without a call
   to ldexp per sample */
GCUBA_HDI void gcuba_vegas_fx_split_p(double q, double p, uint64_t *hi,
                                      uint64_t *lo)
{
  const double two64 = 18446744073709551616.0;
  double v = q * p;
  if (!(v >= 1)) {
    *hi = *lo = 0;
  } else if (v < two64) {
    *hi = 0;
    *lo = (uint64_t)v;
  } else {
    double h = floor(v / two64);
    *hi = (uint64_t)h;
    *lo = (uint64_t)(v - h * two64); /* h 2^64 is exact */
  }
}

/* (hi, lo) += (h, l), exactly (mod 2^128) */
GCUBA_HDI void gcuba_vegas_fx_add(uint64_t *hi, uint64_t *lo, uint64_t h,
                                  uint64_t l)
{
  uint64_t s = *lo + l;
  *hi += h + (s < l ? 1 : 0);
  *lo = s;
}

/* the double nearest-ish to (hi 2^64 + lo) 2^-E (two roundings, the same
   everywhere) */
GCUBA_HDI double gcuba_vegas_fx_value(uint64_t hi, uint64_t lo, int E)
{
  double v = ldexp((double)hi, 64) + (double)lo;
  return ldexp(v, -E);
}

#endif /* GCUBA_VEGAS_H */
