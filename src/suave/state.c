/* src/suave/state.c -- the state files of gSuave: after every step the
   whole run (the regions with their samples and grids, the number of the
   next point, neval), so that a resumed run continues exactly as an
   uninterrupted one.  This file is part of gcuba. */
#include <stdlib.h>
#include <string.h>
#include "suave/suave_int.h"
#include "common/state.h"

#define STATE_VERSION 1

/* what a state file must match: the problem and the sampling */
static uint64_t signature(const suave *s)
{
  long long w[9];
  union {
    double d;
    long long l;
  } u;
  u.d = s->flatness;
  w[0] = s->ndim;
  w[1] = s->ncomp;
  w[2] = s->nnew;
  w[3] = s->nmin;
  w[4] = u.l;
  w[5] = (long long)s->seed;
  w[6] = s->last;
  w[7] = s->smooth;
  w[8] = STATE_VERSION;
  return gcuba_fnv1a(w, sizeof w, GCUBA_FNV_SEED);
}

int gcuba_suave_save_state(suave *s)
{
  gcuba_call *c = s->c;
  gcuba_buf b = {0};
  long long i;
  int rc;
  gcuba_buf_put(&b, &c->neval, sizeof c->neval);
  gcuba_buf_put(&b, &s->next, sizeof s->next);
  gcuba_buf_put(&b, &s->nreg, sizeof s->nreg);
  for (i = 0; i < s->nreg && !b.bad; ++i) {
    const sreg *r = s->reg[i];
    gcuba_buf_put(&b, &r->div, sizeof r->div);
    gcuba_buf_put(&b, &r->df, sizeof r->df);
    gcuba_buf_put(&b, &r->n, sizeof r->n);
    gcuba_buf_put(&b, &r->nown, sizeof r->nown);
    gcuba_buf_put(&b, r + 1, r->bytes - sizeof *r);
    if (r->blk && !b.bad) {
      /* the samples on the device, in the host's layout after the rest */
      const size_t m = gcuba_suave_sample_bytes(s, r->n, r->nown);
      gcuba_buf_put(&b, NULL, m);
      if (!b.bad && (rc = s->dev->get(s->dctx, r->blk, b.p + b.n - m))) {
        gcuba_buf_free(&b);
        return rc;
      }
    }
  }
  rc = b.bad ? gcuba_fail(c, GCUBA_FAIL_NOMEM, "state buffer")
             : gcuba_state_write(c, "suave", signature(s), &b);
  gcuba_buf_free(&b);
  return rc;
}

/* the samples of r, a region on the device, from b: to the device, and
   its sets' ends from their weights' signs; 0 or a fail code */
static int load_dev(suave *s, sreg *r, gcuba_buf *b)
{
  const size_t m = gcuba_suave_sample_bytes(s, r->n, r->nown);
  const unsigned char *p = b->p + b->pos;
  long long k;
  int nset = 0;
  double w;
  if (m > b->n - b->pos) {
    b->bad = 1;
    return 0;
  }
  for (k = 0; k < r->n; ++k) {
    memcpy(&w, p + sizeof(double) * k, sizeof w);
    nset += w < 0;
  }
  memcpy(&w, p + sizeof(double) * (r->n - 1), sizeof w);
  if (w >= 0) {
    b->bad = 1;
    return 0;
  }
  if (!(r->se = (long long *)malloc(sizeof(long long) * (size_t)nset)))
    return gcuba_fail(s->c, GCUBA_FAIL_NOMEM, "gSuave: the state's regions");
  for (k = 0; k < r->n; ++k) {
    memcpy(&w, p + sizeof(double) * k, sizeof w);
    if (w < 0) r->se[r->nset++] = k + 1;
  }
  b->pos += m;
  return s->dev->put(s->dctx, r->blk, p);
}

int gcuba_suave_load_state(suave *s)
{
  gcuba_call *c = s->c;
  gcuba_buf b = {0};
  long long i, nreg = 0;
  int rc = gcuba_state_read(c, "suave", signature(s), &b);
  if (rc <= 0) return rc;
  gcuba_buf_get(&b, &c->neval, sizeof c->neval);
  gcuba_buf_get(&b, &s->next, sizeof s->next);
  gcuba_buf_get(&b, &nreg, sizeof nreg);
  for (i = 0; i < nreg && !b.bad; ++i) {
    sreg h, *r;
    gcuba_buf_get(&b, &h.div, sizeof h.div);
    gcuba_buf_get(&b, &h.df, sizeof h.df);
    gcuba_buf_get(&b, &h.n, sizeof h.n);
    gcuba_buf_get(&b, &h.nown, sizeof h.nown);
    if (b.bad || h.n < 1 || h.nown < 1 || h.nown > h.n ||
        h.n > (long long)(b.n - b.pos)) {
      b.bad = 1;
      break;
    }
    if (!(r = gcuba_suave_region_new(s, h.n, h.nown))) {
      gcuba_buf_free(&b);
      return c->fail < 0 ? c->fail
                         : gcuba_fail(c, GCUBA_FAIL_NOMEM,
                                      "gSuave: the state's regions");
    }
    r->div = h.div;
    r->df = h.df;
    gcuba_buf_get(&b, r + 1, r->bytes - sizeof *r);
    if (r->blk && !b.bad && (rc = load_dev(s, r, &b))) {
      gcuba_suave_region_drop(s, r);
      gcuba_buf_free(&b);
      return rc;
    }
    if (s->nreg == s->cap) {
      const long long cap = s->cap ? 2 * s->cap : 64;
      sreg **p = (sreg **)realloc(s->reg, sizeof(sreg *) * (size_t)cap);
      if (!p) {
        gcuba_suave_region_drop(s, r);
        gcuba_buf_free(&b);
        return gcuba_fail(c, GCUBA_FAIL_NOMEM, "gSuave: the state's regions");
      }
      s->reg = p;
      s->cap = cap;
    }
    s->reg[s->nreg++] = r;
  }
  if (b.bad || nreg < 1 || b.pos != b.n) {
    gcuba_buf_free(&b);
    return gcuba_fail(c, GCUBA_FAIL_STATE, "%s: not a state of this gSuave "
                      "call", c->statefile);
  }
  gcuba_buf_free(&b);
  gcuba_log(c, 1, "resumed from %s: %lld regions, %lld evaluations",
            c->statefile, s->nreg, c->neval);
  return 1;
}
