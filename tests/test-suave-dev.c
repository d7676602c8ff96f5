/* tests/test-suave-dev.c -- the gSuave driver with its samples "on a
   device" (src/suave/suave.h, gcuba_suave_dev), the device played here
   by host memory and plain loops: the driver's side of the GPU's passes
   (cuda/suave.cu) runs in every build, without a GPU.  The passes are
   the one-loop forms of the host's (src/suave/passes.c), whose pieces
   hold a whole region in these runs, and their results reach the driver
   only at the wait, as from a device: so a run must give the bits of
   the host's, for Sobol and Philox points, one and two components, and
   through state files written either way; an integrand's abort is
   reported at the wait; a full device stops the run with fail 1;
   out-of-range samples and sets are caught here.
   This file is part of gcuba. */
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "tap.h"
#include "suave/suave_int.h"
#include "gcuba/detail/vegas.h"

#define SF "test-suave-dev.state"

/* set when the device was asked something out of range */
static int badness;
/* the device's memory (bytes; 0: no limit) and what its blocks hold */
static size_t budget, held;

/* ---- the integrand (one or two components), aborting after `limit'
   points when limit > 0 */
static long long limit, seen;

static int integrand(int nd, int nc, const double *x, double *f)
{
  double g = 1, h = 0;
  int a;
  if (limit > 0 && ++seen > limit) return GCUBA_FAIL_ABORT;
  for (a = 0; a < nd; ++a) {
    const double d = x[a] - .3 - .1 * a;
    g *= exp(-20 * d * d);
    h += x[a] * x[a];
  }
  f[0] = g;
  if (nc > 1) f[1] = h;
  return 0;
}

/* ---- the points executor: the integrand on the host */
static void *p_create(gcuba_call *c, int *fail)
{
  (void)fail;
  return c;
}
static void p_destroy(void *ctx) { (void)ctx; }
static int p_eval(void *ctx, long long n, const double *x, const double *w,
                  int iter, double *f)
{
  const gcuba_call *c = (const gcuba_call *)ctx;
  long long i;
  int rc;
  (void)w;
  (void)iter;
  for (i = 0; i < n; ++i)
    if ((rc = integrand(c->ndim, c->ncomp, x + i * c->ndim,
                        f + i * c->ncomp)))
      return rc;
  return 0;
}

/* ---- the device, in host memory */
typedef struct {
  long long n, nown;
  size_t bytes;
  double *w, *x, *f, *sn;
  unsigned char *bin;
} eblk;

typedef struct {
  void *dst;
  double *src;
  size_t m;
  int ll;
} epend;

typedef struct {
  gcuba_call *c;
  int nd, nc;
  const uint64_t *sobol;
  uint64_t seed;
  epend p[16];
  int np, abort, bad;
} edev;

static edev *dev_of(void *d) { return (edev *)d; }

/* a result for the wait: m doubles (a copy) to dst */
static void later(edev *e, void *dst, const double *v, size_t m, int ll)
{
  double *c = (double *)malloc(sizeof(double) * (m ? m : 1));
  memcpy(c, v, sizeof(double) * m);
  if (e->np == 16) {
    e->bad = 1;
    free(c);
    return;
  }
  e->p[e->np].dst = dst;
  e->p[e->np].src = c;
  e->p[e->np].m = m;
  e->p[e->np++].ll = ll;
}

static void *e_create(void *pctx, const uint64_t *sobol, uint64_t seed,
                      int *fail)
{
  gcuba_call *c = (gcuba_call *)pctx;
  edev *e = (edev *)calloc(1, sizeof *e);
  (void)fail;
  e->c = c;
  e->nd = c->ndim;
  e->nc = c->ncomp;
  e->sobol = sobol;
  e->seed = seed;
  return e;
}
static void e_destroy(void *d)
{
  edev *e = dev_of(d);
  int i;
  for (i = 0; i < e->np; ++i) free(e->p[i].src);
  free(e);
}
static void *e_alloc(void *d, long long n, long long nown)
{
  edev *e = dev_of(d);
  eblk *b = (eblk *)calloc(1, sizeof *b);
  b->n = n;
  b->nown = nown;
  b->bytes = sizeof(double) * (size_t)n * (2 + e->nd + e->nc) +
             (size_t)nown * e->nd;
  if (budget && held + b->bytes > budget) {
    free(b);
    return NULL; /* full */
  }
  held += b->bytes;
  b->w = (double *)malloc(b->bytes);
  b->x = b->w + n;
  b->f = b->x + n * e->nd;
  b->sn = b->f + n * e->nc;
  b->bin = (unsigned char *)(b->sn + n);
  return b;
}
static void e_release(void *d, void *blk)
{
  eblk *b = (eblk *)blk;
  (void)d;
  held -= b->bytes;
  free(b->w);
  free(b);
}

static int e_draw(void *d, void *blk, const double *lo, const double *hi,
                  const double *grid, double jac, uint64_t i0)
{
  edev *e = dev_of(d);
  eblk *b = (eblk *)blk;
  const long long m = b->nown, at = b->n - m;
  double u[16];
  long long k;
  int a;
  for (k = 0; k < m; ++k) {
    const uint64_t i = i0 + (uint64_t)k;
    for (a = 0; a < e->nd; ++a)
      if (e->sobol) u[a] = gcuba_vegas_sobol(e->sobol + a * 64, i);
    if (!e->sobol) gcuba_vegas_uniforms(e->seed, 0, i, e->nd, u);
    b->w[at + k] = jac * gcuba_suave_map(e->nd, u, lo, hi, grid,
                                         b->x + (at + k) * e->nd,
                                         b->bin + k * e->nd);
    b->sn[at + k] = (double)m;
    if (!e->abort && integrand(e->nd, e->nc, b->x + (at + k) * e->nd,
                               b->f + (at + k) * e->nc))
      e->abort = 1;
  }
  b->w[b->n - 1] = -b->w[b->n - 1];
  return 0;
}

static int e_scan(void *d, void *blk, int comp, double avg, double norm,
                  double amax, double flatness, const double *mid,
                  double *fl, long long *fn)
{
  edev *e = dev_of(d);
  const eblk *b = (const eblk *)blk;
  double s[32] = {0}, n[32] = {0};
  long long k;
  int a;
  for (k = 0; k < b->n; ++k) {
    const double dd = b->f[k * e->nc + comp] - avg;
    double arg = 1 + fabs(b->w[k]) * dd * dd * norm, ft;
    if (arg > amax) arg = amax;
    ft = pow(arg, flatness);
    for (a = 0; a < e->nd; ++a) {
      const int side = b->x[k * e->nd + a] >= mid[a];
      const double v = s[2 * a + side] + ft;
      s[2 * a + side] = v < DBL_MAX / 2 ? v : DBL_MAX / 2;
      ++n[2 * a + side];
    }
  }
  later(e, fl, s, 2 * e->nd, 0);
  later(e, fn, n, 2 * e->nd, 1);
  return 0;
}

static int e_share(void *d, void *blk, int nset, const long long *ends,
                   int dim, double mid, void *lp, void *rp, long long *right)
{
  edev *e = dev_of(d);
  const eblk *b = (const eblk *)blk;
  eblk *h[2];
  double *cnt = (double *)calloc((size_t)nset + 1, sizeof(double));
  long long k, at[2] = {0, 0};
  int seen2[2] = {0, 0}, j = nset - 1;
  h[0] = (eblk *)lp;
  h[1] = (eblk *)rp;
  for (k = 0; k < b->n; ++k) ++at[!(b->x[k * e->nd + dim] < mid)];
  if (nset < 1 || ends[nset - 1] != b->n || at[0] != h[0]->n - h[0]->nown ||
      at[1] != h[1]->n - h[1]->nown)
    e->bad = 1;
  for (k = b->n - 1; k >= 0; --k) {
    const int side = !(b->x[k * e->nd + dim] < mid);
    eblk *t = h[side];
    const long long i = --at[side];
    while (j > 0 && k < ends[j - 1]) --j;
    if (b->w[k] < 0) seen2[0] = seen2[1] = 0;
    if ((b->w[k] < 0) != (k == ends[j] - 1)) e->bad = 1;
    t->w[i] = seen2[side] ? fabs(b->w[k]) : -fabs(b->w[k]);
    seen2[side] = 1;
    t->sn[i] = b->sn[k];
    memcpy(t->x + i * e->nd, b->x + k * e->nd, sizeof(double) * e->nd);
    memcpy(t->f + i * e->nc, b->f + k * e->nc, sizeof(double) * e->nc);
    cnt[j] += side;
  }
  later(e, right, cnt, (size_t)nset, 1);
  free(cnt);
  return 0;
}

static int e_marg(void *d, void *blk, const double *scale, double *marg)
{
  edev *e = dev_of(d);
  const eblk *b = (const eblk *)blk;
  double *m = (double *)calloc((size_t)e->nd * NB, sizeof(double));
  long long k;
  int a, c;
  for (k = b->n - b->nown; k < b->n; ++k) {
    const unsigned char *bin = b->bin + (k - (b->n - b->nown)) * e->nd;
    double q = 0;
    for (c = 0; c < e->nc; ++c)
      q += (b->f[k * e->nc + c] * scale[c]) * (b->f[k * e->nc + c] * scale[c]);
    q *= b->w[k] * b->w[k];
    if (q != 0)
      for (a = 0; a < e->nd; ++a) m[a * NB + bin[a]] += q;
  }
  later(e, marg, m, (size_t)e->nd * NB, 0);
  free(m);
  return 0;
}

static int e_sets(void *d, void *blk, int nset, const long long *ends,
                  double *rec)
{
  edev *e = dev_of(d);
  const eblk *b = (const eblk *)blk;
  const size_t rw = 1 + 4 * (size_t)e->nc;
  double *r = (double *)malloc(sizeof(double) * rw * (size_t)nset);
  int j, c;
  for (j = 0; j < nset; ++j) {
    const long long k0 = j ? ends[j - 1] : 0, k1 = ends[j];
    long long k;
    if (k1 <= k0 || k1 > b->n || b->w[k1 - 1] >= 0) e->bad = 1;
    r[j * rw] = b->sn[k1 - 1];
    for (c = 0; c < e->nc; ++c) {
      double sum = 0, sq = 0, lo = INFINITY, hi = -INFINITY;
      for (k = k0; k < k1; ++k) {
        const double v = fabs(b->w[k]) * b->f[k * e->nc + c];
        sum += v;
        sq += v * v;
        if (v < lo) lo = v;
        if (v > hi) hi = v;
      }
      r[j * rw + 1 + 4 * c] = sum;
      r[j * rw + 2 + 4 * c] = sq;
      r[j * rw + 3 + 4 * c] = lo;
      r[j * rw + 4 + 4 * c] = hi;
    }
  }
  later(e, rec, r, rw * (size_t)nset, 0);
  free(r);
  return 0;
}

static int e_wait(void *d)
{
  edev *e = dev_of(d);
  int i;
  size_t k;
  for (i = 0; i < e->np; ++i) {
    if (e->p[i].ll)
      for (k = 0; k < e->p[i].m; ++k)
        ((long long *)e->p[i].dst)[k] = (long long)e->p[i].src[k];
    else
      memcpy(e->p[i].dst, e->p[i].src, sizeof(double) * e->p[i].m);
    free(e->p[i].src);
  }
  e->np = 0;
  if (e->bad) badness = 1;
  return e->abort ? gcuba_fail(e->c, GCUBA_FAIL_ABORT, "aborted") : 0;
}

static int e_get(void *d, void *blk, void *host)
{
  const eblk *b = (const eblk *)blk;
  (void)d;
  memcpy(host, b->w, b->bytes);
  return 0;
}
static int e_put(void *d, void *blk, const void *host)
{
  eblk *b = (eblk *)blk;
  (void)d;
  memcpy(b->w, host, b->bytes);
  return 0;
}

static const gcuba_suave_dev edev_ops = {
    e_create, e_destroy, e_alloc, e_release, e_draw, e_scan, e_share,
    e_marg, e_sets, e_wait, e_get, e_put};

static const gcuba_points_ops host_ops = {
    "host", p_create, p_destroy, p_eval, NULL, NULL, NULL, NULL, NULL, NULL};
static const gcuba_points_ops dev_ops = {
    "dev", p_create, p_destroy, p_eval, NULL, NULL, NULL, NULL, NULL,
    &edev_ops};

typedef struct {
  long long neval, nregions;
  int fail;
  double I[2], E[2], P[2];
} result;

static void run(result *r, int dev, int nd, int nc, int seed,
                double epsrel, long long maxeval, const char *sf)
{
  gcuba_call c;
  memset(&c, 0, sizeof c);
  memset(r, 0, sizeof *r);
  c.routine = "gSuave";
  c.ndim = nd;
  c.ncomp = nc;
  c.epsrel = epsrel;
  c.epsabs = 1e-12;
  c.maxeval = maxeval;
  c.statefile = sf;
  c.seed = seed;
  c.nnew = 1000;
  c.nmin = 2;
  c.flatness = 25;
  c.threads = 1;
  c.integral = r->I;
  c.error = r->E;
  c.prob = r->P;
  seen = 0;
  gcuba_suave_drive(&c, dev ? &dev_ops : &host_ops);
  r->neval = c.neval;
  r->nregions = c.nregions;
  r->fail = c.fail;
}

static int same(const result *a, const result *b)
{
  return a->fail == b->fail && a->neval == b->neval &&
         a->nregions == b->nregions && !memcmp(a->I, b->I, sizeof a->I) &&
         !memcmp(a->E, b->E, sizeof a->E) && !memcmp(a->P, b->P, sizeof a->P);
}

int main(void)
{
  static const struct {
    int nd, nc, seed;
    double epsrel;
    long long maxeval;
  } cases[] = {{3, 1, 0, 1e-4, 200000}, {3, 1, 5, 1e-3, 200000},
               {4, 2, 0, 1e-4, 150000}, {2, 2, 9, 1e-3, 100000},
               {5, 1, 0, 3e-3, 300000}};
  result h, d, a, b;
  int i;
  plan(0);
  for (i = 0; i < (int)(sizeof cases / sizeof cases[0]); ++i) {
    run(&h, 0, cases[i].nd, cases[i].nc, cases[i].seed, cases[i].epsrel,
        cases[i].maxeval, NULL);
    run(&d, 1, cases[i].nd, cases[i].nc, cases[i].seed, cases[i].epsrel,
        cases[i].maxeval, NULL);
    ok(same(&h, &d) && h.nregions > 10 && !badness,
       "%dD, %d components, seed %d: the samples on the device give the "
       "host's bits (%.15g, neval %lld, %lld regions, fail %d)",
       cases[i].nd, cases[i].nc, cases[i].seed, d.I[0], d.neval, d.nregions,
       d.fail);
  }
  /* state files: written on the device, resumed there; written on the
     host, resumed on the device (the same format) */
  run(&h, 0, 3, 1, 0, 1e-4, 200000, NULL);
  unlink(SF);
  run(&a, 1, 3, 1, 0, 1e-4, h.neval / 2, SF);
  run(&b, 1, 3, 1, 0, 1e-4, 200000, SF);
  ok(a.fail == 1 && same(&h, &b) && !badness,
     "a run through a state file on the device: the bits of a whole one");
  unlink(SF);
  run(&a, 0, 3, 1, 0, 1e-4, h.neval / 3, SF);
  run(&b, 1, 3, 1, 0, 1e-4, 200000, SF);
  ok(a.fail == 1 && same(&h, &b) && !badness,
     "a host's state resumed on the device: the bits of a whole run");
  unlink(SF);
  /* the integrand's abort, reported at the device's wait */
  limit = 5500;
  run(&d, 1, 3, 1, 0, 1e-4, 200000, NULL);
  limit = 0;
  ok(d.fail == GCUBA_FAIL_ABORT, "an abort on the device: fail %d", d.fail);
  /* the device's memory full: the run stops at the step that would
     not fit, with the bits of a host's run stopped there by maxeval */
  budget = 1 << 21;
  run(&d, 1, 3, 1, 0, 1e-6, 100000000, NULL);
  budget = 0;
  run(&h, 0, 3, 1, 0, 1e-6, d.neval, NULL);
  ok(d.fail == 1 && d.neval < 1000000 && d.nregions > 10 && same(&h, &d) &&
         held == 0,
     "the device's memory full (2 MiB) at %lld evaluations, %lld regions: "
     "fail %d, the host's bits at that maxeval, every block freed",
     d.neval, d.nregions, d.fail);
  /* maxeval below nnew: one region of maxeval samples */
  run(&d, 1, 3, 1, 0, 1e-4, 500, NULL);
  ok(d.fail == 1 && d.neval == 500 && d.nregions == 1,
     "maxeval 500 on the device: fail %d, neval %lld, %lld region",
     d.fail, d.neval, d.nregions);
  return done();
}
