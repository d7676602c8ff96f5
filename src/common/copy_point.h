/* src/common/copy_point.h -- gDivonne's final copies point by point, on the host
   and the device.  A copy is p points in the box lo + w [0,1)^ndim:
   either the lattice {i (1, a, a^2, ...) / p} shifted by u (uniform in
   the unit cube) and folded by the tent map, or the first p points of the
   Sobol sequence with their bits XORed with the mask m (a digital
   shift).  Point i here is the same bits as point i of the host's walks
   over a copy (src/common/copies.c): the same operations in the same
   order, rounded alike (on the device without contraction).  This file
   is part of gcuba. */
#ifndef GCUBA_COPY_POINT_H
#define GCUBA_COPY_POINT_H

#include <stdint.h>
#include <math.h>
#include "gcuba/hd.h"

#if defined(__CUDA_ARCH__)
#define GCUBA_COPY_MUL(a, b) __dmul_rn((a), (b))
#define GCUBA_COPY_ADD(a, b) __dadd_rn((a), (b))
#define GCUBA_COPY_SUB(a, b) __dsub_rn((a), (b))
#else
#define GCUBA_COPY_MUL(a, b) ((a) * (b))
#define GCUBA_COPY_ADD(a, b) ((a) + (b))
#define GCUBA_COPY_SUB(a, b) ((a) - (b))
#endif

/* the axes padded to an even count (the host's walks go two at a time) */
#define GCUBA_COPY_PAD(nd) (((nd) + 1) & ~1)

/* coordinate j of lattice point i < p: z = a^j mod p, inv = 1 / p (both
   as doubles; z < p < 2^31, so i z is exact in 64 bits) */
GCUBA_HDI double gcuba_copy_lattice(long long i, long long p, double z,
                                    double inv, double u, double lo,
                                    double w)
{
  const long long c = i * (long long)z % p;
  double v = GCUBA_COPY_ADD(GCUBA_COPY_MUL((double)c, inv), u);
  if (v >= 1) v = GCUBA_COPY_SUB(v, 1.);
  v = GCUBA_COPY_SUB(1., fabs(GCUBA_COPY_SUB(GCUBA_COPY_MUL(2., v), 1.)));
  return GCUBA_COPY_ADD(lo, GCUBA_COPY_MUL(v, w));
}

/* the Sobol bits b (point i's, before the mask) as the coordinate: the
   double (2 (b >> 12) + 1) 2^-53, exactly, in the box */
GCUBA_HDI double gcuba_copy_sobol_value(uint64_t b, double lo, double w)
{
  const double y = (double)(2 * (b >> 12) + 1) * 0x1p-53;
  return GCUBA_COPY_ADD(lo, GCUBA_COPY_MUL(y, w));
}

/* Sobol point i's bits along axis j, unmasked: the directions of the bits
   of i's Gray code, v[bit * stride + j] */
GCUBA_HDI uint64_t gcuba_copy_sobol_bits(long long i, const uint64_t *v,
                                         int stride, int j)
{
  uint64_t g = (uint64_t)i ^ ((uint64_t)i >> 1), b = 0;
  int k;
  for (k = 0; g; ++k, g >>= 1)
    if (g & 1) b ^= v[(long)k * stride + j];
  return b;
}

#endif
