/* src/suave/passes.c -- the passes of a gSuave step over a region's
   samples: the points of a new set drawn, the halves' fluctuations
   summed for the cut, the samples shared out to the halves, the sums of
   the region's sets, and the bins' contributions of its own set.  Each
   pass works in pieces of SUAVE_PIECE samples, on the CPU threads
   (src/common/pool.c) when there are several pieces and threads, and
   combines the pieces' sums in the pieces' order: the bits are the same
   on any thread count, and a pass over at most one piece (every pass of
   a run with Cuba's nnew of 1000, sets and regions below 16384 samples)
   gives the bits of one plain loop.  The draw and the share give the
   same bits however they are cut.  This file is part of gcuba. */
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "suave/suave_int.h"
#include "common/pool.h"
#include "gcuba/detail/vegas.h"

static long long npieces(long long n)
{
  return (n + SUAVE_PIECE - 1) / SUAVE_PIECE;
}

/* the threads for np items: the call's, no more than the items */
static int threads(const suave *s, long long np)
{
  const int t = s->c->threads;
  return t < 2 || np < 2 ? 1 : np < t ? (int)np : t;
}

/* fn(job, i, tid) for the n items, on the threads when par and there
   are several (threads) */
static void run_items(const suave *s, long long n, int par, gcuba_pool_fn fn,
                      void *job)
{
  const int nt = par ? threads(s, n) : 1;
  long long i;
  if (nt > 1)
    gcuba_pool_for(nt, n, 1, fn, job);
  else
    for (i = 0; i < n; ++i) fn(job, i, 0);
}

/* s->pc with room for m doubles; NULL when out of memory */
static double *piece_buf(suave *s, size_t m)
{
  if (m > s->pccap) {
    double *p = (double *)realloc(s->pc, sizeof(double) * m);
    if (!p) return NULL;
    s->pc = p;
    s->pccap = m;
  }
  return s->pc;
}

/* ---- the draw */

typedef struct {
  const suave *s;
  const sreg *r;
  uint64_t i0;
  long long n;
  double jac, *x, *w;
  unsigned char *bin;
} drawjob;

/* points k0 .. k1 - 1 of the set, point k the sequence's number i0 + k:
   Sobol's bits of the first from its number, of the others from their
   predecessor's by one XOR per axis (the same bits) */
static void draw_range(const drawjob *J, long long k0, long long k1)
{
  const suave *s = J->s;
  const sreg *r = J->r;
  const int nd = s->ndim;
  double u[GCUBA_MAXDIM];
  uint64_t q[GCUBA_MAXDIM];
  long long k;
  if (s->sobol)
    gcuba_vegas_sobol_walk_start(s->sobol, nd, J->i0 + (uint64_t)k0, q);
  for (k = k0; k < k1; ++k) {
    const uint64_t i = J->i0 + (uint64_t)k;
    if (s->sobol)
      gcuba_vegas_sobol_walk(s->sobol, nd, i, q, u);
    else
      gcuba_vegas_uniforms(s->seed, 0, i, nd, u);
    J->w[k] = J->jac * gcuba_suave_map(nd, u, r->lo, r->hi, r->grid,
                                       J->x + k * nd, J->bin + k * nd);
  }
}

static int draw_item(void *ctx, long long p, int tid)
{
  const drawjob *J = (const drawjob *)ctx;
  const long long k0 = p * SUAVE_PIECE;
  (void)tid;
  draw_range(J, k0, k0 + SUAVE_PIECE < J->n ? k0 + SUAVE_PIECE : J->n);
  return 0;
}

void gcuba_suave_draw(suave *s, const sreg *r, long long nnew, double *x,
                      double *w, unsigned char *bin)
{
  drawjob J;
  const long long np = npieces(nnew);
  J.s = s;
  J.r = r;
  J.i0 = s->next;
  J.n = nnew;
  J.jac = 1 / ldexp((double)nnew, r->div);
  J.x = x;
  J.w = w;
  J.bin = bin;
  run_items(s, np, 1, draw_item, &J);
  s->next += (uint64_t)(nnew > 0 ? nnew : 0);
}

/* ---- the halves' fluctuations */

typedef struct {
  const suave *s;
  const sreg *r;
  int comp;
  double avg, norm, amax;
  double *part; /* per piece: 2 ndim sums, then 2 ndim counts (long
                   long) */
  double *mid;  /* [ndim] the middles of the axes */
} scanjob;

static int scan_item(void *ctx, long long p, int tid)
{
  const scanjob *J = (const scanjob *)ctx;
  const suave *s = J->s;
  const sreg *r = J->r;
  const int nd = s->ndim, nc = s->ncomp;
  const long long k0 = p * SUAVE_PIECE,
                  k1 = k0 + SUAVE_PIECE < r->n ? k0 + SUAVE_PIECE : r->n;
  const double *mid = J->mid;
  double *fl = J->part + (size_t)p * 4 * nd;
  long long *fn = (long long *)(fl + 2 * nd);
  const double *x = r->x + k0 * nd, *f = r->f + k0 * nc + J->comp;
  long long k;
  int a;
  (void)tid;
  for (a = 0; a < 2 * nd; ++a) {
    fl[a] = 0;
    fn[a] = 0;
  }
  for (k = k0; k < k1; ++k, f += nc) {
    const double d = *f - J->avg;
    double arg = 1 + fabs(r->w[k]) * d * d * J->norm, ft;
    if (arg > J->amax) arg = J->amax;
    ft = pow(arg, s->flatness);
    for (a = 0; a < nd; ++a, ++x) {
      const int side = *x >= mid[a];
      const double v = fl[2 * a + side] + ft;
      fl[2 * a + side] = v < DBL_MAX / 2 ? v : DBL_MAX / 2;
      ++fn[2 * a + side];
    }
  }
  return 0;
}

int gcuba_suave_scan(suave *s, const sreg *r, int comp, double avg,
                     double norm, double amax)
{
  const int nd = s->ndim;
  const long long np = npieces(r->n);
  scanjob J;
  long long p;
  int a;
  if (s->dev) {
    double *mid = piece_buf(s, (size_t)nd);
    if (!mid) return 1;
    for (a = 0; a < nd; ++a) mid[a] = .5 * (r->lo[a] + r->hi[a]);
    return s->dev->scan(s->dctx, r->blk, comp, avg, norm, amax, s->flatness,
                        mid, s->fl, s->fn) ||
           gcuba_suave_wait(s);
  }
  J.s = s;
  J.r = r;
  J.comp = comp;
  J.avg = avg;
  J.norm = norm;
  J.amax = amax;
  if (!(J.part = piece_buf(s, (size_t)(np > 0 ? np : 1) * 4 * nd + nd)))
    return 1;
  J.mid = J.part + (size_t)(np > 0 ? np : 1) * 4 * nd;
  for (a = 0; a < nd; ++a) J.mid[a] = .5 * (r->lo[a] + r->hi[a]);
  for (a = 0; a < 2 * nd; ++a) {
    s->fl[a] = 0;
    s->fn[a] = 0;
  }
  run_items(s, np, 1, scan_item, &J);
  for (p = 0; p < np; ++p) {
    const double *fl = J.part + (size_t)p * 4 * nd;
    const long long *fn = (const long long *)(fl + 2 * nd);
    for (a = 0; a < 2 * nd; ++a) {
      const double v = s->fl[a] + fl[a];
      s->fl[a] = v < DBL_MAX / 2 ? v : DBL_MAX / 2;
      s->fn[a] += fn[a];
    }
  }
  return 0;
}

/* ---- the share */

/* per piece: its samples on the left and on the right, whether it holds
   a set's end, whether a left / right sample comes before its first end
   (or anywhere, without one); then the first left and right places */
enum { SH_NL, SH_NR, SH_END, SH_HEADL, SH_HEADR, SH_AFTL, SH_AFTR, SH_OFFL,
       SH_OFFR, SH_W };

typedef struct {
  const suave *s;
  const sreg *r;
  int dim;
  double mid;
  sreg *L, *R;
  double *part; /* [np][SH_W] */
} sharejob;

static int share_count(void *ctx, long long p, int tid)
{
  const sharejob *J = (const sharejob *)ctx;
  const sreg *r = J->r;
  const int nd = J->s->ndim;
  const long long k0 = p * SUAVE_PIECE,
                  k1 = k0 + SUAVE_PIECE < r->n ? k0 + SUAVE_PIECE : r->n;
  double *q = J->part + (size_t)p * SH_W;
  long long k, nl = 0;
  int end = 0, hl = 0, hr = 0;
  (void)tid;
  for (k = k0; k < k1; ++k) {
    const int left = r->x[k * nd + J->dim] < J->mid;
    nl += left;
    if (!end) {
      if (left) hl = 1;
      else hr = 1;
    }
    if (r->w[k] < 0) end = 1;
  }
  q[SH_NL] = (double)nl;
  q[SH_NR] = (double)(k1 - k0 - nl);
  q[SH_END] = end;
  q[SH_HEADL] = hl;
  q[SH_HEADR] = hr;
  return 0;
}

/* the piece's samples to their places, last first: a sample ends its set
   on its side when no later sample of the set goes there (the serial
   rule: a set that ends on one side ends on the other one too) */
static int share_move(void *ctx, long long p, int tid)
{
  const sharejob *J = (const sharejob *)ctx;
  const sreg *r = J->r;
  const int nd = J->s->ndim, nc = J->s->ncomp;
  const long long k0 = p * SUAVE_PIECE,
                  k1 = k0 + SUAVE_PIECE < r->n ? k0 + SUAVE_PIECE : r->n;
  const double *q = J->part + (size_t)p * SH_W;
  long long k, at[2];
  int seen[2];
  (void)tid;
  at[0] = (long long)(q[SH_OFFL] + q[SH_NL]);
  at[1] = (long long)(q[SH_OFFR] + q[SH_NR]);
  seen[0] = q[SH_AFTL] != 0;
  seen[1] = q[SH_AFTR] != 0;
  for (k = k1 - 1; k >= k0; --k) {
    const int side = !(r->x[k * nd + J->dim] < J->mid);
    sreg *h = side ? J->R : J->L;
    const long long i = --at[side];
    if (r->w[k] < 0) seen[0] = seen[1] = 0;
    h->w[i] = seen[side] ? fabs(r->w[k]) : -fabs(r->w[k]);
    seen[side] = 1;
    h->sn[i] = r->sn[k];
    memcpy(h->x + i * nd, r->x + k * nd, sizeof(double) * nd);
    memcpy(h->f + i * nc, r->f + k * nc, sizeof(double) * nc);
  }
  return 0;
}

/* the share on the device, queued: the halves' sets end where r's sets'
   samples on either side end (sets with none there left out), found
   when the share is done (share_end) */
static int share_dev(suave *s, const sreg *r, int dim, sreg *L, sreg *R)
{
  const size_t sz = sizeof(long long) * ((size_t)r->nset + 1);
  if ((size_t)r->nset > s->rcap) {
    long long *p = (long long *)realloc(s->right, sz);
    if (!p) return 1;
    s->right = p;
    s->rcap = (size_t)r->nset + 1;
  }
  if (!(L->se = (long long *)malloc(sz)) ||
      !(R->se = (long long *)malloc(sz)))
    return 1;
  if (s->dev->share(s->dctx, r->blk, r->nset, r->se, dim,
                    .5 * (r->lo[dim] + r->hi[dim]), L->blk, R->blk,
                    s->right))
    return 1;
  s->shp = r;
  s->shh[0] = L;
  s->shh[1] = R;
  return 0;
}

/* the share queued last, done: the halves' sets' ends */
static int share_end(suave *s)
{
  const sreg *r = s->shp;
  sreg *L = s->shh[0], *R = s->shh[1];
  long long at[2] = {0, 0};
  int j;
  s->shp = NULL;
  L->nset = R->nset = 0;
  for (j = 0; j < r->nset; ++j) {
    const long long len = r->se[j] - (j ? r->se[j - 1] : 0);
    if (len - s->right[j] > 0) L->se[L->nset++] = at[0] += len - s->right[j];
    if (s->right[j] > 0) R->se[R->nset++] = at[1] += s->right[j];
  }
  if (at[0] != L->n - L->nown || at[1] != R->n - R->nown) {
    gcuba_fail(s->c, GCUBA_FAIL_CUDA, "gSuave: the device's share gave "
               "%lld and %lld samples for %lld and %lld", at[0], at[1],
               L->n - L->nown, R->n - R->nown);
    return 1;
  }
  return 0;
}

int gcuba_suave_wait(suave *s)
{
  if (s->dev->wait(s->dctx)) return 1;
  s->qdone = 1;
  return s->shp ? share_end(s) : 0;
}

int gcuba_suave_share(suave *s, const sreg *r, int dim, sreg *L, sreg *R)
{
  const long long np = npieces(r->n);
  sharejob J;
  double offl = 0, offr = 0, aftl = 0, aftr = 0;
  long long p;
  if (s->dev) return share_dev(s, r, dim, L, R);
  J.s = s;
  J.r = r;
  J.dim = dim;
  J.mid = .5 * (r->lo[dim] + r->hi[dim]);
  J.L = L;
  J.R = R;
  if (!(J.part = piece_buf(s, (size_t)(np > 0 ? np : 1) * SH_W))) return 1;
  run_items(s, np, 1, share_count, &J);
  for (p = 0; p < np; ++p) {
    double *q = J.part + (size_t)p * SH_W;
    q[SH_OFFL] = offl;
    q[SH_OFFR] = offr;
    offl += q[SH_NL];
    offr += q[SH_NR];
  }
  /* whether the set open at a piece's end has samples on either side in
     the pieces after it */
  for (p = np - 1; p >= 0; --p) {
    double *q = J.part + (size_t)p * SH_W;
    q[SH_AFTL] = aftl;
    q[SH_AFTR] = aftr;
    aftl = q[SH_END] != 0 ? q[SH_HEADL] : (q[SH_HEADL] != 0 || aftl != 0);
    aftr = q[SH_END] != 0 ? q[SH_HEADR] : (q[SH_HEADR] != 0 || aftr != 0);
  }
  run_items(s, np, 1, share_move, &J);
  return 0;
}

/* ---- the sets' sums */

/* an item: a set's samples k0 .. k1 - 1, at most a piece; its record
   [1 + 4 ncomp]: the count, then per component the sum of w f, of its
   squares, its least and greatest value */
#define ITW(nc) (1 + 4 * (size_t)(nc))

typedef struct {
  const suave *s;
  const sreg *r;
  const long long *lim; /* [2 items]: k0, k1 */
  double *part;         /* [items][ITW] */
} setjob;

static int set_item(void *ctx, long long i, int tid)
{
  const setjob *J = (const setjob *)ctx;
  const int nc = J->s->ncomp;
  const double *w = J->r->w, *f = J->r->f;
  const long long k0 = J->lim[2 * i], k1 = J->lim[2 * i + 1];
  double *q = J->part + (size_t)i * ITW(nc);
  long long j;
  int c;
  (void)tid;
  q[0] = (double)(k1 - k0);
  for (c = 0; c < nc; ++c) {
    double sum = 0, sq = 0, lo = INFINITY, hi = -INFINITY;
    for (j = k0; j < k1; ++j) {
      const double v = fabs(w[j]) * f[j * nc + c];
      sum += v;
      sq += v * v;
      if (v < lo) lo = v;
      if (v > hi) hi = v;
    }
    q[1 + 4 * c] = sum;
    q[2 + 4 * c] = sq;
    q[3 + 4 * c] = lo;
    q[4 + 4 * c] = hi;
  }
  return 0;
}

/* s->set with room for nset records; 0, or 1 when out of memory */
static int set_room(suave *s, long long nset)
{
  if (nset > s->setcap) {
    const long long cap = nset > 2 * s->setcap ? nset : 2 * s->setcap;
    double *p = (double *)realloc(s->set,
                                  sizeof(double) * SETW(s->ncomp) * cap);
    if (!p) return 1;
    s->set = p;
    s->setcap = cap;
  }
  return 0;
}

/* a set's largest deviation of one sample from its mean, max |v - sum /
   N|, from its least and greatest v (a rounded difference is monotonic
   in v) */
static double set_dev(double lo, double hi, double sum, double N)
{
  double d = 0, e = fabs(hi - sum / N);
  if (e > d) d = e;
  e = fabs(lo - sum / N);
  if (e > d) d = e;
  return d;
}

int gcuba_suave_sets_ahead(suave *s, const sreg *r)
{
  const size_t m = (1 + 4 * (size_t)s->ncomp) * (size_t)r->nset;
  int q;
  if (!s->dev) return 0;
  /* (two at a time: a third waits for them) */
  if (!s->qdone && s->qreg[1] && gcuba_suave_wait(s)) return 1;
  if (s->qdone) s->qreg[0] = s->qreg[1] = NULL;
  s->qdone = 0;
  q = s->qreg[0] ? 1 : 0;
  if (m > s->qcap[q]) {
    double *p = (double *)realloc(s->qrec[q], sizeof(double) * m);
    if (!p) return 1;
    s->qrec[q] = p;
    s->qcap[q] = m;
  }
  if (s->dev->sets(s->dctx, r->blk, r->nset, r->se, s->qrec[q])) return 1;
  s->qreg[q] = r;
  return 0;
}

/* the sets of a region on the device: queued ahead, or now */
static long long sets_dev(suave *s, const sreg *r)
{
  const int nc = s->ncomp;
  const size_t rw = 1 + 4 * (size_t)nc;
  const double *rec;
  int j, c, q;
  if (set_room(s, r->nset)) return -1;
  q = s->qreg[0] == r ? 0 : s->qreg[1] == r ? 1 : -1;
  if (q < 0) {
    if (gcuba_suave_sets_ahead(s, r)) return -1;
    q = s->qreg[0] == r ? 0 : 1;
  }
  if (!s->qdone && gcuba_suave_wait(s)) return -1;
  rec = s->qrec[q];
  for (j = 0; j < r->nset; ++j) {
    const double *t = rec + j * rw;
    double *p = s->set + j * SETW(nc);
    p[0] = t[0];
    p[1] = (double)(r->se[j] - (j ? r->se[j - 1] : 0));
    for (c = 0; c < nc; ++c) {
      p[2 + 3 * c] = t[1 + 4 * c];
      p[3 + 3 * c] = t[2 + 4 * c];
      p[4 + 3 * c] = set_dev(t[3 + 4 * c], t[4 + 4 * c], t[1 + 4 * c], t[0]);
    }
  }
  return r->nset;
}

long long gcuba_suave_sets(suave *s, const sreg *r)
{
  const int nc = s->ncomp;
  const size_t sw = SETW(nc), iw = ITW(nc);
  long long k, k0 = 0, nset = 0, nit = 0, i;
  long long *lim;
  setjob J;
  if (s->dev) return sets_dev(s, r);
  /* the items: the sets' ends, each set cut in pieces from its start */
  for (k = 0; k < r->n; ++k)
    if (r->w[k] < 0) {
      nit += npieces(k + 1 - k0);
      ++nset;
      k0 = k + 1;
    }
  if (set_room(s, nset)) return -1;
  /* the limits (2 long longs) and the records of the items */
  if (!piece_buf(s, (size_t)nit * (2 + iw) + 1)) return -1;
  lim = (long long *)s->pc;
  J.part = s->pc + 2 * (size_t)nit;
  J.s = s;
  J.r = r;
  J.lim = lim;
  for (i = 0, k0 = 0, k = 0; k < r->n; ++k)
    if (r->w[k] < 0) {
      long long a;
      for (a = k0; a <= k; a += SUAVE_PIECE) {
        lim[2 * i] = a;
        lim[2 * i + 1] = a + SUAVE_PIECE < k + 1 ? a + SUAVE_PIECE : k + 1;
        ++i;
      }
      k0 = k + 1;
    }
  run_items(s, nit, r->n > SUAVE_PIECE, set_item, &J);
  /* the sets' records, their items summed in order */
  for (i = 0, k = 0; k < nset; ++k) {
    double *q = s->set + k * sw;
    long long last;
    int c;
    for (c = 0; c < nc; ++c) {
      q[2 + 3 * c] = q[3 + 3 * c] = 0;
      q[4 + 3 * c] = INFINITY;   /* least v, until the set is summed */
    }
    q[1] = 0;
    for (;;) {
      const double *t = J.part + (size_t)i * iw;
      last = lim[2 * i + 1];
      q[1] += t[0];
      for (c = 0; c < nc; ++c) {
        q[2 + 3 * c] += t[1 + 4 * c];
        q[3 + 3 * c] += t[2 + 4 * c];
        if (t[3 + 4 * c] < q[4 + 3 * c]) q[4 + 3 * c] = t[3 + 4 * c];
      }
      ++i;
      if (r->w[last - 1] < 0) break;
    }
    q[0] = r->sn[last - 1];
    for (c = 0; c < nc; ++c) {
      /* the greatest v: the items again (a set has few) */
      double hi = -INFINITY;
      long long j;
      for (j = i - 1; j >= 0 && (j == i - 1 || r->w[lim[2 * j + 1] - 1] >= 0);
           --j) {
        const double *t = J.part + (size_t)j * iw;
        if (t[4 + 4 * c] > hi) hi = t[4 + 4 * c];
      }
      q[4 + 3 * c] = set_dev(q[4 + 3 * c], hi, q[2 + 3 * c], q[0]);
    }
  }
  return nset;
}

/* ---- the bins' contributions of the own set */

typedef struct {
  const suave *s;
  const sreg *r;
  const double *scale;
  long long k0; /* the own set's first sample */
  double *part; /* per piece [ndim][NB] */
} margjob;

static int marg_item(void *ctx, long long p, int tid)
{
  const margjob *J = (const margjob *)ctx;
  const sreg *r = J->r;
  const int nd = J->s->ndim, nc = J->s->ncomp;
  const long long a0 = J->k0 + p * SUAVE_PIECE,
                  a1 = a0 + SUAVE_PIECE < r->n ? a0 + SUAVE_PIECE : r->n;
  double *m = J->part + (size_t)p * nd * NB;
  long long k;
  int a, c;
  (void)tid;
  memset(m, 0, sizeof(double) * nd * NB);
  for (k = a0; k < a1; ++k) {
    const double *f = r->f + k * nc;
    const unsigned char *b = r->bin + (k - J->k0) * nd;
    double q = 0;
    for (c = 0; c < nc; ++c)
      q += (f[c] * J->scale[c]) * (f[c] * J->scale[c]);
    q *= r->w[k] * r->w[k];
    if (q != 0)
      for (a = 0; a < nd; ++a) m[a * NB + b[a]] += q;
  }
  return 0;
}

int gcuba_suave_marg(suave *s, const sreg *r, const double *scale)
{
  const int nd = s->ndim;
  const long long np = npieces(r->nown);
  margjob J;
  long long p;
  size_t j;
  if (s->dev)
    return s->dev->marg(s->dctx, r->blk, scale, s->marg) ||
           gcuba_suave_wait(s);
  J.s = s;
  J.r = r;
  J.scale = scale;
  J.k0 = r->n - r->nown;
  if (np <= 1) {
    J.part = s->marg;
    if (np == 1) marg_item(&J, 0, 0);
    else memset(s->marg, 0, sizeof(double) * nd * NB);
    return 0;
  }
  if (!(J.part = piece_buf(s, (size_t)np * nd * NB))) return 1;
  run_items(s, np, 1, marg_item, &J);
  memset(s->marg, 0, sizeof(double) * nd * NB);
  for (p = 0; p < np; ++p)
    for (j = 0; j < (size_t)nd * NB; ++j)
      s->marg[j] += J.part[(size_t)p * nd * NB + j];
  return 0;
}
