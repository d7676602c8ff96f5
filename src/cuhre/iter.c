/* src/cuhre/iter.c -- what the gCuhre drivers (driver.c, oned.c) share:
   the PAGANI-style breadth-first iteration over a backend (backend.h),
   with gcuba/detail/cuhre_policy.h's greedy batch selection.

   The backend holds the leaf regions of the partition with their cached
   results.  Each iteration it evaluates the new regions with the chosen
   Genz-Malik rule (two-level error for children of one parent) and
   returns the sums; the iteration forms the totals I = finished + leaves,
   E likewise, and the call stops on Cuba's test E_c <= max(epsabs,
   epsrel |I_c|) for every component c, on maxeval, or when memory cannot
   hold another split.  Otherwise it classifies: leaves whose error is
   small relative to their own estimate are finished (PAGANI; off with
   GCUBA_NORELFINISH; when the finished errors would spend too much of the
   tolerance the threshold is lowered, by 4 each time, down to off); of
   the others, those of largest normalised error max_c err_c/B_c are
   split, from the largest down, until their keys add up to GAMMA times the
   excess of E over the tolerance, but at least a minimum batch; the rest
   keep their results.  This sits between PAGANI (split everything
   unfinished) and Cuhre (split the worst region): about Cuhre's
   evaluation count, with thousands of regions per parallel step.  The
   key threshold comes from a log-scale histogram of the keys (one pass
   over the leaves, the same on every backend).  When the partition would
   outgrow memory fewer regions are split, or the smallest-error leaves
   are finished; if their errors spend the tolerance the run stops with
   the best estimate and fail = 1.

   The result is always the final total and its error (Cuba's flags bit 2
   behaviour); prob is Cuba's chi^2 probability of the sequence of
   iteration totals.  This file is part of gcuba. */
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "cuhre/iter.h"
#include "common/chisq.h"
#include "common/coll.h"
#include "gcuba/detail/cut.h"

static double now_ms(void) { return gcuba_now_ms(); }

/* half the most evaluations one split may cost (gcuba/detail/cuhre_policy.h) */
static int split_nevals(const cuhre *t)
{
  return gcuba_cuhre_split_nevals(gcuba_rule_nevals(&t->rule),
                                  t->cuts ? &t->cm : NULL);
}

/* the cut map (gcuba/detail/cut.h): lines across the cube, in the rounds
   gcuba_cutmap_lines gives, searched by the backend (ops->search), when
   maxeval leaves room for that and one split with a search; 0 or a fail
   code */
static int scan_cube(cuhre *t)
{
  gcuba_call *c = t->c;
  gcuba_cutmap *m = &t->cm;
  const int ndim = c->ndim, np = gcuba_rule_nevals(&t->rule);
  double lo[GCUBA_SCAN_LINES * GCUBA_RULE_MAXDIM * GCUBA_RULE_MAXDIM];
  double w[GCUBA_SCAN_LINES * GCUBA_RULE_MAXDIM * GCUBA_RULE_MAXDIM];
  double cut[GCUBA_SCAN_LINES * GCUBA_RULE_MAXDIM];
  int ax[GCUBA_SCAN_LINES * GCUBA_RULE_MAXDIM];
  int found[GCUBA_SCAN_LINES * GCUBA_RULE_MAXDIM];
  double jump[GCUBA_SCAN_LINES * GCUBA_RULE_MAXDIM];
  int d, n, rc;
  if (!gcuba_cuhre_scan_fits(c->neval, c->maxeval, ndim, np)) {
    m->ready = 1;
    t->capped = 1; /* a larger maxeval would scan */
    return 0;
  }
  for (;;) {
    const gcuba_cutmap before = *m;
    n = gcuba_cutmap_lines(m, ndim,
                           gcuba_cuhre_scan_room(c->neval, c->maxeval, np),
                           lo, w, ax);
    if (!n) {
      /* ended by what maxeval leaves, where a larger one would go on */
      gcuba_cutmap more = before;
      if (gcuba_cutmap_lines(&more, ndim, LLONG_MAX, lo, w, ax) > 0)
        t->capped = 1;
      break;
    }
    if ((rc = t->ops->search(t->ctx, n, lo, w, ax, cut, found, jump))) {
      m->ready = 1;
      return rc;
    }
    gcuba_cutmap_found(m, ndim, lo, w, ax, cut, found, jump);
  }
  if (m->nfeat) {
    gcuba_log(c, 2, "features on lines across the cube (regions that "
              "straddle one are cut there):");
    for (d = 0; d < ndim; ++d)
      if (m->feat2[d] >= 0)
        gcuba_log(c, 2, "  x%d = %.17g and %.17g", d + 1, m->feat[d],
                  m->feat2[d]);
      else if (m->feat[d] >= 0)
        gcuba_log(c, 2, "  x%d = %.17g", d + 1, m->feat[d]);
  }
  return 0;
}

/* Most active regions the backend may hold: GCUBA_MEMLIMIT (bytes, K, M,
   G or T suffix) or a quarter of the physical memory, over the bytes a
   region needs.  Without GCUBA_MEMLIMIT a device store is bounded by the device
   alone (create lowers the limit to what its memory holds), unless a
   state file will copy the regions to the host.  per: bytes per region
   (0: the CPU backend's). */
long long gcuba_cuhre_max_regions(const gcuba_call *c, int device,
                                  long long per)
{
  double bytes = c->set.memlimit;
  long long n;
  if (per <= 0) per = gcuba_cuhre_region_bytes(c->ndim, c->ncomp);
  if (!(bytes > 0)) {
    long pages, psize;
    if (device && !c->statefile) return 1LL << 62;
    pages = sysconf(_SC_PHYS_PAGES);
    psize = sysconf(_SC_PAGESIZE);
    bytes = pages > 0 && psize > 0 ? 0.25 * pages * (double)psize : 1e9;
  }
  n = (long long)(bytes / per);
  return n < 2 ? 2 : n;
}

/* the relative-error part of the classification at the current
   threshold (what the driver announces to the backend with hint, and
   what choose_thresholds starts from) */
static void relative_part(const cuhre *t, gcuba_classify *cl)
{
  gcuba_cuhre_relative(&t->st, (t->c->flags & GCUBA_NORELFINISH) != 0,
                       t->rule.degree, t->c->epsrel, t->c->epsabs, cl);
}

/* Thresholds of a planned iteration (gcuba/detail/cuhre_policy.h): the
   histogram of the keys, relative-error finishing lowered while it would
   spend too much of the tolerance, then the plan.  Returns 0, 1 when
   memory cannot hold a useful split, or a fail code. */
static int choose_thresholds(cuhre *t, gcuba_classify *cl, double excess)
{
  gcuba_call *c = t->c;
  gcuba_hist *h = t->hist;
  gcuba_cuhre_plan p;
  int rc;

  if ((rc = t->ops->hist(t->ctx, cl, h, t->e))) return rc;
  while (cl->relfinish) {
    const int comp = gcuba_cuhre_relfinish_lower(&t->st, t->e);
    if (comp == t->ncomp) break;
    if (t->st.relfrac == 0)
      gcuba_log(c, 2, "relative-error finishing off: the finished errors "
                "would take %.3g of the tolerance %.3g (component %d)",
                t->st.finerr[comp] + t->e[comp], t->st.budget[comp],
                comp + 1);
    else
      gcuba_log(c, 2, "relative-error finishing at %g epsrel: at the "
                "threshold before, the finished errors would take %.3g of "
                "the tolerance %.3g (component %d)", t->st.relfrac,
                t->st.finerr[comp] + t->e[comp], t->st.budget[comp],
                comp + 1);
    relative_part(t, cl);
    if ((rc = t->ops->hist(t->ctx, cl, h, t->e))) return rc;
  }
  p.n = t->ops->nleaves(t->ctx);
  /* the backend's batches once the call has paid for one (a setting of
     GCUBA_CUHRE_MINBATCH as it is) */
  p.minbatch = c->set.minbatch > 0
                   ? t->minbatch
                   : gcuba_cuhre_minbatch(t->minbatch, c->neval,
                                          gcuba_rule_nevals(&t->rule));
  p.neval = c->neval;
  p.maxeval = c->maxeval;
  p.maxregions = t->maxregions;
  p.small = t->st.small;
  p.target = GCUBA_CUHRE_GAMMA * excess;
  if (gcuba_cuhre_choose(h, &p, cl, t->cuts ? &t->cm : NULL,
                         gcuba_rule_nevals(&t->rule)))
    return 1;
  /* off the path of a larger maxeval: nothing more is saved */
  if (p.offpath) t->capped = 1;
  if (p.squeezed)
    gcuba_log(c, 2, "memory for %lld regions: splitting %lld instead of "
              "%lld", t->maxregions, p.room, p.nsplit);
  if (p.evicted)
    gcuba_log(c, 1, "memory for %lld regions: finishing %lld regions of "
              "smallest error", t->maxregions, p.evicted);
  return 0;
}

/* memory (host or device) running out once there is an estimate ends the
   run with that estimate and fail = 1, as a full region store does;
   returns 1 when it did so */
static int out_of_memory(gcuba_call *c, int rc, int have_estimate)
{
  if (!have_estimate ||
      (rc != GCUBA_FAIL_DEVMEM && rc != GCUBA_FAIL_NOMEM))
    return 0;
  c->fail = 1;
  gcuba_log(c, 1, "out of %s memory while the regions grow: the best "
            "estimate is returned", rc == GCUBA_FAIL_DEVMEM ? "device"
                                                            : "host");
  return 1;
}

/* the iteration said at verbosity 1, as Cuba says it */
static void report(cuhre *t, long long nact)
{
  gcuba_call *c = t->c;
  int comp;
  if (c->verbose < 1) return;
  fprintf(stderr, "\nIteration %lld:  %lld integrand evaluations so far, "
          "%lld active regions\n", t->st.iter + 1, c->neval, nact);
  for (comp = 0; comp < t->ncomp; ++comp) {
    double chi2;
    int ndof;
    gcuba_vegas_combine_result(&t->st.chi[comp], 0, NULL, NULL, &chi2, &ndof,
                               NULL);
    fprintf(stderr, "[%d] %.15g +- %.6g  \tchisq %g (%d df)\n", comp + 1,
            t->st.tot[comp], t->st.err[comp], chi2, ndof);
  }
  fflush(stderr);
}

/* Verbosity 3: the regions this iteration evaluated (the last nnew of
   the store), as Cuba's Cuhre lists each region when its rule is
   applied:
     Region (lower) - (upper)        the first axis
            (lower) - (upper)        the others
     [c] integral +- error           each component
   with every digit, and the error the region carries from here on
   (after the two-level correction, and the floor of a region that
   straddles a known feature).  Every process of a collective call takes
   part (t->list); those whose verbosity asks for it print.  0 or a fail
   code; a listing that finds no memory says so and the call goes on. */
static int list_regions(cuhre *t, long long nnew)
{
  gcuba_call *c = t->c;
  gcuba_region_set s;
  const int ndim = c->ndim, ncomp = t->ncomp;
  long long i;
  int d, comp, rc;
  memset(&s, 0, sizeof s);
  rc = t->ops->save(t->ctx, &s);
  if (rc == GCUBA_FAIL_NOMEM) {
    gcuba_log(c, 3, "no memory to list the regions of this iteration");
    rc = 0;
  } else if (!rc && c->verbose >= 3) {
    for (i = s.n - nnew; i < s.n; ++i) {
      const double *lo = s.lo + i * ndim, *w = s.w + i * ndim;
      for (d = 0; d < ndim; ++d)
        fprintf(stderr, d ? "\n       (%.17g) - (%.17g)"
                          : "\nRegion (%.17g) - (%.17g)",
                lo[d], lo[d] + w[d]);
      for (comp = 0; comp < ncomp; ++comp)
        fprintf(stderr, "\n[%d] %.17g +- %.17g", comp + 1,
                s.avg[i * ncomp + comp], s.err[i * ncomp + comp]);
      fputc('\n', stderr);
    }
    fflush(stderr);
  }
  gcuba_region_set_free(&s);
  return rc;
}

/* the end with outcome o (gcuba/detail/cuhre_policy.h), said as every executor
   of the policy says it */
void gcuba_cuhre_end(cuhre *t, int o, int worst)
{
  gcuba_cuhre_why w;
  memset(&w, 0, sizeof w);
  w.finerr = t->st.finerr[worst];
  w.budget = t->st.budget[worst];
  w.worst = worst;
  w.maxregions = t->maxregions;
  w.bisection = 2 * gcuba_rule_nevals(&t->rule);
  gcuba_cuhre_outcome(t->c, o, &w);
}

/* ---- collective calls (common/coll.h) ------------------------------------
   Every process runs this driver on the same data; the backend divides
   the evaluation of the new regions among them and exchanges the results
   (its eval).  Around it, every operation's status is agreed, so that a
   failure on one process (out of memory) ends the call on all of them
   instead of leaving the others waiting. */
typedef struct {
  const gcuba_cuhre_ops *ops;
  void *ctx;
  gcuba_call *c;
} coll_ctx;
#define CW(x) ((coll_ctx *)(x))

static void cw_destroy(void *x)
{
  CW(x)->ops->destroy(CW(x)->ctx);
  free(x);
}
static long long cw_minbatch(void *x)
{
  return CW(x)->ops->minbatch(CW(x)->ctx);
}
static int cw_init(void *x, const int *ndiv)
{
  return gcuba_coll_status(CW(x)->c, CW(x)->ops->init(CW(x)->ctx, ndiv));
}
static int cw_load(void *x, const gcuba_region_set *s)
{
  return gcuba_coll_status(CW(x)->c, CW(x)->ops->load(CW(x)->ctx, s));
}
static int cw_save(void *x, gcuba_region_set *s)
{
  return gcuba_coll_status(CW(x)->c, CW(x)->ops->save(CW(x)->ctx, s));
}
static long long cw_nleaves(void *x)
{
  return CW(x)->ops->nleaves(CW(x)->ctx);
}
static long long cw_nnew(void *x) { return CW(x)->ops->nnew(CW(x)->ctx); }
static int cw_eval(void *x, double *sumavg, double *sumerr)
{
  return gcuba_coll_status(CW(x)->c,
                           CW(x)->ops->eval(CW(x)->ctx, sumavg, sumerr));
}
static int cw_hist(void *x, const gcuba_classify *cl, gcuba_hist *h,
                   double *relerr)
{
  return gcuba_coll_status(CW(x)->c,
                           CW(x)->ops->hist(CW(x)->ctx, cl, h, relerr));
}
static int cw_apply(void *x, const gcuba_classify *cl, double *finavg,
                    double *finerr)
{
  return gcuba_coll_status(CW(x)->c,
                           CW(x)->ops->apply(CW(x)->ctx, cl, finavg, finerr));
}
static double cw_kernel_ms(void *x)
{
  return CW(x)->ops->kernel_ms ? CW(x)->ops->kernel_ms(CW(x)->ctx) : -1;
}
static void cw_hint(void *x, const gcuba_classify *cl, const double *finavg)
{
  if (CW(x)->ops->hint) CW(x)->ops->hint(CW(x)->ctx, cl, finavg);
}
static int cw_search(void *x, int n, const double *lo, const double *w,
                     const int *ax, double *cut, int *found, double *jump)
{
  return gcuba_coll_status(CW(x)->c, CW(x)->ops->search(CW(x)->ctx, n, lo, w,
                                                        ax, cut, found,
                                                        jump));
}
static const gcuba_cuhre_ops coll_ops = {
    "collective", 0, NULL, cw_destroy, cw_minbatch, cw_init, cw_load, cw_save,
    cw_nleaves, cw_nnew, cw_eval, cw_hist, cw_apply, cw_kernel_ms, cw_hint,
    NULL, 0 /* t->cuts is the backend's */, cw_search};

int gcuba_cuhre_open(cuhre *t, gcuba_call *c, const gcuba_cuhre_ops *ops)
{
  int fail = 0;
  double *mem;
  memset(t, 0, sizeof *t);
  t->st.stall_r = HUGE_VAL;
  t->c = c;
  t->ncomp = c->ncomp;
  if (gcuba_rule_init(&t->rule, c->ndim, c->key))
    return gcuba_fail(c, GCUBA_FAIL_NDIM, "no rule for ndim = %d, key = %d",
                      c->ndim, c->key);
  t->ops = ops;
  t->cuts = t->ops->cuts && t->ops->search && c->set.cuts;
  gcuba_cutmap_init(&t->cm);
  c->cutmap = t->cuts ? &t->cm : NULL;
  t->st.relfrac = gcuba_cuhre_relfrac0(t->rule.degree);
  t->maxregions = gcuba_cuhre_max_regions(c, t->ops->device, 0);
  if (gcuba_coll_reduce_ll(c, &t->maxregions, 1, GCUBA_COLL_MIN))
    return c->fail;
  {
    long long list = c->verbose >= 3;
    if (gcuba_coll_reduce_ll(c, &list, 1, GCUBA_COLL_MAX)) return c->fail;
    t->list = list != 0;
  }
  gcuba_log(c, 2, "ndim %d, ncomp %d, epsrel %g, epsabs %g, flags %d, "
            "mineval %lld, maxeval %lld, key %d (degree-%d rule, %d points"
            " and %d probes),"
            " statefile %s", c->ndim, c->ncomp, c->epsrel,
            c->epsabs, c->flags, c->mineval, c->maxeval, c->key,
            t->rule.degree, t->rule.npoints, t->rule.nprobe,
            c->statefile ? c->statefile : "none");
  mem = (double *)calloc((size_t)c->ncomp * (16 + WYNN_TERMS),
                         sizeof(double));
  t->xok = (int *)calloc((size_t)c->ncomp, sizeof(int));
  t->st.chi = (gcuba_vegas_combine_t *)calloc((size_t)c->ncomp,
                                              sizeof *t->st.chi);
  t->hist = (gcuba_hist *)malloc(sizeof *t->hist);
  t->mem = mem;
  if (gcuba_coll_status(c, !mem || !t->st.chi || !t->hist || !t->xok
                               ? GCUBA_FAIL_NOMEM : 0)) {
    if (c->fail == 0 || c->fail == GCUBA_FAIL_NOMEM)
      gcuba_fail(c, GCUBA_FAIL_NOMEM, "driver state");
    gcuba_cuhre_close(t);
    return c->fail;
  }
  t->st.ncomp = c->ncomp;
  t->st.finavg = mem;
  t->st.finerr = mem + c->ncomp;
  t->sumavg = mem + 2 * c->ncomp;
  t->sumerr = mem + 3 * c->ncomp;
  t->st.tot = mem + 4 * c->ncomp;
  t->st.err = mem + 5 * c->ncomp;
  t->st.budget = mem + 6 * c->ncomp;
  t->e = mem + 8 * c->ncomp;
  t->st.pconv = mem + 9 * c->ncomp;
  t->st.prev = mem + 10 * c->ncomp;
  t->xres = mem + 11 * c->ncomp;
  t->xerr = mem + 12 * c->ncomp;
  t->res = mem + 13 * c->ncomp; /* 3 per component */
  t->seq = mem + 16 * c->ncomp; /* WYNN_TERMS per component */
  t->tm[3] = t->start = now_ms();
  t->ctx = t->ops->create(c, &t->rule, &t->maxregions, &fail);
  t->tm[3] = now_ms() - t->tm[3];
  if (c->coll &&
      (gcuba_coll_status(c, t->ctx ? 0 : fail ? fail : GCUBA_FAIL_NOMEM) ||
       gcuba_coll_reduce_ll(c, &t->maxregions, 1, GCUBA_COLL_MIN)) &&
      t->ctx) {
    t->ops->destroy(t->ctx);
    t->ctx = NULL;
  }
  if (!t->ctx) {
    if (!c->fail) c->fail = fail ? fail : GCUBA_FAIL_NOMEM;
    gcuba_cuhre_close(t);
    return c->fail;
  }
  t->bkname = t->ops->name;
  gcuba_log(c, 2, "region limit %lld", t->maxregions);
  t->minbatch = t->ops->minbatch(t->ctx);
  if (c->set.minbatch > 0) t->minbatch = c->set.minbatch;
  if (c->coll) {
    static const char *const what[] = {
        "the regions split per iteration (GCUBA_CUHRE_MINBATCH)"};
    coll_ctx *w = (coll_ctx *)malloc(sizeof *w);
    if (gcuba_coll_agree(c, &t->minbatch, 1, what) ||
        gcuba_coll_status(c, w ? 0 : GCUBA_FAIL_NOMEM)) {
      if (w == NULL && c->fail == GCUBA_FAIL_NOMEM)
        gcuba_fail(c, GCUBA_FAIL_NOMEM, "driver state");
      free(w);
      t->ops->destroy(t->ctx);
      t->ctx = NULL;
      gcuba_cuhre_close(t);
      return c->fail;
    }
    w->ops = t->ops;
    w->ctx = t->ctx;
    w->c = c;
    t->ops = &coll_ops;
    t->ctx = w;
  }
  return 0;
}

void gcuba_cuhre_close(cuhre *t)
{
  gcuba_call *c = t->c;
  if (t->ctx) {
    const double kms = t->ops->kernel_ms ? t->ops->kernel_ms(t->ctx) : -1;
    t->tm[4] = now_ms();
    t->ops->destroy(t->ctx);
    t->ctx = NULL;
    t->tm[4] = now_ms() - t->tm[4];
    gcuba_log(c, 2, "%lld iterations on the %s backend; ms: set-up %.3f, "
              "evaluation %.3f, classification %.3f, splitting %.3f, "
              "clean-up %.3f", t->st.iter + 1, t->bkname, t->tm[3],
              t->tm[0], t->tm[1], t->tm[2], t->tm[4]);
    if (kms >= 0)
      gcuba_log(c, 2, "rule kernel: %.3f ms for %lld evaluations (%.2f G "
                "evaluations/s)", kms, c->neval,
                kms > 0 ? c->neval / kms * 1e-6 : 0.0);
  }
  free(t->mem);
  free(t->xok);
  free(t->st.chi);
  free(t->hist);
  t->mem = NULL;
  t->xok = NULL;
  t->st.chi = NULL;
  t->hist = NULL;
}

int gcuba_cuhre_begin(cuhre *t)
{
  gcuba_call *c = t->c;
  const int np = gcuba_rule_nevals(&t->rule);
  int comp, rc, ndiv[GCUBA_CUHRE_MAXDIM], resumed;
  resumed = t->cont                      ? 1
            : c->statefile || c->resume ? gcuba_cuhre_load(t)
                                        : 0;
  if (resumed < 0) return 0;
  if (!resumed) {
    /* the budget decides the start (gcuba_cuhre_start) */
    t->st.small = gcuba_cuhre_start(np, c->ndim, c->maxeval, ndiv);
    if ((rc = t->ops->init(t->ctx, ndiv))) {
      gcuba_fail(c, rc, "initial regions");
      return 0;
    }
    for (comp = 0; comp < t->ncomp; ++comp)
      gcuba_vegas_combine_init(&t->st.chi[comp]);
  }
  t->st.nfull = gcuba_cuhre_nfull(t->st.small);
  return 1;
}

int gcuba_cuhre_evaluate(cuhre *t, int need, double *excess, int *worst,
                         long long *nleaves)
{
  gcuba_call *c = t->c;
  const long long nnew = t->ops->nnew(t->ctx);
  int rc, converged;
  t->t0_iter = now_ms();
  if (t->ops->hint && t->st.iter >= t->st.nfull) {
    /* what choose_thresholds will ask first: the backend may compute it
       with the evaluation */
    gcuba_classify h;
    memset(&h, 0, sizeof h);
    relative_part(t, &h);
    t->ops->hint(t->ctx, &h, t->st.finavg);
  }
  if ((rc = t->ops->eval(t->ctx, t->sumavg, t->sumerr))) {
    if (!out_of_memory(c, rc, t->st.iter > 0))
      gcuba_fail(c, rc, rc == GCUBA_FAIL_ABORT ? "at iteration %lld"
                 : "at iteration %lld (the estimate so far is returned)",
                 t->st.iter + 1);
    return -1;
  }
  t->t1 = now_ms();
  t->tm[0] += t->t1 - t->t0_iter;
  *nleaves = t->ops->nleaves(t->ctx);
  c->neval += nnew * gcuba_rule_nevals(&t->rule);
  c->nregions = t->nfinished + *nleaves;
  converged = gcuba_cuhre_totals(&t->st, t->sumavg, t->sumerr, c->epsrel,
                                 c->epsabs, need, excess, worst);
  report(t, *nleaves);
  if (t->list && nnew > 0 && (rc = list_regions(t, nnew))) {
    gcuba_fail(c, rc, "listing the regions");
    return -1;
  }
  return converged;
}

int gcuba_cuhre_split(cuhre *t, double excess, int worst, long long nleaves)
{
  gcuba_call *c = t->c;
  const int np = gcuba_rule_nevals(&t->rule);
  gcuba_classify cl;
  double t0;
  int o, rc;
  cl.budget = t->st.budget;
  /* the cut map, before the first split */
  if (t->cuts && !t->cm.ready && (rc = scan_cube(t))) {
    gcuba_fail(c, rc, "scanning for features");
    return 1;
  }
  o = gcuba_cuhre_split_kind(&t->st, nleaves, c->neval, c->mineval,
                             c->maxeval, np, split_nevals(t),
                             t->maxregions);
  if (o == GCUBA_CUHRE_SPLITALL)
    gcuba_cuhre_split_all(&cl);
  else if (o == GCUBA_CUHRE_PLAN) {
    /* every leaf would be split, had maxeval room for it */
    if (t->st.iter < t->st.nfull || c->neval < c->mineval) t->capped = 1;
    relative_part(t, &cl);
    if ((rc = choose_thresholds(t, &cl, excess)) > 1 || rc < 0) {
      gcuba_fail(c, rc, "classifying the regions");
      return 1;
    }
    if (rc) o = GCUBA_CUHRE_NOMEM;
  }
  if (o != GCUBA_CUHRE_SPLITALL && o != GCUBA_CUHRE_PLAN) {
    gcuba_cuhre_end(t, o, worst);
    return 1;
  }
  t0 = now_ms();
  t->tm[1] += t0 - t->t1;
  if ((rc = t->ops->apply(t->ctx, &cl, t->st.finavg, t->st.finerr))) {
    if (!out_of_memory(c, rc, 1)) gcuba_fail(c, rc, "splitting the regions");
    return 1;
  }
  t->nfinished += nleaves + t->ops->nnew(t->ctx) / 2 -
                  t->ops->nleaves(t->ctx);
  t->tm[2] += now_ms() - t0;
  ++t->st.iter;
  if (c->statefile && !t->capped &&
      gcuba_cuhre_payload(t, NULL, 1, NULL))
    return 1;
  return 0;
}

void gcuba_cuhre_results(cuhre *t)
{
  gcuba_call *c = t->c;
  int comp;
  for (comp = 0; comp < t->ncomp; ++comp) {
    double prob;
    gcuba_vegas_combine_result(&t->st.chi[comp], 0, NULL, NULL, NULL, NULL,
                               &prob);
    c->integral[comp] = t->st.tot[comp];
    c->error[comp] = t->st.err[comp];
    c->prob[comp] = prob == GCUBA_CHISQ_NODOF ? 0 : prob;
  }
  if (c->fail == 0 && c->statefile && !t->grown) gcuba_state_remove(c);
}

int gcuba_cuhre_floor_stop(cuhre *t, double window, double ulps, int xerr)
{
  gcuba_call *c = t->c;
  gcuba_cuhre_why w;
  double u;
  int below;
  if (gcuba_cuhre_roundoff(&t->st, c->neval, c->mineval, window, ulps,
                           xerr ? t->xerr : NULL, &u, &below) !=
      GCUBA_CUHRE_ROUNDOFF)
    return 0;
  memset(&w, 0, sizeof w);
  w.stall_r = t->st.stall_r;
  w.stall_neval = t->st.stall_neval;
  w.units = ulps > 0 || below ? u : -1;
  w.below = below;
  gcuba_cuhre_outcome(c, GCUBA_CUHRE_ROUNDOFF, &w);
  return 1;
}
