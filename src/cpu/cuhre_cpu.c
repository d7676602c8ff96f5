/* src/cpu/cuhre_cpu.c -- the CPU backend of the Cuhre driver: the leaf
   regions in host arrays (structure of arrays), each step an OpenMP loop
   over regions.  Per-region work runs in parallel; every sum over regions
   is taken afterwards in region order, so results are identical for any
   number of threads.  Arrays are double-buffered (apply writes the next
   partition into the second set), grow geometrically up to the region
   limit and are reused from iteration to iteration.  This file is part
   of gcuba. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "cuhre/backend.h"
#include "common/coll.h"
#include "gcuba/detail/gpu_ops.h"
#include "gcuba/detail/cut.h"
#include "common/pool.h"
#include "common/points.h"

/* points generated and evaluated per integrand batch */
#define CHUNK 512
#define UTAB_MAX ((size_t)1 << 21) /* doubles in the point table */
/* loops over fewer items (evaluations, or regions) run on the calling
   thread: waking the other threads costs more than such loops (a
   one-dimensional call of 800 evaluations took several times longer on
   two threads than on one); every result is independent of the thread
   count either way */
#define PAR_MIN 4096
/* ... unless the integrand is costly: evaluations worth at least PAR_NS
   nanoseconds (measured on the call's evaluations so far) are shared */
#define PAR_NS 200000.0
/* c->points: the host buffers of one piece of regions (points and
   values) */
#define DEV_BYTES ((double)(64 << 20))

typedef int (*nvec_fn)(const int *ndim, const double x[], const int *ncomp,
                       double f[], void *userdata, const int *nvec,
                       const int *core);

/* one set of region arrays */
typedef struct {
  double *lo, *w;    /* [cap*ndim] */
  double *avg, *err; /* [cap*ncomp] */
  int *dims;         /* [cap*ncomp] split axis per component */
} arrays;

typedef struct {
  gcuba_call *c;
  gcuba_rule rule;
  int ndim, ncomp, np, nthreads;
  long long n, nold, cap, maxregions;
  int haveparents;      /* the new regions [nold, n) are children pairs */
  arrays a, b;          /* current leaves, next partition */
  double *pavg, *perr;  /* [cap/2*ncomp] parents of the new regions */
  unsigned char *cls;   /* [cap] classification: 0 keep, 1 fin, 2 split */
  double *cut;          /* [cap] where a split leaf is cut (detail/cut.h) */
  int *cutax;           /* [cap] and along which axis */
  double *xcut, *fcut;  /* per thread: GCUBA_CUT_MAXPTS*ndim, *ncomp */
  long long *pos;       /* [cap+1] scratch for apply */
  double *xbuf, *fbuf;  /* per thread: CHUNK*ndim, np*ncomp (np: the
                           rule's points and probes, gcuba_rule_nevals) */
  double *utab;         /* [np][ndim] the points as half-width offsets
                           (gcuba_rule_point), or NULL when too large:
                           then each point is formed as it is needed */
  long long *counts;     /* [2 * processes] a collective call's shares */
  volatile int abort;
  double ns;            /* measured nanoseconds per evaluation, < 0 not yet */
  /* c->points (the GPU's, for many components): the integrand's values
     at the new regions' points come from it, DEV_BYTES at a time */
  void *pts;
  double *dx, *df;      /* [dcap*np*ndim], [dcap*np*ncomp] */
  long long dcap;       /* regions per piece */
  /* a shared loop's arguments (common/pool.h) */
  long long first;
  const gcuba_classify *cl;
  long long nkeep, nev;
} cpu;

enum { KEEP = GCUBA_LEAF_KEEP, FIN = GCUBA_LEAF_FIN, SPLIT = GCUBA_LEAF_SPLIT };

long long gcuba_cuhre_region_bytes(int ndim, int ncomp)
{
  return 2 * (8LL * (2 * ndim + 2 * ncomp) + 4LL * ncomp) + 8LL * ncomp +
         1 + 8;
}

static int grow(void **p, long long n, size_t size)
{
  void *q = realloc(*p, (size_t)(n > 0 ? n : 1) * size);
  if (!q) return -1;
  *p = q;
  return 0;
}

static int grow_arrays(arrays *a, long long cap, int ndim, int ncomp)
{
  return grow((void **)&a->lo, cap * ndim, sizeof(double)) ||
         grow((void **)&a->w, cap * ndim, sizeof(double)) ||
         grow((void **)&a->avg, cap * ncomp, sizeof(double)) ||
         grow((void **)&a->err, cap * ncomp, sizeof(double)) ||
         grow((void **)&a->dims, cap * ncomp, sizeof(int));
}

static void free_arrays(arrays *a)
{
  free(a->lo);
  free(a->w);
  free(a->avg);
  free(a->err);
  free(a->dims);
}

/* make room for n leaves (geometric growth, at most maxregions) */
static int reserve(cpu *t, long long n)
{
  long long cap = t->cap ? t->cap : 1024;
  if (n <= t->cap) return 0;
  while (cap < n) cap *= 2;
  if (cap > t->maxregions) cap = t->maxregions > n ? t->maxregions : n;
  if (grow_arrays(&t->a, cap, t->ndim, t->ncomp) ||
      grow_arrays(&t->b, cap, t->ndim, t->ncomp) ||
      grow((void **)&t->pavg, (cap / 2 + 1) * t->ncomp, sizeof(double)) ||
      grow((void **)&t->perr, (cap / 2 + 1) * t->ncomp, sizeof(double)) ||
      grow((void **)&t->cls, cap, 1) ||
      grow((void **)&t->cut, cap, sizeof(double)) ||
      grow((void **)&t->cutax, cap, sizeof(int)) ||
      grow((void **)&t->pos, cap + 1, sizeof(long long)))
    return -1;
  t->cap = cap;
  return 0;
}

static void destroy(void *ctx)
{
  cpu *t = (cpu *)ctx;
  if (!t) return;
  free_arrays(&t->a);
  free_arrays(&t->b);
  free(t->pavg);
  free(t->perr);
  free(t->cls);
  free(t->cut);
  free(t->cutax);
  free(t->xcut);
  free(t->fcut);
  free(t->pos);
  free(t->xbuf);
  free(t->fbuf);
  free(t->utab);
  free(t->counts);
  if (t->pts) t->c->points->destroy(t->pts);
  free(t->dx);
  free(t->df);
  free(t);
}

static void *create(gcuba_call *c, const gcuba_rule *r, long long *maxregions,
                    int *fail)
{
  cpu *t = (cpu *)calloc(1, sizeof *t);
  if (!t) goto nomem;
  t->c = c;
  t->rule = *r;
  t->ndim = c->ndim;
  t->ncomp = c->ncomp;
  t->np = gcuba_rule_nevals(r);
  t->nthreads = c->threads > 0 ? c->threads : 1;
  t->ns = -1;
  t->maxregions = *maxregions;
  t->xbuf = (double *)malloc(sizeof(double) * CHUNK * t->ndim * t->nthreads);
  t->fbuf = (double *)malloc(sizeof(double) * (size_t)t->np * t->ncomp *
                             t->nthreads);
  t->xcut = (double *)malloc(sizeof(double) * GCUBA_CUT_MAXPTS * t->ndim *
                             t->nthreads);
  t->fcut = (double *)malloc(sizeof(double) * GCUBA_CUT_MAXPTS * t->ncomp *
                             t->nthreads);
  if (!t->xbuf || !t->fbuf || !t->xcut || !t->fcut) goto nomem;
  if (c->coll) {
    t->counts = (long long *)malloc(sizeof(long long) * 2 * c->coll->size);
    if (!t->counts) goto nomem;
  }
  /* forming a point costs as much as a cheap integrand: tabulate them
     (up to 16 MiB: the degree 9 rule up to 16 dimensions; beyond that
     the 2^ndim corner points make the integrand the larger cost) */
  if ((size_t)t->np * t->ndim <= UTAB_MAX) {
    int p;
    t->utab = (double *)malloc(sizeof(double) * (size_t)t->np * t->ndim);
    if (!t->utab) goto nomem;
    for (p = 0; p < t->np; ++p)
      gcuba_rule_point(r, p, t->utab + (size_t)p * t->ndim);
  }
  if (c->points) {
    const double per = 8.0 * t->np * (t->ndim + t->ncomp);
    t->dcap = (long long)(DEV_BYTES / per);
    if (t->dcap < 1) t->dcap = 1;
    t->dx = (double *)malloc(sizeof(double) * t->dcap * t->np * t->ndim);
    t->df = (double *)malloc(sizeof(double) * t->dcap * t->np * t->ncomp);
    if (!t->dx || !t->df) goto nomem;
    if (!(t->pts = c->points->create(c, fail))) {
      destroy(t);
      return NULL;
    }
    gcuba_log(c, 1, "%d components: the integrand on the %s, the rules on "
              "%d CPU thread%s", t->ncomp, c->points->name, t->nthreads,
              t->nthreads > 1 ? "s" : "");
  }
  return t;
nomem:
  destroy(t);
  *fail = gcuba_fail(c, GCUBA_FAIL_NOMEM, "allocating the region store");
  return NULL;
}

static int init(void *ctx, const int *ndiv)
{
  cpu *t = (cpu *)ctx;
  long long n = 1, i;
  int d;
  for (d = 0; d < t->ndim; ++d) n *= ndiv[d];
  if (reserve(t, n)) return GCUBA_FAIL_NOMEM;
  for (i = 0; i < n; ++i) {
    long long k = i;
    for (d = 0; d < t->ndim; ++d) {
      int j = (int)(k % ndiv[d]);
      k /= ndiv[d];
      t->a.w[i * t->ndim + d] = 1.0 / ndiv[d];
      t->a.lo[i * t->ndim + d] = (double)j / ndiv[d];
    }
  }
  t->n = n;
  t->nold = 0;
  t->haveparents = 0;
  return 0;
}

/* a fixed count (not per thread: the partition, and so the result of a
   run cut short by maxeval, must not depend on the number of threads) */
static long long minbatch(void *ctx)
{
  (void)ctx;
  return GCUBA_CUHRE_CPU_MINBATCH;
}

static long long nleaves(void *ctx) { return ((cpu *)ctx)->n; }
static long long nnew(void *ctx) { return ((cpu *)ctx)->n - ((cpu *)ctx)->nold; }

/* the points of region i from p0 on, m of them, into x */
static void region_points(const cpu *t, long long i, int p0, int m,
                          double *x)
{
  const int ndim = t->ndim;
  const double *lo = t->a.lo + i * ndim, *w = t->a.w + i * ndim;
  double u[GCUBA_RULE_MAXDIM];
  int p, d;
  for (p = 0; p < m; ++p) {
    const double *up = u;
    if (t->utab) up = t->utab + (size_t)(p0 + p) * ndim;
    else gcuba_rule_point(&t->rule, p0 + p, u);
    for (d = 0; d < ndim; ++d)
      x[p * ndim + d] = lo[d] + w[d] * 0.5 * (1 + up[d]);
  }
}

/* region i's results from the integrand's values f at its np points */
static int region_rule(cpu *t, long long i, const double *f)
{
  const int ndim = t->ndim, ncomp = t->ncomp, np = t->np;
  const double *w = t->a.w + i * ndim;
  const double vol = gcuba_leaf_vol(w, ndim);
  int *dims = t->a.dims + i * ncomp;
  long long k;
  for (k = 0; k < (long long)np * ncomp; ++k)
    if (!isfinite(f[k])) return GCUBA_ST_NONFINITE;
  dims[0] = gcuba_rule_widest(ndim, w);
  gcuba_rule_apply(&t->rule, ncomp, f, vol,
                   t->haveparents && i >= t->nold
                     ? t->perr + (i - t->nold) / 2 * ncomp : NULL,
                   t->a.avg + i * ncomp, t->a.err + i * ncomp, dims);
  if (t->rule.nprobe && ndim > 1) { /* in 1D gcuba_rule_apply did them */
    double *err = t->a.err + i * ncomp;
    int c;
    for (c = 0; c < ncomp; ++c) {
      int pax = 0;
      double pe = gcuba_rule_probe_err(&t->rule, f[c], f + ncomp + c, ncomp,
                                       f + (size_t)t->rule.npoints * ncomp + c,
                                       ncomp, vol, &pax);
      if (pe > err[c]) {
        err[c] = pe;
        dims[c] = pax;
      }
    }
  }
  return 0;
}

/* evaluate region i on thread tid; returns GCUBA_ST_* bits */
static int eval_region(cpu *t, long long i, int tid)
{
  const int ndim = t->ndim, ncomp = t->ncomp, np = t->np;
  double *x = t->xbuf + (size_t)tid * CHUNK * ndim;
  double *f = t->fbuf + (size_t)tid * np * ncomp;
  gintegrand_t in = t->c->integrand;
  void *ud = gcuba_ud_thread(&t->c->ud, tid);
  int nv = t->c->nvec < CHUNK ? (int)t->c->nvec : CHUNK;
  int p0, p, st = 0;

  for (p0 = 0; p0 < np && !t->abort; p0 += CHUNK) {
    int m = np - p0 < CHUNK ? np - p0 : CHUNK;
    region_points(t, i, p0, m, x);
    if (in->kind == GCUBA_DESC_NVEC) {
      for (p = 0; p < m; p += nv) {
        int k2 = m - p < nv ? m - p : nv;
        if (((nvec_fn)in->fn)(&t->ndim, x + p * ndim, &t->ncomp,
                              f + (size_t)(p0 + p) * ncomp, ud, &k2,
                              &tid) == -999)
          st |= GCUBA_ST_ABORT;
      }
    } else {
      for (p = 0; p < m; ++p)
        if (in->fn(&t->ndim, x + p * ndim, &t->ncomp,
                   f + (size_t)(p0 + p) * ncomp, ud) == -999)
          st |= GCUBA_ST_ABORT;
    }
    if (st) {
      t->abort = 1;
      return st;
    }
  }
  return region_rule(t, i, f);
}

/* the integrand's values from c->points: regions [a, b) in pieces of
   dcap, their points formed and their rules applied on the threads */
static int dev_points_item(void *ctx, long long i, int tid)
{
  cpu *t = (cpu *)ctx;
  (void)tid;
  region_points(t, t->first + i, 0, t->np,
                t->dx + (size_t)i * t->np * t->ndim);
  return 0;
}

static int dev_rule_item(void *ctx, long long i, int tid)
{
  cpu *t = (cpu *)ctx;
  (void)tid;
  return region_rule(t, t->first + i, t->df + (size_t)i * t->np * t->ncomp);
}

static int eval_device(cpu *t, long long a, long long b, int *st)
{
  long long r0;
  for (r0 = a; r0 < b; r0 += t->dcap) {
    const long long m = b - r0 < t->dcap ? b - r0 : t->dcap;
    const int nt = m * t->np >= PAR_MIN ? t->nthreads : 1;
    int rc;
    t->first = r0;
    gcuba_pool_for(nt, m, 1, dev_points_item, t);
    rc = t->c->points->eval(t->pts, m * t->np, t->dx, NULL, 0, t->df);
    if (rc == GCUBA_FAIL_ABORT) return *st |= GCUBA_ST_ABORT, 0;
    if (rc == GCUBA_FAIL_NAN) return *st |= GCUBA_ST_NONFINITE, 0;
    if (rc) return rc;
    *st |= gcuba_pool_for(nt, m, 1, dev_rule_item, t);
    if (*st) return 0;
  }
  return 0;
}

/* a collective call: the new regions' results of every process to every
   process (each evaluated its share, rows [a, b) of gcuba_coll_share) */
static int exchange(cpu *t)
{
  const gcuba_collective *coll = t->c->coll;
  const int ncomp = t->ncomp, size = coll->size;
  long long *cnt = t->counts + size, a, b;
  int r, rc;
  gcuba_coll_share(coll, t->n - t->nold, &a, &b, t->counts);
  for (r = 0; r < size; ++r) cnt[r] = t->counts[r] * ncomp;
  rc = gcuba_coll_gather(t->c, t->a.avg + t->nold * ncomp, cnt,
                         GCUBA_COLL_DOUBLE);
  if (!rc)
    rc = gcuba_coll_gather(t->c, t->a.err + t->nold * ncomp, cnt,
                           GCUBA_COLL_DOUBLE);
  for (r = 0; r < size; ++r) cnt[r] *= (long long)sizeof(int);
  if (!rc)
    rc = gcuba_coll_gather(t->c, t->a.dims + t->nold * ncomp, cnt,
                           GCUBA_COLL_BYTE);
  return rc;
}

static int eval_item(void *ctx, long long i, int tid)
{
  cpu *t = (cpu *)ctx;
  return t->abort ? 0 : eval_region(t, t->first + i, tid);
}

static int eval(void *ctx, double *sumavg, double *sumerr)
{
  cpu *t = (cpu *)ctx;
  const int ncomp = t->ncomp, ndim = t->ndim;
  long long i, n = t->n, n0 = t->nold, a = n0, b = n;
  int st = 0, c;
  t->abort = 0;
  /* a collective call: this process evaluates its share [a, b) */
  if (t->c->coll) {
    gcuba_coll_share(t->c->coll, n - n0, &a, &b, NULL);
    a += n0;
    b += n0;
  }
  if (t->pts) {
    int rc = eval_device(t, a, b, &st);
    if (rc) return rc;
  } else {
    const double n = (double)(b - a) * t->np, t0 = gcuba_now_ms();
    int nt = t->nthreads;
    if (n < PAR_MIN && !(t->ns > 0 && n * t->ns >= PAR_NS)) nt = 1;
    if (nt > b - a) nt = (int)(b - a);
    if (nt < 2) {
      for (i = a; i < b && !t->abort; ++i) st |= eval_region(t, i, 0);
    } else {
      t->first = a;
      /* a costly integrand: regions one at a time */
      st = gcuba_pool_for(nt, b - a, n < PAR_MIN ? 1 : 4, eval_item, t);
    }
    /* the integrand's cost (thread time per evaluation), once it is
       measurable */
    if (n >= 64) t->ns = (gcuba_now_ms() - t0) * 1e6 * nt / n;
  }
  if (t->c->coll) {
    long long v = st;
    int rc = gcuba_coll_reduce_ll(t->c, &v, 1, GCUBA_COLL_BOR);
    if (rc) return rc;
    st = (int)v;
    if (!st && (rc = exchange(t))) return rc;
  }
  if (st & GCUBA_ST_ABORT) return GCUBA_FAIL_ABORT;
  if (st & GCUBA_ST_NONFINITE) return GCUBA_FAIL_NAN;
  /* the new regions are pairs of children: the two-level error (in one
     dimension the Gauss-Kronrod pair's check, gcuba_gk_twolevel) */
  if (t->haveparents)
    for (i = 0; i < (n - n0) / 2; ++i) {
      double *a = t->a.avg + (n0 + 2 * i) * ncomp;
      double *e = t->a.err + (n0 + 2 * i) * ncomp;
      int *dm = t->a.dims + (n0 + 2 * i) * ncomp;
      for (c = 0; c < ncomp; ++c)
        if (ndim > 1)
          gcuba_twolevel(t->pavg[i * ncomp + c], t->perr[i * ncomp + c],
                         &a[c], &e[c], &dm[c], &a[ncomp + c], &e[ncomp + c],
                         &dm[ncomp + c]);
        else
          gcuba_gk_twolevel(t->pavg[i * ncomp + c], t->perr[i * ncomp + c],
                            a[c], &e[c], a[ncomp + c], &e[ncomp + c]);
    }
  /* a region that straddles a known feature: its error is at least its
     integral until it is cut there (gcuba_cutmap) */
  if (t->c->cutmap && t->c->cutmap->nfeat)
    for (i = n0; i < n; ++i)
      gcuba_cuhre_floor(t->c->cutmap, ndim, t->a.lo + i * ndim,
                        t->a.w + i * ndim, t->a.avg + i * ncomp,
                        t->a.err + i * ncomp, ncomp);
  t->nold = n;
  /* in leaf order, the integrals compensated (gcuba_ksum) */
  for (c = 0; c < ncomp; ++c) {
    double s = 0, k = 0, e = 0;
    for (i = 0; i < n; ++i) {
      gcuba_ksum(&s, &k, t->a.avg[i * ncomp + c]);
      e += t->a.err[i * ncomp + c];
    }
    sumavg[c] = s + k;
    sumerr[c] = e;
  }
  return 0;
}

/* the class of leaf i under cl (gcuba/detail/cuhre_policy.h), and its key */
static int classify1(const cpu *t, long long i, const gcuba_classify *cl,
                     double *key)
{
  int comp;
  return gcuba_cuhre_leaf(t->a.avg + i * t->ncomp, t->a.err + i * t->ncomp,
                          t->ncomp,
                          gcuba_leaf_vol(t->a.w + i * t->ndim, t->ndim), cl,
                          cl->budget, key, &comp);
}

static int classify_item(void *ctx, long long i, int tid)
{
  cpu *t = (cpu *)ctx;
  double k;
  (void)tid;
  t->cls[i] = (unsigned char)classify1(t, i, t->cl, &k);
  return 0;
}

/* classify every leaf into t->cls; add the finished regions' results to
   finavg/finerr (in leaf order, the integrals compensated: gcuba_ksum)
   and count */
static void classify(cpu *t, const gcuba_classify *cl, double *finavg,
                     double *finerr, long long *nkeep, long long *nsplit)
{
  long long i, n = t->n;
  int c;
  double k;
  if (n < PAR_MIN || t->nthreads < 2) {
    for (i = 0; i < n; ++i)
      t->cls[i] = (unsigned char)classify1(t, i, cl, &k);
  } else {
    t->cl = cl;
    gcuba_pool_for(t->nthreads, n, PAR_MIN, classify_item, t);
  }
  *nkeep = *nsplit = 0;
  for (i = 0; i < n; ++i) {
    if (t->cls[i] == SPLIT && cl->split_max >= 0 && *nsplit >= cl->split_max)
      t->cls[i] = KEEP;
    if (t->cls[i] == SPLIT)
      ++*nsplit;
    else if (t->cls[i] != FIN)
      ++*nkeep;
  }
  if (*nsplit + *nkeep == n) return;
  for (c = 0; c < t->ncomp; ++c) {
    double s = finavg[c], ks = 0, e = finerr[c];
    for (i = 0; i < n; ++i)
      if (t->cls[i] == FIN) {
        gcuba_ksum(&s, &ks, t->a.avg[i * t->ncomp + c]);
        e += t->a.err[i * t->ncomp + c];
      }
    finavg[c] = s + ks;
    finerr[c] = e;
  }
}

static int hist(void *ctx, const gcuba_classify *cl, gcuba_hist *h,
                double *relerr)
{
  cpu *t = (cpu *)ctx;
  gcuba_classify rel = *cl;
  long long i;
  int c;
  rel.fin_thresh = -1;
  rel.split_thresh = HUGE_VAL;
  memset(h, 0, sizeof *h);
  for (c = 0; c < t->ncomp; ++c) relerr[c] = 0;
  for (i = 0; i < t->n; ++i) {
    double k = 0;
    if (classify1(t, i, &rel, &k) == FIN) {
      ++h->nrel;
      for (c = 0; c < t->ncomp; ++c) relerr[c] += t->a.err[i * t->ncomp + c];
      continue;
    }
    ++h->count[gcuba_hist_bin(k)];
  }
  return 0;
}

static void move1(cpu *t, long long i, const gcuba_classify *cl,
                  long long nkeep);

/* the search of gcuba/detail/cut.h on the line through the centre of the box
   (lo, w) along axis ax, component comp, on thread tid: *cut, and 1 when
   it lies at a jump or a kink (gcuba_cut_jump in *jump, when not NULL);
   the evaluations added to *nev; < 0 when the integrand asked to stop */
static int line_search(cpu *t, const double *lo, const double *w, int ax,
                       int comp, int tid, long long *nev, double *cut,
                       double *jump)
{
  const int ndim = t->ndim, ncomp = t->ncomp;
  double *x = t->xcut + (size_t)tid * GCUBA_CUT_MAXPTS * ndim;
  double *f = t->fcut + (size_t)tid * GCUBA_CUT_MAXPTS * ncomp;
  double s[GCUBA_CUT_MAXPTS], g[GCUBA_CUT_MAXPTS];
  gintegrand_t in = t->c->integrand;
  void *ud = gcuba_ud_thread(&t->c->ud, tid);
  gcuba_cut cs;
  int n, p, d;
  *cut = 0.5;
  if (jump) *jump = 0;
  gcuba_cut_init(&cs);
  while ((n = gcuba_cut_points(&cs, s)) > 0) {
    if (t->abort) return -1;
    for (p = 0; p < n; ++p) {
      for (d = 0; d < ndim; ++d) x[p * ndim + d] = lo[d] + w[d] * 0.5;
      x[p * ndim + ax] = lo[ax] + w[ax] * s[p];
    }
    if (in->kind == GCUBA_DESC_NVEC) {
      const int nv = t->c->nvec < n ? (int)t->c->nvec : n;
      for (p = 0; p < n; p += nv) {
        int k2 = n - p < nv ? n - p : nv;
        if (((nvec_fn)in->fn)(&t->ndim, x + p * ndim, &t->ncomp,
                              f + (size_t)p * ncomp, ud, &k2,
                              &tid) == -999)
          return t->abort = 1, -1;
      }
    } else
      for (p = 0; p < n; ++p)
        if (in->fn(&t->ndim, x + p * ndim, &t->ncomp, f + (size_t)p * ncomp,
                   ud) == -999)
          return t->abort = 1, -1;
    *nev += n;
    for (p = 0; p < n; ++p) {
      g[p] = f[(size_t)p * ncomp + comp];
      /* a value that is not finite at a point no rule uses: the middle
         (the rules' own values say whether the integrand is finite) */
      if (!isfinite(g[p])) return 0;
    }
    gcuba_cut_take(&cs, g);
  }
  *cut = cs.cut;
  if (jump) *jump = gcuba_cut_jump(&cs);
  return cs.found;
}

/* where split leaf i is cut, on thread tid (gcuba/detail/cut.h): at a known
   feature it straddles, else, when search, where the search along its
   split axis finds a jump or a kink, else in the middle; GCUBA_ST_* bits */
static int cut_region(cpu *t, long long i, const gcuba_classify *cl,
                      int tid, int search, long long *nev)
{
  const int ndim = t->ndim;
  const double *lo = t->a.lo + i * ndim, *w = t->a.w + i * ndim;
  int comp, rc;
  gcuba_cuhre_key(t->a.err + i * t->ncomp, t->ncomp, cl->budget, &comp);
  if (!gcuba_cuhre_cut_leaf(
          t->c->cutmap, ndim, lo, w,
          gcuba_rule_axis(t->a.dims[i * t->ncomp + comp]), search,
          &t->cutax[i], &t->cut[i]))
    return 0;
  rc = line_search(t, lo, w, t->cutax[i], comp, tid, nev, &t->cut[i], NULL);
  return rc < 0 ? GCUBA_ST_ABORT : 0;
}

/* ops->search: the boxes one after another, on the calling thread */
static int search(void *ctx, int n, const double *lo, const double *w,
                  const int *ax, double *cut, int *found, double *jump)
{
  cpu *t = (cpu *)ctx;
  long long nev = 0;
  int j, rc = 0;
  t->abort = 0;
  for (j = 0; j < n && rc >= 0; ++j) {
    rc = line_search(t, lo + (size_t)j * t->ndim, w + (size_t)j * t->ndim,
                     ax[j], 0, 0, &nev, &cut[j], &jump[j]);
    found[j] = rc > 0 ? rc : 0;
  }
  t->c->neval += nev;
  return rc < 0 ? GCUBA_FAIL_ABORT : 0;
}

/* the cuts of the nsplit split leaves; their evaluations go to neval (the
   same on every process of a collective call, each of which finds them
   all); 0 or a fail code */
static int cut_item(void *ctx, long long i, int tid)
{
  cpu *t = (cpu *)ctx;
  long long nev = 0;
  int st = 0;
  if (t->cls[i] == SPLIT && !t->abort) {
    st = cut_region(t, i, t->cl, tid, 1, &nev);
    if (nev) __atomic_fetch_add(&t->nev, nev, __ATOMIC_RELAXED);
  }
  return st;
}

static int cuts(cpu *t, const gcuba_classify *cl, long long nsplit)
{
  const gcuba_cutmap *m = t->c->cutmap;
  long long i, nev = 0;
  int st = 0, search;
  t->abort = 0;
  search = m && !cl->nocut && gcuba_cut_searching(m, nsplit);
  if (t->n < PAR_MIN / 64 || t->nthreads < 2 || !search) {
    for (i = 0; i < t->n && !st; ++i)
      if (t->cls[i] == SPLIT) st |= cut_region(t, i, cl, 0, search, &nev);
  } else {
    t->cl = cl;
    t->nev = 0;
    st = gcuba_pool_for(t->nthreads, t->n, 16, cut_item, t);
    nev = t->nev;
  }
  t->c->neval += nev;
  return st & GCUBA_ST_ABORT ? GCUBA_FAIL_ABORT : 0;
}

static int apply_item(void *ctx, long long i, int tid)
{
  cpu *t = (cpu *)ctx;
  (void)tid;
  move1(t, i, t->cl, t->nkeep);
  return 0;
}

static int apply(void *ctx, const gcuba_classify *cl, double *finavg,
                 double *finerr)
{
  cpu *t = (cpu *)ctx;
  long long i, nk = 0, ns = 0, nnext, nkeep, nsplit;
  arrays sw;
  int rc;
  classify(t, cl, finavg, finerr, &nkeep, &nsplit);
  nnext = nkeep + 2 * nsplit;
  if (reserve(t, nnext)) return GCUBA_FAIL_NOMEM;
  if ((rc = cuts(t, cl, nsplit))) return rc;
  /* destination of each leaf: kept ones first, in order, then the
     children of the split ones, in order */
  for (i = 0; i < t->n; ++i) {
    if (t->cls[i] == KEEP) t->pos[i] = nk++;
    else if (t->cls[i] == SPLIT) t->pos[i] = nkeep + 2 * ns++;
    else t->pos[i] = -1;
  }
  if (t->n < PAR_MIN || t->nthreads < 2) {
    for (i = 0; i < t->n; ++i) move1(t, i, cl, nkeep);
  } else {
    t->cl = cl;
    t->nkeep = nkeep;
    gcuba_pool_for(t->nthreads, t->n, PAR_MIN, apply_item, t);
  }
  sw = t->a;
  t->a = t->b;
  t->b = sw;
  t->n = nnext;
  t->nold = nkeep;
  t->haveparents = 1;
  return 0;
}

/* leaf i into the next partition: copied when kept, its two children
   when split (apply) */
static void move1(cpu *t, long long i, const gcuba_classify *cl,
                  long long nkeep)
{
  const int ndim = t->ndim, ncomp = t->ncomp;
  {
    long long k = t->pos[i];
    if (t->cls[i] == KEEP) {
      memcpy(t->b.lo + k * ndim, t->a.lo + i * ndim, sizeof(double) * ndim);
      memcpy(t->b.w + k * ndim, t->a.w + i * ndim, sizeof(double) * ndim);
      memcpy(t->b.avg + k * ncomp, t->a.avg + i * ncomp,
             sizeof(double) * ncomp);
      memcpy(t->b.err + k * ncomp, t->a.err + i * ncomp,
             sizeof(double) * ncomp);
      memcpy(t->b.dims + k * ncomp, t->a.dims + i * ncomp,
             sizeof(int) * ncomp);
    } else if (t->cls[i] == SPLIT) {
      long long par = (k - nkeep) / 2;
      int d, c, ax, comp = 0;
      double *l1 = t->b.lo + k * ndim, *w1 = t->b.w + k * ndim;
      double *l2 = l1 + ndim, *w2 = w1 + ndim;
      /* axis of the component furthest from its tolerance here, cut
         where cuts() found (at 1/2: two halves, as exact as ever) */
      ax = t->cutax[i];
      (void)comp;
      for (d = 0; d < ndim; ++d) {
        l1[d] = l2[d] = t->a.lo[i * ndim + d];
        w1[d] = w2[d] = t->a.w[i * ndim + d];
      }
      w1[ax] = t->cut[i] * w2[ax];
      w2[ax] -= w1[ax];
      l2[ax] += w1[ax];
      memcpy(t->pavg + par * ncomp, t->a.avg + i * ncomp,
             sizeof(double) * ncomp);
      for (c = 0; c < ncomp; ++c)
        t->perr[par * ncomp + c] = gcuba_rule_parent_err(
          t->a.err[i * ncomp + c], t->a.dims[i * ncomp + c]);
    }
  }
}

static int load(void *ctx, const gcuba_region_set *s)
{
  cpu *t = (cpu *)ctx;
  size_t nn = (size_t)(s->n - s->nold) / 2 * t->ncomp;
  if (reserve(t, s->n)) return GCUBA_FAIL_NOMEM;
  memcpy(t->a.lo, s->lo, sizeof(double) * s->n * t->ndim);
  memcpy(t->a.w, s->w, sizeof(double) * s->n * t->ndim);
  memcpy(t->a.avg, s->avg, sizeof(double) * s->nold * t->ncomp);
  memcpy(t->a.err, s->err, sizeof(double) * s->nold * t->ncomp);
  memcpy(t->a.dims, s->dims, sizeof(int) * s->nold * t->ncomp);
  memcpy(t->pavg, s->pavg, sizeof(double) * nn);
  memcpy(t->perr, s->perr, sizeof(double) * nn);
  t->n = s->n;
  t->nold = s->nold;
  t->haveparents = s->haveparents;
  return 0;
}

static int save(void *ctx, gcuba_region_set *s)
{
  cpu *t = (cpu *)ctx;
  size_t nb = sizeof(double) * t->n * t->ndim;
  size_t rb = sizeof(double) * t->nold * t->ncomp;
  size_t pb = sizeof(double) * (size_t)((t->n - t->nold) / 2) * t->ncomp;
  s->n = t->n;
  s->nold = t->nold;
  s->haveparents = t->haveparents;
  s->lo = (double *)malloc(nb + 1);
  s->w = (double *)malloc(nb + 1);
  s->avg = (double *)malloc(rb + 1);
  s->err = (double *)malloc(rb + 1);
  s->dims = (int *)malloc(rb / 2 + 1);
  s->pavg = (double *)malloc(pb + 1);
  s->perr = (double *)malloc(pb + 1);
  if (!s->lo || !s->w || !s->avg || !s->err || !s->dims || !s->pavg ||
      !s->perr)
    return GCUBA_FAIL_NOMEM;
  memcpy(s->lo, t->a.lo, nb);
  memcpy(s->w, t->a.w, nb);
  memcpy(s->avg, t->a.avg, rb);
  memcpy(s->err, t->a.err, rb);
  memcpy(s->dims, t->a.dims, sizeof(int) * t->nold * t->ncomp);
  memcpy(s->pavg, t->pavg, pb);
  memcpy(s->perr, t->perr, pb);
  return 0;
}

const gcuba_cuhre_ops gcuba_cuhre_cpu = {
    "cpu", 0, create, destroy, minbatch, init, load, save, nleaves, nnew, eval,
    hist, apply, NULL, NULL, NULL, 1, search};
