/* cuda/suave.cu -- gSuave's samples on the GPU (src/suave/suave.h,
   gcuba_suave_dev): every region's samples stay in one block of device
   memory, laid out as the host's, from the pool of the run (stream
   ordered: a block freed is reused without a synchronisation), and the
   passes of a step run there:
   - the draw of a set (one thread a point: the same Sobol or Philox
     numbers and the same map as the host's, gcuba/detail/suave.h) and
     the integrand's eval_points on it;
   - the halves' fluctuations (k_ft, then per axis and chunk k_scan, then
     the chunks in order);
   - the share: each sample's side, their exclusive sum (cub), each
     sample moved to its place, the last of its set on its side marked;
   - the bins of the own set (k_q, per axis and chunk k_marg, then the
     chunks in order);
   - the sets' sums (a block per set and component).
   Every sum is a fixed tree over fixed chunks: a run gives the same bits
   every time, and through a state file; not those of the CPU backend,
   whose sums are sequential and whose pow and exp differ in the last
   bits.  Every CUDA call and launch is checked.  This file is part of
   gcuba. */
#include <cuda_runtime.h>
#include <cub/device/device_scan.cuh>
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "common.cuh"
#include "suave/suave.h"
#include "gcuba/detail/gpu_ops.h"
#include "gcuba/detail/suave.h"
#include "gcuba/detail/vegas.h"

#define NB GCUBA_SUAVE_NB
/* threads of the reducing kernels (a power of two) */
#define RT 256
/* the samples of a chunk of the scan and of the bins: at least this
   many, and at most MAXCH chunks */
#define CHUNK 4096
#define MAXCH 1024

struct dblk {
  char *p;
  long long n, nown;
  size_t bytes;
};

/* a result on its way to the host: m doubles of the host's work at oh
   to dst at the next wait (as long longs when ll) */
struct pend {
  void *dst;
  size_t oh, m;
  int ll;
};
#define MAXPEND 8

struct dsv {
  gcuba_points_parts t;
  int nd, nc;
  size_t np;           /* a draw's parameters: lo, hi, the grids */
  uint64_t seed;
  uint64_t *sobol;     /* device [nd 64] or NULL */
  cudaMemPool_t pool;
  int haspool;
  /* the work of the passes queued since the last wait: on the device
     (doubles) and in pinned host memory (what goes out or comes back),
     ud and uh of them used */
  double *scr, *h_scr;
  size_t scap, hcap, ud, uh;
  pend pend[MAXPEND];
  int npend;
  int *side;           /* [n + 1] sides, then their exclusive sum */
  long long sidecap;
  void *cub;
  size_t cubcap;
};

static double *bw(const dblk *b) { return (double *)b->p; }
static double *bx(const dblk *b) { return bw(b) + b->n; }
static double *bf(const dblk *b, int nd)
{
  return bx(b) + (size_t)b->n * nd;
}
static double *bsn(const dblk *b, int nd, int nc)
{
  return bf(b, nd) + (size_t)b->n * nc;
}
static unsigned char *bbin(const dblk *b, int nd, int nc)
{
  return (unsigned char *)(bsn(b, nd, nc) + b->n);
}

/* ---- the work of the queued passes */

static int wait(void *dp);

/* room for dn doubles of the device's work and hn of the host's after
   those used: their places *od, *oh.  When the device's is full, what is
   queued is waited for (its work there is done with); the host's grows
   with its results kept */
static int take(dsv *d, size_t dn, size_t hn, size_t *od, size_t *oh)
{
  gcuba_call *c = d->t.c;
  int rc;
  if (d->ud + dn > d->scap || d->uh + hn > d->hcap) {
    if ((rc = GCUBA_CK(c, cudaStreamSynchronize(d->t.stream)))) return rc;
    d->ud = 0;
  }
  if (dn > d->scap) {
    const size_t cap = dn > 2 * d->scap ? dn : 2 * d->scap;
    cudaFree(d->scr);
    d->scr = NULL;
    d->scap = 0;
    if ((rc = GCUBA_CK(c, gcuba_cuda_malloc(&d->scr, sizeof(double) * cap))))
      return rc;
    d->scap = cap;
  }
  if (d->uh + hn > d->hcap) {
    const size_t cap = d->uh + hn > 2 * d->hcap ? d->uh + hn : 2 * d->hcap;
    double *h;
    if ((rc = GCUBA_CK(c, cudaMallocHost(&h, sizeof(double) * cap))))
      return rc;
    if (d->uh) memcpy(h, d->h_scr, sizeof(double) * d->uh);
    cudaFreeHost(d->h_scr);
    d->h_scr = h;
    d->hcap = cap;
  }
  *od = d->ud;
  *oh = d->uh;
  d->ud += dn;
  d->uh += hn;
  return 0;
}

/* m doubles from p to the device's work at od, through the host's at oh */
static int send(dsv *d, size_t od, size_t oh, const void *p, size_t m)
{
  memcpy(d->h_scr + oh, p, sizeof(double) * m);
  return GCUBA_CK(d->t.c, cudaMemcpyAsync(d->scr + od, d->h_scr + oh,
                                          sizeof(double) * m,
                                          cudaMemcpyHostToDevice,
                                          d->t.stream));
}

/* m doubles of the device's work at od to the host's at oh, then to dst
   at the next wait (as long longs when ll) */
static int out(dsv *d, size_t od, size_t oh, size_t m, void *dst, int ll)
{
  int rc;
  if (d->npend == MAXPEND && (rc = wait(d))) return rc;
  d->pend[d->npend].dst = dst;
  d->pend[d->npend].oh = oh;
  d->pend[d->npend].m = m;
  d->pend[d->npend++].ll = ll;
  return GCUBA_CK(d->t.c, cudaMemcpyAsync(d->h_scr + oh, d->scr + od,
                                          sizeof(double) * m,
                                          cudaMemcpyDeviceToHost,
                                          d->t.stream));
}

/* everything queued done, the results in their places; the integrand's
   status checked */
static int wait(void *dp)
{
  dsv *d = (dsv *)dp;
  gcuba_call *c = d->t.c;
  int rc, i;
  size_t k;
  if ((rc = GCUBA_CK(c, cudaMemcpyAsync(d->t.h_status, d->t.status,
                                        sizeof(int), cudaMemcpyDeviceToHost,
                                        d->t.stream))) ||
      (rc = GCUBA_CK(c, cudaStreamSynchronize(d->t.stream))))
    return rc;
  for (i = 0; i < d->npend; ++i) {
    const pend *p = d->pend + i;
    const double *h = d->h_scr + p->oh;
    if (p->ll)
      for (k = 0; k < p->m; ++k) ((long long *)p->dst)[k] = (long long)h[k];
    else
      memcpy(p->dst, h, sizeof(double) * p->m);
  }
  d->npend = 0;
  d->ud = d->uh = 0;
  if (*d->t.h_status & GCUBA_ST_ABORT)
    return gcuba_fail(c, GCUBA_FAIL_ABORT, "%s",
                      gcuba_fail_message(GCUBA_FAIL_ABORT));
  if (*d->t.h_status & GCUBA_ST_NONFINITE)
    return gcuba_fail(c, GCUBA_FAIL_NAN, "%s",
                      gcuba_fail_message(GCUBA_FAIL_NAN));
  return 0;
}

static unsigned blocks(long long n, int t)
{
  return (unsigned)((n + t - 1) / t);
}

/* the samples of a chunk of a pass over n */
static long long chunk_of(long long n)
{
  const long long c = (n + MAXCH - 1) / MAXCH;
  return c > CHUNK ? c : CHUNK;
}

/* ---- the block tree of the reductions: s[0] the sum of s[0..RT) in a
   fixed order */
template <typename T, typename Op>
__device__ void tree(T *s, Op op)
{
  int h;
  for (h = RT / 2; h > 0; h >>= 1) {
    __syncthreads();
    if ((int)threadIdx.x < h)
      s[threadIdx.x] = op(s[threadIdx.x], s[threadIdx.x + h]);
  }
  __syncthreads();
}

__device__ double capadd(double a, double b)
{
  const double v = a + b;
  return v < DBL_MAX / 2 ? v : DBL_MAX / 2;
}
struct capsum {
  __device__ double operator()(double a, double b) const
  {
    return capadd(a, b);
  }
};
struct plus {
  template <typename T>
  __device__ T operator()(T a, T b) const { return a + b; }
};
struct dmin {
  __device__ double operator()(double a, double b) const
  {
    return b < a ? b : a;
  }
};
struct dmax {
  __device__ double operator()(double a, double b) const
  {
    return b > a ? b : a;
  }
};

/* ---- the draw */

__global__ void k_draw(int nd, long long m, long long at, uint64_t i0,
                       const uint64_t *sob, uint64_t seed, const double *par,
                       double jac, double *w, double *x, double *sn,
                       unsigned char *bin)
{
  const long long k = blockIdx.x * (long long)blockDim.x + threadIdx.x;
  const double *lo = par, *hi = par + nd, *e = par + 2 * nd;
  const uint64_t i = i0 + (uint64_t)k;
  double wt = 1, *xk;
  unsigned char *bk;
  uint32_t r4[4];
  int a;
  if (k >= m) return;
  xk = x + (at + k) * nd;
  bk = bin + k * nd;
  for (a = 0; a < nd; ++a, e += NB + 1) {
    double u;
    if (sob)
      u = gcuba_vegas_sobol_value(gcuba_vegas_sobol_bits(sob + a * 64, i));
    else {
      if (!(a & 1)) gcuba_vegas_philox(seed, 0, i, (uint32_t)(a >> 1), r4);
      u = a & 1 ? gcuba_vegas_u01(r4[2], r4[3])
                : gcuba_vegas_u01(r4[0], r4[1]);
    }
    wt *= gcuba_suave_map1(u, lo[a], hi[a], e, xk + a, bk + a);
  }
  w[at + k] = k == m - 1 ? -(jac * wt) : jac * wt;
  sn[at + k] = (double)m;
}

static int draw(void *dp, void *bp, const double *lo, const double *hi,
                const double *grid, double jac, uint64_t i0)
{
  dsv *d = (dsv *)dp;
  const dblk *b = (const dblk *)bp;
  gcuba_call *c = d->t.c;
  const int nd = d->nd;
  const long long m = b->nown, at = b->n - b->nown;
  size_t od, oh;
  int rc;
  if ((rc = take(d, d->np, d->np, &od, &oh))) return rc;
  memcpy(d->h_scr + oh, lo, sizeof(double) * nd);
  memcpy(d->h_scr + oh + nd, hi, sizeof(double) * nd);
  memcpy(d->h_scr + oh + 2 * nd, grid, sizeof(double) * nd * (NB + 1));
  if ((rc = GCUBA_CK(c, cudaMemcpyAsync(d->scr + od, d->h_scr + oh,
                                        sizeof(double) * d->np,
                                        cudaMemcpyHostToDevice,
                                        d->t.stream))))
    return rc;
  if (m <= 0) return 0;
  k_draw<<<blocks(m, 128), 128, 0, d->t.stream>>>(
      nd, m, at, i0, d->sobol, d->seed, d->scr + od, jac, bw(b), bx(b),
      bsn(b, nd, d->nc), bbin(b, nd, d->nc));
  if ((rc = GCUBA_CK_LAUNCH(c, "k_draw"))) return rc;
  rc = c->integrand->gpu->eval_points(nd, d->nc, m, bx(b) + at * nd,
                                      bf(b, nd) + at * d->nc, d->t.ud,
                                      d->t.status, d->t.stream);
  return rc ? GCUBA_CK(c, (cudaError_t)rc) : 0;
}

/* ---- the halves' fluctuations */

__global__ void k_ft(long long n, int nc, int comp, const double *w,
                     const double *f, double avg, double norm, double amax,
                     double flat, double *ft)
{
  const long long k = blockIdx.x * (long long)blockDim.x + threadIdx.x;
  double d, arg;
  if (k >= n) return;
  d = f[k * nc + comp] - avg;
  arg = 1 + fabs(w[k]) * d * d * norm;
  if (arg > amax) arg = amax;
  ft[k] = pow(arg, flat);
}

/* block (chunk, axis): the chunk's sums left and right of the middle
   and its count on the right: part[(a C + chunk) 3 + 0, 1, 2] */
__global__ void k_scan(long long n, int nd, long long ch, const double *x,
                       const double *ft, const double *mid, double *part)
{
  __shared__ double sl[RT], sr[RT];
  __shared__ long long cr[RT];
  const int a = blockIdx.y;
  const long long k0 = blockIdx.x * ch,
                  k1 = k0 + ch < n ? k0 + ch : n;
  const double m = mid[a];
  double l = 0, r = 0;
  long long nr = 0, k;
  for (k = k0 + threadIdx.x; k < k1; k += RT) {
    const double v = ft[k];
    if (x[k * nd + a] >= m) {
      r = capadd(r, v);
      ++nr;
    } else
      l = capadd(l, v);
  }
  sl[threadIdx.x] = l;
  sr[threadIdx.x] = r;
  cr[threadIdx.x] = nr;
  tree(sl, capsum());
  tree(sr, capsum());
  tree(cr, plus());
  if (threadIdx.x == 0) {
    double *q = part + ((size_t)a * gridDim.x + blockIdx.x) * 3;
    q[0] = sl[0];
    q[1] = sr[0];
    q[2] = (double)cr[0];
  }
}

/* the chunks in order: out[2a + side] the sums, out[2 nd + 2a + side]
   the counts (as doubles, exact) */
__global__ void k_scan_sum(long long n, int nd, long long nch,
                           const double *part, double *out)
{
  const int a = blockIdx.x * blockDim.x + threadIdx.x;
  double l = 0, r = 0, nr = 0;
  long long j;
  if (a >= nd) return;
  for (j = 0; j < nch; ++j) {
    const double *q = part + ((size_t)a * nch + j) * 3;
    l = capadd(l, q[0]);
    r = capadd(r, q[1]);
    nr += q[2];
  }
  out[2 * a] = l;
  out[2 * a + 1] = r;
  out[2 * nd + 2 * a] = (double)n - nr;
  out[2 * nd + 2 * a + 1] = nr;
}

static int scan(void *dp, void *bp, int comp, double avg, double norm,
                double amax, double flatness, const double *mid, double *fl,
                long long *fn)
{
  dsv *d = (dsv *)dp;
  const dblk *b = (const dblk *)bp;
  gcuba_call *c = d->t.c;
  const int nd = d->nd;
  const long long n = b->n, ch = chunk_of(n), nch = (n + ch - 1) / ch;
  /* the device's work: mid [nd], out [4 nd], the chunks' [3 nd nch], ft
     [n]; the host's: mid, out */
  const size_t oout = nd, opart = 5 * (size_t)nd,
               oft = opart + 3 * (size_t)nd * nch;
  size_t od, oh;
  int rc;
  if ((rc = take(d, oft + n, 5 * (size_t)nd, &od, &oh)) ||
      (rc = send(d, od, oh, mid, nd)))
    return rc;
  if (n > 0) {
    k_ft<<<blocks(n, 256), 256, 0, d->t.stream>>>(
        n, d->nc, comp, bw(b), bf(b, nd), avg, norm, amax, flatness,
        d->scr + od + oft);
    if ((rc = GCUBA_CK_LAUNCH(c, "k_ft"))) return rc;
    k_scan<<<dim3((unsigned)nch, (unsigned)nd), RT, 0, d->t.stream>>>(
        n, nd, ch, bx(b), d->scr + od + oft, d->scr + od,
        d->scr + od + opart);
    if ((rc = GCUBA_CK_LAUNCH(c, "k_scan"))) return rc;
  }
  k_scan_sum<<<blocks(nd, 128), 128, 0, d->t.stream>>>(
      n, nd, n > 0 ? nch : 0, d->scr + od + opart, d->scr + od + oout);
  if ((rc = GCUBA_CK_LAUNCH(c, "k_scan_sum")) ||
      (rc = out(d, od + oout, oh + oout, 2 * (size_t)nd, fl, 0)))
    return rc;
  return out(d, od + oout + 2 * nd, oh + oout + 2 * nd, 2 * (size_t)nd, fn,
             1);
}

/* ---- the share */

__global__ void k_side(long long n, int nd, int dim, double mid,
                       const double *x, int *side)
{
  const long long k = blockIdx.x * (long long)blockDim.x + threadIdx.x;
  if (k < n) side[k] = !(x[k * nd + dim] < mid);
  else if (k == n) side[k] = 0;
}

/* sample k to its place (cr: the right ones before it, exclusive), its
   weight negative when it is the last of its set on its side */
__global__ void k_move(long long n, int nd, int nc, int nset,
                       const double *ends, const int *cr, const double *w,
                       const double *x, const double *f, const double *sn,
                       double *lw, double *lx, double *lf, double *lsn,
                       double *rw, double *rx, double *rf, double *rsn)
{
  const long long k = blockIdx.x * (long long)blockDim.x + threadIdx.x;
  int lo = 0, hi = nset - 1, j;
  long long e, pos;
  int last, i;
  double *dw, *dx, *df, *dsn;
  if (k >= n) return;
  /* the set of k: the first end beyond it */
  while (lo < hi) {
    const int m = (lo + hi) / 2;
    if ((long long)ends[m] > k) hi = m;
    else lo = m + 1;
  }
  j = lo;
  e = (long long)ends[j];
  if (cr[k + 1] - cr[k]) {
    pos = cr[k];
    last = cr[k] + 1 == cr[e];
    dw = rw, dx = rx, df = rf, dsn = rsn;
  } else {
    pos = k - cr[k];
    last = pos + 1 == e - cr[e];
    dw = lw, dx = lx, df = lf, dsn = lsn;
  }
  dw[pos] = last ? -fabs(w[k]) : fabs(w[k]);
  dsn[pos] = sn[k];
  for (i = 0; i < nd; ++i) dx[pos * nd + i] = x[k * nd + i];
  for (i = 0; i < nc; ++i) df[pos * nc + i] = f[k * nc + i];
}

__global__ void k_right(int nset, const double *ends, const int *cr,
                        double *right)
{
  const int j = blockIdx.x * blockDim.x + threadIdx.x;
  if (j < nset)
    right[j] = (double)(cr[(long long)ends[j]] -
                        cr[j ? (long long)ends[j - 1] : 0]);
}

static int share(void *dp, void *bp, int nset, const long long *ends,
                 int dim, double mid, void *lp, void *rp, long long *right)
{
  dsv *d = (dsv *)dp;
  const dblk *b = (const dblk *)bp, *L = (const dblk *)lp,
             *R = (const dblk *)rp;
  gcuba_call *c = d->t.c;
  const int nd = d->nd, nc = d->nc;
  const long long n = b->n;
  size_t tb = 0, od, oh;
  double *e;
  int rc, j;
  if (n + 1 > 0x7fffffffLL)
    return gcuba_fail(c, GCUBA_FAIL_DEVMEM, "gSuave: a region of %lld "
                      "samples is beyond the GPU's share", n);
  /* the work: the ends [nset] (as doubles: exact), right [nset] */
  if ((rc = take(d, 2 * (size_t)nset, 2 * (size_t)nset, &od, &oh))) return rc;
  e = d->h_scr + oh;
  for (j = 0; j < nset; ++j) e[j] = (double)ends[j];
  if ((rc = GCUBA_CK(c, cudaMemcpyAsync(d->scr + od, e,
                                        sizeof(double) * nset,
                                        cudaMemcpyHostToDevice,
                                        d->t.stream))))
    return rc;
  if (n + 1 > d->sidecap) {
    const long long cap = 2 * (n + 1);
    if ((rc = GCUBA_CK(c, cudaStreamSynchronize(d->t.stream)))) return rc;
    cudaFree(d->side);
    d->side = NULL;
    d->sidecap = 0;
    if ((rc = GCUBA_CK(c, gcuba_cuda_malloc(&d->side, sizeof(int) * 2 * cap))))
      return rc;
    d->sidecap = cap;
  }
  cub::DeviceScan::ExclusiveSum(NULL, tb, (const int *)NULL, (int *)NULL,
                                (int)(n + 1));
  if (tb > d->cubcap) {
    if ((rc = GCUBA_CK(c, cudaStreamSynchronize(d->t.stream)))) return rc;
    cudaFree(d->cub);
    d->cub = NULL;
    d->cubcap = 0;
    if ((rc = GCUBA_CK(c, gcuba_cuda_malloc(&d->cub, tb)))) return rc;
    d->cubcap = tb;
  }
  tb = d->cubcap;
  k_side<<<blocks(n + 1, 256), 256, 0, d->t.stream>>>(n, nd, dim, mid,
                                                       bx(b), d->side);
  if ((rc = GCUBA_CK_LAUNCH(c, "k_side")) ||
      (rc = GCUBA_CK(c, cub::DeviceScan::ExclusiveSum(
                            d->cub, tb, d->side, d->side + d->sidecap,
                            (int)(n + 1), d->t.stream))))
    return rc;
  if (n > 0) {
    k_move<<<blocks(n, 256), 256, 0, d->t.stream>>>(
        n, nd, nc, nset, d->scr + od, d->side + d->sidecap, bw(b), bx(b),
        bf(b, nd), bsn(b, nd, nc), bw(L), bx(L), bf(L, nd), bsn(L, nd, nc),
        bw(R), bx(R), bf(R, nd), bsn(R, nd, nc));
    if ((rc = GCUBA_CK_LAUNCH(c, "k_move"))) return rc;
  }
  k_right<<<blocks(nset, 128), 128, 0, d->t.stream>>>(
      nset, d->scr + od, d->side + d->sidecap, d->scr + od + nset);
  if ((rc = GCUBA_CK_LAUNCH(c, "k_right"))) return rc;
  return out(d, od + nset, oh + nset, nset, right, 1);
}

/* ---- the bins' contributions of the own set */

__global__ void k_q(long long m, int nc, const double *w, const double *f,
                    const double *scale, double *q)
{
  const long long k = blockIdx.x * (long long)blockDim.x + threadIdx.x;
  double s = 0;
  int c;
  if (k >= m) return;
  for (c = 0; c < nc; ++c)
    s += (f[k * nc + c] * scale[c]) * (f[k * nc + c] * scale[c]);
  q[k] = s * (w[k] * w[k]);
}

/* block (chunk, axis), thread b: the chunk's samples in bin b */
__global__ void k_marg(long long m, int nd, long long ch, const double *q,
                       const unsigned char *bin, double *part)
{
  const int a = blockIdx.y, b = threadIdx.x;
  const long long k0 = blockIdx.x * ch, k1 = k0 + ch < m ? k0 + ch : m;
  double s = 0;
  long long k;
  for (k = k0; k < k1; ++k)
    if (bin[k * nd + a] == b) s += q[k];
  part[((size_t)blockIdx.x * nd + a) * NB + b] = s;
}

__global__ void k_marg_sum(int nd, long long nch, const double *part,
                           double *out)
{
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  double s = 0;
  long long j;
  if (i >= nd * NB) return;
  for (j = 0; j < nch; ++j) s += part[(size_t)j * nd * NB + i];
  out[i] = s;
}

static int marg(void *dp, void *bp, const double *scale, double *res)
{
  dsv *d = (dsv *)dp;
  const dblk *b = (const dblk *)bp;
  gcuba_call *c = d->t.c;
  const int nd = d->nd, nc = d->nc;
  const long long m = b->nown, at = b->n - b->nown, ch = chunk_of(m),
                  nch = (m + ch - 1) / ch;
  const size_t nb = (size_t)nd * NB;
  /* the device's work: scale [nc], out [nd NB], the chunks' [nch nd NB],
     q [m]; the host's: scale, out */
  const size_t oout = nc, opart = oout + nb, oq = opart + nb * nch;
  size_t od, oh;
  int rc;
  if ((rc = take(d, oq + m, oout + nb, &od, &oh)) ||
      (rc = send(d, od, oh, scale, nc)))
    return rc;
  if (m > 0) {
    k_q<<<blocks(m, 256), 256, 0, d->t.stream>>>(
        m, nc, bw(b) + at, bf(b, nd) + at * nc, d->scr + od,
        d->scr + od + oq);
    if ((rc = GCUBA_CK_LAUNCH(c, "k_q"))) return rc;
    k_marg<<<dim3((unsigned)nch, (unsigned)nd), NB, 0, d->t.stream>>>(
        m, nd, ch, d->scr + od + oq, bbin(b, nd, nc), d->scr + od + opart);
    if ((rc = GCUBA_CK_LAUNCH(c, "k_marg"))) return rc;
  }
  k_marg_sum<<<blocks((long long)nb, 256), 256, 0, d->t.stream>>>(
      nd, m > 0 ? nch : 0, d->scr + od + opart, d->scr + od + oout);
  if ((rc = GCUBA_CK_LAUNCH(c, "k_marg_sum"))) return rc;
  return out(d, od + oout, oh + oout, nb, res, 0);
}

/* ---- the sets' sums: block (set, component) */

__global__ void k_sets(int nc, const double *ends, const double *w,
                       const double *f, const double *sn, double *rec)
{
  __shared__ double ss[RT], sq[RT], lo[RT], hi[RT];
  const int j = blockIdx.x, c = blockIdx.y;
  const long long k0 = j ? (long long)ends[j - 1] : 0,
                  k1 = (long long)ends[j];
  double s = 0, s2 = 0, l = INFINITY, h = -INFINITY;
  long long k;
  for (k = k0 + threadIdx.x; k < k1; k += RT) {
    const double v = fabs(w[k]) * f[k * nc + c];
    s += v;
    s2 += v * v;
    if (v < l) l = v;
    if (v > h) h = v;
  }
  ss[threadIdx.x] = s;
  sq[threadIdx.x] = s2;
  lo[threadIdx.x] = l;
  hi[threadIdx.x] = h;
  tree(ss, plus());
  tree(sq, plus());
  tree(lo, dmin());
  tree(hi, dmax());
  if (threadIdx.x == 0) {
    double *q = rec + (size_t)j * (1 + 4 * (size_t)nc);
    if (c == 0) q[0] = sn[k1 - 1];
    q[1 + 4 * c] = ss[0];
    q[2 + 4 * c] = sq[0];
    q[3 + 4 * c] = lo[0];
    q[4 + 4 * c] = hi[0];
  }
}

static int sets(void *dp, void *bp, int nset, const long long *ends,
                double *rec)
{
  dsv *d = (dsv *)dp;
  const dblk *b = (const dblk *)bp;
  gcuba_call *c = d->t.c;
  const int nd = d->nd, nc = d->nc;
  const size_t rw = 1 + 4 * (size_t)nc, nr = rw * nset;
  size_t od, oh;
  double *e;
  int rc, j;
  /* the work: the ends [nset], the records [nset rw] */
  if ((rc = take(d, nset + nr, nset + nr, &od, &oh))) return rc;
  e = d->h_scr + oh;
  for (j = 0; j < nset; ++j) e[j] = (double)ends[j];
  if ((rc = GCUBA_CK(c, cudaMemcpyAsync(d->scr + od, e,
                                        sizeof(double) * nset,
                                        cudaMemcpyHostToDevice,
                                        d->t.stream))))
    return rc;
  if (nset > 0) {
    k_sets<<<dim3((unsigned)nset, (unsigned)nc), RT, 0, d->t.stream>>>(
        nc, d->scr + od, bw(b), bf(b, nd), bsn(b, nd, nc),
        d->scr + od + nset);
    if ((rc = GCUBA_CK_LAUNCH(c, "k_sets"))) return rc;
  }
  return out(d, od + nset, oh + nset, nr, rec, 0);
}

/* ---- blocks */

static void *alloc(void *dp, long long n, long long nown)
{
  dsv *d = (dsv *)dp;
  gcuba_call *c = d->t.c;
  dblk *b = (dblk *)calloc(1, sizeof *b);
  if (!b) {
    gcuba_fail(c, GCUBA_FAIL_NOMEM, "gSuave: a region's block");
    return NULL;
  }
  b->n = n;
  b->nown = nown;
  b->bytes = sizeof(double) * (size_t)n * (2 + d->nd + d->nc) +
             (size_t)nown * d->nd;
  if (b->bytes) {
    const cudaError_t e = cudaMallocFromPoolAsync((void **)&b->p, b->bytes,
                                                  d->pool, d->t.stream);
    if (e == cudaErrorMemoryAllocation) {
      /* the device is full: the driver stops (fail 1), c->fail untouched */
      (void)cudaGetLastError();
      free(b);
      return NULL;
    }
    if (GCUBA_CK(c, e)) {
      free(b);
      return NULL;
    }
  }
  return b;
}

static void release(void *dp, void *bp)
{
  dsv *d = (dsv *)dp;
  dblk *b = (dblk *)bp;
  if (!b) return;
  if (b->p) GCUBA_CK(d->t.c, cudaFreeAsync(b->p, d->t.stream));
  free(b);
}

static int get(void *dp, void *bp, void *host)
{
  dsv *d = (dsv *)dp;
  const dblk *b = (const dblk *)bp;
  gcuba_call *c = d->t.c;
  int rc;
  if ((rc = GCUBA_CK(c, cudaMemcpyAsync(host, b->p, b->bytes,
                                        cudaMemcpyDeviceToHost,
                                        d->t.stream))))
    return rc;
  return GCUBA_CK(c, cudaStreamSynchronize(d->t.stream));
}

static int put(void *dp, void *bp, const void *host)
{
  dsv *d = (dsv *)dp;
  const dblk *b = (const dblk *)bp;
  gcuba_call *c = d->t.c;
  int rc;
  if ((rc = GCUBA_CK(c, cudaMemcpyAsync(b->p, host, b->bytes,
                                        cudaMemcpyHostToDevice,
                                        d->t.stream))))
    return rc;
  return GCUBA_CK(c, cudaStreamSynchronize(d->t.stream));
}

/* ---- the run's part */

static void destroy(void *dp)
{
  dsv *d = (dsv *)dp;
  if (!d) return;
  /* clean-up after a failure too: errors here change nothing */
  cudaStreamSynchronize(d->t.stream);
  cudaFree(d->sobol);
  cudaFree(d->scr);
  cudaFreeHost(d->h_scr);
  cudaFree(d->side);
  cudaFree(d->cub);
  if (d->haspool) cudaMemPoolDestroy(d->pool);
  (void)cudaGetLastError();
  free(d);
}

static void *create(void *pctx, const uint64_t *sobol, uint64_t seed,
                    int *fail)
{
  gcuba_points_parts t;
  dsv *d;
  gcuba_call *c;
  cudaMemPoolProps pp;
  uint64_t keep = ~(uint64_t)0;
  int dev;
  gcuba_points_parts_of(pctx, &t);
  c = t.c;
  if (!(d = (dsv *)calloc(1, sizeof *d))) {
    *fail = gcuba_fail(c, GCUBA_FAIL_NOMEM, "gSuave: the GPU's passes");
    return NULL;
  }
  d->t = t;
  d->nd = c->ndim;
  d->nc = c->ncomp;
  d->seed = seed;
  d->np = 2 * (size_t)d->nd + (size_t)d->nd * (NB + 1);
  memset(&pp, 0, sizeof pp);
  pp.allocType = cudaMemAllocationTypePinned;
  pp.location.type = cudaMemLocationTypeDevice;
  if ((*fail = GCUBA_CK(c, cudaGetDevice(&dev)))) goto bad;
  pp.location.id = dev;
  if ((*fail = GCUBA_CK(c, cudaMemPoolCreate(&d->pool, &pp)))) goto bad;
  d->haspool = 1;
  /* freed blocks stay in the pool for the run's next ones */
  if ((*fail = GCUBA_CK(c, cudaMemPoolSetAttribute(
                               d->pool, cudaMemPoolAttrReleaseThreshold,
                               &keep))))
    goto bad;
  if (sobol) {
    const size_t bytes = sizeof(uint64_t) * 64 * (size_t)d->nd;
    if ((*fail = GCUBA_CK(c, gcuba_cuda_malloc(&d->sobol, bytes))) ||
        (*fail = GCUBA_CK(c, cudaMemcpy(d->sobol, sobol, bytes,
                                        cudaMemcpyHostToDevice))))
      goto bad;
  }
  return d;
bad:
  destroy(d);
  return NULL;
}

extern "C" const gcuba_suave_dev gcuba_suave_cuda = {
    create, destroy, alloc, release, draw, scan, share, marg, sets, wait,
    get, put};
