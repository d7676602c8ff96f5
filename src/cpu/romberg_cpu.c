/* src/cpu/romberg_cpu.c -- gRomberg's CPU executor: the sums of f and
   |f| over a block of one level's points, on OpenMP threads, in the fixed
   pairwise tree of romberg/romberg.h (so the bits do not depend on the
   thread count).  This file is part of gcuba. */
#include <math.h>
#include <stdlib.h>
#include "romberg/romberg.h"
#include "gcuba/detail/gpu_ops.h"
#include "common/pool.h"

/* points per task: CPU_CHUNK / ncomp (a power of two, at least 2) */
#define CPU_CHUNK 4096
/* tasks per block */
#define CPU_TASKS 256

typedef int (*nvec_fn)(const int *ndim, const double x[], const int *ncomp,
                       double f[], void *userdata, const int *nvec,
                       const int *core);

typedef struct {
  gcuba_call *c;
  int ncomp, nthreads;
  long long chunk;    /* points per task */
  double *x, *f, *g;  /* per thread: chunk, chunk*ncomp, chunk */
  double *part;       /* [CPU_TASKS][2*ncomp] task sums */
  volatile int abort;
  int k;              /* the level and first point of a shared loop */
  long long j0, len;
} cpu;

/* the perfect pairwise tree over v[0..n) (n a power of two; stride s),
   in place: the result in v[0] */
static double tree(double *v, long long n, long long s)
{
  long long m, i;
  for (m = n; m > 1; m /= 2)
    for (i = 0; i < m / 2; ++i) v[i * s] = v[2 * i * s] + v[(2 * i + 1) * s];
  return v[0];
}

static void cpu_destroy(void *ctx)
{
  cpu *t = (cpu *)ctx;
  if (!t) return;
  free(t->x);
  free(t->f);
  free(t->g);
  free(t->part);
  free(t);
}

static void *cpu_create(gcuba_call *c, int *fail)
{
  cpu *t = (cpu *)calloc(1, sizeof *t);
  if (!t) goto nomem;
  t->c = c;
  t->ncomp = c->ncomp;
  t->nthreads = c->threads > 0 ? c->threads : 1;
  t->chunk = 2;
  while (2 * t->chunk * c->ncomp <= CPU_CHUNK) t->chunk *= 2;
  t->x = (double *)malloc(sizeof(double) * t->chunk * t->nthreads);
  t->f = (double *)malloc(sizeof(double) * t->chunk * c->ncomp *
                          t->nthreads);
  t->g = (double *)malloc(sizeof(double) * t->chunk * t->nthreads);
  t->part = (double *)malloc(sizeof(double) * CPU_TASKS * 2 * c->ncomp);
  if (!t->x || !t->f || !t->g || !t->part) goto nomem;
  return t;
nomem:
  cpu_destroy(t);
  *fail = gcuba_fail(c, GCUBA_FAIL_NOMEM, "gRomberg's CPU buffers");
  return NULL;
}

static long long cpu_block(void *ctx)
{
  return ((cpu *)ctx)->chunk * CPU_TASKS;
}

/* points j0 .. j0+n-1 of level k on thread tid: sums into out[2*ncomp];
   GCUBA_ST_* bits */
static int cpu_task(cpu *t, int k, long long j0, long long n, int tid,
                    double *out)
{
  const int ncomp = t->ncomp, one = 1;
  double *x = t->x + (size_t)tid * t->chunk;
  double *f = t->f + (size_t)tid * t->chunk * ncomp;
  double *g = t->g + (size_t)tid * t->chunk;
  gintegrand_t in = t->c->integrand;
  void *ud = gcuba_ud_thread(&t->c->ud, tid);
  long long i, nv = t->c->nvec < n ? t->c->nvec : n;
  int c, st = 0;
  for (i = 0; i < n; ++i) x[i] = gcuba_romberg_x(k, j0 + i);
  if (in->kind == GCUBA_DESC_NVEC) {
    for (i = 0; i < n && !st; i += nv) {
      int m = (int)(n - i < nv ? n - i : nv);
      if (((nvec_fn)in->fn)(&one, x + i, &t->ncomp, f + i * ncomp, ud, &m,
                            &tid) == -999)
        st |= GCUBA_ST_ABORT;
    }
  } else
    for (i = 0; i < n && !st; ++i)
      if (in->fn(&one, x + i, &t->ncomp, f + i * ncomp, ud) == -999)
        st |= GCUBA_ST_ABORT;
  if (st) return st;
  for (i = 0; i < n * ncomp; ++i)
    if (!isfinite(f[i])) return GCUBA_ST_NONFINITE;
  for (c = 0; c < ncomp; ++c) {
    for (i = 0; i < n; ++i) g[i] = fabs(f[i * ncomp + c]);
    out[ncomp + c] = tree(g, n, 1);
    out[c] = tree(f + c, n, ncomp);
  }
  return 0;
}

static int task_item(void *ctx, long long i, int tid)
{
  cpu *t = (cpu *)ctx;
  int s;
  if (t->abort) return 0;
  s = cpu_task(t, t->k, t->j0 + i * t->len, t->len, tid,
               t->part + (size_t)i * 2 * t->ncomp);
  if (s) t->abort = 1;
  return s;
}

static int cpu_sum(void *ctx, int k, long long j0, long long n, double *sums)
{
  cpu *t = (cpu *)ctx;
  const int ncomp = t->ncomp;
  long long ntask = n / t->chunk, len = t->chunk;
  int st = 0, c;
  if (ntask < 1) {
    ntask = 1;
    len = n;
  }
  t->abort = 0;
  t->k = k;
  t->j0 = j0;
  t->len = len;
  st = gcuba_pool_for(t->nthreads, ntask, 1, task_item, t);
  if (st & GCUBA_ST_ABORT) return GCUBA_FAIL_ABORT;
  if (st & GCUBA_ST_NONFINITE) return GCUBA_FAIL_NAN;
  for (c = 0; c < 2 * ncomp; ++c)
    sums[c] = tree(t->part + c, ntask, 2 * ncomp);
  return 0;
}

const gcuba_romberg_ops gcuba_romberg_cpu = {"cpu", cpu_create, cpu_destroy,
                                             cpu_block, cpu_sum};
