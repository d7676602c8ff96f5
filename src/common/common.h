/* src/common/common.h -- what every part of libgcuba shares: the
   argument block of one call, logging, environment, backend choice.
   This file is part of gcuba. */
#ifndef GCUBA_COMMON_H
#define GCUBA_COMMON_H

#ifdef HAVE_CONFIG_H
#include "config.h"
#endif
#include <stddef.h>
#include "gcuba.h"

#ifdef __cplusplus
extern "C" {
#endif

/* One call's arguments and outputs, 64-bit counts (ll entry points; the
   int ones convert).  Shared by Cuhre and Vegas. */
typedef struct gcuba_call {
  const char *routine;          /* "gCuhre", ... for messages */
  int ndim, ncomp;
  gintegrand_t integrand;
  void *userdata;
  long long nvec;
  double epsrel, epsabs;
  int flags;                    /* as passed */
  int verbose;                  /* effective verbosity 0..3 */
  int seed;                     /* Vegas */
  long long mineval, maxeval;
  int key;                      /* Cuhre */
  long long nstart, nincrease, nbatch; /* Vegas */
  int gridno;                   /* Vegas */
  const char *statefile;        /* NULL when none */
  void *spin;
  /* the processes this call runs on with every other (common/coll.h);
     NULL: this process alone */
  const struct gcuba_collective *coll;
  /* a driver state to resume from instead of the state file (a call
     that grows to several GPUs: common/coll.h), and its size */
  const void *resume;
  size_t resume_n;
  const void *resume_set;       /* and its regions, in a GPU's memory (a
                                   gcuba_region_set: cuhre/backend.h) */
  struct gcuba_cutmap *cutmap;  /* gCuhre: its features (gcuba/cut.h),
                                   NULL when its backend does not cut */
  int grow;                     /* a single call of the API: may grow to
                                   several GPUs (GCUBA_DEVICES=auto) */
  double coll_ms;               /* time in the collective's operations */
  long long coll_ops;           /* (waiting for the others, exchanging) */
  /* outputs */
  long long nregions;
  long long neval;
  int fail;
  double *integral, *error, *prob;
} gcuba_call;

/* Backend kinds */
enum { GCUBA_BK_CPU = 0, GCUBA_BK_GPU = 1 };

/* logging: to stderr when level <= c->verbose */
void gcuba_log(const gcuba_call *c, int level, const char *fmt, ...)
#ifdef __GNUC__
    __attribute__((format(printf, 3, 4)))
#endif
    ;
/* sets c->fail = fail and says why at verbosity >= 1; returns fail */
int gcuba_fail(gcuba_call *c, int fail, const char *fmt, ...)
#ifdef __GNUC__
    __attribute__((format(printf, 3, 4)))
#endif
    ;

/* argument checks shared by the routines; 0 or a fail code (logged) */
int gcuba_check_common(gcuba_call *c, int mindim, int maxdim);
/* a collective call (c->coll): every process passed the same arguments
   (nullout: an output pointer outside c is NULL); 0 or a fail code on
   every process */
int gcuba_coll_args(gcuba_call *c, int nullout);

/* environment and settings (src/common/env.c) */
int gcuba_env_verbose(int flags);     /* max(flags & 3, GCUBAVERBOSE) */
/* every GCUBA* environment variable parses: 0, or GCUBA_FAIL_ENV (logged) */
int gcuba_env_check(gcuba_call *c);
/* a byte count with an optional K, M, G or T suffix: 0, or -1 */
int gcuba_env_bytes(const char *s, double *bytes);
int gcuba_threads(void);              /* CPU threads to use, >= 1 */
/* GCUBA_VEGAS_BETA: 0 when unset, -1 when it does not parse */
double gcuba_env_vegas_beta(void);
/* on: this thread runs one integral of a CPU batch (src/api/batch.c):
   gcuba_threads() is 1 and the automatic backend choice is the CPU */
void gcuba_batch_inner(int on);
/* backend for this call: GCUBA_BK_CPU/GPU, or a negative fail code;
   gpu_impl: whether the routine has a GPU backend in this build */
int gcuba_choose_backend(gcuba_call *c, int gpu_impl);
void gcuba_set_last_backend(int bk); /* and one device for the GPU */
void gcuba_set_last_devices(int n);  /* a call that used n GPUs */
size_t gcuba_userdata_bytes(void);    /* gcuba_userdata_size's value */
void gcuba_run_init(void);            /* gcubainit's hook; counts the call */
void gcuba_run_exit(void);            /* gcubaexit's hook */
int gcuba_calls_running(void);        /* routine calls running in the process */
double gcuba_now_ms(void);            /* a monotonic clock, milliseconds */

/* the most GPUs one call uses (GCUBA_DEVICES) */
#define GCUBA_MAXDEVICES 64
/* GCUBA_DEVICES=s into dev[0..max) with ndev GPUs visible: their number;
   -1 when s does not parse, -2 when it asks for GPUs that are not there */
int gcuba_env_devices(const char *s, int ndev, int *dev, int max);
/* GCUBA_DEVICES=auto or auto:SPEC: 1 with *spec = SPEC ("all" for plain
   auto); else 0 with *spec = s */
int gcuba_env_devices_auto(const char *s, const char **spec);
/* GCUBA_DEVICES=auto: how long (ms) a call runs on one GPU before it may
   grow to several, by default: GCUBA_DEVICES_AFTER_MS when the process
   has used those GPUs before, GCUBA_DEVICES_COLD_MS when one of them
   would start its CUDA context (gcuba_team_grow_after) */
#define GCUBA_DEVICES_AFTER_MS 20
#define GCUBA_DEVICES_COLD_MS 500
/* GCUBA_DEVICES_AFTER, or -1 when it is not set */
double gcuba_env_devices_after(void);
/* GCUBA_CUTS: 0 when set to 0 (gCuhre bisects, gcuba/cut.h), else 1 */
int gcuba_env_cuts(void);

/* CUDA side (cuda/device.cu, or cuda/stub.c without CUDA) */
int gcuba_cuda_device_count(void);
const char *gcuba_cuda_device_name(int dev, char *buf, size_t n);
void gcuba_cuda_release(void);
/* a collective call on the GPU backend with several processes on a node
   and several GPUs: process k of the node makes GPU k mod (GPUs) its
   current device; 0 or a fail code */
int gcuba_cuda_select(gcuba_call *c);
/* the calling thread's current device (-1: none), and setting it back */
int gcuba_cuda_current(void);
void gcuba_cuda_restore(int dev);
/* bytes from src on GPU sdev to dst on GPU ddev, on stream (a
   cudaStream_t of ddev); 0 or nonzero on an error */
int gcuba_cuda_copy_peer(void *dst, int ddev, const void *src, int sdev,
                         size_t bytes, void *stream);
/* the work queued on stream done: 0 or nonzero on an error */
int gcuba_cuda_wait(void *stream);
/* the GPU whose memory p is (-1: host, managed or not known) */
int gcuba_cuda_pointer_device(const void *p);

#ifdef __cplusplus
}
#endif
#endif
