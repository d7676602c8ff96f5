/* gcuba/cuhre_kernels.cuh -- the integrand-dependent Cuhre kernel: apply
   the cubature rule to a batch of regions, instantiated per integrand by
   GCUBA_INTEGRAND.  This file is part of gcuba. */
#ifndef GCUBA_CUHRE_KERNELS_CUH
#define GCUBA_CUHRE_KERNELS_CUH

#include <cuda_runtime.h>
#include "gcuba/gpu_ops.h"

struct gcuba_cuhre_launch {
  int ndim, ncomp;
};

template <class F>
static int gcuba_cuhre_launch_eval(const struct gcuba_cuhre_launch *a,
                                   void *stream)
{
  (void)a;
  (void)stream;
  return (int)cudaErrorNotSupported;
}

#endif
