/* cuda/vegas_batch_refine.cu -- gVegasBatch's GPU pipeline
   (cuda/vegas_batch.cu): the refinements its members' drivers ask for,
   made on the device where the grids and bin contributions are
   (gcuba_vk_refine, cuda/vegas_refine.cu), and the drivers told of
   them; a driver that needs its grid itself copies it back (fetch).
   This file is part of gcuba. */
#include "cuda/vegas_batch_int.cuh"

/* a member's grid from the device into grid (its driver's fetch) */
static int fetch(void *ctx, double *grid)
{
  member *m = (member *)ctx;
  pipe *P = m->P;
  lane *L = m->L;
  int rc;
  if (P->broken) return P->broken;
  if (!(rc = GCUBA_CK(m->c, cudaMemcpyAsync(grid, m->dg,
                                            sizeof(double) * P->ngrids *
                                                (size_t)(m->gnb + 1),
                                            cudaMemcpyDeviceToHost, L->rst))))
    rc = GCUBA_CK(m->c, cudaStreamSynchronize(L->rst));
  return rc;
}

/* member j's refined grid, which stays on the device, to its driver: the
   grids left unchanged and the edge bins' widths (a pool item) */
static int refined_item(void *ctx, long long jj, int tid)
{
  const wavej *W = (const wavej *)ctx;
  const pipe *P = W->P;
  const lane *L = W->L;
  member *m = W->w[jj];
  const place *p = &L->pl[jj];
  const int *left = (const int *)(L->hout.p + W->o_left) + p->r0;
  int g, nleft = 0;
  (void)tid;
  if (!m->refine) return 0;
  m->refine = 0;
  /* (a broken wave: whatever came back; the call fails next) */
  for (g = 0; g < P->ngrids; ++g) nleft += left[g];
  if (gcuba_vegas_refined_at(
          m->v, (const double *)(L->hout.p + W->o_edge) + 2 * p->r0, nleft,
          fetch, m)) {
    gcuba_vegas_end(m->v);
    m->v = NULL;
  } else
    gcuba_vb_next(m);
  return 0;
}

/* member j's refinements, one per grid, written at its place in the
   wave's table (a pool item) */
static int refine_item(void *ctx, long long jj, int tid)
{
  const wavej *W = (const wavej *)ctx;
  const pipe *P = W->P;
  const lane *L = W->L;
  const member *m = W->w[jj];
  const place *p = &L->pl[jj];
  struct gcuba_vk_refine *R =
      (struct gcuba_vk_refine *)(L->hin.p + W->o_R) + p->r0;
  const int nb = m->nb;
  int g, mode;
  size_t so = p->so;
  (void)tid;
  if (!m->refine) return 0;
  mode = gcuba_vegas_refine_mode(m->v);
  for (g = 0; g < P->ngrids; ++g) {
    const int r = p->r0 + g;
    R[g].e = m->dg + (size_t)g * (nb + 1);
    R[g].d = (const double *)(L->dout + p->d) + (size_t)g * nb;
    R[g].scratch = (double *)L->dscr + so;
    so += GCUBA_VEGAS_GRID_SCRATCH_WARP(nb);
    R[g].left = (int *)(L->dout + W->o_left) + r;
    R[g].edge = (double *)(L->dout + W->o_edge) + 2 * r;
    R[g].nb = nb;
    R[g].nrows = P->shared ? P->ndim : 1;
    R[g].mode = mode;
  }
  return 0;
}

/* the refinements the drivers of wave W asked for, queued on the
   device in the lane's urgent stream (its blocks go before those of
   other lanes' sampling still to start): their grids refined in place
   from their bin contributions (still in the wave's output buffer), one
   warp per grid; back come the grids left unchanged and the edge
   bins' widths (refined_all); 1 when some are queued */
int gcuba_vb_refine(pipe *P, wavej *W)
{
  lane *L = W->L;
  gcuba_call *c = P->c;
  size_t so = 0;
  int j, nr = 0, rc = P->broken;
  const double t = gcuba_now_ms();
  /* where each member's refinements go (in order), then the table
     written by the members in parallel */
  for (j = 0; j < W->n; ++j) {
    const member *m = W->w[j];
    place *p = &L->pl[j];
    if (!m->refine) continue;
    p->r0 = nr;
    p->so = so;
    nr += P->ngrids;
    so += (size_t)P->ngrids * GCUBA_VEGAS_GRID_SCRATCH_WARP(m->nb);
  }
  if (nr == 0) return 0;
  gcuba_pool_for(P->threads, W->n, 64, refine_item, W);
  if (!rc &&
      !(rc = GCUBA_CK(c, cudaMemcpyAsync(L->din + W->o_R, L->hin.p + W->o_R,
                                         sizeof(struct gcuba_vk_refine) * nr,
                                         cudaMemcpyHostToDevice, L->rst)))) {
    gcuba_vk_refine<<<(nr + 3) / 4, 128, 0, L->rst>>>(
        (const struct gcuba_vk_refine *)(L->din + W->o_R), nr);
    if (!(rc = GCUBA_CK_LAUNCH(c, "gcuba_vk_refine")))
      rc = GCUBA_CK(c, cudaMemcpyAsync(L->hout.p + W->o_left,
                                       L->dout + W->o_left,
                                       W->o_edge - W->o_left +
                                           sizeof(double) * 2 * nr,
                                       cudaMemcpyDeviceToHost, L->rst));
  }
  if (rc) P->broken = rc;
  P->t_ref += gcuba_now_ms() - t;
  return 1;
}

/* wave W's refinements done: each driver goes on */
void gcuba_vb_refined_all(pipe *P, wavej *W)
{
  double t = gcuba_now_ms();
  if (!P->broken) P->broken = GCUBA_CK(P->c, cudaStreamSynchronize(W->L->rst));
  else cudaStreamSynchronize(W->L->rst);
  P->t_refw += gcuba_now_ms() - t;
  t = gcuba_now_ms();
  gcuba_pool_for(P->threads, W->n, 4, refined_item, W);
  P->t_ref += gcuba_now_ms() - t;
}
