/* src/divonne/look.c -- the partition's pieces explored ahead on the CPU
   threads.  A round of the partition cuts the region of largest spread
   into up to 2 ndim + 1 pieces and explores each: a sampling, then for
   every component a search for the least and one for the greatest value
   (some 300 evaluations a piece of an 8-D Gaussian, point by point).
   That exploration reads the piece and the call's settings only; what
   follows it in the round (whether the piece is cut further, which
   compares its spread with the others', the evaluations' count) depends
   on the pieces explored before it.  So when the round's loop reaches a
   piece not yet explored, it and every piece after it are explored at
   once, one piece an item of a gcuba_pool_for loop, each thread with its
   own copy of the call's struct (its scratch, its evaluation count, its
   abort); the loop then takes each piece's results in its turn
   (gcuba_divonne_explore) as if it had explored it there, evaluations
   counted then.  The values are the executor's own on the calling thread
   (ops->eval_on, as thread tid: its private userdata), the same as eval
   gives them, so the call's bits do not depend on the threads.

   Only where that holds: the executor evaluates the sampling's points on
   the calling thread (on_max: the GPU's small lists on the host), the
   partition's sampler is no pseudo-random or Sobol sequence drawn in
   turn, and there is no peak finder (a user function, called in turn).
   A piece whose evaluation fails on a thread is explored again in its
   turn, where the failure ends the call as it would have.  This file is
   part of gcuba. */
#include <stdlib.h>
#include <string.h>
#include "divonne/divonne_int.h"
#include "common/pool.h"

/* the partition's cuts worked out ahead: at most DIV_SPEC_PER a thread
   and DIV_SPEC_MAX in all at a time (gcuba_divonne_totals_top gives at
   most that many).  Larger loops wait less for their last items: the
   8-D Gaussian at 1e-6 (maxeval 2e7) on 2 threads of an EPYC, 43,738
   cuts, 3245 loops at 8 a thread and 1196 at 32, the partition 0.72 ->
   0.63 s; 8 a thread against 32 on Genz's protocol: the same time */
#define DIV_SPEC_PER 32
#define DIV_SPEC_MAX GCUBA_DIVONNE_TOPMAX

typedef struct {
  divonne *d;
  long long *pos; /* the pieces' places in the list */
} looks;

/* whether pieces can be explored on the threads */
static int usable(const divonne *d)
{
  const gcuba_call *c = d->c;
  const dsamp *s = &d->samp[0];
  long long need = s->n > 2 ? s->n : 2;
  if (d->worker || c->threads < 2 || !d->ops->eval_on || !d->ops->on_max ||
      s->kind == DIV_RANDOM || s->shifted || (c->nextra && c->peakfinder))
    return 0;
  if (d->blo > 0) need *= 2; /* the border's partners */
  return d->ops->on_max(d->ctx) >= need;
}

/* thread tid's copy of d as d stands, its scratch kept: 0, or -1 when
   there is no memory for its scratch */
static int refresh(divonne *d, int tid)
{
  divonne *w = &d->work[tid];
  double *sx = w->sx, *wx = w->wx, *bx = w->bx, *xmem = w->xmem;
  double *pbox = w->pbox;
  const long long scap = w->scap, bcap = w->bcap;
  if (!wx) {
    wx = (double *)malloc(sizeof(double) * 2 * ((size_t)d->ndim + d->ncomp));
    if (!wx) return -1;
  }
  memcpy(w, d, sizeof *w);
  w->sx = sx;
  w->sf = sx ? sx + (size_t)scap * 2 * d->ndim : NULL;
  w->scap = scap;
  w->wx = wx;
  w->wf = wx + 2 * d->ndim;
  w->bx = bx;
  w->bcap = bcap;
  w->xmem = xmem;
  w->pbox = pbox;
  w->work = NULL;
  w->nwork = 0;
  w->worker = 1;
  w->tid = tid;
  w->neval = 0;
  w->fail = 0;
  return 0;
}

/* the threads' copies for nt threads: 0, or -1 on no memory */
static int workers(divonne *d, int nt)
{
  int t;
  if (!d->work) {
    d->work = (divonne *)calloc((size_t)d->c->threads, sizeof *d->work);
    if (!d->work) return -1;
    d->nwork = d->c->threads;
  }
  for (t = 0; t < nt; ++t)
    if (refresh(d, t)) return -1;
  return 0;
}

static int item(void *ctx, long long k, int tid)
{
  looks *L = (looks *)ctx;
  divonne *w = &L->d->work[tid];
  dreg *r = L->d->reg[L->pos[k]];
  r->pre = 0;
  if (setjmp(w->abort)) return 0; /* explored again in its turn */
  w->neval = 0;
  gcuba_divonne_look(w, r);
  r->pre = 1 + w->neval;
  return 0;
}

void gcuba_divonne_look_ahead(divonne *d, long long j)
{
  long long pos[64], *p = pos, n = 0, k;
  double t0;
  looks L;
  int nt;
  if (!usable(d)) return;
  for (k = j; k < d->nreg; ++k)
    if (d->reg[k] && d->reg[k]->depth >= 0 && !d->reg[k]->pre) ++n;
  if (n < 2) return;
  if (n > (long long)(sizeof pos / sizeof *pos)) {
    p = (long long *)malloc(sizeof *p * (size_t)n);
    if (!p) return;
  }
  n = 0;
  for (k = j; k < d->nreg; ++k)
    if (d->reg[k] && d->reg[k]->depth >= 0 && !d->reg[k]->pre) p[n++] = k;
  nt = d->c->threads < n ? d->c->threads : (int)n;
  if (workers(d, nt)) goto done;
  L.d = d;
  L.pos = p;

  t0 = gcuba_now_ms();
  gcuba_pool_for(nt, n, 1, item, &L);
  d->tahead += gcuba_now_ms() - t0;
  ++d->nloops;
  for (k = 0; k < n; ++k) d->nlook += d->reg[p[k]]->pre != 0;
done:
  if (p != pos) free(p);
}

static int spec_item(void *ctx, long long k, int tid)
{
  looks *L = (looks *)ctx;
  divonne *w = &L->d->work[tid];
  dreg *r = L->d->reg[L->pos[k]];
  if (setjmp(w->abort)) {
    /* (cut in its turn) */
    gcuba_divonne_spec_free(r);
    return 0;
  }
  gcuba_divonne_speculate(w, r);
  return 0;
}

void gcuba_divonne_spec_ahead(divonne *d, int cc)
{
  long long pos[DIV_SPEC_MAX];
  const dreg *r = d->reg[d->tot[cc].iregion];
  double t0;
  int n, m, j, nt;
  looks L;
  if (!r || r->spec || !usable(d)) return;
  nt = d->c->threads;
  n = gcuba_divonne_totals_top(
      d, cc, nt * DIV_SPEC_PER < DIV_SPEC_MAX ? nt * DIV_SPEC_PER
                                              : DIV_SPEC_MAX, pos);
  /* the round's region first (a block's top, the largest), then those
     not worked out yet */
  for (j = m = 0; j < n; ++j)
    if (d->reg[pos[j]] && !d->reg[pos[j]]->spec) pos[m++] = pos[j];
  if (m < 2) return;
  if (nt > m) nt = m;
  if (workers(d, nt)) return;
  L.d = d;
  L.pos = pos;
  t0 = gcuba_now_ms();
  gcuba_pool_for(nt, m, 1, spec_item, &L);
  d->tahead += gcuba_now_ms() - t0;
  ++d->nloops;
  for (j = 0; j < m; ++j) d->nspec += d->reg[pos[j]]->spec != NULL;
}

void gcuba_divonne_spec_drop(divonne *d)
{
  long long i;
  for (i = 0; i < d->nreg; ++i)
    if (d->reg[i]) gcuba_divonne_spec_free(d->reg[i]);
}

void gcuba_divonne_look_free(divonne *d)
{
  int t;

  for (t = 0; t < d->nwork; ++t) {
    free(d->work[t].sx);
    free(d->work[t].wx);
    free(d->work[t].bx);
    free(d->work[t].xmem);
    free(d->work[t].pbox);
  }
  free(d->work);
  d->work = NULL;
  d->nwork = 0;
}
