/* gcuba/detail/cuhre_kernels.cuh -- the integrand-dependent Cuhre kernel: apply
   the cubature rule to a batch of regions, instantiated per integrand by
   GCUBA_INTEGRAND (the integrand is inlined).  A region is taken by one,
   two or four warps (the launch's wpr: one when there are regions enough
   to fill the card, more for small batches); a block of four warps holds
   4/wpr regions.  The lanes stride over the rule's points, each keeping
   one running sum per set of the rule; the sums meet in shared memory and
   are added in a fixed order (deterministic), and the region's first warp
   combines them: the rule and null-rule sums and the fourth differences
   with warp shuffles, one lane per set or axis.  The rest of the Cuhre
   CUDA backend (classification, compaction, splitting, reductions) is
   integrand-independent and lives in cuda/cuhre.cu.
   This file is part of gcuba. */
#ifndef GCUBA_CUHRE_KERNELS_CUH
#define GCUBA_CUHRE_KERNELS_CUH

#include <cuda_runtime.h>
#include <math.h>
#include "gcuba/detail/gpu_ops.h"
#include "gcuba/detail/rule.h"

/* threads per block of the rule kernel: four warps */
#define GCUBA_CUHRE_BLOCK 128

/* The points of the rule as half-width offsets, dimension-major:
   u[d*ustride + p] (a warp's loads of one coordinate are contiguous).
   For ndim 2..8 the stride is a constant, the most points of any key in
   that dimension (the rule's and its boundary probes) rounded up to 32, so the kernels with a compile-time
   dimension address every coordinate from one pointer; otherwise it is
   the rule's point count rounded up to 32. */
#define GCUBA_CUHRE_USTRIDE(n)                                           \
  ((n) == 2 ? 96 : (n) == 3 ? 128 : (n) == 4 ? 192 : (n) == 5 ? 288 :   \
   (n) == 6 ? 480 : (n) == 7 ? 736 : (n) == 8 ? 1152 : 0)

struct gcuba_cuhre_launch {
  int ndim, ncomp;
  long long first, n;          /* the regions [first, first + n) */
  const double *lo;            /* [i*ndim + d] lower corner */
  const unsigned short *wk;    /* [i*ndim + d] width 2^-wk, or NULL: */
  const double *w;             /* [i*ndim + d] width */
  double *avg, *err;           /* [i*ncomp + c] results */
  int *dims;                   /* [i*ncomp + c] split axis per component */
  const gcuba_rule *rule;      /* device copy */
  const double *u;             /* [d*ustride + p] device */
  int ustride;                 /* see GCUBA_CUHRE_USTRIDE */
  int nsets, npoints;          /* the rule's (as in *rule) */
  int wpr;                     /* warps per region: 1, 2 or 4 */
  void *userdata;              /* device-accessible */
  int *status;                 /* GCUBA_ST_* bits, OR-ed */
  int nprobe;                  /* boundary probes after the rule's points
                                  (gcuba_rule_probe_err) */
  const double *perr;          /* NULL, or the parent records
                                  (gcuba_rule_parent_err) of the regions
                                  from pfirst on: region i's is
                                  perr[(i - pfirst) / 2 * ncomp + c] */
  long long pfirst;
  /* NULL for one call.  Many integrals (gCuhreBatch): region i belongs
     to integral own[i] (-1: a hole, not evaluated), whose userdata is
     userdata + own[i] * ustep and whose bits go to status[own[i]] */
  const int *own;
  unsigned long long ustep;
};

/* shared memory of one warp, in doubles: per-lane set sums
   [nsets][ncomp][33], set sums [nsets][ncomp], f at the centre and the
   axis points [ncomp][gcuba_rule_naxis(ndim)], centre and half-width
   [2 ndim], f at the probes [ncomp][2 ndim] */
__host__ __device__ static inline size_t gcuba_cuhre_warp_doubles(int ndim, int ncomp, int nsets)
{
  return (size_t)ncomp *
             (34 * (size_t)nsets + gcuba_rule_naxis(ndim) + 2 * ndim) +
         2 * ndim;
}

static inline size_t gcuba_cuhre_smem(int ndim, int ncomp, int nsets)
{
  return sizeof(double) * (GCUBA_CUHRE_BLOCK / 32) *
         gcuba_cuhre_warp_doubles(ndim, ncomp, nsets);
}

/* the same sum in every lane, in an order that does not depend on the
   lane (x + y == y + x): deterministic */
__device__ static inline double gcuba_warp_sum(double v)
{
  for (int off = 16; off > 0; off >>= 1)
    v += __shfl_xor_sync(0xffffffffu, v, off);
  return v;
}

__device__ static inline double gcuba_warp_max(double v)
{
  for (int off = 16; off > 0; off >>= 1)
    v = fmax(v, __shfl_xor_sync(0xffffffffu, v, off));
  return v;
}

/* the largest v over the warp, lowest k among equals */
__device__ static inline void gcuba_warp_argmax(double *v, int *k)
{
  for (int off = 16; off > 0; off >>= 1) {
    double ov = __shfl_xor_sync(0xffffffffu, *v, off);
    int ok = __shfl_xor_sync(0xffffffffu, *k, off);
    if (ov > *v || (ov == *v && ok < *k)) {
      *v = ov;
      *k = ok;
    }
  }
}

/* NDIM > 0: the dimension is a compile-time constant (x in registers,
   loops unrolled); NDIM = 0: any dimension.  NC: components held per
   lane. */
/* Region i of a (its lo, wk in, its avg, err, dims out), taken by the W
   warps warp0 .. warp0 + W - 1 of the block (this thread's warp among
   them), their shared memory areas from smem (gcuba_cuhre_warp_doubles
   each, the first warp's holding the region's data).  live: i is a
   region (the warps of a slot past the end still meet the barriers).
   Returns the GCUBA_ST_* bits this thread saw.  W > 1 syncs the whole
   block. */
template <class F, int NC, int NDIM>
__device__ __forceinline__ int gcuba_cuhre_region(
    const struct gcuba_cuhre_launch &a, long long i, bool live, int W,
    int warp, int warp0, double *smem)
{
  const gcuba_rule *r = a.rule;
  const int ndim = NDIM > 0 ? NDIM : a.ndim, ncomp = NC == 1 ? 1 : a.ncomp;
  const int nsets = a.nsets, np = a.npoints, nax = gcuba_rule_naxis(ndim);
  const int lane = threadIdx.x & 31;
  const int t = (warp - warp0) * 32 + lane;
  const size_t area = gcuba_cuhre_warp_doubles(ndim, ncomp, nsets);
  const size_t npart = (size_t)nsets * ncomp * 33;
  double *part = smem + area * warp;                  /* this warp's */
  double *head = smem + area * warp0;                 /* the region's */
  double *ss = head + npart;
  double *fax = ss + (size_t)nsets * ncomp;
  double *cen = fax + (size_t)ncomp * nax, *hw = cen + ndim;
  double *fpr = hw + ndim; /* [c * 2 ndim + j] f at probe j */
  int st = 0, c;
  void *ud = a.userdata;
  if (a.own && live) {
    const int b = a.own[i];
    live = b >= 0;
    if (live) ud = (char *)a.userdata + (unsigned long long)b * a.ustep;
  }

  if (live && t < ndim) {
    const double h = a.wk ? ldexp(1.0, -1 - (int)a.wk[i * ndim + t])
                          : __dmul_rn(0.5, a.w[i * ndim + t]);
    hw[t] = h;
    cen[t] = a.lo[i * ndim + t] + h;
  }
  if (W == 1) __syncwarp();
  else __syncthreads();
  if (live) {
    double x[NDIM > 0 ? NDIM : GCUBA_RULE_MAXDIM], f[NC], acc[NC];
    double cl[NDIM > 0 ? NDIM : 1], hl[NDIM > 0 ? NDIM : 1];
    const int us = NDIM > 0 ? GCUBA_CUHRE_USTRIDE(NDIM) : a.ustride;
    int s = 0, end = r->set[0].first + r->set[0].npts;
    if (NDIM > 0) {
#pragma unroll
      for (int d = 0; d < (NDIM > 0 ? NDIM : 1); ++d) {
        cl[d] = cen[d];
        hl[d] = hw[d];
      }
    }
    for (c = 0; c < ncomp; ++c) acc[c] = 0;
    /* points p = t, t + 32 W, ...: sets in increasing order, each set's
       sum left in part[] when the lane passes its end */
    for (int p = t; p < np; p += 32 * W) {
      const double *up = a.u + p;
      if (p >= end) {
        do {
          for (c = 0; c < ncomp; ++c) {
            part[(s * ncomp + c) * 33 + lane] = acc[c];
            acc[c] = 0;
          }
          ++s;
          end = r->set[s].first + r->set[s].npts;
        } while (p >= end);
      }
      if (NDIM > 0) {
#pragma unroll
        for (int d = 0; d < (NDIM > 0 ? NDIM : 1); ++d)
          x[d] = fma(hl[d], __ldg(up + d * us), cl[d]);
      } else
        for (int d = 0; d < ndim; ++d)
          x[d] = fma(hw[d], __ldg(up + (size_t)d * us), cen[d]);
      if (F::call(&ndim, x, &ncomp, f, ud) == -999)
        st |= GCUBA_ST_ABORT;
      for (c = 0; c < ncomp; ++c) {
        acc[c] += f[c];
        if (p < nax) fax[c * nax + p] = f[c];
      }
    }
    for (; s < nsets; ++s)
      for (c = 0; c < ncomp; ++c) {
        part[(s * ncomp + c) * 33 + lane] = acc[c];
        acc[c] = 0;
      }
    /* the boundary probes, points np .. np + nprobe - 1 of the table */
    for (int p = np + t; p < np + a.nprobe; p += 32 * W) {
      for (int d = 0; d < ndim; ++d)
        x[d] = fma(hw[d], __ldg(a.u + p + (size_t)d * us), cen[d]);
      if (F::call(&ndim, x, &ncomp, f, ud) == -999)
        st |= GCUBA_ST_ABORT;
      for (c = 0; c < ncomp; ++c) {
        if (!isfinite(f[c])) st |= GCUBA_ST_NONFINITE;
        fpr[c * 2 * ndim + (p - np)] = f[c];
      }
    }
  }
  if (W == 1) __syncwarp();
  else __syncthreads();
  if (live && warp == warp0) {
    /* set sums in a fixed order: the region's warps, then their lanes;
       a NaN or Inf from the integrand shows in its set's sum */
    for (int k = lane; k < nsets * ncomp; k += 32) {
      double v = 0;
      for (int q = 0; q < W; ++q) {
        const double *pp = head + area * q + (size_t)k * 33;
        for (int j = 0; j < 32; ++j) v += pp[j];
      }
      ss[k] = v;
      if (!isfinite(v)) st |= GCUBA_ST_NONFINITE;
    }
    __syncwarp();
    if (NC == 1) {
      /* one lane per set for the rule sums, one per axis for the split */
      const double S = lane < nsets ? ss[lane] : 0;
      const gcuba_rule_set *rs = &r->set[lane < nsets ? lane : 0];
      double q[GCUBA_RULE_NRULES], e[3], v, wv;
      int k, kd, kw;
      for (k = 0; k < GCUBA_RULE_NRULES; ++k)
        q[k] = gcuba_warp_sum(lane < nsets ? rs->w[k] * S : 0);
      for (k = 0; k < 3; ++k)
        e[k] = gcuba_warp_max(
            lane < nsets ? fabs(q[k + 2] + rs->scale[k] * q[k + 1]) *
                               rs->norm[k]
                         : 0);
      v = -1;
      wv = -1;
      kd = kw = lane;
      if (lane < ndim) {
        v = gcuba_rule_fourthdiff(r, lane, fax[0], fax + 1);
        if (!(v > 0)) v = 0;
        wv = 2 * hw[lane];
      }
      gcuba_warp_argmax(&v, &kd);
      gcuba_warp_argmax(&wv, &kw);
      /* the axis lines' guard, one axis per lane (gcuba_rule_line_guard;
         r->nline is the same in every lane; only the 3-D rule has
         lines, gcuba_rule_naxis) */
      double line = 0;
      if ((NDIM == 0 || NDIM == 3) && r->nline)
        line = gcuba_warp_max(
            lane < ndim ? gcuba_rule_line_axis(r, lane, fax[0], fax + 1, 1)
                        : 0);
      /* the boundary probes, one axis per lane (gcuba_rule_probe_err's
         largest departure, the lowest axis among equals) */
      double pd = -1;
      int kp = lane;
      if (a.nprobe) {
        if (lane < a.nprobe / 2)
          pd = gcuba_rule_probe_axis(r, lane, fax[0], fax + 1, 1, fpr, 1);
        gcuba_warp_argmax(&pd, &kp);
      }
      if (lane == 0) {
        double vol = 1, er;
        int flags;
        for (int d = 0; d < ndim; ++d) vol *= 2 * hw[d];
        er = vol * gcuba_rule_nullerr(
                       r, e,
                       a.perr && i >= a.pfirst
                           ? gcuba_rule_trusted(a.perr[(i - a.pfirst) / 2],
                                                vol, ndim, r->degree)
                           : 0,
                       line, &flags);
        int ax = (v > 0 ? kd : kw) | flags;
        if (a.nprobe && pd > 0) {
          const double pe = vol * r->strip * pd;
          if (pe > er) {
            er = pe;
            ax = kp;
          }
        }
        a.avg[i] = vol * q[0];
        a.err[i] = er;
        a.dims[i] = ax;
      }
    }
    else
      for (c = lane; c < ncomp; c += 32) {
        double sc[GCUBA_RULE_MAXSETS], vol = 1, w2[GCUBA_RULE_MAXDIM];
        int s;
        for (s = 0; s < nsets; ++s) sc[s] = ss[s * ncomp + c];
        for (int d = 0; d < ndim; ++d) {
          vol *= 2 * hw[d];
          w2[d] = 2 * hw[d];
        }
        const int flags = gcuba_rule_combine(
            r, sc, vol,
            a.perr && i >= a.pfirst
                ? gcuba_rule_trusted(
                      a.perr[(i - a.pfirst) / 2 * ncomp + c], vol, ndim,
                      r->degree)
                : 0,
            gcuba_rule_line_guard(r, fax[c * nax], fax + c * nax + 1, 1),
            &a.avg[i * ncomp + c], &a.err[i * ncomp + c]);
        a.dims[i * ncomp + c] =
            gcuba_rule_splitdim(r, fax[c * nax], fax + c * nax + 1, 1,
                                gcuba_rule_widest(ndim, w2)) |
            flags;
        if (a.nprobe) {
          int pax = 0;
          const double pe = gcuba_rule_probe_err(
              r, fax[c * nax], fax + c * nax + 1, 1, fpr + c * 2 * ndim, 1,
              vol, &pax);
          if (pe > a.err[i * ncomp + c]) {
            a.err[i * ncomp + c] = pe;
            a.dims[i * ncomp + c] = pax;
          }
        }
      }
  }
  return st;
}

template <class F, int NC, int NDIM>
__global__ void __launch_bounds__(GCUBA_CUHRE_BLOCK)
    gcuba_k_cuhre(const struct gcuba_cuhre_launch a)
{
  extern __shared__ double gcuba_smem_[];
  const int W = a.wpr, warp = threadIdx.x >> 5, slot = warp / W;
  const long long i =
      a.first + (long long)blockIdx.x * (GCUBA_CUHRE_BLOCK / 32 / W) + slot;
  const int st = gcuba_cuhre_region<F, NC, NDIM>(
      a, i, i < a.first + a.n, W, warp, slot * W, gcuba_smem_);
  if (st) atomicOr(a.own ? &a.status[a.own[i]] : a.status, st);
}

template <class F, int NC, int NDIM>
static int gcuba_cuhre_launch1(const struct gcuba_cuhre_launch *a,
                               size_t smem, void *stream)
{
  const int per = GCUBA_CUHRE_BLOCK / 32 / a->wpr; /* regions per block */
  if (smem > 48 * 1024) {
    cudaError_t e = cudaFuncSetAttribute(
        gcuba_k_cuhre<F, NC, NDIM>,
        cudaFuncAttributeMaxDynamicSharedMemorySize, (int)smem);
    if (e != cudaSuccess) return (int)e;
  }
  gcuba_k_cuhre<F, NC, NDIM>
      <<<(unsigned)((a->n + per - 1) / per), GCUBA_CUHRE_BLOCK, smem,
         (cudaStream_t)stream>>>(*a);
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
  if (a->ncomp > GCUBA_CUHRE_GPU_MAXCOMP ||
      (a->wpr != 1 && a->wpr != 2 && a->wpr != 4))
    return (int)cudaErrorInvalidValue;
  smem = gcuba_cuhre_smem(a->ndim, a->ncomp, a->nsets);
  if (a->ncomp > 1)
    return gcuba_cuhre_launch1<F, GCUBA_CUHRE_GPU_MAXCOMP, 0>(a, smem, stream);
#if GCUBA_CUHRE_NDIMS
  if (a->ustride == GCUBA_CUHRE_USTRIDE(a->ndim)) switch (a->ndim) {
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
