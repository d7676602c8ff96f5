/* src/plan/batch.c -- the plan of a batch (gCuhreBatch, gVegasBatch):
   the arguments checked once (a bad one sets every fail[b]), then where
   the integrals run, decided once for all of them:
     - gCuhre with ndim >= 2 and at most 8 components, where a single
       call would run on the GPU: the GPU pipeline (cuda/batch.cu), every
       integral's iterations in one launch per step, each integral with
       the CPU backend's policy and region order, so that its fail and
       neval are those of its single call on the CPU; an integral whose
       partition outgrows the pipeline's memory runs as a single GPU
       call;
     - gVegas with at most 8 components and 64 dimensions, gridno 0 and
       no adaptive stratification, where a single call would run on the
       GPU: the GPU pipeline (cuda/vegas_batch.cu), each integral's
       driver in steps, their iterations sampled in one launch, so that
       each integral's answer is its single GPU call's, bit for bit;
     - otherwise each integral is one run of the driver with exactly the
       arguments a single call would get, so its answer is the single
       call's, bit for bit:
       - on CPU threads (the default, and GCUBA_DEVICE=cpu) in parallel,
         one thread each, scheduled dynamically (an easy integral frees
         its thread for the next while a hard one goes on);
       - with GCUBA_DEVICE=gpu one after another on the GPU, each a single
         call with its parameter block of userstride bytes;
       - Vegas with gridno != 0 in index order on the calling thread: the
         grid slots are shared, as between single calls.
   gcubainit/gcubaexit are called once around the batch.  This file is
   part of gcuba. */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "plan/plan_int.h"
#include "cuhre/cuhre.h"
#include "cuhre/backend.h"
#include "vegas/vegas.h"
#include "plan/tables.h"
#include "common/pool.h"
#include "cuda/device.h"
#ifdef _OPENMP
#include <omp.h>
#endif

typedef struct {
  int r, n;
  const gcuba_call *proto; /* the arguments common to all integrals */
  size_t stride;
  size_t ubytes; /* a member's block: stride, else gcuba_userdata_size */
  int udev;      /* where the members' blocks live (the proto's answer,
                    on the GPU), or -2: asked per member */
  int *nregions, *fail;
  long long *neval;
} batch;

enum { ON_CPU = 0, ON_GPU = 1, PIPELINE = 2, VPIPELINE = 3 };

/* integral b, on the calling thread, on backend bk with threads CPU
   threads */
static void one(const batch *B, int b, int bk, int threads);

/* integral i on a CPU thread of the batch's loop (common/pool.h) */
static int member_item(void *ctx, long long i, int tid)
{
  (void)tid;
  one((const batch *)ctx, (int)i, GCUBA_BK_CPU, 1);
  return 0;
}

/* the call of integral b (named name, 48 bytes) as its single call
   would get it, on backend bk with threads CPU threads */
static void member(const batch *B, int b, int bk, int threads, gcuba_call *c,
                   char *name)
{
  void *p = B->proto->ud.p ? (char *)B->proto->ud.p + (size_t)b * B->stride
                           : NULL;
  *c = *B->proto;
  snprintf(name, 48, "%s[%d]", B->proto->routine, b);
  c->routine = name;
  c->integral += (size_t)b * c->ncomp;
  c->error += (size_t)b * c->ncomp;
  c->prob += (size_t)b * c->ncomp;
  gcuba_plan_zero(c);
  c->backend = bk;
  c->threads = threads;
  /* a GPU copies the block: userstride bytes, else what
     gcuba_userdata_size says */
  if (B->udev >= -1) gcuba_plan_userdata_at(c, p, B->ubytes, B->udev);
  else gcuba_plan_userdata(c, p, B->ubytes);
}

/* the counts of integral b from its call */
static void counts(const batch *B, int b, const gcuba_call *c)
{
  if (B->nregions)
    B->nregions[b] = c->nregions > INT_MAX ? INT_MAX : (int)c->nregions;
  B->neval[b] = c->neval;
  B->fail[b] = c->fail;
}

static void one(const batch *B, int b, int bk, int threads)
{
  gcuba_call c;
  char name[48];
  member(B, b, bk, threads, &c, name);
  if (B->r == GCUBA_ROUTINE_CUHRE) gcuba_plan_member_cuhre(&c);
  else gcuba_plan_member_vegas(&c);
  counts(B, b, &c);
}

#ifdef HAVE_CUDA
/* gVegasBatch's pipeline: every integral's call, then the pipeline (or,
   without one, single GPU calls) */
typedef struct {
  const batch *B;
  gcuba_call *calls;
  char *names;
} calls_t;

/* integral b's call for the pipeline (a pool item) */
static int call_item(void *ctx, long long i, int tid)
{
  const calls_t *M = (const calls_t *)ctx;
  gcuba_call *c = &M->calls[i];
  (void)tid;
  member(M->B, (int)i, GCUBA_BK_GPU, 1, c, M->names + 48 * i);
  /* verbosity 2 says where the pipeline's time goes (and the integrals'
     verbosity-1 messages); their iterations only at 3 */
  if (c->verbose == 2) c->verbose = 1;
  c->report_at = 3;
  return 0;
}

static void vegas_pipeline(const batch *B, gcuba_call *c)
{
  const int n = B->n;
  calls_t M;
  gcuba_call *calls = (gcuba_call *)malloc(sizeof *calls * (size_t)n);
  char *names = (char *)malloc((size_t)48 * n);
  int b, rc;
  if (!calls || !names) {
    rc = gcuba_fail(c, GCUBA_FAIL_NOMEM, "the batch's calls");
    for (b = 0; b < n; ++b) {
      B->fail[b] = rc;
      B->neval[b] = 0;
    }
  } else {
    const double t = gcuba_now_ms();
    M.B = B;
    M.calls = calls;
    M.names = names;
    gcuba_pool_for(c->threads, n, 256, call_item, &M);
    gcuba_log(c, 2, "pipeline: the integrals' calls set up in %.1f ms",
              gcuba_now_ms() - t);
    rc = gcuba_vegas_batch_gpu(c, calls, n, B->stride);
    for (b = 0; b < n; ++b)
      if (rc == 1) one(B, b, GCUBA_BK_GPU, c->threads);
      else if (rc) {
        B->fail[b] = rc;
        B->neval[b] = 0;
      } else
        counts(B, b, &calls[b]);
  }
  free(calls);
  free(names);
}
#endif

#ifdef HAVE_CUDA
/* the fail code of integral b of the pipeline, said as its single call
   says it (w: the region limit and a bisection's evaluations, the same
   for all) */
static int pipeline_outcome(const gcuba_call *proto, int b, long long nev,
                            const gcuba_cuhre_bout *o, gcuba_cuhre_why w)
{
  gcuba_call c;
  char name[48];
  if (o->code == GCUBA_CUHRE_CONVERGED) return 0;
  c = *proto;
  snprintf(name, sizeof name, "%s[%d]", proto->routine, b);
  c.routine = name;
  c.fail = 0;
  c.neval = nev;
  if (o->code == GCUBA_CUHRE_ABORT)
    return gcuba_fail(&c, GCUBA_FAIL_ABORT, "in the pipeline");
  if (o->code == GCUBA_CUHRE_NAN)
    return gcuba_fail(&c, GCUBA_FAIL_NAN, "in the pipeline (the estimate "
                      "so far is returned)");
  w.finerr = o->finerr;
  w.budget = o->budget;
  w.worst = o->worst;
  w.stall_r = o->stall_r;
  w.stall_neval = o->stall_neval;
  w.units = o->units;
  w.below = o->below;
  gcuba_cuhre_outcome(&c, o->code, &w);
  return c.fail;
}
#endif

#ifdef HAVE_CUDA
/* a pipeline, or the CPU threads when the integrals' parameter blocks are
   host memory of unknown size (userstride 0, no gcuba_userdata_size)
   that this GPU cannot read in place, as for a single call */
static int pipeline(gcuba_call *c, size_t stride, int at)
{
  return gcuba_plan_ud_on_cpu(c, stride ? stride : gcuba_plan_userdata_size(),
                              "the integrals run", ", or a userstride")
             ? ON_CPU
             : at;
}
#endif

/* where the batch runs: ON_CPU, ON_GPU, PIPELINE, VPIPELINE; or a
   negative fail code (logged) */
static int where(gcuba_call *c, int r, size_t stride)
{
  int bk;
#ifdef HAVE_CUDA
  if (r == GCUBA_ROUTINE_CUHRE && c->ndim >= 2 &&
      c->ncomp <= GCUBA_CUHRE_GPU_MAXCOMP) {
    bk = gcuba_plan_backend(c, 0);
    return bk < 0 ? bk : bk == GCUBA_BK_GPU ? pipeline(c, stride, PIPELINE)
                                            : ON_CPU;
  }
  /* gVegas where a single call would run on the GPU: the pipeline, but
     for adaptive stratification, shared grid slots, more components or
     dimensions than its kernel holds (cuda/vegas_batch.cu) */
  if (r == GCUBA_ROUTINE_VEGAS && c->ncomp <= 8 && c->ndim <= 64 &&
      c->gridno == 0 && !(gcuba_vegas_beta(c) > 0)) {
    bk = gcuba_plan_backend(c, 0);
    return bk < 0 ? bk : bk == GCUBA_BK_GPU ? pipeline(c, stride, VPIPELINE)
                                            : ON_CPU;
  }
#endif
  (void)stride;
  /* otherwise the GPU only when asked for: one integral per thread of
     the CPU uses the machine better than single GPU calls */
  if (c->set.device == GCUBA_WANT_GPU) {
    bk = gcuba_plan_backend(c, 0);
    return bk < 0 ? bk : bk == GCUBA_BK_GPU ? ON_GPU : ON_CPU;
  }
  (void)r;
  gcuba_log(c, 1, "backend cpu (%d thread%s, one integral each)",
            c->threads, c->threads > 1 ? "s" : "");
  return ON_CPU;
}

void gcuba_plan_batch(int r, gcuba_call *proto, int n, size_t stride,
                      int *nregions, long long *neval, int *fail)
{
  gcuba_call *c = proto;
  batch B;
  int b, at = ON_CPU;
  B.r = r;
  B.n = n;
  B.proto = proto;
  B.stride = stride;
  B.ubytes = stride ? stride : gcuba_plan_userdata_size();
  B.udev = -2;
  B.nregions = nregions;
  B.neval = neval;
  B.fail = fail;
  c->fail = 0;
  c->verbose = c->flags & 3;
  c->statefile = NULL;
  c->coll = NULL;
  if (n < 0) {
    gcuba_plan_settings(c);
    gcuba_fail(c, GCUBA_FAIL_PARAM, "nintegrals = %d (>= 0)", n);
    if (fail) fail[0] = c->fail;
    return;
  }
  if (n == 0) return;
  if (!fail || !neval || (r == GCUBA_ROUTINE_CUHRE && !nregions)) {
    gcuba_plan_settings(c);
    gcuba_fail(c, GCUBA_FAIL_NULL, "nregions, neval or fail is NULL");
    if (fail)
      for (b = 0; b < n; ++b) fail[b] = c->fail;
    return;
  }
  if (gcuba_plan_settings(c) ||
      (c->threads = gcuba_plan_threads(c), gcuba_plan_check(c, r)) ||
      (at = where(c, r, stride)) < 0) {
    for (b = 0; b < n; ++b) {
      fail[b] = c->fail;
      neval[b] = 0;
      if (nregions) nregions[b] = 0;
    }
    return;
  }
  gcuba_log(c, 1, "%d integrals on %s", n,
            at == PIPELINE || at == VPIPELINE ? "the GPU, in one pipeline"
            : at == ON_GPU ? "the GPU, one after another"
                           : "CPU threads");
  gcuba_plan_hooks_begin();
#ifdef HAVE_CUDA
  if (at == PIPELINE) {
    gcuba_cuhre_bout *out =
        (gcuba_cuhre_bout *)calloc((size_t)n, sizeof *out);
    int rc;
    c->backend = GCUBA_BK_GPU;
    /* every block, as the pipeline copies them */
    gcuba_plan_userdata(c, c->ud.p, stride ? (size_t)n * stride
                                           : gcuba_plan_userdata_size());
    gcuba_cuhre_why w;
    gcuba_rule r;
    /* the CPU backend's region limit: its decisions, memory included */
    memset(&w, 0, sizeof w);
    w.maxregions = gcuba_cuhre_max_regions(c, 0, 0);
    if (!gcuba_rule_init(&r, c->ndim, c->key))
      w.bisection = 2 * gcuba_rule_nevals(&r);
    rc = out ? gcuba_cuhre_batch_gpu(c, n, stride, w.maxregions, neval,
                                     nregions, out)
             : 1;
    c->fail = 0;
    if (rc < 0)
      for (b = 0; b < n; ++b) {
        fail[b] = rc;
        neval[b] = 0;
        nregions[b] = 0;
      }
    else
      for (b = 0; b < n; ++b)
        if (rc != 0 || out[b].code == GCUBA_CUHRE_DEFER)
          one(&B, b, GCUBA_BK_GPU, c->threads);
        else
          fail[b] = pipeline_outcome(c, b, neval[b], &out[b], w);
    free(out);
  } else if (at == VPIPELINE) {
    c->backend = GCUBA_BK_GPU;
    /* every block, as the pipeline copies them */
    gcuba_plan_userdata(c, c->ud.p, stride ? (size_t)n * stride
                                           : gcuba_plan_userdata_size());
    /* (the members' blocks lie in it: the runtime asked once) */
    B.udev = c->ud.dev;
    vegas_pipeline(&B, c);
  } else
#endif
  if (at == ON_GPU) {
    for (b = 0; b < n; ++b) one(&B, b, GCUBA_BK_GPU, c->threads);
  } else if (c->threads < 2 || n < 2 ||
             (r == GCUBA_ROUTINE_VEGAS && c->gridno != 0)) {
    for (b = 0; b < n; ++b) one(&B, b, GCUBA_BK_CPU, 1);
  } else {
    gcuba_pool_for(c->threads, n, 1, member_item, &B);
  }
  gcuba_plan_used(at != ON_CPU ? GCUBA_BK_GPU : GCUBA_BK_CPU, 1);
  gcuba_plan_hooks_end();
}
