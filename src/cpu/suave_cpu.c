/* src/cpu/suave_cpu.c -- gSuave's and gDivonne's CPU executor: the integrand at a list
   of points on the CPU threads (src/common/pool.c), in pieces of CHUNK
   points.  Each value lands in its own slot, so the results do not depend
   on the thread count.  A step of gSuave evaluates about nnew points
   (1000 in Cuba's demo): for a cheap integrand that is a few
   microseconds, less than waking the threads costs, so the threads used
   follow the integrand's measured cost (src/cpu/work.h, gVegas's rule),
   measured on a serial piece whenever a call runs on one thread.
   gDivonne's final copies are made here too, a block of points at a
   time on each thread, and summed block by block in order; the blocks
   of many regions' copies (a batch of the final phase) share one loop.  This file
   is part of gcuba. */
#include <math.h>
#include <stdlib.h>
#include "suave/suave.h"
#include "vegas/backend.h"
#include "gcuba/detail/gpu_ops.h"
#include "common/pool.h"
#include "cpu/work.h"

/* Cuba's Divonne calls an nvec-form integrand with the phase last */
typedef int (*divonne_fn)(const int *, const double *, const int *,
                          double *, void *, const int *, const int *,
                          const int *);

/* points per item of a shared loop */
#define CHUNK 64

typedef struct {
  gcuba_call *c;
  int ndim, ncomp, nthreads;
  long long nv;           /* points per call of an nvec-form integrand */
  double ns;              /* measured cost per point (ns); < 0 unknown */
  /* the call in progress */
  long long n;
  const double *x, *w;
  double *f;
  int iter;
  volatile int abort;
  /* gDivonne's copies in progress: nq regions of k copies of nb items
     of CBLOCK points, rounds of at most CROUND items; per item the sums,
     minima and maxima; per thread its points and values */
  const gcuba_copies *q;
  long long nb, item0;
  double *part, *scratch;
} cpu;

#define CBLOCK 1024
#define CROUND 4096

static void *create(gcuba_call *c, int *fail)
{
  cpu *t = (cpu *)calloc(1, sizeof *t);
  if (!t) {
    *fail = gcuba_fail(c, GCUBA_FAIL_NOMEM, "gSuave's CPU executor");
    return NULL;
  }
  t->c = c;
  t->ndim = c->ndim;
  t->ncomp = c->ncomp;
  t->nthreads = c->threads > 0 ? c->threads : 1;
  t->nv = c->nvec < CHUNK ? c->nvec : CHUNK;
  if (t->nv < 1) t->nv = 1;
  t->ns = -1;
  return t;
}

static void destroy(void *ctx)
{
  cpu *t = (cpu *)ctx;
  if (!t) return;
  free(t->part);
  free(t->scratch);
  free(t);
}

/* the n points x on thread tid into f (w: their weights, or NULL):
   GCUBA_ST_* bits */
static int run(cpu *t, long long n, const double *x, const double *w,
               int iter, double *f, int tid)
{
  gintegrand_t in = t->c->integrand;
  void *ud = gcuba_ud_thread(&t->c->ud, tid);
  const int nd = t->ndim, nc = t->ncomp;
  long long i;
  if (in->kind == GCUBA_DESC_NVEC) {
    for (i = 0; i < n; i += t->nv) {
      int m = (int)(n - i < t->nv ? n - i : t->nv);
      /* gSuave: weight and iteration, as Cuba's Suave; gDivonne (no
         weights): the phase, as Cuba's Divonne */
      if ((w ? ((gcuba_vegas_nvec_fn)in->fn)(&t->ndim, x + i * nd,
                                             &t->ncomp, f + i * nc, ud, &m,
                                             &tid, w + i, &iter)
             : ((divonne_fn)in->fn)(&t->ndim, x + i * nd, &t->ncomp,
                                    f + i * nc, ud, &m, &tid, &iter)) ==
          -999)
        return GCUBA_ST_ABORT;
    }
  } else
    for (i = 0; i < n; ++i)
      if (in->fn(&t->ndim, x + i * nd, &t->ncomp, f + i * nc, ud) == -999)
        return GCUBA_ST_ABORT;
  for (i = 0; i < n * nc; ++i)
    if (!isfinite(f[i])) return GCUBA_ST_NONFINITE;
  return 0;
}

/* points [i0, i1) of the call in progress on thread tid */
static int points(cpu *t, long long i0, long long i1, int tid)
{
  return run(t, i1 - i0, t->x + i0 * t->ndim, t->w ? t->w + i0 : NULL,
             t->iter, t->f + i0 * t->ncomp, tid);
}

static int item(void *ctx, long long k, int tid)
{
  cpu *t = (cpu *)ctx;
  const long long i0 = k * CHUNK;
  int st;
  if (t->abort) return 0;
  st = points(t, i0, i0 + CHUNK < t->n ? i0 + CHUNK : t->n, tid);
  if (st) t->abort = 1;
  return st;
}

static int eval(void *ctx, long long n, const double *x, const double *w,
                int iter, double *f)
{
  cpu *t = (cpu *)ctx;
  int nt, st;
  t->n = n;
  t->x = x;
  t->w = w;
  t->f = f;
  t->iter = iter;
  t->abort = 0;
  nt = t->ns < 0 ? 1
                 : gcuba_cpu_threads(n, t->ns, t->nthreads,
                                     (n + CHUNK - 1) / CHUNK);
  if (nt <= 1 && n < 64)
    /* (gDivonne's searches: single points, whose time is no measure and
       whose clock readings cost as much as a cheap integrand) */
    st = points(t, 0, n, 0);
  else if (nt <= 1) {
    /* serial: measure the cost on the way */
    const double t0 = gcuba_now_ms();
    st = points(t, 0, n, 0);
    if (!st) t->ns = (gcuba_now_ms() - t0) * 1e6 / (double)n;
  } else
    st = gcuba_pool_for(nt, (n + CHUNK - 1) / CHUNK, 1, item, t);
  if (st & GCUBA_ST_ABORT) return GCUBA_FAIL_ABORT;
  if (st & GCUBA_ST_NONFINITE) return GCUBA_FAIL_NAN;
  return 0;
}

/* item k of a round of gDivonne's copies: CBLOCK points (fewer at a
   copy's end) of copy g (copy g % k of region g / k) made on thread tid,
   evaluated and summed in order; per component the sum, the extrema and
   their points' numbers within the region's copies */
static int copy_item(void *ctx, long long k, int tid)
{
  cpu *t = (cpu *)ctx;
  const int nc = t->ncomp;
  const long long it = t->item0 + k, g = it / t->nb, i0 = it % t->nb * CBLOCK;
  const gcuba_copies *q = t->q + g / t->q->k;
  const long long h = g % q->k, n = q->p - i0 < CBLOCK ? q->p - i0 : CBLOCK;
  double *x = t->scratch +
              (size_t)tid * ((size_t)CBLOCK * (t->ndim + nc) + 2);
  double *f = x + (size_t)CBLOCK * t->ndim + 2;
  double *part = t->part + (size_t)k * 5 * nc;
  int st;
  if (t->abort) return 0;
  gcuba_copies_walk(q, (int)h, i0, n, x);
  if ((st = run(t, n, x, NULL, t->iter, f, tid))) {
    t->abort = 1;
    return st;
  }
  gcuba_copies_part(f, n, nc, h * q->p + i0, part);
  return 0;
}

static int copies(void *ctx, int nq, const gcuba_copies *q, int iter,
                  double *sum, double *ext, long long *iext)
{
  cpu *t = (cpu *)ctx;
  const int nc = t->ncomp;
  const long long nb = (q->p + CBLOCK - 1) / CBLOCK, items = nq * q->k * nb;
  long long r, k;
  if (!t->scratch) {
    t->scratch = (double *)malloc(sizeof(double) * t->nthreads *
                                  ((size_t)CBLOCK * (t->ndim + nc) + 2));
    t->part = (double *)malloc(sizeof(double) * CROUND * 5 * nc);
    if (!t->scratch || !t->part) return GCUBA_FAIL_NOMEM;
  }
  t->q = q;
  t->nb = nb;
  t->iter = iter;
  t->abort = 0;
  for (k = 0; k < (long long)nq * q->k * nc; ++k) sum[k] = 0;
  for (r = 0; r < items; r += CROUND) {
    const long long m = items - r < CROUND ? items - r : CROUND;
    long long pts = 0;
    int nt, st = 0;
    /* the round's points (a copy's last block may be short) */
    for (k = r; k < r + m; ++k)
      pts += q->p - k % nb * CBLOCK < CBLOCK ? q->p - k % nb * CBLOCK
                                             : CBLOCK;
    nt = t->ns < 0 ? 1 : gcuba_cpu_threads(pts, t->ns, t->nthreads, m);
    t->item0 = r;
    if (nt <= 1) {
      const double t0 = gcuba_now_ms();
      for (k = 0; k < m && !st; ++k) st = copy_item(t, k, 0);
      if (!st && pts >= 64)
        t->ns = (gcuba_now_ms() - t0) * 1e6 / (double)pts;
    } else
      st = gcuba_pool_for(nt, m, 1, copy_item, t);
    if (st & GCUBA_ST_ABORT) return GCUBA_FAIL_ABORT;
    if (st & GCUBA_ST_NONFINITE) return GCUBA_FAIL_NAN;
    /* the items in order, whatever the threads: the first extremum */
    for (k = r; k < r + m; ++k) {
      const long long g = k / nb, rg = g / q->k;
      gcuba_copies_merge(t->part + (size_t)(k - r) * 5 * nc, nc,
                         k % (q->k * nb) == 0, sum + (size_t)g * nc,
                         ext + (size_t)rg * 2 * nc,
                         iext + (size_t)rg * 2 * nc);
    }
  }
  return 0;
}

/* gDivonne's partition: points on the calling thread, as thread tid */
static int eval_on(void *ctx, int tid, long long n, const double *x,
                   int iter, double *f)
{
  const int st = run((cpu *)ctx, n, x, NULL, iter, f, tid);
  if (st & GCUBA_ST_ABORT) return GCUBA_FAIL_ABORT;
  if (st & GCUBA_ST_NONFINITE) return GCUBA_FAIL_NAN;
  return 0;
}

static long long on_max(void *ctx)
{
  (void)ctx;
  return 1LL << 40;
}

const gcuba_points_ops gcuba_suave_cpu = {
    "cpu", create, destroy, eval, copies, eval_on, on_max, NULL, NULL, NULL};
