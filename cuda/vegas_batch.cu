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

   The integrals are dealt to up to LANES lanes, each with its own
   streams and buffers, and the host steps the lanes as their work on
   the device ends: the drivers of one lane take their results, queue
   their refinements and ask for their next iterations while the device
   samples another lane's wave.

   An iteration that one launch cannot hold (more than one slice, or
   beyond a wave's buffers) is sampled by the single-call backend, and the
   integral goes on there alone (gcuba_vegas_resume); a batch with
   adaptive stratification, more than 8 components or 64 dimensions is
   not sent here (src/plan/batch.c).  Integrals are sampled in waves of at
   most WAVE_SAMPLES samples, WAVE_CHUNKS chunks and WAVE_MEM of the free
   device memory, so that the device memory a step takes is bounded
   whatever the batch's size; at most ADMIT integrals run at once (their
   drivers' grids and histories are host memory), more enter as others
   leave.  The refinements are in cuda/vegas_batch_refine.cu, the types
   both share in cuda/vegas_batch_int.cuh.  This file is part of gcuba. */
#include "cuda/vegas_batch_int.cuh"
#include "gcuba/detail/vegas_kernels.cuh"

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

static size_t up8(size_t n) { return (n + 7) & ~(size_t)7; }

/* a device buffer *p of lane L of at least n bytes (its capacity *cap):
   half as much again, or twice what it was when that is more, at least
   1 MiB; n alone when that is refused.  (The scratch grows with the
   members' samples: 3-D peaks, nincrease 500, need 495, 692 and 1086
   MB, which take two allocations so, three when doubling.) */
static int grow(pipe *P, lane *L, char **p, size_t *cap, size_t n)
{
  size_t m = n + n / 2;
  int rc;
  double t;
  if (n <= *cap) return 0;
  t = gcuba_now_ms();
  if (m < 2 * *cap) m = 2 * *cap;
  if (m < (1 << 20)) m = 1 << 20;
  /* (in the lane's stream order: no wait for the other lanes' work, as
     cudaFree's) */
  if (*p) cudaFreeAsync(*p, L->st);
  *p = NULL;
  *cap = 0;
  if (cudaMallocAsync((void **)p, m, L->st) != cudaSuccess) {
    (void)cudaGetLastError();
    *p = NULL;
    m = n;
    rc = GCUBA_CK(P->c, cudaMallocAsync((void **)p, m, L->st));
  } else
    rc = 0;
  P->t_grow += gcuba_now_ms() - t;
  ++P->ngrow;
  if (rc) return rc;
  *cap = m;
  return 0;
}

/* a page-locked host buffer of at least n bytes */
static int grow_host(pipe *P, gcuba_pinned *b, size_t n)
{
  double t;
  int rc;
  if (n <= b->cap) return 0;
  t = gcuba_now_ms();
  rc = gcuba_pinned_grow(P->c, b, n, P->threads);
  P->t_grow += gcuba_now_ms() - t;
  ++P->ngrow;
  return rc;
}

/* the head of a member's outputs: fext [2 ncomp], tot [2 ncomp], qmax,
   status */
static size_t head_bytes(const pipe *P)
{
  return sizeof(double) * (4 * (size_t)P->ncomp + 2);
}

/* pack member j's launch, tree, bin arguments, grid, qw, edge powers and
   initial head (a pool item: members write their own places) */
static int pack_item(void *ctx, long long jj, int tid)
{
  const wavej *W = (const wavej *)ctx;
  pipe *P = W->P;
  lane *L = W->L;
  const int j = (int)jj, nc = P->ncomp, nc2 = 2 * nc, ndim = P->ndim;
  const member *m = W->w[j];
  const gcuba_vegas_iter *it = m->it;
  place *p = &L->pl[j];
  struct gcuba_vegas_launch *l =
      (struct gcuba_vegas_launch *)(L->hin.p + W->o_L) + j;
  struct gcuba_vk_seg *sg = (struct gcuba_vk_seg *)(L->hin.p + W->o_seg) + j;
  const int sent = !m->remote && !m->flat;
  char *head;
  ull *hf;
  int k;
  (void)tid;
  /* its place, absolute (wave() laid it out relative to its parts'
     starts), its chunks' and blocks' ends, its grid's entry */
  p->grid += W->o_ins;
  p->qw = p->grid +
          (sent ? sizeof(double) * (size_t)P->ngrids * (m->nb + 1) : 0);
  p->epow = p->qw + sizeof(double) * nc;
  p->head = head_bytes(P) * (size_t)j;
  p->t = p->part + sizeof(double) * nc2 * (size_t)p->nch;
  p->fj = p->t + sizeof(double) * nc2 * (size_t)gcuba_vegas_tree_next(p->nch);
  ((long long *)(L->hin.p + W->o_cbeg))[j + 1] = p->c0 + p->nch;
  if (m->bins) {
    p->ds += W->o_heads;
    p->d = m->hostd ? p->ds + sizeof(double) * 2 * (size_t)ndim
                    : W->o_dx + p->d;
    p->hl += W->o_hl;
    ((long long *)(L->hin.p + W->o_bbeg))[p->ib + 1] = p->b0 + m->bx;
  }
  if (p->gi >= 0) {
    struct gcuba_vk_gridin *G =
        (struct gcuba_vk_gridin *)(L->hin.p + W->o_G) + p->gi;
    G->dst = m->dg;
    G->src = sent ? (const double *)(L->din + p->grid) : NULL;
    G->n = P->ngrids * (m->nb + 1);
    G->nb = m->nb;
  }
  head = L->dout + p->head;
  hf = (ull *)(L->hout.p + p->head);
  if (sent)
    memcpy(L->hin.p + p->grid, it->grid,
           sizeof(double) * (size_t)P->ngrids * (it->nb + 1));
  for (k = 0; k < nc; ++k) {
    ((double *)(L->hin.p + p->qw))[k] = it->qw ? it->qw[k] : 0;
    hf[k] = gcuba_vegas_okey(-HUGE_VAL);
    hf[nc + k] = gcuba_vegas_okey(HUGE_VAL);
    ((double *)(hf + nc2))[k] = ((double *)(hf + nc2))[nc + k] = 0;
  }
  hf[2 * nc2] = 0;     /* qmax */
  hf[2 * nc2 + 1] = 0; /* status */
  for (k = 0; k < 2 * ndim; ++k)
    ((int *)(L->hin.p + p->epow))[k] = it->epow ? it->epow[k] : 0;
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
  l->grid = m->dg;
  l->epow = it->epow ? (const int *)(L->din + p->epow) : NULL;
  l->userdata = P->ud ? (char *)P->ud + (size_t)m->b * P->stride
                      : NULL;
  l->part = (double *)(L->dscr + p->part);
  l->qw = (const double *)(L->din + p->qw);
  l->fj = it->bins ? (double *)(L->dscr + p->fj) : NULL;
  l->fext = (ull *)head;
  l->qmax = (ull *)head + 2 * nc2;
  l->status = (int *)((ull *)head + 2 * nc2 + 1);
  l->nsm = P->nsm;
  sg->part = l->part;
  sg->n = p->nch;
  sg->t = (double *)(L->dscr + p->t);
  sg->tot = (double *)((ull *)head + nc2);
  if (p->ib >= 0) {
    struct gcuba_vk_bins_args *b =
        (struct gcuba_vk_bins_args *)(L->hin.p + W->o_B) + p->ib;
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
    b->hi = (ull *)(L->dscr + p->hl);
    b->lo = b->hi + p->cells;
    b->d = (double *)(L->dout + p->d);
    b->ds = (double *)(L->dout + p->ds);
  }
  return 0;
}

/* member j's sums as the single call's iterate returns them, and its
   driver's step (a pool item); W->P->broken: the wave failed */
static int took_item(void *ctx, long long jj, int tid)
{
  const wavej *W = (const wavej *)ctx;
  const pipe *P = W->P;
  const lane *L = W->L;
  const int j = (int)jj, nc2 = 2 * P->ncomp;
  member *m = W->w[j];
  const double *ds = NULL;
  int rc = P->broken;
  (void)tid;
  if (!rc) {
    const place *p = &L->pl[j];
    const ull *hf = (const ull *)(L->hout.p + p->head);
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
        memcpy(m->d, L->hout.p + p->d, sizeof(double) * (size_t)p->cells);
      if (m->it->bins) ds = (const double *)(L->hout.p + p->ds);
    }
  }
  m->refine = 0;
  switch (gcuba_vegas_took(m->v, rc, ds)) {
  case 0:
    /* its next iteration now, while its driver is in this thread's
       cache (a refinement first goes to the device: refined_item) */
    gcuba_vb_next(m);
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
  const int nb = m->nb;
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
    if ((rc = GCUBA_CK(P->c, gcuba_cuda_malloc((void **)&P->gstore,
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
    if ((rc = GCUBA_CK(P->c, gcuba_cuda_malloc((void **)&m->dg,
                                               sizeof(double) * need))))
      return rc;
  }
  m->gnb = nb;
  return 0;
}

/* queue the sampling of the iterations of members w[0 .. n-1] in lane L
   (wave_done hands them to their drivers): 0 or a fail code (P->broken:
   every member of this wave and later ones failed with it), but
   GCUBA_FAIL_DEVMEM when the wave's buffers did not fit (then nothing
   was done and nothing is in flight) */
static int wave(pipe *P, lane *L, member **w, int n)
{
  gcuba_call *c = P->c;
  const int nc = P->ncomp, nc2 = 2 * nc, ndim = P->ndim;
  const size_t hb = head_bytes(P);
  size_t in = 0, out = 0, outc, scr = 0, o_hl, smem = 0, sref = 0, dx = 0,
         hl = 0;
  long long nchunk = 0, nblk = 0;
  int j, nbw = 0, gy = 1, rc = P->broken, fit = 1;
  struct gcuba_vegas_launch A;
  wavej &W = L->W;
  double t = gcuba_now_ms();
  const double g0 = P->t_grow;

  W.P = P;
  W.L = L;
  W.w = w;
  W.n = n;
  L->busy = 1;
  if (rc) goto step;
  if (n > L->plcap) {
    place *q = (place *)realloc(L->pl, sizeof(place) * (size_t)n);
    if (!q) {
      rc = gcuba_fail(c, GCUBA_FAIL_NOMEM, "pipeline");
      goto step;
    }
    L->pl = q;
    L->plcap = n;
  }
  /* the layout, in one pass over the members' summaries (gcuba_vb_next)
     with every member's grid placed on the device: in = launches, chunk
     starts, trees, bin arguments, their block starts, refinements, grids
     in, then the members' grids sent, qw, edge powers; out = heads, the
     members' bin sums' totals (and bin contributions the driver reads),
     refinements' flags and edges, then the other bin contributions;
     scratch = the members' chunk sums, tree levels and q, then their
     exact bins.  Each member's place is laid out relative to the start of
     its part (pack_item, in parallel, makes it absolute, and writes the
     chunk and block starts and the grids' table) */
  W.ngin = 0;
  for (j = 0; j < n; ++j) {
    member *m = w[j];
    place *p = &L->pl[j];
    if ((!m->dg || m->gnb != m->nb) && (rc = place_grid(P, m))) goto step;
    p->nch = m->nch;
    p->cells = (long long)ndim * m->nb;
    p->c0 = nchunk;
    nchunk += m->nch;
    p->gi = m->remote ? -1 : W.ngin++;
    p->grid = in;
    in += m->bin;
    p->part = scr;
    scr += m->bscr;
    p->ib = -1;
    if (m->bins) {
      const int na = ndim < m->ag ? ndim : m->ag;
      p->ib = nbw++;
      p->ag = m->ag;
      p->b0 = nblk;
      nblk += m->bx;
      p->ds = out;
      out += m->bout;
      if (!m->hostd) {
        p->d = dx;
        dx += sizeof(double) * (size_t)p->cells;
      }
      p->hl = hl;
      hl += 2 * sizeof(ull) * (size_t)p->cells;
      if ((ndim + m->ag - 1) / m->ag > gy) gy = (ndim + m->ag - 1) / m->ag;
      if ((size_t)2 * na * m->nb * sizeof(ull) > smem)
        smem = (size_t)2 * na * m->nb * sizeof(ull);
      sref += sizeof(double) * P->ngrids * GCUBA_VEGAS_GRID_SCRATCH_WARP(m->nb);
    }
  }
  W.o_L = 0;
  W.o_cbeg = up8(W.o_L + sizeof(struct gcuba_vegas_launch) * (size_t)n);
  W.o_seg = up8(W.o_cbeg + sizeof(long long) * (size_t)(n + 1));
  W.o_B = up8(W.o_seg + sizeof(struct gcuba_vk_seg) * (size_t)n);
  W.o_bbeg = up8(W.o_B + sizeof(struct gcuba_vk_bins_args) * (size_t)nbw);
  W.o_R = up8(W.o_bbeg + sizeof(long long) * (size_t)(nbw + 1));
  W.o_G = up8(W.o_R + sizeof(struct gcuba_vk_refine) * (size_t)nbw *
                         P->ngrids);
  W.o_ins = up8(W.o_G + sizeof(struct gcuba_vk_gridin) * (size_t)W.ngin);
  in += W.o_ins;
  W.o_heads = hb * (size_t)n;
  /* the refinements' flags (out) and scratch (over the bins' scratch,
     which they follow); what is copied back ends there, the other bin
     contributions lie beyond */
  W.o_left = up8(W.o_heads + out);
  W.o_edge = W.o_left + up8(sizeof(int) * (size_t)nbw * P->ngrids);
  outc = W.o_edge + sizeof(double) * 2 * (size_t)nbw * P->ngrids;
  W.o_dx = outc;
  out = outc + dx;
  W.o_hl = o_hl = scr;
  scr += hl;
  W.in = in;
  if ((rc = grow(P, L, &L->din, &L->incap, in)) ||
      (rc = grow_host(P, &L->hin, in)) ||
      (rc = grow(P, L, &L->dout, &L->outcap, out)) ||
      (rc = grow_host(P, &L->hout, outc)) ||
      (rc = grow(P, L, &L->dscr, &L->scrcap,
                 scr > sref ? scr : sref > 0 ? sref : 8))) {
    fit = rc != GCUBA_FAIL_DEVMEM;
    goto step;
  }
  ((long long *)(L->hin.p + W.o_cbeg))[0] = 0;
  ((long long *)(L->hin.p + W.o_bbeg))[0] = 0;
  P->t_lay += gcuba_now_ms() - t - (P->t_grow - g0);
  t = gcuba_now_ms();
  gcuba_pool_for(P->threads, n, 16, pack_item, &W);
  P->t_pack += gcuba_now_ms() - t;
  t = gcuba_now_ms();

  /* one copy in, the launches, one copy out */
  memset(&A, 0, sizeof A);
  A.size = (int)sizeof A;
  A.ndim = ndim;
  A.ncomp = nc;
  A.nchunk = nchunk;
  A.nsm = P->nsm;
  A.members = (const struct gcuba_vegas_launch *)(L->din + W.o_L);
  A.cbeg = (const long long *)(L->din + W.o_cbeg);
  A.nmembers = n;
  if ((rc = GCUBA_CK(c, cudaMemcpyAsync(L->din, L->hin.p, in,
                                        cudaMemcpyHostToDevice, L->st))) ||
      (rc = GCUBA_CK(c, cudaMemcpyAsync(L->dout, L->hout.p, hb * (size_t)n,
                                        cudaMemcpyHostToDevice, L->st))) ||
      (scr > o_hl &&
       (rc = GCUBA_CK(c, cudaMemsetAsync(L->dscr + o_hl, 0, scr - o_hl,
                                         L->st)))))
    goto step;
  if (W.ngin > 0) {
    gcuba_vk_grid_in<<<(unsigned)W.ngin, 128, 0, L->st>>>(
        (const struct gcuba_vk_gridin *)(L->din + W.o_G));
    if ((rc = GCUBA_CK_LAUNCH(c, "gcuba_vk_grid_in"))) goto step;
  }
  if ((rc = GCUBA_CK(c, P->g->vegas_iter(&A, L->st)))) goto step;
  gcuba_vk_tree_members<<<dim3((unsigned)n, (unsigned)nc2), TREE_THREADS, 0,
                          L->st>>>(
      (const struct gcuba_vk_seg *)(L->din + W.o_seg));
  if ((rc = GCUBA_CK_LAUNCH(c, "gcuba_vk_tree_members"))) goto step;
  if (nbw > 0) {
    gcuba_vk_bins_members<<<dim3((unsigned)nblk, (unsigned)gy),
                            BIN_THREADS, smem, L->st>>>(
        (const struct gcuba_vk_bins_args *)(L->din + W.o_B),
        (const long long *)(L->din + W.o_bbeg), nbw);
    if ((rc = GCUBA_CK_LAUNCH(c, "gcuba_vk_bins_members"))) goto step;
    gcuba_vk_bins_finish_members<<<(unsigned)nbw, 256, 0, L->st>>>(
        (const struct gcuba_vk_bins_args *)(L->din + W.o_B));
    if ((rc = GCUBA_CK_LAUNCH(c, "gcuba_vk_bins_finish_members")))
      goto step;
  }
  if ((rc = GCUBA_CK(c, cudaMemcpyAsync(L->hout.p, L->dout, outc,
                                        cudaMemcpyDeviceToHost, L->st))))
    goto step;
  P->t_gpu += gcuba_now_ms() - t;
  return 0;
step:
  if (!fit) {
    /* no memory for the wave's buffers: smaller waves (the members are
       not touched) */
    c->fail = 0;
    L->busy = 0;
    return rc;
  }
  if (rc) P->broken = rc;
  return rc;
}

/* lane L's wave in flight: its results to their drivers, and the
   refinements they ask for queued (then L->busy is 2) */
static void wave_done(pipe *P, lane *L)
{
  wavej *W = &L->W;
  double t = gcuba_now_ms();
  /* (also after a failed launch: what was queued ends before its buffers
     are used again) */
  if (!P->broken) P->broken = GCUBA_CK(P->c, cudaStreamSynchronize(L->st));
  else cudaStreamSynchronize(L->st);
  P->t_gpu += gcuba_now_ms() - t;
  t = gcuba_now_ms();
  gcuba_pool_for(P->threads, W->n, 4, took_item, W);
  P->t_took += gcuba_now_ms() - t;
  ++P->waves;
  L->busy = gcuba_vb_refine(P, W) ? 2 : 0;
  L->seq = ++P->seq;
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

/* member i's driver set up and its first iteration asked for (a pool
   item) */
static int start_item(void *ctx, long long i, int tid)
{
  member *m = ((member **)ctx)[i];
  (void)tid;
  m->v = gcuba_vegas_start(m->c, &member_ops);
  if (m->v) gcuba_vb_next(m);
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

void gcuba_vb_next(member *m)
{
  m->it = gcuba_vegas_want(m->v, &m->sums, &m->d);
  if (!m->it) {
    gcuba_vegas_end(m->v);
    m->v = NULL;
  } else {
    const gcuba_vegas_iter *it = m->it;
    const pipe *P = m->P;
    const int nc2 = 2 * P->ncomp;
    m->solo = alone(it);
    m->flat = !it->remote && (!it->grid || flat(it->grid, it->nb, P->ngrids));
    /* its summary (member) */
    m->nb = it->nb;
    m->bins = it->bins;
    m->hostd = it->bins && it->hostd;
    m->remote = it->remote;
    m->nch = it->plan.nchunks;
    m->calls = it->bins ? it->strat.calls : 0;
    m->bytes = member_bytes(P, it);
    m->bin = (!m->remote && !m->flat
                  ? sizeof(double) * (size_t)P->ngrids * (it->nb + 1)
                  : 0) +
             sizeof(double) * P->ncomp + up8(sizeof(int) * 2 * (size_t)P->ndim);
    m->bscr = sizeof(double) * nc2 *
                  (size_t)(m->nch + gcuba_vegas_tree_next(m->nch)) +
              sizeof(double) * (size_t)m->calls;
    m->bout = 0;
    if (it->bins) {
      long long bx = (it->strat.ncubes + BIN_CUBES - 1) / BIN_CUBES;
      int ag = 2048 / it->nb;
      if (ag > 64) ag = 64;
      if (ag < 1) ag = 1;
      if (bx > 8LL * P->nsm) bx = 8LL * P->nsm;
      m->ag = ag;
      m->bx = bx;
      m->bout = sizeof(double) * 2 * (size_t)P->ndim +
                (m->hostd ? sizeof(double) * (size_t)P->ndim * it->nb : 0);
    }
  }
}

/* member m's iteration sampled alone, and the rest of its call there */
static void go_alone(pipe *P, member *m)
{
  gcuba_vegas_resume(m->v, &gcuba_vegas_cuda);
  m->v = NULL;
  release_grid(P, m);
}

/* lane L one step on: its wave in flight handed to its drivers and their
   refinements queued, or, with those done (or none asked), the next wave
   queued (a new round when this one is done: the integrals that ended
   leave, new ones enter, the others' next iterations); 1 when work of
   the lane is in flight, 0 when the lane has nothing left */
static int lane_step(pipe *P, lane *L)
{
  const int cap = ADMIT / P->nlanes;
  if (L->busy == 1) {
    wave_done(P, L);
    if (L->busy) return 1;
  }
  if (L->busy == 2) {
    gcuba_vb_refined_all(P, &L->W);
    L->busy = 0;
  }
  for (;;) {
    int i, k, j1;
    long long ns = 0, nch = 0;
    double mem = 0, t, tr = gcuba_now_ms(), s0 = P->t_start;
    if (L->j0 >= L->nact) {
      /* a new round */
      for (i = k = 0; i < L->nact; ++i)
        if (L->act[i]->v) L->act[k++] = L->act[i];
        else release_grid(P, L->act[i]);
      L->nact = k;
      t = gcuba_now_ms();
      /* integrals enter while fewer than ADMIT run (each driver holds
         its grids and history in host memory) */
      if (L->next < P->n && L->nact < cap) {
        k = L->nact;
        for (; L->next < P->n && L->nact < cap; L->next += P->nlanes)
          L->act[L->nact++] = &P->ms[L->next];
        gcuba_pool_for(P->threads, L->nact - k, 16, start_item, L->act + k);
        for (i = k; i < L->nact; ++i)
          if (L->act[i]->v) L->act[k++] = L->act[i];
        L->nact = k;
        P->t_start += gcuba_now_ms() - t;
      }
      if (L->nact == 0) {
        if (L->next < P->n) continue;
        return 0;
      }
      /* (every member that goes on asked for its next iteration as it
         took its last, or as it started: next) */
      ++P->rounds;
      for (i = k = 0; i < L->nact; ++i) {
        member *m = L->act[i];
        if (!m->v) release_grid(P, m);
        else if (m->solo) go_alone(P, m);
        else L->act[k++] = m;
      }
      L->nact = k;
      L->j0 = 0;
      P->t_round += gcuba_now_ms() - tr - (P->t_start - s0);
      continue;
    }
    /* the next wave of this round */
    for (j1 = L->j0; j1 < L->nact; ++j1) {
      const member *m = L->act[j1];
      if (j1 > L->j0 && (ns + m->calls > WAVE_SAMPLES ||
                         nch + m->nch > WAVE_CHUNKS ||
                         mem + m->bytes > P->memcap))
        break;
      ns += m->calls;
      nch += m->nch;
      mem += m->bytes;
    }
    P->t_round += gcuba_now_ms() - tr;
    if (wave(P, L, L->act + L->j0, j1 - L->j0) == GCUBA_FAIL_DEVMEM &&
        !L->busy) {
      /* half the memory, the same members again; one member alone goes
         on as a single call, which meets the shortage its own way */
      P->memcap = mem / 2;
      if (j1 - L->j0 > 1) continue;
      go_alone(P, L->act[L->j0]);
    }
    L->j0 = j1;
    if (L->busy) {
      L->seq = ++P->seq;
      return 1;
    }
  }
}

/* 1 when lane L's work in flight is done (a step on it will not wait) */
static int lane_ready(const lane *L)
{
  return L->busy == 0 ||
         cudaStreamQuery(L->busy == 1 ? L->st : L->rst) != cudaErrorNotReady;
}

extern "C" int gcuba_vegas_batch_gpu(gcuba_call *c, gcuba_call *calls, int n,
                                     size_t stride)
{
  pipe P;
  member *ms = NULL;
  int b, k, rc = 0, dev = 0, urgent = 0;
  const double tin = gcuba_now_ms();
  double t0 = tin, t1 = tin;
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
  /* lanes, so that the host steps some while the device samples
     another's wave (4 measured best on an H200 with 16 cores: 5-D and
     3-D peaks, bench-batch), but for a batch too small to share */
  P.nlanes = n / LANE_MIN < 1 ? 1 : n / LANE_MIN > LANES ? LANES
                                                        : n / LANE_MIN;
  P.n = n;
  P.ms = ms = (member *)calloc((size_t)n, sizeof *ms);
  for (k = b = 0; k < P.nlanes; ++k) {
    P.lanes[k].next = k;
    P.lanes[k].act =
        (member **)malloc(sizeof(member *) * (size_t)(n / P.nlanes + 1));
    b |= !P.lanes[k].act;
  }
  if (!ms || b) {
    rc = gcuba_fail(c, GCUBA_FAIL_NOMEM, "pipeline");
    goto done;
  }
  gcuba_cuda_trim(); /* the waves take what is free */
  if ((rc = GCUBA_CK(c, cudaGetDevice(&dev))) ||
      (rc = GCUBA_CK(c, cudaMemGetInfo(&freeb, &totalb))) ||
      (rc = GCUBA_CK(c, cudaDeviceGetAttribute(
           &P.nsm, cudaDevAttrMultiProcessorCount, dev))) ||
      (rc = GCUBA_CK(c, cudaDeviceGetStreamPriorityRange(&k, &urgent))) ||
      (P.memfree = (double)freeb,
       P.memcap = WAVE_MEM * P.memfree / P.nlanes, 0) ||
      (rc = gcuba_device_userdata(c, c->ud.p, c->ud.bytes,
                                  " (or a nonzero userstride)", &P.ud,
                                  &P.ucopy, &P.ucap, NULL)) ||
      (rc = GCUBA_CK(c, cudaStreamSynchronize(NULL))))
    goto done;
  /* each lane's stream, and its urgent one */
  for (k = 0; k < P.nlanes; ++k)
    if ((rc = GCUBA_CK(c, cudaStreamCreateWithFlags(&P.lanes[k].st,
                                                    cudaStreamNonBlocking))) ||
        (rc = GCUBA_CK(c, cudaStreamCreateWithPriority(
             &P.lanes[k].rst, cudaStreamNonBlocking, urgent))))
      goto done;
  if (c->seed == 0) {
    const uint64_t *h = gcuba_sobol_table(P.ndim);
    if (!h) {
      rc = gcuba_fail(c, GCUBA_FAIL_NOMEM, "Sobol direction numbers");
      goto done;
    }
    if ((rc = GCUBA_CK(c, gcuba_cuda_malloc((void **)&P.sobol,
                                            sizeof(ull) * 64 * P.ndim))) ||
        (rc = GCUBA_CK(c, cudaMemcpy(P.sobol, h, sizeof(ull) * 64 * P.ndim,
                                     cudaMemcpyHostToDevice))))
      goto done;
  }

  t0 = gcuba_now_ms();
  P.nslots = n < ADMIT ? n : ADMIT;
  for (b = 0; b < n; ++b) {
    ms[b].P = &P;
    ms[b].L = &P.lanes[b % P.nlanes];
    ms[b].b = b;
    ms[b].c = &calls[b];
    ms[b].gslot = -1;
  }
  /* the lanes stepped on as their work on the device ends (the host
     steps one while the device works for the other): a lane whose work
     is done, the one queued first among them, else the one queued first
     (waiting for it) */
  for (;;) {
    lane *pick = NULL, *old = NULL;
    for (k = 0; k < P.nlanes; ++k) {
      lane *L = &P.lanes[k];
      if (L->done) continue;
      if (!old || L->seq < old->seq) old = L;
      if (lane_ready(L) && (!pick || L->seq < pick->seq)) pick = L;
    }
    if (!old) break;
    if (!pick) pick = old;
    if (!lane_step(&P, pick)) pick->done = 1;
  }
  rc = 0;
  t1 = gcuba_now_ms();
done:
  if (ms)
    for (b = 0; b < n; ++b) {
      if (ms[b].v) gcuba_vegas_end(ms[b].v);
      if (ms[b].gslot < 0) cudaFree(ms[b].dg);
    }
  cudaFree(P.gstore);
  free(P.gfree);
  free(ms);
  for (k = 0; k < LANES; ++k) {
    lane *L = &P.lanes[k];
    free(L->act);
    free(L->pl);
    cudaFree(L->din);
    gcuba_pinned_free(&L->hin);
    cudaFree(L->dout);
    gcuba_pinned_free(&L->hout);
    cudaFree(L->dscr);
    if (L->st) cudaStreamDestroy(L->st);
    if (L->rst) cudaStreamDestroy(L->rst);
  }
  cudaFree(P.sobol);
  cudaFree(P.ucopy);
  if (!rc)
    gcuba_log(c, 2, "pipeline: %d integrals in %.1f ms: %d rounds, %d "
              "waves; its buffers and streams %.1f ms, freed %.1f ms; the "
              "drivers' set-up and first iterations %.1f ms, their "
              "iterations taken and the next asked for %.1f ms, "
              "packing %.1f ms, the GPU (launches, waits) %.1f ms, the "
              "refinements (waits %.1f ms, queued and drivers %.1f ms), "
              "buffers grown %d times in %.1f ms, the waves' layouts "
              "%.1f ms, the rounds and waves chosen %.1f ms", n, t1 - t0,
              P.rounds, P.waves, t0 - tin, gcuba_now_ms() - t1, P.t_start,
              P.t_took, P.t_pack, P.t_gpu, P.t_refw, P.t_ref, P.ngrow,
              P.t_grow, P.t_lay, P.t_round);
  return rc;
}
