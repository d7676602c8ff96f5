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

/* The points of the rule as half-width offsets, dimension-major:
   u[d*npoints + p] (so a warp's loads of one coordinate are contiguous). */

struct gcuba_cuhre_launch {
  int ndim, ncomp;
  long long first, n;          /* the regions [first, first + n) */
  const double *lo, *w;        /* [i*ndim + d] lower corner and width */
  double *avg, *err;           /* [i*ncomp + c] results */
  int *dims;                   /* [i*ncomp + c] split axis per component */
  const gcuba_rule *rule;      /* device copy */
  const double *u;             /* [ndim*npoints] device */
  void *userdata;              /* device-accessible */
  int *status;                 /* GCUBA_ST_* bits, OR-ed */
  int threads;                 /* block size: 32, 64 or 128 */
};

/* shared memory of one block: rule, region, per-thread per-set partial
   sums [nsets][ncomp][threads], axis values [ncomp][1 + 4 ndim], set sums
   [nsets][ncomp], per-warp sums [nsets][ncomp][threads/32] */
static inline size_t gcuba_cuhre_smem(int ndim, int ncomp, int nsets,
                                      int threads)
{
  return sizeof(gcuba_rule) + sizeof(double) * (2 * ndim) +
         sizeof(double) * (size_t)nsets * ncomp * threads +
         sizeof(double) * (size_t)ncomp * (1 + 4 * ndim) +
         sizeof(double) * (size_t)nsets * ncomp * (1 + threads / 32);
}

/* One block per region.  NDIM > 0: the dimension is a compile-time
   constant (x in registers, loops unrolled); NDIM = 0: any dimension.
   NC: components held per thread. */
template <class F, int NC, int NDIM>
__global__ void gcuba_k_cuhre(const struct gcuba_cuhre_launch a)
{
  extern __shared__ double gcuba_smem_[];
  gcuba_rule *r = (gcuba_rule *)gcuba_smem_;
  double *cen = (double *)(r + 1);          /* centre, then half-width */
  const int ndim = NDIM > 0 ? NDIM : a.ndim, ncomp = NC == 1 ? 1 : a.ncomp;
  double *hw = cen + ndim;
  double *part = hw + ndim;                 /* [s][c][tid] */
  const int nax = 1 + 4 * ndim;
  const int T = blockDim.x, tid = threadIdx.x;
  int nsets, np, s, c, st = 0;
  double *fax, *setsum, *wsum;
  const long long i = a.first + blockIdx.x;
  double f[NC], x[NDIM > 0 ? NDIM : GCUBA_RULE_MAXDIM];

  /* the rule into shared memory */
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
  wsum = setsum + (size_t)nsets * ncomp;
  for (int k = tid; k < nsets * ncomp * T; k += T) part[k] = 0;
  __syncthreads();
  {
    double cl[NDIM > 0 ? NDIM : GCUBA_RULE_MAXDIM],
        hl[NDIM > 0 ? NDIM : GCUBA_RULE_MAXDIM];
    double acc[NC];
    int next; /* first point of the next set */
    if (NDIM > 0) {
#pragma unroll
      for (int d = 0; d < (NDIM > 0 ? NDIM : 1); ++d) {
        cl[d] = cen[d];
        hl[d] = hw[d];
      }
    }
    for (c = 0; c < ncomp; ++c) acc[c] = 0;
    s = 0;
    next = r->set[0].first + r->set[0].npts;
    /* this thread's points p = tid, tid + T, ...: sets in increasing order,
       each set's sum flushed to part[] when the thread leaves it */
    for (int p = tid; p < np; p += T) {
      if (p >= next) {
        for (c = 0; c < ncomp; ++c) {
          part[((size_t)s * ncomp + c) * T + tid] = acc[c];
          acc[c] = 0;
        }
        while (p >= r->set[s].first + r->set[s].npts) ++s;
        next = r->set[s].first + r->set[s].npts;
      }
      if (NDIM > 0) {
#pragma unroll
        for (int d = 0; d < (NDIM > 0 ? NDIM : 1); ++d)
          x[d] = fma(hl[d], a.u[(size_t)d * np + p], cl[d]);
      } else
        for (int d = 0; d < ndim; ++d)
          x[d] = fma(hw[d], a.u[(size_t)d * np + p], cen[d]);
      if (F::call(&ndim, x, &ncomp, f, a.userdata) == -999)
        st |= GCUBA_ST_ABORT;
      for (c = 0; c < ncomp; ++c) {
        if (!isfinite(f[c])) st |= GCUBA_ST_NONFINITE;
        acc[c] += f[c];
        if (p < nax) fax[c * nax + p] = f[c];
      }
    }
    if (tid < np)
      for (c = 0; c < ncomp; ++c)
        part[((size_t)s * ncomp + c) * T + tid] = acc[c];
  }
  if (st) atomicOr(a.status, st);
  __syncthreads();
  /* fixed-order sums over the threads: a shuffle tree inside each warp,
     then the warps' sums in order (T is a multiple of 32) */
  for (int k = 0; k < nsets * ncomp; ++k) {
    double v = part[(size_t)k * T + tid];
    for (int off = 16; off > 0; off >>= 1)
      v += __shfl_down_sync(0xffffffffu, v, off);
    __syncwarp();
    if ((tid & 31) == 0) wsum[k * (T / 32) + (tid >> 5)] = v;
  }
  __syncthreads();
  for (int k = tid; k < nsets * ncomp; k += T) {
    double sum = 0;
    for (int wp = 0; wp < T / 32; ++wp) sum += wsum[k * (T / 32) + wp];
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

template <class F, int NC, int NDIM>
static int gcuba_cuhre_launch1(const struct gcuba_cuhre_launch *a,
                               size_t smem, void *stream)
{
  if (smem > 48 * 1024) {
    cudaError_t e = cudaFuncSetAttribute(
        gcuba_k_cuhre<F, NC, NDIM>,
        cudaFuncAttributeMaxDynamicSharedMemorySize, (int)smem);
    if (e != cudaSuccess) return (int)e;
  }
  gcuba_k_cuhre<F, NC, NDIM>
      <<<(unsigned)a->n, a->threads, smem, (cudaStream_t)stream>>>(*a);
  return (int)cudaPeekAtLastError();
}

/* GCUBA_CUHRE_NDIMS: the dimensions with a kernel of their own (one
   component); a user file may define it before including gcuba.h, e.g.
   to 0 for the fastest compilation */
#ifndef GCUBA_CUHRE_NDIMS
#define GCUBA_CUHRE_NDIMS 1
#endif

template <class F>
static int gcuba_cuhre_launch_eval(const struct gcuba_cuhre_launch *a,
                                   void *stream)
{
  size_t smem;
  if (a->n <= 0) return 0;
  if (a->ncomp > GCUBA_CUHRE_GPU_MAXCOMP)
    return (int)cudaErrorInvalidValue;
  smem = gcuba_cuhre_smem(a->ndim, a->ncomp, GCUBA_RULE_MAXSETS, a->threads);
  if (a->ncomp > 1)
    return gcuba_cuhre_launch1<F, GCUBA_CUHRE_GPU_MAXCOMP, 0>(a, smem, stream);
#if GCUBA_CUHRE_NDIMS
  switch (a->ndim) {
  case 2: return gcuba_cuhre_launch1<F, 1, 2>(a, smem, stream);
  case 3: return gcuba_cuhre_launch1<F, 1, 3>(a, smem, stream);
  case 4: return gcuba_cuhre_launch1<F, 1, 4>(a, smem, stream);
  case 5: return gcuba_cuhre_launch1<F, 1, 5>(a, smem, stream);
  case 6: return gcuba_cuhre_launch1<F, 1, 6>(a, smem, stream);
  case 7: return gcuba_cuhre_launch1<F, 1, 7>(a, smem, stream);
  case 8: return gcuba_cuhre_launch1<F, 1, 8>(a, smem, stream);
  }
#endif
  return gcuba_cuhre_launch1<F, 1, 0>(a, smem, stream);
}

#endif
