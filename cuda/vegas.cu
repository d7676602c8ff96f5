/* cuda/vegas.cu -- the CUDA backend of gVegas (src/vegas/backend.h): the
   integrand-independent half.  Per slice of an iteration it launches the
   integrand's sampling kernel (include/gcuba/vegas_kernels.cuh, through the
   descriptor's GPU table), reduces the chunk sums with the canonical tree
   of include/gcuba/vegas.h (one block of 256 threads per group, the same
   halving as the CPU backend; one launch for every level) and adds the
   slice's result to the running total in slice order, and, while the grid
   adapts, turns the stored bin
   contributions q of the samples into exact 128-bit bin sums: each block
   accumulates its samples' contributions for a group of axes in shared
   memory (integer atomics, so the order does not matter), then merges
   them into the global sums; a last kernel converts them to doubles.
   Every device buffer is sized once when the sampler is created (from
   maxeval and the slice limits) and reused; nothing is allocated during
   the iterations, except adaptive stratification's buffers (units
   op), which grow by doubling when an iteration has more cubes.  An
   iteration makes one copy to the device (grid, weights, cleared sums),
   its kernels, one copy back (sums, extremes, status word, bin
   contributions) and one synchronisation (adaptive stratification: one
   more, after its allocation): on small iterations the launches, not
   the samples, set the time.
   This file is part of gcuba. */
#include <cuda_runtime.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "common.cuh"
#include "common/coll.h"
#include "vegas/backend.h"
#include "gcuba/gpu_ops.h"
#include "gcuba/vegas_kernels.cuh"
#include <cub/device/device_scan.cuh>

#define TREE_THREADS GCUBA_VEGAS_GROUP
#define BIN_THREADS 256
#define BIN_SMEM 32768 /* bytes of 128-bit cells per block */
/* the general sampling kernel's per-thread scratch, at most */
#define SCRATCH_BYTES ((long long)64 << 20)

typedef unsigned long long ull;

struct vctx {
  gcuba_call *c;
  int dev, ndim, ncomp, nb, shared, nsm, ag;
  int nbcap;              /* the bins per axis the bin buffers hold (nb
                             and up to the setup's nbmax: growing bins
                             reuse the context) */
  cudaStream_t stream;
  void *ud;               /* userdata as the device sees it */
  void *udcopy;           /* device copy of a host struct (capacity udcap) */
  size_t udcap;
  /* One device block io and its pinned host mirror h_io hold, in this
     order, the grid (its last ngridvals of ngvcap values), qw, fext, tot,
     qmax, status and d, so that an iteration's set-up is one copy to the
     device (from the grid when it changed, else from qw, through status)
     and its results one copy back (fext through status, and d while the
     grid adapts); then a counter of the tree kernel's blocks */
  char *io, *h_io;
  long long ngvcap;       /* ngrids * (nbcap + 1) */
  size_t o_qw, o_fext, o_tot, o_qmax, o_status, o_d, o_cnt, io_bytes;
  unsigned int *cnt;      /* gcuba_vk_tree_all's blocks done (0 between
                             launches) */
  double *grid;           /* in io: the current grid, ngridvals values */
  int ngridvals;          /* ngrids * (nb + 1): the current grid */
  ull *sobol;             /* [ndim*64] Sobol direction numbers (seed 0) */
  double *part;           /* [2*ncomp][spc] chunk sums */
  long long partcap;      /* chunks */
  double *t1, *t2;        /* tree levels */
  long long t1cap, t2cap; /* groups */
  double *tot;            /* [2*ncomp] */
  double *fj;             /* [slice samples] q of each sample */
  double *qw;             /* [ncomp] weights of q */
  long long fjcap;
  ull *qmax;
  int *status;
  ull *hi, *lo;           /* [ndim*nbcap] exact bin sums of a slice */
  double *d;              /* [ndim*nbcap] bin contributions */
  double *scratch;
  int *iscratch;
  long long sthreads;
  double *h_tot, *h_d;    /* pinned host copies */
  int *h_status;
  ull *fext;              /* [2*ncomp] order keys: largest, smallest F */
  ull *h_fext;            /* pinned host copy */
  /* a collective call (common/coll.h): the exchange's host buffers */
  double *xg;             /* [groups][2*ncomp] first-level tree results */
  long long xgcap;
  ull *xhl;               /* [processes][2][ndim*nbcap]: exact bin sums */
  long long *xcnt;        /* [2*processes] shares */
  int xcap;               /* processes xhl and xcnt hold */
  /* adaptive stratification (it->nreal > 0; the units op): the current
     iteration's units R and variance sums cvar, the previous iteration's
     Rp and cvp (fresh: the current ones are a finished iteration's, not
     yet moved there), a slice's unit variances uv, the allocation's
     weights w, counts n, tree and scan scratch (grown on demand) */
  long long *R, *Rp, *n;
  double *uv, *cvar, *cvp, *w, *tsc;
  void *scan;
  long long rcap, rpcap, ncap, uvcap, ccap, cpcap, wcap, tcap, scancap;
  int fresh;
};

/* ---- userdata: gcuba_device_userdata (device.cu) ---------------------- */
static int device_userdata(struct vctx *t)
{
  return gcuba_device_userdata(t->c, t->c->ud.p, t->c->ud.bytes,
                               "", &t->ud, &t->udcopy, &t->udcap, t->stream);
}

/* ---- kernels ----------------------------------------------------------- */

/* one level of the canonical tree: group g of column col of src (n values
   per column) into dst[col*m + g] */
__global__ void gcuba_vk_tree(const double *src, long long n, double *dst,
                              long long m)
{
  __shared__ double v[TREE_THREADS];
  const long long g = blockIdx.x, i = g * TREE_THREADS + threadIdx.x;
  const int col = blockIdx.y, t = threadIdx.x;
  v[t] = i < n ? src[(long long)col * n + i] : 0.0;
  __syncthreads();
  for (int h = TREE_THREADS / 2; h > 0; h /= 2) {
    if (t < h) v[t] = v[t] + v[t + h];
    __syncthreads();
  }
  if (t == 0) dst[(long long)col * m + g] = v[0];
}

/* tot[col] += src[col]: slices in order */
__global__ void gcuba_vk_accum(double *tot, const double *src, int ncol)
{
  for (int col = threadIdx.x; col < ncol; col += blockDim.x)
    tot[col] = tot[col] + src[col];
}

/* The whole canonical tree of a slice in one launch, and tot[col] += its
   result (gcuba_vk_tree's levels, then gcuba_vk_accum's addition, with
   the same bits): blocks (g, col) reduce the groups of src into dst (m =
   tree_next(n) per column); the last block to finish reduces the levels
   above in dst, in place and in group order (a group's result goes to
   its index, which a group before it has read). */
__global__ void gcuba_vk_tree_all(const double *src, long long n,
                                  double *dst, long long m, double *tot,
                                  unsigned int *cnt)
{
  __shared__ double v[TREE_THREADS];
  __shared__ bool last;
  const long long g = blockIdx.x, i = g * TREE_THREADS + threadIdx.x;
  const int col = blockIdx.y, t = threadIdx.x, ncol = gridDim.y;
  if (n == 1) { /* no tree: the value itself */
    if (t == 0) tot[col] = tot[col] + src[col];
    return;
  }
  v[t] = i < n ? src[(long long)col * n + i] : 0.0;
  __syncthreads();
  for (int h = TREE_THREADS / 2; h > 0; h /= 2) {
    if (t < h) v[t] = v[t] + v[t + h];
    __syncthreads();
  }
  if (t == 0) {
    dst[(long long)col * m + g] = v[0];
    __threadfence();
    last = atomicAdd(cnt, 1u) == (unsigned)(m * ncol - 1);
  }
  __syncthreads();
  if (!last) return;
  for (int k = 0; k < ncol; ++k) {
    double *col_v = dst + (long long)k * m;
    long long nn = m;
    while (nn > 1) {
      const long long mm = (nn + TREE_THREADS - 1) / TREE_THREADS;
      for (long long gg = 0; gg < mm; ++gg) {
        const long long j = gg * TREE_THREADS + t;
        v[t] = j < nn ? __ldcg(col_v + j) : 0.0;
        __syncthreads();
        for (int h = TREE_THREADS / 2; h > 0; h /= 2) {
          if (t < h) v[t] = v[t] + v[t + h];
          __syncthreads();
        }
        if (t == 0) col_v[gg] = v[0];
        __syncthreads();
      }
      nn = mm;
    }
    if (t == 0) tot[k] = tot[k] + __ldcg(col_v);
  }
  if (t == 0) *cnt = 0;
}

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

struct bins_args {
  gcuba_vegas_strat_t s;
  unsigned long long seed;
  unsigned int iter;
  const ull *sobol; /* quasi-random points (gcuba_vegas_y), or NULL */
  unsigned long long qoff;
  int nb, ag;
  long long cube0, ncubes; /* the slice's cubes */
  long long s0, ns;        /* its first sample, its samples */
  const double *fj;
  const ull *qmax;
  ull *hi, *lo;
  const long long *R; /* adaptive stratification: the cubes' units */
  long long nreal;
};

/* bin sums of the slice for axes a0 .. a0+na-1 (a0 = blockIdx.y * ag) */
__global__ void __launch_bounds__(BIN_THREADS)
gcuba_vk_bins(const struct bins_args b)
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
  if (E != GCUBA_VEGAS_FX_NONE)
    for (long long q = (long long)blockIdx.x * blockDim.x + threadIdx.x;
         q < b.ncubes; q += (long long)gridDim.x * blockDim.x) {
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

/* adaptive stratification: the variances of units u0 .. u1-1 (uv, from
   u0) added to those of their cubes, in unit order */
__global__ void gcuba_vk_cvar(const long long *R, long long nreal,
                              const double *uv, double *cvar, long long u0,
                              long long u1)
{
  const long long h0 = gcuba_vegas_unit_cube((const int64_t *)R, nreal, u0),
                  h1 = gcuba_vegas_unit_cube((const int64_t *)R, nreal,
                                             u1 - 1);
  for (long long h = h0 + (long long)blockIdx.x * blockDim.x + threadIdx.x;
       h <= h1; h += (long long)gridDim.x * blockDim.x) {
    const long long a = R[h] > u0 ? R[h] : u0,
                    e = R[h + 1] < u1 ? R[h + 1] : u1;
    double v = cvar[h];
    for (long long u = a; u < e; ++u) v += uv[u - u0];
    cvar[h] = v;
  }
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

/* ---- the backend ---------------------------------------------------------- */

/* frees a context and everything in it (errors ignored: it may be broken) */
static void release(struct vctx *t)
{
  int cur = -1;
  if (!t) return;
  /* its device current while its memory and stream go */
  if (cudaGetDevice(&cur) != cudaSuccess || cur == t->dev) cur = -1;
  if (cur >= 0) cudaSetDevice(t->dev);
  if (t->stream) (void)cudaStreamSynchronize(t->stream);
  cudaFree(t->io);
  cudaFreeHost(t->h_io);
  cudaFree(t->sobol);
  cudaFree(t->part);
  cudaFree(t->t1);
  cudaFree(t->t2);
  cudaFree(t->fj);
  cudaFree(t->hi);
  cudaFree(t->lo);
  cudaFree(t->scratch);
  cudaFree(t->iscratch);
  cudaFree(t->udcopy);
  cudaFree(t->R);
  cudaFree(t->Rp);
  cudaFree(t->n);
  cudaFree(t->uv);
  cudaFree(t->cvar);
  cudaFree(t->cvp);
  cudaFree(t->w);
  cudaFree(t->tsc);
  cudaFree(t->scan);
  free(t->xg);
  free(t->xhl);
  free(t->xcnt);
  if (t->stream) cudaStreamDestroy(t->stream);
  if (cur >= 0) cudaSetDevice(cur);
  (void)cudaGetLastError();
  free(t);
}

/* Up to CACHE_KEEP idle contexts per device are kept with their buffers
   after a call (most recent first), so that a later call of a shape one of
   them has (device, ndim, ncomp, shared grid) and no larger buffers starts
   without allocating: a sweep of short calls pays cudaMalloc once, so do
   calls that alternate between a few integrands of different ndim or
   ncomp, and a call whose bins grow takes back the context it gave up (its
   bin buffers hold nbmax bins from the start), instead of freeing and
   allocating every buffer mid-call.  Each context holds about 200 MB,
   more with adaptive stratification (doc/vegas.md).  Concurrent calls on
   one device allocate their own.  gcuba_vegas_cuda_release() frees
   them. */
static pthread_mutex_t cache_lock = PTHREAD_MUTEX_INITIALIZER;
#define CACHE_SLOTS 16 /* devices, for calls on several GPUs */
#define CACHE_KEEP 3   /* idle contexts per device */
static struct vctx *cache[CACHE_SLOTS][CACHE_KEEP];

extern "C" void gcuba_vegas_cuda_release(void)
{
  struct vctx *t[CACHE_SLOTS * CACHE_KEEP];
  int i, k;
  pthread_mutex_lock(&cache_lock);
  for (i = 0; i < CACHE_SLOTS; ++i)
    for (k = 0; k < CACHE_KEEP; ++k) {
      t[i * CACHE_KEEP + k] = cache[i][k];
      cache[i][k] = NULL;
    }
  pthread_mutex_unlock(&cache_lock);
  for (i = 0; i < CACHE_SLOTS * CACHE_KEEP; ++i) release(t[i]);
}

static void destroy(void *ctx)
{
  struct vctx *t = (struct vctx *)ctx, *old;
  int rc, k;
  if (!t) return;
  rc = GCUBA_CK(t->c, cudaStreamSynchronize(t->stream));
  if (rc) {
    release(t); /* a broken context is not kept */
    return;
  }
  t->c = NULL;
  if (t->dev < 0 || t->dev >= CACHE_SLOTS) {
    release(t);
    return;
  }
  /* first in its device's list; the least recently used one beyond
     CACHE_KEEP goes */
  pthread_mutex_lock(&cache_lock);
  old = cache[t->dev][CACHE_KEEP - 1];
  for (k = CACHE_KEEP - 1; k > 0; --k)
    cache[t->dev][k] = cache[t->dev][k - 1];
  cache[t->dev][0] = t;
  pthread_mutex_unlock(&cache_lock);
  release(old);
}

static long long lmin(long long a, long long b) { return a < b ? a : b; }

/* the buffer sizes a call needs */
static void sizes(struct vctx *t, const gcuba_vegas_setup *s)
{
  const long long maxc = s->max_calls > 4 ? s->max_calls : 4;
  /* the largest slice: at most 2^24 samples, 2^22/ncomp chunks, and no more
     chunks than an iteration of max_calls samples has cubes (as many as
     samples with Sobol points, one per cube) */
  t->partcap = lmin(GCUBA_VEGAS_SLICE_VALUES / s->ncomp, maxc + 1);
  t->t1cap = gcuba_vegas_tree_next(t->partcap);
  t->t2cap = gcuba_vegas_tree_next(t->t1cap);
  t->fjcap = lmin(GCUBA_VEGAS_SLICE_SAMPLES, maxc + 1);
  t->sthreads = 0;
  if (s->ncomp > 8 || s->ndim > 64) {
    const long long per = 8LL * (s->ndim + 7 * s->ncomp) + 4LL * s->ndim;
    t->sthreads = lmin(SCRATCH_BYTES / per, 2048LL * t->nsm);
    t->sthreads -= t->sthreads % GCUBA_VEGAS_THREADS;
    if (t->sthreads < GCUBA_VEGAS_THREADS) t->sthreads = GCUBA_VEGAS_THREADS;
  }
}

/* a cached context (of want's device) serves want: the same shape, and
   buffers no smaller */
static int fits(const struct vctx *t, const struct vctx *want)
{
  return t && t->ndim == want->ndim && t->ncomp == want->ncomp &&
         t->shared == want->shared && t->nbcap >= want->nbcap &&
         t->partcap >= want->partcap && t->fjcap >= want->fjcap &&
         t->sthreads >= want->sthreads;
}

/* the most recently used cached context that fits, taken out of the list */
static struct vctx *take_cached(const struct vctx *want)
{
  struct vctx *t = NULL, **l;
  int k;
  if (want->dev < 0 || want->dev >= CACHE_SLOTS) return NULL;
  pthread_mutex_lock(&cache_lock);
  l = cache[want->dev];
  for (k = 0; k < CACHE_KEEP; ++k)
    if (fits(l[k], want)) {
      t = l[k];
      for (; k < CACHE_KEEP - 1; ++k) l[k] = l[k + 1];
      l[CACHE_KEEP - 1] = NULL;
      break;
    }
  pthread_mutex_unlock(&cache_lock);
  return t;
}

static int allocate(struct vctx *t)
{
  gcuba_call *c = t->c;
  const long long cells = (long long)t->ndim * t->nbcap, nc = t->ncomp;
  int rc;
  t->ngvcap = (long long)(t->shared ? 1 : t->ndim) * (t->nbcap + 1);
  t->o_qw = sizeof(double) * t->ngvcap;
  t->o_fext = t->o_qw + sizeof(double) * nc;
  t->o_tot = t->o_fext + sizeof(ull) * 2 * nc;
  t->o_qmax = t->o_tot + sizeof(double) * 2 * nc;
  t->o_status = t->o_qmax + sizeof(ull);
  t->o_d = t->o_status + sizeof(ull);
  t->o_cnt = t->o_d + sizeof(double) * cells;
  t->io_bytes = t->o_cnt + sizeof(ull);
  if ((rc = GCUBA_CK(c, cudaStreamCreateWithFlags(&t->stream,
                                                  cudaStreamNonBlocking))) ||
      (rc = GCUBA_CK(c, cudaMalloc((void **)&t->io, t->io_bytes))) ||
      (rc = GCUBA_CK(c, cudaMallocHost((void **)&t->h_io, t->io_bytes))) ||
      (rc = GCUBA_CK(c, cudaMemset(t->io, 0, t->io_bytes))) ||
      (rc = GCUBA_CK(c, cudaMalloc((void **)&t->sobol,
                                   sizeof(ull) * 64 * t->ndim))) ||
      (rc = GCUBA_CK(c, cudaMalloc((void **)&t->part,
                                   sizeof(double) * 2 * nc * t->partcap))) ||
      (rc = GCUBA_CK(c, cudaMalloc((void **)&t->t1,
                                   sizeof(double) * 2 * nc * t->t1cap))) ||
      (rc = GCUBA_CK(c, cudaMalloc((void **)&t->t2,
                                   sizeof(double) * 2 * nc * t->t2cap))) ||
      (rc = GCUBA_CK(c, cudaMalloc((void **)&t->fj,
                                   sizeof(double) * t->fjcap))) ||
      (rc = GCUBA_CK(c, cudaMalloc((void **)&t->hi, sizeof(ull) * cells))) ||
      (rc = GCUBA_CK(c, cudaMalloc((void **)&t->lo, sizeof(ull) * cells))))
    return rc;
  memset(t->h_io, 0, t->io_bytes);
  t->qw = (double *)(t->io + t->o_qw);
  t->fext = (ull *)(t->io + t->o_fext);
  t->tot = (double *)(t->io + t->o_tot);
  t->qmax = (ull *)(t->io + t->o_qmax);
  t->status = (int *)(t->io + t->o_status);
  t->d = (double *)(t->io + t->o_d);
  t->cnt = (unsigned int *)(t->io + t->o_cnt);
  t->h_fext = (ull *)(t->h_io + t->o_fext);
  t->h_tot = (double *)(t->h_io + t->o_tot);
  t->h_status = (int *)(t->h_io + t->o_status);
  t->h_d = (double *)(t->h_io + t->o_d);
  if (t->sthreads &&
      ((rc = GCUBA_CK(c, cudaMalloc((void **)&t->scratch,
                                    sizeof(double) * t->sthreads *
                                        (t->ndim + 7 * nc)))) ||
       (rc = GCUBA_CK(c, cudaMalloc((void **)&t->iscratch,
                                    sizeof(int) * t->sthreads * t->ndim)))))
    return rc;
  gcuba_log(c, 2, "CUDA sampler: %d SMs, slices of up to %lld chunks and "
            "%lld samples, %lld scratch threads", t->nsm, t->partcap,
            t->fjcap, t->sthreads);
  return 0;
}

static void *create(gcuba_call *c, const gcuba_vegas_setup *s, int *fail)
{
  struct vctx want, *t;
  int rc;
  memset(&want, 0, sizeof want);
  want.c = c;
  if ((rc = GCUBA_CK(c, cudaGetDevice(&want.dev))) ||
      (rc = GCUBA_CK(c, cudaDeviceGetAttribute(
           &want.nsm, cudaDevAttrMultiProcessorCount, want.dev)))) {
    *fail = rc;
    return NULL;
  }
  want.ndim = s->ndim;
  want.ncomp = s->ncomp;
  want.nb = s->nb;
  want.nbcap = s->nbmax > s->nb ? s->nbmax : s->nb;
  want.shared = s->shared;
  want.ngridvals = (s->shared ? 1 : s->ndim) * (s->nb + 1);
  want.ag = 2048 / s->nb; /* BIN_SMEM / 16 bytes per cell */
  if (want.ag > 64) want.ag = 64;
  if (want.ag < 1) want.ag = 1;
  sizes(&want, s);
  t = take_cached(&want);
  if (t) {
    t->c = c;
    t->nb = want.nb;
    t->ngridvals = want.ngridvals;
    t->ag = want.ag;
    t->fresh = 0;
    gcuba_log(c, 2, "CUDA sampler: buffers of an earlier call reused");
  } else {
    t = (struct vctx *)malloc(sizeof *t);
    if (!t) {
      *fail = gcuba_fail(c, GCUBA_FAIL_NOMEM, "CUDA sampler");
      return NULL;
    }
    *t = want;
    if ((rc = allocate(t))) goto bad;
  }
  /* the grid ends where qw starts (one set-up copy) */
  t->grid = (double *)(t->io + t->o_qw) - t->ngridvals;
  /* the exact bin sums start cleared (bins_finish clears them after use) */
  if ((rc = GCUBA_CK(c, cudaMemsetAsync(t->hi, 0, sizeof(ull) * t->ndim *
                                        t->nb, t->stream))) ||
      (rc = GCUBA_CK(c, cudaMemsetAsync(t->lo, 0, sizeof(ull) * t->ndim *
                                        t->nb, t->stream))) ||
      (rc = device_userdata(t)))
    goto bad;
  if (s->sobol &&
      (rc = GCUBA_CK(c, cudaMemcpyAsync(t->sobol, s->sobol,
                                        sizeof(ull) * 64 * t->ndim,
                                        cudaMemcpyHostToDevice, t->stream))))
    goto bad;
  return t;
bad:
  *fail = rc;
  release(t);
  c->fail = rc;
  return NULL;
}

/* the bin sums of cubes cube0 .. cube0+ncubes-1 (samples from s0) into
   t->hi, t->lo; ns: the samples that set the fixed-point exponent (the
   whole slice's) */
static int launch_bins(struct vctx *t, const gcuba_vegas_iter *it,
                       long long cube0, long long ncubes, long long s0,
                       long long ns)
{
  struct bins_args b;
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

/* A collective call (common/coll.h): the slices of an iteration with each
   process sampling its share of every slice's groups of chunks.  The
   group results of the first tree level, the slice's largest q and the
   exact bin sums are exchanged through the host, and the rest proceeds
   as on one process, so the sums have the same bits.  Every process makes
   the same collective calls whatever fails (each exchange starts with the
   agreed status), so none is left waiting. */
static int coll_grow(struct vctx *t, long long groups, int size, int cells)
{
  /* rows of the exchange, then as much scratch for the transposes */
  if (2 * groups * 2 * t->ncomp > t->xgcap) {
    double *q = (double *)realloc(t->xg, sizeof(double) * 2 * groups * 2 *
                                             t->ncomp);
    if (!q) return -1;
    t->xg = q;
    t->xgcap = 2 * groups * 2 * t->ncomp;
  }
  if (size > t->xcap) {
    ull *h = (ull *)realloc(t->xhl, sizeof(ull) * 2 * cells * size);
    long long *k;
    if (!h) return -1;
    t->xhl = h;
    k = (long long *)realloc(t->xcnt, sizeof(long long) * 2 * size);
    if (!k) return -1;
    t->xcnt = k;
    t->xcap = size;
  }
  return 0;
}

static int coll_slices(struct vctx *t, const gcuba_vegas_iter *it,
                       struct gcuba_vegas_launch *L, int krc)
{
  gcuba_call *c = t->c;
  const gcuba_collective *k = c->coll;
  const int nc2 = 2 * t->ncomp, cells = t->ndim * t->nb;
  const long long spc = it->plan.spc, nchunks = it->plan.nchunks;
  const long long cpt = it->plan.cpt, npg = it->strat.npg;
  const struct gcuba_gpu_ops *g = c->integrand->gpu;
  cudaStream_t st = t->stream;
  long long sl;
  int rc, r, col;
  double *scr;
/* the status to agree on: 0 or the fail code krc's failure set */
#define KS (krc ? (c->fail ? c->fail : GCUBA_FAIL_CUDA) : 0)
  if (!krc && coll_grow(t, gcuba_vegas_tree_next(lmin(spc, nchunks)),
                        k->size, t->ndim * t->nbcap))
    krc = gcuba_fail(c, GCUBA_FAIL_NOMEM, "exchange buffers");
  if ((rc = gcuba_coll_status(c, KS))) return rc;
  scr = t->xg + t->xgcap / 2;
  for (sl = 0; sl < it->plan.nslices; ++sl) {
    const long long c0 = sl * spc, nch = lmin(spc, nchunks - c0);
    const long long ng = gcuba_vegas_tree_next(nch);
    long long ga, gb, oc0, onch, m, n, *cnt, gi;
    double *src, *dst;
    gcuba_coll_share(k, ng, &ga, &gb, t->xcnt);
    oc0 = c0 + ga * GCUBA_VEGAS_GROUP;
    onch = lmin(gb * GCUBA_VEGAS_GROUP, nch) - ga * GCUBA_VEGAS_GROUP;
    if (onch < 0) onch = 0;
    m = gb - ga;
    /* this process's chunks, and their groups' first tree level (the
       groups are whole: 256 chunks from the slice's start) */
    L->chunk0 = oc0;
    L->nchunk = onch;
    L->pstride = onch;
    if (!krc && it->bins)
      krc = GCUBA_CK(c, cudaMemsetAsync(t->qmax, 0, sizeof(ull), st));
    if (!krc && onch > 0) krc = GCUBA_CK(c, g->vegas_iter(L, st));
    if (!krc && onch > 0) {
      gcuba_vk_tree<<<dim3((unsigned)m, (unsigned)nc2), TREE_THREADS, 0,
                      st>>>(t->part, onch, t->t1, m);
      krc = GCUBA_CK_LAUNCH(c, "gcuba_vk_tree");
    }
    /* to the host (column-major [col][m]) */
    if (!krc && m > 0)
      krc = GCUBA_CK(c, cudaMemcpyAsync(scr, t->t1, sizeof(double) * m * nc2,
                                        cudaMemcpyDeviceToHost, st));
    if (!krc && it->bins)
      krc = GCUBA_CK(c, cudaMemcpyAsync(t->h_tot, t->qmax, sizeof(ull),
                                        cudaMemcpyDeviceToHost, st));
    if (!krc) krc = GCUBA_CK(c, cudaStreamSynchronize(st));
    if ((rc = gcuba_coll_status(c, KS))) return rc;
    /* group-major rows ga .. gb-1, exchanged, then column-major [col][ng]
       back to the device for the tree's rest */
    for (gi = 0; gi < m; ++gi)
      for (col = 0; col < nc2; ++col)
        t->xg[(ga + gi) * nc2 + col] = scr[(long long)col * m + gi];
    cnt = t->xcnt + k->size;
    for (r = 0; r < k->size; ++r) cnt[r] = t->xcnt[r] * nc2;
    if ((rc = gcuba_coll_gather(c, t->xg, cnt, GCUBA_COLL_DOUBLE))) return rc;
    for (gi = 0; gi < ng; ++gi)
      for (col = 0; col < nc2; ++col)
        scr[(long long)col * ng + gi] = t->xg[gi * nc2 + col];
    krc = GCUBA_CK(c, cudaMemcpyAsync(t->t1, scr, sizeof(double) * ng * nc2,
                                      cudaMemcpyHostToDevice, st));
    if (it->bins) {
      /* the slice's largest q over the processes (q >= 0: its bits order
         as integers) */
      long long qm;
      memcpy(&qm, t->h_tot, sizeof qm);
      if ((rc = gcuba_coll_status(c, KS))) return rc;
      if ((rc = gcuba_coll_reduce_ll(c, &qm, 1, GCUBA_COLL_MAX))) return rc;
      memcpy(t->h_tot, &qm, sizeof qm);
      krc = GCUBA_CK(c, cudaMemcpyAsync(t->qmax, t->h_tot, sizeof(ull),
                                        cudaMemcpyHostToDevice, st));
    }
    src = t->t1;
    dst = t->t2;
    n = ng;
    while (!krc && n > 1) {
      const long long mm = gcuba_vegas_tree_next(n);
      gcuba_vk_tree<<<dim3((unsigned)mm, (unsigned)nc2), TREE_THREADS, 0,
                      st>>>(src, n, dst, mm);
      krc = GCUBA_CK_LAUNCH(c, "gcuba_vk_tree");
      src = dst;
      dst = dst == t->t1 ? t->t2 : t->t1;
      n = mm;
    }
    if (!krc) {
      gcuba_vk_accum<<<1, 256, 0, st>>>(t->tot, src, nc2);
      krc = GCUBA_CK_LAUNCH(c, "gcuba_vk_accum");
    }
    if (it->bins) {
      size_t mcell;
      ull *mine = t->xhl + (size_t)2 * cells * k->rank;
      /* E comes from the whole slice's samples, as on one process */
      const long long ns = lmin(nch * cpt * npg,
                                it->strat.calls - c0 * cpt * npg);
      if (!krc)
        krc = launch_bins(t, it, oc0 * cpt,
                          lmin(onch * cpt, it->strat.ncubes - oc0 * cpt),
                          oc0 * cpt * npg, ns);
      if (!krc)
        krc = GCUBA_CK(c, cudaMemcpyAsync(mine, t->hi, sizeof(ull) * cells,
                                          cudaMemcpyDeviceToHost, st)) ||
              GCUBA_CK(c, cudaMemcpyAsync(mine + cells, t->lo,
                                          sizeof(ull) * cells,
                                          cudaMemcpyDeviceToHost, st)) ||
              GCUBA_CK(c, cudaStreamSynchronize(st));
      if ((rc = gcuba_coll_status(c, KS))) return rc;
      for (r = 0; r < k->size; ++r)
        t->xcnt[r] = (long long)(2 * cells * sizeof(ull));
      if ((rc = gcuba_coll_gather(c, t->xhl, t->xcnt, GCUBA_COLL_BYTE)))
        return rc;
      /* exact: the same sums in any order */
      for (mcell = 0; mcell < (size_t)cells; ++mcell) {
        uint64_t h = 0, l = 0;
        for (r = 0; r < k->size; ++r)
          gcuba_vegas_fx_add(&h, &l, t->xhl[(size_t)2 * cells * r + mcell],
                             t->xhl[(size_t)2 * cells * r + cells + mcell]);
        mine[mcell] = h;
        mine[cells + mcell] = l;
      }
      krc = GCUBA_CK(c, cudaMemcpyAsync(t->hi, mine, sizeof(ull) * cells,
                                        cudaMemcpyHostToDevice, st)) ||
            GCUBA_CK(c, cudaMemcpyAsync(t->lo, mine + cells,
                                        sizeof(ull) * cells,
                                        cudaMemcpyHostToDevice, st));
      if (!krc) {
        gcuba_vk_bins_finish<<<(cells + 255) / 256, 256, 0, st>>>(
            t->hi, t->lo, t->d, cells, t->qmax, ns, sl == 0);
        krc = GCUBA_CK_LAUNCH(c, "gcuba_vk_bins_finish");
      }
    }
    /* the device is done with the host buffers before they are reused */
    if (!krc) krc = GCUBA_CK(c, cudaStreamSynchronize(st));
    if ((rc = gcuba_coll_status(c, KS))) return rc;
  }
  return 0;
#undef KS
}

/* an iteration's set-up on the device, one copy: the grid when it
   changed, qw, the extremes, sums and status cleared (and qmax); 0 or a
   fail code */
static int prologue(struct vctx *t, const gcuba_vegas_iter *it)
{
  const size_t from = it->grid_changed
                          ? (size_t)((char *)t->grid - t->io)
                          : t->o_qw;
  int k;
  if (it->grid_changed)
    memcpy(t->h_io + from, it->grid, sizeof(double) * t->ngridvals);
  for (k = 0; k < t->ncomp; ++k) {
    ((double *)(t->h_io + t->o_qw))[k] = it->qw ? it->qw[k] : 0;
    t->h_fext[k] = gcuba_vegas_okey(-HUGE_VAL);
    t->h_fext[t->ncomp + k] = gcuba_vegas_okey(HUGE_VAL);
    t->h_tot[k] = t->h_tot[t->ncomp + k] = 0;
  }
  memset(t->h_io + t->o_qmax, 0, t->o_d - t->o_qmax);
  return GCUBA_CK(t->c, cudaMemcpyAsync(t->io + from, t->h_io + from,
                                        t->o_d - from, cudaMemcpyHostToDevice,
                                        t->stream));
}

/* a device buffer of at least n elements of size sz (grown by doubling;
   its contents are not kept) */
static int dgrow(struct vctx *t, void **p, long long *cap, long long n,
                 size_t sz)
{
  long long m = *cap > 0 ? *cap : 4096;
  if (n <= *cap) return 0;
  while (m < n) m *= 2;
  cudaFree(*p);
  *p = NULL;
  *cap = 0;
  {
    const int rc = GCUBA_CK(t->c, cudaMalloc(p, sz * (size_t)m));
    if (rc) return rc;
  }
  *cap = m;
  return 0;
}

static int iterate(void *ctx, const gcuba_vegas_iter *it, double *sums,
                   double *d)
{
  struct vctx *t = (struct vctx *)ctx;
  gcuba_call *c = t->c;
  const int nc2 = 2 * t->ncomp, cells = t->ndim * t->nb;
  const long long spc = it->plan.spc, nchunks = it->plan.nchunks;
  const long long cpt = it->plan.cpt, npg = it->strat.npg;
  const struct gcuba_gpu_ops *g = c->integrand->gpu;
  cudaStream_t st = t->stream;
  struct gcuba_vegas_launch L;
  long long sl;
  int rc;

  if (it->nreal > 0 && (c->coll || it->R))
    return gcuba_fail(c, GCUBA_FAIL_PARAM, "internal: adaptive "
                      "stratification in a collective call or in host "
                      "memory");
  /* a collective call agrees on the outcome of this set-up (in
     coll_slices), so that a failure on one process does not leave the
     others waiting */
  if (lmin(spc, nchunks) > t->partcap ||
      (it->bins && lmin(spc * cpt * npg, it->strat.calls) > t->fjcap))
    rc = gcuba_fail(c, GCUBA_FAIL_CUDA, "internal: a slice of %lld chunks "
                    "exceeds the buffers (%lld)", spc, t->partcap);
  else
    rc = prologue(t, it);
  if (!rc && it->nreal > 0)
    rc = dgrow(t, (void **)&t->uv, &t->uvcap,
               lmin(spc * cpt, it->strat.ncubes), sizeof(double));
  memset(&L, 0, sizeof L);
  L.size = (int)sizeof L;
  L.ndim = t->ndim;
  L.ncomp = t->ncomp;
  L.nb = t->nb;
  L.shared = t->shared;
  L.store = it->bins;
  L.seed = it->seed;
  L.iter = it->iter;
  L.sobol = it->sobol ? t->sobol : NULL;
  L.qoff = it->qoff;
  L.strat = it->strat;
  L.cpt = cpt;
  L.grid = t->grid;
  L.smem_grid = t->ngridvals * 8 <= 24576 ? t->ngridvals * 8 : 0;
  L.userdata = t->ud;
  L.part = t->part;
  L.qw = t->qw;
  L.fj = t->fj;
  L.qmax = t->qmax;
  L.status = t->status;
  L.fext = t->fext;
  L.scratch = t->scratch;
  L.iscratch = t->iscratch;
  L.scratch_threads = t->sthreads;
  L.nsm = t->nsm;
  if (it->nreal > 0) {
    L.R = t->R;
    L.nreal = it->nreal;
    L.uv = t->uv;
  }

  if (c->coll && (rc = coll_slices(t, it, &L, rc))) return rc;
  if (rc) return rc;
  for (sl = 0; !c->coll && sl < it->plan.nslices; ++sl) {
    const long long c0 = sl * spc, nch = lmin(spc, nchunks - c0);
    const double *src = t->part;
    double *dst = t->t1;
    long long n = nch;
    L.chunk0 = c0;
    L.nchunk = nch;
    L.pstride = nch;
    /* (the set-up cleared qmax for the first slice) */
    if (it->bins && sl > 0 &&
        (rc = GCUBA_CK(c, cudaMemsetAsync(t->qmax, 0, sizeof(ull), st))))
      return rc;
    if ((rc = GCUBA_CK(c, g->vegas_iter(&L, st)))) return rc;
    gcuba_vk_tree_all<<<dim3((unsigned)gcuba_vegas_tree_next(n),
                             (unsigned)nc2),
                        TREE_THREADS, 0, st>>>(src, n, dst,
                                               gcuba_vegas_tree_next(n),
                                               t->tot, t->cnt);
    if ((rc = GCUBA_CK_LAUNCH(c, "gcuba_vk_tree_all"))) return rc;
    if (it->nreal > 0) {
      const long long u0 = c0 * cpt, u1 = lmin(u0 + nch * cpt,
                                               it->strat.ncubes);
      long long nb = (u1 - u0 + 255) / 256;
      if (nb > 8LL * t->nsm) nb = 8LL * t->nsm;
      gcuba_vk_cvar<<<(unsigned)nb, 256, 0, st>>>(t->R, it->nreal, t->uv,
                                                  t->cvar, u0, u1);
      if ((rc = GCUBA_CK_LAUNCH(c, "gcuba_vk_cvar"))) return rc;
    }
    if (it->bins) {
      const long long s0 = c0 * cpt * npg,
                      ns = lmin(nch * cpt * npg, it->strat.calls - s0);
      if ((rc = launch_bins(t, it, c0 * cpt,
                            lmin(nch * cpt, it->strat.ncubes - c0 * cpt), s0,
                            ns)))
        return rc;
      gcuba_vk_bins_finish<<<(cells + 255) / 256, 256, 0, st>>>(
          t->hi, t->lo, t->d, cells, t->qmax, ns, sl == 0);
      if ((rc = GCUBA_CK_LAUNCH(c, "gcuba_vk_bins_finish"))) return rc;
    }
  }
  /* the results, one copy: fext, tot, qmax, status (and d) */
  if ((rc = GCUBA_CK(c, cudaMemcpyAsync(
           t->h_io + t->o_fext, t->io + t->o_fext,
           (it->bins ? t->o_d + sizeof(double) * cells : t->o_d) - t->o_fext,
           cudaMemcpyDeviceToHost, st))) ||
      (rc = GCUBA_CK(c, cudaStreamSynchronize(st))))
    return rc;
  if (c->coll) {
    /* every process's status and extremes (the sums are the same on all) */
    long long v = *t->h_status;
    if ((rc = gcuba_coll_reduce_ll(c, &v, 1, GCUBA_COLL_BOR))) return rc;
    *t->h_status = (int)v;
  }
  if (*t->h_status & GCUBA_ST_ABORT) return GCUBA_FAIL_ABORT;
  if (*t->h_status & GCUBA_ST_NONFINITE) return GCUBA_FAIL_NAN;
  memcpy(sums, t->h_tot, sizeof(double) * nc2);
  for (sl = 0; sl < nc2; ++sl)
    sums[nc2 + sl] = gcuba_vegas_okey_value(t->h_fext[sl]);
  if (c->coll &&
      ((rc = gcuba_coll_reduce_d(c, sums + nc2, t->ncomp, GCUBA_COLL_MAX)) ||
       (rc = gcuba_coll_reduce_d(c, sums + nc2 + t->ncomp, t->ncomp,
                                 GCUBA_COLL_MIN))))
    return rc;
  if (it->bins) memcpy(d, t->h_d, sizeof(double) * cells);
  if (it->nreal > 0) t->fresh = 1;
  return 0;
}

/* ---- adaptive stratification: the allocation on the device ------------ */

/* w[h]: cube h's weight (0 without previous variances) */
__global__ void gcuba_vk_uweight(const struct gcuba_vegas_units u,
                                 const long long *Rp, const double *cvp,
                                 double *w)
{
  const long long nr = u.s.ncubes;
  for (long long h = (long long)blockIdx.x * blockDim.x + threadIdx.x;
       h < nr; h += (long long)gridDim.x * blockDim.x) {
    const long long ho =
        u.nrp == nr ? h : gcuba_vegas_unit_from(&u.s, &u.o, h);
    w[h] = gcuba_vegas_unit_weight(cvp[ho], Rp[ho + 1] - Rp[ho], u.bk);
  }
}

/* n[h]: cube h's units, from its weight and the weights' sum */
__global__ void gcuba_vk_ucount(const double *w, const double *sum,
                                long long extra, long long nr, int have,
                                long long *n)
{
  for (long long h = (long long)blockIdx.x * blockDim.x + threadIdx.x;
       h < nr; h += (long long)gridDim.x * blockDim.x)
    n[h] = gcuba_vegas_unit_count(have ? w[h] : 0.0, have ? *sum : 0.0,
                                  extra, nr);
}

/* R[h+1] for what the counts left unallocated (T: R[nr] before) */
__global__ void gcuba_vk_uspread(long long *R, const long long *T,
                                 long long target, long long nr)
{
  const long long d = target - *T > 0 ? target - *T : 0;
  for (long long h = (long long)blockIdx.x * blockDim.x + threadIdx.x;
       h < nr; h += (long long)gridDim.x * blockDim.x)
    R[h + 1] = gcuba_vegas_unit_spread(R[h + 1], h, d, nr);
}

/* two device buffers and their capacities trade places */
template <class T>
static void swap_buf(T **a, T **b, long long *ca, long long *cb)
{
  T *p = *a;
  const long long c = *ca;
  *a = *b;
  *b = p;
  *ca = *cb;
  *cb = c;
}

static int units(void *ctx, const struct gcuba_vegas_units *u,
                 int64_t *nunits)
{
  struct vctx *t = (struct vctx *)ctx;
  gcuba_call *c = t->c;
  cudaStream_t st = t->stream;
  const long long nr = u->s.ncubes, nrp = u->nrp;
  long long blocks = (nr + 255) / 256, total = 0;
  size_t bytes = 0;
  int rc;
  if (blocks > 8LL * t->nsm) blocks = 8LL * t->nsm;
  /* the finished iteration's units become the previous ones (a second
     allocation for the same iteration keeps them) */
  if (t->fresh) {
    swap_buf(&t->R, &t->Rp, &t->rcap, &t->rpcap);
    swap_buf(&t->cvar, &t->cvp, &t->ccap, &t->cpcap);
    t->fresh = 0;
  }
  if ((rc = dgrow(t, (void **)&t->R, &t->rcap, nr + 1, sizeof(long long))) ||
      (rc = dgrow(t, (void **)&t->cvar, &t->ccap, nr, sizeof(double))) ||
      (rc = dgrow(t, (void **)&t->w, &t->wcap, nr, sizeof(double))) ||
      (rc = dgrow(t, (void **)&t->n, &t->ncap, nr, sizeof(long long))) ||
      (rc = dgrow(t, (void **)&t->tsc, &t->tcap,
                  gcuba_vegas_tree_next(nr) + 1, sizeof(double))))
    return rc;
  if (u->R && nrp > 0 &&
      ((rc = dgrow(t, (void **)&t->Rp, &t->rpcap, nrp + 1,
                   sizeof(long long))) ||
       (rc = dgrow(t, (void **)&t->cvp, &t->cpcap, nrp, sizeof(double))) ||
       (rc = GCUBA_CK(c, cudaMemcpyAsync(t->Rp, u->R,
                                         sizeof(long long) * (nrp + 1),
                                         cudaMemcpyHostToDevice, st))) ||
       (rc = GCUBA_CK(c, cudaMemcpyAsync(t->cvp, u->cvar,
                                         sizeof(double) * nrp,
                                         cudaMemcpyHostToDevice, st)))))
    return rc;
  if ((rc = GCUBA_CK(c, cub::DeviceScan::InclusiveSum(
           (void *)NULL, bytes, t->n, t->R + 1, (int64_t)nr, st))) ||
      (rc = dgrow(t, &t->scan, &t->scancap,
                  bytes > 0 ? (long long)bytes : 1, 1)))
    return rc;
  /* the weights and their sum (the last value of tsc), the counts, R */
  if ((rc = GCUBA_CK(c, cudaMemsetAsync(t->tsc + gcuba_vegas_tree_next(nr),
                                        0, sizeof(double), st))))
    return rc;
  if (nrp > 0) {
    gcuba_vk_uweight<<<(unsigned)blocks, 256, 0, st>>>(*u, t->Rp, t->cvp,
                                                       t->w);
    if ((rc = GCUBA_CK_LAUNCH(c, "gcuba_vk_uweight"))) return rc;
    gcuba_vk_tree_all<<<dim3((unsigned)gcuba_vegas_tree_next(nr), 1),
                        TREE_THREADS, 0, st>>>(
        t->w, nr, t->tsc, gcuba_vegas_tree_next(nr),
        t->tsc + gcuba_vegas_tree_next(nr), t->cnt);
    if ((rc = GCUBA_CK_LAUNCH(c, "gcuba_vk_tree_all"))) return rc;
  }
  gcuba_vk_ucount<<<(unsigned)blocks, 256, 0, st>>>(
      t->w, t->tsc + gcuba_vegas_tree_next(nr), u->extra, nr, nrp > 0,
      t->n);
  if ((rc = GCUBA_CK_LAUNCH(c, "gcuba_vk_ucount")) ||
      (rc = GCUBA_CK(c, cudaMemsetAsync(t->R, 0, sizeof(long long), st))) ||
      (rc = GCUBA_CK(c, cub::DeviceScan::InclusiveSum(
           t->scan, bytes, t->n, t->R + 1, (int64_t)nr, st))) ||
      /* (the sum's place holds R[nr] for the spread) */
      (rc = GCUBA_CK(c, cudaMemcpyAsync(t->tsc + gcuba_vegas_tree_next(nr),
                                        t->R + nr, sizeof(long long),
                                        cudaMemcpyDeviceToDevice, st))))
    return rc;
  gcuba_vk_uspread<<<(unsigned)blocks, 256, 0, st>>>(
      t->R, (const long long *)(t->tsc + gcuba_vegas_tree_next(nr)),
      nr + u->extra, nr);
  if ((rc = GCUBA_CK_LAUNCH(c, "gcuba_vk_uspread")) ||
      (rc = GCUBA_CK(c, cudaMemsetAsync(t->cvar, 0, sizeof(double) * nr,
                                        st))) ||
      (rc = GCUBA_CK(c, cudaMemcpyAsync(&total, t->R + nr, sizeof total,
                                        cudaMemcpyDeviceToHost, st))) ||
      (rc = GCUBA_CK(c, cudaStreamSynchronize(st))))
    return rc;
  *nunits = total;
  return 0;
}

/* the latest finished iteration's units and variance sums to the host */
static int units_get(void *ctx, int64_t nrp, int64_t *R, double *cvar)
{
  struct vctx *t = (struct vctx *)ctx;
  gcuba_call *c = t->c;
  const long long *r = t->fresh ? t->R : t->Rp;
  const double *v = t->fresh ? t->cvar : t->cvp;
  int rc;
  if ((rc = GCUBA_CK(c, cudaMemcpyAsync(R, r, sizeof(long long) * (nrp + 1),
                                        cudaMemcpyDeviceToHost,
                                        t->stream))) ||
      (rc = GCUBA_CK(c, cudaMemcpyAsync(cvar, v, sizeof(double) * nrp,
                                        cudaMemcpyDeviceToHost,
                                        t->stream))) ||
      (rc = GCUBA_CK(c, cudaStreamSynchronize(t->stream))))
    return rc;
  return 0;
}

extern "C" const gcuba_vegas_ops gcuba_vegas_cuda = {
    "cuda", create, destroy, iterate, units, units_get};
