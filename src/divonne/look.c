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
#include <math.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include "divonne/divonne_int.h"
#include "common/pool.h"

/* the window of the partition's cuts worked out ahead: DIV_FLY_PER a
   thread, at most DIV_FLY_MAX; of them at most DIV_NOW_MAX in
   a loop of their own */
#define DIV_FLY_PER 128
#define DIV_FLY_MAX GCUBA_DIVONNE_TOPMAX
#define DIV_NOW_MAX 256

/* the cuts being worked out while the rounds go on (below) */
typedef struct dflight {
  divonne *d;
  dreg *r[DIV_FLY_MAX]; /* the regions (NULL: cut since, item done) */
  int done[DIV_FLY_MAX]; /* set by the thread that worked item k out */
  long long n;
  int ndone; /* items done (atomic) */
  int on;
  long long mark;   /* the regions made before the last batch */
  double thr;       /* the spread of the last region chosen */
  long long chosen; /* the round of the last choice */
  int stop;         /* the items not yet begun are dropped (atomic) */
} dflight;
static void settle(divonne *d);
static dflight *idle(divonne *d);

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

/* a loop of nt threads over n items, its time and count kept */
static void timed(divonne *d, int nt, long long n, gcuba_pool_fn fn,
                  looks *L)
{
  const double t0 = gcuba_now_ms();
  gcuba_pool_for(nt, n, 1, fn, L);
  d->tahead += gcuba_now_ms() - t0;
  ++d->nloops;
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
  looks L;
  int nt;
  /* (the threads' copies: not while cuts are being worked out) */
  if (!usable(d) || (d->fl && d->fl->on && !idle(d))) return;
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
  timed(d, nt, n, item, &L);
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

/* The cuts worked out while the rounds go on.  A choice of the regions
   of largest spread (gcuba_divonne_totals_top: a scan of up to all of
   them) takes a window of DIV_FLY_PER a thread: the first of them
   without a cut, one a thread and the round's region first, are worked
   out in a loop of all the threads (when the round's region has none),
   and the rest are started on the workers (the pool's threads but the
   caller), whose copies of d are taken then.  The rounds go on
   meanwhile, reading and moving nothing those cuts read or write (a
   region is cut only once its item is done, and its spec is read only
   then).  A round whose region is still being worked out waits for that
   item alone; one whose region has no cut while the workers are busy
   cuts it on this thread.  When the workers are free, the regions made
   since the last batch that the last choice would have taken (a spread
   of at least its last one's) are started, and once the rounds have
   taken half a window, a new choice is made.  The cuts are those a
   loop in turn makes, so the call's bits stay the same. */

static int fly_item(void *ctx, long long k, int tid)
{
  dflight *F = (dflight *)ctx;
  divonne *w = &F->d->work[tid];
  dreg *r = F->r[k];
  if (!__atomic_load_n(&F->stop, __ATOMIC_RELAXED)) {
    if (setjmp(w->abort)) gcuba_divonne_spec_free(r); /* (cut in its turn) */
    else gcuba_divonne_speculate(w, r);
  }
  __atomic_store_n(&F->done[k], 1, __ATOMIC_RELEASE);
  __atomic_add_fetch(&F->ndone, 1, __ATOMIC_RELEASE);
  return 0;
}

/* the batch in flight, if any, finished: the items left on this thread
   (or dropped, when F->stop is set) */
static void settle(divonne *d)
{
  dflight *F = d->fl;
  double t0;
  long long k;
  if (!F || !F->on) return;
  t0 = gcuba_now_ms();
  gcuba_pool_finish();
  d->tfly += gcuba_now_ms() - t0;
  F->on = 0;
  for (k = 0; k < F->n; ++k) {
    if (F->r[k]) {
      F->r[k]->flight = 0;
      d->nspec += F->r[k]->spec != NULL;
    }
  }
}

/* region r, in the batch, taken out of it once its item is done (this
   thread taking the batch's next items meanwhile) */
static void land(divonne *d, dreg *r)
{
  dflight *F = d->fl;
  const long long k = r->flight - 1;
  if (!__atomic_load_n(&F->done[k], __ATOMIC_ACQUIRE)) {
    const double t0 = gcuba_now_ms();
    long long spin = 0;
    while (!__atomic_load_n(&F->done[k], __ATOMIC_ACQUIRE))
      if (gcuba_pool_help()) continue;
      else if (++spin < 4096) gcuba_pool_relax();
      else sched_yield();
    d->tfly += gcuba_now_ms() - t0;
  }
  F->r[k] = NULL;
  r->flight = 0;
  d->nspec += r->spec != NULL;
}

/* d's batch (made on first use), settled when all of it is done: NULL
   while a batch is under way (or on no memory) */
static dflight *idle(divonne *d)
{
  dflight *F = d->fl;
  if (F && F->on) {
    if (__atomic_load_n(&F->ndone, __ATOMIC_ACQUIRE) < F->n) return NULL;
    settle(d);
  }
  if (!F) {
    F = d->fl = (dflight *)calloc(1, sizeof *F);
    if (!F) return NULL;
    F->d = d;
    F->thr = -INFINITY;
  }
  return F;
}

/* the cuts of the m regions in F->r started on the workers */
static void launch(divonne *d, dflight *F, int m)
{
  const int nt = d->c->threads;
  int j;
  if (m < 1 || workers(d, nt)) return;
  F->n = m;
  F->ndone = F->stop = 0;
  for (j = 0; j < m; ++j) F->done[j] = 0;
  if (gcuba_pool_start(nt, m, 1, fly_item, F)) return;
  F->on = 1;
  ++d->nfly;
  for (j = 0; j < m; ++j) F->r[j]->flight = j + 1;
}

/* the regions made since the last batch (the list's tail) that the
   last choice would have taken, not cur (the round's region, cut now),
   started on the workers */
static void fly(divonne *d, dflight *F, int cc, const dreg *cur)
{
  long long i;
  int m = 0;
  for (i = d->nreg - 1; i >= 0 && m < DIV_FLY_MAX; --i) {
    dreg *r = d->reg[i];
    if (!r) continue;
    if (r->serial < F->mark) break;
    if (r != cur && !r->spec && r->spread[cc] >= F->thr) F->r[m++] = r;
  }
  F->mark = d->nserial;
  launch(d, F, m);
}

/* the window's size: DIV_FLY_PER a thread */
static int window(const divonne *d)
{
  const int nt = d->c->threads;
  return nt * DIV_FLY_PER < DIV_FLY_MAX ? nt * DIV_FLY_PER : DIV_FLY_MAX;
}

/* a choice (F idle): the round's region cur has no cut (first: a loop
   of its own) or has one */
static void choose(divonne *d, dflight *F, int cc, const dreg *cur,
                   int first)
{
  long long pos[DIV_FLY_MAX], now[DIV_NOW_MAX];
  const int w = window(d);
  int nt = d->c->threads, n, m = 0, j, k = 0;
  n = gcuba_divonne_totals_top(d, cc, w, pos);
  F->thr = n < w || !d->reg[pos[n - 1]] ? -INFINITY
                                        : d->reg[pos[n - 1]]->spread[cc];
  F->mark = d->nserial;
  F->chosen = d->iter;
  if (nt > DIV_NOW_MAX) nt = DIV_NOW_MAX;
  for (j = 0; j < n; ++j) {
    dreg *r = d->reg[pos[j]];
    if (!r || r->spec) continue;
    if (first && k < nt) now[k++] = pos[j];
    else if (r != cur) F->r[m++] = r;
  }
  if (k >= 2 && !workers(d, k)) {
    looks L;
    L.d = d;
    L.pos = now;
    timed(d, k, k, spec_item, &L);
    for (j = 0; j < k; ++j) d->nspec += d->reg[now[j]]->spec != NULL;
  }
  launch(d, F, m);
}

void gcuba_divonne_spec_ahead(divonne *d, int cc)
{
  dreg *r = d->reg[d->tot[cc].iregion];
  dflight *F;
  if (!r || !usable(d)) return;
  if (r->flight) land(d, r);
  /* (a batch under way: a region without a cut is cut in its turn) */
  if (!(F = idle(d))) return;
  if (!r->spec) choose(d, F, cc, r, 1);
  else if (2 * (d->iter - F->chosen) >= window(d)) choose(d, F, cc, r, 0);
  else fly(d, F, cc, r);
}

void gcuba_divonne_spec_drop(divonne *d)
{
  long long i;
  if (d->fl) __atomic_store_n(&d->fl->stop, 1, __ATOMIC_RELAXED);
  settle(d);
  for (i = 0; i < d->nreg; ++i)
    if (d->reg[i]) gcuba_divonne_spec_free(d->reg[i]);
}

void gcuba_divonne_look_free(divonne *d)
{
  int t;
  if (d->fl) __atomic_store_n(&d->fl->stop, 1, __ATOMIC_RELAXED);
  settle(d);
  free(d->fl);
  d->fl = NULL;
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
