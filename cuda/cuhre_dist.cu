/* cuda/cuhre_dist.cu -- the CUDA backend of the Cuhre driver, its
   distributed store: when a collective call's partition would not fit
   one GPU, every member holds a share of the leaves in the one-GPU order
   and sends the leaves whose place falls in another member's share to
   it after each split; loading and saving such a store.  Every decision
   uses global counts and exact sums, so the result is the one GPU's bits.
   This file is part of gcuba. */
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <cub/device/device_scan.cuh>
#include "cuda/cuhre_int.cuh"

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

int gcuba_cz_apply_dist(gpu *t, const gcuba_classify *cl, double *finavg,
                      double *finerr)
{
  gcuba_call *c = t->c;
  const int size = c->coll->size, me = c->coll->rank, nc = t->ncomp;
  const int q2 = 2 * nc, nrec = 4 + 2 * q2;
  const dclassify d = gcuba_cz_dcl(c, cl);
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
  krc = !t->wd && c->cutmap && c->cutmap->nfeat ? gcuba_cz_to_doubles(t) : 0;
  /* classify, sum the finished leaves, scan the marks */
  if (!krc) {
    krc = gcuba_cz_mark(t, &d);
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
  if (!krc) krc = gcuba_cz_get_xs(t, XS_FIN, q2);
  if (!krc) krc = GCUBA_CK(c, cudaStreamSynchronize(t->stream));
  if ((rc = gcuba_coll_status(c, krc))) return rc;
  /* every member's counts per segment, and finished sums */
  {
    long long *mine = t->hg + (size_t)me * nrec;
    mine[0] = tot[0] >> 32;
    mine[1] = tot[0] & 0xffffffffLL;
    mine[2] = (tot[1] >> 32) - mine[0];
    mine[3] = (tot[1] & 0xffffffffLL) - mine[1];
    for (q = 0; q < q2; ++q) gcuba_cz_put_x(t, nrec, 2 + q, gcuba_cz_hxs(t, XS_FIN + q));
  }
  if ((rc = gcuba_cz_gather_rec(t, nrec))) return rc;
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
  pk.cm = gcuba_cz_cutmap(t);
  pk.search = c->cutmap && !cl->nocut && nsplit > 0 &&
              gcuba_cut_searching(&pk.cm, nsplit);
  sendb = pk.pbase + (pn[0][me] + pn[1][me]) * t->pbytes;
  recvb = nk * t->kbytes + npair * t->pbytes;
  if (t->n > 0) {
    k_pack<<<gcuba_cz_nblocks(t->n, 256), 256, 0, t->stream>>>(
        t->n, t->ndim, nc, t->a, t->cls, t->pos, d, pk, t->xs);
    krc = GCUBA_CK_LAUNCH(c, "k_pack");
  }
  if (!krc) krc = GCUBA_CK(c, cudaStreamSynchronize(t->stream));
  if (!krc && pk.search && pn[0][me] + pn[1][me] > 0) {
    /* this member's pairs searched for where to cut (gcuba/detail/cut.h) */
    const long long npl = pn[0][me] + pn[1][me];
    unsigned char *P = t->xs + pk.pbase;
    if (!(krc = gcuba_cz_cut_buffers(t))) {
      k_pairs_cut<<<gcuba_cz_nblocks(npl, 256), 256, 0, t->stream>>>(
          npl, t->ndim, nc, P, t->pbytes, t->slo, t->sw, t->sax, t->scut, 1);
      krc = GCUBA_CK_LAUNCH(c, "k_pairs_cut");
    }
    if (!krc) krc = gcuba_cz_cut_search_block(t, npl, &cutnev);
    if (!krc) {
      k_pairs_cut<<<gcuba_cz_nblocks(npl, 256), 256, 0, t->stream>>>(
          npl, t->ndim, nc, P, t->pbytes, t->slo, t->sw, t->sax, t->scut, 0);
      krc = GCUBA_CK_LAUNCH(c, "k_pairs_cut");
    }
    if (!krc) krc = GCUBA_CK(c, cudaStreamSynchronize(t->stream));
  }
  /* room for the new leaves (the old ones are packed) */
  if (!krc && nk + 2 * npair > t->cap) {
    gcuba_log(c, 2, "growing the device region store to %lld",
              nk + 2 * npair);
    krc = gcuba_cz_reserve_dist(t, nk + 2 * npair);
  }
  if (!krc && !c->coll->alltoallv_dev) {
    /* through the host */
    if (gcuba_cz_hostbuf_grow(&t->hs, (size_t)sendb) ||
        gcuba_cz_hostbuf_grow(&t->hr, (size_t)recvb))
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
    k_unpack<<<gcuba_cz_nblocks(nk + npair, 256), 256, 0, t->stream>>>(
        nk, npair, t->ndim, nc, t->xr, nk * t->kbytes, t->kbytes, t->pbytes,
        t->a, t->pavg, t->perr);
    CKL("k_unpack");
  }
  /* the finished sums: every member's */
  for (q = 0; q < q2; ++q) {
    x128 s;
    s.lo = s.hi = 0;
    for (r = 0; r < size; ++r) x_add(&s, gcuba_cz_rec_x(t, r, nrec, 2 + q));
    if (q < nc) finavg[q] += x_double(s, gcuba_cz_hscale(t, q));
    else finerr[q - nc] += x_double(s, gcuba_cz_hscale(t, q));
  }
  t->n = nk + 2 * npair;
  t->nold = t->seg = nk;
  t->gn = nkeep + 2 * nsplit;
  t->gnold = nkeep;
  t->gfirst = nkeep + 2 * pw[me];
  t->haveparents = 1;
  return gcuba_cz_reserve_xs(t);
}

/* the limit of a replicated store, agreed by the members (collective) */
int gcuba_cz_agree_repmax(gpu *t)
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
int gcuba_cz_convert_dist(gpu *t)
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
  gcuba_cz_free_arrays(&t->b);
  gcuba_cz_drop_parked(t); /* (sized for a and b) */
  cudaFree(t->xs);
  t->xs = NULL;
  t->xscap = 0;
  CK(gcuba_cuda_malloc(&t->xs, (size_t)t->rbytes * t->cap));
  t->xscap = t->cap;
  CK(gcuba_cuda_malloc(&t->xr, (size_t)t->rbytes * t->cap));
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

/* A distributed store loads its shares of the whole set s (every member
   has it): of the kept leaves [0, nold) and of the new pairs (or, before
   the first split, new leaves).  sub is s restricted to them. */
int gcuba_cz_load_dist(gpu *t, const gcuba_region_set *s,
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

/* A distributed store saves the whole set in the one-GPU order (every
   member gets it; the driver's first process writes it): its leaves go
   to their places, and the members' blocks are gathered.  Called after
   init, load or apply, when the leaves are [kept share, new share]. */
int gcuba_cz_save_dist(gpu *t, gcuba_region_set *s)
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
  krc = gcuba_cz_save_local(t, &m);
  /* every member's counts */
  t->hg[(size_t)me * 2] = m.nold;
  t->hg[(size_t)me * 2 + 1] = m.n - m.nold;
  if ((rc = gcuba_coll_status(c, krc)) || (rc = gcuba_cz_gather_rec(t, 2))) goto out;
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
  gcuba_region_set_free(&m);
  return rc;
}
