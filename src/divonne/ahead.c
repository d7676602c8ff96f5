/* src/divonne/ahead.c -- the final phase's copies of many regions made
   ahead, in one call of the executor.  A region's copies are a few
   thousand to a few hundred thousand points; for a cheap integrand one
   region a call left the GPU waiting on a round trip per region (some
   40 us: 2.5 s of the 4.6 s of two 8-D Gaussians at epsrel 1e-6 on an
   H100, 63,000 regions) and gave the CPU threads too little to share.

   final_loop asks for region i's copies ahead (gcuba_divonne_ahead)
   before it samples it.  The regions from i on are made as the loop
   will sample them if nothing changes: with the final sampler as it
   stands and the shifts they will draw (K a region, in the list's
   order).  make_copies takes a region's sums and extrema from here when
   its serial number, the shifts' counter, the lattice, the copies and
   the phase are those it was made with (gcuba_divonne_ahead_take):
   the same points and, since an executor sums a region of a batch as it
   sums it alone, the same bits as one region a call.  What changes the
   plan (a region cut again, whose pieces draw shifts and may resize the
   sampler; a refinement's copies; the evaluations running short) makes
   the rest miss: they are made again in their turn, and the evaluations
   made for nothing are not the call's (neval counts those taken; at
   verbosity 2 the call says how many there were).

   A batch is at most GCUBA_DIVONNE_AHEAD regions (default
   DIV_AHEAD_MAX) and DIV_AHEAD_POINTS points, and at most a quarter of
   the regions taken since the plan last changed (at least 2): what a
   change wastes is then at most about a quarter of what was taken
   before it, whatever the integrand costs.  An executor's failure on a
   batch ends nothing: each region is then made alone in its turn, and a
   failure is the call's where the loop reaches it.

   Where the executor makes copies in two halves (copies_start and
   copies_wait: the GPU), the batch after the one being taken is set
   going as soon as that one is there (the regions after it in the list,
   the shifts they will draw if nothing changes), so that the device
   makes it while the loop takes the regions before it: the next batch
   is then waited for, not made.  A change of plan drops it as it drops
   the rest of the batch being taken.  (The two 8-D Gaussians of
   bench/RESULTS-suave-divonne.md at epsrel 1e-6 on an H100: the final
   phases 0.13 + 0.19 s -> 0.11 + 0.13 s, 152 of instance 1's 153
   batches made while the host took the ones before.)  This file is
   part of gcuba. */
#include <stdlib.h>
#include <string.h>
#include "divonne/divonne_int.h"
#include "common/pool.h"

/* the most points of a batch: a GPU chunk (cuda/points.cu) */
#define DIV_AHEAD_POINTS (1LL << 22)

static void nomem(divonne *d)
{
  d->fail = gcuba_fail(d->c, GCUBA_FAIL_NOMEM, "gDivonne's batches");
  longjmp(d->abort, 1);
}

static void slot_free(dslot *b)
{
  free(b->serial);
  free(b->sum);
  free(b->iext);
  free(b->q);
  free(b->qd);
  free(b->qm);
  b->serial = b->iext = NULL;
  b->sum = b->ext = NULL;
  b->q = NULL;
  b->qd = NULL;
  b->qm = NULL;
  b->cap = 0;
  b->kcap = 0;
}

/* slot b for m regions of K copies, results and parameters (its
   contents not kept): 0, or longjmp on no memory */
static void grow(divonne *d, dslot *b, long long m, int K)
{
  const int nd = d->ndim, nc = d->ncomp;
  if (m > b->cap || K > b->kcap) {
    slot_free(b);
    b->serial = (long long *)malloc(sizeof(long long) * (size_t)m);
    b->sum = (double *)malloc(sizeof(double) * (size_t)m * (K + 2) * nc);
    b->iext = (long long *)malloc(sizeof(long long) * (size_t)m * 2 * nc);
    b->q = (gcuba_copies *)malloc(sizeof(gcuba_copies) * (size_t)m);
    b->qd = (double *)malloc(sizeof(double) * (size_t)m * (2 + K) * nd);
    b->qm = (uint64_t *)malloc(sizeof(uint64_t) * (size_t)m * K * nd);
    if (!b->serial || !b->sum || !b->iext || !b->q || !b->qd || !b->qm) {
      slot_free(b);
      nomem(d);
    }
    b->ext = b->sum + (size_t)m * K * nc;
    b->cap = m;
    b->kcap = K;
  }
}

/* entry e of batch t (results in b) holds region r's copies, the first
   shift ctr */
static int holds(const dbatch *t, const dslot *b, long long e,
                 const dreg *r, int K, uint64_t ctr, long long p,
                 long long ca, int phase)
{
  return e < t->n && b->serial[e] == r->serial &&
         t->nshift + (uint64_t)(e * K) == ctr && t->k == K && t->p == p &&
         t->ca == ca && t->phase == phase;
}

/* the regions of a batch from place i on, after `taken' more are taken
   (a quarter of the run then, within the bounds): 0 when under 2 */
static long long size(const divonne *d, long long i, long long taken,
                      int K, long long p)
{
  const dahead *a = &d->ahead;
  long long m = (a->run + taken) / 4 > 2 ? (a->run + taken) / 4 : 2;
  if (m > a->max) m = a->max;
  if (m > DIV_AHEAD_POINTS / (K * p)) m = DIV_AHEAD_POINTS / (K * p);
  if (m > d->nreg - i) m = d->nreg - i;
  return m < 2 ? 0 : m;
}

/* a batch's parameters: its regions' shifts (drawn from the counter,
   each region's its own) are made on the threads, DIV_PARAMS_PER
   regions an item (an 8-D region's some 0.8 us: 33 ms of the 1e-6
   Gaussian's 43,746 regions on one thread, with the GPU waiting) */
#define DIV_PARAMS_PER 256

typedef struct {
  const divonne *d;
  long long i; /* the batch's first region */
  const dbatch *t;
  dslot *b;
} params;

static int params_item(void *ctx, long long k, int tid)
{
  const params *P = (const params *)ctx;
  const divonne *d = P->d;
  const dbatch *t = P->t;
  dslot *b = P->b;
  const int nd = d->ndim, K = t->k;
  long long r;
  (void)tid;
  for (r = k * DIV_PARAMS_PER; r < t->n && r < (k + 1) * DIV_PARAMS_PER;
       ++r) {
    double *w = b->qd + (size_t)r * (2 + K) * nd;
    const dreg *g = d->reg[P->i + r];
    gcuba_divonne_copies_q(d, g, t->p, t->ca, K,
                           t->nshift + (uint64_t)(r * K), w, w + nd,
                           w + 2 * nd, b->qm + (size_t)r * K * nd, &b->q[r]);
    b->serial[r] = g->serial;
  }
  return 0;
}

/* batch t of regions i .. i + t->n - 1, its first shift t->nshift, into
   slot b: set going (wait 0) or made (wait 1); the executor's code */
static int make(divonne *d, long long i, dbatch *t, dslot *b, int wait)
{
  dahead *a = &d->ahead;
  const long long m = t->n;
  params P;
  grow(d, b, m, t->k);
  P.d = d;
  P.i = i;
  P.t = t;
  P.b = b;
  gcuba_pool_for(d->c->threads, (m + DIV_PARAMS_PER - 1) / DIV_PARAMS_PER, 1,
                 params_item, &P);
  ++a->nbatch;
  if (wait)
    return d->ops->copies(d->ctx, (int)m, b->q, t->phase, b->sum, b->ext,
                          b->iext);
  ++a->npend;
  return d->ops->copies_start(d->ctx, (int)m, b->q, t->phase, b->sum,
                              b->ext, b->iext);
}

/* the batch after the one being taken (region i its next) set going */
static void start_next(divonne *d, long long i)
{
  dahead *a = &d->ahead;
  const long long left = a->cur.n - a->next, j = i + left;
  dbatch t = a->cur;
  if (!d->ops->copies_start || a->pend.n || j >= d->nreg) return;
  t.n = size(d, j, left, t.k, t.p);
  if (!t.n) return;
  t.nshift = a->cur.nshift + (uint64_t)(a->cur.n * t.k);
  if (!make(d, j, &t, &a->slot[1 - a->now], 0)) a->pend = t;
}

/* the batch under way finished: 0, or the executor's code */
static int finish(divonne *d)
{
  dahead *a = &d->ahead;
  const int rc = d->ops->copies_wait(d->ctx);
  if (rc) {
    a->wasted += a->pend.n * a->pend.k * a->pend.p;
    a->pend.n = 0;
  }
  return rc;
}

void gcuba_divonne_ahead_settle(divonne *d)
{
  dahead *a = &d->ahead;
  if (!a->pend.n) return;
  if (!finish(d)) a->wasted += a->pend.n * a->pend.k * a->pend.p;
  a->pend.n = 0;
}

void gcuba_divonne_ahead(divonne *d, long long i)
{
  dahead *a = &d->ahead;
  const dsamp *s = &d->samp[1];
  const int K = s->shifted;
  const long long p = s->neff, ca = s->a;
  dbatch t;
  if (!d->ops->copies || d->blo > 0 || s->kind != DIV_LATTICE || K < 1 ||
      a->max < 2)
    return;
  if (a->next < a->cur.n) {
    if (holds(&a->cur, &a->slot[a->now], a->next, d->reg[i], K, d->nshift,
              p, ca, d->phase)) {
      start_next(d, i);
      return;
    }
    /* the plan changed: the rest were made for nothing, and so was the
       next batch */
    a->wasted += (a->cur.n - a->next) * a->cur.k * a->cur.p;
    a->run = 0;
    gcuba_divonne_ahead_settle(d);
  }
  a->cur.n = a->next = 0;
  if (a->pend.n) {
    /* the next batch, set going: still the plan? */
    if (!finish(d)) {
      if (holds(&a->pend, &a->slot[1 - a->now], 0, d->reg[i], K, d->nshift,
                p, ca, d->phase)) {
        a->cur = a->pend;
        a->pend.n = 0;
        a->now = 1 - a->now;
        start_next(d, i);
        return;
      }
      a->wasted += a->pend.n * a->pend.k * a->pend.p;
      a->run = 0;
    }
    a->pend.n = 0;
  }
  t.n = size(d, i, 0, K, p);
  if (!t.n) return;
  t.nshift = d->nshift;
  t.p = p;
  t.ca = ca;
  t.k = K;
  t.phase = d->phase;
  if (make(d, i, &t, &a->slot[a->now], 1)) {
    /* each in its turn, alone: a failure is the call's there */
    a->wasted += t.n * K * p;
    return;
  }
  a->cur = t;
  start_next(d, i);
}

const gcuba_copies *gcuba_divonne_ahead_take(divonne *d, const dreg *r,
                                             int K, uint64_t ctr, double *sum,
                                             double *ext, long long *iext)
{
  dahead *a = &d->ahead;
  const dslot *b = &a->slot[a->now];
  const int nc = d->ncomp;
  const long long e = a->next;
  if (!holds(&a->cur, b, e, r, K, ctr, r->cp, r->ca, d->phase)) return NULL;
  memcpy(sum, b->sum + (size_t)e * K * nc, sizeof(double) * K * nc);
  memcpy(ext, b->ext + (size_t)e * 2 * nc, sizeof(double) * 2 * nc);
  memcpy(iext, b->iext + (size_t)e * 2 * nc, sizeof(long long) * 2 * nc);
  ++a->next;
  ++a->run;
  return &b->q[e];
}

void gcuba_divonne_ahead_free(divonne *d)
{
  dahead *a = &d->ahead;
  slot_free(&a->slot[0]);
  slot_free(&a->slot[1]);
  a->cur.n = a->next = a->pend.n = 0;
}
