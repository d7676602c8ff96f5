/* gcuba/kernels.cuh -- kernels that depend on the integrand, instantiated
   by GCUBA_INTEGRAND under nvcc for a functor F with
     static __host__ __device__ int F::call(ndim, x, ncomp, f, userdata)
   so the integrand is inlined into them.  Everything else of the CUDA
   backend is compiled once into libgcuba (cuda/).
   This file is part of gcuba. */
#ifndef GCUBA_KERNELS_CUH
#define GCUBA_KERNELS_CUH

#include <cuda_runtime.h>
#include <math.h>
#include "gcuba/detail/gpu_ops.h"

#ifndef GCUBA_MAXCOMP_STACK
/* components held in registers/local memory per thread in the kernels */
#define GCUBA_MAXCOMP_STACK 1024
#endif

template <class F>
__global__ void gcuba_k_eval_points(int ndim, int ncomp, long long n,
                                    const double *x, double *f,
                                    void *userdata, int *status)
{
  long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
  int st = 0;
  for (; i < n; i += (long long)gridDim.x * blockDim.x) {
    double *fi = f + i * ncomp;
    if (F::call(&ndim, x + i * ndim, &ncomp, fi, userdata) == -999)
      st |= GCUBA_ST_ABORT;
    for (int c = 0; c < ncomp; ++c)
      if (!isfinite(fi[c])) st |= GCUBA_ST_NONFINITE;
  }
  if (st) atomicOr(status, st);
}

template <class F>
static int gcuba_launch_eval_points(int ndim, int ncomp, long long n,
                                    const double *x, double *f,
                                    void *userdata, int *status,
                                    void *stream)
{
  if (n <= 0) return 0;
  const int threads = 256;
  long long blocks = (n + threads - 1) / threads;
  if (blocks > 65535LL * 32) blocks = 65535LL * 32;
  gcuba_k_eval_points<F><<<(unsigned)blocks, threads, 0,
                           (cudaStream_t)stream>>>(ndim, ncomp, n, x, f,
                                                   userdata, status);
  return (int)cudaPeekAtLastError();
}

#include "gcuba/detail/cuhre_kernels.cuh"
#include "gcuba/detail/cut_kernels.cuh"
#include "gcuba/detail/vegas_kernels.cuh"
/* gCuhreBatch's GPU pipeline (cuda/batch.cu) runs on the rule and cut
   kernels above: an integrand file compiles nothing more for it, and a
   file that still defines GCUBA_BATCH (once needed) gets the same. */

template <class F> struct gcuba_gpu_table {
  static const struct gcuba_gpu_ops ops;
};

template <class F>
const struct gcuba_gpu_ops gcuba_gpu_table<F>::ops = {
    GCUBA_ABI_VERSION, gcuba_launch_eval_points<F>,
    gcuba_cuhre_launch_eval<F>, gcuba_vegas_launch_iter<F>,
    gcuba_cut_launch_search<F>};

#endif
