/* src/romberg/romberg.h -- the gRomberg driver and the one operation it
   asks of a backend: the sums of f and |f| over a block of one level's
   points.

   Level k = 0 has the points x = 0, 1; level k >= 1 the new midpoints
   x_j = (2j + 1) 2^-k, j = 0 .. 2^(k-1) - 1 (gcuba_romberg_x, exact in
   double up to k = 52).  The sum over the points j0 .. j0+n-1 of a block
   (n a power of two, j0 a multiple of n) is the perfect pairwise tree:
   s(v[0..n)) = s(v[0..n/2)) + s(v[n/2..n)), i.e. level by level
   v[i] = v[2i] + v[2i+1].  The driver combines the block sums of a level
   with the same tree (a binary counter over blocks), so a level's sum is
   the perfect tree over all its points whatever the block size, thread
   count or backend: the CPU and GPU backends give the same bits whenever
   the integrand's values are the same bits.  This file is part of gcuba. */
#ifndef GCUBA_ROMBERG_H
#define GCUBA_ROMBERG_H

#include <math.h>
#include "common/common.h"
#include "gcuba/hd.h"

/* the deepest level: 2^52 + 1 points, the last at which (2j+1) 2^-k is
   exact */
#define GCUBA_ROMBERG_MAXLEVEL 52

/* point j of level k */
GCUBA_HD static inline double gcuba_romberg_x(int k, long long j)
{
  return k == 0 ? (double)j : ldexp(2.0 * (double)j + 1.0, -k);
}

/* points of level k */
static inline long long gcuba_romberg_npts(int k)
{
  return k == 0 ? 2 : 1LL << (k - 1);
}

typedef struct gcuba_romberg_ops {
  const char *name;
  /* an executor for call c; NULL on failure with *fail set */
  void *(*create)(gcuba_call *c, int *fail);
  void (*destroy)(void *ctx);
  /* the largest block (a power of two >= 2) */
  long long (*block)(void *ctx);
  /* sums[c] = tree sum of f_c, sums[ncomp + c] = tree sum of |f_c| over
     the points j0 .. j0+n-1 of level k; 0 or a fail code
     (GCUBA_FAIL_ABORT, GCUBA_FAIL_NAN, CUDA errors) */
  int (*sum)(void *ctx, int k, long long j0, long long n, double *sums);
} gcuba_romberg_ops;

#ifdef __cplusplus
extern "C" {
#endif
/* Integrates c (arguments checked, backend chosen by the plan) over the
   backend ops; sets the outputs and c->fail. */
void gcuba_romberg_drive(gcuba_call *c, const gcuba_romberg_ops *ops);
#ifdef __cplusplus
}
#endif

#endif
