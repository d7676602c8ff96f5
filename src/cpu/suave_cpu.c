/* src/cpu/suave_cpu.c -- gSuave's and gDivonne's CPU executor: the integrand at a list
   of points on the CPU threads (src/common/pool.c), in pieces of CHUNK
   points.  Each value lands in its own slot, so the results do not depend
   on the thread count.  A step of gSuave evaluates about nnew points
   (1000 in Cuba's demo): for a cheap integrand that is a few
   microseconds, less than waking the threads costs, so the threads used
   follow the integrand's measured cost (src/cpu/work.h, gVegas's rule),
   measured on a serial piece whenever a call runs on one thread.  This file is part of gcuba. */
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
} cpu;

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

static void destroy(void *ctx) { free(ctx); }

/* points [i0, i1) on thread tid: GCUBA_ST_* bits */
static int points(cpu *t, long long i0, long long i1, int tid)
{
  gintegrand_t in = t->c->integrand;
  void *ud = gcuba_ud_thread(&t->c->ud, tid);
  const int nd = t->ndim, nc = t->ncomp;
  long long i;
  if (in->kind == GCUBA_DESC_NVEC) {
    for (i = i0; i < i1; i += t->nv) {
      int m = (int)(i1 - i < t->nv ? i1 - i : t->nv);
      /* gSuave: weight and iteration, as Cuba's Suave; gDivonne (no
         weights): the phase, as Cuba's Divonne */
      if ((t->w ? ((gcuba_vegas_nvec_fn)in->fn)(&t->ndim, t->x + i * nd,
                                                &t->ncomp, t->f + i * nc, ud,
                                                &m, &tid, t->w + i, &t->iter)
                : ((divonne_fn)in->fn)(&t->ndim, t->x + i * nd, &t->ncomp,
                                       t->f + i * nc, ud, &m, &tid,
                                       &t->iter)) == -999)
        return GCUBA_ST_ABORT;
    }
  } else
    for (i = i0; i < i1; ++i)
      if (in->fn(&t->ndim, t->x + i * nd, &t->ncomp, t->f + i * nc, ud) ==
          -999)
        return GCUBA_ST_ABORT;
  for (i = i0 * nc; i < i1 * nc; ++i)
    if (!isfinite(t->f[i])) return GCUBA_ST_NONFINITE;
  return 0;
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

const gcuba_points_ops gcuba_suave_cpu = {"cpu", create, destroy, eval};
