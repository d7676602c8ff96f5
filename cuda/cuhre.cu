/* cuda/cuhre.cu -- the CUDA backend of the Cuhre driver
   (src/cuhre/backend.h): the leaf regions live in device memory in the
   same layout as the CPU backend's; the rule is applied by the kernel
   instantiated for the integrand (gcuba/cuhre_kernels.cuh), everything
   else -- two-level error, sums, key histogram, classification, scans,
   compaction and splitting -- is here, compiled once.  Buffers are sized
   from cudaMemGetInfo (and GCUBA_MEMLIMIT), allocated at the start and
   grown geometrically; nothing is allocated inside an iteration except
   when the partition outgrows its buffers.  One stream per call; every
   CUDA call and launch is checked (GCUBA_CK).  Every sum over regions is
   exact to a fixed unit (x128 below), so it does not depend on how the
   regions are divided among blocks or GPUs.
   Per iteration: the rule kernel, the two-level kernel and one fused sum
   kernel (eval); one fused classify + key histogram kernel (hist); one
   classify + mark kernel, one scan and the scatter (apply) -- each step
   with one host round trip into pinned memory.
   A collective call (several GPUs of a process, or MPI processes) keeps
   every leaf on every member while they fit one GPU: each member
   evaluates its share of the new ones and the results are exchanged.
   When the next partition would not fit, the store is distributed: every
   member holds a contiguous share of the kept leaves and of the new
   pairs of the one-GPU order, evaluates, classifies and splits only
   those, and after each split sends the leaves whose place in that order
   falls in another member's share to it (DISTRIBUTED STORE below).  Every
   decision uses global counts and exact sums, so the result is the one
   GPU's bits either way, and the regions are limited by the memory of all
   the GPUs together.
   This file is part of gcuba. */
#include <limits.h>
#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <cub/device/device_scan.cuh>
#include "common.cuh"
#include "common/coll.h"
#include "cuhre/backend.h"
#include "cuda/device.h"
#include "gcuba/cuhre_kernels.cuh"
#include "gcuba/cut_kernels.cuh"

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

/* ---- exact sums ------------------------------------------------------------
   Each summed quantity q (avg or err of a component) has a scale from the
   largest |value| M_q among the leaves, taken in eval: every value is
   rounded to an integer number of units 2^s, s = e - 93 with M_q < 2^e,
   and the integers are added as 128-bit two's complement numbers.  With
   fewer than 2^31 terms below 2^93 units each the sum stays below 2^125;
   the rounding, at most half a unit per term, is at most 2^-63 M_q in all,
   far below a double's own rounding of a sum.  Integer addition does not
   depend on the order of the terms: the sums are the same bits whatever
   the grid, and however the leaves are divided among GPUs. */
typedef struct {
  unsigned long long lo, hi;
} x128;
#define X_NONFINITE INT_MIN /* a scale when some value is not finite */

GCUBA_HD static inline void x_add(x128 *a, x128 b)
{
  const unsigned long long l = a->lo + b.lo;
  a->hi += b.hi + (l < a->lo);
  a->lo = l;
}

GCUBA_HD static inline x128 x_neg(x128 a)
{
  x128 r;
  r.lo = ~a.lo + 1;
  r.hi = ~a.hi + (r.lo == 0);
  return r;
}

GCUBA_HD static inline double bits_double(unsigned long long b)
{
  union {
    unsigned long long u;
    double d;
  } v;
  v.u = b;
  return v.d;
}

GCUBA_HD static inline unsigned long long double_bits(double d)
{
  union {
    unsigned long long u;
    double d;
  } v;
  v.d = d;
  return v.u;
}

/* the scale of a quantity whose largest |value| has the bits maxbits
   (non-negative doubles order as their bits) */
GCUBA_HD static inline int x_scale(unsigned long long maxbits)
{
  const double m = bits_double(maxbits);
  int e;
  if (!(m <= 1.7976931348623157e308)) return X_NONFINITE;
  if (m == 0) return 0;
  frexp(m, &e);
  return e - 93;
}

/* a scale as two factors f1 f2 = 2^-s (each a double even where 2^-s is
   not), for the conversions of a kernel */
typedef struct {
  double f1, f2;
  int ok;
} xscale;

GCUBA_HD static inline xscale x_prep(unsigned long long maxbits)
{
  const int s = x_scale(maxbits), k = s == X_NONFINITE ? 0 : -s;
  xscale p;
  p.ok = s != X_NONFINITE;
  p.f1 = ldexp(1.0, k / 2);
  p.f2 = ldexp(1.0, k - k / 2);
  return p;
}

/* x in units 2^s, rounded to the nearest integer (the scalings are exact
   but in the subnormal range, the same on every GPU) */
GCUBA_HD static inline x128 x_from(double x, xscale p)
{
  x128 r;
  double y, h;
  r.lo = r.hi = 0;
  if (!p.ok) return r;
  y = fabs(x) * p.f1 * p.f2; /* < 2^93 */
  h = floor(y * 0x1p-64);
  r.hi = (unsigned long long)h;
  r.lo = (unsigned long long)rint(y - h * 0x1p64); /* exact difference */
  return x < 0 ? x_neg(r) : r;
}

GCUBA_HD static inline double x_double(x128 v, int s)
{
  const int neg = (long long)v.hi < 0;
  double d;
  if (s == X_NONFINITE) return NAN;
  if (neg) v = x_neg(v);
  d = ldexp((double)v.hi, 64) + (double)v.lo;
  d = ldexp(d, s);
  return neg ? -d : d;
}

/* host staging of the exchanges through MPI: pinned memory where CUDA
   gives it (its copies run at full speed and asynchronously), else
   malloc'ed; it grows by half again, never shrinks, keeps no contents */
typedef struct {
  unsigned char *p;
  size_t cap;
  int pinned;
} hostbuf;

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
static int hostbuf_grow(hostbuf *b, size_t n)
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

/* Leaves, structure of arrays: lower corners, widths, results.  Widths
   are powers of two while every split is a bisection: wk holds the
   exponent, w = 2^-wk, which takes a quarter of the memory of a double
   and is exact.  A call whose regions are cut off the middle (gcuba/cut.h:
   its scan found a feature) holds them as doubles, w, from its first
   split on (gpu.wd); the other pointer is NULL. */
typedef struct {
  double *lo, *avg, *err;
  double *w;
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
  /* exact sums: the largest |avg_c|, |err_c| (bits) [2*MAXCOMP], the
     sums (XS_*), both after dsum's histogram; the blocks' parts
     [RED_BLOCKS*2*MAXCOMP]; hx mirrors dmax and dxs in hbuf (HX_*); hmax:
     the scales' maxima of this iteration on the host */
  unsigned long long *dmax, *hx;
  x128 *dxs, *dxpart;
  unsigned long long hmax[2 * GCUBA_CUHRE_GPU_MAXCOMP];
  /* the distributed store (collective calls): global leaves gn, of which
     gnold are evaluated; this member's leaves [0, seg) are its share of
     the kept ones, [seg, n) of the new ones, gfirst the place of its first
     new leaf in the one-GPU order; xs, xr the records sent and received
     (xcap records of rbytes), hs, hr their host copies (MPI) */
  int dist;
  long long gn, gnold, seg, gfirst;
  int kbytes, pbytes, rbytes;
  unsigned char *xs, *xr;
  long long xscap, xrcap;
  hostbuf hs, hr;
  long long *hg;            /* [size * HG_REC] gathered records */
  long long *plan;          /* [PLAN_PER * size] */
  int hgsize;               /* the members hg and plan have room for */
  /* the replicated store of a collective call (before its regions outgrow
     one GPU): the new regions' results of every member, staged on the
     host (MPI), and the shares */
  hostbuf xh;
  long long *xcnt;          /* [2 * members] */
  int xcntcap;
  long long repmax;         /* the fewest regions a member holds: a
                               replicated store beyond it is distributed
                               (-1: not agreed yet) */
  /* the search for where to cut (gcuba/cut.h), one block allocated at
     its first use (sbuf): up to GCUBA_CUT_MAXSEARCH regions' corners and
     widths [j*ndim + d], cuts and axes, and the search's evaluations and
     status (stail[0], stail[1]); the cube's scan lays out its few boxes
     in the same block (search); sh: its pinned host copy */
  void *sbuf;
  double *slo, *sw, *scut;
  int *sax;
  unsigned long long *stail;
  hostbuf sh;
  int wd; /* widths as doubles (darrays) */
} gpu;

/* hx: the maxima at HX_MAX, the sums of eval, hist and apply after */
#define XS_SUM 0
#define XS_REL (2 * GCUBA_CUHRE_GPU_MAXCOMP)
#define XS_FIN (3 * GCUBA_CUHRE_GPU_MAXCOMP)
#define XS_N (5 * GCUBA_CUHRE_GPU_MAXCOMP + 2) /* XS_FIN: then the split
                                                  and kept counts */
#define HX_MAX 0
#define HX_XS (2 * GCUBA_CUHRE_GPU_MAXCOMP)
#define HG_REC (GCUBA_HIST_BINS + 4 * GCUBA_CUHRE_GPU_MAXCOMP + 4)
#define PLAN_PER 20

enum { KEEP = GCUBA_LEAF_KEEP, FIN = GCUBA_LEAF_FIN, SPLIT = GCUBA_LEAF_SPLIT };
/* dsum (device) and its host mirror hbuf: the sums of eval as doubles
   [2*ncomp] at 0 (what the hint's histogram forms its budget from), the
   status at DS_MISC; then the histogram [BINS] */
#define DSUM_DOUBLES 64
#define DS_MISC (2 * GCUBA_CUHRE_GPU_MAXCOMP)
#define HBUF_DOUBLES (DSUM_DOUBLES + GCUBA_HIST_BINS)
#define HBUF_HIST DSUM_DOUBLES
/* after them the maxima and the exact sums (hx and dmax, dxs below): one
   block, so that one copy brings back what a step needs */
#define RES_BYTES                                                      \
  (sizeof(double) * HBUF_DOUBLES +                                     \
   sizeof(unsigned long long) * (2 * GCUBA_CUHRE_GPU_MAXCOMP) +         \
   sizeof(x128) * XS_N)
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

static void free_arrays(darrays *a)
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
  CK(cudaMalloc(&a->lo, sizeof(double) * cap * t->ndim));
  if (t->wd)
    CK(cudaMalloc(&a->w, sizeof(double) * cap * t->ndim));
  else
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
  CK(cudaMalloc(&t->cls, cap + 1));
  CK(cudaMalloc(&t->mark, sizeof(long long) * (cap + 1)));
  CK(cudaMalloc(&t->pos, sizeof(long long) * (cap + 1)));
  t->tempbytes = scan_bytes(cap + 1);
  CK(cudaMalloc(&t->dtemp, t->tempbytes));
  return 0;
}

/* The distributed store: room for n leaves, nothing kept (its callers
   have no live leaves, or have packed them into xs, which stays: the
   other members read it). */
static int reserve_dist(gpu *t, long long n)
{
  const long long cap = grown(t, n);
  /* (a member may hold no leaf: its buffers exist all the same) */
  if (t->cap > 0 && n <= t->cap) return 0;
  free_store(t);
  if (alloc_arrays(t, &t->a, cap)) return t->c->fail;
  CK(cudaMalloc(&t->pavg, sizeof(double) * (cap / 2 + 1) * t->ncomp));
  CK(cudaMalloc(&t->perr, sizeof(double) * (cap / 2 + 1) * t->ncomp));
  if (alloc_marks(t, cap)) return t->c->fail;
  CK(cudaMalloc(&t->xr, (size_t)t->rbytes * cap));
  t->xrcap = cap;
  t->cap = cap;
  gcuba_log(t->c, 2, "device region store: %lld regions", cap);
  return 0;
}

/* the send records' room for the capacity (after an exchange) */
static int reserve_xs(gpu *t)
{
  if (t->xscap >= t->cap) return 0;
  cudaFree(t->xs);
  t->xs = NULL;
  t->xscap = 0;
  CK(cudaMalloc(&t->xs, (size_t)t->rbytes * t->cap));
  t->xscap = t->cap;
  return 0;
}

/* make room for n leaves: new buffers, the live data copied over */
static int reserve(gpu *t, long long n)
{
  long long cap, keep = t->n;
  darrays na;
  double *np2, *ne2;
  if (t->dist) {
    int rc = reserve_dist(t, n);
    return rc ? rc : reserve_xs(t);
  }
  if (n <= t->cap) return 0;
  cap = grown(t, n);
  memset(&na, 0, sizeof na);
  if (alloc_arrays(t, &na, cap)) {
    free_arrays(&na);
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
  free_store(t);
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
      free_store(t);
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
  /* leave room for CUB's temporaries and the rest: 85% of what is free,
     plus what this context holds already */
  /* a collective call may distribute its store: its room is sized for
     that (the replicated store takes two thirds of it) */
  per = region_bytes(t->ndim, t->ncomp, c->coll != NULL);
  fit = (long long)(0.85 * (double)freeb / per) + t->cap;
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
    free_store(t);
  }
  if (fresh &&
      (GCUBA_CK(c, cudaMalloc(&t->drule, sizeof *r)) ||
       GCUBA_CK(c, cudaMalloc(&t->dsum, RES_BYTES)) ||
       GCUBA_CK(c, cudaMalloc(&t->dticket, sizeof(unsigned int))) ||
       GCUBA_CK(c, cudaMemsetAsync(t->dticket, 0, sizeof(unsigned int),
                                   t->stream)) ||
       GCUBA_CK(c, cudaMalloc(&t->dstatus, sizeof(int))) ||
       GCUBA_CK(c, cudaMallocHost(&t->hbuf, RES_BYTES)) ||
       GCUBA_CK(c, cudaMalloc(&t->dxpart,
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
static unsigned nblocks(long long n, int threads)
{
  long long b = (n + threads - 1) / threads;
  return (unsigned)(b < 1 ? 1 : b);
}

/* The width representation wd (darrays) of a store with no live leaves
   (a call starting or loading): the arrays reallocated when it changes;
   0 or a fail code */
static int set_widths(gpu *t, int wd)
{
  if (t->wd == wd) return 0;
  free_store(t);
  t->wd = wd;
  return 0;
}

/* exponent widths to doubles, in place of wk */
__global__ void k_widths(long long n, const unsigned short *wk, double *w)
{
  const long long j = (long long)blockIdx.x * blockDim.x + threadIdx.x;
  if (j < n) w[j] = ldexp(1.0, -(int)wk[j]);
}

/* the leaves' widths from exponents to doubles (the call's first split
   after its scan found a feature: gcuba/cut.h); 0 or a fail code */
static int to_doubles(gpu *t)
{
  const long long cap = t->cap, nw = t->n * t->ndim;
  double *wa = NULL, *wb = NULL;
  if (t->wd) return 0;
  if (cap > 0) {
    CK(cudaMalloc(&wa, sizeof(double) * cap * t->ndim));
    if (t->b.wk && cudaMalloc(&wb, sizeof(double) * cap * t->ndim)) {
      cudaFree(wa);
      return GCUBA_CK(t->c, cudaErrorMemoryAllocation);
    }
    if (nw > 0) {
      k_widths<<<nblocks(nw, 256), 256, 0, t->stream>>>(nw, t->a.wk, wa);
      CKL("k_widths");
    }
    CK(cudaStreamSynchronize(t->stream));
  }
  cudaFree(t->a.wk);
  cudaFree(t->b.wk);
  t->a.wk = t->b.wk = NULL;
  t->a.w = wa;
  t->b.w = wb;
  t->wd = 1;
  gcuba_log(t->c, 2, "region widths as doubles from here on (cuts)");
  return 0;
}

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
  if ((rc = set_widths(t, 0))) return rc;
  if (t->dist) {
    /* this member's share of them */
    long long a, b;
    gcuba_coll_share(t->c->coll, n, &a, &b, NULL);
    t->gfirst = a;
    n = b - a;
    t->n = 0;
  }
  if ((rc = reserve(t, n))) return rc;
  if (n > 0) {
    k_init<<<nblocks(n, 256), 256, 0, t->stream>>>(n, t->gfirst, t->ndim, dd,
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

static long long nnew(void *ctx)
{
  const gpu *t = (const gpu *)ctx;
  return t->dist ? t->gn - t->gnold : t->n - t->nold;
}

/* the sum of the block's threads' v (sl, sh: shared scratch), in thread
   0's result */
__device__ static x128 block_xsum(x128 v, unsigned long long *sl,
                                  unsigned long long *sh)
{
  x128 r;
  sl[threadIdx.x] = v.lo;
  sh[threadIdx.x] = v.hi;
  __syncthreads();
  for (int h = blockDim.x / 2; h > 0; h /= 2) {
    if (threadIdx.x < h) {
      x128 a, b;
      a.lo = sl[threadIdx.x];
      a.hi = sh[threadIdx.x];
      b.lo = sl[threadIdx.x + h];
      b.hi = sh[threadIdx.x + h];
      x_add(&a, b);
      sl[threadIdx.x] = a.lo;
      sh[threadIdx.x] = a.hi;
    }
    __syncthreads();
  }
  r.lo = sl[0];
  r.hi = sh[0];
  __syncthreads(); /* before the scratch is written again */
  return r;
}

/* The block's sums of v[0..nv) (one x128 per thread) go to
   part[blockIdx.x * nv + j]; the last block to finish adds the parts into
   out[j] (threads j < nv) and rearms the ticket.  Integer sums: the order
   does not matter. */
__device__ static int xreduce(const x128 *v, int nv, x128 *part, x128 *out,
                              unsigned int *ticket)
{
  __shared__ unsigned long long sl[RED_THREADS], sh[RED_THREADS];
  __shared__ int last;
  for (int j = 0; j < nv; ++j) {
    const x128 b = block_xsum(v[j], sl, sh);
    if (threadIdx.x == 0) part[blockIdx.x * nv + j] = b;
  }
  __threadfence();
  if (threadIdx.x == 0) last = atomicAdd(ticket, 1u) == gridDim.x - 1;
  __syncthreads();
  if (!last) return 0;
  __threadfence();
  /* the last block adds the parts, every thread some blocks' (read past
     L1: other blocks wrote them) */
  for (int j = 0; j < nv; ++j) {
    const unsigned long long *p = (const unsigned long long *)part;
    x128 acc;
    acc.lo = acc.hi = 0;
    for (unsigned b = threadIdx.x; b < gridDim.x; b += blockDim.x) {
      x128 q;
      q.lo = __ldcg(p + 2 * (b * nv + j));
      q.hi = __ldcg(p + 2 * (b * nv + j) + 1);
      x_add(&acc, q);
    }
    acc = block_xsum(acc, sl, sh);
    if (threadIdx.x == 0) out[j] = acc;
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

/* the call's cut map (gcuba/cut.h), or an empty one */
static gcuba_cutmap cutmap(const gpu *t)
{
  gcuba_cutmap m;
  if (t->c->cutmap) return *t->c->cutmap;
  gcuba_cutmap_init(&m);
  return m;
}

/* The two-level error of the new pairs (children 2k, 2k+1 of parent k
   from `first' on, when pavg != NULL; in one dimension the
   Gauss-Kronrod check, gcuba_gk_twolevel), and the largest |avg_c| and
   |err_c| of all leaves into mx (the scales of the sums; mx cleared
   before) */
__global__ void k_twolevel(long long n, int ndim, int ncomp, double *avg,
                           double *err, long long first, const double *pavg,
                           const double *perr, unsigned long long *mx,
                           const double *lo, const double *w,
                           const gcuba_cutmap cm)
{
  __shared__ unsigned long long sm[2 * GCUBA_CUHRE_GPU_MAXCOMP];
  unsigned long long v[2 * GCUBA_CUHRE_GPU_MAXCOMP];
  for (int c = 0; c < 2 * ncomp; ++c) v[c] = 0;
  if (threadIdx.x < 2 * ncomp) sm[threadIdx.x] = 0;
  __syncthreads();
  for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < n;
       i += (long long)gridDim.x * blockDim.x) {
    int m = 1;
    if (pavg && i >= first) {
      long long k = (i - first) >> 1;
      if ((i - first) & 1) continue; /* done with its sibling */
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
    /* a new region that straddles a known feature: its error is at least
       its integral until it is cut there (gcuba/cut.h) */
    if (cm.nfeat && w && i >= first)
      for (int j = 0; j < m; ++j)
        gcuba_cuhre_floor(&cm, ndim, lo + (i + j) * ndim, w + (i + j) * ndim,
                          avg + (i + j) * ncomp, err + (i + j) * ncomp,
                          ncomp);
    for (int j = 0; j < m; ++j)
      for (int c = 0; c < ncomp; ++c) {
        const unsigned long long a = double_bits(fabs(avg[(i + j) * ncomp + c]));
        const unsigned long long e = double_bits(fabs(err[(i + j) * ncomp + c]));
        if (a > v[c]) v[c] = a;
        if (e > v[ncomp + c]) v[ncomp + c] = e;
      }
  }
  for (int c = 0; c < 2 * ncomp; ++c)
    if (v[c]) atomicMax(&sm[c], v[c]);
  __syncthreads();
  if (threadIdx.x < 2 * ncomp && sm[threadIdx.x])
    atomicMax(&mx[threadIdx.x], sm[threadIdx.x]);
}

/* out[c] = sum_i avg[i*ncomp + c], out[ncomp + c] = the same of err,
   exact (scales from mx), and as doubles into outd; the last block also
   moves the status word to outd[DS_MISC] (clearing it) and clears the
   histogram */
__global__ void k_sums(long long n, int ncomp, const double *avg,
                       const double *err, const unsigned long long *mx,
                       int *status, long long *count, x128 *part, x128 *out,
                       double *outd, unsigned int *ticket)
{
  x128 v[2 * GCUBA_CUHRE_GPU_MAXCOMP];
  xscale sc[2 * GCUBA_CUHRE_GPU_MAXCOMP];
  for (int q = 0; q < 2 * ncomp; ++q) {
    sc[q] = x_prep(mx[q]);
    v[q].lo = v[q].hi = 0;
  }
  for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < n;
       i += (long long)gridDim.x * blockDim.x)
    for (int c = 0; c < ncomp; ++c) {
      x_add(&v[c], x_from(avg[i * ncomp + c], sc[c]));
      x_add(&v[ncomp + c], x_from(err[i * ncomp + c], sc[ncomp + c]));
    }
  if (xreduce(v, 2 * ncomp, part, out, ticket)) {
    if (threadIdx.x < 2 * ncomp)
      outd[threadIdx.x] =
          x_double(out[threadIdx.x], x_scale(mx[threadIdx.x]));
    if (threadIdx.x == 0) {
      outd[DS_MISC] = (double)*status;
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

/* the class of leaf i (gcuba/cuhre_policy.h), and its key */
__device__ static int d_classify(const darrays a, long long i, int ncomp,
                                 const dclassify &cl, double *key)
{
  gcuba_classify k;
  int comp;
  k.relfinish = cl.relfinish;
  k.epsrel = cl.epsrel;
  k.epsabs = cl.epsabs;
  k.fin_thresh = cl.fin_thresh;
  k.split_thresh = cl.split_thresh;
  k.split_max = cl.split_max;
  k.budget = cl.budget;
  k.nocut = 0;
  return gcuba_cuhre_leaf(a.avg + i * ncomp, a.err + i * ncomp, ncomp, &k,
                          cl.budget, key, &comp);
}

/* hist: the errors of the leaves that relative-error finishing would
   finish, summed into out when relfinish, and the histogram of the others'
   keys (per block in shared memory, then added to count) */
__global__ void k_hist(long long n, int ncomp, darrays a, dclassify cl,
                       const double *sums, const unsigned long long *mx,
                       long long *count, x128 *part, x128 *out,
                       unsigned int *ticket)
{
  __shared__ unsigned int h[GCUBA_HIST_BINS];
  x128 v[GCUBA_CUHRE_GPU_MAXCOMP];
  xscale sc[GCUBA_CUHRE_GPU_MAXCOMP];
  if (cl.spec)
    for (int c = 0; c < ncomp; ++c)
      cl.budget[c] =
          gcuba_budget(cl.fin[c] + sums[c], cl.ceps[0], cl.ceps[1]);
  for (int j = threadIdx.x; j < GCUBA_HIST_BINS; j += blockDim.x) h[j] = 0;
  for (int c = 0; c < ncomp; ++c) {
    v[c].lo = v[c].hi = 0;
    sc[c] = x_prep(mx[ncomp + c]);
  }
  __syncthreads();
  for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < n;
       i += (long long)gridDim.x * blockDim.x) {
    double key = 0;
    int k = d_classify(a, i, ncomp, cl, &key);
    if (k == FIN)
      for (int c = 0; c < ncomp; ++c)
        x_add(&v[c], x_from(a.err[i * ncomp + c], sc[c]));
    else
      atomicAdd(&h[gcuba_hist_bin(key)], 1u);
  }
  __syncthreads();
  for (int j = threadIdx.x; j < GCUBA_HIST_BINS; j += blockDim.x)
    if (h[j]) atomicAdd((unsigned long long *)&count[j],
                        (unsigned long long)h[j]);
  if (cl.relfinish) xreduce(v, ncomp, part, out, ticket);
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

/* host side of the exact sums: the scale of quantity q this iteration,
   and x128 number k of the pinned mirror */
static int hscale(const gpu *t, int q) { return x_scale(t->hmax[q]); }

static x128 hxs(const gpu *t, int k)
{
  x128 v;
  v.lo = t->hx[HX_XS + 2 * k];
  v.hi = t->hx[HX_XS + 2 * k + 1];
  return v;
}

/* n x128 sums from the device at dxs + k to the mirror (queued) */
static int get_xs(gpu *t, int k, int n)
{
  CK(cudaMemcpyAsync(t->hx + HX_XS + 2 * k, t->dxs + k, sizeof(x128) * n,
                     cudaMemcpyDeviceToHost, t->stream));
  return 0;
}

/* The members' records of n long longs (this member's at hg + rank * n)
   gathered into hg; 0 or a fail code on every member */
static int gather_rec(gpu *t, int n)
{
  const int size = t->c->coll->size;
  int r;
  for (r = 0; r < size; ++r) t->plan[r] = n;
  if (n > HG_REC) return gcuba_fail(t->c, GCUBA_FAIL_PARAM, "record size");
  return gcuba_coll_gather(t->c, t->hg, t->plan, GCUBA_COLL_LL);
}

/* x128 number k of member r's record of n */
static x128 rec_x(const gpu *t, int r, int n, int k)
{
  x128 v;
  v.lo = (unsigned long long)t->hg[(size_t)r * n + 2 * k];
  v.hi = (unsigned long long)t->hg[(size_t)r * n + 2 * k + 1];
  return v;
}

static void put_x(gpu *t, int n, int k, x128 v)
{
  const size_t o = (size_t)t->c->coll->rank * n;
  t->hg[o + 2 * k] = (long long)v.lo;
  t->hg[o + 2 * k + 1] = (long long)v.hi;
}

/* the histogram counts in hbuf, relerr (as x128) in the mirror, into h
   and relerr; a distributed store adds every member's */
static int hist_out(gpu *t, int relfinish, gcuba_hist *h, double *relerr)
{
  const long long *cnt = (const long long *)&t->hbuf[HBUF_HIST];
  const int nc = t->ncomp;
  long long nrel = 0;
  int j, c, r, rc;
  memcpy(h->count, cnt, sizeof(long long) * GCUBA_HIST_BINS);
  if (t->dist) {
    const int n = GCUBA_HIST_BINS + 2 * nc, size = t->c->coll->size;
    long long *mine = t->hg + (size_t)t->c->coll->rank * n;
    memcpy(mine, cnt, sizeof(long long) * GCUBA_HIST_BINS);
    for (c = 0; c < nc; ++c)
      put_x(t, n, GCUBA_HIST_BINS / 2 + c, hxs(t, XS_REL + c));
    if ((rc = gather_rec(t, n))) return rc;
    for (j = 0; j < GCUBA_HIST_BINS; ++j)
      for (h->count[j] = 0, r = 0; r < size; ++r)
        h->count[j] += t->hg[(size_t)r * n + j];
    for (c = 0; c < nc; ++c) {
      x128 s;
      s.lo = s.hi = 0;
      for (r = 0; r < size; ++r)
        x_add(&s, rec_x(t, r, n, GCUBA_HIST_BINS / 2 + c));
      relerr[c] = relfinish ? x_double(s, hscale(t, nc + c)) : 0;
    }
  } else
    for (c = 0; c < nc; ++c)
      relerr[c] = relfinish ? x_double(hxs(t, XS_REL + c), hscale(t, nc + c))
                            : 0;
  for (j = 0; j < GCUBA_HIST_BINS; ++j) nrel += h->count[j];
  h->nrel = (t->dist ? t->gn : t->n) - nrel;
  return 0;
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
  int krc = 0, rc;
  t->spec = 0;
  if (hit) return hist_out(t, cl->relfinish, h, relerr);
  krc = GCUBA_CK(t->c, cudaMemsetAsync(t->dhcount, 0, sizeof(long long) *
                                                         GCUBA_HIST_BINS,
                                       t->stream));
  if (!krc) {
    k_hist<<<red_blocks(t->n), RED_THREADS, 0, t->stream>>>(
        t->n, t->ncomp, t->a, dcl_rel(t->c, cl), t->dsum, t->dmax,
        t->dhcount, t->dxpart, t->dxs + XS_REL, t->dticket);
    krc = GCUBA_CK_LAUNCH(t->c, "k_hist");
  }
  /* the histogram, the maxima and the sums: one copy */
  if (!krc)
    krc = GCUBA_CK(t->c, cudaMemcpyAsync(&t->hbuf[HBUF_HIST], t->dhcount,
                                         RES_BYTES - sizeof(double) *
                                                         HBUF_HIST,
                                         cudaMemcpyDeviceToHost, t->stream));
  if (!krc) krc = GCUBA_CK(t->c, cudaStreamSynchronize(t->stream));
  /* a distributed store's members agree before they exchange */
  if ((rc = t->dist ? gcuba_coll_status(t->c, krc) : krc)) return rc;
  return hist_out(t, cl->relfinish, h, relerr);
}

/* The driver announces the relative-error part of the next
   classification (its budget follows from the next eval's sums and
   finavg): eval computes that histogram on the way (one GPU: the budget
   of a distributed store needs every member's sums first) */
static void hint(void *ctx, const gcuba_classify *cl, const double *finavg)
{
  gpu *t = (gpu *)ctx;
  if (t->dist) return;
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
                            const double *w, const double *u, double *x)
{
  const long long j = (long long)blockIdx.x * blockDim.x + threadIdx.x;
  if (j >= n * np) return;
  const long long i = first + j / np;
  const int p = (int)(j % np);
  const double hw =
      wk ? ldexp(1.0, -1 - (int)wk[i]) : __dmul_rn(0.5, w[i]);
  x[j] = __dadd_rn(lo[i], __dmul_rn(hw, __dadd_rn(1.0, u[p])));
}

__global__ void k_gk_apply(long long first, long long n, int ncomp, int np,
                           const gcuba_rule *r, const double *f,
                           const unsigned short *wk, const double *w,
                           double *avg, double *err, int *dims)
{
  const long long j = (long long)blockIdx.x * blockDim.x + threadIdx.x;
  if (j >= n) return;
  const long long i = first + j;
  gcuba_rule_apply(r, ncomp, f + j * np * ncomp,
                   wk ? ldexp(1.0, -(int)wk[i]) : w[i], NULL, avg + i * ncomp,
                   err + i * ncomp, dims + i * ncomp);
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
  if (!krc && !k->allgatherv_dev && hostbuf_grow(&t->xh, bytes))
    krc = gcuba_fail(c, GCUBA_FAIL_NOMEM, "exchange buffers");
  if (!krc)
    krc = GCUBA_CK(c, cudaMemcpyAsync(t->hbuf, t->dstatus, sizeof(int),
                                      cudaMemcpyDeviceToHost, t->stream));
  havg = (double *)t->xh.p;
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

/* eval of a distributed store, after the rule kernels and k_twolevel
   (status krc): the members agree on the outcome and the scales, then
   add their exact sums.  Every member makes the same collective calls
   whatever fails, so none is left waiting. */
static int eval_dist(gpu *t, int krc, int timing, double *sumavg,
                     double *sumerr)
{
  gcuba_call *c = t->c;
  const int nc = t->ncomp, q2 = 2 * nc, n = 2 * q2;
  long long v[2 * GCUBA_CUHRE_GPU_MAXCOMP + 2];
  int rc, q, r, status = 0;
  if (!krc)
    krc = GCUBA_CK(c, cudaMemcpyAsync(t->hx + HX_MAX, t->dmax,
                                      sizeof(unsigned long long) * q2,
                                      cudaMemcpyDeviceToHost, t->stream));
  if (!krc)
    krc = GCUBA_CK(c, cudaMemcpyAsync(t->hbuf, t->dstatus, sizeof(int),
                                      cudaMemcpyDeviceToHost, t->stream));
  if (!krc) krc = GCUBA_CK(c, cudaStreamSynchronize(t->stream));
  if ((rc = gcuba_coll_status(c, krc))) return rc;
  memcpy(&status, t->hbuf, sizeof(int));
  for (q = 0; q < q2; ++q) v[q] = (long long)t->hx[HX_MAX + q];
  v[q2] = (status & GCUBA_ST_ABORT) != 0;
  v[q2 + 1] = (status & GCUBA_ST_NONFINITE) != 0;
  if ((rc = gcuba_coll_reduce_ll(c, v, q2 + 2, GCUBA_COLL_MAX))) return rc;
  if (v[q2]) return GCUBA_FAIL_ABORT;
  if (v[q2 + 1]) return GCUBA_FAIL_NAN;
  for (q = 0; q < q2; ++q)
    t->hmax[q] = t->hx[HX_MAX + q] = (unsigned long long)v[q];
  krc = GCUBA_CK(c, cudaMemcpyAsync(t->dmax, t->hx + HX_MAX,
                                    sizeof(unsigned long long) * q2,
                                    cudaMemcpyHostToDevice, t->stream));
  if (!krc) {
    k_sums<<<red_blocks(t->n), RED_THREADS, 0, t->stream>>>(
        t->n, nc, t->a.avg, t->a.err, t->dmax, t->dstatus, t->dhcount,
        t->dxpart, t->dxs + XS_SUM, t->dsum, t->dticket);
    krc = GCUBA_CK_LAUNCH(c, "k_sums");
  }
  if (!krc) krc = get_xs(t, XS_SUM, q2);
  if (!krc) krc = GCUBA_CK(c, cudaStreamSynchronize(t->stream));
  if (!krc && timing) {
    float ms = 0;
    krc = GCUBA_CK(c, cudaEventElapsedTime(&ms, t->ev[0], t->ev[1]));
    t->kms += ms;
  }
  if ((rc = gcuba_coll_status(c, krc))) return rc;
  for (q = 0; q < q2; ++q) put_x(t, n, q, hxs(t, XS_SUM + q));
  if ((rc = gather_rec(t, n))) return rc;
  for (q = 0; q < q2; ++q) {
    x128 s;
    s.lo = s.hi = 0;
    for (r = 0; r < c->coll->size; ++r) x_add(&s, rec_x(t, r, n, q));
    if (q < nc) sumavg[q] = x_double(s, hscale(t, q));
    else sumerr[q - nc] = x_double(s, hscale(t, q));
  }
  t->nold = t->n;
  t->gnold = t->gn;
  return 0;
}

static int eval(void *ctx, double *sumavg, double *sumerr)
{
  gpu *t = (gpu *)ctx;
  struct gcuba_cuhre_launch a;
  int status = 0, rc, c, krc = 0;
  long long ea = t->nold, eb = t->n; /* the new regions (of this member) */
  long long chunk = 1LL << 30;
  const double ceps[2] = {t->c->epsrel, t->c->epsabs};
  memset(&a, 0, sizeof a);
  a.ndim = t->ndim;
  a.ncomp = t->ncomp;
  a.lo = t->a.lo;
  a.wk = t->a.wk;
  a.w = t->a.w;
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
  /* the place of new leaf nold + j among the call's new leaves */
  const long long off = t->dist ? t->gfirst - t->gnold : 0;
  const long long gnew = t->dist ? t->gn - t->gnold : t->n - t->nold;
  if (t->c->coll && !t->dist) {
    /* a replicated store: this member evaluates its share */
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
          a.first, m, np, t->a.lo, t->a.wk, t->a.w, t->du, t->dx);
      if ((krc = GCUBA_CK_LAUNCH(t->c, "k_gk_points"))) break;
      rc = t->c->integrand->gpu->eval_points(1, t->ncomp, m * np, t->dx,
                                              t->df, t->duser, t->dstatus,
                                              t->stream);
      if (rc) {
        krc = GCUBA_CK(t->c, (cudaError_t)rc);
        break;
      }
      k_gk_apply<<<nblocks(m, 128), 128, 0, t->stream>>>(
          a.first, m, t->ncomp, np, t->drule, t->df, t->a.wk, t->a.w,
          t->a.avg, t->a.err, t->a.dims);
      krc = GCUBA_CK_LAUNCH(t->c, "k_gk_apply");
    }
  } else
    for (a.first = ea; a.first < eb && !krc; a.first += a.n) {
      /* the launch shape (warps per region, which sets the order of each
         region's sums) comes from the whole chunk of new regions this
         one belongs to, as one GPU would launch it, not from this
         member's share: the same bits for any number of GPUs */
      const long long rel = a.first - t->nold + off;
      const long long g0 = rel / chunk * chunk;
      const long long gn = gnew - g0 < chunk ? gnew - g0 : chunk;
      a.n = (eb < a.first + (g0 + gn - rel) ? eb : a.first + (g0 + gn - rel)) -
            a.first;
      a.wpr = warps_per_region(t, gn);
      rc = t->c->integrand->gpu->cuhre_eval(&a, t->stream);
      if (rc) krc = GCUBA_CK(t->c, (cudaError_t)rc);
    }
  if (timing && !krc)
    krc = GCUBA_CK(t->c, cudaEventRecord(t->ev[1], t->stream));
  if (t->c->coll && !t->dist) {
    /* every member gets every share's results */
    if ((rc = exchange(t, ea, eb, krc))) return rc;
    krc = 0;
  }
  /* (the maxima were cleared by the last k_mark, or by create) */
  if (!krc) {
    k_twolevel<<<red_blocks(t->n), RED_THREADS, 0, t->stream>>>(
        t->n, t->ndim, t->ncomp, t->a.avg, t->a.err, t->nold,
        t->haveparents ? t->pavg : NULL, t->perr, t->dmax, t->a.lo, t->a.w,
        cutmap(t));
    krc = GCUBA_CK_LAUNCH(t->c, "k_twolevel");
  }
  if (t->dist) return eval_dist(t, krc, timing, sumavg, sumerr);
  if (krc) return krc;
  k_sums<<<red_blocks(t->n), RED_THREADS, 0, t->stream>>>(
      t->n, t->ncomp, t->a.avg, t->a.err, t->dmax, t->dstatus, t->dhcount,
      t->dxpart, t->dxs + XS_SUM, t->dsum, t->dticket);
  CKL("k_sums");
  if (t->spec == 1) {
    /* the announced classification's histogram, in the same round trip */
    dclassify d = dcl_rel(t->c, &t->spec_cl);
    d.spec = 1;
    memcpy(d.fin, t->spec_fin, sizeof(double) * t->ncomp);
    d.ceps[0] = ceps[0];
    d.ceps[1] = ceps[1];
    k_hist<<<red_blocks(t->n), RED_THREADS, 0, t->stream>>>(
        t->n, t->ncomp, t->a, d, t->dsum, t->dmax, t->dhcount, t->dxpart,
        t->dxs + XS_REL, t->dticket);
    CKL("k_hist");
  }
  /* sums, status, histogram, maxima and exact sums: one copy */
  CK(cudaMemcpyAsync(t->hbuf, t->dsum, RES_BYTES, cudaMemcpyDeviceToHost,
                     t->stream));
  CK(cudaStreamSynchronize(t->stream));
  if (timing) {
    float ms = 0;
    CK(cudaEventElapsedTime(&ms, t->ev[0], t->ev[1]));
    t->kms += ms;
  }
  status = (int)t->hbuf[DS_MISC];
  if (status & GCUBA_ST_ABORT) return GCUBA_FAIL_ABORT;
  if (status & GCUBA_ST_NONFINITE) return GCUBA_FAIL_NAN;
  memcpy(t->hmax, t->hx + HX_MAX, sizeof(unsigned long long) * 2 * t->ncomp);
  for (c = 0; c < t->ncomp; ++c) {
    sumavg[c] = x_double(hxs(t, XS_SUM + c), hscale(t, c));
    sumerr[c] = x_double(hxs(t, XS_SUM + t->ncomp + c),
                         hscale(t, t->ncomp + c));
  }
  if (t->spec == 1) {
    /* the budget the kernel formed, from the sums it read (the same bits
       as sumavg's: else the driver's budget does not match, and hist
       computes the histogram again) */
    for (c = 0; c < t->ncomp; ++c)
      t->spec_budget[c] = gcuba_budget(t->spec_fin[c] + t->hbuf[c], ceps[0],
                                       ceps[1]);
    t->spec = 2;
  }
  t->nold = t->n;
  return 0;
}

/* apply: classify every leaf, mark it for the scan (one 64-bit word
   counts both: splits in the high half, kept leaves in the low half; the
   scan's entry n is the totals), and sum the finished leaves' estimates
   and errors into out, exactly */
__global__ void k_mark(long long n, int ncomp, darrays a, dclassify cl,
                       unsigned char *cls, long long *mark,
                       unsigned long long *mx, x128 *part, x128 *out,
                       unsigned int *ticket)
{
  x128 v[2 * GCUBA_CUHRE_GPU_MAXCOMP + 2];
  xscale sc[2 * GCUBA_CUHRE_GPU_MAXCOMP];
  for (int q = 0; q < 2 * ncomp; ++q) {
    v[q].lo = v[q].hi = 0;
    sc[q] = x_prep(mx[q]);
  }
  v[2 * ncomp].lo = v[2 * ncomp].hi = v[2 * ncomp + 1].lo =
      v[2 * ncomp + 1].hi = 0;
  /* mark[n] = 0: the scan's last entry is the totals */
  if (blockIdx.x == 0 && threadIdx.x == 0) mark[n] = 0;
  for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < n;
       i += (long long)gridDim.x * blockDim.x) {
    double key = 0;
    int k = d_classify(a, i, ncomp, cl, &key);
    cls[i] = (unsigned char)k;
    mark[i] = k == SPLIT ? MARK_SPLIT : k == KEEP ? MARK_KEEP : 0;
    v[2 * ncomp].lo += k == SPLIT;
    v[2 * ncomp + 1].lo += k == KEEP;
    if (k == FIN)
      for (int c = 0; c < ncomp; ++c) {
        x_add(&v[c], x_from(a.avg[i * ncomp + c], sc[c]));
        x_add(&v[ncomp + c], x_from(a.err[i * ncomp + c], sc[ncomp + c]));
      }
  }
  /* the last block: every block has read mx; clear it for the next eval */
  if (xreduce(v, 2 * ncomp + 2, part, out, ticket) &&
      threadIdx.x < 2 * ncomp)
    mx[threadIdx.x] = 0;
}

/* where split leaf i is cut: at a known feature it straddles (*q its
   fraction), else along its split axis, in the middle, or with search,
   *q = -1 - the component that chose the axis, for the search to find
   (gcuba/cut.h); the axis */
__device__ int d_cut(const darrays &a, long long i, int ndim, int ncomp,
                     const dclassify &cl, const gcuba_cutmap *cm, int search,
                     double *q)
{
  gcuba_cutmap none;
  int comp = 0, ax;
  gcuba_cuhre_key(a.err + i * ncomp, ncomp, cl.budget, &comp);
  /* widths as exponents: no feature known yet (to_doubles) */
  if (!a.w) {
    gcuba_cutmap_init(&none);
    cm = &none;
  }
  if (gcuba_cuhre_cut_leaf(cm, ndim, a.lo + i * ndim,
                           a.w ? a.w + i * ndim : NULL,
                           gcuba_rule_axis(a.dims[i * ncomp + comp]), search,
                           &ax, q))
    *q = -1.0 - comp;
  return ax;
}

/* the split leaves (not those past split_max) in split order j: corner,
   widths, axis and cut (or what the search is to find) */
__global__ void k_cutprep(long long n, int ndim, int ncomp, darrays a,
                          const unsigned char *cls, const long long *pos,
                          dclassify cl, const gcuba_cutmap cm, double *slo,
                          double *sw, int *sax, double *scut)
{
  const long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n || cls[i] != SPLIT) return;
  const long long j = pos[i] >> 32;
  if (cl.split_max >= 0 && j >= cl.split_max) return;
  sax[j] = d_cut(a, i, ndim, ncomp, cl, &cm, 1, &scut[j]);
  for (int d = 0; d < ndim; ++d) {
    slo[j * ndim + d] = a.lo[i * ndim + d];
    sw[j * ndim + d] = a.w[i * ndim + d];
  }
}

/* the records of a member's pairs (apply_dist) to the search's arrays
   (out) and their cuts back */
__global__ void k_pairs_cut(long long np, int ndim, int ncomp,
                            unsigned char *P, int pbytes, double *slo,
                            double *sw, int *sax, double *scut, int out)
{
  const long long j = (long long)blockIdx.x * blockDim.x + threadIdx.x;
  if (j >= np) return;
  double *lo = (double *)(P + j * pbytes), *w = lo + ndim;
  double *cut = w + ndim + 2 * ncomp;
  if (out) {
    for (int d = 0; d < ndim; ++d) {
      slo[j * ndim + d] = lo[d];
      sw[j * ndim + d] = w[d];
    }
    sax[j] = *(const int *)(cut + 1);
    scut[j] = *cut;
  } else
    *cut = scut[j];
}

/* the search's block, at its first use */
static size_t cut_bytes(const gpu *t)
{
  const size_t m = GCUBA_CUT_MAXSEARCH;
  return sizeof(double) * m * (2 * t->ndim + 1) + sizeof(int) * m +
         2 * sizeof(unsigned long long);
}

static int cut_buffers(gpu *t)
{
  const size_t m = GCUBA_CUT_MAXSEARCH;
  if (t->sbuf) return 0;
  CK(cudaMalloc(&t->sbuf, cut_bytes(t)));
  t->stail = (unsigned long long *)t->sbuf;
  t->slo = (double *)(t->stail + 2);
  t->sw = t->slo + m * t->ndim;
  t->scut = t->sw + m * t->ndim;
  t->sax = (int *)(t->scut + m);
  return 0;
}

/* the search for where to cut the nj regions of l (those with cut < 0),
   by the integrand's kernel (gcuba/cut_kernels.cuh), its evaluations and
   status in tail (zeroed first unless zeroed); the evaluations in *nev
   after one copy back (with the nback bytes from back on, when back);
   0 or a fail code */
static int cut_search(gpu *t, gcuba_cut_launch *l, unsigned long long *tail,
                      int zeroed, void *back, size_t nback,
                      unsigned long long *nev)
{
  unsigned long long *h;
  int rc;
  *nev = 0;
  if (l->n <= 0) return 0;
  if (!zeroed)
    CK(cudaMemsetAsync(tail, 0, 2 * sizeof *tail, t->stream));
  l->ndim = t->ndim;
  l->ncomp = t->ncomp;
  l->nev = tail;
  l->status = (int *)(tail + 1);
  l->userdata = t->duser;
  if ((rc = t->c->integrand->gpu->cuhre_cut(l, t->stream)))
    return GCUBA_CK(t->c, (cudaError_t)rc);
  if (!back) {
    back = tail;
    nback = 2 * sizeof *tail;
  }
  if (hostbuf_grow(&t->sh, nback))
    return gcuba_fail(t->c, GCUBA_FAIL_NOMEM, "search staging");
  CK(cudaMemcpyAsync(t->sh.p, back, nback, cudaMemcpyDeviceToHost,
                     t->stream));
  CK(cudaStreamSynchronize(t->stream));
  h = (unsigned long long *)(t->sh.p +
                             ((unsigned char *)tail - (unsigned char *)back));
  *nev = h[0];
  return (int)h[1] & GCUBA_ST_ABORT ? GCUBA_FAIL_ABORT : 0;
}

/* the regions k_cutprep (or k_pairs_cut) left in the block: searched */
static int cut_search_block(gpu *t, long long nj, unsigned long long *nev)
{
  gcuba_cut_launch l;
  memset(&l, 0, sizeof l);
  l.n = nj;
  l.lo = t->slo;
  l.w = t->sw;
  l.ax = t->sax;
  l.cut = t->scut;
  return cut_search(t, &l, t->stail, 0, NULL, 0, nev);
}

/* Kept leaves move to the front in order; split leaves become two
   children each after them.  With split_max >= 0 the splits past the
   first split_max are kept instead (numbered after the kept ones that
   precede them). */
__global__ void k_scatter(long long n, int ndim, int ncomp, darrays a,
                          darrays b, const unsigned char *cls,
                          const long long *pos, long long nkeep,
                          dclassify cl, double *pavg, double *perr,
                          const gcuba_cutmap cm, const double *scut,
                          const int *sax)
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
      if (b.wk) b.wk[k * ndim + d] = a.wk[i * ndim + d];
      else b.w[k * ndim + d] = a.w[i * ndim + d];
    }
    for (int c = 0; c < ncomp; ++c) {
      b.avg[k * ncomp + c] = a.avg[i * ncomp + c];
      b.err[k * ncomp + c] = a.err[i * ncomp + c];
      b.dims[k * ncomp + c] = a.dims[i * ncomp + c];
    }
  } else {
    long long par = sr, k = nkeep + 2 * par;
    double q;
    int ax;
    if (scut) {
      /* k_cutprep and the search */
      ax = sax[par];
      q = scut[par];
    } else
      ax = d_cut(a, i, ndim, ncomp, cl, &cm, 0, &q);
    if (b.wk) {
      /* exponents: no cuts, the middle */
      for (int d = 0; d < ndim; ++d) {
        const double l = a.lo[i * ndim + d];
        unsigned short e = a.wk[i * ndim + d];
        if (d == ax) {
          ++e;
          b.lo[k * ndim + d] = l;
          b.lo[(k + 1) * ndim + d] = l + ldexp(1.0, -(int)e);
        } else
          b.lo[k * ndim + d] = b.lo[(k + 1) * ndim + d] = l;
        b.wk[k * ndim + d] = b.wk[(k + 1) * ndim + d] = e;
      }
    } else
    for (int d = 0; d < ndim; ++d) {
      const double l = a.lo[i * ndim + d], e = a.w[i * ndim + d];
      if (d == ax) {
        /* as the CPU backend cuts */
        const double e1 = __dmul_rn(q, e);
        b.lo[k * ndim + d] = l;
        b.lo[(k + 1) * ndim + d] = __dadd_rn(l, e1);
        b.w[k * ndim + d] = e1;
        b.w[(k + 1) * ndim + d] = __dsub_rn(e, e1);
      } else {
        b.lo[k * ndim + d] = b.lo[(k + 1) * ndim + d] = l;
        b.w[k * ndim + d] = b.w[(k + 1) * ndim + d] = e;
      }
    }
    for (int c = 0; c < ncomp; ++c) {
      pavg[par * ncomp + c] = a.avg[i * ncomp + c];
      perr[par * ncomp + c] =
          gcuba_rule_parent_err(a.err[i * ncomp + c], a.dims[i * ncomp + c]);
    }
  }
}

/* ---- DISTRIBUTED STORE ------------------------------------------------------
   The one-GPU order of the leaves is: the kept leaves (evaluated before),
   then the new pairs of children.  Member r holds the r-th share
   (gcuba_coll_share) of each: its leaves [0, seg) and [seg, n).  In apply
   each member classifies its leaves; the scan of its marks gives, for
   each of its two segments A = [0, seg) and B = [seg, n), the splits and
   kept leaves it holds; every member gathers every member's counts, and
   from them alone computes the places the one GPU would give: the kept
   leaves (and the splits past split_max, demoted) go to [0, nkeep) in
   order, the split ones become the pairs [0, nsplit) after them.  A
   member's segment sends one contiguous range of each; the new shares
   decide who receives what.  Leaves travel as records: a kept one with
   its results, a split one as its parent (corner, widths, split axis,
   average and error), made into its two children where it arrives. */

/* where the leaves of a member's segment go (global places) */
struct dpack {
  long long offS[2], offK[2]; /* segment A, B: local scan rank + off =
                                 global rank */
  long long kb[2], kst[2];    /* kept record of global place g: staging
                                 index g - kb + kst */
  long long pb[2], pst[2];    /* pair g: P area index g - pb + pst */
  long long pbase;            /* bytes before the P area */
  long long seg;
  int kbytes, pbytes;
  int search;                 /* pairs to search: cut = -1 - comp */
  gcuba_cutmap cm;
};

/* record layouts (bytes): kept  lo[ndim] w[ndim] avg[nc] err[nc] dims[nc]
                           pair  lo[ndim] w[ndim] pavg[nc] perr[nc] cut
                                 axis */
__global__ void k_pack(long long n, int ndim, int ncomp, darrays a,
                       const unsigned char *cls, const long long *pos,
                       dclassify cl, dpack p, unsigned char *xs)
{
  const long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  const int k0 = cls[i];
  if (k0 == FIN) return;
  const int X = i >= p.seg;
  const long long ps = pos[i];
  const long long sr = (ps >> 32) + p.offS[X];
  const long long kr = (ps & 0xffffffffLL) + p.offK[X];
  const long long demoted =
      cl.split_max >= 0 && sr > cl.split_max ? sr - cl.split_max : 0;
  if (k0 == KEEP || (cl.split_max >= 0 && sr >= cl.split_max)) {
    unsigned char *r = xs + (kr + demoted - p.kb[X] + p.kst[X]) * p.kbytes;
    double *lo = (double *)r, *w = lo + ndim, *avg = w + ndim,
           *err = avg + ncomp;
    int *dims = (int *)(err + ncomp);
    for (int d = 0; d < ndim; ++d) {
      lo[d] = a.lo[i * ndim + d];
      w[d] = a.wk ? ldexp(1.0, -(int)a.wk[i * ndim + d])
                  : a.w[i * ndim + d];
    }
    for (int c = 0; c < ncomp; ++c) {
      avg[c] = a.avg[i * ncomp + c];
      err[c] = a.err[i * ncomp + c];
      dims[c] = a.dims[i * ncomp + c];
    }
  } else {
    unsigned char *r = xs + p.pbase + (sr - p.pb[X] + p.pst[X]) * p.pbytes;
    double *lo = (double *)r, *w = lo + ndim, *pavg = w + ndim,
           *perr = pavg + ncomp;
    double *cut = perr + ncomp;
    int *axis = (int *)(cut + 1);
    *axis = d_cut(a, i, ndim, ncomp, cl, &p.cm, p.search, cut);
    for (int d = 0; d < ndim; ++d) {
      lo[d] = a.lo[i * ndim + d];
      w[d] = a.wk ? ldexp(1.0, -(int)a.wk[i * ndim + d])
                  : a.w[i * ndim + d];
    }
    for (int c = 0; c < ncomp; ++c) {
      pavg[c] = a.avg[i * ncomp + c];
      perr[c] =
          gcuba_rule_parent_err(a.err[i * ncomp + c], a.dims[i * ncomp + c]);
    }
  }
}

/* the received records: nk kept leaves, then np pairs (from byte pbase)
   made into their children after the kept leaves */
__global__ void k_unpack(long long nk, long long np, int ndim, int ncomp,
                         const unsigned char *xr, long long pbase,
                         int kbytes, int pbytes, darrays a, double *pavg,
                         double *perr)
{
  const long long j = (long long)blockIdx.x * blockDim.x + threadIdx.x;
  if (j >= nk + np) return;
  if (j < nk) {
    const unsigned char *r = xr + j * kbytes;
    const double *lo = (const double *)r, *w = lo + ndim, *avg = w + ndim,
                 *err = avg + ncomp;
    const int *dims = (const int *)(err + ncomp);
    for (int d = 0; d < ndim; ++d) {
      a.lo[j * ndim + d] = lo[d];
      if (a.wk) a.wk[j * ndim + d] = (unsigned short)-ilogb(w[d]);
      else a.w[j * ndim + d] = w[d];
    }
    for (int c = 0; c < ncomp; ++c) {
      a.avg[j * ncomp + c] = avg[c];
      a.err[j * ncomp + c] = err[c];
      a.dims[j * ncomp + c] = dims[c];
    }
  } else {
    const long long q = j - nk, k = nk + 2 * q;
    const unsigned char *r = xr + pbase + q * pbytes;
    const double *lo = (const double *)r, *w = lo + ndim, *pa = w + ndim,
                 *pe = pa + ncomp;
    const double cut = pe[ncomp];
    const int ax = *(const int *)(pe + ncomp + 1);
    if (a.wk) {
      /* exponents (records carry doubles): no cuts, the middle */
      for (int d = 0; d < ndim; ++d) {
        const double l = lo[d];
        unsigned short e = (unsigned short)-ilogb(w[d]);
        if (d == ax) {
          ++e;
          a.lo[k * ndim + d] = l;
          a.lo[(k + 1) * ndim + d] = l + ldexp(1.0, -(int)e);
        } else
          a.lo[k * ndim + d] = a.lo[(k + 1) * ndim + d] = l;
        a.wk[k * ndim + d] = a.wk[(k + 1) * ndim + d] = e;
      }
    } else
    for (int d = 0; d < ndim; ++d) {
      const double l = lo[d], e = w[d];
      if (d == ax) {
        /* as k_scatter */
        const double e1 = __dmul_rn(cut, e);
        a.lo[k * ndim + d] = l;
        a.lo[(k + 1) * ndim + d] = __dadd_rn(l, e1);
        a.w[k * ndim + d] = e1;
        a.w[(k + 1) * ndim + d] = __dsub_rn(e, e1);
      } else {
        a.lo[k * ndim + d] = a.lo[(k + 1) * ndim + d] = l;
        a.w[k * ndim + d] = a.w[(k + 1) * ndim + d] = e;
      }
    }
    for (int c = 0; c < ncomp; ++c) {
      pavg[q * ncomp + c] = pa[c];
      perr[q * ncomp + c] = pe[c];
    }
  }
}

/* one part of the exchange: every member s sends the global range
   [b[s], b[s] + cnt[s]) of records of rb bytes, found in its staging at
   byte soff0[s] + (g - b[s]) rb; member r receives the part of
   [w[r], w[r + 1]) at byte roff0 + (g - w[r]) rb.  Plans only; xfer
   moves them. */
static void plan_part(const gpu *t, const long long *b, const long long *cnt,
                      long long soff0, const long long *w, long long roff0,
                      long long rb, long long *scnt, long long *soff,
                      long long *rcnt, long long *roff)
{
  const int size = t->c->coll->size, me = t->c->coll->rank;
  int r;
  for (r = 0; r < size; ++r) {
    /* what this member sends to r */
    long long lo = b[me] > w[r] ? b[me] : w[r];
    long long hi = b[me] + cnt[me] < w[r + 1] ? b[me] + cnt[me] : w[r + 1];
    scnt[r] = hi > lo ? (hi - lo) * rb : 0;
    soff[r] = hi > lo ? soff0 + (lo - b[me]) * rb : 0;
    /* what it receives from r */
    lo = b[r] > w[me] ? b[r] : w[me];
    hi = b[r] + cnt[r] < w[me + 1] ? b[r] + cnt[r] : w[me + 1];
    rcnt[r] = hi > lo ? (hi - lo) * rb : 0;
    roff[r] = hi > lo ? roff0 + (lo - w[me]) * rb : 0;
  }
}

/* move one planned part from xs to xr: between the GPUs of a team
   directly, else through host copies hs and hr (which the caller filled
   from xs, and copies to xr) */
static int xfer(gpu *t, const long long *scnt, const long long *soff,
                const long long *rcnt, const long long *roff)
{
  gcuba_call *c = t->c;
  if (c->coll->alltoallv_dev) {
    const double t0 = gcuba_now_ms();
    const int rc = c->coll->alltoallv_dev(c->coll->ctx, t->xs, scnt, soff,
                                          t->xr, rcnt, roff, t->stream);
    c->coll_ms += gcuba_now_ms() - t0;
    ++c->coll_ops;
    if (rc)
      return gcuba_fail(c, GCUBA_FAIL_CUDA, "copies between the %d GPUs",
                        c->coll->size);
    return 0;
  }
  return gcuba_coll_alltoallv(c, t->hs.p, scnt, soff, t->hr.p, rcnt, roff);
}

static int apply_dist(gpu *t, const gcuba_classify *cl, double *finavg,
                      double *finerr)
{
  gcuba_call *c = t->c;
  const int size = c->coll->size, me = c->coll->rank, nc = t->ncomp;
  const int q2 = 2 * nc, nrec = 4 + 2 * q2;
  const dclassify d = dcl(c, cl);
  const long long sm = cl->split_max;
  size_t bytes = t->tempbytes;
  long long *P = t->plan, *S[2], *K[2], *kb[2], *kn[2], *pb[2], *pn[2];
  long long *kw = P + 12 * (size + 1), *pw = kw + (size + 1);
  long long *scnt = pw + (size + 1), *soff = scnt + size,
            *rcnt = soff + size, *roff = rcnt + size;
  long long sp = 0, kp = 0, nsplit0, nsplit, nkeep, nk, npair, sendb, recvb;
  unsigned long long cutnev = 0;
  long long tot[2] = {0, 0};
  int krc = 0, rc, X, r, q;
  dpack pk;
  for (X = 0; X < 2; ++X) {
    S[X] = P + (6 * X + 0) * (size + 1);
    K[X] = P + (6 * X + 1) * (size + 1);
    kb[X] = P + (6 * X + 2) * (size + 1);
    kn[X] = P + (6 * X + 3) * (size + 1);
    pb[X] = P + (6 * X + 4) * (size + 1);
    pn[X] = P + (6 * X + 5) * (size + 1);
  }
  /* widths as doubles once the scan found a feature (as apply: a store
     distributed from its start) */
  krc = !t->wd && c->cutmap && c->cutmap->nfeat ? to_doubles(t) : 0;
  /* classify, sum the finished leaves, scan the marks */
  if (!krc) {
    k_mark<<<red_blocks(t->n), RED_THREADS, 0, t->stream>>>(
        t->n, nc, t->a, d, t->cls, t->mark, t->dmax, t->dxpart,
        t->dxs + XS_FIN, t->dticket);
    krc = GCUBA_CK_LAUNCH(c, "k_mark");
  }
  if (!krc)
    krc = GCUBA_CK(c, cub::DeviceScan::ExclusiveSum(t->dtemp, bytes, t->mark,
                                                    t->pos, (int)(t->n + 1),
                                                    t->stream));
  if (!krc)
    krc = GCUBA_CK(c, cudaMemcpyAsync(&tot[0], t->pos + t->seg,
                                      sizeof(long long),
                                      cudaMemcpyDeviceToHost, t->stream));
  if (!krc)
    krc = GCUBA_CK(c, cudaMemcpyAsync(&tot[1], t->pos + t->n,
                                      sizeof(long long),
                                      cudaMemcpyDeviceToHost, t->stream));
  if (!krc) krc = get_xs(t, XS_FIN, q2);
  if (!krc) krc = GCUBA_CK(c, cudaStreamSynchronize(t->stream));
  if ((rc = gcuba_coll_status(c, krc))) return rc;
  /* every member's counts per segment, and finished sums */
  {
    long long *mine = t->hg + (size_t)me * nrec;
    mine[0] = tot[0] >> 32;
    mine[1] = tot[0] & 0xffffffffLL;
    mine[2] = (tot[1] >> 32) - mine[0];
    mine[3] = (tot[1] & 0xffffffffLL) - mine[1];
    for (q = 0; q < q2; ++q) put_x(t, nrec, 2 + q, hxs(t, XS_FIN + q));
  }
  if ((rc = gather_rec(t, nrec))) return rc;
  for (X = 0; X < 2; ++X)
    for (r = 0; r < size; ++r) {
      S[X][r] = t->hg[(size_t)r * nrec + 2 * X];
      K[X][r] = t->hg[(size_t)r * nrec + 2 * X + 1];
    }
  /* the one-GPU places: segments in the order A0..A(size-1), B0.. */
  for (X = 0; X < 2; ++X)
    for (r = 0; r < size; ++r) {
      const long long sr0 = sp, kr0 = kp;
      long long dem = 0, pre = 0;
      if (sm >= 0) {
        pre = sr0 > sm ? sr0 - sm : 0;
        dem = (sr0 + S[X][r] > sm ? sr0 + S[X][r] - sm : 0) - pre;
      }
      kb[X][r] = kr0 + pre;
      kn[X][r] = K[X][r] + dem;
      pb[X][r] = sr0;
      pn[X][r] = S[X][r] - dem;
      if (r == me) {
        pk.offS[X] = sr0;
        pk.offK[X] = kr0;
      }
      sp += S[X][r];
      kp += K[X][r];
    }
  nsplit0 = sp;
  nsplit = sm >= 0 && nsplit0 > sm ? sm : nsplit0;
  nkeep = kp + (nsplit0 - nsplit);
  /* the new shares */
  gcuba_coll_share(c->coll, nkeep, &kw[0], &kw[1], scnt);
  for (kw[0] = 0, r = 0; r < size; ++r) kw[r + 1] = kw[r] + scnt[r];
  gcuba_coll_share(c->coll, nsplit, &pw[0], &pw[1], scnt);
  for (pw[0] = 0, r = 0; r < size; ++r) pw[r + 1] = pw[r] + scnt[r];
  nk = kw[me + 1] - kw[me];
  npair = pw[me + 1] - pw[me];
  /* local ranks of segment B count from the segment's start */
  pk.offS[1] -= S[0][me];
  pk.offK[1] -= K[0][me];
  pk.seg = t->seg;
  pk.kbytes = t->kbytes;
  pk.pbytes = t->pbytes;
  for (X = 0; X < 2; ++X) {
    pk.kb[X] = kb[X][me];
    pk.pb[X] = pb[X][me];
  }
  pk.kst[0] = 0;
  pk.kst[1] = kn[0][me];
  pk.pst[0] = 0;
  pk.pst[1] = pn[0][me];
  pk.pbase = (kn[0][me] + kn[1][me]) * t->kbytes;
  pk.cm = cutmap(t);
  pk.search = c->cutmap && !cl->nocut && nsplit > 0 &&
              gcuba_cut_searching(&pk.cm, nsplit);
  sendb = pk.pbase + (pn[0][me] + pn[1][me]) * t->pbytes;
  recvb = nk * t->kbytes + npair * t->pbytes;
  if (t->n > 0) {
    k_pack<<<nblocks(t->n, 256), 256, 0, t->stream>>>(
        t->n, t->ndim, nc, t->a, t->cls, t->pos, d, pk, t->xs);
    krc = GCUBA_CK_LAUNCH(c, "k_pack");
  }
  if (!krc) krc = GCUBA_CK(c, cudaStreamSynchronize(t->stream));
  if (!krc && pk.search && pn[0][me] + pn[1][me] > 0) {
    /* this member's pairs searched for where to cut (gcuba/cut.h) */
    const long long npl = pn[0][me] + pn[1][me];
    unsigned char *P = t->xs + pk.pbase;
    if (!(krc = cut_buffers(t))) {
      k_pairs_cut<<<nblocks(npl, 256), 256, 0, t->stream>>>(
          npl, t->ndim, nc, P, t->pbytes, t->slo, t->sw, t->sax, t->scut, 1);
      krc = GCUBA_CK_LAUNCH(c, "k_pairs_cut");
    }
    if (!krc) krc = cut_search_block(t, npl, &cutnev);
    if (!krc) {
      k_pairs_cut<<<nblocks(npl, 256), 256, 0, t->stream>>>(
          npl, t->ndim, nc, P, t->pbytes, t->slo, t->sw, t->sax, t->scut, 0);
      krc = GCUBA_CK_LAUNCH(c, "k_pairs_cut");
    }
    if (!krc) krc = GCUBA_CK(c, cudaStreamSynchronize(t->stream));
  }
  /* room for the new leaves (the old ones are packed) */
  if (!krc && nk + 2 * npair > t->cap) {
    gcuba_log(c, 2, "growing the device region store to %lld",
              nk + 2 * npair);
    krc = reserve_dist(t, nk + 2 * npair);
  }
  if (!krc && !c->coll->alltoallv_dev) {
    /* through the host */
    if (hostbuf_grow(&t->hs, (size_t)sendb) ||
        hostbuf_grow(&t->hr, (size_t)recvb))
      krc = gcuba_fail(c, GCUBA_FAIL_NOMEM, "exchange buffers");
    else if (sendb > 0 &&
             !(krc = GCUBA_CK(c, cudaMemcpyAsync(t->hs.p, t->xs, (size_t)sendb,
                                                 cudaMemcpyDeviceToHost,
                                                 t->stream))))
      krc = GCUBA_CK(c, cudaStreamSynchronize(t->stream));
  }
  if ((rc = gcuba_coll_status(c, krc))) return rc;
  if (pk.search) {
    /* the searches' evaluations, every member's */
    long long v = (long long)cutnev;
    if ((rc = gcuba_coll_reduce_ll(c, &v, 1, GCUBA_COLL_SUM))) return rc;
    c->neval += v;
  }
  /* the four parts: kept and pairs of segments A and B */
  for (X = 0; X < 2 && !krc; ++X) {
    plan_part(t, kb[X], kn[X], pk.kst[X] * t->kbytes, kw, 0, t->kbytes,
              scnt, soff, rcnt, roff);
    krc = xfer(t, scnt, soff, rcnt, roff);
  }
  for (X = 0; X < 2 && !krc; ++X) {
    plan_part(t, pb[X], pn[X], pk.pbase + pk.pst[X] * t->pbytes, pw,
              nk * t->kbytes, t->pbytes, scnt, soff, rcnt, roff);
    krc = xfer(t, scnt, soff, rcnt, roff);
  }
  if (krc) return krc; /* failed on every member */
  if (!c->coll->alltoallv_dev && recvb > 0)
    CK(cudaMemcpyAsync(t->xr, t->hr.p, (size_t)recvb, cudaMemcpyHostToDevice,
                       t->stream));
  if (nk + npair > 0) {
    k_unpack<<<nblocks(nk + npair, 256), 256, 0, t->stream>>>(
        nk, npair, t->ndim, nc, t->xr, nk * t->kbytes, t->kbytes, t->pbytes,
        t->a, t->pavg, t->perr);
    CKL("k_unpack");
  }
  /* the finished sums: every member's */
  for (q = 0; q < q2; ++q) {
    x128 s;
    s.lo = s.hi = 0;
    for (r = 0; r < size; ++r) x_add(&s, rec_x(t, r, nrec, 2 + q));
    if (q < nc) finavg[q] += x_double(s, hscale(t, q));
    else finerr[q - nc] += x_double(s, hscale(t, q));
  }
  t->n = nk + 2 * npair;
  t->nold = t->seg = nk;
  t->gn = nkeep + 2 * nsplit;
  t->gnold = nkeep;
  t->gfirst = nkeep + 2 * pw[me];
  t->haveparents = 1;
  return reserve_xs(t);
}

/* the limit of a replicated store, agreed by the members (collective) */
static int agree_repmax(gpu *t)
{
  if (t->repmax < 0) {
    long long v = t->maxregions;
    int rc = gcuba_coll_reduce_ll(t->c, &v, 1, GCUBA_COLL_MIN);
    if (rc) return rc;
    t->repmax = v;
  }
  return 0;
}

/* A replicated store whose next partition would not fit one GPU becomes
   a distributed one (after eval: every leaf evaluated, [0, seg) kept
   before, [seg, n) new): each member keeps its shares, in front, and the
   scatter buffer makes room for the exchange's. */
static int convert_dist(gpu *t)
{
  gcuba_call *c = t->c;
  const int unit = t->haveparents ? 2 : 1, nd = t->ndim, nc = t->ncomp;
  const long long nnew = (t->n - t->seg) / unit;
  long long ka, kb, na, nb, nk, nn, s1;
  darrays sw;
  gcuba_coll_share(c->coll, t->seg, &ka, &kb, NULL);
  gcuba_coll_share(c->coll, nnew, &na, &nb, NULL);
  nk = kb - ka;
  nn = (nb - na) * unit;
  s1 = t->seg + na * unit;
#define MV(f, per, T)                                                       \
  do {                                                                      \
    CK(cudaMemcpyAsync(t->b.f, t->a.f + ka * (per), sizeof(T) * nk * (per), \
                       cudaMemcpyDeviceToDevice, t->stream));               \
    CK(cudaMemcpyAsync(t->b.f + nk * (per), t->a.f + s1 * (per),            \
                       sizeof(T) * nn * (per), cudaMemcpyDeviceToDevice,    \
                       t->stream));                                         \
  } while (0)
  MV(lo, nd, double);
  if (t->wd) MV(w, nd, double);
  else MV(wk, nd, unsigned short);
  MV(avg, nc, double);
  MV(err, nc, double);
  MV(dims, nc, int);
#undef MV
  CK(cudaStreamSynchronize(t->stream));
  sw = t->a;
  t->a = t->b;
  t->b = sw;
  free_arrays(&t->b);
  cudaFree(t->xs);
  t->xs = NULL;
  t->xscap = 0;
  CK(cudaMalloc(&t->xs, (size_t)t->rbytes * t->cap));
  t->xscap = t->cap;
  CK(cudaMalloc(&t->xr, (size_t)t->rbytes * t->cap));
  t->xrcap = t->cap;
  t->gn = t->gnold = t->n;
  t->gfirst = s1;
  t->n = t->nold = nk + nn;
  t->seg = nk;
  t->dist = 1;
  /* the maxima, which k_mark cleared, for apply_dist's k_mark */
  CK(cudaMemcpyAsync(t->dmax, t->hmax, sizeof(unsigned long long) * 2 * nc,
                     cudaMemcpyHostToDevice, t->stream));
  gcuba_log(c, 2, "%lld regions, more than one GPU holds (%lld): "
            "distributed over the %d members", t->gn, t->repmax,
            c->coll->size);
  return 0;
}

/* apply's classification of every leaf: k_mark (classes, marks, the
   finished sums and the split and kept counts), the scan; local, 0 or a
   fail code */
static int mark_local(gpu *t, const dclassify *d)
{
  size_t bytes = t->tempbytes;
  int krc;
  k_mark<<<red_blocks(t->n), RED_THREADS, 0, t->stream>>>(
      t->n, t->ncomp, t->a, *d, t->cls, t->mark, t->dmax, t->dxpart,
      t->dxs + XS_FIN, t->dticket);
  krc = GCUBA_CK_LAUNCH(t->c, "k_mark");
  if (!krc)
    krc = GCUBA_CK(t->c, cub::DeviceScan::ExclusiveSum(
                             t->dtemp, bytes, t->mark, t->pos, (int)t->n,
                             t->stream));
  if (!krc) krc = get_xs(t, XS_FIN, 2 * t->ncomp + 2);
  if (!krc) krc = GCUBA_CK(t->c, cudaStreamSynchronize(t->stream));
  return krc;
}

static int apply(void *ctx, const gcuba_classify *cl, double *finavg,
                 double *finerr)
{
  gpu *t = (gpu *)ctx;
  long long nsplit0, nkeep, nsplit, nnext;
  const dclassify d = dcl(t->c, cl);
  darrays sw;
  int c, rc, krc;
  if (t->dist) return apply_dist(t, cl, finavg, finerr);
  /* the first split after the scan found a feature: widths as doubles */
  krc = !t->wd && t->c->cutmap && t->c->cutmap->nfeat ? to_doubles(t) : 0;
  if (!krc) krc = mark_local(t, &d);
  if (t->c->coll) {
    /* a replicated store: every member reaches the decision below (a
       collective one), failed or not; after it only local steps */
    if ((rc = gcuba_coll_status(t->c, krc)) || (rc = agree_repmax(t)))
      return rc;
  } else if (krc)
    return krc;
  nsplit0 = (long long)hxs(t, XS_FIN + 2 * t->ncomp).lo;
  nsplit = cl->split_max >= 0 && nsplit0 > cl->split_max ? cl->split_max
                                                          : nsplit0;
  nkeep = (long long)hxs(t, XS_FIN + 2 * t->ncomp + 1).lo + (nsplit0 - nsplit);
  nnext = nkeep + 2 * nsplit;
  if (t->c->coll && nnext > t->repmax) {
    /* beyond one GPU: distribute (every member decides alike) */
    if ((rc = gcuba_coll_status(t->c, convert_dist(t)))) return rc;
    return apply_dist(t, cl, finavg, finerr);
  }
  if (nnext > t->cap) {
    /* grow: the classification is redone on the moved data (the same
       counts), with the maxima k_mark cleared */
    gcuba_log(t->c, 2, "growing the device region store to %lld", nnext);
    t->nold = t->n; /* everything is evaluated */
    if ((rc = reserve(t, nnext))) return rc;
    CK(cudaMemcpyAsync(t->dmax, t->hmax,
                       sizeof(unsigned long long) * 2 * t->ncomp,
                       cudaMemcpyHostToDevice, t->stream));
    if ((rc = mark_local(t, &d))) return rc;
  }
  for (c = 0; c < t->ncomp; ++c) {
    finavg[c] += x_double(hxs(t, XS_FIN + c), hscale(t, c));
    finerr[c] += x_double(hxs(t, XS_FIN + t->ncomp + c),
                          hscale(t, t->ncomp + c));
  }
  {
    /* where to cut (gcuba/cut.h): known features in k_scatter, searches
       before it */
    const gcuba_cutmap m = cutmap(t);
    const int search = t->c->cutmap && !cl->nocut && nsplit > 0 &&
                       gcuba_cut_searching(&m, nsplit);
    if (search) {
      unsigned long long nev;
      if ((rc = cut_buffers(t))) return rc;
      k_cutprep<<<nblocks(t->n, 256), 256, 0, t->stream>>>(
          t->n, t->ndim, t->ncomp, t->a, t->cls, t->pos, d, m, t->slo, t->sw,
          t->sax, t->scut);
      CKL("k_cutprep");
      if ((rc = cut_search_block(t, nsplit, &nev))) return rc;
      t->c->neval += (long long)nev;
    }
    k_scatter<<<nblocks(t->n, 256), 256, 0, t->stream>>>(
        t->n, t->ndim, t->ncomp, t->a, t->b, t->cls, t->pos, nkeep, d,
        t->pavg, t->perr, m, search ? t->scut : NULL, t->sax);
    CKL("k_scatter");
  }
  /* no synchronisation: the next step is queued on the same stream */
  sw = t->a;
  t->a = t->b;
  t->b = sw;
  t->n = t->gn = nnext;
  t->nold = t->seg = t->gnold = nkeep;
  t->haveparents = 1;
  return 0;
}

static int load_local(gpu *t, const gcuba_region_set *s);

/* A distributed store loads its shares of the whole set s (every member
   has it): of the kept leaves [0, nold) and of the new pairs (or, before
   the first split, new leaves).  sub is s restricted to them. */
static int load_dist(gpu *t, const gcuba_region_set *s,
                     gcuba_region_set *sub, double **buf)
{
  const int nd = t->ndim, nc = t->ncomp, unit = s->haveparents ? 2 : 1;
  const long long nnew = (s->n - s->nold) / unit;
  long long ka, kb, na, nb, nk, nn;
  double *b;
  gcuba_coll_share(t->c->coll, s->nold, &ka, &kb, NULL);
  gcuba_coll_share(t->c->coll, nnew, &na, &nb, NULL);
  nk = kb - ka;
  nn = (nb - na) * unit;
  b = (double *)malloc(sizeof(double) * ((size_t)(nk + nn) * 2 * nd +
                                         (size_t)nk * 3 * nc +
                                         (size_t)nn * nc) + 1);
  if (!(*buf = b)) return gcuba_fail(t->c, GCUBA_FAIL_NOMEM, "state file");
  sub->n = nk + nn;
  sub->nold = nk;
  sub->haveparents = s->haveparents;
  sub->lo = b;
  sub->w = b + (size_t)(nk + nn) * nd;
  sub->avg = sub->w + (size_t)(nk + nn) * nd;
  sub->err = sub->avg + (size_t)nk * nc;
  sub->dims = (int *)(sub->err + (size_t)nk * nc);
  sub->pavg = sub->err + (size_t)nk * 2 * nc;
  sub->perr = sub->pavg + (size_t)nn / 2 * nc;
  memcpy(sub->lo, s->lo + ka * nd, sizeof(double) * nk * nd);
  memcpy(sub->lo + nk * nd, s->lo + (s->nold + na * unit) * nd,
         sizeof(double) * nn * nd);
  memcpy(sub->w, s->w + ka * nd, sizeof(double) * nk * nd);
  memcpy(sub->w + nk * nd, s->w + (s->nold + na * unit) * nd,
         sizeof(double) * nn * nd);
  memcpy(sub->avg, s->avg + ka * nc, sizeof(double) * nk * nc);
  memcpy(sub->err, s->err + ka * nc, sizeof(double) * nk * nc);
  memcpy(sub->dims, s->dims + ka * nc, sizeof(int) * nk * nc);
  if (s->haveparents) {
    memcpy(sub->pavg, s->pavg + na * nc, sizeof(double) * (nn / 2) * nc);
    memcpy(sub->perr, s->perr + na * nc, sizeof(double) * (nn / 2) * nc);
  }
  t->gn = s->n;
  t->gnold = s->nold;
  t->gfirst = s->nold + na * unit;
  return 0;
}

static int load(void *ctx, const gcuba_region_set *s0)
{
  gpu *t = (gpu *)ctx;
  gcuba_region_set sub;
  const gcuba_region_set *s = s0;
  double *buf = NULL;
  int rc;
  t->n = 0;
  if (t->c->coll) {
    /* a collective call resumes replicated when one GPU holds the
       regions */
    if ((rc = agree_repmax(t))) return rc;
    if (s0->n > t->repmax && !t->dist) {
      /* leaves in another GPU's memory are loaded replicated only: the
         call stays on that GPU (GCUBA_DEVICES=auto) */
      if (s0->ondev)
        return gcuba_fail(t->c, GCUBA_FAIL_DEVMEM, "%lld regions do not "
                          "fit every GPU", s0->n);
      free_store(t);
      t->dist = 1;
    }
  }
  if (t->dist) {
    if ((rc = load_dist(t, s0, &sub, &buf))) return rc;
    s = &sub;
  } else {
    t->gn = s->n;
    t->gnold = s->nold;
    t->gfirst = 0;
  }
  rc = load_local(t, s);
  free(buf);
  return rc;
}

/* bytes from src on GPU sdev to dst on this store's GPU, on its stream */
static int copy_from(gpu *t, void *dst, const void *src, int sdev,
                     size_t bytes)
{
  if (!bytes) return 0;
  if (sdev == t->dev)
    CK(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDeviceToDevice,
                       t->stream));
  else
    CK(cudaMemcpyPeerAsync(dst, t->dev, src, sdev, bytes, t->stream));
  return 0;
}

static int load_local(gpu *t, const gcuba_region_set *s)
{
  size_t nn = (size_t)(s->n - s->nold) / 2 * t->ncomp;
  int rc;
  size_t nw = (size_t)s->n * t->ndim, j;
  /* the widths as the set has them (another store's), or as doubles once
     the call has cut (its scan found a feature, gcuba/cut.h) */
  const int wd = s->ondev ? s->w != NULL
                          : t->c->cutmap && t->c->cutmap->nfeat > 0;
  if ((rc = set_widths(t, wd)) || (rc = reserve(t, s->n))) return rc;
  if (s->ondev) {
    /* from another store, on this GPU or another */
    const size_t nr = (size_t)s->nold * t->ncomp;
    if ((rc = copy_from(t, t->a.lo, s->lo, s->dev, sizeof(double) * nw)) ||
        (rc = wd ? copy_from(t, t->a.w, s->w, s->dev, sizeof(double) * nw)
                 : copy_from(t, t->a.wk, s->wk, s->dev,
                             sizeof(unsigned short) * nw)) ||
        (rc = copy_from(t, t->a.avg, s->avg, s->dev, sizeof(double) * nr)) ||
        (rc = copy_from(t, t->a.err, s->err, s->dev, sizeof(double) * nr)) ||
        (rc = copy_from(t, t->a.dims, s->dims, s->dev, sizeof(int) * nr)) ||
        (rc = copy_from(t, t->pavg, s->pavg, s->dev, sizeof(double) * nn)) ||
        (rc = copy_from(t, t->perr, s->perr, s->dev, sizeof(double) * nn)))
      return rc;
    CK(cudaStreamSynchronize(t->stream));
    t->n = s->n;
    t->nold = t->seg = s->nold;
    t->haveparents = s->haveparents;
    return 0;
  }
  if (wd)
    CK(cudaMemcpy(t->a.w, s->w, sizeof(double) * nw,
                  cudaMemcpyHostToDevice));
  else {
    /* the widths as exponents: anything but a power of two >= 2^-65535
       is not a region of a call that has not cut */
    unsigned short *wk = (unsigned short *)malloc(sizeof *wk * nw + 1);
    if (!wk) return gcuba_fail(t->c, GCUBA_FAIL_NOMEM, "state file");
    for (j = 0; j < nw; ++j) {
      int e;
      double m = frexp(s->w[j], &e);
      if (m != 0.5 || e > 1 || e < 1 - 65535) {
        free(wk);
        return gcuba_fail(t->c, GCUBA_FAIL_STATE, "state file: region "
                          "width %g is not a power of two", s->w[j]);
      }
      wk[j] = (unsigned short)(1 - e);
    }
    rc = GCUBA_CK(t->c, cudaMemcpy(t->a.wk, wk, sizeof *wk * nw,
                                   cudaMemcpyHostToDevice));
    free(wk);
    if (rc) return rc;
  }
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
  t->nold = t->seg = s->nold;
  t->haveparents = s->haveparents;
  return 0;
}

static int save_local(gpu *t, gcuba_region_set *s);

/* A distributed store saves the whole set in the one-GPU order (every
   member gets it; the driver's first process writes it): its leaves go
   to their places, and the members' blocks are gathered.  Called after
   init, load or apply, when the leaves are [kept share, new share]. */
static int save_dist(gpu *t, gcuba_region_set *s)
{
  gcuba_call *c = t->c;
  const int size = c->coll->size, me = c->coll->rank;
  const int nd = t->ndim, nc = t->ncomp;
  gcuba_region_set m;
  long long *cnt = t->plan, *nk = cnt + size, *nn = nk + size, k0 = 0,
            n0 = 0, K = 0, N = 0;
  int r, rc, krc;
  memset(&m, 0, sizeof m);
  memset(s, 0, sizeof *s);
  krc = save_local(t, &m);
  /* every member's counts */
  t->hg[(size_t)me * 2] = m.nold;
  t->hg[(size_t)me * 2 + 1] = m.n - m.nold;
  if ((rc = gcuba_coll_status(c, krc)) || (rc = gather_rec(t, 2))) goto out;
  for (r = 0; r < size; ++r) {
    nk[r] = t->hg[2 * r];
    nn[r] = t->hg[2 * r + 1];
    if (r < me) {
      k0 += nk[r];
      n0 += nn[r];
    }
    K += nk[r];
    N += nn[r];
  }
  s->n = K + N;
  s->nold = K;
  s->haveparents = t->haveparents;
  s->lo = (double *)malloc(sizeof(double) * (size_t)(K + N) * nd + 1);
  s->w = (double *)malloc(sizeof(double) * (size_t)(K + N) * nd + 1);
  s->avg = (double *)malloc(sizeof(double) * (size_t)K * nc + 1);
  s->err = (double *)malloc(sizeof(double) * (size_t)K * nc + 1);
  s->dims = (int *)malloc(sizeof(int) * (size_t)K * nc + 1);
  s->pavg = (double *)malloc(sizeof(double) * (size_t)(N / 2) * nc + 1);
  s->perr = (double *)malloc(sizeof(double) * (size_t)(N / 2) * nc + 1);
  krc = !s->lo || !s->w || !s->avg || !s->err || !s->dims || !s->pavg ||
                !s->perr
            ? gcuba_fail(c, GCUBA_FAIL_NOMEM, "state file")
            : 0;
  if ((rc = gcuba_coll_status(c, krc))) goto out;
  memcpy(s->lo + k0 * nd, m.lo, sizeof(double) * m.nold * nd);
  memcpy(s->lo + (K + n0) * nd, m.lo + m.nold * nd,
         sizeof(double) * (m.n - m.nold) * nd);
  memcpy(s->w + k0 * nd, m.w, sizeof(double) * m.nold * nd);
  memcpy(s->w + (K + n0) * nd, m.w + m.nold * nd,
         sizeof(double) * (m.n - m.nold) * nd);
  memcpy(s->avg + k0 * nc, m.avg, sizeof(double) * m.nold * nc);
  memcpy(s->err + k0 * nc, m.err, sizeof(double) * m.nold * nc);
  memcpy(s->dims + k0 * nc, m.dims, sizeof(int) * m.nold * nc);
  if (t->haveparents) {
    memcpy(s->pavg + n0 / 2 * nc, m.pavg,
           sizeof(double) * ((m.n - m.nold) / 2) * nc);
    memcpy(s->perr + n0 / 2 * nc, m.perr,
           sizeof(double) * ((m.n - m.nold) / 2) * nc);
  }
  /* blocks of kept, then of new leaves; the parents */
#define GATHER(ptr, per, counts, type)                                \
  do {                                                                \
    for (r = 0; r < size; ++r) cnt[r] = (counts)[r] * (per);          \
    if ((rc = gcuba_coll_gather(c, ptr, cnt, type))) goto out;        \
  } while (0)
  GATHER(s->lo, nd, nk, GCUBA_COLL_DOUBLE);
  GATHER(s->lo + K * nd, nd, nn, GCUBA_COLL_DOUBLE);
  GATHER(s->w, nd, nk, GCUBA_COLL_DOUBLE);
  GATHER(s->w + K * nd, nd, nn, GCUBA_COLL_DOUBLE);
  GATHER(s->avg, nc, nk, GCUBA_COLL_DOUBLE);
  GATHER(s->err, nc, nk, GCUBA_COLL_DOUBLE);
  GATHER(s->dims, nc * (long long)sizeof(int), nk, GCUBA_COLL_BYTE);
  if (t->haveparents) {
    for (r = 0; r < size; ++r) nn[r] /= 2;
    GATHER(s->pavg, nc, nn, GCUBA_COLL_DOUBLE);
    GATHER(s->perr, nc, nn, GCUBA_COLL_DOUBLE);
  }
#undef GATHER
out:
  free(m.lo);
  free(m.w);
  free(m.avg);
  free(m.err);
  free(m.dims);
  free(m.pavg);
  free(m.perr);
  return rc;
}

static int save(void *ctx, gcuba_region_set *s)
{
  gpu *t = (gpu *)ctx;
  return t->dist ? save_dist(t, s) : save_local(t, s);
}

static int save_local(gpu *t, gcuba_region_set *s)
{
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
  if (t->wd)
    CK(cudaMemcpy(s->w, t->a.w, nb, cudaMemcpyDeviceToHost));
  else {
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

/* the leaves in place (a store of one GPU): the members of a call that
   grows to several GPUs copy them from here (load_local) */
static int save_dev(void *ctx, gcuba_region_set *s)
{
  gpu *t = (gpu *)ctx;
  if (t->dist || t->c->coll)
    return gcuba_fail(t->c, GCUBA_FAIL_PARAM, "save_dev: not a store of "
                      "one GPU");
  CK(cudaStreamSynchronize(t->stream));
  memset(s, 0, sizeof *s);
  s->n = t->n;
  s->nold = t->nold;
  s->haveparents = t->haveparents;
  s->ondev = 1;
  s->dev = t->dev;
  s->lo = t->a.lo;
  s->w = t->a.w; /* one of them, the other NULL */
  s->wk = t->a.wk;
  s->avg = t->a.avg;
  s->err = t->a.err;
  s->dims = t->a.dims;
  s->pavg = t->pavg;
  s->perr = t->perr;
  return 0;
}

/* ops->search: the boxes copied in, searched by the integrand's kernel,
   their cuts copied out; one copy each way, the block laid out as
   [evaluations, status | cut[n] | found[n], ax[n] (ints, to 8 bytes) |
   lo[n*ndim] | w[n*ndim]] */
static int search(void *ctx, int n, const double *lo, const double *w,
                  const int *ax, double *cut, int *found)
{
  gpu *t = (gpu *)ctx;
  const size_t nd = (size_t)n * t->ndim, ni = ((size_t)2 * n + 1) / 2 * 2;
  const size_t o_cut = 16, o_found = o_cut + 8 * (size_t)n,
               o_ax = o_found + 4 * (size_t)n, o_lo = o_found + 4 * ni,
               o_w = o_lo + 8 * nd, bytes = o_w + 8 * nd;
  unsigned char *h, *d;
  gcuba_cut_launch l;
  unsigned long long nev = 0;
  int j, rc;
  if (n <= 0) return 0;
  /* (n <= 2 ndim: the block holds GCUBA_CUT_MAXSEARCH regions) */
  if ((rc = cut_buffers(t))) return rc;
  if (hostbuf_grow(&t->sh, bytes))
    return gcuba_fail(t->c, GCUBA_FAIL_NOMEM, "search staging");
  h = t->sh.p;
  d = (unsigned char *)t->sbuf;
  memset(h, 0, o_lo);
  for (j = 0; j < n; ++j) ((double *)(h + o_cut))[j] = -1; /* component 0 */
  memcpy(h + o_ax, ax, sizeof(int) * n);
  memcpy(h + o_lo, lo, sizeof(double) * nd);
  memcpy(h + o_w, w, sizeof(double) * nd);
  CK(cudaMemcpyAsync(d, h, bytes, cudaMemcpyHostToDevice, t->stream));
  memset(&l, 0, sizeof l);
  l.n = n;
  l.lo = (const double *)(d + o_lo);
  l.w = (const double *)(d + o_w);
  l.ax = (const int *)(d + o_ax);
  l.cut = (double *)(d + o_cut);
  l.found = (int *)(d + o_found);
  if ((rc = cut_search(t, &l, (unsigned long long *)d, 1, d, o_ax, &nev)))
    return rc;
  memcpy(cut, h + o_cut, sizeof(double) * n);
  memcpy(found, h + o_found, sizeof(int) * n);
  t->c->neval += (long long)nev;
  return 0;
}

extern "C" const gcuba_cuhre_ops gcuba_cuhre_cuda = {
    "gpu", 1, create, destroy, minbatch, init, load, save, nleaves, nnew, eval,
    hist, apply, kernel_ms, hint, save_dev, 1, search};
