/* cuda/vegas_sample.cu -- one iteration of gVegas's CUDA backend (the
   ops' iterate): its set-up in one copy, then per slice the integrand's
   sampling kernel (through the descriptor's GPU table), the tree of the
   chunk sums (vegas_reduce.cu), the units' variances with adaptive
   stratification and, while the grid adapts, the bin sums
   (vegas_bins.cu); the results in one copy back.  A collective call
   samples each process's share of every slice and exchanges what the
   sums need through the host.  This file is part of gcuba. */
#include <cuda_runtime.h>
#include <stdint.h>
#include <string.h>
#include "cuda/vegas_int.cuh"
#include "common/coll.h"
#include "gcuba/detail/gpu_ops.h"
#include "gcuba/detail/vegas_kernels.cuh"

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
        krc = gcuba_vc_launch_bins(
            t, it, oc0 * cpt, lmin(onch * cpt, it->strat.ncubes - oc0 * cpt),
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
   changed, qw, the edge powers, the extremes, sums and status cleared (and
   qmax); 0 or a fail code */
static int prologue(struct vctx *t, const gcuba_vegas_iter *it)
{
  const size_t from = it->grid_changed
                          ? (size_t)((char *)t->grid - t->io)
                          : t->o_qw;
  int k;
  if (it->grid_changed)
    memcpy(t->h_io + from, it->grid, sizeof(double) * t->ngridvals);
  for (k = 0; k < 2 * t->ndim; ++k)
    ((int *)(t->h_io + t->o_epow))[k] = it->epow ? it->epow[k] : 0;
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

int gcuba_vc_iterate(void *ctx, const gcuba_vegas_iter *it, double *sums,
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
    rc = gcuba_vc_dgrow(t, (void **)&t->uv, &t->uvcap,
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
  L.epow = it->epow ? t->epow : NULL;
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
      if ((rc = gcuba_vc_launch_bins(
               t, it, c0 * cpt, lmin(nch * cpt, it->strat.ncubes - c0 * cpt),
               s0, ns)))
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
