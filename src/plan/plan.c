/* src/plan/plan.c -- the call pipeline (plan.h): settings, argument
   checks, userdata, the backend and its executor -- CPU threads, one
   GPU, a team of GPUs (src/team/), an MPI collective (src/mpi/) --
   decided once per call, then the driver runs over the chosen ops table.
   Batches are planned in batch.c beside this file.  This file is part of
   gcuba. */
#include <stdlib.h>
#include <string.h>
#include "plan/plan.h"
#include "plan/plan_int.h"
#include "common/coll.h"
#include "cuda/device.h"
#include "team/team.h"
#include "cuhre/cuhre.h"
#include "vegas/vegas.h"
#include "romberg/romberg.h"
#include "plan/tables.h"
#ifdef _OPENMP
#include <omp.h>
#endif

#if defined(__GNUC__)
#define GCUBA_TLS __thread
#else
#define GCUBA_TLS
#endif

/* ---- what a program sets by calling gcuba (src/api/process.c) */
static int cores_set = -1;   /* gcubacores, -1 = not called */
static int accel_set = -1;   /* gcubaaccel, -1 = not called */
/* hooks, called as Cuba does: f(arg, &core) with the master's core */
typedef void (*hook_fn)(void *arg, const int *core);
#define MASTER_CORE 32768
static hook_fn hook[2];
static void *hook_arg[2];
static GCUBA_TLS int last_backend = GCUBA_BK_CPU;
static GCUBA_TLS int last_devices;
static GCUBA_TLS size_t userdata_bytes;

void gcuba_plan_set_cores(int n) { cores_set = n < 0 ? -1 : n; }
void gcuba_plan_set_accel(int n) { accel_set = n < 0 ? -1 : n; }
void gcuba_plan_set_hooks(int which, void (*f)(), void *arg)
{
  hook[which != 0] = (hook_fn)f;
  hook_arg[which != 0] = arg;
}
void gcuba_plan_set_userdata_size(size_t bytes) { userdata_bytes = bytes; }
const char *gcuba_plan_last_backend(void)
{
  return last_backend == GCUBA_BK_GPU ? "gpu" : "cpu";
}
int gcuba_plan_last_devices(void) { return last_devices; }
size_t gcuba_plan_userdata_size(void) { return userdata_bytes; }

void gcuba_plan_used(int bk, int ndev)
{
  last_backend = bk;
  last_devices = bk == GCUBA_BK_GPU ? (ndev > 0 ? ndev : 1) : 0;
}

void gcuba_plan_hooks_begin(void)
{
  const int core = MASTER_CORE;
  gcuba_calls_add(1);
  if (hook[0]) hook[0](hook_arg[0], &core);
}

void gcuba_plan_hooks_end(void)
{
  const int core = MASTER_CORE;
  if (hook[1]) hook[1](hook_arg[1], &core);
  gcuba_calls_add(-1);
}

/* ---- the pieces of a plan */

int gcuba_plan_settings(gcuba_call *c)
{
  char why[200];
  const int rc = gcuba_settings_get(&c->set, why, sizeof why);
  c->verbose = c->flags & 3;
  if (c->set.verbose > c->verbose) c->verbose = c->set.verbose;
  return rc ? gcuba_fail(c, rc, "%s", why) : 0;
}

int gcuba_plan_threads(const gcuba_call *c)
{
  int n;
  if (cores_set >= 0) return cores_set > 0 ? cores_set : 1;
  if (c->set.cores >= 0) return c->set.cores > 0 ? c->set.cores : 1;
#ifdef _OPENMP
  n = omp_get_max_threads();
  return n > 0 ? n : 1;
#else
  (void)n;
  return 1;
#endif
}

int gcuba_plan_backend(gcuba_call *c, int cpu_only)
{
  int want = c->set.device; /* GCUBA_WANT_* */
  const int has_gpu_code = c->integrand->gpu != NULL;
  char name[128];
  if (want == GCUBA_WANT_AUTO && (accel_set == 0 || cpu_only))
    want = GCUBA_WANT_CPU;
#ifndef HAVE_CUDA
  if (want == GCUBA_WANT_GPU)
    return gcuba_fail(c, GCUBA_FAIL_NODEVICE,
                      "GCUBA_DEVICE=gpu: this gcuba was built without CUDA");
#endif
  if (want != GCUBA_WANT_CPU) {
    const int ndev = has_gpu_code ? gcuba_cuda_device_count() : 0;
    if (ndev > 0) {
      /* (the name costs a cudaGetDeviceProperties: only when said) */
      if (c->verbose >= 1) {
        const int dev = gcuba_cuda_current();
        gcuba_log(c, 1, "backend gpu (device %d: %s)", dev < 0 ? 0 : dev,
                  gcuba_cuda_device_name(dev < 0 ? 0 : dev, name,
                                         sizeof name));
      }
      return GCUBA_BK_GPU;
    }
    if (want == GCUBA_WANT_GPU)
      return gcuba_fail(c, GCUBA_FAIL_NODEVICE, "%s",
                        !has_gpu_code
                            ? "the integrand was not compiled by nvcc"
                            : "no usable CUDA device");
  }
  gcuba_log(c, 1, "backend cpu (%d thread%s)", c->threads,
            c->threads > 1 ? "s" : "");
#ifdef HAVE_CUDA
  if (c->verbose >= 1 && !has_gpu_code && want == GCUBA_WANT_AUTO &&
      gcuba_cuda_device_count() > 0)
    gcuba_log(c, 1, "the integrand is a host function: define it with "
              "GCUBA_INTEGRAND and compile it with nvcc to run on the GPU");
#endif
  return GCUBA_BK_CPU;
}

int gcuba_plan_ud_on_cpu(gcuba_call *c, size_t known, const char *what,
                         const char *how)
{
  if (!c->ud.p || known || c->set.device == GCUBA_WANT_GPU || c->coll ||
      gcuba_cuda_reads_in_place(c->ud.p))
    return 0;
  gcuba_log(c, 1, "userdata is host memory of unknown size, which this GPU "
            "cannot read in place: %s on CPU threads "
            "(gcuba_userdata_size(sizeof *userdata)%s before the call lets "
            "it run on the GPU)", what, how);
  return 1;
}

void gcuba_plan_userdata(gcuba_call *c, void *p, size_t bytes)
{
  /* where it lives matters to GPUs only (which may read it, and whether
     it needs a copy): asked of the CUDA runtime on the GPU backend */
  gcuba_plan_userdata_at(c, p, bytes,
                         c->backend == GCUBA_BK_GPU && p
                             ? gcuba_cuda_pointer_device(p)
                             : -1);
}

void gcuba_plan_userdata_at(gcuba_call *c, void *p, size_t bytes, int dev)
{
  c->ud.p = p;
  c->ud.bytes = bytes;
  c->ud.priv = NULL;
  c->ud.npriv = 0;
  c->ud.dev = c->backend == GCUBA_BK_GPU && p ? dev : -1;
}

/* ---- the GPUs of a call: a team (GCUBA_DEVICES), or growth (auto) */

/* the GPUs a SPEC of GCUBA_DEVICES names, with ndev visible, into dev:
   their number, or -1 when it names GPUs that are not there */
static int spec_devices(const gcuba_settings *s, int ndev, int *dev)
{
  int n = 0, i;
  switch (s->devs_form) {
  case GCUBA_DEVS_ALL:
    for (; n < ndev && n < GCUBA_MAXDEVICES; ++n) dev[n] = n;
    return n > 0 ? n : -1;
  case GCUBA_DEVS_COUNT:
    if (s->devs_n > ndev) return -1;
    for (; n < s->devs_n; ++n) dev[n] = n;
    return n;
  default:
    for (i = 0; i < s->devs_n; ++i) {
      if (s->devs[i] >= ndev) return -1;
      dev[n++] = s->devs[i];
    }
    return n;
  }
}

/* userdata in one GPU's memory keeps a call on that GPU: 1 when it does
   (said at verbosity `level'), 0 when every GPU of dev may read it */
static int userdata_pins(gcuba_call *c, const int *dev, int n, int level)
{
  int i;
  if (c->ud.dev < 0) return 0;
  for (i = 0; i < n; ++i)
    if (dev[i] != c->ud.dev) {
      gcuba_log(c, level, "userdata is memory of GPU %d: the call runs on "
                "that GPU alone (give host memory with "
                "gcuba_userdata_size(), or managed memory, to use %d GPUs)",
                c->ud.dev, n);
      return 1;
    }
  return 0;
}

int gcuba_plan_team(gcuba_call *c, int *dev)
{
  const gcuba_settings *s = &c->set;
  int n, ndev, ncpu;
  if (c->coll || !s->devs_set || (s->devs_auto && s->devs_form ==
                                                      GCUBA_DEVS_ALL))
    return 1;
  ndev = gcuba_cuda_device_count();
  n = spec_devices(s, ndev, dev);
  if (n < 0) {
    gcuba_fail(c, GCUBA_FAIL_ENV, "GCUBA_DEVICES=\"%s\": %d GPU%s visible "
               "(at most %d per call)", s->devs_text, ndev,
               ndev == 1 ? " is" : "s are", GCUBA_MAXDEVICES);
    return -1;
  }
  /* auto:SPEC starts on one GPU (SPEC names where it may grow) */
  if (s->devs_auto || n < 2 || userdata_pins(c, dev, n, 1)) return 1;
  gcuba_log(c, 1, "%d GPUs (GCUBA_DEVICES=%s)", n, s->devs_text);
  ncpu = gcuba_team_cpus();
  if (ncpu > 0 && ncpu < n)
    gcuba_log(c, 1, "%d GPUs, but this thread may run on %d CPU core(s) "
              "(its affinity, e.g. mpirun's binding): their threads wait "
              "for each other (mpirun --bind-to none)", n, ncpu);
  return n;
}

double gcuba_plan_grow_after(const gcuba_settings *s, const int *dev, int n)
{
  const int cur = gcuba_cuda_current();
  int i, cold = 0;
  if (s->devs_after >= 0) return s->devs_after;
  /* short when every GPU has run a member of this process before (its
     CUDA context exists), long when one would start its context first */
  for (i = 0; i < n; ++i)
    if (dev[i] != cur && !gcuba_team_used(dev[i])) cold = 1;
  return cold ? GCUBA_DEVICES_COLD_MS : GCUBA_DEVICES_AFTER_MS;
}

int gcuba_plan_grow(gcuba_call *c, gcuba_plan_growth *g,
                    int (*run)(gcuba_call *, const void *, size_t,
                               const void *))
{
  const gcuba_settings *s = &c->set;
  int ndev, n, i, cur, ncpu;
  if (c->coll || gcuba_calls_running() > 1) return 0;
  if (s->node_processes > 1) {
    gcuba_log(c, 2, "several processes on this node: the call stays on "
              "its GPU");
    return 0;
  }
  if (s->devs_set && !s->devs_auto) return 0;
  ndev = gcuba_cuda_device_count();
  n = spec_devices(s, ndev, g->dev);
  if (n < 2) return 0;
  /* plain auto: the current GPU first, the others in order */
  cur = gcuba_cuda_current();
  if (s->devs_form == GCUBA_DEVS_ALL && cur > 0 && cur < n) {
    for (i = cur; i > 0; --i) g->dev[i] = g->dev[i - 1];
    g->dev[0] = cur;
  }
  if (userdata_pins(c, g->dev, n, 2)) return 0;
  /* each member is a thread that waits for its GPU and for the others
     many times an iteration: members sharing a core wait for the
     scheduler instead, and the second GPU gains little or loses */
  ncpu = gcuba_team_cpus();
  if (ncpu == 1) {
    gcuba_log(c, 2, "this thread may run on one CPU core only (its "
              "affinity): the call stays on its GPU");
    return 0;
  }
  if (ncpu > 1 && ncpu < n) {
    gcuba_log(c, 2, "this thread may run on %d CPU cores (its affinity): "
              "the call grows to %d of the %d GPUs", ncpu, ncpu, n);
    n = ncpu;
  }
  g->g.n = n;
  g->g.after = gcuba_plan_grow_after(s, g->dev, n);
  g->g.run = run;
  c->grow = &g->g;
  return n;
}

/* ---- the runs */

/* a member of a collective on the GPU backend selects its GPU; 0 or a
   fail code (on every member) */
static int member_device(gcuba_call *c)
{
  if (c->backend != GCUBA_BK_GPU || !c->coll) return 0;
  return gcuba_coll_status(c, gcuba_cuda_select(c));
}

/* gCuhre's executor; on the GPU with more components than its rule
   kernels hold, the CPU backend with the integrand's points on the GPU.
   Its search for where to cut (gcuba/detail/cut.h) calls the integrand
   on the CPU threads, which cannot read userdata in device memory: no
   search then. */
static const gcuba_cuhre_ops *cuhre_ops(gcuba_call *c)
{
  c->points = NULL;
#ifdef HAVE_CUDA
  if (c->backend == GCUBA_BK_GPU) {
    if (c->ncomp <= GCUBA_CUHRE_GPU_MAXCOMP) return &gcuba_cuhre_cuda;
    c->points = &gcuba_points_cuda;
    if (c->ud.dev >= 0 && c->set.cuts) {
      gcuba_log(c, 1, "userdata is in the memory of GPU %d, which the CPU "
                "threads that search for features cannot read: no search "
                "(as GCUBA_CUTS=0)", c->ud.dev);
      c->set.cuts = 0;
    }
  }
#endif
  return &gcuba_cuhre_cpu;
}

static const gcuba_vegas_ops *vegas_ops(const gcuba_call *c)
{
#ifdef HAVE_CUDA
  if (c->backend == GCUBA_BK_GPU) return &gcuba_vegas_cuda;
#endif
  (void)c;
  return &gcuba_vegas_cpu;
}

void gcuba_plan_member_cuhre(gcuba_call *c)
{
  if (member_device(c)) return;
  /* one dimension: Gauss-Kronrod with extrapolation, its own driver */
  if (c->ndim == 1) gcuba_cuhre1d_drive(c, cuhre_ops(c));
  else gcuba_cuhre_drive(c, cuhre_ops(c));
}

void gcuba_plan_member_vegas(gcuba_call *c)
{
  if (member_device(c)) return;
  gcuba_vegas_drive(c, vegas_ops(c));
}

static int grow_cuhre(gcuba_call *c, const void *state, size_t bytes,
                      const void *set)
{
  const gcuba_plan_growth *g = (const gcuba_plan_growth *)c->grow;
  const int back = gcuba_team_grow(c, gcuba_plan_member_cuhre, g->dev,
                                   g->g.n, state, bytes, set);
  if (!back) gcuba_plan_used(GCUBA_BK_GPU, g->g.n);
  return back;
}

static int grow_vegas(gcuba_call *c, const void *state, size_t bytes,
                      const void *set)
{
  const gcuba_plan_growth *g = (const gcuba_plan_growth *)c->grow;
  const int back = gcuba_team_grow(c, gcuba_plan_member_vegas, g->dev,
                                   g->g.n, state, bytes, set);
  if (!back) gcuba_plan_used(GCUBA_BK_GPU, g->g.n);
  return back;
}

/* the settings every process of a collective call must share, with the
   backend each chose (or its failure to): 0 or a fail code on every
   process (adaptive
   stratification, which collective calls refuse, is not compared) */
static int agree_settings(gcuba_call *c, int bk)
{
  static const char *const what[] = {
      "the backend (GCUBA_DEVICE, GPUs)", "GCUBA_CUHRE_MINBATCH",
      "GCUBA_CUTS", "GCUBA_VEGAS_NBINS", "GCUBA_VEGAS_ADAPT"};
  long long v[5];
  if (!c->coll) return 0;
  v[0] = bk; /* a failure on one process is a disagreement */
  v[1] = c->set.minbatch;
  v[2] = c->set.cuts;
  v[3] = c->set.vegas_nbins;
  v[4] = c->set.vegas_adapt;
  return gcuba_coll_agree(c, v, 5, what);
}

/* settings, checks, userdata, backend of a call of routine r; 0 to run
   it, or a fail code (c->fail set) */
static int begin(gcuba_call *c, int r)
{
  int rc, bk;
  if (gcuba_coll_status(c, gcuba_plan_check(c, r))) return c->fail;
  gcuba_plan_zero(c);
  c->threads = gcuba_plan_threads(c);
  /* every routine runs on the GPU too; gCuhre with more than 8
     components (the integrand there, the rules on the CPU: cuhre_ops)
     only when asked for: its values cross the bus, 8 bytes a component,
     so that a cheap integrand runs faster on the CPU threads (3-D
     Gaussians, 1024 components: 88 ms against 62 ms on 16 threads) */
  bk = gcuba_plan_backend(c, r == GCUBA_ROUTINE_CUHRE &&
                                 c->ncomp > GCUBA_CUHRE_GPU_MAXCOMP);
  c->backend = bk < 0 ? GCUBA_BK_CPU : bk;
  rc = agree_settings(c, bk);
  if (!rc && bk < 0) rc = bk;
  if (rc) return c->fail = rc;
  gcuba_plan_userdata(c, c->ud.p, userdata_bytes);
  if (c->backend == GCUBA_BK_GPU &&
      gcuba_plan_ud_on_cpu(c, c->ud.bytes, "the call runs", "")) {
    c->backend = GCUBA_BK_CPU;
    gcuba_plan_userdata(c, c->ud.p, userdata_bytes);
  }
  gcuba_plan_used(c->backend, 1);
  return 0;
}

static void cuhre(gcuba_call *c)
{
  int dev[GCUBA_MAXDEVICES], n;
  gcuba_plan_growth g;
  /* (more than 8 components: on one GPU) */
  n = c->backend == GCUBA_BK_GPU && c->ncomp <= GCUBA_CUHRE_GPU_MAXCOMP
          ? gcuba_plan_team(c, dev)
          : 1;
  if (n >= 2) {
    gcuba_team_run_on(c, gcuba_plan_member_cuhre, dev, n);
    gcuba_plan_used(GCUBA_BK_GPU, n);
  } else if (n == 1) {
    /* several GPUs later (GCUBA_DEVICES=auto): N-D calls on one GPU */
    if (c->backend == GCUBA_BK_GPU && c->ndim > 1)
      gcuba_plan_grow(c, &g, grow_cuhre);
    gcuba_plan_member_cuhre(c);
    c->grow = NULL;
  }
}

static void vegas(gcuba_call *c)
{
  int dev[GCUBA_MAXDEVICES], n = 1;
  gcuba_plan_growth g;
  /* (every process learns of a refusal on one) */
  if (gcuba_coll_status(c, c->coll && gcuba_vegas_beta(c) > 0
                               ? gcuba_fail(c, GCUBA_FAIL_PARAM,
                                            "adaptive stratification "
                                            "(GCUBA_VEGASPLUS, "
                                            "GCUBA_VEGAS_BETA) is not "
                                            "available to collective calls")
                               : 0))
    return;
  if (c->backend == GCUBA_BK_GPU) {
    /* adaptive stratification stays on one GPU */
    if (gcuba_vegas_beta(c) > 0) {
      if (c->set.devs_set && !(c->set.devs_form == GCUBA_DEVS_COUNT &&
                               c->set.devs_n == 1))
        gcuba_log(c, 1, "adaptive stratification (GCUBA_VEGASPLUS, "
                  "GCUBA_VEGAS_BETA) runs on one GPU");
    } else
      n = gcuba_plan_team(c, dev);
  }
  if (n >= 2) {
    gcuba_team_run_on(c, gcuba_plan_member_vegas, dev, n);
    gcuba_plan_used(GCUBA_BK_GPU, n);
  } else if (n == 1) {
    if (c->backend == GCUBA_BK_GPU && !(gcuba_vegas_beta(c) > 0))
      gcuba_plan_grow(c, &g, grow_vegas);
    gcuba_plan_member_vegas(c);
    c->grow = NULL;
  }
}

static void romberg(gcuba_call *c)
{
  const gcuba_romberg_ops *ops = &gcuba_romberg_cpu;
#ifdef HAVE_CUDA
  if (c->backend == GCUBA_BK_GPU) ops = &gcuba_romberg_cuda;
#endif
  gcuba_romberg_drive(c, ops);
}

/* the executor that evaluates lists of points on c's backend: gSuave's
   and gDivonne's */
static const gcuba_points_ops *points_ops(const gcuba_call *c)
{
#ifdef HAVE_CUDA
  if (c->backend == GCUBA_BK_GPU) return &gcuba_points_cuda;
#else
  (void)c;
#endif
  return &gcuba_suave_cpu;
}

/* Cuba's workers are processes, each with its own copy of userdata; CPU
   threads share memory.  When the block's size is known
   (gcuba_userdata_size) and at most GCUBA_UD_PRIVATE_MAX bytes, threads
   1, 2, ... get a copy each, made at the start of the call (thread 0 passes
   userdata itself), so that an integrand that writes scratch into its
   parameter block gives the bits of one thread.  gDivonne on the GPU
   backend explores regions of its partition on CPU threads too (the
   integrand's host function).  0 or a fail code. */
static int private_userdata(gcuba_call *c, int r)
{
  gcuba_userdata *u = &c->ud;
  int i;
  if ((c->backend != GCUBA_BK_CPU && r != GCUBA_ROUTINE_DIVONNE) ||
      c->threads < 2 || !u->p || !u->bytes)
    return 0;
  if (u->bytes > GCUBA_UD_PRIVATE_MAX) {
    gcuba_log(c, 2, "userdata of %zu bytes is shared by the CPU threads "
              "(private copies up to %d bytes)", u->bytes,
              GCUBA_UD_PRIVATE_MAX);
    return 0;
  }
#ifdef HAVE_CUDA
  /* GPU memory cannot be copied here (nor read by a host integrand) */
  if (c->integrand->gpu && gcuba_cuda_pointer_device(u->p) >= 0) return 0;
#endif
  u->priv = malloc((size_t)(c->threads - 1) * u->bytes);
  if (!u->priv)
    return gcuba_fail(c, GCUBA_FAIL_NOMEM, "private copies of userdata "
                      "(%zu bytes) for %d threads", u->bytes, c->threads - 1);
  for (i = 0; i < c->threads - 1; ++i)
    memcpy((char *)u->priv + (size_t)i * u->bytes, u->p, u->bytes);
  u->npriv = c->threads - 1;
  return 0;
}

void gcuba_plan_call(gcuba_call *c, int r, int nullout)
{
  const double t0 = gcuba_now_ms();
  c->nregions = 0;
  c->neval = 0;
  c->fail = 0;
  c->verbose = c->flags & 3;
  /* a collective call: every process of libgcuba_mpi's group (gCuhre and
     gVegas) */
  c->coll = r == GCUBA_ROUTINE_ROMBERG || r == GCUBA_ROUTINE_SUAVE ||
                    r == GCUBA_ROUTINE_DIVONNE
                ? NULL
                : gcuba_coll_begin();
  if (gcuba_coll_status(c, gcuba_plan_settings(c)) == 0 &&
      (!c->coll || !gcuba_plan_agree_args(c, nullout))) {
    if (nullout)
      gcuba_fail(c, GCUBA_FAIL_NULL, "%s",
                 r == GCUBA_ROUTINE_CUHRE || r == GCUBA_ROUTINE_SUAVE ||
                         r == GCUBA_ROUTINE_DIVONNE
                     ? "nregions, neval or fail is NULL"
                                          : "neval or fail is NULL");
    else if (!begin(c, r) && !private_userdata(c, r)) {
      gcuba_plan_hooks_begin();
      if (r == GCUBA_ROUTINE_CUHRE) cuhre(c);
      else if (r == GCUBA_ROUTINE_VEGAS) vegas(c);
      else if (r == GCUBA_ROUTINE_SUAVE) gcuba_suave_drive(c, points_ops(c));
      else if (r == GCUBA_ROUTINE_DIVONNE)
        gcuba_divonne_drive(c, points_ops(c));
      else romberg(c);
      gcuba_plan_hooks_end();
      free(c->ud.priv);
      c->ud.priv = NULL;
    }
  }
  if (c->coll) gcuba_coll_end(c, t0);
}
