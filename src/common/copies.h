/* src/common/copies.h -- gDivonne's final copies: what a points executor
   (src/common/points.h, copies) needs to make them itself, and the host's
   walk over a stretch of one copy (src/common/copies.c).  Point i of a
   copy is defined point by point in copy_point.h, which the
   device uses; the walk gives the same bits.  This file is part of
   gcuba. */
#ifndef GCUBA_COMMON_COPIES_H
#define GCUBA_COMMON_COPIES_H
#include <stdint.h>
#include "common/copy_point.h"

#ifdef __cplusplus
extern "C" {
#endif

/* k copies of p points in the box lo + w [0,1)^ndim.  A lattice: z[ndim]
   = a^j mod p (exact doubles) and u[k ndim] the copies' shifts; Sobol (z
   NULL): m[k ndim] the copies' masks, v the directions [64 bits][pad]
   with pad = GCUBA_COPY_PAD(ndim) and 0 in the padding */
typedef struct gcuba_copies {
  int ndim, k;
  long long p;
  const double *lo, *w, *z, *u;
  const uint64_t *m, *v;
} gcuba_copies;

/* coordinate j of point i of copy h, by copy_point.h (inv = 1 / p) */
GCUBA_HDI double gcuba_copies_coord(const gcuba_copies *q, int h,
                                    long long i, int j, double inv)
{
  const int nd = q->ndim;
  return q->z ? gcuba_copy_lattice(i, q->p, q->z[j], inv,
                                   q->u[(long)h * nd + j], q->lo[j], q->w[j])
              : gcuba_copy_sobol_value(
                    gcuba_copy_sobol_bits(i, q->v, GCUBA_COPY_PAD(nd), j) ^
                        q->m[(long)h * nd + j],
                    q->lo[j], q->w[j]);
}

/* points i0 .. i0 + n - 1 of copy h into x (rows of ndim) */
void gcuba_copies_walk(const gcuba_copies *q, int h, long long i0,
                       long long n, double *x);

/* A stretch of n values f[n ncomp] of the copies' points base .. base +
   n - 1 (point i of copy h is number h p + i) reduced per component into
   part[5 ncomp]: the sum (two alternating partial sums), the least and
   the greatest value, and the numbers of the first points that have them
   (as doubles, exact) */
void gcuba_copies_part(const double *f, long long n, int ncomp,
                       long long base, double *part);
/* such a part added in order to its copy's sums s[ncomp], and to the
   extrema ext[2 ncomp] and their numbers iext[2 ncomp] (first: the
   first part of all, where they start): the first of equals */
void gcuba_copies_merge(const double *part, int ncomp, int first,
                        double *s, double *ext, long long *iext);

#ifdef __cplusplus
}
#endif
#endif
