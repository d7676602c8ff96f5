/* cuda/vegas_refine.cu -- gVegasBatch's GPU pipeline keeps its members'
   grids on the device: it sets them there (sent by the drivers, or the
   uniform ones) and refines them where their bin contributions are, one
   warp per grid (an axis, or a member's shared grid), each running the
   driver's refinement (src/vegas/refine.h, its warp form: the same bits
   as one thread) on its own edges and scratch;
   the drivers get the edge bins' widths.  This file is part of gcuba. */
#include <cuda_runtime.h>
#include "cuda/vegas_int.cuh"
#include "vegas/refine.h"

__global__ void gcuba_vk_refine(const struct gcuba_vk_refine *r, int n)
{
  const long long i = ((long long)blockIdx.x * blockDim.x + threadIdx.x) / 32;
  if (i < n) { /* (a whole warp) */
    const struct gcuba_vk_refine a = r[i];
    const int rc = gcuba_vegas_refine_axis_warp(a.e, a.nb, a.d, a.nrows,
                                                GCUBA_VEGAS_ALPHA, a.mode,
                                                a.scratch);
    if ((threadIdx.x & 31) == 0) {
      *a.left = rc != 0;
      a.edge[0] = a.e[1] - a.e[0];
      a.edge[1] = a.e[a.nb] - a.e[a.nb - 1];
    }
  }
}

__global__ void gcuba_vk_grid_in(const struct gcuba_vk_gridin *G)
{
  const struct gcuba_vk_gridin g = G[blockIdx.x];
  for (int i = threadIdx.x; i < g.n; i += blockDim.x)
    g.dst[i] = g.src ? g.src[i] : (double)(i % (g.nb + 1)) / (double)g.nb;
}
