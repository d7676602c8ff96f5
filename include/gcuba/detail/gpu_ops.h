/* gcuba/detail/gpu_ops.h -- the table of integrand-dependent GPU entry points.
   GCUBA_INTEGRAND fills one per integrand under nvcc (kernels.cuh); the
   library's CUDA backend calls through it.  Plain C: the library's C
   code includes it too.  All pointers are device pointers, `stream' is a
   cudaStream_t; each launcher returns a cudaError_t (0 = success) and
   checks its launch.  This file is part of gcuba. */
#ifndef GCUBA_GPU_OPS_H
#define GCUBA_GPU_OPS_H

/* gCuhre's most components on the GPU (more run on the CPU backend) */
#define GCUBA_CUHRE_GPU_MAXCOMP 8

/* Bits the kernels OR into *status (a device int). */
#define GCUBA_ST_ABORT 1   /* the integrand returned -999 */
#define GCUBA_ST_NONFINITE 2 /* the integrand produced NaN or Inf */

/* argument blocks of the algorithm launchers: cuhre_kernels.cuh and
   vegas_kernels.cuh */
struct gcuba_cuhre_launch;
struct gcuba_vegas_launch;
struct gcuba_cut_launch;

struct gcuba_gpu_ops {
  int abi; /* GCUBA_ABI_VERSION of the header that instantiated it */
  /* f[i*ncomp + c] = integrand at x[i*ndim ...], 0 <= i < n */
  int (*eval_points)(int ndim, int ncomp, long long n, const double *x,
                     double *f, void *userdata, int *status, void *stream);
  /* Cuhre: apply the rule to a batch of regions */
  int (*cuhre_eval)(const struct gcuba_cuhre_launch *a, void *stream);
  /* Vegas: sample one iteration */
  int (*vegas_iter)(const struct gcuba_vegas_launch *a, void *stream);
  /* Cuhre: search regions for where to cut them (cut_kernels.cuh) */
  int (*cuhre_cut)(const struct gcuba_cut_launch *a, void *stream);
};

#endif
