/* src/cuhre/driver.c -- the gCuhre driver: PAGANI's breadth-first loop
   over a backend (backend.h), with a greedy batch selection policy.

   The backend holds the leaf regions of the partition with their cached
   results.  Each iteration it evaluates the new regions with the chosen
   Genz-Malik rule (two-level error for children of one parent) and
   returns the sums; the driver forms the totals I = finished + leaves,
   E likewise, and stops on Cuba's test E_c <= max(epsabs, epsrel |I_c|)
   for every component c, on maxeval, or when memory cannot hold another
   split.  Otherwise it classifies: leaves whose error is small relative to
   their own estimate are finished (PAGANI; off with GCUBA_NORELFINISH; when
   the finished errors would spend half the tolerance the threshold is
   lowered, by 4 each time, down to off); of the others,
   those of largest normalised error max_c err_c/B_c are bisected, from
   the largest down, until their keys add up to GAMMA times the excess of
   E over the tolerance, but at least a minimum batch; the rest keep their
   results.  This sits between PAGANI (split everything unfinished) and
   Cuhre (split the worst region): about Cuhre's evaluation count, with
   thousands of regions per parallel step.  The key threshold comes from a
   log-scale histogram of the keys (one pass over the leaves, the same on
   every backend).  When the partition would outgrow memory fewer regions
   are split, or the smallest-error leaves are finished; if their errors
   spend the tolerance the run stops with the best estimate and fail = 1.

   The result is always the final total and its error (Cuba's flags bit 2
   behaviour); prob is Cuba's chi^2 probability of the sequence of
   iteration totals.  This file is part of gcuba. */
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include "cuhre/cuhre.h"
#include "cuhre/backend.h"
#include "common/chisq.h"
#include "common/state.h"
#include "common/coll.h"
#include "gcuba/cut.h"


typedef struct {
  gcuba_call *c;
  const gcuba_cuhre_ops *ops;
  void *ctx;
  gcuba_rule rule;
  int ncomp;
  gcuba_cuhre_state st;             /* the policy's (gcuba/cuhre_policy.h):
                                       iterations, start, thresholds, the
                                       totals and their sequence */
  long long maxregions;
  double *sumavg, *sumerr;          /* active sums of this iteration */
  double *e;                        /* scratch [ncomp] */
  long long nfinished;              /* regions finished so far */
  long long minbatch;               /* fewest regions split per iteration */
  gcuba_hist *hist;
  double tm[5];                     /* ms in eval, classify, apply, setup */
  int capped;                       /* this split was cut short by maxeval:
                                       its state is not saved, so that a
                                       resumed run follows the path of an
                                       uninterrupted one */
  /* one dimension: Wynn's epsilon algorithm over the iteration totals */
  int nseq, nres;                   /* terms in seq, results in res */
  double stall_r;                   /* one dimension: the smallest error
                                       so far in units of the tolerance
                                       (halvings only) ... */
  long long stall_neval;            /* ... and neval when it was reached */
  double *seq;                      /* [ncomp][WYNN_TERMS] the last totals */
  double *res;                      /* [ncomp][3] the last extrapolations */
  double *xres, *xerr;              /* [ncomp] this iteration's */
  int *xok;                         /* [ncomp] xres meets the tolerance */
  /* GCUBA_DEVICES=auto: the GPUs this call may grow to (ngrow >= 2; 0:
     it stays where it is), from when (ms, now_ms's clock), and whether
     it stopped to grow */
  int ngrow;
  double grow_at, grow_after;
  int grow_any;                     /* GCUBA_DEVICES_AFTER=0: at GROW_ITER
                                       whatever the evaluations cost */
  int grown;
  gcuba_buf grow_state;             /* the state it grows from, and its */
  gcuba_region_set grow_set;        /* regions in this GPU's memory */
  int cont;                         /* run goes on where it stopped */
  int cuts; /* the backend's apply cuts (gcuba/cut.h) */
  gcuba_cutmap cm;                  /* and what it knows (c->cutmap) */
} cuhre;

/* half the most evaluations one split may cost (gcuba/cuhre_policy.h) */
static int split_nevals(const cuhre *t)
{
  return gcuba_cuhre_split_nevals(gcuba_rule_nevals(&t->rule),
                                  t->cuts ? &t->cm : NULL);
}

/* the cut map (gcuba/cut.h): the cube's central lines, and where one of
   them has a feature, both ends of the others, searched once by the
   backend (ops->search), when maxeval leaves room for that and one split
   with a search; 0 or a fail code */
static int scan_cube(cuhre *t)
{
  gcuba_call *c = t->c;
  gcuba_cutmap *m = &t->cm;
  const int ndim = c->ndim;
  double lo[2 * GCUBA_RULE_MAXDIM * GCUBA_RULE_MAXDIM];
  double w[2 * GCUBA_RULE_MAXDIM * GCUBA_RULE_MAXDIM];
  double cut[2 * GCUBA_RULE_MAXDIM];
  int ax[2 * GCUBA_RULE_MAXDIM], found[2 * GCUBA_RULE_MAXDIM];
  int d, j, n, rc;
  m->ready = 1;
  if (!gcuba_cuhre_scan_fits(c->neval, c->maxeval, ndim,
                             gcuba_rule_nevals(&t->rule)))
    return 0;
  for (j = 0; j < 2 * ndim; ++j)
    for (d = 0; d < ndim; ++d) lo[j * ndim + d] = 0, w[j * ndim + d] = 1;
  for (d = 0; d < ndim; ++d) ax[d] = d;
  if ((rc = t->ops->search(t->ctx, ndim, lo, w, ax, cut, found))) return rc;
  for (d = 0; d < ndim; ++d)
    if (found[d]) {
      m->feat[d] = cut[d];
      ++m->nfeat;
    }
  if (m->nfeat) {
    /* the scan's points keep 1/(2(M+1)) from the faces: the ends, 1/(M+1)
       of the line each, of the lines without a feature */
    const double e = 1.0 / (GCUBA_CUT_M + 1);
    for (n = 0, d = 0; d < ndim; ++d)
      if (m->feat[d] < 0) {
        for (j = 0; j < 2; ++j, ++n) {
          ax[n] = d;
          w[n * ndim + d] = e;
          lo[n * ndim + d] = j ? 1 - e : 0;
        }
      }
    if (n && (rc = t->ops->search(t->ctx, n, lo, w, ax, cut, found)))
      return rc;
    for (j = 0; j < n; ++j)
      if (found[j] && m->feat[ax[j]] < 0) {
        m->feat[ax[j]] = lo[j * ndim + ax[j]] + w[j * ndim + ax[j]] * cut[j];
        ++m->nfeat;
      }
  }
  if (m->nfeat) {
    gcuba_log(c, 2, "features on the cube's central lines (regions that "
              "straddle one are cut there):");
    for (d = 0; d < ndim; ++d)
      if (m->feat[d] >= 0)
        gcuba_log(c, 2, "  x%d = %.17g", d + 1, m->feat[d]);
  }
  return 0;
}

/* GCUBA_DEVICES=auto: a call grows once its evaluations took at least
   GROW_SHARE of an iteration's time (the rest, classification and
   splitting, is done by every GPU over every region while they fit one
   GPU, so it does not shrink), and at iteration GROW_ITER at the
   earliest */
#define GROW_SHARE 0.5
#define GROW_ITER 3

/* One dimension: convergence acceleration (QUADPACK's QAGS idea, done
   over the breadth-first iterations).  Near an integrable endpoint
   singularity (x^-0.9, log x) each iteration bisects the interval at the
   singular end, and the iteration totals converge geometrically (x^a:
   ratio 2^-(1+a)); Wynn's epsilon algorithm extrapolates such a sequence.
   The totals of the last WYNN_TERMS iterations form the table; its even
   columns are estimates, and the one whose two newest entries agree best
   is taken.  The extrapolation's error is the spread of the newest
   estimate and the three before it (as in QUADPACK's qelg), at least
   5 eps |result|.  It replaces the plain result only when that error
   meets the tolerance, is below the plain error, and the extrapolated
   value lies within the plain error bar of the total: an irregular
   sequence (an iteration that splits elsewhere) gives a wide spread and
   is not used. */
#define WYNN_TERMS 16
/* one dimension: a run whose error has not halved while its evaluations
   grew STALL-fold (and beyond STALL_MIN) stops with fail = 1 */
#define STALL 8
#define STALL_MIN 20000

static double wynn(const double *s, int n)
{
  double a[WYNN_TERMS], b[WYNN_TERMS], c[WYNN_TERMS];
  double *prev = a, *cur = b, *next = c, *sw, best = s[n - 1];
  double bestd = HUGE_VAL;
  int j, k;
  for (k = 0; k < n; ++k) {
    prev[k] = 0;
    cur[k] = s[k];
  }
  for (j = 1; j < n; ++j) {
    const int len = n - j; /* entries of column j */
    for (k = 0; k < len; ++k) {
      double d = cur[k + 1] - cur[k];
      double m = fabs(cur[k]) > fabs(cur[k + 1]) ? fabs(cur[k]) : fabs(cur[k + 1]);
      if (!(fabs(d) > 4 * DBL_EPSILON * m)) {
        /* column j - 1 stands still here: if it holds estimates, they
           have converged to rounding; either way the columns beyond are
           rounding noise */
        if ((j - 1) % 2 == 0) return cur[len];
        return best;
      }
      next[k] = prev[k + 1] + 1 / d;
    }
    if (j % 2 == 0 && len >= 2) {
      double d = fabs(next[len - 1] - next[len - 2]);
      if (d < bestd) {
        bestd = d;
        best = next[len - 1];
      }
    }
    sw = prev;
    prev = cur;
    cur = next;
    next = sw;
  }
  return best;
}

/* Is the end of the sequence s[0..n-1] one that extrapolation can
   trust?  The last WYNN_REG differences d_k = s_k - s_{k-1} must be
   nonzero, of one sign and shrinking, with ratios d_k / d_{k-1} that
   change little from one to the next: a geometric sequence (x^a at an
   end: ratio 2^-(1+a)) or a slowly varying one (log x).  A jump or a
   kink inside an interval gives differences whose size and sign follow
   the binary digits of its position, and an iteration that splits only
   where the integrand is a polynomial leaves the total unchanged: neither
   is extrapolated. */
#define WYNN_REG 4
static int regular(const double *s, int n)
{
  double d[WYNN_REG + 1], rho[WYNN_REG];
  int k;
  if (n < WYNN_REG + 2) return 0;
  for (k = 0; k <= WYNN_REG; ++k) d[k] = s[n - 1 - k] - s[n - 2 - k];
  for (k = 0; k < WYNN_REG; ++k) {
    /* d[k] is newer than d[k + 1] */
    if (!(d[k] != 0) || !(d[k + 1] != 0)) return 0;
    rho[k] = d[k] / d[k + 1];
    if (!(rho[k] > 0 && rho[k] < 1)) return 0;
  }
  for (k = 0; k + 1 < WYNN_REG; ++k)
    if (fabs(rho[k] - rho[k + 1]) > 0.1 * (rho[k] + rho[k + 1])) return 0;
  return 1;
}

/* the iteration's totals into the sequence, and the extrapolations:
   xres, xerr, xok per component */
static void extrapolate(cuhre *t)
{
  const int nc = t->ncomp;
  int comp, k;
  if (t->nseq == WYNN_TERMS) {
    for (comp = 0; comp < nc; ++comp)
      memmove(t->seq + comp * WYNN_TERMS, t->seq + comp * WYNN_TERMS + 1,
              sizeof(double) * (WYNN_TERMS - 1));
    --t->nseq;
  }
  for (comp = 0; comp < nc; ++comp)
    t->seq[comp * WYNN_TERMS + t->nseq] = t->st.tot[comp];
  ++t->nseq;
  for (comp = 0; comp < nc; ++comp) {
    double *r = t->res + 3 * comp, x, e;
    t->xok[comp] = 0;
    t->xres[comp] = t->st.tot[comp];
    t->xerr[comp] = HUGE_VAL;
    if (t->nseq < 3) continue;
    x = wynn(t->seq + comp * WYNN_TERMS, t->nseq);
    if (t->nres == 3 && regular(t->seq + comp * WYNN_TERMS, t->nseq)) {
      e = fabs(x - r[0]) + fabs(x - r[1]) + fabs(x - r[2]);
      if (e < 5 * DBL_EPSILON * fabs(x)) e = 5 * DBL_EPSILON * fabs(x);
      t->xres[comp] = x;
      t->xerr[comp] = e;
      t->xok[comp] =
          e <= gcuba_budget(x, t->c->epsrel, t->c->epsabs) &&
          e < t->st.err[comp] && fabs(x - t->st.tot[comp]) <= t->st.err[comp];
    }
    for (k = 2; k > 0; --k) r[k] = r[k - 1];
    r[0] = x;
  }
  if (t->nseq >= 3 && t->nres < 3) ++t->nres;
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

static double now_ms(void) { return gcuba_now_ms(); }

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
     since the payload holds the cut map (gcuba/cut.h) */
  v[4] = 3;
  return gcuba_fnv1a(name, strlen(name),
                     gcuba_fnv1a(v, sizeof v, GCUBA_FNV_SEED));
}

/* driver state + the backend's leaves: into b (the state's payload),
   and to c->statefile when file; with dev, the leaves stay where they
   are (save_dev) and dev describes them */
static int state_payload(cuhre *t, gcuba_buf *pb, int file,
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
    gcuba_buf_put(&b, &t->st.iter, sizeof t->st.iter);
    gcuba_buf_put(&b, &t->nfinished, sizeof t->nfinished);
    gcuba_buf_put(&b, &c->neval, sizeof c->neval);
    gcuba_buf_put(&b, t->st.finavg, nc);
    gcuba_buf_put(&b, t->st.finerr, nc);
    gcuba_buf_put(&b, t->st.prev, nc);
    gcuba_buf_put(&b, t->st.chi, sizeof *t->st.chi * t->ncomp);
    gcuba_buf_put(&b, &t->st.relfrac, sizeof t->st.relfrac);
    gcuba_buf_put(&b, &t->st.small, sizeof t->st.small);
    gcuba_buf_put(&b, &t->nseq, sizeof t->nseq);
    gcuba_buf_put(&b, &t->nres, sizeof t->nres);
    gcuba_buf_put(&b, t->seq, nc * WYNN_TERMS);
    gcuba_buf_put(&b, t->res, nc * 3);
    gcuba_buf_put(&b, t->st.pconv, nc);
    gcuba_buf_put(&b, &t->stall_r, sizeof t->stall_r);
    gcuba_buf_put(&b, &t->stall_neval, sizeof t->stall_neval);
    gcuba_buf_put(&b, &t->cm, sizeof t->cm);
    gcuba_buf_put(&b, &s.n, sizeof s.n);
    gcuba_buf_put(&b, &s.nold, sizeof s.nold);
    gcuba_buf_put(&b, &s.haveparents, sizeof s.haveparents);
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
  else {
    free(s.lo);
    free(s.w);
    free(s.avg);
    free(s.err);
    free(s.dims);
    free(s.pavg);
    free(s.perr);
  }
  if (pb && !rc)
    *pb = b;
  else
    gcuba_buf_free(&b);
  return rc;
}
static int save_state(cuhre *t) { return state_payload(t, NULL, 1, NULL); }

/* 1 resumed, 0 no state file, < 0 fail code */
static int load_state(cuhre *t)
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
  const double t0 = now_ms();
  if (view) {
    b.p = (unsigned char *)c->resume;
    b.n = c->resume_n;
    rc = 1;
  } else
    rc = gcuba_state_read(c, "cuhre", signature(t), &b);
  if (rc <= 0) return rc;
  memset(&s, 0, sizeof s);
  gcuba_buf_get(&b, &t->st.iter, sizeof t->st.iter);
  gcuba_buf_get(&b, &t->nfinished, sizeof t->nfinished);
  gcuba_buf_get(&b, &c->neval, sizeof c->neval);
  gcuba_buf_get(&b, t->st.finavg, nc);
  gcuba_buf_get(&b, t->st.finerr, nc);
  gcuba_buf_get(&b, t->st.prev, nc);
  gcuba_buf_get(&b, t->st.chi, sizeof *t->st.chi * t->ncomp);
  gcuba_buf_get(&b, &t->st.relfrac, sizeof t->st.relfrac);
  gcuba_buf_get(&b, &t->st.small, sizeof t->st.small);
  gcuba_buf_get(&b, &t->nseq, sizeof t->nseq);
  gcuba_buf_get(&b, &t->nres, sizeof t->nres);
  gcuba_buf_get(&b, t->seq, nc * WYNN_TERMS);
  gcuba_buf_get(&b, t->res, nc * 3);
  gcuba_buf_get(&b, t->st.pconv, nc);
  gcuba_buf_get(&b, &t->stall_r, sizeof t->stall_r);
  gcuba_buf_get(&b, &t->stall_neval, sizeof t->stall_neval);
  gcuba_buf_get(&b, &t->cm, sizeof t->cm);
  gcuba_buf_get(&b, &s.n, sizeof s.n);
  gcuba_buf_get(&b, &s.nold, sizeof s.nold);
  gcuba_buf_get(&b, &s.haveparents, sizeof s.haveparents);
  if (view && c->resume_set) {
    /* the regions in the one GPU's memory */
    const gcuba_region_set *d = (const gcuba_region_set *)c->resume_set;
    if (b.bad || b.pos != b.n || d->n != s.n || d->nold != s.nold)
      return gcuba_fail(c, GCUBA_FAIL_STATE, "%s: inconsistent contents",
                        name);
    if ((rc = t->ops->load(t->ctx, d)))
      return gcuba_fail(c, rc, "loading the regions");
    gcuba_log(c, 2, "%lld regions copied in %.1f ms", s.n, now_ms() - t0);
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
    gcuba_log(c, 2, "%lld regions loaded in %.1f ms", s.n, now_ms() - t0);
  return 1;
}

/* the relative-error part of the classification at the current
   threshold (what the driver announces to the backend with hint, and
   what choose_thresholds starts from) */
static void relative_part(const cuhre *t, gcuba_classify *cl)
{
  gcuba_cuhre_relative(&t->st, (t->c->flags & GCUBA_NORELFINISH) != 0,
                       t->c->epsrel, t->c->epsabs, cl);
}

/* Thresholds of a planned iteration (gcuba/cuhre_policy.h): the
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
  /* cut short by maxeval: not saved (a resumed run with a larger maxeval
     must follow the uninterrupted path) */
  if (p.capped) t->capped = 1;
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

/* the end with outcome o (gcuba/cuhre_policy.h), said as every executor
   of the policy says it */
static void outcome(cuhre *t, int o, int worst)
{
  gcuba_cuhre_why w;
  w.finerr = t->st.finerr[worst];
  w.budget = t->st.budget[worst];
  w.worst = worst;
  w.maxregions = t->maxregions;
  w.bisection = 2 * gcuba_rule_nevals(&t->rule);
  gcuba_cuhre_outcome(t->c, o, &w);
}

static void run(cuhre *t)
{
  gcuba_call *c = t->c;
  const int nc = t->ncomp, np = gcuba_rule_nevals(&t->rule);
  int comp, rc, ndiv[GCUBA_CUHRE_MAXDIM], resumed;
  gcuba_classify cl;

  resumed = t->cont                      ? 1
            : c->statefile || c->resume ? load_state(t)
                                        : 0;
  if (resumed < 0) return;
  if (!resumed) {
    /* the budget decides the start (gcuba_cuhre_start) */
    t->st.small = gcuba_cuhre_start(np, c->ndim, c->maxeval, ndiv);
    if ((rc = t->ops->init(t->ctx, ndiv))) {
      gcuba_fail(c, rc, "initial regions");
      return;
    }
    for (comp = 0; comp < nc; ++comp)
      gcuba_vegas_combine_init(&t->st.chi[comp]);
  }
  t->st.nfull = gcuba_cuhre_nfull(t->st.small);
  cl.budget = t->st.budget;

  for (;;) {
    long long nnew = t->ops->nnew(t->ctx), nleaves;
    int converged, worst, o;
    double excess, t0 = now_ms(), t1, t0_iter = t0;
    if (t->ops->hint && t->st.iter >= t->st.nfull) {
      /* what choose_thresholds will ask first (see below) */
      gcuba_classify h;
      memset(&h, 0, sizeof h);
      relative_part(t, &h);
      t->ops->hint(t->ctx, &h, t->st.finavg);
    }
    if ((rc = t->ops->eval(t->ctx, t->sumavg, t->sumerr))) {
      if (out_of_memory(c, rc, t->st.iter > 0)) break;
      gcuba_fail(c, rc, rc == GCUBA_FAIL_ABORT ? "at iteration %lld"
                 : "at iteration %lld (the estimate so far is returned)",
                 t->st.iter + 1);
      break;
    }
    t1 = now_ms();
    t->tm[0] += t1 - t0;
    nleaves = t->ops->nleaves(t->ctx);
    c->neval += nnew * np;
    c->nregions = t->nfinished + nleaves;
    /* one dimension asks for two passing iterations in a row: a kink
       between the nodes can make one partition's estimate agree by chance
       (|x - 0.672039| at 1e-9: an error 2.8e-10 reported, 5e-10 true;
       2e-7 reported one iteration later) */
    converged = gcuba_cuhre_totals(&t->st, t->sumavg, t->sumerr, c->epsrel,
                                   c->epsabs, c->ndim == 1 ? 2 : 1, &excess,
                                   &worst);
    if (c->ndim == 1) {
      /* every component converged, plainly or extrapolated */
      extrapolate(t);
      if (!converged) {
        converged = 1;
        for (comp = 0; comp < nc; ++comp)
          if (t->st.pconv[comp] < 2 && !t->xok[comp]) converged = 0;
      }
    }
    report(t, nleaves);
    if ((o = gcuba_cuhre_stop(&t->st, converged, nleaves, c->neval,
                              c->mineval, worst)) != GCUBA_CUHRE_GOON) {
      outcome(t, o, worst);
      break;
    }
    /* one dimension: an error that has not halved while the evaluations
       grew STALL-fold is at its rounding floor (cos(1000 x) at 1e-12,
       where the integral is 1e-3 of the integral of |f|) and splitting
       will not lower it: stop there rather than at maxeval */
    if (c->ndim == 1) {
      double r = 0;
      for (comp = 0; comp < nc; ++comp) {
        double e = t->st.err[comp] < t->xerr[comp] ? t->st.err[comp]
                                                : t->xerr[comp];
        if (e / t->st.budget[comp] > r) r = e / t->st.budget[comp];
      }
      if (!(r > 0.5 * t->stall_r)) {
        t->stall_r = r;
        t->stall_neval = c->neval;
      } else if (c->neval > STALL * t->stall_neval &&
                 c->neval > STALL_MIN) {
        c->fail = 1;
        gcuba_log(c, 1, "the error has stayed at %.3g of the tolerance "
                  "from %lld to %lld evaluations: the rounding errors of "
                  "the integrand's values (an integral much smaller than "
                  "that of |f|?) set a floor above the tolerance",
                  t->stall_r, t->stall_neval, c->neval);
        break;
      }
    }
    /* the cut map, before the first split */
    if (t->cuts && !t->cm.ready && (rc = scan_cube(t))) {
      gcuba_fail(c, rc, "scanning for features");
      break;
    }
    o = gcuba_cuhre_split_kind(&t->st, nleaves, c->neval, c->mineval,
                               c->maxeval, np, split_nevals(t),
                               t->maxregions);
    if (o == GCUBA_CUHRE_SPLITALL)
      gcuba_cuhre_split_all(&cl);
    else if (o == GCUBA_CUHRE_PLAN) {
      t->capped = 0;
      relative_part(t, &cl);
      if ((rc = choose_thresholds(t, &cl, excess)) > 1 || rc < 0) {
        gcuba_fail(c, rc, "classifying the regions");
        break;
      }
      if (rc) o = GCUBA_CUHRE_NOMEM;
    }
    if (o != GCUBA_CUHRE_SPLITALL && o != GCUBA_CUHRE_PLAN) {
      outcome(t, o, worst);
      break;
    }
    t0 = now_ms();
    t->tm[1] += t0 - t1;
    if ((rc = t->ops->apply(t->ctx, &cl, t->st.finavg, t->st.finerr))) {
      if (!out_of_memory(c, rc, 1)) gcuba_fail(c, rc, "splitting the regions");
      break;
    }
    t->nfinished += nleaves + t->ops->nnew(t->ctx) / 2 -
                    t->ops->nleaves(t->ctx);
    t->tm[2] += now_ms() - t0;
    ++t->st.iter;
    if (c->statefile && !t->capped && save_state(t)) break;
    /* GCUBA_DEVICES=auto: the call has run long enough, and its
       evaluations would be shared: it goes on from here on several GPUs
       (the plan's c->grow) */
    if (t->ngrow >= 2 && t->st.iter >= GROW_ITER && c->ndim > 1) {
      double now = now_ms();
      if (now >= t->grow_at && gcuba_calls_running() == 1 &&
          (t->grow_any || t1 - t0_iter >= GROW_SHARE * (now - t0_iter))) {
        if (!state_payload(t, &t->grow_state, 0, &t->grow_set)) {
          t->grown = 1;
          gcuba_log(c, 2, "after %.1f ms: the state (%.1f MB) taken in "
                    "%.1f ms", now - t->grow_at + t->grow_after,
                    t->grow_state.n / 1e6,
                    now_ms() - now);
          break;
        }
        /* no memory for the state: it stays on this GPU */
        c->fail = 0;
        t->ngrow = 0;
      }
    }
  }

  for (comp = 0; comp < nc; ++comp) {
    double prob;
    gcuba_vegas_combine_result(&t->st.chi[comp], 0, NULL, NULL, NULL, NULL,
                               &prob);
    c->integral[comp] = t->st.tot[comp];
    c->error[comp] = t->st.err[comp];
    if (c->ndim == 1 && t->st.pconv[comp] < 2 &&
        t->xerr[comp] < t->st.err[comp] &&
        fabs(t->xres[comp] - t->st.tot[comp]) <= t->st.err[comp]) {
      c->integral[comp] = t->xres[comp];
      c->error[comp] = t->xerr[comp];
    }
    c->prob[comp] = prob == GCUBA_CHISQ_NODOF ? 0 : prob;
  }
  if (c->fail == 0 && c->statefile && !t->grown) gcuba_state_remove(c);
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
                     const int *ax, double *cut, int *found)
{
  return gcuba_coll_status(CW(x)->c, CW(x)->ops->search(CW(x)->ctx, n, lo, w,
                                                        ax, cut, found));
}
static const gcuba_cuhre_ops coll_ops = {
    "collective", 0, NULL, cw_destroy, cw_minbatch, cw_init, cw_load, cw_save,
    cw_nleaves, cw_nnew, cw_eval, cw_hist, cw_apply, cw_kernel_ms, cw_hint,
    NULL, 0 /* t->cuts is the backend's */, cw_search};

/* GCUBA_DEVICES=auto: call t, stopped after an iteration, goes on on the
   GPUs the plan chose (c->grow) as a team whose members copy its regions
   from its store (t->grow_set), with the same result as on one.  Returns 0 when
   the team finished the call; 1 when it could not (memory or a device
   error on a GPU: t then goes on where it stopped, on its own GPU). */
static int grow(cuhre *t)
{
  const int back = t->c->grow->run(t->c, t->grow_state.p, t->grow_state.n,
                                   &t->grow_set);
  gcuba_buf_free(&t->grow_state);
  if (back) {
    t->grown = 0;
    t->ngrow = 0;
    t->cont = 1;
  }
  return back;
}

void gcuba_cuhre_drive(gcuba_call *c, const gcuba_cuhre_ops *ops)
{
  cuhre t;
  int fail = 0;
  double *mem, start;
  memset(&t, 0, sizeof t);
  t.stall_r = HUGE_VAL;
  t.c = c;
  t.ncomp = c->ncomp;
  if (gcuba_rule_init(&t.rule, c->ndim, c->key)) {
    gcuba_fail(c, GCUBA_FAIL_NDIM, "no rule for ndim = %d, key = %d",
               c->ndim, c->key);
    return;
  }
  t.ops = ops;
  t.cuts = t.ops->cuts && t.ops->search && c->set.cuts;
  gcuba_cutmap_init(&t.cm);
  c->cutmap = t.cuts ? &t.cm : NULL;
  t.st.relfrac = gcuba_cuhre_relfrac0(t.rule.degree);
  t.maxregions = gcuba_cuhre_max_regions(c, t.ops->device, 0);
  if (gcuba_coll_reduce_ll(c, &t.maxregions, 1, GCUBA_COLL_MIN)) return;
  gcuba_log(c, 2, "ndim %d, ncomp %d, epsrel %g, epsabs %g, flags %d, "
            "mineval %lld, maxeval %lld, key %d (degree-%d rule, %d points"
            " and %d probes),"
            " statefile %s", c->ndim, c->ncomp, c->epsrel,
            c->epsabs, c->flags, c->mineval, c->maxeval, c->key,
            t.rule.degree, t.rule.npoints, t.rule.nprobe,
            c->statefile ? c->statefile : "none");
  mem = (double *)calloc((size_t)c->ncomp * (16 + WYNN_TERMS), sizeof(double));
  t.xok = (int *)calloc((size_t)c->ncomp, sizeof(int));
  t.st.chi = (gcuba_vegas_combine_t *)calloc((size_t)c->ncomp,
                                             sizeof *t.st.chi);
  t.hist = (gcuba_hist *)malloc(sizeof *t.hist);
  if (gcuba_coll_status(c, !mem || !t.st.chi || !t.hist || !t.xok
                               ? GCUBA_FAIL_NOMEM : 0)) {
    free(mem);
    free(t.xok);
    free(t.st.chi);
    free(t.hist);
    if (c->fail == 0 || c->fail == GCUBA_FAIL_NOMEM)
      gcuba_fail(c, GCUBA_FAIL_NOMEM, "driver state");
    return;
  }
  t.st.ncomp = c->ncomp;
  t.st.finavg = mem;
  t.st.finerr = mem + c->ncomp;
  t.sumavg = mem + 2 * c->ncomp;
  t.sumerr = mem + 3 * c->ncomp;
  t.st.tot = mem + 4 * c->ncomp;
  t.st.err = mem + 5 * c->ncomp;
  t.st.budget = mem + 6 * c->ncomp;
  t.e = mem + 8 * c->ncomp;
  t.st.pconv = mem + 9 * c->ncomp;
  t.st.prev = mem + 10 * c->ncomp;
  t.xres = mem + 11 * c->ncomp;
  t.xerr = mem + 12 * c->ncomp;
  t.res = mem + 13 * c->ncomp; /* 3 per component */
  t.seq = mem + 16 * c->ncomp; /* WYNN_TERMS per component */
  t.tm[3] = start = now_ms();
  t.ctx = t.ops->create(c, &t.rule, &t.maxregions, &fail);
  t.tm[3] = now_ms() - t.tm[3];
  if (c->coll &&
      (gcuba_coll_status(c, t.ctx ? 0 : fail ? fail : GCUBA_FAIL_NOMEM) ||
       gcuba_coll_reduce_ll(c, &t.maxregions, 1, GCUBA_COLL_MIN)) &&
      t.ctx) {
    t.ops->destroy(t.ctx);
    t.ctx = NULL;
  }
  if (t.ctx) {
    const char *bkname = t.ops->name;
    double kms;
    gcuba_log(c, 2, "region limit %lld", t.maxregions);
    t.minbatch = t.ops->minbatch(t.ctx);
    if (c->set.minbatch > 0) t.minbatch = c->set.minbatch;
    if (c->coll) {
      static const char *const what[] = {
          "the regions split per iteration (GCUBA_CUHRE_MINBATCH)"};
      coll_ctx *w = (coll_ctx *)malloc(sizeof *w);
      if (gcuba_coll_agree(c, &t.minbatch, 1, what) ||
          gcuba_coll_status(c, w ? 0 : GCUBA_FAIL_NOMEM)) {
        if (w == NULL && c->fail == GCUBA_FAIL_NOMEM)
          gcuba_fail(c, GCUBA_FAIL_NOMEM, "driver state");
        free(w);
        t.ops->destroy(t.ctx);
        t.ctx = NULL;
        goto done;
      }
      w->ops = t.ops;
      w->ctx = t.ctx;
      w->c = c;
      t.ops = &coll_ops;
      t.ctx = w;
    }
    if (c->grow && !c->coll && t.ops->save_dev) {
      /* GCUBA_DEVICES=auto: the plan says where and when it may grow */
      t.ngrow = c->grow->n;
      t.grow_after = c->grow->after;
      t.grow_at = start + t.grow_after;
      t.grow_any = t.grow_after == 0;
    }
    run(&t);
    while (t.grown && grow(&t)) run(&t);
    kms = t.ops->kernel_ms ? t.ops->kernel_ms(t.ctx) : -1;
    t.tm[4] = now_ms();
    t.ops->destroy(t.ctx);
    t.tm[4] = now_ms() - t.tm[4];
    gcuba_log(c, 2, "%lld iterations on the %s backend; ms: set-up %.3f, "
              "evaluation %.3f, classification %.3f, splitting %.3f, "
              "clean-up %.3f", t.st.iter + 1, bkname, t.tm[3], t.tm[0],
              t.tm[1], t.tm[2], t.tm[4]);
    if (kms >= 0)
      gcuba_log(c, 2, "rule kernel: %.3f ms for %lld evaluations (%.2f G "
                "evaluations/s)", kms, c->neval,
                kms > 0 ? c->neval / kms * 1e-6 : 0.0);
  }
done:
  free(mem);
  free(t.xok);
  free(t.st.chi);
  free(t.hist);
}
