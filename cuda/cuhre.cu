/* cuda/cuhre.cu -- the CUDA backend of the Cuhre driver
   (src/cuhre/backend.h): the leaf regions live in device memory in the
   same layout as the CPU backend's; the rule is applied by the kernel
   instantiated for the integrand (gcuba/cuhre_kernels.cuh), everything
   else -- two-level error, sums, key histogram, classification, scans,
   compaction and splitting -- is here, compiled once.  Buffers are sized
   from cudaMemGetInfo (and GCUBA_MEMLIMIT), allocated at the start and
   grown geometrically; nothing is allocated inside an iteration except
   when the partition outgrows its buffers.  One stream per call; every
   CUDA call and launch is checked (GCUBA_CK).  Reductions use a fixed
   grid and a fixed order, so results do not change from run to run.
   Per iteration: the rule kernel, the two-level kernel and one fused sum
   kernel (eval); one fused classify + key histogram kernel (hist); one
   classify + mark kernel, one scan and the scatter (apply) -- each step
   with one host round trip into pinned memory.
   This file is part of gcuba. */
#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <cub/device/device_scan.cuh>
#include "common.cuh"
#include "common/coll.h"
#include "cuhre/backend.h"
#include "gcuba/cuhre_kernels.cuh"

/* blocks of the reductions and fused passes: a fixed grid, so that every
   sum is taken in the same order on every run */
#define RED_BLOCKS 1024
/* regions split per iteration at least, per multiprocessor: a batch
   evaluated in one launch costs about the same as a smaller one
   (GCUBA_GPU_BATCH overrides, for experiments) */
#ifndef GCUBA_GPU_BATCH_PER_SM
#define GCUBA_GPU_BATCH_PER_SM 64
#endif
#define RED_THREADS 256
/* one dimension: regions evaluated per round (k_gk_points) */
#define GK_CHUNK (1LL << 16)

/* Leaves, structure of arrays.  Every width is a power of two (the start
   divides each axis in 1 or 2, splits halve): wk holds its exponent,
   w = 2^-wk, which takes a quarter of the memory of a double and is
   exact. */
typedef struct {
  double *lo, *avg, *err;
  unsigned short *wk;
  int *dims;
} darrays;

typedef struct {
  gcuba_call *c;
  gcuba_rule rule;
  int ndim, ncomp, np, nsm, ustride;
  long long n, nold, cap, maxregions;
  int haveparents;
  long long minbatch_;
  int dev;
  cudaStream_t stream;
  darrays a, b;
  double *pavg, *perr;      /* [cap/2*ncomp] */
  unsigned char *cls;       /* [cap] */
  long long *mark, *pos;    /* [cap]: (split << 32 | keep) per leaf,
                               and its exclusive scan */
  gcuba_rule *drule;
  double *du;               /* [ndim*ustride] the rule's points */
  double *dx, *df;          /* ndim = 1: [GK_CHUNK*nevals] points and
                               [GK_CHUNK*nevals*ncomp] values */
  double *dpart;            /* [2*ncomp*RED_BLOCKS] reduction partials */
  double *dsum;             /* [DSUM_DOUBLES] then the histogram: */
  long long *dhcount;       /* [GCUBA_HIST_BINS], in the same block */
  unsigned int *dticket;    /* blocks done, for the last block's merge */
  int *dstatus;
  void *dtemp;              /* CUB temporary storage */
  size_t tempbytes;
  void *duser;              /* userdata as the kernels see it */
  void *udcopy;             /* our copy of host userdata (kept with the
                               context), udcap bytes */
  size_t udcap;
  double *hbuf;             /* pinned host staging: HBUF_DOUBLES */
  cudaEvent_t ev[2];        /* around the rule kernel (verbosity >= 2) */
  double kms;               /* the rule kernel's milliseconds, this call */
  /* the histogram computed with the last eval, for the classification
     the driver announced (hint): used by hist when it asks for that one */
  int spec;                 /* 1: queued with the next eval; 2: ready */
  gcuba_classify spec_cl;   /* relfinish, epsrel, epsabs of the hint */
  double spec_fin[GCUBA_CUHRE_GPU_MAXCOMP];
  double spec_budget[GCUBA_CUHRE_GPU_MAXCOMP];
  /* a collective call (common/coll.h): the new regions' results of every
     process, staged on the host, and the shares */
  unsigned char *xh;
  size_t xhcap;
  long long *xcnt;          /* [2 * processes] */
  int xcntcap;
} gpu;

enum { KEEP = 0, FIN = 1, SPLIT = 2 };
/* dsum (device) and its host mirror hbuf: sums [2*ncomp] at 0; status,
   then split and kept counts at DS_MISC; the errors relative-error
   finishing finishes [ncomp] at DS_REL; then the histogram [BINS] */
#define DSUM_DOUBLES 64
#define DS_MISC (2 * GCUBA_CUHRE_GPU_MAXCOMP)
#define DS_REL 32
#define HBUF_DOUBLES (DSUM_DOUBLES + GCUBA_HIST_BINS)
#define HBUF_HIST DSUM_DOUBLES
#define MARK_SPLIT (1LL << 32)
#define MARK_KEEP 1LL

#define CK(call)                              \
  do {                                        \
    int rc_ = GCUBA_CK(t->c, call);           \
    if (rc_) return rc_;                      \
  } while (0)
#define CKL(what)                             \
  do {                                        \
    int rc_ = GCUBA_CK_LAUNCH(t->c, what);    \
    if (rc_) return rc_;                      \
  } while (0)

/* bytes of device memory per leaf region */
static long long region_bytes(int ndim, int ncomp)
{
  return 2 * (8LL * (ndim + 2 * ncomp) + 2LL * ndim + 4LL * ncomp) +
         8LL * ncomp + 1 + 2 * 8;
}

static void free_arrays(darrays *a)
{
  cudaFree(a->lo);
  cudaFree(a->wk);
  cudaFree(a->avg);
  cudaFree(a->err);
  cudaFree(a->dims);
  memset(a, 0, sizeof *a);
}

static int alloc_arrays(gpu *t, darrays *a, long long cap)
{
  CK(cudaMalloc(&a->lo, sizeof(double) * cap * t->ndim));
  CK(cudaMalloc(&a->wk, sizeof(unsigned short) * cap * t->ndim));
  CK(cudaMalloc(&a->avg, sizeof(double) * cap * t->ncomp));
  CK(cudaMalloc(&a->err, sizeof(double) * cap * t->ncomp));
  CK(cudaMalloc(&a->dims, sizeof(int) * cap * t->ncomp));
  return 0;
}

/* the region store and everything sized by its capacity */
static void free_store(gpu *t)
{
  free_arrays(&t->a);
  free_arrays(&t->b);
  cudaFree(t->pavg);
  cudaFree(t->perr);
  cudaFree(t->cls);
  cudaFree(t->mark);
  cudaFree(t->pos);
  cudaFree(t->dtemp);
  t->pavg = t->perr = NULL;
  t->cls = NULL;
  t->mark = t->pos = NULL;
  t->dtemp = NULL;
  t->cap = 0;
}

static size_t scan_bytes(long long n)
{
  size_t bytes = 0;
  cub::DeviceScan::ExclusiveSum(NULL, bytes, (const long long *)NULL,
                                (long long *)NULL, (int)n);
  return bytes;
}

/* make room for n leaves: new buffers, the live data copied over */
static int reserve(gpu *t, long long n)
{
  long long cap = t->cap ? t->cap : 65536, keep = t->n;
  darrays na;
  double *np2, *ne2;
  if (n <= t->cap) return 0;
  while (cap < n) cap *= 2;
  if (cap > t->maxregions) cap = t->maxregions > n ? t->maxregions : n;
  memset(&na, 0, sizeof na);
  if (alloc_arrays(t, &na, cap)) {
    free_arrays(&na);
    return t->c->fail;
  }
  if (keep > 0) {
    CK(cudaMemcpyAsync(na.lo, t->a.lo, sizeof(double) * keep * t->ndim,
                       cudaMemcpyDeviceToDevice, t->stream));
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
  CK(cudaMalloc(&np2, sizeof(double) * (cap / 2 + 1) * t->ncomp));
  CK(cudaMalloc(&ne2, sizeof(double) * (cap / 2 + 1) * t->ncomp));
  if (keep > t->nold && t->haveparents) {
    size_t pb = sizeof(double) * ((keep - t->nold) / 2) * t->ncomp;
    CK(cudaMemcpyAsync(np2, t->pavg, pb, cudaMemcpyDeviceToDevice,
                       t->stream));
    CK(cudaMemcpyAsync(ne2, t->perr, pb, cudaMemcpyDeviceToDevice,
                       t->stream));
  }
  CK(cudaStreamSynchronize(t->stream));
  free_store(t);
  t->a = na;
  t->pavg = np2;
  t->perr = ne2;
  if (alloc_arrays(t, &t->b, cap)) return t->c->fail;
  CK(cudaMalloc(&t->cls, cap));
  CK(cudaMalloc(&t->mark, sizeof(long long) * cap));
  CK(cudaMalloc(&t->pos, sizeof(long long) * cap));
  t->tempbytes = scan_bytes(cap);
  CK(cudaMalloc(&t->dtemp, t->tempbytes));
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
  free_store(t);
  cudaFree(t->drule);
  cudaFree(t->du);
  cudaFree(t->dx);
  cudaFree(t->df);
  cudaFree(t->dpart);
  cudaFree(t->dsum);
  cudaFree(t->dticket);
  cudaFree(t->dstatus);
  cudaFree(t->udcopy);
  if (t->hbuf) cudaFreeHost(t->hbuf);
  free(t->xh);
  free(t->xcnt);
  if (t->ev[0]) cudaEventDestroy(t->ev[0]);
  if (t->ev[1]) cudaEventDestroy(t->ev[1]);
  if (t->stream) cudaStreamDestroy(t->stream);
  if (cur >= 0) cudaSetDevice(cur);
  (void)cudaGetLastError();
  free(t);
}

/* One idle context per device is kept with its device buffers after a
   call, so that the next call of the same shape (device, ndim, ncomp)
   starts without allocating: a sweep of short calls pays cudaMalloc
   once.  Concurrent calls on one device allocate their own.
   gcuba_release() frees them. */
static pthread_mutex_t cache_lock = PTHREAD_MUTEX_INITIALIZER;
#define CACHE_SLOTS 16 /* one per device, for calls on several GPUs */
static gpu *cache[CACHE_SLOTS];

static void destroy(void *ctx)
{
  gpu *t = (gpu *)ctx, *old = NULL;
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
  pthread_mutex_lock(&cache_lock);
  old = cache[t->dev];
  cache[t->dev] = t;
  pthread_mutex_unlock(&cache_lock);
  if (old) release(old);
}

static gpu *take_cached(int dev, int ndim, int ncomp)
{
  gpu *t;
  if (dev < 0 || dev >= CACHE_SLOTS) return NULL;
  pthread_mutex_lock(&cache_lock);
  t = cache[dev];
  if (t && t->dev == dev && t->ndim == ndim && t->ncomp == ncomp)
    cache[dev] = NULL;
  else
    t = NULL;
  pthread_mutex_unlock(&cache_lock);
  return t;
}

extern "C" void gcuba_vegas_cuda_release(void);

extern "C" void gcuba_cuda_release(void)
{
  gpu *t[CACHE_SLOTS];
  int i;
  gcuba_vegas_cuda_release();
  pthread_mutex_lock(&cache_lock);
  for (i = 0; i < CACHE_SLOTS; ++i) {
    t[i] = cache[i];
    cache[i] = NULL;
  }
  pthread_mutex_unlock(&cache_lock);
  for (i = 0; i < CACHE_SLOTS; ++i) release(t[i]);
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
  if (GCUBA_CK(c, cudaMalloc(du, sizeof(double) * n)) ||
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
  return gcuba_device_userdata(t->c, t->c->userdata, gcuba_userdata_bytes(),
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
  if (fresh && GCUBA_CK(c, cudaStreamCreateWithFlags(&t->stream,
                                                     cudaStreamNonBlocking)))
    goto fail;
  if (GCUBA_CK(c, cudaMemGetInfo(&freeb, &totalb))) goto fail;
  /* leave room for CUB's temporaries and the rest: 85% of what is free,
     plus what this context holds already */
  per = region_bytes(t->ndim, t->ncomp);
  fit = (long long)(0.85 * (double)freeb / per) + t->cap;
  if (fit > (1LL << 31) - 2) fit = (1LL << 31) - 2; /* CUB's int counts */
  if (*maxregions > fit) *maxregions = fit;
  t->maxregions = *maxregions;
  if (t->cap > t->maxregions) {
    /* a smaller limit than the cached buffers: start afresh */
    free_store(t);
  }
  if (fresh &&
      (GCUBA_CK(c, cudaMalloc(&t->drule, sizeof *r)) ||
       GCUBA_CK(c, cudaMalloc(&t->dpart,
                              sizeof(double) * (2 * c->ncomp + 2) *
                                  RED_BLOCKS)) ||
       GCUBA_CK(c, cudaMalloc(&t->dsum, sizeof(double) * HBUF_DOUBLES)) ||
       GCUBA_CK(c, cudaMalloc(&t->dticket, sizeof(unsigned int))) ||
       GCUBA_CK(c, cudaMemsetAsync(t->dticket, 0, sizeof(unsigned int),
                                   t->stream)) ||
       GCUBA_CK(c, cudaMalloc(&t->dstatus, sizeof(int))) ||
       GCUBA_CK(c, cudaMallocHost(&t->hbuf, sizeof(double) * HBUF_DOUBLES)) ||
       GCUBA_CK(c, cudaEventCreate(&t->ev[0])) ||
       GCUBA_CK(c, cudaEventCreate(&t->ev[1]))))
    goto fail;
  t->dhcount = (long long *)(t->dsum + DSUM_DOUBLES);
  t->kms = 0;
  t->spec = 0;
  /* the status word is cleared by every k_sums; a launch that failed in an
     earlier call may have left it set */
  if (GCUBA_CK(c, cudaMemsetAsync(t->dstatus, 0, sizeof(int), t->stream)))
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
      (GCUBA_CK(c, cudaMalloc(&t->dx, sizeof(double) * GK_CHUNK *
                                          gcuba_rule_nevals(r))) ||
       GCUBA_CK(c, cudaMalloc(&t->df, sizeof(double) * GK_CHUNK *
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

/* the initial divisions per axis (powers of two: log2 in k), by value (no
   device copy) */
struct dndiv {
  int n[GCUBA_RULE_MAXDIM], k[GCUBA_RULE_MAXDIM];
};

__global__ void k_init(long long n, int ndim, const dndiv ndiv, double *lo,
                       unsigned short *wk)
{
  long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  long long k = i;
  for (int d = 0; d < ndim; ++d) {
    int j = (int)(k % ndiv.n[d]);
    k /= ndiv.n[d];
    wk[i * ndim + d] = (unsigned short)ndiv.k[d];
    lo[i * ndim + d] = ldexp((double)j, -ndiv.k[d]);
  }
}

static unsigned nblocks(long long n, int threads)
{
  long long b = (n + threads - 1) / threads;
  return (unsigned)(b < 1 ? 1 : b);
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
  if ((rc = reserve(t, n))) return rc;
  k_init<<<nblocks(n, 256), 256, 0, t->stream>>>(n, t->ndim, dd, t->a.lo,
                                                 t->a.wk);
  CKL("k_init");
  t->n = n;
  t->nold = 0;
  t->haveparents = 0;
  return 0;
}

/* enough blocks (one per region) to fill the device a few times over */
static long long minbatch(void *ctx) { return ((gpu *)ctx)->minbatch_; }

static long long nleaves(void *ctx) { return ((gpu *)ctx)->n; }
static long long nnew(void *ctx) { return ((gpu *)ctx)->n - ((gpu *)ctx)->nold; }

/* The block's sums of v[0..nv) (one value per thread) go to
   part[blockIdx.x * nv + j]; the last block to finish adds the parts in
   block order into out[j] and rearms the ticket.  With the fixed grid the
   order of every addition is fixed. */
__device__ static int reduce_parts(const double *v, int nv, double *part,
                                   double *out, unsigned int *ticket)
{
  __shared__ double sh[RED_THREADS];
  __shared__ int last;
  for (int j = 0; j < nv; ++j) {
    sh[threadIdx.x] = v[j];
    __syncthreads();
    for (int h = blockDim.x / 2; h > 0; h /= 2) {
      if (threadIdx.x < h) sh[threadIdx.x] += sh[threadIdx.x + h];
      __syncthreads();
    }
    if (threadIdx.x == 0) part[blockIdx.x * nv + j] = sh[0];
    __syncthreads();
  }
  __threadfence();
  if (threadIdx.x == 0) last = atomicAdd(ticket, 1u) == gridDim.x - 1;
  __syncthreads();
  if (!last) return 0;
  __threadfence();
  if (threadIdx.x < nv) {
    const volatile double *p = part;
    double s = 0;
    for (unsigned b = 0; b < gridDim.x; ++b) s += p[b * nv + threadIdx.x];
    out[threadIdx.x] = s;
  }
  if (threadIdx.x == 0) *ticket = 0;
  return 1;
}

/* blocks of a fused pass over n leaves: up to RED_BLOCKS, fewer when n
   is small (the grid depends on n alone, so the order of the sums is
   still fixed for a given call) */
static unsigned red_blocks(long long n)
{
  long long b = (n + RED_THREADS - 1) / RED_THREADS;
  return b < 1 ? 1 : b > RED_BLOCKS ? RED_BLOCKS : (unsigned)b;
}

/* The two-level error of the new pairs (children 2k, 2k+1 of parent k
   from `first' on, when pavg != NULL; in one dimension the
   Gauss-Kronrod check, gcuba_gk_twolevel), then out[c] = sum_i avg[i*ncomp +
   c], out[ncomp + c] = the same of err; the last block also moves the
   status word to out[DS_MISC] (clearing it) and clears the histogram */
__global__ void k_sums(long long n, int ndim, int ncomp, double *avg,
                       double *err,
                       long long first, const double *pavg,
                       const double *perr, int *status, long long *count,
                       double *part, double *out, unsigned int *ticket)
{
  double v[2 * GCUBA_CUHRE_GPU_MAXCOMP];
  for (int c = 0; c < 2 * ncomp; ++c) v[c] = 0;
  for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < n;
       i += (long long)gridDim.x * blockDim.x) {
    int m = 1;
    if (pavg && i >= first) {
      long long k = (i - first) >> 1;
      if ((i - first) & 1) continue; /* added with its sibling */
      for (int c = 0; c < ncomp; ++c)
        if (ndim > 1)
          gcuba_twolevel(pavg[k * ncomp + c], perr[k * ncomp + c],
                         &avg[i * ncomp + c], &err[i * ncomp + c],
                         &avg[(i + 1) * ncomp + c],
                         &err[(i + 1) * ncomp + c]);
        else
          gcuba_gk_twolevel(pavg[k * ncomp + c], perr[k * ncomp + c],
                            avg[i * ncomp + c], &err[i * ncomp + c],
                            avg[(i + 1) * ncomp + c],
                            &err[(i + 1) * ncomp + c]);
      m = 2;
    }
    for (int j = 0; j < m; ++j)
      for (int c = 0; c < ncomp; ++c) {
        v[c] += avg[(i + j) * ncomp + c];
        v[ncomp + c] += err[(i + j) * ncomp + c];
      }
  }
  if (reduce_parts(v, 2 * ncomp, part, out, ticket)) {
    if (threadIdx.x == 0) {
      out[DS_MISC] = (double)*status;
      *status = 0;
    }
    for (int j = threadIdx.x; j < GCUBA_HIST_BINS; j += blockDim.x)
      count[j] = 0;
  }
}

/* the classification's parameters, by value (budget included: no copy to
   the device per step) */
struct dclassify {
  int relfinish;
  long long split_max;
  double epsrel, epsabs, fin_thresh, split_thresh;
  double budget[GCUBA_CUHRE_GPU_MAXCOMP];
  /* spec: the budget is the driver's, computed here from the sums of
     k_sums (sums[c]) and the finished estimates fin[c], with the call's
     epsrel and epsabs (gcuba_budget, as the driver) */
  int spec;
  double fin[GCUBA_CUHRE_GPU_MAXCOMP], ceps[2];
};

/* the classification of one leaf (as the CPU backend's classify1) */
__device__ static double d_key(const double *err, long long i, int ncomp,
                               const double *budget, int *comp)
{
  double k = -1;
  for (int c = 0; c < ncomp; ++c) {
    double r = err[i * ncomp + c] / budget[c];
    if (r > k) {
      k = r;
      *comp = c;
    }
  }
  return k;
}

__device__ static int d_classify(const darrays a, long long i, int ncomp,
                                 const dclassify &cl, double *key)
{
  int comp = 0;
  if (cl.relfinish) {
    int c;
    for (c = 0; c < ncomp; ++c) {
      double r = fabs(a.avg[i * ncomp + c]) * cl.epsrel;
      if (a.err[i * ncomp + c] > (r > cl.epsabs ? r : cl.epsabs)) break;
    }
    if (c == ncomp) return FIN;
  }
  *key = d_key(a.err, i, ncomp, cl.budget, &comp);
  if (*key <= cl.fin_thresh) return FIN;
  return *key >= cl.split_thresh ? SPLIT : KEEP;
}

/* hist: the errors of the leaves that relative-error finishing would
   finish, summed into out when relfinish, and the histogram of the others'
   keys (per block in shared memory, then added to count) */
__global__ void k_hist(long long n, int ncomp, darrays a, dclassify cl,
                       const double *sums, long long *count, double *part,
                       double *out, unsigned int *ticket)
{
  __shared__ unsigned int h[GCUBA_HIST_BINS];
  double v[GCUBA_CUHRE_GPU_MAXCOMP];
  if (cl.spec)
    for (int c = 0; c < ncomp; ++c)
      cl.budget[c] =
          gcuba_budget(cl.fin[c] + sums[c], cl.ceps[0], cl.ceps[1]);
  for (int j = threadIdx.x; j < GCUBA_HIST_BINS; j += blockDim.x) h[j] = 0;
  for (int c = 0; c < ncomp; ++c) v[c] = 0;
  __syncthreads();
  for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < n;
       i += (long long)gridDim.x * blockDim.x) {
    double key = 0;
    int k = d_classify(a, i, ncomp, cl, &key);
    if (k == FIN)
      for (int c = 0; c < ncomp; ++c) v[c] += a.err[i * ncomp + c];
    else
      atomicAdd(&h[gcuba_hist_bin(key)], 1u);
  }
  __syncthreads();
  for (int j = threadIdx.x; j < GCUBA_HIST_BINS; j += blockDim.x)
    if (h[j]) atomicAdd((unsigned long long *)&count[j],
                        (unsigned long long)h[j]);
  if (cl.relfinish) reduce_parts(v, ncomp, part, out, ticket);
}

static dclassify dcl(const gcuba_call *c, const gcuba_classify *cl)
{
  dclassify d;
  memset(&d, 0, sizeof d);
  d.relfinish = cl->relfinish;
  d.split_max = cl->split_max;
  d.epsrel = cl->epsrel;
  d.epsabs = cl->epsabs;
  d.fin_thresh = cl->fin_thresh;
  d.split_thresh = cl->split_thresh;
  if (cl->budget) memcpy(d.budget, cl->budget, sizeof(double) * c->ncomp);
  return d;
}

/* what hist classifies by: cl's relative-error part alone */
static dclassify dcl_rel(const gcuba_call *c, const gcuba_classify *cl)
{
  gcuba_classify rel = *cl;
  rel.fin_thresh = -1;
  rel.split_thresh = HUGE_VAL;
  rel.split_max = -1;
  return dcl(c, &rel);
}

/* the histogram part of hbuf into h (and relerr) */
static void hist_out(gpu *t, int relfinish, gcuba_hist *h, double *relerr)
{
  const long long *cnt = (const long long *)&t->hbuf[HBUF_HIST];
  long long nrel = 0;
  int j;
  if (relfinish) memcpy(relerr, &t->hbuf[DS_REL], sizeof(double) * t->ncomp);
  else memset(relerr, 0, sizeof(double) * t->ncomp);
  for (j = 0; j < GCUBA_HIST_BINS; ++j) {
    h->count[j] = cnt[j];
    h->keysum[j] = gcuba_hist_keysum(cnt[j], j);
    nrel += cnt[j];
  }
  h->nrel = t->n - nrel;
}

/* does cl ask for the histogram that came with the last eval? */
static int spec_matches(const gpu *t, const gcuba_classify *cl)
{
  int c;
  if (t->spec != 2 || cl->relfinish != t->spec_cl.relfinish ||
      cl->epsrel != t->spec_cl.epsrel || cl->epsabs != t->spec_cl.epsabs)
    return 0;
  for (c = 0; c < t->ncomp; ++c)
    if (memcmp(&cl->budget[c], &t->spec_budget[c], sizeof(double))) return 0;
  return 1;
}

static int hist(void *ctx, const gcuba_classify *cl, gcuba_hist *h,
                double *relerr)
{
  gpu *t = (gpu *)ctx;
  const int hit = spec_matches(t, cl);
  t->spec = 0;
  if (hit) {
    hist_out(t, cl->relfinish, h, relerr);
    return 0;
  }
  CK(cudaMemsetAsync(t->dhcount, 0, sizeof(long long) * GCUBA_HIST_BINS,
                     t->stream));
  k_hist<<<red_blocks(t->n), RED_THREADS, 0, t->stream>>>(
      t->n, t->ncomp, t->a, dcl_rel(t->c, cl), t->dsum, t->dhcount, t->dpart,
      t->dsum + DS_REL, t->dticket);
  CKL("k_hist");
  CK(cudaMemcpyAsync(&t->hbuf[DS_REL], t->dsum + DS_REL,
                     sizeof(double) * (HBUF_DOUBLES - DS_REL),
                     cudaMemcpyDeviceToHost, t->stream));
  CK(cudaStreamSynchronize(t->stream));
  hist_out(t, cl->relfinish, h, relerr);
  return 0;
}

/* The driver announces the relative-error part of the next
   classification (its budget follows from the next eval's sums and
   finavg): eval computes that histogram on the way */
static void hint(void *ctx, const gcuba_classify *cl, const double *finavg)
{
  gpu *t = (gpu *)ctx;
  t->spec = 1;
  t->spec_cl = *cl;
  t->spec_cl.budget = NULL;
  memcpy(t->spec_fin, finavg, sizeof(double) * t->ncomp);
}

/* Warps per region of the rule kernel: one when the batch gives every
   SM about 48 warps, else two or four (never more warps than the rule
   has rounds of 32 points), so that small batches still fill the card */
static int warps_per_region(const gpu *t, long long n)
{
  const long long want = (long long)t->nsm * 48;
  int w = 1;
  while (w < 4 && 32 * 2 * w <= t->np + 31 && n * w < want) w *= 2;
  return w;
}

/* One dimension.  A Gauss-Kronrod rule needs all values of a region
   together (QUADPACK's sum of |f - mean|) and a region has only 23
   points, so the regions are evaluated in rounds of GK_CHUNK: their
   points are written out (k_gk_points), the integrand's eval_points
   launcher evaluates them, and k_gk_apply applies the rule with the same
   code as the CPU backend (gcuba_rule_apply).  No integrand-dependent
   kernel of its own.  The points are formed as the CPU backend forms
   them, lo + (w/2)(1 + u), without a fused multiply-add. */
__global__ void k_gk_points(long long first, long long n, int np,
                            const double *lo, const unsigned short *wk,
                            const double *u, double *x)
{
  const long long j = (long long)blockIdx.x * blockDim.x + threadIdx.x;
  if (j >= n * np) return;
  const long long i = first + j / np;
  const int p = (int)(j % np);
  const double hw = ldexp(1.0, -1 - (int)wk[i]);
  x[j] = __dadd_rn(lo[i], __dmul_rn(hw, __dadd_rn(1.0, u[p])));
}

__global__ void k_gk_apply(long long first, long long n, int ncomp, int np,
                           const gcuba_rule *r, const double *f,
                           const unsigned short *wk, double *avg,
                           double *err, int *dims)
{
  const long long j = (long long)blockIdx.x * blockDim.x + threadIdx.x;
  if (j >= n) return;
  const long long i = first + j;
  gcuba_rule_apply(r, ncomp, f + j * np * ncomp, ldexp(1.0, -(int)wk[i]),
                   NULL, avg + i * ncomp, err + i * ncomp, dims + i * ncomp);
}

/* A collective call: every process has evaluated the new regions [ea, eb)
   (its share, gcuba_coll_share) with status krc (0 or a fail code).  The
   processes agree on the outcome, then every one receives every share's
   results (avg, err, dims): through the host between processes (MPI),
   directly between the GPUs of a team.  Every process makes the
   same sequence of collective calls whatever fails, so none is left
   waiting. */
static int exchange(gpu *t, long long ea, long long eb, int krc)
{
  gcuba_call *c = t->c;
  const gcuba_collective *k = c->coll;
  const long long nn = t->n - t->nold, nc = t->ncomp;
  const size_t bytes = (size_t)(nn * nc) * (2 * sizeof(double) + sizeof(int));
  double *havg, *herr;
  int *hdims, r, rc, hstatus = 0;
  long long st, *cnt, mine0, mine1;
  if (!krc && k->size > t->xcntcap) {
    long long *q = (long long *)realloc(t->xcnt, sizeof *q * 2 * k->size);
    if (q) {
      t->xcnt = q;
      t->xcntcap = k->size;
    } else
      krc = gcuba_fail(c, GCUBA_FAIL_NOMEM, "exchange buffers");
  }
  if (!krc && bytes > t->xhcap && !k->allgatherv_dev) {
    unsigned char *q = (unsigned char *)realloc(t->xh, bytes);
    if (q) {
      t->xh = q;
      t->xhcap = bytes;
    } else
      krc = gcuba_fail(c, GCUBA_FAIL_NOMEM, "exchange buffers");
  }
  if (!krc)
    krc = GCUBA_CK(c, cudaMemcpyAsync(t->hbuf, t->dstatus, sizeof(int),
                                      cudaMemcpyDeviceToHost, t->stream));
  havg = (double *)t->xh;
  herr = havg + nn * nc;
  hdims = (int *)(herr + nn * nc);
  /* GPUs of one process (a team) copy from each other directly */
  if (!krc && eb > ea && !k->allgatherv_dev)
    krc = GCUBA_CK(c, cudaMemcpyAsync(havg + (ea - t->nold) * nc,
                                      t->a.avg + ea * nc,
                                      sizeof(double) * (eb - ea) * nc,
                                      cudaMemcpyDeviceToHost, t->stream)) ||
          GCUBA_CK(c, cudaMemcpyAsync(herr + (ea - t->nold) * nc,
                                      t->a.err + ea * nc,
                                      sizeof(double) * (eb - ea) * nc,
                                      cudaMemcpyDeviceToHost, t->stream)) ||
          GCUBA_CK(c, cudaMemcpyAsync(hdims + (ea - t->nold) * nc,
                                      t->a.dims + ea * nc,
                                      sizeof(int) * (eb - ea) * nc,
                                      cudaMemcpyDeviceToHost, t->stream));
  if (!krc) krc = GCUBA_CK(c, cudaStreamSynchronize(t->stream));
  if (!krc) memcpy(&hstatus, t->hbuf, sizeof(int));
  if ((rc = gcuba_coll_status(c, krc ? (c->fail ? c->fail : krc) : 0)))
    return rc;
  st = hstatus;
  if ((rc = gcuba_coll_reduce_ll(c, &st, 1, GCUBA_COLL_BOR))) return rc;
  if (st & GCUBA_ST_ABORT) return GCUBA_FAIL_ABORT;
  if (st & GCUBA_ST_NONFINITE) return GCUBA_FAIL_NAN;
  cnt = t->xcnt + k->size;
  gcuba_coll_share(k, nn, &mine0, &mine1, t->xcnt);
  for (r = 0; r < k->size; ++r) cnt[r] = t->xcnt[r] * nc;
  if (k->allgatherv_dev) {
    if ((rc = gcuba_coll_gather_dev(c, t->a.avg + t->nold * nc, cnt,
                                    GCUBA_COLL_DOUBLE, t->stream)) ||
        (rc = gcuba_coll_gather_dev(c, t->a.err + t->nold * nc, cnt,
                                    GCUBA_COLL_DOUBLE, t->stream)))
      return rc;
    for (r = 0; r < k->size; ++r) cnt[r] *= (long long)sizeof(int);
    return gcuba_coll_gather_dev(c, t->a.dims + t->nold * nc, cnt,
                                 GCUBA_COLL_BYTE, t->stream);
  }
  if ((rc = gcuba_coll_gather(c, havg, cnt, GCUBA_COLL_DOUBLE)) ||
      (rc = gcuba_coll_gather(c, herr, cnt, GCUBA_COLL_DOUBLE)))
    return rc;
  for (r = 0; r < k->size; ++r) cnt[r] *= (long long)sizeof(int);
  if ((rc = gcuba_coll_gather(c, hdims, cnt, GCUBA_COLL_BYTE))) return rc;
  if (nn > 0) {
    CK(cudaMemcpyAsync(t->a.avg + t->nold * nc, havg,
                       sizeof(double) * nn * nc, cudaMemcpyHostToDevice,
                       t->stream));
    CK(cudaMemcpyAsync(t->a.err + t->nold * nc, herr,
                       sizeof(double) * nn * nc, cudaMemcpyHostToDevice,
                       t->stream));
    CK(cudaMemcpyAsync(t->a.dims + t->nold * nc, hdims,
                       sizeof(int) * nn * nc, cudaMemcpyHostToDevice,
                       t->stream));
  }
  return 0;
}

static int eval(void *ctx, double *sumavg, double *sumerr)
{
  gpu *t = (gpu *)ctx;
  struct gcuba_cuhre_launch a;
  int status = 0, rc, c, krc = 0;
  long long ea = t->nold, eb = t->n; /* the regions this process evaluates */
  long long chunk = 1LL << 30;
  size_t back = DS_MISC + 1;
  const double ceps[2] = {t->c->epsrel, t->c->epsabs};
  a.ndim = t->ndim;
  a.ncomp = t->ncomp;
  a.lo = t->a.lo;
  a.wk = t->a.wk;
  a.avg = t->a.avg;
  a.err = t->a.err;
  a.dims = t->a.dims;
  a.rule = t->drule;
  a.u = t->du;
  a.ustride = t->ustride;
  a.nsets = t->rule.nsets;
  a.npoints = t->np;
  a.nprobe = t->rule.nprobe;
  a.userdata = t->duser;
  a.status = t->dstatus;
  a.perr = t->haveparents ? t->perr : NULL;
  a.pfirst = t->nold;
  const int timing = t->c->verbose >= 2 && t->n > t->nold;
  if (t->c->coll) {
    gcuba_coll_share(t->c->coll, t->n - t->nold, &ea, &eb, NULL);
    ea += t->nold;
    eb += t->nold;
  }
  if (timing) krc = GCUBA_CK(t->c, cudaEventRecord(t->ev[0], t->stream));
  if (t->ndim == 1) {
    /* one dimension: points, the integrand's eval_points, the rule */
    const int np = gcuba_rule_nevals(&t->rule);
    for (a.first = ea; a.first < eb && !krc; a.first += GK_CHUNK) {
      const long long m = eb - a.first < GK_CHUNK ? eb - a.first : GK_CHUNK;
      k_gk_points<<<nblocks(m * np, 256), 256, 0, t->stream>>>(
          a.first, m, np, t->a.lo, t->a.wk, t->du, t->dx);
      if ((krc = GCUBA_CK_LAUNCH(t->c, "k_gk_points"))) break;
      rc = t->c->integrand->gpu->eval_points(1, t->ncomp, m * np, t->dx,
                                              t->df, t->duser, t->dstatus,
                                              t->stream);
      if (rc) {
        krc = GCUBA_CK(t->c, (cudaError_t)rc);
        break;
      }
      k_gk_apply<<<nblocks(m, 128), 128, 0, t->stream>>>(
          a.first, m, t->ncomp, np, t->drule, t->df, t->a.wk, t->a.avg,
          t->a.err, t->a.dims);
      krc = GCUBA_CK_LAUNCH(t->c, "k_gk_apply");
    }
  } else
    for (a.first = ea; a.first < eb && !krc; a.first += a.n) {
      /* the launch shape (warps per region, which sets the order of each
         region's sums) comes from the whole chunk of new regions this
         one belongs to, as one process would launch it, not from this
         process's share: the same bits for any number of processes */
      const long long g0 = t->nold + (a.first - t->nold) / chunk * chunk;
      const long long gn = t->n - g0 < chunk ? t->n - g0 : chunk;
      a.n = (eb < g0 + gn ? eb : g0 + gn) - a.first;
      a.wpr = warps_per_region(t, gn);
      rc = t->c->integrand->gpu->cuhre_eval(&a, t->stream);
      if (rc) krc = GCUBA_CK(t->c, (cudaError_t)rc);
    }
  if (timing && !krc)
    krc = GCUBA_CK(t->c, cudaEventRecord(t->ev[1], t->stream));
  if (t->c->coll) {
    if ((rc = exchange(t, ea, eb, krc))) return rc;
  } else if (krc)
    return krc;
  k_sums<<<red_blocks(t->n), RED_THREADS, 0, t->stream>>>(
      t->n, t->ndim, t->ncomp, t->a.avg, t->a.err, t->nold,
      t->haveparents ? t->pavg : NULL, t->perr, t->dstatus, t->dhcount,
      t->dpart, t->dsum, t->dticket);
  CKL("k_sums");
  if (t->spec == 1) {
    /* the announced classification's histogram, in the same round trip */
    dclassify d = dcl_rel(t->c, &t->spec_cl);
    d.spec = 1;
    memcpy(d.fin, t->spec_fin, sizeof(double) * t->ncomp);
    d.ceps[0] = ceps[0];
    d.ceps[1] = ceps[1];
    k_hist<<<red_blocks(t->n), RED_THREADS, 0, t->stream>>>(
        t->n, t->ncomp, t->a, d, t->dsum, t->dhcount, t->dpart,
        t->dsum + DS_REL, t->dticket);
    CKL("k_hist");
    back = HBUF_DOUBLES;
  }
  CK(cudaMemcpyAsync(t->hbuf, t->dsum, sizeof(double) * back,
                     cudaMemcpyDeviceToHost, t->stream));
  CK(cudaStreamSynchronize(t->stream));
  if (timing) {
    float ms = 0;
    CK(cudaEventElapsedTime(&ms, t->ev[0], t->ev[1]));
    t->kms += ms;
  }
  status = (int)t->hbuf[DS_MISC];
  if (status & GCUBA_ST_ABORT) return GCUBA_FAIL_ABORT;
  if (status & GCUBA_ST_NONFINITE) return GCUBA_FAIL_NAN;
  memcpy(sumavg, t->hbuf, sizeof(double) * t->ncomp);
  memcpy(sumerr, t->hbuf + t->ncomp, sizeof(double) * t->ncomp);
  if (t->spec == 1) {
    for (c = 0; c < t->ncomp; ++c)
      t->spec_budget[c] = gcuba_budget(t->spec_fin[c] + sumavg[c], ceps[0],
                                       ceps[1]);
    t->spec = 2;
  }
  t->nold = t->n;
  return 0;
}

/* apply: classify every leaf, mark it for the scan (one 64-bit word
   counts both: splits in the high half, kept leaves in the low half), and
   sum the finished leaves' estimates and errors into out */
__global__ void k_mark(long long n, int ncomp, darrays a, dclassify cl,
                       unsigned char *cls, long long *mark, double *part,
                       double *out, unsigned int *ticket)
{
  double v[2 * GCUBA_CUHRE_GPU_MAXCOMP + 2];
  for (int c = 0; c < 2 * ncomp + 2; ++c) v[c] = 0;
  for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < n;
       i += (long long)gridDim.x * blockDim.x) {
    double key = 0;
    int k = d_classify(a, i, ncomp, cl, &key);
    cls[i] = (unsigned char)k;
    mark[i] = k == SPLIT ? MARK_SPLIT : k == KEEP ? MARK_KEEP : 0;
    v[2 * ncomp] += k == SPLIT;
    v[2 * ncomp + 1] += k == KEEP;
    if (k == FIN)
      for (int c = 0; c < ncomp; ++c) {
        v[c] += a.avg[i * ncomp + c];
        v[ncomp + c] += a.err[i * ncomp + c];
      }
  }
  reduce_parts(v, 2 * ncomp + 2, part, out, ticket);
}

/* Kept leaves move to the front in order; split leaves become two
   children each after them.  With split_max >= 0 the splits past the
   first split_max are kept instead (numbered after the kept ones that
   precede them). */
__global__ void k_scatter(long long n, int ndim, int ncomp, darrays a,
                          darrays b, const unsigned char *cls,
                          const long long *pos, long long nkeep,
                          dclassify cl, double *pavg, double *perr)
{
  long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  const int k0 = cls[i];
  if (k0 == FIN) return;
  const long long p = pos[i], sr = p >> 32, kr = p & 0xffffffffLL;
  const long long demoted =
      cl.split_max >= 0 && sr > cl.split_max ? sr - cl.split_max : 0;
  if (k0 == KEEP || (cl.split_max >= 0 && sr >= cl.split_max)) {
    long long k = kr + demoted;
    for (int d = 0; d < ndim; ++d) {
      b.lo[k * ndim + d] = a.lo[i * ndim + d];
      b.wk[k * ndim + d] = a.wk[i * ndim + d];
    }
    for (int c = 0; c < ncomp; ++c) {
      b.avg[k * ncomp + c] = a.avg[i * ncomp + c];
      b.err[k * ncomp + c] = a.err[i * ncomp + c];
      b.dims[k * ncomp + c] = a.dims[i * ncomp + c];
    }
  } else {
    long long par = sr, k = nkeep + 2 * par;
    int comp = 0, ax;
    d_key(a.err, i, ncomp, cl.budget, &comp);
    ax = gcuba_rule_axis(a.dims[i * ncomp + comp]);
    for (int d = 0; d < ndim; ++d) {
      double l = a.lo[i * ndim + d];
      unsigned short e = a.wk[i * ndim + d];
      if (d == ax) {
        ++e;
        b.lo[k * ndim + d] = l;
        b.lo[(k + 1) * ndim + d] = l + ldexp(1.0, -(int)e);
      } else
        b.lo[k * ndim + d] = b.lo[(k + 1) * ndim + d] = l;
      b.wk[k * ndim + d] = b.wk[(k + 1) * ndim + d] = e;
    }
    for (int c = 0; c < ncomp; ++c) {
      pavg[par * ncomp + c] = a.avg[i * ncomp + c];
      perr[par * ncomp + c] =
          gcuba_rule_parent_err(a.err[i * ncomp + c], a.dims[i * ncomp + c]);
    }
  }
}

static int apply(void *ctx, const gcuba_classify *cl, double *finavg,
                 double *finerr)
{
  gpu *t = (gpu *)ctx;
  long long nsplit0, nkeep, nsplit, nnext;
  const dclassify d = dcl(t->c, cl);
  size_t bytes = t->tempbytes;
  darrays sw;
  int c, rc;
  /* classify, mark, sum the finished leaves; number the rest */
  k_mark<<<red_blocks(t->n), RED_THREADS, 0, t->stream>>>(
      t->n, t->ncomp, t->a, d, t->cls, t->mark, t->dpart, t->dsum,
      t->dticket);
  CKL("k_mark");
  CK(cub::DeviceScan::ExclusiveSum(t->dtemp, bytes, t->mark, t->pos,
                                   (int)t->n, t->stream));
  /* the finished sums and the split and kept counts (exact in doubles) */
  CK(cudaMemcpyAsync(t->hbuf, t->dsum, sizeof(double) * (2 * t->ncomp + 2),
                     cudaMemcpyDeviceToHost, t->stream));
  CK(cudaStreamSynchronize(t->stream));
  for (c = 0; c < t->ncomp; ++c) {
    finavg[c] += t->hbuf[c];
    finerr[c] += t->hbuf[t->ncomp + c];
  }
  nsplit0 = (long long)t->hbuf[2 * t->ncomp];
  nsplit = cl->split_max >= 0 && nsplit0 > cl->split_max ? cl->split_max
                                                          : nsplit0;
  nkeep = (long long)t->hbuf[2 * t->ncomp + 1] + (nsplit0 - nsplit);
  nnext = nkeep + 2 * nsplit;
  if (nnext > t->cap) {
    /* grow: the classification must be redone on the moved data */
    gcuba_log(t->c, 2, "growing the device region store to %lld", nnext);
    {
      long long n = t->n;
      t->nold = n; /* everything is evaluated */
      if ((rc = reserve(t, nnext))) return rc;
    }
    for (c = 0; c < t->ncomp; ++c) {
      finavg[c] -= t->hbuf[c];
      finerr[c] -= t->hbuf[t->ncomp + c];
    }
    return apply(ctx, cl, finavg, finerr);
  }
  k_scatter<<<nblocks(t->n, 256), 256, 0, t->stream>>>(
      t->n, t->ndim, t->ncomp, t->a, t->b, t->cls, t->pos, nkeep, d,
      t->pavg, t->perr);
  CKL("k_scatter");
  /* no synchronisation: the next step is queued on the same stream */
  sw = t->a;
  t->a = t->b;
  t->b = sw;
  t->n = nnext;
  t->nold = nkeep;
  t->haveparents = 1;
  return 0;
}

static int load(void *ctx, const gcuba_region_set *s)
{
  gpu *t = (gpu *)ctx;
  size_t nn = (size_t)(s->n - s->nold) / 2 * t->ncomp;
  int rc;
  size_t nw = (size_t)s->n * t->ndim, j;
  unsigned short *wk;
  t->n = 0;
  if ((rc = reserve(t, s->n))) return rc;
  /* the widths as exponents: anything but a power of two >= 2^-65535 is
     not a region gcuba made */
  if (!(wk = (unsigned short *)malloc(sizeof *wk * nw + 1)))
    return gcuba_fail(t->c, GCUBA_FAIL_NOMEM, "state file");
  for (j = 0; j < nw; ++j) {
    int e;
    double m = frexp(s->w[j], &e);
    if (m != 0.5 || e > 1 || e < 1 - 65535) {
      free(wk);
      return gcuba_fail(t->c, GCUBA_FAIL_STATE, "state file: region width "
                        "%g is not a power of two", s->w[j]);
    }
    wk[j] = (unsigned short)(1 - e);
  }
  rc = GCUBA_CK(t->c, cudaMemcpy(t->a.wk, wk, sizeof *wk * nw,
                                 cudaMemcpyHostToDevice));
  free(wk);
  if (rc) return rc;
  CK(cudaMemcpy(t->a.lo, s->lo, sizeof(double) * s->n * t->ndim,
                cudaMemcpyHostToDevice));
  CK(cudaMemcpy(t->a.avg, s->avg, sizeof(double) * s->nold * t->ncomp,
                cudaMemcpyHostToDevice));
  CK(cudaMemcpy(t->a.err, s->err, sizeof(double) * s->nold * t->ncomp,
                cudaMemcpyHostToDevice));
  CK(cudaMemcpy(t->a.dims, s->dims, sizeof(int) * s->nold * t->ncomp,
                cudaMemcpyHostToDevice));
  CK(cudaMemcpy(t->pavg, s->pavg, sizeof(double) * nn,
                cudaMemcpyHostToDevice));
  CK(cudaMemcpy(t->perr, s->perr, sizeof(double) * nn,
                cudaMemcpyHostToDevice));
  t->n = s->n;
  t->nold = s->nold;
  t->haveparents = s->haveparents;
  return 0;
}

static int save(void *ctx, gcuba_region_set *s)
{
  gpu *t = (gpu *)ctx;
  size_t nb = sizeof(double) * t->n * t->ndim;
  size_t rb = sizeof(double) * t->nold * t->ncomp;
  size_t pb = sizeof(double) * (size_t)((t->n - t->nold) / 2) * t->ncomp;
  /* apply() returns with its kernels still queued on t->stream, which
     does not synchronise with the default stream of cudaMemcpy */
  CK(cudaStreamSynchronize(t->stream));
  s->n = t->n;
  s->nold = t->nold;
  s->haveparents = t->haveparents;
  s->lo = (double *)malloc(nb + 1);
  s->w = (double *)malloc(nb + 1);
  s->avg = (double *)malloc(rb + 1);
  s->err = (double *)malloc(rb + 1);
  s->dims = (int *)malloc(rb / 2 + 1);
  s->pavg = (double *)malloc(pb + 1);
  s->perr = (double *)malloc(pb + 1);
  if (!s->lo || !s->w || !s->avg || !s->err || !s->dims || !s->pavg ||
      !s->perr)
    return GCUBA_FAIL_NOMEM;
  CK(cudaMemcpy(s->lo, t->a.lo, nb, cudaMemcpyDeviceToHost));
  {
    size_t nw = (size_t)t->n * t->ndim, j;
    unsigned short *wk = (unsigned short *)malloc(sizeof *wk * nw + 1);
    if (!wk) return GCUBA_FAIL_NOMEM;
    if (GCUBA_CK(t->c, cudaMemcpy(wk, t->a.wk, sizeof *wk * nw,
                                  cudaMemcpyDeviceToHost))) {
      free(wk);
      return t->c->fail;
    }
    for (j = 0; j < nw; ++j) s->w[j] = ldexp(1.0, -(int)wk[j]);
    free(wk);
  }
  CK(cudaMemcpy(s->avg, t->a.avg, rb, cudaMemcpyDeviceToHost));
  CK(cudaMemcpy(s->err, t->a.err, rb, cudaMemcpyDeviceToHost));
  CK(cudaMemcpy(s->dims, t->a.dims, sizeof(int) * t->nold * t->ncomp,
                cudaMemcpyDeviceToHost));
  CK(cudaMemcpy(s->pavg, t->pavg, pb, cudaMemcpyDeviceToHost));
  CK(cudaMemcpy(s->perr, t->perr, pb, cudaMemcpyDeviceToHost));
  return 0;
}

static double kernel_ms(void *ctx)
{
  const gpu *t = (const gpu *)ctx;
  return t->c->verbose >= 2 ? t->kms : -1;
}

extern "C" const gcuba_cuhre_ops gcuba_cuhre_cuda = {
    "gpu", create, destroy, minbatch, init, load, save, nleaves, nnew, eval,
    hist, apply, kernel_ms, hint};
