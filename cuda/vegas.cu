/* cuda/vegas.cu -- the CUDA backend of gVegas (src/vegas/backend.h): the
   integrand-independent half.  Per slice of an iteration it launches the
   integrand's sampling kernel (gcuba/detail/vegas_kernels.cuh, through the
   descriptor's GPU table), reduces the chunk sums with the canonical tree
   of include/gcuba/detail/vegas.h (one block of 256 threads per group, the same
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

   This file holds the sampler's context: its buffers, the cache of idle
   contexts, create and destroy, and the ops table; vegas_sample.cu
   samples an iteration (on one process or collectively), vegas_reduce.cu
   holds the canonical tree's kernels, vegas_bins.cu the bin sums and
   vegas_strat.cu adaptive stratification's units; vegas_int.cuh is what
   they share.  This file is part of gcuba. */
#include <cuda_runtime.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "cuda/vegas_int.cuh"

/* ---- userdata: gcuba_device_userdata (device.cu) ---------------------- */
static int device_userdata(struct vctx *t)
{
  return gcuba_device_userdata(t->c, t->c->ud.p, t->c->ud.bytes,
                               "", &t->ud, &t->udcopy, &t->udcap, t->stream);
}

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
   one device allocate their own.  gcuba_release() frees them
   (gcuba_vegas_cuda_trim). */
static pthread_mutex_t cache_lock = PTHREAD_MUTEX_INITIALIZER;
#define CACHE_SLOTS GCUBA_CUDA_CACHE_SLOTS
#define CACHE_KEEP 3   /* idle contexts per device */
static struct vctx *cache[CACHE_SLOTS][CACHE_KEEP];

int gcuba_vegas_cuda_trim(int dev)
{
  struct vctx *t[CACHE_KEEP];
  int k, n = 0;
  if (dev < 0 || dev >= CACHE_SLOTS) return 0;
  pthread_mutex_lock(&cache_lock);
  for (k = 0; k < CACHE_KEEP; ++k) {
    if ((t[k] = cache[dev][k])) ++n;
    cache[dev][k] = NULL;
  }
  pthread_mutex_unlock(&cache_lock);
  for (k = 0; k < CACHE_KEEP; ++k) release(t[k]);
  return n;
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
  t->o_epow = t->o_qw + sizeof(double) * nc;
  t->o_fext = t->o_epow + sizeof(int) * 2 * t->ndim;
  t->o_tot = t->o_fext + sizeof(ull) * 2 * nc;
  t->o_qmax = t->o_tot + sizeof(double) * 2 * nc;
  t->o_status = t->o_qmax + sizeof(ull);
  t->o_d = t->o_status + sizeof(ull);
  t->o_cnt = t->o_d + sizeof(double) * cells;
  t->io_bytes = t->o_cnt + sizeof(ull);
  if ((rc = GCUBA_CK(c, cudaStreamCreateWithFlags(&t->stream,
                                                  cudaStreamNonBlocking))) ||
      (rc = GCUBA_CK(c, gcuba_cuda_malloc((void **)&t->io, t->io_bytes))) ||
      (rc = GCUBA_CK(c, cudaMallocHost((void **)&t->h_io, t->io_bytes))) ||
      (rc = GCUBA_CK(c, cudaMemset(t->io, 0, t->io_bytes))) ||
      (rc = GCUBA_CK(c, gcuba_cuda_malloc((void **)&t->sobol,
                                          sizeof(ull) * 64 * t->ndim))) ||
      (rc = GCUBA_CK(c, gcuba_cuda_malloc((void **)&t->part,
                                          sizeof(double) * 2 * nc *
                                              t->partcap))) ||
      (rc = GCUBA_CK(c, gcuba_cuda_malloc((void **)&t->t1,
                                          sizeof(double) * 2 * nc *
                                              t->t1cap))) ||
      (rc = GCUBA_CK(c, gcuba_cuda_malloc((void **)&t->t2,
                                          sizeof(double) * 2 * nc *
                                              t->t2cap))) ||
      (rc = GCUBA_CK(c, gcuba_cuda_malloc((void **)&t->fj,
                                          sizeof(double) * t->fjcap))) ||
      (rc = GCUBA_CK(c, gcuba_cuda_malloc((void **)&t->hi,
                                          sizeof(ull) * cells))) ||
      (rc = GCUBA_CK(c, gcuba_cuda_malloc((void **)&t->lo,
                                          sizeof(ull) * cells))))
    return rc;
  memset(t->h_io, 0, t->io_bytes);
  t->qw = (double *)(t->io + t->o_qw);
  t->epow = (int *)(t->io + t->o_epow);
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
      ((rc = GCUBA_CK(c, gcuba_cuda_malloc((void **)&t->scratch,
                                           sizeof(double) * t->sthreads *
                                               (t->ndim + 7 * nc)))) ||
       (rc = GCUBA_CK(c, gcuba_cuda_malloc((void **)&t->iscratch,
                                           sizeof(int) * t->sthreads *
                                               t->ndim)))))
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

/* a device buffer of at least n elements of size sz (grown by doubling;
   its contents are not kept) */
int gcuba_vc_dgrow(struct vctx *t, void **p, long long *cap, long long n,
                   size_t sz)
{
  long long m = *cap > 0 ? *cap : 4096;
  if (n <= *cap) return 0;
  while (m < n) m *= 2;
  cudaFree(*p);
  *p = NULL;
  *cap = 0;
  {
    const int rc = GCUBA_CK(t->c, gcuba_cuda_malloc(p, sz * (size_t)m));
    if (rc) return rc;
  }
  *cap = m;
  return 0;
}

extern "C" const gcuba_vegas_ops gcuba_vegas_cuda = {
    "cuda", create, destroy, gcuba_vc_iterate, gcuba_vc_units,
    gcuba_vc_units_get};
