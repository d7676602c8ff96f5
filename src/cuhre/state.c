/* src/cuhre/state.c -- a gCuhre call's state: the driver's counters,
   totals and sequences with the backend's leaves, into a state file
   (common/state.c frames it) or a buffer a call growing to several GPUs
   resumes from, and back.  The payload's layout is signed with the
   integrand's name, the dimension, components and rule, so that a state
   file of another problem is refused.  This file is part of gcuba. */
#include <stdlib.h>
#include <string.h>
#include "cuhre/iter.h"

static uint64_t signature(const cuhre *t)
{
  const gcuba_call *c = t->c;
  int v[5];
  const char *name = c->integrand->name ? c->integrand->name : "";
  v[0] = c->ndim;
  v[1] = c->ncomp;
  v[2] = t->rule.key;
  v[3] = gcuba_rule_nevals(&t->rule);
  /* the layout: 2 since dims carry GCUBA_RULE_DECAYS and parent records
     their sign (a library before it would read the flag as an axis), 3
     since the payload holds the cut map (gcuba/detail/cut.h), 4 since
     the map holds its scan's round and the jumps' heights, 5 since it
     holds a second feature per axis, 6 since it holds an anchor, 7
     since parent records carry GCUBA_RULE_SLACK in their lowest bit */
  v[4] = 7;
  return gcuba_fnv1a(name, strlen(name),
                     gcuba_fnv1a(v, sizeof v, GCUBA_FNV_SEED));
}

/* the driver's part of the payload and the region counts, in one order
   for writing (put) and reading */
static void fields(cuhre *t, gcuba_buf *b, gcuba_region_set *s, int put)
{
  gcuba_call *c = t->c;
  const size_t nc = sizeof(double) * t->ncomp;
#define F(p, n) (put ? gcuba_buf_put(b, p, n) : gcuba_buf_get(b, p, n))
  F(&t->st.iter, sizeof t->st.iter);
  F(&t->nfinished, sizeof t->nfinished);
  F(&c->neval, sizeof c->neval);
  F(t->st.finavg, nc);
  F(t->st.finerr, nc);
  F(t->st.prev, nc);
  F(t->st.chi, sizeof *t->st.chi * t->ncomp);
  F(&t->st.relfrac, sizeof t->st.relfrac);
  F(&t->st.small, sizeof t->st.small);
  F(&t->nseq, sizeof t->nseq);
  F(&t->nres, sizeof t->nres);
  F(t->seq, nc * WYNN_TERMS);
  F(t->res, nc * 3);
  F(t->st.pconv, nc);
  F(&t->st.stall_r, sizeof t->st.stall_r);
  F(&t->st.stall_neval, sizeof t->st.stall_neval);
  F(&t->cm, sizeof t->cm);
  F(&s->n, sizeof s->n);
  F(&s->nold, sizeof s->nold);
  F(&s->haveparents, sizeof s->haveparents);
#undef F
}

int gcuba_cuhre_payload(cuhre *t, gcuba_buf *pb, int file,
                         gcuba_region_set *dev)
{
  gcuba_call *c = t->c;
  gcuba_region_set s;
  gcuba_buf b = {0};
  size_t nc = sizeof(double) * t->ncomp;
  int rc;
  memset(&s, 0, sizeof s);
  rc = dev ? t->ops->save_dev(t->ctx, &s) : t->ops->save(t->ctx, &s);
  if (!rc) {
    long long nn = (s.n - s.nold) / 2;
    fields(t, &b, &s, 1);
    if (!dev) {
      gcuba_buf_put(&b, s.lo, sizeof(double) * s.n * c->ndim);
      gcuba_buf_put(&b, s.w, sizeof(double) * s.n * c->ndim);
      gcuba_buf_put(&b, s.avg, nc * s.nold);
      gcuba_buf_put(&b, s.err, nc * s.nold);
      gcuba_buf_put(&b, s.dims, sizeof(int) * t->ncomp * s.nold);
      gcuba_buf_put(&b, s.pavg, nc * nn);
      gcuba_buf_put(&b, s.perr, nc * nn);
    }
    rc = b.bad    ? gcuba_fail(c, GCUBA_FAIL_NOMEM, "state buffer")
         : file ? gcuba_state_write(c, "cuhre", signature(t), &b)
                : 0;
  } else
    rc = gcuba_fail(c, rc, "saving the regions");
  if (dev)
    *dev = s; /* GPU memory, the store's */
  else
    gcuba_region_set_free(&s);
  if (pb && !rc)
    *pb = b;
  else
    gcuba_buf_free(&b);
  return rc;
}

/* 1 resumed, 0 no state file, < 0 fail code */
int gcuba_cuhre_load(cuhre *t)
{
  gcuba_call *c = t->c;
  gcuba_region_set s;
  gcuba_buf b = {0};
  size_t nc = sizeof(double) * t->ncomp, need;
  long long nn, i;
  int rc;
  /* a call growing to several GPUs reads the state its one GPU left, in
     place */
  const int view = c->resume != NULL;
  const char *name = view ? "the state of one GPU" : c->statefile;
  const double t0 = gcuba_now_ms();
  if (view) {
    b.p = (unsigned char *)c->resume;
    b.n = c->resume_n;
    rc = 1;
  } else
    rc = gcuba_state_read(c, "cuhre", signature(t), &b);
  if (rc <= 0) return rc;
  memset(&s, 0, sizeof s);
  fields(t, &b, &s, 0);
  if (view && c->resume_set) {
    /* the regions in the one GPU's memory */
    const gcuba_region_set *d = (const gcuba_region_set *)c->resume_set;
    if (b.bad || b.pos != b.n || d->n != s.n || d->nold != s.nold)
      return gcuba_fail(c, GCUBA_FAIL_STATE, "%s: inconsistent contents",
                        name);
    if ((rc = t->ops->load(t->ctx, d)))
      return gcuba_fail(c, rc, "loading the regions");
    gcuba_log(c, 2, "%lld regions copied in %.1f ms", s.n, gcuba_now_ms() - t0);
    return 1;
  }
  nn = (s.n - s.nold) / 2;
  need = b.bad || s.n < 0 || s.nold < 0 || s.nold > s.n ||
                 !(t->st.relfrac >= 0 && t->st.relfrac <= 1) ||
                 (t->st.small != 0 && t->st.small != 1) ||
                 t->nseq < 0 || t->nseq > WYNN_TERMS || t->nres < 0 ||
                 t->nres > 3 ||
                 s.n > t->maxregions
             ? (size_t)-1
             : (size_t)s.n * 2 * c->ndim * 8 + nc * (2 * s.nold + 2 * nn) +
                   sizeof(int) * t->ncomp * s.nold;
  if (need != b.n - b.pos) {
    if (!view) gcuba_buf_free(&b);
    return gcuba_fail(c, GCUBA_FAIL_STATE, "%s: inconsistent contents",
                      name);
  }
  s.lo = (double *)(b.p + b.pos);
  s.w = s.lo + s.n * c->ndim;
  s.avg = s.w + s.n * c->ndim;
  s.err = s.avg + s.nold * t->ncomp;
  s.dims = (int *)(s.err + s.nold * t->ncomp);
  s.pavg = (double *)(b.p + b.pos + (size_t)s.n * 2 * c->ndim * 8 +
                      nc * 2 * s.nold + sizeof(int) * t->ncomp * s.nold);
  s.perr = s.pavg + nn * t->ncomp;
  for (i = 0; i < s.nold * t->ncomp; ++i)
    if (gcuba_rule_axis(s.dims[i]) >= c->ndim) {
      if (!view) gcuba_buf_free(&b);
      return gcuba_fail(c, GCUBA_FAIL_STATE, "%s: a split axis out of range",
                        name);
    }
  rc = t->ops->load(t->ctx, &s);
  if (!view) gcuba_buf_free(&b);
  if (rc) return gcuba_fail(c, rc, "loading the regions");
  if (!view)
    gcuba_log(c, 1, "resuming at iteration %lld, %lld evaluations, %lld "
              "regions", t->st.iter + 1, c->neval, s.n);
  else
    gcuba_log(c, 2, "%lld regions loaded in %.1f ms", s.n, gcuba_now_ms() - t0);
  return 1;
}
