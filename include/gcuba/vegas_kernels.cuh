/* gcuba/vegas_kernels.cuh -- the integrand-dependent Vegas kernel: one
   iteration's samples, instantiated per integrand by GCUBA_INTEGRAND.
   This file is part of gcuba. */
#ifndef GCUBA_VEGAS_KERNELS_CUH
#define GCUBA_VEGAS_KERNELS_CUH

#include <cuda_runtime.h>
#include "gcuba/gpu_ops.h"

struct gcuba_vegas_launch {
  int ndim, ncomp;
};

template <class F>
static int gcuba_vegas_launch_iter(const struct gcuba_vegas_launch *a,
                                   void *stream)
{
  (void)a;
  (void)stream;
  return (int)cudaErrorNotSupported;
}

#endif
