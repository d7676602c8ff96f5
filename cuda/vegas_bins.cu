/* cuda/vegas_bins.cu -- the bin contributions of gVegas's CUDA backend:
   while the grid adapts, the stored contributions q of a slice's
   samples become exact 128-bit bin sums (each block accumulates its
   samples' contributions for a group of axes in shared memory with
   integer atomics, so the order does not matter, then merges them into
   the global sums), and a last kernel adds them to the bin
   contributions as doubles.  This file is part of gcuba. */
#include <cuda_runtime.h>
#include <stdint.h>
#include "cuda/vegas_int.cuh"
#include "gcuba/detail/vegas_kernels.cuh"
#include "vegas/refine.h"

/* (hi, lo) += (h, l), exactly, with atomics (shared or global memory) */
__device__ __forceinline__ void gcuba_vk_add128(ull *hi, ull *lo, ull h,
                                                ull l)
{
  if (l) {
    const ull o = atomicAdd(lo, l);
    if (o + l < o) ++h;
  }
  if (h) atomicAdd(hi, h);
}

/* A block's cells as four 32-bit limbs each (limb k of cell i at
   L[k*ncell + i]): (h, l) added with native 32-bit shared-memory atomics
   (64-bit ones are compare-and-swap loops on sm_90), a limb's carry
   added to the next; exact modulo 2^128 in any order, as the 64-bit
   cells were */
__device__ __forceinline__ void gcuba_vk_add128_32(unsigned *L, int ncell,
                                                   int i, ull h, ull l)
{
  const unsigned x[4] = {(unsigned)l, (unsigned)(l >> 32), (unsigned)h,
                         (unsigned)(h >> 32)};
  ull p = x[0];
#pragma unroll
  for (int k = 0; k < 4; ++k) {
    const unsigned a = (unsigned)p;
    ull carry = p >> 32;
    if (a) {
      const unsigned o = atomicAdd(L + k * ncell + i, a);
      if ((unsigned)(o + a) < o) ++carry;
    }
    if (k < 3) p = (ull)x[k + 1] + carry;
  }
}

/* bin sums of a slice's cubes q0, q0 + qstep, ... (of b.ncubes from
   b.cube0) for axes a0 .. a0+na-1 (a0 = blockIdx.y * ag), into b.hi,
   b.lo: the block's cells in shared memory first */
__device__ __forceinline__ void gcuba_vk_bins_block(const struct
                                                    gcuba_vk_bins_args &b,
                                                    long long q0,
                                                    long long qstep)
{
  extern __shared__ unsigned gcuba_vk_cells_[];
  const gcuba_vegas_strat_t s = b.s;
  const int a0 = blockIdx.y * b.ag;
  const int na = s.ndim - a0 < b.ag ? s.ndim - a0 : b.ag;
  const int ncell = na * b.nb;
  unsigned *L = gcuba_vk_cells_; /* 4 ncell limbs */
  const int E = gcuba_vegas_fx_exp(__longlong_as_double((long long)*b.qmax),
                                   b.ns);
  int cc[64]; /* coordinates of axes a0.. (ag <= 64) */
  for (int i = threadIdx.x; i < 4 * ncell; i += blockDim.x)
    gcuba_vk_cells_[i] = 0;
  __syncthreads();
  if (E != GCUBA_VEGAS_FX_NONE && b.sobol && !b.R) {
    /* Sobol points: the thread's cubes are a contiguous run (the sums
       are exact, so which thread adds which sample does not matter), its
       samples consecutive points of the sequence, walked one XOR per
       axis and point (gcuba_vegas_sobol_step) instead of one per set bit
       of each point's Gray code */
    const long long per = (b.ncubes + qstep - 1) / qstep, qa = q0 * per;
    const long long qe = qa + per < b.ncubes ? qa + per : b.ncubes;
    const long long n0 = (b.cube0 + qa) * s.npg, n1 = (b.cube0 + qe) * s.npg;
    for (int a = a0; a < a0 + na && n0 < n1; ++a) {
      const uint64_t *v = (const uint64_t *)b.sobol + (long)a * 64;
      uint64_t i = b.qoff + (uint64_t)n0 + 1, x = gcuba_vegas_sobol_bits(v, i);
      for (long long sm = n0;; ++i) {
        uint64_t qh, ql;
        gcuba_vegas_fx_split(b.fj[sm - b.s0], E, &qh, &ql);
        if (qh | ql)
          gcuba_vk_add128_32(
              L, ncell,
              (a - a0) * b.nb +
                  gcuba_vegas_bin_of(gcuba_vegas_sobol_value(x), b.nb),
              qh, ql);
        if (++sm == n1) break;
        x = gcuba_vegas_sobol_step(v, x, i);
      }
    }
  } else if (E != GCUBA_VEGAS_FX_NONE)
    for (long long q = q0; q < b.ncubes; q += qstep) {
      long long cube = b.cube0 + q, rest = cube;
      if (b.R) /* (a unit: the coordinates of its cube) */
        rest = gcuba_vegas_unit_cube((const int64_t *)b.R, b.nreal, cube);
      for (int a = s.ndim - 1; a >= 0; --a) {
        const long long p = gcuba_vegas_parts(&s, a);
        if (a >= a0 && a < a0 + na) cc[a - a0] = (int)(rest % p);
        rest /= p;
      }
      for (long long k = 0; k < s.npg; ++k) {
        const unsigned long long sample = (unsigned long long)(cube * s.npg + k);
        const double qv = b.fj[(long long)sample - b.s0];
        uint64_t qh, ql;
        uint32_t w[4];
        gcuba_vegas_fx_split(qv, E, &qh, &ql);
        if (!(qh | ql)) continue;
        if (b.sobol) {
          for (int a = a0; a < a0 + na; ++a) {
            const double y = gcuba_vegas_qy((const uint64_t *)b.sobol,
                                            b.qoff, sample, a);
            const int cell = (a - a0) * b.nb + gcuba_vegas_bin_of(y, b.nb);
            gcuba_vk_add128_32(L, ncell, cell, qh, ql);
          }
          continue;
        }
        for (int j = a0 / 2; 2 * j < a0 + na; ++j) {
          gcuba_vegas_philox(b.seed, b.iter, sample, (uint32_t)j, w);
          for (int h = 0; h < 2; ++h) {
            const int a = 2 * j + h;
            if (a < a0 || a >= a0 + na) continue;
            const double u = gcuba_vegas_u01(w[2 * h], w[2 * h + 1]);
            const double y = gcuba_vegas_point1(&s, a, cc[a - a0], u);
            const int cell = (a - a0) * b.nb + gcuba_vegas_bin_of(y, b.nb);
            gcuba_vk_add128_32(L, ncell, cell, qh, ql);
          }
        }
      }
    }
  __syncthreads();
  for (int i = threadIdx.x; i < ncell; i += blockDim.x) {
    const ull l = (ull)L[i] | (ull)L[ncell + i] << 32,
              h = (ull)L[2 * ncell + i] | (ull)L[3 * ncell + i] << 32;
    if (h | l)
      gcuba_vk_add128(b.hi + (long long)a0 * b.nb + i,
                      b.lo + (long long)a0 * b.nb + i, h, l);
  }
}

/* bin sums of the slice for axes a0 .. a0+na-1 (a0 = blockIdx.y * ag) */
__global__ void __launch_bounds__(BIN_THREADS)
gcuba_vk_bins(const struct gcuba_vk_bins_args b)
{
  gcuba_vk_bins_block(b, (long long)blockIdx.x * blockDim.x + threadIdx.x,
                      (long long)gridDim.x * blockDim.x);
}

/* The pipeline's (cuda/vegas_batch.cu): the bin sums of nb members'
   iterations, member m's with blocks bbeg[m] .. bbeg[m+1]-1 along x;
   blockIdx.y beyond a member's axes has nothing to do */
__global__ void __launch_bounds__(BIN_THREADS)
gcuba_vk_bins_members(const struct gcuba_vk_bins_args *B,
                      const long long *bbeg, int n)
{
  const long long g = blockIdx.x;
  int lo = 0, hi = n - 1;
  while (lo < hi) {
    const int mid = (lo + hi + 1) / 2;
    if (bbeg[mid] <= g) lo = mid;
    else hi = mid - 1;
  }
  if ((int)blockIdx.y * B[lo].ag >= B[lo].s.ndim) return;
  gcuba_vk_bins_block(B[lo], (g - bbeg[lo]) * blockDim.x + threadIdx.x,
                      (bbeg[lo + 1] - bbeg[lo]) * blockDim.x);
}

/* d += the slice's bin sums as doubles (first: d = 0 before); the sums
   are cleared */
__global__ void gcuba_vk_bins_finish(ull *hi, ull *lo, double *d, int ncell,
                                     const ull *qmax, long long ns,
                                     int first)
{
  const int E = gcuba_vegas_fx_exp(__longlong_as_double((long long)*qmax),
                                   ns);
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < ncell;
       i += gridDim.x * blockDim.x) {
    const double d0 = first ? 0.0 : d[i];
    d[i] = E != GCUBA_VEGAS_FX_NONE
               ? d0 + gcuba_vegas_fx_value(hi[i], lo[i], E)
               : d0;
    hi[i] = lo[i] = 0;
  }
}

/* the pipeline's: member blockIdx.x's bin sums as doubles into its d (a
   slice's first: gcuba_vk_bins_finish with first set), and what the
   driver's settling test reads of them into its ds */
__global__ void gcuba_vk_bins_finish_members(
    const struct gcuba_vk_bins_args *B)
{
  const struct gcuba_vk_bins_args &b = B[blockIdx.x];
  const int E = gcuba_vegas_fx_exp(__longlong_as_double((long long)*b.qmax),
                                   b.ns);
  const int ncell = b.s.ndim * b.nb;
  for (int i = threadIdx.x; i < ncell; i += blockDim.x)
    b.d[i] = E != GCUBA_VEGAS_FX_NONE
                 ? 0.0 + gcuba_vegas_fx_value(b.hi[i], b.lo[i], E)
                 : 0.0;
  __syncthreads();
  for (int a = threadIdx.x; a < b.s.ndim; a += blockDim.x)
    gcuba_vegas_bin_sums(b.d + a * b.nb, b.nb, b.ds + 2 * a);
}

/* the bin sums of cubes cube0 .. cube0+ncubes-1 (samples from s0) into
   t->hi, t->lo; ns: the samples that set the fixed-point exponent (the
   whole slice's) */
int gcuba_vc_launch_bins(struct vctx *t, const gcuba_vegas_iter *it,
                         long long cube0, long long ncubes, long long s0,
                         long long ns)
{
  struct gcuba_vk_bins_args b;
  const int na = t->ndim < t->ag ? t->ndim : t->ag;
  long long bx;
  if (ncubes <= 0) return 0;
  b.s = it->strat;
  b.seed = it->seed;
  b.iter = it->iter;
  b.sobol = it->sobol ? t->sobol : NULL;
  b.qoff = it->qoff;
  b.nb = t->nb;
  b.ag = t->ag;
  b.cube0 = cube0;
  b.ncubes = ncubes;
  b.s0 = s0;
  b.ns = ns;
  b.fj = t->fj;
  b.qmax = t->qmax;
  b.hi = t->hi;
  b.lo = t->lo;
  b.R = it->nreal > 0 ? t->R : NULL;
  b.nreal = it->nreal;
  bx = (ncubes + BIN_THREADS - 1) / BIN_THREADS;
  if (bx > 8LL * t->nsm) bx = 8LL * t->nsm;
  gcuba_vk_bins<<<dim3((unsigned)bx,
                       (unsigned)((t->ndim + t->ag - 1) / t->ag)),
                  BIN_THREADS, (size_t)2 * na * t->nb * sizeof(ull),
                  t->stream>>>(b);
  return GCUBA_CK_LAUNCH(t->c, "gcuba_vk_bins");
}
