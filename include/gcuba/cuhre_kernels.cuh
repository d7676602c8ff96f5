/* gcuba/cuhre_kernels.cuh -- the integrand-dependent Cuhre kernel: apply
   the cubature rule to a batch of regions, instantiated per integrand by
   GCUBA_INTEGRAND (the integrand is inlined).  One block per region; the
   block's threads share the rule's points, accumulate f per set of the
   rule, and the sums are reduced in a fixed order (deterministic).  The
   rest of the Cuhre CUDA backend (classification, compaction, splitting,
   reductions) is integrand-independent and lives in cuda/cuhre.cu.
   This file is part of gcuba. */
#ifndef GCUBA_CUHRE_KERNELS_CUH
#define GCUBA_CUHRE_KERNELS_CUH

#include <cuda_runtime.h>
#include <math.h>
#include "gcuba/gpu_ops.h"
#include "gcuba/rule.h"

/* most components on the GPU (more run on the CPU backend) */
#define GCUBA_CUHRE_GPU_MAXCOMP 8

/* The points of the rule as codes, point-major: code[p*ndim + d] is
   0 (u = 0), +-1 (u = +-a of the point's set), +-2 (u = +-b). */
typedef signed char gcuba_cuhre_code;

struct gcuba_cuhre_launch {
  int ndim, ncomp;
  long long first, n;          /* the regions [first, first + n) */
  const double *lo, *w;        /* [i*ndim + d] lower corner and width */
  double *avg, *err;           /* [i*ncomp + c] results */
  int *dims;                   /* [i*ncomp + c] split axis per component */
  const gcuba_rule *rule;      /* device copy */
  const gcuba_cuhre_code *code;/* [npoints*ndim] device */
  void *userdata;              /* device-accessible */
  int *status;                 /* GCUBA_ST_* bits, OR-ed */
  int threads;                 /* block size: 32, 64 or 128 */
};

/* shared memory of one block: rule, region, per-thread per-set partial
   sums [nsets][ncomp][threads], axis values [ncomp][1 + 4 ndim] */
static inline size_t gcuba_cuhre_smem(int ndim, int ncomp, int nsets,
                                      int threads)
{
  return sizeof(gcuba_rule) + sizeof(double) * (2 * ndim) +
         sizeof(double) * (size_t)nsets * ncomp * threads +
         sizeof(double) * (size_t)ncomp * (1 + 4 * ndim) +
         sizeof(double) * (size_t)nsets * ncomp;
}

template <class F, int NC>
__global__ void gcuba_k_cuhre(const struct gcuba_cuhre_launch a)
{
  extern __shared__ double gcuba_smem_[];
  gcuba_rule *r = (gcuba_rule *)gcuba_smem_;
  double *cen = (double *)(r + 1);          /* centre, then half-width */
  double *hw = cen + a.ndim;
  double *part = hw + a.ndim;               /* [s][c][tid] */
  const int nax = 1 + 4 * a.ndim;
  const int T = blockDim.x, tid = threadIdx.x;
  const int ndim = a.ndim, ncomp = a.ncomp;
  int nsets, np, s, c, st = 0;
  double *fax, *setsum;
  long long i = a.first + blockIdx.x;
  double f[NC], x[GCUBA_RULE_MAXDIM];

  /* the rule into shared memory (ints at a time) */
  {
    const int *src = (const int *)a.rule;
    int *dst = (int *)r;
    for (int k = tid; k < (int)(sizeof(gcuba_rule) / sizeof(int)); k += T)
      dst[k] = src[k];
  }
  for (int d = tid; d < ndim; d += T) {
    double wd = a.w[i * ndim + d];
    hw[d] = 0.5 * wd;
    cen[d] = a.lo[i * ndim + d] + 0.5 * wd;
  }
  __syncthreads();
  nsets = r->nsets;
  np = r->npoints;
  fax = part + (size_t)nsets * ncomp * T;
  setsum = fax + (size_t)ncomp * nax;
  for (int k = tid; k < nsets * ncomp; k += T)
    for (int t = 0; t < T; ++t) part[(size_t)k * T + t] = 0;
  __syncthreads();

  /* this thread's points p = tid, tid + T, ...; sets in increasing order */
  s = 0;
  {
    double acc[NC];
    for (c = 0; c < ncomp; ++c) acc[c] = 0;
    for (int p = tid; p < np; p += T) {
      const gcuba_cuhre_code *cd = a.code + (size_t)p * ndim;
      int s2 = s;
      while (p >= r->set[s2].first + r->set[s2].npts) ++s2;
      if (s2 != s) {
        for (c = 0; c < ncomp; ++c) {
          part[((size_t)s * ncomp + c) * T + tid] = acc[c];
          acc[c] = 0;
        }
        s = s2;
      }
      {
        const double va = r->set[s].a, vb = r->set[s].b;
        for (int d = 0; d < ndim; ++d) {
          int k = cd[d];
          double u = k == 0 ? 0 : k == 1 ? va : k == -1 ? -va : k == 2 ? vb
                                                                        : -vb;
          x[d] = cen[d] + hw[d] * u;
        }
      }
      if (F::call(&ndim, x, &ncomp, f, a.userdata) == -999)
        st |= GCUBA_ST_ABORT;
      for (c = 0; c < ncomp; ++c) {
        if (!isfinite(f[c])) st |= GCUBA_ST_NONFINITE;
        acc[c] += f[c];
        if (p < nax) fax[c * nax + p] = f[c];
      }
    }
    for (c = 0; c < ncomp; ++c)
      part[((size_t)s * ncomp + c) * T + tid] = acc[c];
  }
  if (st) atomicOr(a.status, st);
  __syncthreads();
  /* fixed-order sums over the threads, one (set, component) per thread */
  for (int k = tid; k < nsets * ncomp; k += T) {
    double sum = 0;
    for (int t = 0; t < T; ++t) sum += part[(size_t)k * T + t];
    setsum[k] = sum; /* [s*ncomp + c] */
  }
  __syncthreads();
  for (c = tid; c < ncomp; c += T) {
    double ss[GCUBA_RULE_MAXSETS], vol = 1, w2[GCUBA_RULE_MAXDIM];
    int fallback;
    for (s = 0; s < nsets; ++s) ss[s] = setsum[s * ncomp + c];
    for (int d = 0; d < ndim; ++d) {
      vol *= 2 * hw[d];
      w2[d] = 2 * hw[d];
    }
    gcuba_rule_combine(r, ss, vol, &a.avg[i * ncomp + c],
                       &a.err[i * ncomp + c]);
    fallback = gcuba_rule_widest(ndim, w2);
    a.dims[i * ncomp + c] = gcuba_rule_splitdim(
        r, fax[c * nax], fax + c * nax + 1, 1, fallback);
  }
}

template <class F>
static int gcuba_cuhre_launch_eval(const struct gcuba_cuhre_launch *a,
                                   void *stream)
{
  size_t smem;
  if (a->n <= 0) return 0;
  if (a->ncomp > GCUBA_CUHRE_GPU_MAXCOMP)
    return (int)cudaErrorInvalidValue;
  smem = gcuba_cuhre_smem(a->ndim, a->ncomp, GCUBA_RULE_MAXSETS, a->threads);
  if (a->ncomp == 1) {
    if (smem > 48 * 1024) {
      cudaError_t e = cudaFuncSetAttribute(
          gcuba_k_cuhre<F, 1>, cudaFuncAttributeMaxDynamicSharedMemorySize,
          (int)smem);
      if (e != cudaSuccess) return (int)e;
    }
    gcuba_k_cuhre<F, 1><<<(unsigned)a->n, a->threads, smem,
                          (cudaStream_t)stream>>>(*a);
  } else {
    if (smem > 48 * 1024) {
      cudaError_t e = cudaFuncSetAttribute(
          gcuba_k_cuhre<F, GCUBA_CUHRE_GPU_MAXCOMP>,
          cudaFuncAttributeMaxDynamicSharedMemorySize, (int)smem);
      if (e != cudaSuccess) return (int)e;
    }
    gcuba_k_cuhre<F, GCUBA_CUHRE_GPU_MAXCOMP>
        <<<(unsigned)a->n, a->threads, smem, (cudaStream_t)stream>>>(*a);
  }
  return (int)cudaPeekAtLastError();
}

#endif
