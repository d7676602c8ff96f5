/* gcuba/detail/vegas_kernels.cuh -- the integrand-dependent Vegas kernel: the
   samples of one slice of an iteration, instantiated per integrand by
   GCUBA_INTEGRAND (kernels.cuh), so that the integrand is inlined.

   One thread does one chunk of cpt consecutive cubes at a time (a grid-
   stride loop over the slice's chunks): for each cube, its npg samples in
   order (Philox stream, stratified point, importance map, integrand), the
   cube's estimate, the chunk's sums; it writes the chunk's sums, one value
   per component and kind, to part[] (column-major: column col at
   part + col*pstride).  The library (cuda/vegas_reduce.cu) reduces them
   in the canonical tree, and, while the grid adapts, turns the stored bin
   contributions q of the samples into bin sums.  With adaptive
   stratification (a.R) the cubes are units (gcuba/detail/vegas.h): a unit's
   samples lie in its cube, count with its weight, and its variance goes
   to a.uv.  Which thread does which chunk does
   not change any result, so the launch shape is free: the launcher picks
   it from the kernel's occupancy.

   Three instantiations: ncomp = 1 and ndim <= 16 (per-thread arrays in
   registers/local memory), ncomp <= 8 and ndim <= 64 (the same, larger),
   and a general one whose per-thread arrays live in a device scratch
   buffer given by the library.  This file is part of gcuba. */
#ifndef GCUBA_VEGAS_KERNELS_CUH
#define GCUBA_VEGAS_KERNELS_CUH

#include <cuda_runtime.h>
#include "gcuba/detail/gpu_ops.h"
#include "gcuba/detail/vegas.h"

#define GCUBA_VEGAS_THREADS 128

/* Everything the sampling kernel needs; all pointers are device pointers.
   Filled by the library (cuda/vegas_sample.cu); `size' guards against a header
   mismatch between the library and the integrand's translation unit. */
struct gcuba_vegas_launch {
  int size;                   /* sizeof(struct gcuba_vegas_launch) */
  int ndim, ncomp;
  int nb, shared;             /* bins per axis; one grid for all axes */
  int store;                  /* store each sample's q in fj, qmax */
  unsigned long long seed;    /* Philox key */
  unsigned int iter;          /* iteration (Philox counter word) */
  const unsigned long long *sobol; /* seed 0: ndim*64 Sobol direction
                                 numbers (gcuba_vegas_y), else NULL */
  unsigned long long qoff;    /* Sobol index of the iteration's start */
  gcuba_vegas_strat_t strat;  /* stratification */
  long long cpt;              /* cubes per chunk */
  long long chunk0, nchunk;   /* this slice: chunks chunk0 .. + nchunk-1 */
  long long pstride;          /* column stride of part (>= nchunk) */
  const double *grid;         /* (shared ? 1 : ndim) * (nb+1) edges */
  const int *epow;            /* [2*ndim] edge powers, or NULL (none;
                                 gcuba_vegas_map) */
  int smem_grid;              /* bytes of grid to stage in shared memory
                                 (0: read it from global memory) */
  void *userdata;             /* passed to the integrand as it is */
  double *part;               /* [2*ncomp][pstride] chunk sums: I, then V */
  const double *qw;           /* [ncomp] weights of q (gcuba_vegas_q) */
  double *fj;                 /* [slice samples] q of each sample */
  unsigned long long *qmax;   /* bits of the largest q (atomicMax) */
  int *status;                /* GCUBA_ST_* bits (atomicOr) */
  unsigned long long *fext;   /* [2*ncomp] order keys of the largest and
                                 the smallest F (atomicMax, atomicMin) */
  double *scratch;            /* general kernel: per thread ndim + 7 ncomp */
  int *iscratch;              /* general kernel: per thread ndim */
  long long scratch_threads;  /* threads the scratch serves */
  int nsm;                    /* multiprocessors of the device */
  /* adaptive stratification (gcuba/detail/vegas.h, "as units"), or R NULL: the
     cubes above are units, cube h (of nreal) has units R[h] .. R[h+1]-1,
     and each unit's gcuba_vegas_unit_var goes to uv[unit - chunk0*cpt] */
  const long long *R;
  long long nreal;
  double *uv;
  /* gVegasBatch's pipeline (cuda/vegas_batch.cu): when members is not
     NULL, the launch samples nmembers iterations of different calls at
     once: chunks 0 .. nchunk-1 of this launch are chunk g - cbeg[m] of
     member m's launch members[m] (cbeg[m] <= g < cbeg[m+1]), which holds
     that call's own arguments and buffers; this launch's other fields
     are unused but nsm */
  const struct gcuba_vegas_launch *members;
  const long long *cbeg;
  int nmembers;
};

/* chunk ch of launch a (cubes ch*cpt .. from the launch's chunk0): its
   samples, the chunk's sums into a.part, the extremes of F into hi, lo
   and the largest q's bits into qm (not reset), status bits into st; ck
   from a.strat (gcuba_vegas_cube_k, or _iid with Sobol points); wx, wn
   (or NULL): a walk on the Sobol sequence, the bits on each axis of
   point *wn, which a sample at the next point steps on from */
template <class F, int NC, int ND>
__device__ __forceinline__ void gcuba_vegas_chunk(
    const struct gcuba_vegas_launch &a, const double *grid, long long ch,
    const double *ck, double *x, int *c, double *f, double *s1, double *s2,
    double *cI, double *cV, double *hi, double *lo, unsigned long long &qm,
    int &st, uint64_t *wx = 0, uint64_t *wn = 0)
{
  const gcuba_vegas_strat_t s = a.strat;
  const int nc = NC == 1 ? 1 : a.ncomp;
  const long long s0 = a.chunk0 * a.cpt * s.npg; /* first sample */
  int ndim = a.ndim, ncomp = a.ncomp;
  double rho = 1, kk[3] = {ck[0], ck[1], ck[2]};
  const int64_t *R = (const int64_t *)a.R;
  const long long u0 = a.chunk0 * a.cpt; /* the slice's first unit */
  long long h = 0, hend = 0;             /* with R: the unit's cube */
  long long cube = (a.chunk0 + ch) * a.cpt, end = cube + a.cpt;
  if (end > s.ncubes) end = s.ncubes;
  if (R) {
    h = gcuba_vegas_unit_cube(R, a.nreal, cube);
    hend = R[h + 1];
    gcuba_vegas_unit_k(s.npg, a.nreal, hend - R[h], s.ncubes, kk, &rho);
    gcuba_vegas_cube_coords(&s, h, c);
  } else
    gcuba_vegas_cube_coords(&s, cube, c);
  for (int k = 0; k < nc; ++k) cI[k] = cV[k] = 0;
  for (; cube < end; ++cube) {
    for (int k = 0; k < nc; ++k) s1[k] = s2[k] = 0;
    for (long long j = 0; j < s.npg; ++j) {
      double jac;
      if (wx && a.sobol && !R) {
        /* Sobol point I: a step from point I - 1 when the lane's walk is
           there (one XOR per axis), else from scratch (the same bits) */
        const uint64_t I = a.qoff + (uint64_t)(cube * s.npg + j) + 1;
        const uint64_t *v = (const uint64_t *)a.sobol;
        if (I == *wn + 1)
          for (int d = 0; d < s.ndim; ++d) {
            wx[d] = gcuba_vegas_sobol_step(v + d * 64, wx[d], *wn);
            x[d] = gcuba_vegas_sobol_value(wx[d]);
          }
        else
          for (int d = 0; d < s.ndim; ++d) {
            wx[d] = gcuba_vegas_sobol_bits(v + d * 64, I);
            x[d] = gcuba_vegas_sobol_value(wx[d]);
          }
        *wn = I;
        jac = gcuba_vegas_map(grid, a.nb, a.shared, s.ndim, x, x, (int *)0,
                              a.epow);
      } else
        jac = gcuba_vegas_sample(a.seed, a.iter, (const uint64_t *)a.sobol,
                                 a.qoff, &s, cube, j, c, grid, a.nb, a.shared,
                                 a.epow, x, (int *)0);
      if (F::call(&ndim, x, &ncomp, f, a.userdata) == -999)
        st |= GCUBA_ST_ABORT;
      double q = 0;
      for (int k = 0; k < nc; ++k) {
        const double v = gcuba_vegas_acc(f[k], jac, &s1[k], &s2[k]);
        if (!isfinite(f[k])) st |= GCUBA_ST_NONFINITE;
        /* (a unit's F weighs rho in the extremes and the bins) */
        if (v * rho > hi[k]) hi[k] = v * rho;
        if (v * rho < lo[k]) lo[k] = v * rho;
        if (a.store) q = gcuba_vegas_q(q, v, a.qw[k]);
      }
      if (a.store) {
        q = gcuba_vegas_qfix(q) * rho;
        const unsigned long long b =
            (unsigned long long)__double_as_longlong(q);
        a.fj[cube * s.npg + j - s0] = q;
        if (b > qm) qm = b;
      }
    }
    for (int k = 0; k < nc; ++k) {
      double ci, vi;
      gcuba_vegas_cube_estimate_k(s1[k], s2[k], kk, &ci, &vi);
      cI[k] += ci;
      cV[k] += vi;
    }
    if (!R) {
      gcuba_vegas_cube_next(&s, c);
      continue;
    }
    double u = 0;
    for (int k = 0; k < nc; ++k)
      u = gcuba_vegas_unit_var(u, s1[k], s2[k], kk[2], a.qw[k]);
    a.uv[cube - u0] = u;
    if (cube + 1 == hend && cube + 1 < s.ncubes) {
      hend = R[++h + 1];
      gcuba_vegas_unit_k(s.npg, a.nreal, hend - R[h], s.ncubes, kk, &rho);
      gcuba_vegas_cube_next(&s, c);
    }
  }
  for (int k = 0; k < nc; ++k) {
    a.part[(long long)k * a.pstride + ch] = cI[k];
    a.part[(long long)(ncomp + k) * a.pstride + ch] = cV[k];
  }
}

/* the extremes of F (hi, lo: nc values of this lane; none when !have), the largest q (qm) and the status bits (st) of a warp's
   lanes into launch a's: one atomic per warp and value (all 32 lanes call
   it) */
template <int NC>
__device__ __forceinline__ void gcuba_vegas_flush_warp(
    const struct gcuba_vegas_launch &a, int nc, const double *hi,
    const double *lo, unsigned long long qm, int st, bool have)
{
  for (int k = 0; k < nc; ++k) {
    unsigned long long kh = have ? gcuba_vegas_okey(hi[k])
                                 : gcuba_vegas_okey(-INFINITY),
                       kl = have ? gcuba_vegas_okey(lo[k])
                                 : gcuba_vegas_okey(INFINITY);
    for (int o = 16; o > 0; o /= 2) {
      const unsigned long long yh = __shfl_xor_sync(0xffffffffu, kh, o),
                               yl = __shfl_xor_sync(0xffffffffu, kl, o);
      if (yh > kh) kh = yh;
      if (yl < kl) kl = yl;
    }
    if ((threadIdx.x & 31) == 0) {
      atomicMax(a.fext + k, kh);
      atomicMin(a.fext + a.ncomp + k, kl);
    }
  }
  if (a.store) {
    for (int o = 16; o > 0; o /= 2) {
      unsigned long long y = __shfl_xor_sync(0xffffffffu, qm, o);
      if (y > qm) qm = y;
    }
    if ((threadIdx.x & 31) == 0 && qm) atomicMax(a.qmax, qm);
  }
  st = __reduce_or_sync(0xffffffffu, (unsigned)st);
  if ((threadIdx.x & 31) == 0 && st) atomicOr(a.status, st);
}

/* the same for a lane alone (its warp's lanes are in other members) */
__device__ __forceinline__ void gcuba_vegas_flush_lane(
    const struct gcuba_vegas_launch &a, int nc, const double *hi,
    const double *lo, unsigned long long qm, int st)
{
  for (int k = 0; k < nc; ++k) {
    atomicMax(a.fext + k, gcuba_vegas_okey(hi[k]));
    atomicMin(a.fext + a.ncomp + k, gcuba_vegas_okey(lo[k]));
  }
  if (a.store && qm) atomicMax(a.qmax, qm);
  if (st) atomicOr(a.status, st);
}

/* The pipeline's launch (a.members): each warp takes a contiguous range
   of the launch's chunks, 32 k consecutive ones at a time, each lane k
   consecutive ones of those, so that its lanes mostly sample one member
   (whose extremes they combine before the atomics), find the next
   chunk's member a step ahead of the last, and walk the Sobol sequence
   from one chunk's points to the next's (which lane samples which chunk
   changes no result).  k (run) is the launch's chunks per thread, 1 to
   GCUBA_VEGAS_WALK: a small launch keeps every thread busy. */
#define GCUBA_VEGAS_WALK 4
template <class F, int NC, int ND>
__device__ __forceinline__ void gcuba_vegas_members(
    const struct gcuba_vegas_launch &A, double *x, int *c, double *f,
    double *s1, double *s2, double *cI, double *cV, double *hi, double *lo)
{
  const long long nwarps = ((long long)gridDim.x * blockDim.x) / 32;
  const long long wid = ((long long)blockIdx.x * blockDim.x + threadIdx.x) / 32;
  const int lane = threadIdx.x & 31;
  const long long rr = A.nchunk / (32 * nwarps);
  const int run = rr < 1 ? 1 : rr > GCUBA_VEGAS_WALK ? GCUBA_VEGAS_WALK
                                                     : (int)rr;
  const long long span = 32 * run;
  const long long per =
      ((A.nchunk + nwarps - 1) / nwarps + span - 1) / span * span;
  const long long end = (wid + 1) * per < A.nchunk ? (wid + 1) * per
                                                   : A.nchunk;
  int m = 0;
  uint64_t wx[ND > 0 ? ND : 1], wn = 0; /* (point 0: all bits 0) */
  for (int d = 0; d < (ND > 0 ? ND : 1); ++d) wx[d] = 0;
  for (long long base = wid * per; base < end; base += span)
    for (int t = 0; t < run; ++t) {
      const long long g = base + lane * run + t;
      const bool valid = g < end;
      unsigned long long qm = 0;
      int st = 0, nc, m0;
      if (valid) {
        /* the member of chunk g: the last one's, or one after it */
        if (A.cbeg[m + 1] <= g || A.cbeg[m] > g) {
          int lo_m = A.cbeg[m] <= g ? m + 1 : 0, hi_m = A.nmembers - 1;
          while (lo_m < hi_m) {
            const int mid = (lo_m + hi_m + 1) / 2;
            if (A.cbeg[mid] <= g) lo_m = mid;
            else hi_m = mid - 1;
          }
          m = lo_m;
        }
      }
      m0 = __shfl_sync(0xffffffffu, m, 0);
      const struct gcuba_vegas_launch &a = A.members[valid ? m : m0];
      nc = NC == 1 ? 1 : a.ncomp;
      for (int k = 0; k < nc; ++k) {
        hi[k] = -INFINITY;
        lo[k] = INFINITY;
      }
      if (valid && !(*(volatile int *)a.status & GCUBA_ST_ABORT)) {
        double ck[3];
        if (a.sobol)
          gcuba_vegas_cube_k_iid(a.strat.calls, ck);
        else
          gcuba_vegas_cube_k(a.strat.npg, a.strat.ncubes, ck);
        gcuba_vegas_chunk<F, NC, ND>(a, a.grid, g - A.cbeg[m], ck, x, c, f, s1,
                                     s2, cI, cV, hi, lo, qm, st, wx, &wn);
      }
      if (__all_sync(0xffffffffu, !valid || m == m0))
        gcuba_vegas_flush_warp<NC>(a, nc, hi, lo, qm, st, true);
      else if (valid)
        gcuba_vegas_flush_lane(a, nc, hi, lo, qm, st);
    }
}

template <class F, int NC, int ND>
__global__ void __launch_bounds__(GCUBA_VEGAS_THREADS)
gcuba_k_vegas(const struct gcuba_vegas_launch a)
{
  extern __shared__ double gcuba_vegas_sgrid_[];
  const double *grid = a.grid;
  const long long tid = (long long)blockIdx.x * blockDim.x + threadIdx.x;
  const long long nthr = (long long)gridDim.x * blockDim.x;
  const gcuba_vegas_strat_t s = a.strat;
  const int nc = NC == 1 ? 1 : a.ncomp;
  int ndim = a.ndim, ncomp = a.ncomp, st = 0;
  unsigned long long qm = 0;
  double ck[3];
  double xl[ND > 0 ? ND : 1], fl[NC > 0 ? NC : 1], s1l[NC > 0 ? NC : 1],
      s2l[NC > 0 ? NC : 1], cIl[NC > 0 ? NC : 1], cVl[NC > 0 ? NC : 1],
      hil[NC > 0 ? NC : 1], lol[NC > 0 ? NC : 1];
  int cl[ND > 0 ? ND : 1];
  double *x, *f, *s1, *s2, *cI, *cV, *hi, *lo;
  int *c;

  if (ND > 0 && NC > 0 && a.members) {
    gcuba_vegas_members<F, NC, ND>(a, xl, cl, fl, s1l, s2l, cIl, cVl, hil,
                                   lol);
    return;
  }
  if (a.sobol)
    gcuba_vegas_cube_k_iid(s.calls, ck);
  else
    gcuba_vegas_cube_k(s.npg, s.ncubes, ck);
  if (a.smem_grid) {
    const int n = a.smem_grid / (int)sizeof(double);
    for (int i = threadIdx.x; i < n; i += blockDim.x)
      gcuba_vegas_sgrid_[i] = a.grid[i];
    __syncthreads();
    grid = gcuba_vegas_sgrid_;
  }
  /* the general kernel's arrays are in the scratch (the launcher keeps
     every thread within scratch_threads; one beyond would only idle) */
  const bool local = ND > 0 && NC > 0;
  const bool active = local || tid < a.scratch_threads;
  x = xl;
  c = cl;
  f = fl;
  s1 = s1l;
  s2 = s2l;
  cI = cIl;
  cV = cVl;
  hi = hil;
  lo = lol;
  if (!local && active) {
    x = a.scratch + tid * (long long)(ndim + 7 * ncomp);
    f = x + ndim;
    s1 = f + ncomp;
    s2 = s1 + ncomp;
    cI = s2 + ncomp;
    cV = cI + ncomp;
    hi = cV + ncomp;
    lo = hi + ncomp;
    c = a.iscratch + tid * (long long)ndim;
  }
  if (active)
    for (int k = 0; k < nc; ++k) {
      hi[k] = -INFINITY;
      lo[k] = INFINITY;
    }

  for (long long ch = active ? tid : a.nchunk; ch < a.nchunk; ch += nthr) {
    if (*(volatile int *)a.status & GCUBA_ST_ABORT) break;
    gcuba_vegas_chunk<F, NC, ND>(a, grid, ch, ck, x, c, f, s1, s2, cI, cV,
                                 hi, lo, qm, st);
  }
  /* the largest and smallest F, the largest q, the status: warp extremes
     first, one atomic per warp and value (an inactive thread has none) */
  gcuba_vegas_flush_warp<NC>(a, nc, hi, lo, qm, st, active);
}

/* blocks for a kernel: enough for the chunks, at most 8 waves of the
   resident blocks (a grid-stride loop takes the rest) */
template <class F, int NC, int ND>
static int gcuba_vegas_launch_k(const struct gcuba_vegas_launch *a,
                                cudaStream_t stream)
{
  static int occ = 0; /* resident blocks per SM (a benign race) */
  long long blocks, cap;
  if (occ <= 0) {
    int o = 0;
    cudaError_t e = cudaOccupancyMaxActiveBlocksPerMultiprocessor(
        &o, gcuba_k_vegas<F, NC, ND>, GCUBA_VEGAS_THREADS, a->smem_grid);
    if (e != cudaSuccess) return (int)e;
    occ = o > 0 ? o : 1;
  }
  blocks = (a->nchunk + GCUBA_VEGAS_THREADS - 1) / GCUBA_VEGAS_THREADS;
  cap = 8LL * occ * (a->nsm > 0 ? a->nsm : 1);
  if (blocks > cap) blocks = cap;
  if (ND == 0 || NC == 0) {
    cap = a->scratch_threads / GCUBA_VEGAS_THREADS;
    if (blocks > cap) blocks = cap;
  }
  if (blocks < 1) blocks = 1;
  gcuba_k_vegas<F, NC, ND><<<(unsigned)blocks, GCUBA_VEGAS_THREADS,
                             (size_t)a->smem_grid, stream>>>(*a);
  return (int)cudaPeekAtLastError();
}

/* the vegas_iter entry of the integrand's GPU table */
template <class F>
static int gcuba_vegas_launch_iter(const struct gcuba_vegas_launch *a,
                                   void *stream)
{
  cudaStream_t s = (cudaStream_t)stream;
  if (!a || a->size != (int)sizeof *a) return (int)cudaErrorInvalidValue;
  if (a->nchunk <= 0) return 0;
  if (a->ncomp == 1 && a->ndim <= 16)
    return gcuba_vegas_launch_k<F, 1, 16>(a, s);
  if (a->ncomp <= 8 && a->ndim <= 64)
    return gcuba_vegas_launch_k<F, 8, 64>(a, s);
  if (a->scratch_threads < GCUBA_VEGAS_THREADS)
    return (int)cudaErrorInvalidValue;
  return gcuba_vegas_launch_k<F, 0, 0>(a, s);
}

#endif
