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
   failure is the call's where the loop reaches it.  This file is part of
   gcuba. */
#include <stdlib.h>
#include <string.h>
#include "divonne/divonne_int.h"

/* the most points of a batch: a GPU chunk (cuda/points.cu) */
#define DIV_AHEAD_POINTS (1LL << 22)

/* buffers for m regions of K copies: 0, or longjmp on no memory */
static void grow(divonne *d, long long m, int K)
{
  dahead *a = &d->ahead;
  const int nd = d->ndim, nc = d->ncomp;
  if (m <= a->cap && K <= a->kcap) return;
  gcuba_divonne_ahead_free(d);
  a->serial = (long long *)malloc(sizeof(long long) * (size_t)m);
  a->sum = (double *)malloc(sizeof(double) * (size_t)m * (K + 2) * nc);
  a->iext = (long long *)malloc(sizeof(long long) * (size_t)m * 2 * nc);
  a->q = (gcuba_copies *)malloc(sizeof(gcuba_copies) * (size_t)m);
  a->qd = (double *)malloc(sizeof(double) * (size_t)m * (2 + K) * nd);
  a->qm = (uint64_t *)malloc(sizeof(uint64_t) * (size_t)m * K * nd);
  if (!a->serial || !a->sum || !a->iext || !a->q || !a->qd || !a->qm) {
    gcuba_divonne_ahead_free(d);
    d->fail = gcuba_fail(d->c, GCUBA_FAIL_NOMEM, "gDivonne's batches");
    longjmp(d->abort, 1);
  }
  a->ext = a->sum + (size_t)m * K * nc;
  a->cap = m;
  a->kcap = K;
}

/* entry e holds region r's copies, the first shift ctr */
static int holds(const dahead *a, long long e, const dreg *r, int K,
                 uint64_t ctr, long long p, long long ca, int phase)
{
  return e < a->n && a->serial[e] == r->serial &&
         a->nshift + (uint64_t)(e * K) == ctr && a->k == K && a->p == p &&
         a->ca == ca && a->phase == phase;
}

void gcuba_divonne_ahead(divonne *d, long long i)
{
  dahead *a = &d->ahead;
  const dsamp *s = &d->samp[1];
  const int nd = d->ndim, K = s->shifted;
  const long long p = s->neff, ca = s->a;
  long long m, r;
  int rc;
  if (!d->ops->copies || d->blo > 0 || s->kind != DIV_LATTICE || K < 1 ||
      a->max < 2)
    return;
  if (a->next < a->n) {
    if (holds(a, a->next, d->reg[i], K, d->nshift, p, ca, d->phase)) return;
    /* the plan changed: the rest were made for nothing */
    a->wasted += (a->n - a->next) * K * a->p;
    a->run = 0;
  }
  a->n = a->next = 0;
  m = a->run / 4 > 2 ? a->run / 4 : 2;
  if (m > a->max) m = a->max;
  if (m > DIV_AHEAD_POINTS / (K * p)) m = DIV_AHEAD_POINTS / (K * p);
  if (m > d->nreg - i) m = d->nreg - i;
  if (m < 2) return;
  grow(d, m, K);
  for (r = 0; r < m; ++r) {
    double *w = a->qd + (size_t)r * (2 + K) * nd;
    const dreg *g = d->reg[i + r];
    gcuba_divonne_copies_q(d, g, p, ca, K, d->nshift + (uint64_t)(r * K), w,
                           w + nd, w + 2 * nd,
                           a->qm + (size_t)r * K * nd, &a->q[r]);
    a->serial[r] = g->serial;
  }
  rc = d->ops->copies(d->ctx, (int)m, a->q, d->phase, a->sum, a->ext,
                      a->iext);
  ++a->nbatch;
  if (rc) {
    /* each in its turn, alone: a failure is the call's there */
    a->wasted += m * K * p;
    return;
  }
  a->n = m;
  a->nshift = d->nshift;
  a->p = p;
  a->ca = ca;
  a->k = K;
  a->phase = d->phase;
}

int gcuba_divonne_ahead_take(divonne *d, const dreg *r, int K, uint64_t ctr,
                             double *sum, double *ext, long long *iext)
{
  dahead *a = &d->ahead;
  const int nc = d->ncomp;
  const long long e = a->next;
  if (!holds(a, e, r, K, ctr, r->cp, r->ca, d->phase)) return 0;
  memcpy(sum, a->sum + (size_t)e * K * nc, sizeof(double) * K * nc);
  memcpy(ext, a->ext + (size_t)e * 2 * nc, sizeof(double) * 2 * nc);
  memcpy(iext, a->iext + (size_t)e * 2 * nc, sizeof(long long) * 2 * nc);
  ++a->next;
  ++a->run;
  return 1;
}

void gcuba_divonne_ahead_free(divonne *d)
{
  dahead *a = &d->ahead;
  free(a->serial);
  free(a->sum);
  free(a->iext);
  free(a->q);
  free(a->qd);
  free(a->qm);
  a->serial = a->iext = NULL;
  a->sum = a->ext = a->qd = NULL;
  a->q = NULL;
  a->qm = NULL;
  a->cap = a->n = a->next = 0;
  a->kcap = 0;
}
