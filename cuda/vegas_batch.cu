/* cuda/vegas_batch.cu -- gVegasBatch's GPU pipeline: the integrals of a
   batch each run gVegas's driver (src/vegas/driver.c) in steps, and the
   iterations they ask for are sampled together: one launch of the
   integrand's sampling kernel for all of them (its member table,
   gcuba/detail/vegas_kernels.cuh), one of the canonical trees (one block
   per integral and sum), and, for the integrals whose grids adapt, one of
   the exact bin sums and one to turn them into doubles; one copy to the
   device before, one back after; then, for the integrals whose drivers
   ask for it, one launch that refines their grids where the bin sums are
   (cuda/vegas_refine.cu, the driver's own refinement, vegas/refine.h)
   and one copy of the grids back.  Each integral's launch holds exactly
   what its single call's CUDA backend (vegas_sample.cu) would give the
   kernel, and its sums are taken in the same order, so that an
   integral's answer is that of its single call on the GPU up to the
   rounding of the device's log1p in its grid's weights (the last bits
   of its edges), with its fail and neval, whatever else is in the
   batch: an integral's bits depend on it alone.  An integral converges
   and leaves; others go on with the next launch.

   An iteration that one launch cannot hold (more than one slice, or
   beyond a wave's buffers) is sampled by the single-call backend, and the
   integral goes on there alone (gcuba_vegas_resume); a batch with
   adaptive stratification, more than 8 components or 64 dimensions is
   not sent here (src/plan/batch.c).  Integrals are sampled in waves of at
   most WAVE_SAMPLES samples, WAVE_CHUNKS chunks and WAVE_MEM of the free
   device memory, so that the device memory a step takes is bounded
   whatever the batch's size; at most ADMIT integrals run at once (their
   drivers' grids and histories are host memory), more enter as others
   leave.  This file is part of gcuba. */
#include <cuda_runtime.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "cuda/vegas_int.cuh"
#include "vegas/vegas.h"
#include "vegas/sobol.h"
#include "vegas/refine.h"
#include "plan/tables.h"
#include "common/pool.h"
#include "gcuba/detail/gpu_ops.h"
#include "gcuba/detail/vegas_kernels.cuh"

#define WAVE_SAMPLES (1LL << 26) /* samples whose q a wave stores */
#define WAVE_CHUNKS (1LL << 26)  /* chunks of a wave */
#define WAVE_MEM 0.25            /* and at most this share of the free
                                    device memory in its buffers */
#define BIN_CUBES 4096           /* cubes per block of the bin sums */
#define ADMIT (1 << 16)          /* integrals in the pipeline at once */

/* the members' executor: the pipeline samples their iterations */
static int token;
static void *m_create(gcuba_call *c, const gcuba_vegas_setup *s, int *fail)
{
  (void)c;
  (void)s;
  (void)fail;
  return &token;
}
static void m_destroy(void *ctx) { (void)ctx; }
static int m_iterate(void *ctx, const gcuba_vegas_iter *it, double *sums,
                     double *d)
{
  (void)ctx;
  (void)it;
  (void)sums;
  (void)d;
  return GCUBA_FAIL_CUDA; /* (never called) */
}
static const gcuba_vegas_ops member_ops = {"pipeline", m_create, m_destroy,
                                           m_iterate, NULL, NULL};

struct pipe_s;
typedef struct {
  struct pipe_s *P;
  gcuba_call *c;
  gcuba_vegas_run *v;
  const gcuba_vegas_iter *it;
  double *sums, *d;
  int b;      /* its index in the batch */
  int solo;   /* its iteration goes to the single-call backend */
  int refine; /* its driver asked for a refinement (GCUBA_VEGAS_REFINE) */
  double *dg; /* its grid on the device (between iterations too), or NULL */
  int gslot;  /* dg's slot in the pipeline's store, or -1: its own */
  int gnb;    /* the bins per axis of the grid at dg */
  int flat;   /* its driver's grid (not remote) is the uniform one */
} member;

/* where a member's data lie in a wave's buffers (byte offsets) */
typedef struct {
  size_t grid, qw, epow;   /* in (grid: when the driver's is sent) */
  size_t head, ds, d;      /* out (d beyond the part copied back, but
                              for an iteration that says hostd) */
  size_t part, t, fj, hl;  /* scratch */
  long long nch, cells;
  int ib, ag;              /* its bin arguments' index (-1: none), axes
                              per block */
  int r0;                  /* its first refinement (gcuba_vk_refine) */
} place;

typedef struct pipe_s {
  gcuba_call *c;
  const struct gcuba_gpu_ops *g;
  cudaStream_t st;
  int ndim, ncomp, ngrids, shared, nsm, broken, threads;
  /* verbosity 2: where the time goes (ms), rounds and waves */
  double t_start, t_want, t_pack, t_gpu, t_took, t_ref;
  int rounds, waves;
  double memcap; /* bytes of the buffers of one wave, at most (more for
                    one member alone) */
  double memfree; /* free device memory at the start */
  ull *sobol;          /* device Sobol direction numbers (seed 0), or NULL */
  void *ud, *ucopy;    /* userdata on the device; the copy made */
  size_t ucap, stride;
  char *din, *hin, *dout, *hout, *dscr;
  size_t incap, hincap, outcap, houtcap, scrcap;
  place *pl;
  long long plcap;
  /* the members' grids on the device: nslots slots of gsize doubles (the
     grids of the first member's bins per axis), the free ones in gfree;
     a grid of more bins has its own allocation */
  double *gstore;
  size_t gsize;
  int nslots, ngfree, *gfree;
} pipe;

static size_t up8(size_t n) { return (n + 7) & ~(size_t)7; }

/* a device (host = 0) or pinned host buffer *p of at least n bytes (its
   capacity *cap, doubled from 1 MiB) */
static int grow(pipe *P, char **p, size_t *cap, size_t n, int host)
{
  size_t m = *cap ? *cap : 1 << 20;
  int rc;
  if (n <= *cap) return 0;
  while (m < n) m *= 2;
  if (host) cudaFreeHost(*p);
  else cudaFree(*p);
  *p = NULL;
  *cap = 0;
  if ((rc = GCUBA_CK(P->c, host ? cudaMallocHost((void **)p, m)
                                : cudaMalloc((void **)p, m))))
    return rc;
  *cap = m;
  return 0;
}

/* the head of a member's outputs: fext [2 ncomp], tot [2 ncomp], qmax,
   status */
static size_t head_bytes(const pipe *P)
{
  return sizeof(double) * (4 * (size_t)P->ncomp + 2);
}

/* a wave: its members, where their data lie, the buffers' layout */
typedef struct {
  pipe *P;
  member **w;
  int n;
  size_t o_L, o_cbeg, o_seg, o_B, o_bbeg, o_R, o_G, in, o_left, o_edge;
  int ngin;                 /* grids sent or set to the uniform one */
} wavej;

/* pack member j's launch, tree, bin arguments, grid, qw, edge powers and
   initial head (a pool item: members write their own places) */
static int pack_item(void *ctx, long long jj, int tid)
{
  const wavej *W = (const wavej *)ctx;
  pipe *P = W->P;
  const int j = (int)jj, nc = P->ncomp, nc2 = 2 * nc, ndim = P->ndim;
  const gcuba_vegas_iter *it = W->w[j]->it;
  const place *p = &P->pl[j];
  struct gcuba_vegas_launch *l =
      (struct gcuba_vegas_launch *)(P->hin + W->o_L) + j;
  struct gcuba_vk_seg *sg = (struct gcuba_vk_seg *)(P->hin + W->o_seg) + j;
  char *head = P->dout + p->head;
  ull *hf = (ull *)(P->hout + p->head);
  int k;
  (void)tid;
  if (!it->remote && !W->w[j]->flat)
    memcpy(P->hin + p->grid, it->grid,
           sizeof(double) * (size_t)P->ngrids * (it->nb + 1));
  for (k = 0; k < nc; ++k) {
    ((double *)(P->hin + p->qw))[k] = it->qw ? it->qw[k] : 0;
    hf[k] = gcuba_vegas_okey(-HUGE_VAL);
    hf[nc + k] = gcuba_vegas_okey(HUGE_VAL);
    ((double *)(hf + nc2))[k] = ((double *)(hf + nc2))[nc + k] = 0;
  }
  hf[2 * nc2] = 0;     /* qmax */
  hf[2 * nc2 + 1] = 0; /* status */
  for (k = 0; k < 2 * ndim; ++k)
    ((int *)(P->hin + p->epow))[k] = it->epow ? it->epow[k] : 0;
  memset(l, 0, sizeof *l);
  l->size = (int)sizeof *l;
  l->ndim = ndim;
  l->ncomp = nc;
  l->nb = it->nb;
  l->shared = P->shared;
  l->store = it->bins;
  l->seed = it->seed;
  l->iter = it->iter;
  l->sobol = it->sobol ? P->sobol : NULL;
  l->qoff = it->qoff;
  l->strat = it->strat;
  l->cpt = it->plan.cpt;
  l->chunk0 = 0;
  l->nchunk = p->nch;
  l->pstride = p->nch;
  l->grid = W->w[j]->dg;
  l->epow = it->epow ? (const int *)(P->din + p->epow) : NULL;
  l->userdata = P->ud ? (char *)P->ud + (size_t)W->w[j]->b * P->stride
                      : NULL;
  l->part = (double *)(P->dscr + p->part);
  l->qw = (const double *)(P->din + p->qw);
  l->fj = it->bins ? (double *)(P->dscr + p->fj) : NULL;
  l->fext = (ull *)head;
  l->qmax = (ull *)head + 2 * nc2;
  l->status = (int *)((ull *)head + 2 * nc2 + 1);
  l->nsm = P->nsm;
  sg->part = l->part;
  sg->n = p->nch;
  sg->t = (double *)(P->dscr + p->t);
  sg->tot = (double *)((ull *)head + nc2);
  if (p->ib >= 0) {
    struct gcuba_vk_bins_args *b =
        (struct gcuba_vk_bins_args *)(P->hin + W->o_B) + p->ib;
    memset(b, 0, sizeof *b);
    b->s = it->strat;
    b->seed = it->seed;
    b->iter = it->iter;
    b->sobol = l->sobol;
    b->qoff = it->qoff;
    b->nb = it->nb;
    b->ag = p->ag;
    b->cube0 = 0;
    b->ncubes = lmin(p->nch * it->plan.cpt, it->strat.ncubes);
    b->s0 = 0;
    b->ns = lmin(p->nch * it->plan.cpt * it->strat.npg, it->strat.calls);
    b->fj = l->fj;
    b->qmax = l->qmax;
    b->hi = (ull *)(P->dscr + p->hl);
    b->lo = b->hi + p->cells;
    b->d = (double *)(P->dout + p->d);
    b->ds = (double *)(P->dout + p->ds);
  }
  return 0;
}

/* member j's sums as the single call's iterate returns them, and its
   driver's step (a pool item); W->P->broken: the wave failed */
static int took_item(void *ctx, long long jj, int tid)
{
  const wavej *W = (const wavej *)ctx;
  const pipe *P = W->P;
  const int j = (int)jj, nc2 = 2 * P->ncomp;
  member *m = W->w[j];
  const double *ds = NULL;
  int rc = P->broken;
  (void)tid;
  if (!rc) {
    const place *p = &P->pl[j];
    const ull *hf = (const ull *)(P->hout + p->head);
    const int st = (int)hf[2 * nc2 + 1];
    int k;
    rc = st & GCUBA_ST_ABORT       ? GCUBA_FAIL_ABORT
         : st & GCUBA_ST_NONFINITE ? GCUBA_FAIL_NAN
                                   : 0;
    if (!rc) {
      memcpy(m->sums, hf + nc2, sizeof(double) * nc2);
      for (k = 0; k < nc2; ++k)
        m->sums[nc2 + k] = gcuba_vegas_okey_value(hf[k]);
      if (m->it->hostd)
        memcpy(m->d, P->hout + p->d, sizeof(double) * (size_t)p->cells);
      if (m->it->bins) ds = (const double *)(P->hout + p->ds);
    }
  }
  m->refine = 0;
  switch (gcuba_vegas_took(m->v, rc, ds)) {
  case 0:
    break;
  case GCUBA_VEGAS_REFINE:
    m->refine = 1;
    break;
  default:
    gcuba_vegas_end(m->v);
    m->v = NULL;
  }
  return 0;
}

/* a member's grid from the device into grid (its driver's fetch) */
static int fetch(void *ctx, double *grid)
{
  member *m = (member *)ctx;
  pipe *P = m->P;
  int rc;
  if (P->broken) return P->broken;
  if (!(rc = GCUBA_CK(m->c, cudaMemcpyAsync(grid, m->dg,
                                            sizeof(double) * P->ngrids *
                                                (size_t)(m->gnb + 1),
                                            cudaMemcpyDeviceToHost, P->st))))
    rc = GCUBA_CK(m->c, cudaStreamSynchronize(P->st));
  return rc;
}

/* member j's refined grid, which stays on the device, to its driver: the
   grids left unchanged and the edge bins' widths (a pool item) */
static int refined_item(void *ctx, long long jj, int tid)
{
  const wavej *W = (const wavej *)ctx;
  const pipe *P = W->P;
  member *m = W->w[jj];
  const place *p = &P->pl[jj];
  const int *left = (const int *)(P->hout + W->o_left) + p->r0;
  int g, nleft = 0;
  (void)tid;
  if (!m->refine) return 0;
  m->refine = 0;
  /* (a broken wave: whatever came back; the call fails next) */
  for (g = 0; g < P->ngrids; ++g) nleft += left[g];
  if (gcuba_vegas_refined_at(m->v,
                             (const double *)(P->hout + W->o_edge) + 2 * p->r0,
                             nleft, fetch, m)) {
    gcuba_vegas_end(m->v);
    m->v = NULL;
  }
  return 0;
}

/* the refinements the drivers of wave W asked for, on the device: their
   grids refined in place from their bin contributions (still in the
   wave's output buffer), one thread per grid; back come the grids left
   unchanged and the edge bins' widths; then each driver goes on */
static void refine(pipe *P, wavej *W)
{
  gcuba_call *c = P->c;
  struct gcuba_vk_refine *R = (struct gcuba_vk_refine *)(P->hin + W->o_R);
  size_t so = 0;
  int j, nr = 0, rc = P->broken;
  const double t = gcuba_now_ms();
  for (j = 0; j < W->n; ++j) {
    const member *m = W->w[j];
    place *p = &P->pl[j];
    int g;
    if (!m->refine) continue;
    p->r0 = nr;
    for (g = 0; g < P->ngrids; ++g, ++nr) {
      const int nb = m->it->nb;
      R[nr].e = m->dg + (size_t)g * (nb + 1);
      R[nr].d = (const double *)(P->dout + p->d) + (size_t)g * nb;
      R[nr].scratch = (double *)P->dscr + so;
      so += GCUBA_VEGAS_GRID_SCRATCH(nb);
      R[nr].left = (int *)(P->dout + W->o_left) + nr;
      R[nr].edge = (double *)(P->dout + W->o_edge) + 2 * nr;
      R[nr].nb = nb;
      R[nr].nrows = P->shared ? P->ndim : 1;
      R[nr].mode = gcuba_vegas_refine_mode(m->v);
    }
  }
  if (nr == 0) return;
  if (!rc &&
      !(rc = GCUBA_CK(c, cudaMemcpyAsync(P->din + W->o_R, R, sizeof *R * nr,
                                         cudaMemcpyHostToDevice, P->st)))) {
    gcuba_vk_refine<<<(nr + 127) / 128, 128, 0, P->st>>>(
        (const struct gcuba_vk_refine *)(P->din + W->o_R), nr);
    if (!(rc = GCUBA_CK_LAUNCH(c, "gcuba_vk_refine")) &&
        !(rc = GCUBA_CK(c, cudaMemcpyAsync(P->hout + W->o_left,
                                           P->dout + W->o_left,
                                           W->o_edge - W->o_left +
                                               sizeof(double) * 2 * nr,
                                           cudaMemcpyDeviceToHost, P->st))))
      rc = GCUBA_CK(c, cudaStreamSynchronize(P->st));
  }
  if (rc) P->broken = rc;
  gcuba_pool_for(P->threads, W->n, 4, refined_item, W);
  P->t_ref += gcuba_now_ms() - t;
}

/* member m's grid off the device */
static void release_grid(pipe *P, member *m)
{
  if (!m->dg) return;
  if (m->gslot >= 0) P->gfree[P->ngfree++] = m->gslot;
  else cudaFree(m->dg);
  m->dg = NULL;
}

/* a place on the device for member m's grid of it->nb bins per axis (its
   slot in the store, else its own): 0 or a fail code */
static int place_grid(pipe *P, member *m)
{
  const int nb = m->it->nb;
  const size_t need = (size_t)P->ngrids * (nb + 1);
  int rc, i;
  if (m->dg && m->gnb == nb) return 0;
  release_grid(P, m);
  if (!P->gstore) {
    /* (slots for at most a quarter of the free memory; members beyond
       get their own) */
    const double fit = WAVE_MEM * P->memfree / (sizeof(double) * need);
    if (fit < P->nslots) P->nslots = fit > 1 ? (int)fit : 1;
    P->gsize = need;
    P->gfree = (int *)malloc(sizeof(int) * (size_t)P->nslots);
    if (!P->gfree) return gcuba_fail(P->c, GCUBA_FAIL_NOMEM, "pipeline");
    if ((rc = GCUBA_CK(P->c, cudaMalloc((void **)&P->gstore,
                                        sizeof(double) * need *
                                            (size_t)P->nslots))))
      return rc;
    for (i = 0; i < P->nslots; ++i) P->gfree[i] = P->nslots - 1 - i;
    P->ngfree = P->nslots;
  }
  if (need <= P->gsize && P->ngfree > 0) {
    m->gslot = P->gfree[--P->ngfree];
    m->dg = P->gstore + (size_t)m->gslot * P->gsize;
  } else {
    m->gslot = -1;
    if ((rc = GCUBA_CK(P->c, cudaMalloc((void **)&m->dg,
                                        sizeof(double) * need))))
      return rc;
  }
  m->gnb = nb;
  return 0;
}

/* sample the iterations of members w[0 .. n-1] and hand them to their
   drivers; 0 or a fail code (P->broken: every member of this wave and
   later ones failed with it), but GCUBA_FAIL_DEVMEM when the wave's
   buffers did not fit (then nothing was done) */
static int wave(pipe *P, member **w, int n)
{
  gcuba_call *c = P->c;
  const int nc = P->ncomp, nc2 = 2 * nc, ndim = P->ndim;
  const size_t hb = head_bytes(P);
  size_t in = 0, out = 0, outc, scr = 0, o_ins, o_hl, smem = 0, sref = 0;
  long long nchunk = 0, *cbeg, *bbeg;
  int j, nbw = 0, gy = 1, rc = P->broken;
  struct gcuba_vegas_launch A;
  wavej W;
  double t = gcuba_now_ms();

  W.P = P;
  W.w = w;
  W.n = n;
  if (rc) goto step;
  if (n > P->plcap) {
    place *q = (place *)realloc(P->pl, sizeof(place) * (size_t)n);
    if (!q) {
      rc = gcuba_fail(c, GCUBA_FAIL_NOMEM, "pipeline");
      goto step;
    }
    P->pl = q;
    P->plcap = n;
  }
  /* every member's grid on the device, where its driver's is sent */
  W.ngin = 0;
  for (j = 0; j < n; ++j) {
    if ((rc = place_grid(P, w[j]))) goto step;
    W.ngin += !w[j]->it->remote;
  }
  /* the layout: in = launches, chunk starts, trees, bin arguments, their
     block starts, refinements, grids in, then the grids sent, qw, edge
     powers; out = heads, bin sums' totals (and bin contributions the
     driver reads), refinements' flags and edges, then the other bin
     contributions; scratch = chunk sums, tree levels, q, exact bins */
  for (j = 0; j < n; ++j) nbw += w[j]->it->bins;
  W.o_L = 0;
  W.o_cbeg = up8(W.o_L + sizeof(struct gcuba_vegas_launch) * (size_t)n);
  W.o_seg = up8(W.o_cbeg + sizeof(long long) * (size_t)(n + 1));
  W.o_B = up8(W.o_seg + sizeof(struct gcuba_vk_seg) * (size_t)n);
  W.o_bbeg = up8(W.o_B + sizeof(struct gcuba_vk_bins_args) * (size_t)nbw);
  W.o_R = up8(W.o_bbeg + sizeof(long long) * (size_t)(nbw + 1));
  W.o_G = up8(W.o_R + sizeof(struct gcuba_vk_refine) * (size_t)nbw *
                         P->ngrids);
  o_ins = up8(W.o_G + sizeof(struct gcuba_vk_gridin) * (size_t)W.ngin);
  in = o_ins;
  out = hb * (size_t)n;
  for (j = 0; j < n; ++j) {
    const gcuba_vegas_iter *it = w[j]->it;
    place *p = &P->pl[j];
    p->nch = it->plan.nchunks;
    p->cells = (long long)ndim * it->nb;
    p->grid = in;
    if (!it->remote && !w[j]->flat)
      in += sizeof(double) * (size_t)P->ngrids * (it->nb + 1);
    p->qw = in;
    in += sizeof(double) * nc;
    p->epow = in;
    in += up8(sizeof(int) * 2 * (size_t)ndim);
    p->head = hb * (size_t)j;
    p->part = scr;
    scr += sizeof(double) * nc2 * (size_t)p->nch;
    p->t = scr;
    scr += sizeof(double) * nc2 * (size_t)gcuba_vegas_tree_next(p->nch);
    nchunk += p->nch;
    p->ib = -1;
    if (it->bins) {
      p->ds = out;
      out += sizeof(double) * 2 * (size_t)ndim;
      if (it->hostd) {
        p->d = out;
        out += sizeof(double) * (size_t)p->cells;
      }
      p->fj = scr;
      scr += sizeof(double) * (size_t)it->strat.calls;
      sref += sizeof(double) * P->ngrids * GCUBA_VEGAS_GRID_SCRATCH(it->nb);
    }
  }
  /* the refinements' flags (out) and scratch (over the bins' scratch,
     which they follow); what is copied back ends there, the other bin
     contributions lie beyond */
  W.o_left = up8(out);
  W.o_edge = W.o_left + up8(sizeof(int) * (size_t)nbw * P->ngrids);
  out = W.o_edge + sizeof(double) * 2 * (size_t)nbw * P->ngrids;
  outc = out;
  for (j = 0; j < n; ++j)
    if (w[j]->it->bins && !w[j]->it->hostd) {
      P->pl[j].d = out;
      out += sizeof(double) * (size_t)P->pl[j].cells;
    }
  o_hl = scr;
  for (j = 0; j < n; ++j)
    if (w[j]->it->bins) {
      P->pl[j].hl = scr;
      scr += 2 * sizeof(ull) * (size_t)P->pl[j].cells;
    }
  W.in = in;
  if ((rc = grow(P, &P->din, &P->incap, in, 0)) ||
      (rc = grow(P, &P->hin, &P->hincap, in, 1)) ||
      (rc = grow(P, &P->dout, &P->outcap, out, 0)) ||
      (rc = grow(P, &P->hout, &P->houtcap, outc, 1)) ||
      (rc = grow(P, &P->dscr, &P->scrcap,
                 scr > sref ? scr : sref > 0 ? sref : 8, 0))) {
    /* no memory for the wave's buffers: smaller waves (the members are
       not touched) */
    if (rc == GCUBA_FAIL_DEVMEM) {
      c->fail = 0;
      return rc;
    }
    goto step;
  }
  /* the chunk and bin-block starts, the bins' shapes */
  cbeg = (long long *)(P->hin + W.o_cbeg);
  bbeg = (long long *)(P->hin + W.o_bbeg);
  cbeg[0] = bbeg[0] = 0;
  for (j = 0, nbw = 0; j < n; ++j) {
    const gcuba_vegas_iter *it = w[j]->it;
    place *p = &P->pl[j];
    cbeg[j + 1] = cbeg[j] + p->nch;
    if (it->bins) {
      long long bx = (it->strat.ncubes + BIN_CUBES - 1) / BIN_CUBES;
      int ag = 2048 / it->nb, na;
      if (ag > 64) ag = 64;
      if (ag < 1) ag = 1;
      na = ndim < ag ? ndim : ag;
      if (bx > 8LL * P->nsm) bx = 8LL * P->nsm;
      p->ag = ag;
      p->ib = nbw;
      bbeg[nbw + 1] = bbeg[nbw] + bx;
      if ((ndim + ag - 1) / ag > gy) gy = (ndim + ag - 1) / ag;
      if ((size_t)2 * na * it->nb * sizeof(ull) > smem)
        smem = (size_t)2 * na * it->nb * sizeof(ull);
      ++nbw;
    }
  }
  t = gcuba_now_ms();
  gcuba_pool_for(P->threads, n, 16, pack_item, &W);
  {
    struct gcuba_vk_gridin *G = (struct gcuba_vk_gridin *)(P->hin + W.o_G);
    int k = 0;
    for (j = 0; j < n; ++j)
      if (!w[j]->it->remote) {
        G[k].dst = w[j]->dg;
        G[k].src = w[j]->flat ? NULL
                              : (const double *)(P->din + P->pl[j].grid);
        G[k].n = P->ngrids * (w[j]->it->nb + 1);
        G[k].nb = w[j]->it->nb;
        ++k;
      }
  }
  P->t_pack += gcuba_now_ms() - t;
  t = gcuba_now_ms();

  /* one copy in, the launches, one copy out */
  memset(&A, 0, sizeof A);
  A.size = (int)sizeof A;
  A.ndim = ndim;
  A.ncomp = nc;
  A.nchunk = nchunk;
  A.nsm = P->nsm;
  A.members = (const struct gcuba_vegas_launch *)(P->din + W.o_L);
  A.cbeg = (const long long *)(P->din + W.o_cbeg);
  A.nmembers = n;
  if ((rc = GCUBA_CK(c, cudaMemcpyAsync(P->din, P->hin, in,
                                        cudaMemcpyHostToDevice, P->st))) ||
      (rc = GCUBA_CK(c, cudaMemcpyAsync(P->dout, P->hout, hb * (size_t)n,
                                        cudaMemcpyHostToDevice, P->st))) ||
      (scr > o_hl &&
       (rc = GCUBA_CK(c, cudaMemsetAsync(P->dscr + o_hl, 0, scr - o_hl,
                                         P->st)))))
    goto step;
  if (W.ngin > 0) {
    gcuba_vk_grid_in<<<(unsigned)W.ngin, 128, 0, P->st>>>(
        (const struct gcuba_vk_gridin *)(P->din + W.o_G));
    if ((rc = GCUBA_CK_LAUNCH(c, "gcuba_vk_grid_in"))) goto step;
  }
  if ((rc = GCUBA_CK(c, P->g->vegas_iter(&A, P->st)))) goto step;
  gcuba_vk_tree_members<<<dim3((unsigned)n, (unsigned)nc2), TREE_THREADS, 0,
                          P->st>>>(
      (const struct gcuba_vk_seg *)(P->din + W.o_seg));
  if ((rc = GCUBA_CK_LAUNCH(c, "gcuba_vk_tree_members"))) goto step;
  if (nbw > 0) {
    gcuba_vk_bins_members<<<dim3((unsigned)bbeg[nbw], (unsigned)gy),
                            BIN_THREADS, smem, P->st>>>(
        (const struct gcuba_vk_bins_args *)(P->din + W.o_B),
        (const long long *)(P->din + W.o_bbeg), nbw);
    if ((rc = GCUBA_CK_LAUNCH(c, "gcuba_vk_bins_members"))) goto step;
    gcuba_vk_bins_finish_members<<<(unsigned)nbw, 256, 0, P->st>>>(
        (const struct gcuba_vk_bins_args *)(P->din + W.o_B));
    if ((rc = GCUBA_CK_LAUNCH(c, "gcuba_vk_bins_finish_members")))
      goto step;
  }
  if ((rc = GCUBA_CK(c, cudaMemcpyAsync(P->hout, P->dout, outc,
                                        cudaMemcpyDeviceToHost, P->st))) ||
      (rc = GCUBA_CK(c, cudaStreamSynchronize(P->st))))
    goto step;
  P->t_gpu += gcuba_now_ms() - t;
step:
  if (rc) P->broken = rc;
  t = gcuba_now_ms();
  gcuba_pool_for(P->threads, n, 4, took_item, &W);
  P->t_took += gcuba_now_ms() - t;
  refine(P, &W);
  ++P->waves;
  return rc;
}

/* the bytes of device memory member's iteration it takes in a wave
   (wave()'s layout, about) */
static double member_bytes(const pipe *P, const gcuba_vegas_iter *it)
{
  const double cells = (double)P->ndim * it->nb, nc2 = 2.0 * P->ncomp;
  double b = sizeof(struct gcuba_vegas_launch) + sizeof(struct gcuba_vk_seg) +
             8.0 * P->ngrids * (it->nb + 1) + 8.0 * P->ncomp +
             8.0 * P->ndim + (double)head_bytes(P) +
             8.0 * nc2 * (it->plan.nchunks + it->plan.nchunks / 256.0 + 1);
  if (it->bins)
    b += sizeof(struct gcuba_vk_bins_args) + 8.0 * cells +
         8.0 * it->strat.calls + 16.0 * cells +
         16.0 * P->ndim +
         (sizeof(struct gcuba_vk_refine) + 4.0) * P->ngrids;
  return b;
}

/* an iteration the pipeline cannot sample in one wave */
static int alone(const gcuba_vegas_iter *it)
{
  return it->plan.nslices > 1 || it->nreal > 0 ||
         it->plan.nchunks > WAVE_CHUNKS ||
         (it->bins && it->strat.calls > WAVE_SAMPLES);
}

/* member i's driver set up (a pool item) */
static int start_item(void *ctx, long long i, int tid)
{
  member *m = (member *)ctx + i;
  (void)tid;
  m->v = gcuba_vegas_start(m->c, &member_ops);
  return 0;
}

/* 1 when the ngrids grids of nb bins at e are the uniform ones (which
   the device then sets itself, gcuba_vk_grid_in) */
static int flat(const double *e, int nb, int ngrids)
{
  int g, i;
  for (g = 0; g < ngrids; ++g, e += nb + 1)
    for (i = 0; i <= nb; ++i)
      if (e[i] != (double)i / (double)nb) return 0;
  return 1;
}

/* member i's next iteration (a pool item) */
static int want_item(void *ctx, long long i, int tid)
{
  member *m = ((member **)ctx)[i];
  (void)tid;
  m->it = gcuba_vegas_want(m->v, &m->sums, &m->d);
  if (!m->it) {
    gcuba_vegas_end(m->v);
    m->v = NULL;
  } else {
    m->solo = alone(m->it);
    m->flat = !m->it->remote && flat(m->it->grid, m->it->nb, m->P->ngrids);
  }
  return 0;
}

extern "C" int gcuba_vegas_batch_gpu(gcuba_call *c, gcuba_call *calls, int n,
                                     size_t stride)
{
  pipe P;
  member *ms = NULL, **act = NULL;
  int nact = 0, next = 0, b, rc = 0, dev = 0;
  double t0 = gcuba_now_ms();
  size_t freeb = 0, totalb = 0;

  memset(&P, 0, sizeof P);
  P.c = c;
  P.g = c->integrand ? c->integrand->gpu : NULL;
  P.ndim = c->ndim;
  P.ncomp = c->ncomp;
  P.shared = (c->flags & GCUBA_VEGAS1D) != 0;
  P.ngrids = P.shared ? 1 : c->ndim;
  P.stride = stride;
  P.threads = c->threads > 0 ? c->threads : 1;
  if (!P.g || !P.g->vegas_iter) return 1;
  ms = (member *)calloc((size_t)n, sizeof *ms);
  act = (member **)malloc(sizeof *act * (size_t)n);
  if (!ms || !act) {
    rc = gcuba_fail(c, GCUBA_FAIL_NOMEM, "pipeline");
    goto done;
  }
  if ((rc = GCUBA_CK(c, cudaGetDevice(&dev))) ||
      (rc = GCUBA_CK(c, cudaMemGetInfo(&freeb, &totalb))) ||
      (rc = GCUBA_CK(c, cudaDeviceGetAttribute(
           &P.nsm, cudaDevAttrMultiProcessorCount, dev))) ||
      (rc = GCUBA_CK(c, cudaStreamCreateWithFlags(&P.st,
                                                  cudaStreamNonBlocking))) ||
      (P.memfree = (double)freeb, P.memcap = WAVE_MEM * P.memfree, 0) ||
      (rc = gcuba_device_userdata(c, c->ud.p, c->ud.bytes,
                                  " (or a nonzero userstride)", &P.ud,
                                  &P.ucopy, &P.ucap, P.st)))
    goto done;
  if (c->seed == 0) {
    uint64_t *h = (uint64_t *)malloc(sizeof(uint64_t) * GCUBA_SOBOL_BITS *
                                     (size_t)P.ndim);
    if (!h || gcuba_sobol_dirs(P.ndim, h)) {
      free(h);
      rc = gcuba_fail(c, GCUBA_FAIL_NOMEM, "Sobol direction numbers");
      goto done;
    }
    rc = GCUBA_CK(c, cudaMalloc((void **)&P.sobol, sizeof(ull) * 64 * P.ndim));
    if (!rc)
      rc = GCUBA_CK(c, cudaMemcpy(P.sobol, h, sizeof(ull) * 64 * P.ndim,
                                  cudaMemcpyHostToDevice));
    free(h);
    if (rc) goto done;
  }

  t0 = gcuba_now_ms();
  P.nslots = n < ADMIT ? n : ADMIT;
  for (b = 0; b < n; ++b) {
    ms[b].P = &P;
    ms[b].b = b;
    ms[b].c = &calls[b];
    ms[b].gslot = -1;
  }
  while (nact > 0 || next < n) {
    int i, k = 0, j0;
    double t = gcuba_now_ms();
    /* integrals enter while fewer than ADMIT run (each driver holds its
       grids and history in host memory) */
    if (next < n && nact < ADMIT) {
      const int add = ADMIT - nact < n - next ? ADMIT - nact : n - next;
      gcuba_pool_for(P.threads, add, 16, start_item, ms + next);
      for (b = next; b < next + add; ++b)
        if (ms[b].v) act[nact++] = &ms[b];
      next += add;
      P.t_start += gcuba_now_ms() - t;
      t = gcuba_now_ms();
    }
    if (nact == 0) continue;
    /* the next iteration of every member that goes on (in parallel: each
       member's driver is its own) */
    gcuba_pool_for(P.threads, nact, 16, want_item, act);
    P.t_want += gcuba_now_ms() - t;
    ++P.rounds;
    for (i = 0; i < nact; ++i) {
      member *m = act[i];
      if (!m->v) continue;
      if (m->solo) {
        /* (its iterations from here on one at a time, on its own) */
        gcuba_vegas_resume(m->v, &gcuba_vegas_cuda);
        m->v = NULL;
        release_grid(&P, m);
      } else
        act[k++] = m;
    }
    nact = k;
    /* in waves */
    for (j0 = 0; j0 < nact;) {
      long long ns = 0, nch = 0;
      double mem = 0;
      int j1 = j0;
      while (j1 < nact) {
        const gcuba_vegas_iter *it = act[j1]->it;
        const long long s = it->bins ? it->strat.calls : 0;
        const double mb = member_bytes(&P, it);
        if (j1 > j0 && (ns + s > WAVE_SAMPLES ||
                        nch + it->plan.nchunks > WAVE_CHUNKS ||
                        mem + mb > P.memcap))
          break;
        ns += s;
        nch += it->plan.nchunks;
        mem += mb;
        ++j1;
      }
      if (wave(&P, act + j0, j1 - j0) == GCUBA_FAIL_DEVMEM) {
        /* half the memory, the same members again; one member alone goes
           on as a single call, which meets the shortage its own way */
        P.memcap = mem / 2;
        if (j1 - j0 > 1) continue;
        gcuba_vegas_resume(act[j0]->v, &gcuba_vegas_cuda);
        act[j0]->v = NULL;
        release_grid(&P, act[j0]);
      }
      j0 = j1;
    }
    for (i = k = 0; i < nact; ++i)
      if (act[i]->v) act[k++] = act[i];
      else release_grid(&P, act[i]);
    nact = k;
  }
  rc = 0;
  gcuba_log(c, 2, "pipeline: %d integrals in %.1f ms: %d rounds, %d waves; "
            "set-up %.1f ms, the drivers' steps %.1f + %.1f ms, packing "
            "%.1f ms, the GPU (copies, launches) %.1f ms, the refinements "
            "(GPU and drivers) %.1f ms", n, gcuba_now_ms() - t0, P.rounds,
            P.waves, P.t_start, P.t_want, P.t_took, P.t_pack, P.t_gpu,
            P.t_ref);
done:
  if (ms)
    for (b = 0; b < n; ++b) {
      if (ms[b].v) gcuba_vegas_end(ms[b].v);
      if (ms[b].gslot < 0) cudaFree(ms[b].dg);
    }
  cudaFree(P.gstore);
  free(P.gfree);
  free(ms);
  free(act);
  free(P.pl);
  cudaFree(P.din);
  cudaFreeHost(P.hin);
  cudaFree(P.dout);
  cudaFreeHost(P.hout);
  cudaFree(P.dscr);
  cudaFree(P.sobol);
  cudaFree(P.ucopy);
  if (P.st) cudaStreamDestroy(P.st);
  return rc;
}
