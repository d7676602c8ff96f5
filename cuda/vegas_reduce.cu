/* cuda/vegas_reduce.cu -- the canonical tree of include/gcuba/detail/vegas.h
   on the device, for gVegas's CUDA backend: one block of 256 threads
   per group, the same halving as the CPU backend, a level per launch
   or the whole tree of a slice in one, and the slices' results added
   to the running total in slice order.  This file is part of gcuba. */
#include <cuda_runtime.h>
#include "cuda/vegas_int.cuh"

/* v[0] = the canonical sum of the block's v[0 .. TREE_THREADS-1] (all
   threads call it; v is written by the caller, before, without a
   barrier) */
__device__ __forceinline__ void gcuba_vk_halve(double *v)
{
  const int t = threadIdx.x;
  __syncthreads();
  for (int h = TREE_THREADS / 2; h > 0; h /= 2) {
    if (t < h) v[t] = v[t] + v[t + h];
    __syncthreads();
  }
}

/* the levels of the canonical tree over src[0 .. n-1] by one block, each
   level's groups written to dst[0 ..] in group order (dst may be src: a
   group's result goes to its index, which a group before it has read);
   returns the root, to every thread */
__device__ double gcuba_vk_levels(double *v, const double *src, long long n,
                                  double *dst)
{
  const int t = threadIdx.x;
  while (n > 1) {
    const long long m = gcuba_vegas_tree_next(n);
    for (long long g = 0; g < m; ++g) {
      const long long j = g * TREE_THREADS + t;
      v[t] = j < n ? __ldcg(src + j) : 0.0;
      gcuba_vk_halve(v);
      if (t == 0) dst[g] = v[0];
      __syncthreads();
    }
    src = dst;
    n = m;
  }
  return __ldcg(src);
}

/* one level of the canonical tree: group g of column col of src (n values
   per column) into dst[col*m + g] */
__global__ void gcuba_vk_tree(const double *src, long long n, double *dst,
                              long long m)
{
  __shared__ double v[TREE_THREADS];
  const long long g = blockIdx.x, i = g * TREE_THREADS + threadIdx.x;
  const int col = blockIdx.y, t = threadIdx.x;
  v[t] = i < n ? src[(long long)col * n + i] : 0.0;
  gcuba_vk_halve(v);
  if (t == 0) dst[(long long)col * m + g] = v[0];
}

/* tot[col] += src[col]: slices in order */
__global__ void gcuba_vk_accum(double *tot, const double *src, int ncol)
{
  for (int col = threadIdx.x; col < ncol; col += blockDim.x)
    tot[col] = tot[col] + src[col];
}

/* The whole canonical tree of a slice in one launch, and tot[col] += its
   result (gcuba_vk_tree's levels, then gcuba_vk_accum's addition, with
   the same bits): blocks (g, col) reduce the groups of src into dst (m =
   tree_next(n) per column); the last block to finish reduces the levels
   above in dst, in place and in group order (a group's result goes to
   its index, which a group before it has read). */
__global__ void gcuba_vk_tree_all(const double *src, long long n,
                                  double *dst, long long m, double *tot,
                                  unsigned int *cnt)
{
  __shared__ double v[TREE_THREADS];
  __shared__ bool last;
  const long long g = blockIdx.x, i = g * TREE_THREADS + threadIdx.x;
  const int col = blockIdx.y, t = threadIdx.x, ncol = gridDim.y;
  if (n == 1) { /* no tree: the value itself */
    if (t == 0) tot[col] = tot[col] + src[col];
    return;
  }
  v[t] = i < n ? src[(long long)col * n + i] : 0.0;
  gcuba_vk_halve(v);
  if (t == 0) {
    dst[(long long)col * m + g] = v[0];
    __threadfence();
    last = atomicAdd(cnt, 1u) == (unsigned)(m * ncol - 1);
  }
  __syncthreads();
  if (!last) return;
  for (int k = 0; k < ncol; ++k) {
    double *col_v = dst + (long long)k * m;
    const double r = gcuba_vk_levels(v, col_v, m, col_v);
    if (t == 0) tot[k] = tot[k] + r;
  }
  if (t == 0) *cnt = 0;
}

/* The pipeline's trees (cuda/vegas_batch.cu): block (m, col) reduces
   column col of member m's chunk sums as gcuba_vk_tree_all does (the
   same additions in the same order: the same bits), level by level in
   its scratch */
__global__ void gcuba_vk_tree_members(const struct gcuba_vk_seg *sg)
{
  __shared__ double v[TREE_THREADS];
  const struct gcuba_vk_seg q = sg[blockIdx.x];
  const int col = blockIdx.y;
  const double r = gcuba_vk_levels(
      v, q.part + (long long)col * q.n, q.n,
      q.t + (long long)col * gcuba_vegas_tree_next(q.n));
  if (threadIdx.x == 0) q.tot[col] = q.tot[col] + r;
}
