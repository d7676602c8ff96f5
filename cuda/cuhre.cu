/* cuda/cuhre.cu -- the CUDA backend of the Cuhre driver
   (src/cuhre/backend.h): the region store -- its buffers, sized from
   cudaMemGetInfo (and GCUBA_MEMLIMIT), allocated at the start and grown
   geometrically, and kept idle for the next call of the same shape --,
   the initial split, and the ops table.  The other steps live beside it:
   cuhre_eval.cu (the rule, two-level error, sums, histogram),
   cuhre_apply.cu (classification, cuts, the next partition),
   cuhre_dist.cu (the store distributed over several GPUs),
   cuhre_state.cu (loading and saving the leaves); cuhre_int.cuh holds
   what they share.  The leaf regions live in device memory in the same
   layout as the CPU backend's; the rule is applied by the kernel
   instantiated for the integrand (gcuba/detail/cuhre_kernels.cuh).  One stream
   per call; every CUDA call and launch is checked (GCUBA_CK).  Every sum
   over regions is exact to a fixed unit (x128), so it does not depend on
   how the regions are divided among blocks or GPUs.
   This file is part of gcuba. */
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <pthread.h>
#include <cub/device/device_scan.cuh>
#include "cuda/cuhre_int.cuh"
#include "cuda/device.h"

static void hostbuf_free(hostbuf *b)
{
  if (b->pinned)
    cudaFreeHost(b->p);
  else
    free(b->p);
  b->p = NULL;
  b->cap = 0;
  b->pinned = 0;
}

/* room for n bytes; 1 when there is no memory at all */
int gcuba_cz_hostbuf_grow(hostbuf *b, size_t n)
{
  const size_t cap = n + n / 2 + 1;
  void *q = NULL;
  if (n <= b->cap) return 0;
  hostbuf_free(b);
  if (cudaMallocHost(&q, cap) == cudaSuccess)
    b->pinned = 1;
  else {
    (void)cudaGetLastError(); /* pinned memory refused: pageable */
    if (!(q = malloc(cap))) return 1;
  }
  b->p = (unsigned char *)q;
  b->cap = cap;
  return 0;
}

/* bytes of device memory per leaf region: the leaf twice (the arrays
   and their scatter target), or in the distributed store once, with a
   record sent and one received */
static long long leaf_bytes(int ndim, int ncomp)
{
  return 8LL * (2 * ndim + 2 * ncomp) + 4LL * ncomp;
}

/* the records of the distributed store (k_pack), whole doubles: a kept
   leaf, a split one's parent, and the larger */
static long long kept_bytes(int ndim, int ncomp)
{
  return (16LL * ndim + 20LL * ncomp + 7) / 8 * 8;
}

static long long pair_bytes(int ndim, int ncomp)
{
  return (16LL * ndim + 16LL * ncomp + 8 + 4 + 7) / 8 * 8;
}

static long long rec_bytes(int ndim, int ncomp)
{
  const long long k = kept_bytes(ndim, ncomp), p = pair_bytes(ndim, ncomp);
  return k > p ? k : p;
}

static long long region_bytes(int ndim, int ncomp, int dist)
{
  return (dist ? leaf_bytes(ndim, ncomp) + 2 * rec_bytes(ndim, ncomp)
               : 2 * leaf_bytes(ndim, ncomp)) +
         8LL * ncomp + 1 + 2 * 8;
}

void gcuba_cz_free_arrays(darrays *a)
{
  cudaFree(a->lo);
  cudaFree(a->w);
  cudaFree(a->wk);
  cudaFree(a->avg);
  cudaFree(a->err);
  cudaFree(a->dims);
  memset(a, 0, sizeof *a);
}

static int alloc_arrays(gpu *t, darrays *a, long long cap)
{
  CK(gcuba_cuda_malloc(&a->lo, sizeof(double) * cap * t->ndim));
  if (t->wd)
    CK(gcuba_cuda_malloc(&a->w, sizeof(double) * cap * t->ndim));
  else
    CK(gcuba_cuda_malloc(&a->wk, sizeof(unsigned short) * cap * t->ndim));
  CK(gcuba_cuda_malloc(&a->avg, sizeof(double) * cap * t->ncomp));
  CK(gcuba_cuda_malloc(&a->err, sizeof(double) * cap * t->ncomp));
  CK(gcuba_cuda_malloc(&a->dims, sizeof(int) * cap * t->ncomp));
  return 0;
}

/* the widths parked by gcuba_cz_set_widths and gcuba_cz_to_doubles */
void gcuba_cz_drop_parked(gpu *t)
{
  int i;
  for (i = 0; i < 2; ++i) {
    if (t->pw[i]) cudaFree(t->pw[i]);
    if (t->pwk[i]) cudaFree(t->pwk[i]);
    t->pw[i] = NULL;
    t->pwk[i] = NULL;
  }
}

/* the region store and everything sized by its capacity */
void gcuba_cz_free_store(gpu *t)
{
  gcuba_cz_drop_parked(t);
  gcuba_cz_free_arrays(&t->a);
  gcuba_cz_free_arrays(&t->b);
  cudaFree(t->pavg);
  cudaFree(t->perr);
  cudaFree(t->cls);
  cudaFree(t->mark);
  cudaFree(t->pos);
  cudaFree(t->dtemp);
  cudaFree(t->xr);
  t->pavg = t->perr = NULL;
  t->cls = NULL;
  t->mark = t->pos = NULL;
  t->dtemp = NULL;
  t->xr = NULL;
  t->xrcap = 0;
  t->cap = 0;
}

static size_t scan_bytes(long long n)
{
  size_t bytes = 0;
  cub::DeviceScan::ExclusiveSum(NULL, bytes, (const long long *)NULL,
                                (long long *)NULL, (int)n);
  return bytes;
}

/* the capacity for n leaves: doubled from the current one, within the
   limit */
static long long grown(const gpu *t, long long n)
{
  long long cap = t->cap ? t->cap : 65536;
  while (cap < n) cap *= 2;
  if (cap > t->maxregions) cap = t->maxregions > n ? t->maxregions : n;
  return cap;
}

/* what the leaf capacity sizes besides the leaves: classes, marks and
   their scan (one more than the leaves), CUB's temporaries */
static int alloc_marks(gpu *t, long long cap)
{
  CK(gcuba_cuda_malloc(&t->cls, cap + 1));
  CK(gcuba_cuda_malloc(&t->mark, sizeof(long long) * (cap + 1)));
  CK(gcuba_cuda_malloc(&t->pos, sizeof(long long) * (cap + 1)));
  t->tempbytes = scan_bytes(cap + 1);
  CK(gcuba_cuda_malloc(&t->dtemp, t->tempbytes));
  return 0;
}

static void room_for(gpu *t, long long bytes);

/* The distributed store: room for n leaves, nothing kept (its callers
   have no live leaves, or have packed them into xs, which stays: the
   other members read it). */
int gcuba_cz_reserve_dist(gpu *t, long long n)
{
  const long long cap = grown(t, n);
  /* (a member may hold no leaf: its buffers exist all the same) */
  if (t->cap > 0 && n <= t->cap) return 0;
  gcuba_cz_free_store(t);
  room_for(t, cap * region_bytes(t->ndim, t->ncomp, 1));
  if (alloc_arrays(t, &t->a, cap)) return t->c->fail;
  CK(gcuba_cuda_malloc(&t->pavg, sizeof(double) * (cap / 2 + 1) * t->ncomp));
  CK(gcuba_cuda_malloc(&t->perr, sizeof(double) * (cap / 2 + 1) * t->ncomp));
  if (alloc_marks(t, cap)) return t->c->fail;
  CK(gcuba_cuda_malloc(&t->xr, (size_t)t->rbytes * cap));
  t->xrcap = cap;
  t->cap = cap;
  gcuba_log(t->c, 2, "device region store: %lld regions", cap);
  return 0;
}

/* the send records' room for the capacity (after an exchange) */
int gcuba_cz_reserve_xs(gpu *t)
{
  if (t->xscap >= t->cap) return 0;
  cudaFree(t->xs);
  t->xs = NULL;
  t->xscap = 0;
  CK(gcuba_cuda_malloc(&t->xs, (size_t)t->rbytes * t->cap));
  t->xscap = t->cap;
  return 0;
}

/* make room for n leaves: new buffers, the live data copied over */
int gcuba_cz_reserve(gpu *t, long long n)
{
  long long cap, keep = t->n;
  darrays na;
  double *np2, *ne2;
  if (t->dist) {
    int rc = gcuba_cz_reserve_dist(t, n);
    return rc ? rc : gcuba_cz_reserve_xs(t);
  }
  if (n <= t->cap) return 0;
  cap = grown(t, n);
  room_for(t, cap * region_bytes(t->ndim, t->ncomp, 0));
  memset(&na, 0, sizeof na);
  if (alloc_arrays(t, &na, cap)) {
    gcuba_cz_free_arrays(&na);
    return t->c->fail;
  }
  if (keep > 0) {
    CK(cudaMemcpyAsync(na.lo, t->a.lo, sizeof(double) * keep * t->ndim,
                       cudaMemcpyDeviceToDevice, t->stream));
    if (t->wd)
      CK(cudaMemcpyAsync(na.w, t->a.w, sizeof(double) * keep * t->ndim,
                         cudaMemcpyDeviceToDevice, t->stream));
    else
      CK(cudaMemcpyAsync(na.wk, t->a.wk,
                         sizeof(unsigned short) * keep * t->ndim,
                         cudaMemcpyDeviceToDevice, t->stream));
    CK(cudaMemcpyAsync(na.avg, t->a.avg, sizeof(double) * keep * t->ncomp,
                       cudaMemcpyDeviceToDevice, t->stream));
    CK(cudaMemcpyAsync(na.err, t->a.err, sizeof(double) * keep * t->ncomp,
                       cudaMemcpyDeviceToDevice, t->stream));
    CK(cudaMemcpyAsync(na.dims, t->a.dims, sizeof(int) * keep * t->ncomp,
                       cudaMemcpyDeviceToDevice, t->stream));
  }
  CK(gcuba_cuda_malloc(&np2, sizeof(double) * (cap / 2 + 1) * t->ncomp));
  CK(gcuba_cuda_malloc(&ne2, sizeof(double) * (cap / 2 + 1) * t->ncomp));
  if (keep > t->nold && t->haveparents) {
    size_t pb = sizeof(double) * ((keep - t->nold) / 2) * t->ncomp;
    CK(cudaMemcpyAsync(np2, t->pavg, pb, cudaMemcpyDeviceToDevice,
                       t->stream));
    CK(cudaMemcpyAsync(ne2, t->perr, pb, cudaMemcpyDeviceToDevice,
                       t->stream));
  }
  CK(cudaStreamSynchronize(t->stream));
  gcuba_cz_free_store(t);
  t->a = na;
  t->pavg = np2;
  t->perr = ne2;
  if (alloc_arrays(t, &t->b, cap) || alloc_marks(t, cap)) return t->c->fail;
  t->cap = cap;
  gcuba_log(t->c, 2, "device region store: %lld regions", cap);
  return 0;
}

static void release(gpu *t)
{
  int cur = -1;
  if (!t) return;
  /* its device current while its memory and stream go */
  if (cudaGetDevice(&cur) != cudaSuccess || cur == t->dev) cur = -1;
  if (cur >= 0) cudaSetDevice(t->dev);
  if (t->stream) cudaStreamSynchronize(t->stream);
  gcuba_cz_free_store(t);
  cudaFree(t->drule);
  cudaFree(t->du);
  cudaFree(t->dx);
  cudaFree(t->df);
  cudaFree(t->dsum);
  cudaFree(t->dticket);
  cudaFree(t->dstatus);
  cudaFree(t->udcopy);
  cudaFree(t->dxpart);
  cudaFree(t->xs);
  cudaFree(t->sbuf);
  hostbuf_free(&t->sh);
  if (t->hbuf) cudaFreeHost(t->hbuf);
  hostbuf_free(&t->hs);
  hostbuf_free(&t->hr);
  free(t->hg);
  free(t->plan);
  hostbuf_free(&t->xh);
  free(t->xcnt);
  if (t->ev[0]) cudaEventDestroy(t->ev[0]);
  if (t->ev[1]) cudaEventDestroy(t->ev[1]);
  if (t->stream) cudaStreamDestroy(t->stream);
  if (cur >= 0) cudaSetDevice(cur);
  (void)cudaGetLastError();
  free(t);
}

/* Up to CACHE_KEEP idle contexts per device are kept with their device
   buffers after a call, most recently used first, so that the next call
   of the same shape (device, ndim, ncomp) starts without allocating: a
   sweep of short calls pays cudaMalloc once, and so do programs whose
   calls alternate between a few shapes (2-D and 4-D calls in turn).
   Their memory counts as free for a new call's limit (create), and a
   store that grows into it frees them first (room_for).  Concurrent
   calls on one device allocate their own.  gcuba_release() frees them. */
static pthread_mutex_t cache_lock = PTHREAD_MUTEX_INITIALIZER;
#define CACHE_SLOTS GCUBA_CUDA_CACHE_SLOTS
#define CACHE_KEEP 3   /* idle contexts per device */
static gpu *cache[CACHE_SLOTS][CACHE_KEEP];

static void destroy(void *ctx)
{
  gpu *t = (gpu *)ctx, *old = NULL;
  int k;
  if (!t) return;
  if (t->stream && cudaStreamSynchronize(t->stream) != cudaSuccess) {
    release(t); /* a broken context is not kept */
    return;
  }
  t->duser = NULL;
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

/* the idle context of this shape on dev, taken out of the list */
static gpu *take_cached(int dev, int ndim, int ncomp)
{
  gpu *t = NULL, **l;
  int k;
  if (dev < 0 || dev >= CACHE_SLOTS) return NULL;
  pthread_mutex_lock(&cache_lock);
  l = cache[dev];
  for (k = 0; k < CACHE_KEEP; ++k)
    if (l[k] && l[k]->ndim == ndim && l[k]->ncomp == ncomp) {
      t = l[k];
      for (; k < CACHE_KEEP - 1; ++k) l[k] = l[k + 1];
      l[CACHE_KEEP - 1] = NULL;
      break;
    }
  pthread_mutex_unlock(&cache_lock);
  return t;
}

/* device bytes a context's store holds, near enough: the leaves and
   what their capacity sizes, the parked widths, the send records */
static long long held_bytes(const gpu *t)
{
  return t->cap * (region_bytes(t->ndim, t->ncomp, t->dist) +
                   10LL * t->ndim) +
         t->xscap * (long long)t->rbytes;
}

/* the device bytes dev's idle contexts hold */
static long long idle_bytes(int dev)
{
  long long b = 0;
  int k;
  if (dev < 0 || dev >= CACHE_SLOTS) return 0;
  pthread_mutex_lock(&cache_lock);
  for (k = 0; k < CACHE_KEEP; ++k)
    if (cache[dev][k]) b += held_bytes(cache[dev][k]);
  pthread_mutex_unlock(&cache_lock);
  return b;
}

/* Before t's store takes `bytes' more: the idle contexts of its device,
   least recently used first, freed while what is free falls short (their
   memory counted as free when the call's limit was set).  Nothing is
   asked of the device when none is idle. */
static void room_for(gpu *t, long long bytes)
{
  for (;;) {
    gpu *old = NULL;
    size_t freeb = 0, totalb = 0;
    int k;
    if (t->dev < 0 || t->dev >= CACHE_SLOTS) return;
    pthread_mutex_lock(&cache_lock);
    for (k = CACHE_KEEP - 1; k >= 0 && !old; --k) old = cache[t->dev][k];
    pthread_mutex_unlock(&cache_lock);
    if (!old) return;
    if (cudaMemGetInfo(&freeb, &totalb) != cudaSuccess) {
      (void)cudaGetLastError();
      return; /* the allocation will say what is wrong */
    }
    /* CUB's temporaries and the rest: as create's 85% */
    if ((double)freeb * 0.85 >= (double)bytes) return;
    old = NULL;
    pthread_mutex_lock(&cache_lock);
    for (k = CACHE_KEEP - 1; k >= 0 && !old; --k)
      if ((old = cache[t->dev][k])) cache[t->dev][k] = NULL;
    pthread_mutex_unlock(&cache_lock);
    if (!old) return;
    gcuba_log(t->c, 2, "an idle device context freed for the store");
    release(old);
  }
}

int gcuba_cuhre_cuda_trim(int dev)
{
  gpu *t[CACHE_KEEP];
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

/* The rule's points as offsets, dimension-major (see cuhre_kernels.cuh):
   *du (device) with the stride *ustride; 0 or a fail code */
int gcuba_cuhre_points(gcuba_call *c, const gcuba_rule *r, double **du,
                       int *ustride)
{
  size_t n;
  double *h, u[GCUBA_RULE_MAXDIM];
  int p, d, rc = 0;
  const int npts = gcuba_rule_nevals(r); /* points and probes */
  *ustride = GCUBA_CUHRE_USTRIDE(r->ndim);
  if (*ustride < npts) *ustride = (npts + 31) / 32 * 32;
  n = (size_t)*ustride * r->ndim;
  if (!(h = (double *)calloc(n, sizeof(double))))
    return gcuba_fail(c, GCUBA_FAIL_NOMEM, "rule points");
  for (p = 0; p < npts; ++p) {
    gcuba_rule_point(r, p, u);
    for (d = 0; d < r->ndim; ++d) h[(size_t)d * *ustride + p] = u[d];
  }
  if (GCUBA_CK(c, gcuba_cuda_malloc(du, sizeof(double) * n)) ||
      GCUBA_CK(c, cudaMemcpy(*du, h, sizeof(double) * n,
                             cudaMemcpyHostToDevice)))
    rc = c->fail;
  free(h);
  return rc;
}

static int make_points(gpu *t)
{
  return gcuba_cuhre_points(t->c, &t->rule, &t->du, &t->ustride);
}

/* userdata as the kernels see it: gcuba_device_userdata (device.cu) */
static int device_userdata(gpu *t)
{
  return gcuba_device_userdata(t->c, t->c->ud.p, t->c->ud.bytes,
                               "", &t->duser, &t->udcopy, &t->udcap,
                               t->stream);
}

static void *create(gcuba_call *c, const gcuba_rule *r, long long *maxregions,
                    int *fail)
{
  gpu *t;
  size_t freeb = 0, totalb = 0;
  long long per, fit;
  int dev = 0, nsm = 0, fresh;
  if (GCUBA_CK(c, cudaGetDevice(&dev)) ||
      GCUBA_CK(c, cudaDeviceGetAttribute(&nsm, cudaDevAttrMultiProcessorCount,
                                         dev))) {
    *fail = c->fail;
    return NULL;
  }
  t = take_cached(dev, c->ndim, c->ncomp);
  fresh = t == NULL;
  if (fresh && !(t = (gpu *)calloc(1, sizeof *t))) {
    *fail = gcuba_fail(c, GCUBA_FAIL_NOMEM, "CUDA backend");
    return NULL;
  }
  t->c = c;
  t->dev = dev;
  t->ndim = c->ndim;
  t->ncomp = c->ncomp;
  t->n = t->nold = 0;
  t->haveparents = 0;
  t->minbatch_ = (long long)nsm * GCUBA_GPU_BATCH_PER_SM;
  t->nsm = nsm;
  {
    /* every call starts with a whole store (a collective one replicated
       on every member, until apply distributes it) */
    if (t->dist) {
      gcuba_cz_free_store(t);
      cudaFree(t->xs);
      t->xs = NULL;
      t->xscap = 0;
    }
    t->dist = 0;
    t->kbytes = (int)kept_bytes(c->ndim, c->ncomp);
    t->pbytes = (int)pair_bytes(c->ndim, c->ncomp);
    t->rbytes = (int)rec_bytes(c->ndim, c->ncomp);
    t->gn = t->gnold = t->seg = t->gfirst = 0;
    t->repmax = -1;
    if (c->coll && (!c->coll->alltoallv || c->coll->size > t->hgsize)) {
      if (!c->coll->alltoallv) {
        *fail = gcuba_fail(c, GCUBA_FAIL_MPI, "the collective cannot "
                           "exchange regions");
        release(t);
        return NULL;
      }
      free(t->hg);
      free(t->plan);
      t->hg = (long long *)malloc(sizeof(long long) * HG_REC *
                                  (size_t)c->coll->size);
      t->plan = (long long *)malloc(sizeof(long long) * PLAN_PER *
                                    (size_t)(c->coll->size + 1));
      t->hgsize = t->hg && t->plan ? c->coll->size : 0;
      if (!t->hgsize) {
        *fail = gcuba_fail(c, GCUBA_FAIL_NOMEM, "CUDA backend");
        release(t);
        return NULL;
      }
    }
  }
  if (fresh && GCUBA_CK(c, cudaStreamCreateWithFlags(&t->stream,
                                                     cudaStreamNonBlocking)))
    goto fail;
  if (GCUBA_CK(c, cudaMemGetInfo(&freeb, &totalb))) goto fail;
  /* leave room for CUB's temporaries and the rest: 85% of what is free
     and what the device's idle contexts hold (room_for frees them when
     the store grows into it), plus what this context holds already */
  /* a collective call may distribute its store: its room is sized for
     that (the replicated store takes two thirds of it) */
  per = region_bytes(t->ndim, t->ncomp, c->coll != NULL);
  fit = (long long)(0.85 * ((double)freeb + (double)idle_bytes(dev)) / per) +
        t->cap;
  if (fit > (1LL << 31) - 2) fit = (1LL << 31) - 2; /* CUB's int counts */
  if (*maxregions > fit) *maxregions = fit;
  t->maxregions = *maxregions;
  if (c->coll) {
    /* this GPU's limit; the call's is every member's: the shares differ
       from an even division by at most 2 kept and 2 new leaves */
    long long g = *maxregions - 4;
    *maxregions = g < 2 ? 2 : g * c->coll->size;
  }
  if (t->cap > t->maxregions) {
    /* a smaller limit than the cached buffers: start afresh */
    gcuba_cz_free_store(t);
  }
  if (fresh &&
      (GCUBA_CK(c, gcuba_cuda_malloc(&t->drule, sizeof *r)) ||
       GCUBA_CK(c, gcuba_cuda_malloc(&t->dsum, RES_BYTES)) ||
       GCUBA_CK(c, gcuba_cuda_malloc(&t->dticket, sizeof(unsigned int))) ||
       GCUBA_CK(c, cudaMemsetAsync(t->dticket, 0, sizeof(unsigned int),
                                   t->stream)) ||
       GCUBA_CK(c, gcuba_cuda_malloc(&t->dstatus, sizeof(int))) ||
       GCUBA_CK(c, cudaMallocHost(&t->hbuf, RES_BYTES)) ||
       GCUBA_CK(c, gcuba_cuda_malloc(&t->dxpart,
                                     sizeof(x128) * RED_BLOCKS *
                                         (2 * GCUBA_CUHRE_GPU_MAXCOMP + 2))) ||
       GCUBA_CK(c, cudaEventCreate(&t->ev[0])) ||
       GCUBA_CK(c, cudaEventCreate(&t->ev[1]))))
    goto fail;
  t->dhcount = (long long *)(t->dsum + DSUM_DOUBLES);
  t->dmax = (unsigned long long *)(t->dsum + HBUF_DOUBLES);
  t->dxs = (x128 *)(t->dmax + HX_XS);
  t->hx = (unsigned long long *)(t->hbuf + HBUF_DOUBLES);
  t->kms = 0;
  t->spec = 0;
  /* the status word is cleared by every k_sums; a launch that failed in an
     earlier call may have left it set */
  if (GCUBA_CK(c, cudaMemsetAsync(t->dstatus, 0, sizeof(int), t->stream)))
    goto fail;
  /* the maxima are cleared by every k_mark, for the next eval */
  if (GCUBA_CK(c, cudaMemsetAsync(t->dmax, 0, sizeof(unsigned long long) * 2 *
                                                 GCUBA_CUHRE_GPU_MAXCOMP,
                                  t->stream)))
    goto fail;
  if (fresh || t->rule.key != r->key || t->np != r->npoints) {
    t->rule = *r;
    t->np = r->npoints;
    cudaFree(t->du);
    t->du = NULL;
    if (make_points(t)) goto fail;
  }
  t->rule = *r;
  if (c->ndim == 1 && !t->dx &&
      (GCUBA_CK(c, gcuba_cuda_malloc(&t->dx, sizeof(double) * GK_CHUNK *
                                          gcuba_rule_nevals(r))) ||
       GCUBA_CK(c, gcuba_cuda_malloc(&t->df, sizeof(double) * GK_CHUNK *
                                          gcuba_rule_nevals(r) * c->ncomp))))
    goto fail;
  if (GCUBA_CK(c, cudaMemcpyAsync(t->drule, r, sizeof *r,
                                  cudaMemcpyHostToDevice, t->stream)) ||
      device_userdata(t))
    goto fail;
  return t;
fail:
  *fail = c->fail ? c->fail : GCUBA_FAIL_CUDA;
  release(t);
  return NULL;
}

/* blocks of threads for n items */
unsigned gcuba_cz_nblocks(long long n, int threads)
{
  long long b = (n + threads - 1) / threads;
  return (unsigned)(b < 1 ? 1 : b);
}

/* exponent widths to doubles, in place of wk */
__global__ void k_widths(long long n, const unsigned short *wk, double *w)
{
  const long long j = (long long)blockIdx.x * blockDim.x + threadIdx.x;
  if (j < n) w[j] = ldexp(1.0, -(int)wk[j]);
}

/* The widths of the store's a and b (cap leaves; b where it is
   allocated) held in form wd (darrays), the n live leaves of a converted
   when wd is 1: the other form's arrays parked, not freed, and this
   form's taken from where they were parked, or allocated.  A sweep of
   calls of which some cut (gcuba/detail/cut.h) thus frees and allocates
   nothing, where each switch back cost the whole store (cudaFree waits
   for the device).  0 or a fail code, the store as it was. */
static int widths_as(gpu *t, int wd, long long n)
{
  const size_t nw = (size_t)t->cap * t->ndim;
  const size_t each = wd ? sizeof(double) : sizeof(unsigned short);
  const int hasb = t->b.w != NULL || t->b.wk != NULL;
  void *na = wd ? (void *)t->pw[0] : (void *)t->pwk[0];
  void *nb = wd ? (void *)t->pw[1] : (void *)t->pwk[1];
  int fa = 0;
  if (!na) {
    CK(gcuba_cuda_malloc(&na, each * nw));
    fa = 1;
  }
  if (hasb && !nb && gcuba_cuda_malloc(&nb, each * nw) != cudaSuccess) {
    if (fa) cudaFree(na);
    (void)cudaGetLastError();
    return GCUBA_CK(t->c, cudaErrorMemoryAllocation);
  }
  if (!hasb && nb) { /* (a distributed store has no b) */
    cudaFree(nb);
    nb = NULL;
  }
  if (wd && n > 0) {
    const long long m = n * t->ndim;
    k_widths<<<gcuba_cz_nblocks(m, 256), 256, 0, t->stream>>>(
        m, t->a.wk, (double *)na);
    if (GCUBA_CK_LAUNCH(t->c, "k_widths")) {
      if (fa) cudaFree(na);
      if (nb && nb != (void *)t->pw[1]) cudaFree(nb);
      return t->c->fail;
    }
  }
  if (wd) {
    t->pwk[0] = t->a.wk;
    t->pwk[1] = t->b.wk;
    t->pw[0] = t->pw[1] = NULL;
    t->a.wk = t->b.wk = NULL;
    t->a.w = (double *)na;
    t->b.w = (double *)nb;
  } else {
    t->pw[0] = t->a.w;
    t->pw[1] = t->b.w;
    t->pwk[0] = t->pwk[1] = NULL;
    t->a.w = t->b.w = NULL;
    t->a.wk = (unsigned short *)na;
    t->b.wk = (unsigned short *)nb;
  }
  t->wd = wd;
  return 0;
}

/* The width representation wd (darrays) of a store with no live leaves
   (a call starting or loading); 0 or a fail code */
int gcuba_cz_set_widths(gpu *t, int wd)
{
  if (t->wd == wd) return 0;
  if (t->cap > 0 && !t->dist) return widths_as(t, wd, 0);
  gcuba_cz_free_store(t);
  t->wd = wd;
  return 0;
}

/* the leaves' widths from exponents to doubles (the call's first split
   after its scan found a feature: gcuba/detail/cut.h); 0 or a fail code */
int gcuba_cz_to_doubles(gpu *t)
{
  if (t->wd) return 0;
  if (t->cap > 0) {
    const int rc = widths_as(t, 1, t->n);
    if (rc) return rc;
  }
  t->wd = 1;
  gcuba_log(t->c, 2, "region widths as doubles from here on (cuts)");
  return 0;
}

/* the initial divisions per axis (powers of two: log2 in k), by value (no
   device copy) */
struct dndiv {
  int n[GCUBA_RULE_MAXDIM], k[GCUBA_RULE_MAXDIM];
};

__global__ void k_init(long long n, long long first, int ndim,
                       const dndiv ndiv, double *lo, unsigned short *wk)
{
  long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  long long k = first + i; /* its place in the one-GPU order */
  for (int d = 0; d < ndim; ++d) {
    int j = (int)(k % ndiv.n[d]);
    k /= ndiv.n[d];
    wk[i * ndim + d] = (unsigned short)ndiv.k[d];
    lo[i * ndim + d] = ldexp((double)j, -ndiv.k[d]);
  }
}

static int init(void *ctx, const int *ndiv)
{
  gpu *t = (gpu *)ctx;
  long long n = 1;
  int d, rc;
  dndiv dd;
  for (d = 0; d < t->ndim; ++d) {
    n *= ndiv[d];
    dd.n[d] = ndiv[d];
    for (dd.k[d] = 0; (1 << dd.k[d]) < ndiv[d]; ++dd.k[d]) continue;
    if ((1 << dd.k[d]) != ndiv[d])
      return gcuba_fail(t->c, GCUBA_FAIL_PARAM,
                        "initial divisions not a power of two");
  }
  t->gn = n;
  t->gnold = t->gfirst = 0;
  /* the widths as exponents until a cut needs doubles (darrays) */
  if ((rc = gcuba_cz_set_widths(t, 0))) return rc;
  if (t->dist) {
    /* this member's share of them */
    long long a, b;
    gcuba_coll_share(t->c->coll, n, &a, &b, NULL);
    t->gfirst = a;
    n = b - a;
    t->n = 0;
  }
  if ((rc = gcuba_cz_reserve(t, n))) return rc;
  if (n > 0) {
    k_init<<<gcuba_cz_nblocks(n, 256), 256, 0, t->stream>>>(n, t->gfirst, t->ndim, dd,
                                                   t->a.lo, t->a.wk);
    CKL("k_init");
  }
  t->n = n;
  t->nold = t->seg = 0;
  t->haveparents = 0;
  return 0;
}

/* enough blocks (one per region) to fill the device a few times over */
static long long minbatch(void *ctx) { return ((gpu *)ctx)->minbatch_; }

/* leaves, and new ones, of the call (of every member) */
static long long nleaves(void *ctx)
{
  const gpu *t = (const gpu *)ctx;
  return t->dist ? t->gn : t->n;
}

long long gcuba_cz_nnew(void *ctx)
{
  const gpu *t = (const gpu *)ctx;
  return t->dist ? t->gn - t->gnold : t->n - t->nold;
}

/* blocks of a fused pass over n leaves: up to RED_BLOCKS, fewer when n
   is small (the grid depends on n alone, so the order of the sums is
   still fixed for a given call) */
unsigned gcuba_cz_red_blocks(long long n)
{
  long long b = (n + RED_THREADS - 1) / RED_THREADS;
  return b < 1 ? 1 : b > RED_BLOCKS ? RED_BLOCKS : (unsigned)b;
}

/* the call's cut map (gcuba/detail/cut.h), or an empty one */
gcuba_cutmap gcuba_cz_cutmap(const gpu *t)
{
  gcuba_cutmap m;
  if (t->c->cutmap) return *t->c->cutmap;
  gcuba_cutmap_init(&m);
  return m;
}

static double kernel_ms(void *ctx)
{
  const gpu *t = (const gpu *)ctx;
  return t->c->verbose >= 2 ? t->kms : -1;
}

extern "C" const gcuba_cuhre_ops gcuba_cuhre_cuda = {
    "gpu", 1, create, destroy, minbatch, init, gcuba_cz_load, gcuba_cz_save,
    nleaves, gcuba_cz_nnew, gcuba_cz_eval, gcuba_cz_hist, gcuba_cz_apply,
    kernel_ms, gcuba_cz_hint, gcuba_cz_save_dev, 1, gcuba_cz_search};
