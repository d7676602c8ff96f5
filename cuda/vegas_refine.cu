/* cuda/vegas_refine.cu -- gVegasBatch's GPU pipeline refines its members'
   grids where their bin contributions are: one thread per grid (an axis,
   or a member's shared grid), each running the driver's refinement
   (src/vegas/refine.h) on its own edges and scratch.  This file is part
   of gcuba. */
#include <cuda_runtime.h>
#include "cuda/vegas_int.cuh"
#include "vegas/refine.h"

__global__ void gcuba_vk_refine(const struct gcuba_vk_refine *r, int n)
{
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    const struct gcuba_vk_refine a = r[i];
    *a.left = gcuba_vegas_refine_axis(a.e, a.nb, a.d, a.nrows,
                                      GCUBA_VEGAS_ALPHA, a.mode,
                                      a.scratch) != 0;
  }
}
