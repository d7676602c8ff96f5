/* src/vegas/refine.h -- the refinement of one axis of the VEGAS map
   (src/vegas/grid.c says what it does), written once for the host and
   the device: the driver refines on the host, gVegasBatch's GPU pipeline
   refines its members' grids on the device (cuda/vegas_refine.cu).
   Division and sqrt are correctly rounded on both; every product that an
   addition takes is GCUBA_VEGAS_GMUL, which nvcc does not fuse with it
   (on the host the library's C is compiled without contraction), so the
   two differ only where their log1p (and pow, for alpha other than 1.5)
   do: in the last bits of a weight.  This file is part of gcuba. */
#ifndef GCUBA_VEGAS_REFINE_H
#define GCUBA_VEGAS_REFINE_H

#include <stddef.h>
#include <math.h>
#include <float.h>
#include "gcuba/hd.h"

#if defined(__CUDA_ARCH__)
#define GCUBA_VEGAS_GMUL(a, b) __dmul_rn((a), (b))
#else
#define GCUBA_VEGAS_GMUL(a, b) ((a) * (b))
#endif

/* Lepage's default damping exponent (also Cuba's and m-Cubes') */
#define GCUBA_VEGAS_ALPHA 1.5

/* The refined map's density p is mixed with the uniform one:
   (1 - GCUBA_VEGAS_DEFENSIVE) p + GCUBA_VEGAS_DEFENSIVE (defensive
   importance sampling), so that no bin is wider than 1/(nb DEFENSIVE).
   0.01: with 0.003 one false claim in Genz's discontinuous family
   remained, 0.03 cost more evaluations.  The mass of a bin of width w of
   the unmixed map (mass 1/nb) under the mixture: */
#define GCUBA_VEGAS_DEFENSIVE 0.01
#define GCUBA_VEGAS_MIXIN(w, nb)                                            \
  ((1 - GCUBA_VEGAS_DEFENSIVE) / (double)(nb) +                             \
   GCUBA_VEGAS_GMUL(GCUBA_VEGAS_DEFENSIVE, (w)))

/* The floored form (GCUBA_VEGAS_GRID_FLOOR): the density becomes
   max(p, DEFENSIVE)/Z, Z its integral, which bounds the bins as the
   mixture does (no bin wider than Z/(nb DEFENSIVE), Z <= 1 + DEFENSIVE)
   but keeps p exactly wherever p stays above the floor.  The mixture
   weights the samples of the bulk by 1/(1 - DEFENSIVE) and sends the
   DEFENSIVE share to where the integrand is small: a relative variance
   of about DEFENSIVE per axis of a product even when the map is perfect
   (f2 6D, 1024 bins: 30 times the variance of the floored map).  The
   unnormalised mass of a bin of width w of the unfloored map: */
#define GCUBA_VEGAS_FLOORIN(w, nb)                                          \
  (GCUBA_VEGAS_GMUL(GCUBA_VEGAS_DEFENSIVE, (w)) > 1 / (double)(nb)          \
       ? GCUBA_VEGAS_GMUL(GCUBA_VEGAS_DEFENSIVE, (w))                       \
       : 1 / (double)(nb))

/* mode bits of the refinements */
#define GCUBA_VEGAS_GRID_SMOOTH 1 /* three-point smoothing (Cuba's) */
#define GCUBA_VEGAS_GRID_FLOOR 2  /* the floored form instead of the
                                     mixture */

/* number of doubles of scratch that a refinement of nb bins needs (its
   warp form: gcuba_vegas_refine_axis_warp) */
#define GCUBA_VEGAS_GRID_SCRATCH(nb) (2 * (size_t)(nb) + 1)
#define GCUBA_VEGAS_GRID_SCRATCH_WARP(nb) (3 * (size_t)(nb) + 2)

/* what the driver's settling test (gcuba_vegas_settle) reads of an axis'
   bin contributions d[0 .. nb-1]: s[0] = sum of sqrt(d_b), s[1] = sum of
   d_b, in bin order (the same bits on the host and the device) */
GCUBA_HDI void gcuba_vegas_bin_sums(const double *d, int nb, double *s)
{
  double s1 = 0, s2 = 0;
  int b;
  for (b = 0; b < nb; ++b) {
    s1 += sqrt(d[b]);
    s2 += d[b];
  }
  s[0] = s1;
  s[1] = s2;
}

/* gcuba_vegas_refine_axis(e, nb, d, nrows, alpha, mode, scratch) is
   gcuba_vegas_grid_refine1_ex (grid.h): the same arguments, the same
   return values */
/* make x[0] = 0 < x[1] < ... < x[nb] = 1, moving as few edges as possible
   by as little as possible (a few ulps), for edges that rounding or an
   extremely fine grid made equal */
GCUBA_HDI void gcuba_vegas_strict(double *x, int nb)
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
GCUBA_HDI double gcuba_vegas_damp(double m, double tot, double alpha)
{
  double rest = tot - m, q;
  if (!(rest > 0)) return 1;
  q = (rest / tot) / log1p(rest / m);
  /* Cuba's and the default alpha without a call to pow */
  return alpha == 1.5 ? GCUBA_VEGAS_GMUL(q, sqrt(q)) : pow(q, alpha);
}

/* The stages of gcuba_vegas_refine_axis, shared with the device's warp
   per grid (gcuba_vegas_refine_axis_warp), whose lanes take the loops
   over bins: the same values, every sum in bin order. */

/* bin i's contribution, summed over the rows in order */
GCUBA_HDI double gcuba_vegas_refine_row(const double *d, int nb, int nrows,
                                        int i)
{
  double s = 0;
  int r;
  for (r = 0; r < nrows; ++r) s += d[(size_t)r * nb + i];
  return s;
}

/* bin i of the normalised weights w (nb >= 2) smoothed with its
   neighbours (smooth): the ends average two bins, inner bins three */
GCUBA_HDI double gcuba_vegas_refine_smooth(const double *w, int nb, int i,
                                           int smooth)
{
  if (!smooth) return w[i];
  if (i == 0) return GCUBA_VEGAS_GMUL(0.5, w[0] + w[1]);
  if (i == nb - 1) return GCUBA_VEGAS_GMUL(0.5, w[nb - 2] + w[nb - 1]);
  return (w[i - 1] + w[i] + w[i + 1]) / 3.0;
}

/* the mass of bin k of the edges x under the mixture (floored: the
   floored form's, unnormalised) */
GCUBA_HDI double gcuba_vegas_refine_mass(const double *x, int nb, int k,
                                         int floored)
{
  return floored ? GCUBA_VEGAS_FLOORIN(x[k + 1] - x[k], nb)
                 : GCUBA_VEGAS_MIXIN(x[k + 1] - x[k], nb);
}

/* the new edges e[0 .. nb] from the old ones and the damped weights w
   (their sum wsum > 0); x: nb + 1 doubles of scratch */
GCUBA_HDI void gcuba_vegas_refine_edges(double *e, int nb, const double *w,
                                        double wsum, double *x, int floored)
{
  double avg, acc, cum, m, tot;
  int i, k, k0 = 0, k1 = nb - 1, lead, trail, nn;

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
    double target = GCUBA_VEGAS_GMUL(avg, i), t;
    while (acc < target && k < nb - 1) acc += w[++k];
    t = w[k] > 0 ? 1 - (acc - target) / w[k] : 1;
    if (t < 0) t = 0;
    if (t > 1) t = 1;
    x[lead + i] = e[k] + GCUBA_VEGAS_GMUL(t, e[k + 1] - e[k]);
  }
  if (trail) x[nb - 1] = e[k1 + 1];
  x[nb] = 1;
  gcuba_vegas_strict(x, nb);

  /* The defensive mixture: the new map's density p becomes
     (1 - DEFENSIVE) p + DEFENSIVE, i.e. new edges at equal mass of bins
     of mass (1 - DEFENSIVE)/nb + DEFENSIVE width (linear inside each);
     or, floored, max(p, DEFENSIVE)/Z (grid.h).  No bin is wider than
     1/(nb DEFENSIVE) (floored: Z times that), so no part of the axis is
     sampled so rarely that its samples, when they come, dominate the
     estimate: with the zero runs above, Genz's discontinuous family went
     from 9 false claims in 60 calls to none. */
#define MASS(k) gcuba_vegas_refine_mass(x, nb, k, floored)
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
    e[i] = x[k] + GCUBA_VEGAS_GMUL(t, x[k + 1] - x[k]);
  }
#undef MASS
  e[nb] = 1;
  gcuba_vegas_strict(e, nb);
}

GCUBA_HDI int gcuba_vegas_refine_axis(double *e, int nb, const double *d,
                                      int nrows, double alpha, int mode,
                                      double *scratch)
{
  const int smooth = mode & GCUBA_VEGAS_GRID_SMOOTH;
  double *w = scratch, *x = scratch + nb;
  double smax = 0, tot = 0, wsum = 0;
  int i;

  for (i = 0; i < nb; ++i) {
    const double s = gcuba_vegas_refine_row(d, nb, nrows, i);
    if (!(s >= 0) || s > DBL_MAX) return -1;
    w[i] = s;
    if (s > smax) smax = s;
  }
  if (nb < 2 || !(alpha > 0) || smax == 0) return 1;

  /* normalise to max 1 (no overflow below), then (unless smooth = 0)
     smooth with the neighbours */
  for (i = 0; i < nb; ++i) w[i] /= smax;
  for (i = 0; i < nb; ++i)
    tot += x[i] = gcuba_vegas_refine_smooth(w, nb, i, smooth);

  /* damped importance of each bin; empty bins get none */
  for (i = 0; i < nb; ++i)
    wsum += w[i] = x[i] > 0 ? gcuba_vegas_damp(x[i], tot, alpha) : 0;
  if (!(wsum > 0) || wsum > DBL_MAX) return 1;
  gcuba_vegas_refine_edges(e, nb, w, wsum, x, mode & GCUBA_VEGAS_GRID_FLOOR);
  return 0;
}

#if defined(__CUDACC__)
/* the first k in [lo, hi) with c[k] >= t (c non-decreasing), else hi */
__device__ inline int gcuba_vegas_first_ge(const double *c, int lo, int hi,
                                           double t)
{
  while (lo < hi) {
    const int mid = (lo + hi) >> 1;
    if (c[mid] >= t) hi = mid;
    else lo = mid + 1;
  }
  return lo;
}

/* gcuba_vegas_strict(x, nb) by a warp: nothing to do unless two edges
   are out of order (x[0] = 0 and x[nb] = 1 already) */
__device__ inline void gcuba_vegas_strict_warp(double *x, int nb)
{
  int i, bad = 0;
  for (i = 1 + (threadIdx.x & 31); i <= nb; i += 32)
    if (!(x[i] > x[i - 1])) bad = 1;
  if (__any_sync(0xffffffffu, bad) && (threadIdx.x & 31) == 0)
    gcuba_vegas_strict(x, nb);
  __syncwarp();
}

/* gcuba_vegas_refine_edges by a warp: the running sums that the serial
   walks take (lane 0, in bin order) are kept in c (nb + 1 doubles), so
   that each new edge is found by a search of its own */
__device__ inline void gcuba_vegas_refine_edges_warp(double *e, int nb,
                                                     double *w, double wsum,
                                                     double *x, double *c,
                                                     int floored)
{
  const unsigned all = 0xffffffffu;
  const int lane = threadIdx.x & 31;
  int i, k, k0 = nb, k1 = -1, lead, trail, nn, o;
  double avg, tot;

  /* the zero runs at the ends (wsum > 0: some weight) */
  for (i = lane; i < nb; i += 32)
    if (w[i] != 0) {
      if (i < k0) k0 = i;
      k1 = i;
    }
  for (o = 16; o > 0; o >>= 1) {
    const int a = __shfl_xor_sync(all, k0, o), b = __shfl_xor_sync(all, k1, o);
    if (a < k0) k0 = a;
    if (b > k1) k1 = b;
  }
  lead = k0 > 0;
  trail = k1 < nb - 1;
  nn = nb - lead - trail;
  if (nn < 2) {
    lead = trail = 0;
    nn = nb;
  }
  avg = wsum / nn;
  if (lane == 0) {
    double acc = 0;
    for (k = 0; k < nb; ++k) c[k] = acc += w[k];
    x[0] = 0;
    if (lead) x[1] = e[k0];
    if (trail) x[nb - 1] = e[k1 + 1];
    x[nb] = 1;
  }
  __syncwarp();
  for (i = 1 + lane; i < nn; i += 32) {
    const double target = GCUBA_VEGAS_GMUL(avg, i);
    double t;
    k = gcuba_vegas_first_ge(c, 0, nb, target);
    if (k > nb - 1) k = nb - 1;
    t = w[k] > 0 ? 1 - (c[k] - target) / w[k] : 1;
    if (t < 0) t = 0;
    if (t > 1) t = 1;
    x[lead + i] = e[k] + GCUBA_VEGAS_GMUL(t, e[k + 1] - e[k]);
  }
  __syncwarp();
  gcuba_vegas_strict_warp(x, nb);

  /* the mixture: the bins' masses (into w), their running sums c[k]
     (before bin k) */
  for (k = lane; k < nb; k += 32)
    w[k] = gcuba_vegas_refine_mass(x, nb, k, floored);
  __syncwarp();
  if (lane == 0) {
    double cum = 0;
    c[0] = 0;
    for (k = 0; k < nb; ++k) c[k + 1] = cum += w[k];
    e[0] = 0;
    e[nb] = 1;
  }
  __syncwarp();
  tot = floored ? c[nb] : 1;
  for (i = 1 + lane; i < nb; i += 32) {
    const double target = tot * i / nb;
    double t;
    k = gcuba_vegas_first_ge(c, 1, nb, target) - 1;
    t = (target - c[k]) / w[k];
    if (t < 0) t = 0;
    if (t > 1) t = 1;
    e[i] = x[k] + GCUBA_VEGAS_GMUL(t, x[k + 1] - x[k]);
  }
  __syncwarp();
  gcuba_vegas_strict_warp(e, nb);
}

/* gcuba_vegas_refine_axis by the 32 lanes of a warp, each calling it with
   the same arguments (all get the return value), scratch of
   GCUBA_VEGAS_GRID_SCRATCH_WARP(nb) doubles: the same bits as one device
   thread running gcuba_vegas_refine_axis.  The loops over bins are
   shared by the lanes; the sums, in bin order, are lane 0's. */
__device__ inline int gcuba_vegas_refine_axis_warp(double *e, int nb,
                                                   const double *d,
                                                   int nrows, double alpha,
                                                   int mode, double *scratch)
{
  const unsigned all = 0xffffffffu;
  const int lane = threadIdx.x & 31, smooth = mode & GCUBA_VEGAS_GRID_SMOOTH;
  double *w = scratch, *x = scratch + nb;
  double smax = 0, tot = 0, wsum = 0;
  int i, bad = 0, o;

  for (i = lane; i < nb; i += 32) {
    const double s = gcuba_vegas_refine_row(d, nb, nrows, i);
    if (!(s >= 0) || s > DBL_MAX) bad = 1;
    w[i] = s;
    if (s > smax) smax = s;
  }
  if (__any_sync(all, bad)) return -1;
  for (o = 16; o > 0; o >>= 1) {
    const double t = __shfl_xor_sync(all, smax, o);
    if (t > smax) smax = t; /* (the max: any order) */
  }
  if (nb < 2 || !(alpha > 0) || smax == 0) return 1;
  for (i = lane; i < nb; i += 32) w[i] /= smax;
  __syncwarp();
  for (i = lane; i < nb; i += 32)
    x[i] = gcuba_vegas_refine_smooth(w, nb, i, smooth);
  __syncwarp();
  if (lane == 0)
    for (i = 0; i < nb; ++i) tot += x[i];
  tot = __shfl_sync(all, tot, 0);
  for (i = lane; i < nb; i += 32)
    w[i] = x[i] > 0 ? gcuba_vegas_damp(x[i], tot, alpha) : 0;
  __syncwarp();
  if (lane == 0)
    for (i = 0; i < nb; ++i) wsum += w[i];
  wsum = __shfl_sync(all, wsum, 0);
  if (!(wsum > 0) || wsum > DBL_MAX) return 1;
  gcuba_vegas_refine_edges_warp(e, nb, w, wsum, x, x + nb + 1,
                                mode & GCUBA_VEGAS_GRID_FLOOR);
  return 0;
}
#endif

#endif /* GCUBA_VEGAS_REFINE_H */
