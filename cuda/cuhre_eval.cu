/* cuda/cuhre_eval.cu -- the CUDA backend of the Cuhre driver, its
   evaluation of the new leaves (the integrand's rule kernel; one
   dimension: points and Gauss-Kronrod), the two-level error, the exact
   sums, and the histogram of the keys the classification asks for (with
   the evaluation when the driver announced it: one round trip).  A
   collective call's members exchange their shares of the new results
   here.  This file is part of gcuba. */
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "cuda/cuhre_int.cuh"

/* The two-level error of the new pairs (children 2k, 2k+1 of parent k
   from `first' on, when pavg != NULL; in one dimension the
   Gauss-Kronrod check, gcuba_gk_twolevel; the cap of loose children
   sets their dims' regime bit), and the largest |avg_c| and
   |err_c| of all leaves into mx (the scales of the sums; mx cleared
   before) */
__global__ void k_twolevel(long long n, int ndim, int ncomp, double *avg,
                           double *err, int *dims, long long first,
                           const double *pavg,
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
                         &dims[i * ncomp + c], &avg[(i + 1) * ncomp + c],
                         &err[(i + 1) * ncomp + c],
                         &dims[(i + 1) * ncomp + c]);
        else
          gcuba_gk_twolevel(pavg[k * ncomp + c], perr[k * ncomp + c],
                            avg[i * ncomp + c], &err[i * ncomp + c],
                            avg[(i + 1) * ncomp + c],
                            &err[(i + 1) * ncomp + c]);
      m = 2;
    }
    /* a new region that straddles a known feature: its error is at least
       its integral until it is cut there (gcuba/detail/cut.h) */
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

dclassify gcuba_cz_dcl(const gcuba_call *c, const gcuba_classify *cl)
{
  dclassify d;
  memset(&d, 0, sizeof d);
  d.relfinish = cl->relfinish;
  d.ndim = c->ndim;
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
  return gcuba_cz_dcl(c, &rel);
}

/* host side of the exact sums: the scale of quantity q this iteration,
   and x128 number k of the pinned mirror */
int gcuba_cz_hscale(const gpu *t, int q) { return x_scale(t->hmax[q]); }

x128 gcuba_cz_hxs(const gpu *t, int k)
{
  x128 v;
  v.lo = t->hx[HX_XS + 2 * k];
  v.hi = t->hx[HX_XS + 2 * k + 1];
  return v;
}

/* n x128 sums from the device at dxs + k to the mirror (queued) */
int gcuba_cz_get_xs(gpu *t, int k, int n)
{
  CK(cudaMemcpyAsync(t->hx + HX_XS + 2 * k, t->dxs + k, sizeof(x128) * n,
                     cudaMemcpyDeviceToHost, t->stream));
  return 0;
}

/* The members' records of n long longs (this member's at hg + rank * n)
   gathered into hg; 0 or a fail code on every member */
int gcuba_cz_gather_rec(gpu *t, int n)
{
  const int size = t->c->coll->size;
  int r;
  for (r = 0; r < size; ++r) t->plan[r] = n;
  if (n > HG_REC) return gcuba_fail(t->c, GCUBA_FAIL_PARAM, "record size");
  return gcuba_coll_gather(t->c, t->hg, t->plan, GCUBA_COLL_LL);
}

/* x128 number k of member r's record of n */
x128 gcuba_cz_rec_x(const gpu *t, int r, int n, int k)
{
  x128 v;
  v.lo = (unsigned long long)t->hg[(size_t)r * n + 2 * k];
  v.hi = (unsigned long long)t->hg[(size_t)r * n + 2 * k + 1];
  return v;
}

void gcuba_cz_put_x(gpu *t, int n, int k, x128 v)
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
      gcuba_cz_put_x(t, n, GCUBA_HIST_BINS / 2 + c, gcuba_cz_hxs(t, XS_REL + c));
    if ((rc = gcuba_cz_gather_rec(t, n))) return rc;
    for (j = 0; j < GCUBA_HIST_BINS; ++j)
      for (h->count[j] = 0, r = 0; r < size; ++r)
        h->count[j] += t->hg[(size_t)r * n + j];
    for (c = 0; c < nc; ++c) {
      x128 s;
      s.lo = s.hi = 0;
      for (r = 0; r < size; ++r)
        x_add(&s, gcuba_cz_rec_x(t, r, n, GCUBA_HIST_BINS / 2 + c));
      relerr[c] = relfinish ? x_double(s, gcuba_cz_hscale(t, nc + c)) : 0;
    }
  } else
    for (c = 0; c < nc; ++c)
      relerr[c] = relfinish ? x_double(gcuba_cz_hxs(t, XS_REL + c), gcuba_cz_hscale(t, nc + c))
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

int gcuba_cz_hist(void *ctx, const gcuba_classify *cl, gcuba_hist *h,
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
    k_hist<<<gcuba_cz_red_blocks(t->n), RED_THREADS, 0, t->stream>>>(
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
void gcuba_cz_hint(void *ctx, const gcuba_classify *cl, const double *finavg)
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
  if (!krc && !k->allgatherv_dev && gcuba_cz_hostbuf_grow(&t->xh, bytes))
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
    k_sums<<<gcuba_cz_red_blocks(t->n), RED_THREADS, 0, t->stream>>>(
        t->n, nc, t->a.avg, t->a.err, t->dmax, t->dstatus, t->dhcount,
        t->dxpart, t->dxs + XS_SUM, t->dsum, t->dticket);
    krc = GCUBA_CK_LAUNCH(c, "k_sums");
  }
  if (!krc) krc = gcuba_cz_get_xs(t, XS_SUM, q2);
  if (!krc) krc = GCUBA_CK(c, cudaStreamSynchronize(t->stream));
  if (!krc && timing) {
    float ms = 0;
    krc = GCUBA_CK(c, cudaEventElapsedTime(&ms, t->ev[0], t->ev[1]));
    t->kms += ms;
  }
  if ((rc = gcuba_coll_status(c, krc))) return rc;
  for (q = 0; q < q2; ++q) gcuba_cz_put_x(t, n, q, gcuba_cz_hxs(t, XS_SUM + q));
  if ((rc = gcuba_cz_gather_rec(t, n))) return rc;
  for (q = 0; q < q2; ++q) {
    x128 s;
    s.lo = s.hi = 0;
    for (r = 0; r < c->coll->size; ++r) x_add(&s, gcuba_cz_rec_x(t, r, n, q));
    if (q < nc) sumavg[q] = x_double(s, gcuba_cz_hscale(t, q));
    else sumerr[q - nc] = x_double(s, gcuba_cz_hscale(t, q));
  }
  t->nold = t->n;
  t->gnold = t->gn;
  return 0;
}

int gcuba_cz_eval(void *ctx, double *sumavg, double *sumerr)
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
      k_gk_points<<<gcuba_cz_nblocks(m * np, 256), 256, 0, t->stream>>>(
          a.first, m, np, t->a.lo, t->a.wk, t->a.w, t->du, t->dx);
      if ((krc = GCUBA_CK_LAUNCH(t->c, "k_gk_points"))) break;
      rc = t->c->integrand->gpu->eval_points(1, t->ncomp, m * np, t->dx,
                                              t->df, t->duser, t->dstatus,
                                              t->stream);
      if (rc) {
        krc = GCUBA_CK(t->c, (cudaError_t)rc);
        break;
      }
      k_gk_apply<<<gcuba_cz_nblocks(m, 128), 128, 0, t->stream>>>(
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
    k_twolevel<<<gcuba_cz_red_blocks(t->n), RED_THREADS, 0, t->stream>>>(
        t->n, t->ndim, t->ncomp, t->a.avg, t->a.err, t->a.dims, t->nold,
        t->haveparents ? t->pavg : NULL, t->perr, t->dmax, t->a.lo, t->a.w,
        gcuba_cz_cutmap(t));
    krc = GCUBA_CK_LAUNCH(t->c, "k_twolevel");
  }
  if (t->dist) return eval_dist(t, krc, timing, sumavg, sumerr);
  if (krc) return krc;
  k_sums<<<gcuba_cz_red_blocks(t->n), RED_THREADS, 0, t->stream>>>(
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
    k_hist<<<gcuba_cz_red_blocks(t->n), RED_THREADS, 0, t->stream>>>(
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
    sumavg[c] = x_double(gcuba_cz_hxs(t, XS_SUM + c), gcuba_cz_hscale(t, c));
    sumerr[c] = x_double(gcuba_cz_hxs(t, XS_SUM + t->ncomp + c),
                         gcuba_cz_hscale(t, t->ncomp + c));
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
