/* src/divonne/state.c -- the state files of gDivonne.  The whole run is
   written (the regions, the totals, the samplers, the counters of the
   random points, where each phase stands) at the top of a partitioning
   pass, before the final phase is sized, between the final phase's
   regions and between its top-up copies, at most once per 16 evaluations
   per region (so that writing costs little beside the integrand), and
   once more at the end.  A rerun with the same arguments resumes from the
   last state and ends with the bits of an uninterrupted run.

   Only states that a run with a larger maxeval also passes through are
   written: once a decision depended on maxeval (the partition stopped by
   it, a final phase sized short of its wish, a refinement skipped for
   it), the file keeps the last state before that decision.  A run cut
   short by maxeval and rerun with a larger one therefore ends with the
   bits of a single run with the larger maxeval, as gCuhre's and gSuave's
   do.  This file is part of gcuba. */
#include <stdlib.h>
#include <string.h>
#include "divonne/divonne_int.h"
#include "common/state.h"
#include "gcuba/detail/rule.h"

/* 1: the first layout; 2: the final phase's reserve; 3: Sobol copies of
   2^m points (a version 2 file's copies are of another size); 4: the
   regions' serial numbers (the partition's totals by blocks of them) */
#define STATE_VERSION 4

/* what a state file must match: the problem and the method's parameters
   (not maxeval, mineval, epsrel or epsabs: a rerun may ask for more) */
static uint64_t signature(const divonne *d)
{
  const gcuba_call *c = d->c;
  const char *name = c->integrand && c->integrand->name ? c->integrand->name
                                                        : "";
  double w[16];
  uint64_t h;
  w[0] = c->ndim;
  w[1] = c->ncomp;
  w[2] = c->key1;
  w[3] = c->key2;
  w[4] = c->key3;
  w[5] = c->maxpass;
  w[6] = c->border;
  w[7] = c->maxchisq;
  w[8] = c->mindeviation;
  w[9] = (double)c->ngiven;
  w[10] = (double)c->nextra;
  w[11] = (double)(uint32_t)c->seed;
  w[12] = (c->flags & GCUBA_LAST) != 0;
  w[13] = STATE_VERSION;
  w[14] = DIV_COPIES;
  w[15] = DIV_MAXPRIME;
  h = gcuba_fnv1a(w, sizeof w, GCUBA_FNV_SEED);
  if (d->ngiven)
    h = gcuba_fnv1a(d->xgiven, sizeof(double) * (size_t)d->ngiven * d->ndim,
                    h);
  return gcuba_fnv1a(name, strlen(name), h);
}

/* the region's fields after its arrays' pointers: they follow the struct */
static size_t region_doubles(const divonne *d)
{
  const size_t nd = (size_t)d->ndim, nc = (size_t)d->ncomp;
  return 2 * nd + 8 * nc + 2 * nc * nd;
}

/* the run's fields, in one order for writing (put) and reading */
static void fields(divonne *d, gcuba_buf *b, int put)
{
  const size_t nc = (size_t)d->ncomp;
  int i;
#define F(p, n) (put ? gcuba_buf_put(b, p, n) : gcuba_buf_get(b, p, n))
#define V(x) F(&(x), sizeof(x))
  V(d->neval);
  V(d->neval_opt);
  V(d->neval_cut);
  V(d->nshift);
  V(d->next);
  V(d->rr);
  V(d->stage);
  V(d->iter);
  V(d->pass);
  V(d->adjust);
  V(d->nmin);
  V(d->fi);
  V(d->nwant);
  V(d->short_);
  V(d->reserve);
  V(d->df);
  V(d->nserial);
  for (i = 0; i < 3; ++i) {
    dsamp *s = &d->samp[i];
    V(s->kind);
    V(s->n);
    V(s->neff);
    V(s->a);
    V(s->key);
    V(s->shifted);
  }
  F(d->tot, sizeof(dtot) * nc);
  if (d->ngiven) F(d->fgiven, sizeof(double) * (size_t)d->ngiven * nc);
#undef V
#undef F
}

static void region_fields(divonne *d, gcuba_buf *b, dreg *r, int put)
{
#define V(x) (put ? gcuba_buf_put(b, &(x), sizeof(x)) \
                  : gcuba_buf_get(b, &(x), sizeof(x)))
  V(r->depth);
  V(r->isamp);
  V(r->cutcomp);
  V(r->major);
  V(r->df);
  V(r->child);
  V(r->fmajor);
  V(r->fminor);
  V(r->vol);
  V(r->ncopy);
  V(r->cp);
  V(r->ca);
  V(r->serial);
#undef V
  if (put) gcuba_buf_put(b, r->lo, sizeof(double) * region_doubles(d));
  else gcuba_buf_get(b, r->lo, sizeof(double) * region_doubles(d));
}

void gcuba_divonne_checkpoint(divonne *d, int force)
{
  gcuba_call *c = d->c;
  gcuba_buf b = {0};
  long long i;
  int rc;
  if (!c->statefile || d->bound) return;
  if (d->neval == d->lastsave && d->stage == d->laststage) return;
  if (!force && d->neval - d->lastsave < 16 * d->nreg) return;
  fields(d, &b, 1);
  gcuba_buf_put(&b, &d->nreg, sizeof d->nreg);
  for (i = 0; i < d->nreg; ++i) region_fields(d, &b, d->reg[i], 1);
  rc = b.bad ? gcuba_fail(c, GCUBA_FAIL_NOMEM, "gDivonne's state buffer")
             : gcuba_state_write(c, "divonne", signature(d), &b);
  gcuba_buf_free(&b);
  if (rc) {
    d->fail = rc;
    longjmp(d->abort, 1);
  }
  d->lastsave = d->neval;
  d->laststage = d->stage;
}

int gcuba_divonne_load_state(divonne *d)
{
  gcuba_call *c = d->c;
  gcuba_buf b = {0};
  long long i, nreg = 0, nserial;
  int rc = gcuba_state_read(c, "divonne", signature(d), &b);
  if (rc <= 0) return rc;
  fields(d, &b, 0);
  nserial = d->nserial; /* (the regions made below count it up) */
  gcuba_buf_get(&b, &nreg, sizeof nreg);
  if (!b.bad && nreg >= 1 &&
      (size_t)nreg <= (b.n - b.pos) / (sizeof(double) * region_doubles(d)))
    for (i = 0; i < nreg && !b.bad; ++i)
      region_fields(d, &b, gcuba_divonne_region_new(d), 0);
  d->nserial = nserial;
  for (i = 1; i < d->nreg && !b.bad; ++i)
    if (!(d->reg[i - 1]->serial < d->reg[i]->serial)) b.bad = 1;
  if (d->nreg && !b.bad && !(d->reg[d->nreg - 1]->serial < nserial))
    b.bad = 1;
  for (i = 0; i < 3; ++i) d->samp[i].rule = &d->rules[i];
  if (b.bad || nreg < 1 || d->nreg != nreg || b.pos != b.n ||
      d->stage < 1 || d->stage > 3) {
    /* nothing of it stays */
    for (i = 0; i < d->nreg; ++i) free(d->reg[i]);
    d->nreg = 0;
    d->neval = d->neval_opt = d->neval_cut = 0;
    gcuba_buf_free(&b);
    return gcuba_fail(c, GCUBA_FAIL_STATE, "%s: not a state of this "
                      "gDivonne call", c->statefile);
  }
  gcuba_buf_free(&b);
  d->lastsave = d->neval;
  d->laststage = d->stage;
  gcuba_log(c, 1, "resumed from %s: %lld regions, %lld evaluations, %s",
            c->statefile, d->nreg, d->neval,
            d->stage == 1 ? "partitioning"
            : d->stage == 2 ? "final integration" : "final top-up");
  return 1;
}
