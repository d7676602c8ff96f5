/* src/common/common.h -- what every part of libgcuba shares: the block
   of one call (its arguments, what the plan decided for it, its
   outputs), logging and the clock.  The ground floor: it calls nothing
   above it.  This file is part of gcuba. */
#ifndef GCUBA_COMMON_H
#define GCUBA_COMMON_H

#ifdef HAVE_CONFIG_H
#include "config.h"
#endif
#include <stddef.h>
/* (the library defines the routines: no plain-integrand macros) */
#ifndef GCUBA_NO_PLAIN_INTEGRANDS
#define GCUBA_NO_PLAIN_INTEGRANDS
#endif
#include "gcuba.h"
#include "common/settings.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Where userdata lives, resolved once per call by the plan (src/plan/):
   the integrand gets p on the host; the GPU backends hand the kernels p
   itself when it is device or managed memory, else a device copy of
   bytes bytes (gcuba_userdata_size(), or a batch's stride). */
typedef struct gcuba_userdata {
  void *p;
  size_t bytes; /* 0: not known */
  int dev;      /* the GPU whose memory p is; -1: host, managed, unknown */
  void *priv;   /* CPU threads 1 .. npriv: a private copy each (bytes
                   apart), thread 0 p itself; NULL: p for every thread */
  int npriv;
} gcuba_userdata;

/* userdata blocks of at most this many bytes are copied for each CPU
   thread (src/plan/plan.c) */
#define GCUBA_UD_PRIVATE_MAX (1 << 20)

/* the userdata CPU thread tid passes to the integrand */
static inline void *gcuba_ud_thread(const gcuba_userdata *u, int tid)
{
  return u->priv && tid > 0 && tid <= u->npriv
             ? (char *)u->priv + (size_t)(tid - 1) * u->bytes
             : u->p;
}

/* The backends a plan chooses from */
enum { GCUBA_BK_CPU = 0, GCUBA_BK_GPU = 1 };

struct gcuba_call;
/* GCUBA_DEVICES=auto: a call on one GPU that may go on on several,
   decided by the plan.  The driver stops after an iteration once the call
   has run `after' ms and its evaluations would be shared, and calls
   run(c, its state, the state's bytes, its regions in GPU memory or
   NULL): 0 when the GPUs finished the call, 1 when they could not (c's
   fail and neval as before: the driver goes on alone). */
typedef struct gcuba_grow {
  int n;                           /* GPUs, >= 2 */
  double after;                    /* ms on one GPU first */
  int (*run)(struct gcuba_call *c, const void *state, size_t bytes,
             const void *set);
} gcuba_grow;

/* One call's arguments and outputs, 64-bit counts (ll entry points; the
   int ones convert). */
typedef struct gcuba_call {
  const char *routine;          /* "gCuhre", ... for messages */
  int ndim, ncomp;
  gintegrand_t integrand;
  gcuba_userdata ud;
  long long nvec;
  double epsrel, epsabs;
  int flags;                    /* as passed */
  int verbose;                  /* effective verbosity 0..3 */
  int report_at;                /* gVegas reports each iteration from this
                                   verbosity on (0: 1; the integrals of
                                   gVegasBatch's pipeline: 3) */
  long long mineval, maxeval;
  const char *statefile;        /* NULL when none */
  void *spin;
  int key;                      /* Cuhre */
  int seed;                     /* Vegas */
  long long nstart, nincrease, nbatch; /* Vegas */
  int gridno;                   /* Vegas */
  long long nnew, nmin;         /* Suave */
  double flatness;              /* Suave */
  int key1, key2, key3, maxpass; /* Divonne */
  double border, maxchisq, mindeviation; /* Divonne */
  long long ngiven, nextra;     /* Divonne */
  int ldxgiven;                 /* Divonne */
  const double *xgiven;         /* Divonne: [ngiven][ldxgiven] */
  gcuba_peakfinder_t peakfinder; /* Divonne */
  /* ---- decided once by the plan (src/plan/) */
  gcuba_settings set;           /* the GCUBA* settings of this call */
  int backend;                  /* GCUBA_BK_* */
  int threads;                  /* CPU threads of the CPU backend, >= 1 */
  /* the processes (or a team's GPUs) this call runs on with every other
     (common/coll.h); NULL: this process alone */
  const struct gcuba_collective *coll;
  const gcuba_grow *grow;       /* NULL: the call stays where it is */
  /* a driver state to resume from instead of the state file (a call
     that grows to several GPUs), and its size */
  const void *resume;
  size_t resume_n;
  const void *resume_set;       /* and its regions, in a GPU's memory (a
                                   gcuba_region_set: cuhre/backend.h) */
  /* ---- the plan's and the driver's, read by the backend */
  const struct gcuba_points_ops *points; /* gCuhre on the CPU backend:
                                   the integrand's points evaluated by
                                   this (the GPU's, for more components
                                   than its rule kernels hold), or NULL:
                                   the integrand on the CPU threads */
  struct gcuba_cutmap *cutmap;  /* gCuhre: its features (gcuba/detail/cut.h),
                                   NULL when its backend does not cut */
  double coll_ms;               /* time in the collective's operations */
  long long coll_ops;           /* (waiting for the others, exchanging) */
  /* ---- outputs */
  long long nregions;
  long long neval;
  int fail;
  double *integral, *error, *prob;
} gcuba_call;

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

/* the message of a fail code (gcuba_strerror's) */
const char *gcuba_fail_message(int fail);

double gcuba_now_ms(void);        /* a monotonic clock, milliseconds */
/* routine calls running in this process (counted by the plan) */
int gcuba_calls_running(void);
void gcuba_calls_add(int k);

#ifdef __cplusplus
}
#endif
#endif
