/* cuda/points.cu -- the GPU's points executor (src/common/points.h):
   gSuave's GPU backend, and the integrand's side of gCuhre calls with
   more components than the GPU's rule kernels hold (the CPU backend
   applies the rules).  The points a step drew are copied to the device,
   the integrand's eval_points launcher (include/gcuba/kernels.cuh,
   through the descriptor's GPU table) evaluates them, and the values
   come back.  The buffers grow geometrically and are kept for the call;
   one synchronisation per step.  Every CUDA call and launch is checked.
   A list of at most HOSTMAX points (gDivonne's searches ask for one at a
   time, its partition for a few dozen) is evaluated by the integrand's
   host function when userdata is readable there: a launch and two copies
   cost more than the points (Genz's protocol through gDivonne on an H200:
   75 s with every point on the device, 13 s on one CPU thread).
   gDivonne's copies of a region of at most HOSTCOPIES points in all are
   made there too, by the walks of src/common/copies.c (see copies_host).
   This file is part of gcuba. */
#include <cuda_runtime.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "common.cuh"
#include "common/points.h"
#include "common/copy_point.h"
#include "suave/suave.h"
#include "cuda/device.h"
#include "gcuba/detail/gpu_ops.h"

#define HOSTMAX 64
/* Copies of a region of at most this many points in all are made,
   evaluated and summed on the host (userdata readable there): the
   device's round trip, three launches and two copies, costs about 30 us
   (gDivonne's top-up on 8-D Gaussians at 1e-6, maxeval 2e7, on an H100:
   40,881 copies of 128 points in 1.2 s, against 0.2 s on 16 CPU
   threads).  The bound keeps a region's host evaluations within about
   what its extremum searches already take there (some 350 points a
   region in that partition), whatever the integrand costs; a fixed
   bound, so that a call gives the same bits every time. */
#define HOSTCOPIES 512

struct sctx {
  gcuba_call *c;
  int ndim, ncomp;
  cudaStream_t stream;
  long long cap;         /* points the buffers hold */
  double *x, *f;         /* device [cap*ndim], [cap*ncomp] */
  int *status, *h_status;
  void *ud, *udcopy;
  size_t udcap;
  int host;              /* small lists on the host (userdata readable) */
  /* gDivonne's copies: their parameters, the blocks' partial sums and
     extrema (device and pinned host) */
  char *qbuf, *h_q;
  size_t qcap, hqcap;
  double *part, *h_part;
  size_t pcap, hpcap;
  /* the host's copies (copies_host): points and values */
  double *hx;
  long long hxcap;
  /* the batch of copies under way (copies_start), for copies_wait */
  int busy, bq, bk;
  long long bp, bper, bcch, btotal;
  double *bsum, *bext;
  long long *biext;
};

static void destroy(void *ctx)
{
  sctx *t = (sctx *)ctx;
  if (!t) return;
  /* clean-up after a failure: errors here change nothing */
  if (t->stream) cudaStreamSynchronize(t->stream);
  cudaFree(t->x);
  cudaFree(t->f);
  cudaFree(t->status);
  cudaFree(t->udcopy);
  cudaFree(t->qbuf);
  cudaFree(t->part);
  cudaFreeHost(t->h_part);
  cudaFreeHost(t->h_q);
  cudaFreeHost(t->h_status);
  free(t->hx);
  if (t->stream) cudaStreamDestroy(t->stream);
  (void)cudaGetLastError();
  free(t);
}

static void *create(gcuba_call *c, int *fail)
{
  sctx *t = (sctx *)calloc(1, sizeof *t);
  if (!t) {
    *fail = gcuba_fail(c, GCUBA_FAIL_NOMEM, "the GPU's points executor");
    return NULL;
  }
  t->c = c;
  t->ndim = c->ndim;
  t->ncomp = c->ncomp;
  if (GCUBA_CK(c, cudaStreamCreateWithFlags(&t->stream,
                                            cudaStreamNonBlocking)) ||
      GCUBA_CK(c, gcuba_cuda_malloc(&t->status, sizeof(int))) ||
      GCUBA_CK(c, cudaMemsetAsync(t->status, 0, sizeof(int), t->stream)) ||
      GCUBA_CK(c, cudaMallocHost(&t->h_status, sizeof(int))) ||
      gcuba_device_userdata(c, c->ud.p, c->ud.bytes, "", &t->ud, &t->udcopy,
                            &t->udcap, t->stream)) {
    *fail = c->fail ? c->fail : GCUBA_FAIL_CUDA;
    destroy(t);
    return NULL;
  }
  t->host = c->integrand->fn &&
            (!c->ud.p || gcuba_cuda_pointer_device(c->ud.p) < 0);
  return t;
}

/* the points on the host, one by one: 0 or a fail code */
static int eval_host(sctx *t, long long n, const double *x, double *f,
                     int tid)
{
  gcuba_call *c = t->c;
  void *ud = gcuba_ud_thread(&c->ud, tid);
  long long i;
  int k;
  for (i = 0; i < n; ++i) {
    if (c->integrand->fn(&t->ndim, x + i * t->ndim, &t->ncomp,
                         f + i * t->ncomp, ud) == -999)
      return GCUBA_FAIL_ABORT;
    for (k = 0; k < t->ncomp; ++k)
      if (!isfinite(f[i * t->ncomp + k])) return GCUBA_FAIL_NAN;
  }
  return 0;
}

static int reserve(sctx *t, long long n)
{
  gcuba_call *c = t->c;
  int rc;
  if (n <= t->cap) return 0;
  if (n < 2 * t->cap) n = 2 * t->cap;
  if ((rc = GCUBA_CK(c, cudaStreamSynchronize(t->stream)))) return rc;
  cudaFree(t->x);
  cudaFree(t->f);
  t->x = t->f = NULL;
  t->cap = 0;
  if ((rc = GCUBA_CK(c, gcuba_cuda_malloc(&t->x,
                                          sizeof(double) * n * t->ndim))) ||
      (rc = GCUBA_CK(c, gcuba_cuda_malloc(&t->f,
                                          sizeof(double) * n * t->ncomp))))
    return rc;
  t->cap = n;
  return 0;
}

static int eval(void *ctx, long long n, const double *x, const double *w,
                int iter, double *f)
{
  sctx *t = (sctx *)ctx;
  gcuba_call *c = t->c;
  int rc;
  (void)w;
  (void)iter;
  if (t->host && n <= HOSTMAX) return eval_host(t, n, x, f, 0);
  if ((rc = reserve(t, n)) ||
      (rc = GCUBA_CK(c, cudaMemcpyAsync(t->x, x, sizeof(double) * n * t->ndim,
                                        cudaMemcpyHostToDevice, t->stream))))
    return rc;
  rc = c->integrand->gpu->eval_points(t->ndim, t->ncomp, n, t->x, t->f, t->ud,
                                      t->status, t->stream);
  if (rc) return GCUBA_CK(c, (cudaError_t)rc);
  if ((rc = GCUBA_CK(c, cudaMemcpyAsync(f, t->f, sizeof(double) * n * t->ncomp,
                                        cudaMemcpyDeviceToHost, t->stream))) ||
      (rc = GCUBA_CK(c, cudaMemcpyAsync(t->h_status, t->status, sizeof(int),
                                        cudaMemcpyDeviceToHost, t->stream))) ||
      (rc = GCUBA_CK(c, cudaStreamSynchronize(t->stream))))
    return rc;
  if (*t->h_status & GCUBA_ST_ABORT) return GCUBA_FAIL_ABORT;
  if (*t->h_status & GCUBA_ST_NONFINITE) return GCUBA_FAIL_NAN;
  return 0;
}

/* ---- gDivonne's final copies, made on the device: a chunk of one copy,
   at most CCHUNK points whose points and values fit in CBYTES, is made
   (k_copy_points), evaluated (the integrand's eval_points) and reduced
   (k_copy_reduce: CRB blocks, each a contiguous slice, their sums in a
   fixed tree and their extrema the first of equals), the chunks one
   after another on the stream; the blocks' partials come back in one
   copy and are combined in order on the host.  When all the copies fit
   one chunk together (a region of the final phase: a few thousand to a
   few hundred thousand points) they are one chunk: one launch of each
   kernel, the reduction's blocks a grid of slices by copies, the same
   slices and so the same sums as copy by copy.  A batch of regions
   (gDivonne makes the final phase's regions ahead, src/divonne/ahead.c)
   puts as many of them in one chunk as fit: the grid's rows are their
   copies, region by region, and each region's sums are those of a call
   for it alone.  The parameters of the batch go to the device in one
   copy from pinned memory, and the integrand's status comes back with
   the partials: a call costs three launches per chunk and two copies,
   and the host may work while they run (copies_start, copies_wait)
   (one region a call: some 40 us a region on an H100 for a cheap
   integrand, 2.5 s of 8-D Gaussians at 1e-6; copy by copy, with every
   parameter copied on its own from pageable memory: 86 us a region on
   an H200).  The points are those of the host's walks
   (common/copy_point.h); the sums' order is the device's own. */

#define CCHUNK (1LL << 22)
#define CBYTES (1LL << 29)
#define CRB 64
#define CTHREADS 256

struct copy_args {
  int ndim, ncomp, h, k; /* k: a region's copies */
  long long p, i0, n; /* copy h's points i0 .. i0 + n - 1 (a chunk) */
  long long nk;       /* the points made: n, or g p for g whole copies */
  /* copy g of the launch is copy g % k of region g / k: lo[region ndim],
     w likewise, u and m [g ndim]; z NULL: Sobol */
  const double *lo, *w, *z, *u;
  const uint64_t *m, *v;
};

__global__ void k_copy_points(copy_args a, double *x)
{
  const int nd = a.ndim, pad = GCUBA_COPY_PAD(nd);
  const double inv = 1 / (double)a.p;
  long long k = (long long)blockIdx.x * blockDim.x + threadIdx.x;
  for (; k < a.nk; k += (long long)gridDim.x * blockDim.x) {
    /* whole copies: point k is point k mod p of copy k / p */
    const long long hk = (a.i0 + k) / a.p, i = a.i0 + k - hk * a.p;
    const long h = a.h + (long)hk, rg = h / a.k * nd;
    double *xi = x + k * nd;
    for (int j = 0; j < nd; ++j)
      xi[j] = a.z ? gcuba_copy_lattice(i, a.p, a.z[j], inv,
                                       a.u[h * nd + j], a.lo[rg + j],
                                       a.w[rg + j])
                  : gcuba_copy_sobol_value(
                        gcuba_copy_sobol_bits(i, a.v, pad, j) ^
                            a.m[h * nd + j],
                        a.lo[rg + j], a.w[rg + j]);
  }
}

/* block (b, y): points [b L, (b + 1) L) of the chunk of copy a.h + y
   (its values at f + y n ncomp); part[y gridDim.x + b][5 ncomp]: the
   sums, then per component least, greatest, and their numbers within
   the region's copies (as doubles, exact).  st: unless NULL, block (0, 0) puts the integrand's
   status there (the last chunk's launch: after every evaluation) */
__global__ void k_copy_reduce(copy_args a, const double *f, double *part,
                              const int *status, double *st)
{
  __shared__ double ss[CTHREADS], sl[CTHREADS], sh[CTHREADS];
  __shared__ long long il[CTHREADS], ih[CTHREADS];
  const int nc = a.ncomp, t = threadIdx.x;
  const long long len = (a.n + gridDim.x - 1) / gridDim.x,
                  b0 = blockIdx.x * len,
                  b1 = b0 + len < a.n ? b0 + len : a.n;
  const long long h = (a.h + blockIdx.y) % a.k;
  double *out = part + ((size_t)blockIdx.y * gridDim.x + blockIdx.x) * 5 * nc;
  if (st && blockIdx.x == 0 && blockIdx.y == 0 && t == 0) *st = *status;
  f += (size_t)blockIdx.y * a.n * nc;
  for (int c = 0; c < nc; ++c) {
    double s = 0, lo = INFINITY, hi = -INFINITY;
    long long jl = -1, jh = -1;
    for (long long k = b0 + t; k < b1; k += CTHREADS) {
      const double v = f[k * nc + c];
      s += v;
      if (v < lo) lo = v, jl = k;
      if (v > hi) hi = v, jh = k;
    }
    ss[t] = s;
    sl[t] = lo;
    sh[t] = hi;
    il[t] = jl;
    ih[t] = jh;
    __syncthreads();
    for (int w = CTHREADS / 2; w > 0; w /= 2) {
      if (t < w) {
        const int o = t + w;
        ss[t] += ss[o];
        if (il[o] >= 0 &&
            (il[t] < 0 || sl[o] < sl[t] || (sl[o] == sl[t] && il[o] < il[t])))
          sl[t] = sl[o], il[t] = il[o];
        if (ih[o] >= 0 &&
            (ih[t] < 0 || sh[o] > sh[t] || (sh[o] == sh[t] && ih[o] < ih[t])))
          sh[t] = sh[o], ih[t] = ih[o];
      }
      __syncthreads();
    }
    if (t == 0) {
      out[c] = ss[0];
      out[nc + 2 * c] = sl[0];
      out[nc + 2 * c + 1] = sh[0];
      out[3 * nc + 2 * c] = (double)(il[0] < 0 ? -1 : h * a.p + a.i0 + il[0]);
      out[3 * nc + 2 * c + 1] =
          (double)(ih[0] < 0 ? -1 : h * a.p + a.i0 + ih[0]);
    }
    __syncthreads();
  }
}

/* the device buffer of at least n bytes at *buf (capacity *cap) */
static int grow(sctx *t, void **buf, size_t *cap, size_t n)
{
  gcuba_call *c = t->c;
  int rc;
  if (n <= *cap) return 0;
  if ((rc = GCUBA_CK(c, cudaStreamSynchronize(t->stream)))) return rc;
  cudaFree(*buf);
  *buf = NULL;
  *cap = 0;
  if ((rc = GCUBA_CK(c, gcuba_cuda_malloc(buf, 2 * n)))) return rc;
  *cap = 2 * n;
  return 0;
}

/* pinned host memory of at least n bytes at *buf (capacity *cap) */
static int grow_host(sctx *t, void **buf, size_t *cap, size_t n)
{
  int rc;
  if (n <= *cap) return 0;
  if ((rc = GCUBA_CK(t->c, cudaStreamSynchronize(t->stream)))) return rc;
  cudaFreeHost(*buf);
  *buf = NULL;
  *cap = 0;
  if ((rc = GCUBA_CK(t->c, cudaMallocHost(buf, 2 * n)))) return rc;
  *cap = 2 * n;
  return 0;
}

/* the copies on the host (at most HOSTCOPIES points): walked, evaluated
   in order, and each copy reduced and merged as the CPU executor's
   blocks are (gcuba_copies_part, gcuba_copies_merge: one block a copy) */
static int copies_host(sctx *t, const gcuba_copies *q, double *sum,
                       double *ext, long long *iext)
{
  const int nd = q->ndim, nc = t->ncomp;
  const long long n = q->k * q->p;
  double part[5 * GCUBA_MAXCOMP], *x, *f;
  int h, rc;
  if (n > t->hxcap) {
    free(t->hx);
    t->hxcap = 0;
    t->hx = (double *)malloc(sizeof(double) * (size_t)HOSTCOPIES *
                             (size_t)(nd + nc));
    if (!t->hx) return GCUBA_FAIL_NOMEM;
    t->hxcap = HOSTCOPIES;
  }
  x = t->hx;
  f = x + (size_t)n * nd;
  for (h = 0; h < q->k; ++h)
    gcuba_copies_walk(q, h, 0, q->p, x + (size_t)h * q->p * nd);
  if ((rc = eval_host(t, n, x, f, 0))) return rc;
  for (h = 0; h < q->k * nc; ++h) sum[h] = 0;
  for (h = 0; h < q->k; ++h) {
    gcuba_copies_part(f + (size_t)h * q->p * nc, q->p, nc, h * q->p, part);
    gcuba_copies_merge(part, nc, h == 0, sum + (size_t)h * nc, ext, iext);
  }
  return 0;
}

static int copies_wait(void *ctx);

/* the batch's parameters to the device and its launches, the partials'
   copy back queued behind them (copies_wait takes them); a region's
   copies of at most HOSTCOPIES points are made on the host at once */
static int copies_start(void *ctx, int nq, const gcuba_copies *q, int iter,
                        double *sum, double *ext, long long *iext)
{
  sctx *t = (sctx *)ctx;
  gcuba_call *c = t->c;
  const int nd = q->ndim, nc = t->ncomp, pad = GCUBA_COPY_PAD(nd), K = q->k;
  /* a chunk's points and values in at most CBYTES */
  const long long cmax = CBYTES / (long long)(sizeof(double) * (nd + nc)),
                  cch = cmax < CCHUNK ? (cmax > 0 ? cmax : 1) : CCHUNK;
  const long long kp = (long long)K * q->p;
  /* a region's copies in one chunk when they fit, and then as many
     regions as fit (and as a grid's rows hold) in one launch; else
     chunks of one copy */
  const int whole = kp <= cch;
  const long long per = whole ? 1 : (q->p + cch - 1) / cch;
  long long gmax = whole ? cch / kp : 1;
  const size_t nbd = sizeof(double) * (size_t)nd;
  const void *dst[6];
  size_t len[6], qbytes = 0, off = 0, pbytes;
  copy_args a;
  long long ch, r0, nparts = 0, total = 0;
  int rc, j, r;
  (void)iter;
  /* (one batch at a time: one not waited for is finished first) */
  if (t->busy && (rc = copies_wait(ctx))) return rc;
  if (t->host && kp <= HOSTCOPIES) {
    for (r = 0; r < nq; ++r)
      if ((rc = copies_host(t, q + r, sum + (size_t)r * K * nc,
                            ext + (size_t)r * 2 * nc,
                            iext + (size_t)r * 2 * nc)))
        return rc;
    return 0;
  }
  if (gmax > 65535 / K) gmax = 65535 / K;
  if (gmax > nq) gmax = nq;
  /* the parameters lo[nq nd], w[nq nd], z[nd], u[nq k nd], m[nq k nd],
     v[64 pad], packed */
  len[0] = len[1] = (size_t)nq * nbd;
  len[2] = q->z ? nbd : 0;
  len[3] = q->z ? (size_t)nq * K * nbd : 0;
  len[4] = q->z ? 0 : (size_t)nq * K * nbd;
  len[5] = q->z ? 0 : sizeof(uint64_t) * 64 * pad;
  for (j = 0; j < 6; ++j) qbytes += len[j];
  if ((rc = reserve(t, whole ? gmax * kp : (q->p < cch ? q->p : cch))) ||
      (rc = grow(t, (void **)&t->qbuf, &t->qcap, qbytes)) ||
      (rc = grow_host(t, (void **)&t->h_q, &t->hqcap, qbytes)))
    return rc;
  for (j = 0; j < 6; ++j) {
    dst[j] = len[j] ? t->qbuf + off : NULL;
    off += len[j];
  }
  for (r = 0; r < nq; ++r) {
    char *h = t->h_q;
    memcpy(h + (size_t)r * nbd, q[r].lo, nbd);
    memcpy(h + len[0] + (size_t)r * nbd, q[r].w, nbd);
    if (q->z)
      memcpy(h + len[0] + len[1] + len[2] + (size_t)r * K * nbd, q[r].u,
             (size_t)K * nbd);
    else
      memcpy(h + len[0] + len[1] + len[2] + len[3] + (size_t)r * K * nbd,
             q[r].m, (size_t)K * nbd);
  }
  if (q->z) memcpy(t->h_q + len[0] + len[1], q->z, nbd);
  else memcpy(t->h_q + qbytes - len[5], q->v, len[5]);
  if ((rc = GCUBA_CK(c, cudaMemcpyAsync(t->qbuf, t->h_q, qbytes,
                                        cudaMemcpyHostToDevice, t->stream))))
    return rc;
  a.z = (const double *)dst[2];
  a.v = (const uint64_t *)dst[5];
  a.ndim = nd;
  a.ncomp = nc;
  a.k = K;
  a.p = q->p;
  /* the blocks' partials (by region, copy, chunk, block) and the status
     after them */
  for (ch = 0; ch < K * per; ++ch) {
    const long long n = q->p - ch % per * cch < cch ? q->p - ch % per * cch
                                                    : cch;
    total += (n + CTHREADS - 1) / CTHREADS < CRB
                 ? (n + CTHREADS - 1) / CTHREADS : CRB;
  }
  total *= nq;
  pbytes = sizeof(double) * ((size_t)total * 5 * nc + 1);
  if ((rc = grow(t, (void **)&t->part, &t->pcap, pbytes)) ||
      (rc = grow_host(t, (void **)&t->h_part, &t->hpcap, pbytes)))
    return rc;
  for (r0 = 0; r0 < nq; r0 += whole ? gmax : 1) {
    const long long g = whole ? (nq - r0 < gmax ? nq - r0 : gmax) : 1;
    a.lo = (const double *)dst[0] + r0 * nd;
    a.w = (const double *)dst[1] + r0 * nd;
    a.u = q->z ? (const double *)dst[3] + r0 * K * nd : NULL;
    a.m = q->z ? NULL : (const uint64_t *)dst[4] + r0 * K * nd;
    for (ch = 0; ch < (whole ? 1 : K * per); ++ch) {
      long long blocks, last;
      int nb;
      a.h = whole ? 0 : (int)(ch / per);
      a.i0 = whole ? 0 : ch % per * cch;
      a.n = q->p - a.i0 < cch ? q->p - a.i0 : cch;
      a.nk = whole ? g * kp : a.n;
      blocks = (a.nk + CTHREADS - 1) / CTHREADS;
      if (blocks > 65535) blocks = 65535;
      k_copy_points<<<(unsigned)blocks, CTHREADS, 0, t->stream>>>(a, t->x);
      if ((rc = GCUBA_CK_LAUNCH(c, "k_copy_points"))) return rc;
      rc = c->integrand->gpu->eval_points(nd, nc, a.nk, t->x, t->f, t->ud,
                                          t->status, t->stream);
      if (rc) return GCUBA_CK(c, (cudaError_t)rc);
      nb = (int)((a.n + CTHREADS - 1) / CTHREADS);
      if (nb > CRB) nb = CRB;
      last = nparts + (whole ? g * K : 1) * nb;
      k_copy_reduce<<<dim3((unsigned)nb, (unsigned)(whole ? g * K : 1)),
                      CTHREADS, 0, t->stream>>>(
          a, t->f, t->part + (size_t)nparts * 5 * nc, t->status,
          last == total ? t->part + (size_t)total * 5 * nc : NULL);
      if ((rc = GCUBA_CK_LAUNCH(c, "k_copy_reduce"))) return rc;
      nparts = last;
    }
  }
  if ((rc = GCUBA_CK(c, cudaMemcpyAsync(t->h_part, t->part, pbytes,
                                        cudaMemcpyDeviceToHost,
                                        t->stream))))
    return rc;
  t->busy = 1;
  t->bq = nq;
  t->bk = K;
  t->bp = q->p;
  t->bper = per;
  t->bcch = cch;
  t->btotal = total;
  t->bsum = sum;
  t->bext = ext;
  t->biext = iext;
  return 0;
}

/* the batch's partials back, and the blocks merged in order: by region,
   copy, chunk and place (whole copies: the same blocks as chunk by
   chunk) */
static int copies_wait(void *ctx)
{
  sctx *t = (sctx *)ctx;
  gcuba_call *c = t->c;
  const int nc = t->ncomp, nq = t->bq, K = t->bk;
  const long long p = t->bp, per = t->bper, cch = t->bcch;
  double *sum = t->bsum, *ext = t->bext;
  long long *iext = t->biext, ch, b, nparts;
  int rc, r, cc;
  if (!t->busy) return 0;
  t->busy = 0;
  if ((rc = GCUBA_CK(c, cudaStreamSynchronize(t->stream)))) return rc;
  {
    const int st = (int)t->h_part[t->btotal * 5 * nc];
    if (st & GCUBA_ST_ABORT) return GCUBA_FAIL_ABORT;
    if (st & GCUBA_ST_NONFINITE) return GCUBA_FAIL_NAN;
  }
  for (long long k = 0; k < (long long)nq * K * nc; ++k) sum[k] = 0;
  nparts = 0;
  for (r = 0; r < nq; ++r) {
    double *e = ext + (size_t)r * 2 * nc;
    long long *ie = iext + (size_t)r * 2 * nc;
    for (cc = 0; cc < nc; ++cc) ie[2 * cc] = ie[2 * cc + 1] = -1;
    for (ch = 0; ch < K * per; ++ch) {
      const long long n = p - ch % per * cch < cch ? p - ch % per * cch : cch;
      double *s = sum + ((size_t)r * K + (size_t)(ch / per)) * nc;
      int nb = (int)((n + CTHREADS - 1) / CTHREADS);
      if (nb > CRB) nb = CRB;
      for (b = 0; b < nb; ++b, ++nparts) {
        const double *pt = t->h_part + (size_t)nparts * 5 * nc;
        for (cc = 0; cc < nc; ++cc) {
          const double lo = pt[nc + 2 * cc], hi = pt[nc + 2 * cc + 1];
          const long long jl = (long long)pt[3 * nc + 2 * cc],
                          jh = (long long)pt[3 * nc + 2 * cc + 1];
          s[cc] += pt[cc];
          if (jl >= 0 && (ie[2 * cc] < 0 || lo < e[2 * cc]))
            e[2 * cc] = lo, ie[2 * cc] = jl;
          if (jh >= 0 && (ie[2 * cc + 1] < 0 || hi > e[2 * cc + 1]))
            e[2 * cc + 1] = hi, ie[2 * cc + 1] = jh;
        }
      }
    }
  }
  return 0;
}

static int copies(void *ctx, int nq, const gcuba_copies *q, int iter,
                  double *sum, double *ext, long long *iext)
{
  const int rc = copies_start(ctx, nq, q, iter, sum, ext, iext);
  return rc ? rc : copies_wait(ctx);
}

/* gDivonne's partition: the lists eval makes on the host, on the calling
   thread as CPU thread tid */
static int eval_on(void *ctx, int tid, long long n, const double *x,
                   int iter, double *f)
{
  sctx *t = (sctx *)ctx;
  (void)iter;
  if (!t->host || n > HOSTMAX) return GCUBA_FAIL_CUDA;
  return eval_host(t, n, x, f, tid);
}

static long long on_max(void *ctx)
{
  return ((sctx *)ctx)->host ? HOSTMAX : 0;
}

void gcuba_points_parts_of(void *ctx, gcuba_points_parts *p)
{
  const sctx *t = (const sctx *)ctx;
  p->c = t->c;
  p->stream = t->stream;
  p->ud = t->ud;
  p->status = t->status;
  p->h_status = t->h_status;
}

extern "C" const gcuba_suave_dev gcuba_suave_cuda;

extern "C" const gcuba_points_ops gcuba_points_cuda = {
    "gpu", create, destroy, eval, copies, eval_on, on_max, copies_start,
    copies_wait, &gcuba_suave_cuda};
