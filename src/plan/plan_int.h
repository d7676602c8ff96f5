/* src/plan/plan_int.h -- what the files of the plan share (plan.c,
   batch.c, check.c).  This file is part of gcuba. */
#ifndef GCUBA_PLAN_INT_H
#define GCUBA_PLAN_INT_H
#include "plan/plan.h"
#include "gcuba/detail/gpu_ops.h"

#ifdef __cplusplus
extern "C" {
#endif

/* GCUBA_DEVICES=auto: a call's growth, with the GPUs it may grow to */
typedef struct gcuba_plan_growth {
  gcuba_grow g;
  int dev[GCUBA_MAXDEVICES];
} gcuba_plan_growth;

/* c->set and c->verbose from the environment: 0 or GCUBA_FAIL_ENV */
int gcuba_plan_settings(gcuba_call *c);
/* the arguments of routine r: 0 or a fail code (logged) */
int gcuba_plan_check(gcuba_call *c, int r);
/* a collective call: every process passed the same arguments (nullout:
   an output pointer outside c is NULL); 0 or a fail code everywhere */
int gcuba_plan_agree_args(gcuba_call *c, int nullout);
/* the outputs integral, error, prob zeroed */
void gcuba_plan_zero(gcuba_call *c);
/* CPU threads of a call's CPU backend (gcubacores, GCUBACORES, OpenMP) */
int gcuba_plan_threads(const gcuba_call *c);
/* GCUBA_BK_*, or a negative fail code (every call has a GPU executor);
   cpu_only: the automatic choice is the CPU */
int gcuba_plan_backend(gcuba_call *c, int cpu_only);
/* c->ud for userdata p of bytes bytes (0 unknown), on c->backend */
void gcuba_plan_userdata(gcuba_call *c, void *p, size_t bytes);
/* the same where the CUDA runtime's answer for p is known: dev (a
   batch's members, whose blocks lie in one allocation) */
void gcuba_plan_userdata_at(gcuba_call *c, void *p, size_t bytes, int dev);
/* this thread's gcuba_userdata_size */
size_t gcuba_plan_userdata_size(void);
/* 1 (said at verbosity 1) when userdata, host memory of no size known to
   the call (known: its size or stride, 0), cannot be read in place by
   this GPU and nothing keeps the call there: it then runs on CPU threads,
   a single call or a batch alike (GCUBA_DEVICE=gpu keeps the GPU, which
   refuses such userdata with fail -6; a collective call stays where
   every process agreed).  what: "the call runs" or the like; how: what
   else would let it run on the GPU ("" or ", or a userstride") */
int gcuba_plan_ud_on_cpu(gcuba_call *c, size_t known, const char *what,
                         const char *how);
/* GCUBA_DEVICES: the GPUs of a team into dev, their number (>= 2), 1
   for one GPU, -1 on a bad setting (c->fail set) */
int gcuba_plan_team(gcuba_call *c, int *dev);
/* GCUBA_DEVICES=auto: c->grow = &g->g when the call may grow (returns
   the GPUs, >= 2), else 0 */
int gcuba_plan_grow(gcuba_call *c, gcuba_plan_growth *g,
                    int (*run)(gcuba_call *, const void *, size_t,
                               const void *));
/* GCUBA_DEVICES=auto: how long (ms) a call runs on one GPU before it
   may grow to the n GPUs dev: GCUBA_DEVICES_AFTER when set; else
   GCUBA_DEVICES_AFTER_MS when each of them has run a team member of this
   process (or is the current GPU), GCUBA_DEVICES_COLD_MS when one would
   start its CUDA context first (about a tenth of a second) */
#define GCUBA_DEVICES_AFTER_MS 20
#define GCUBA_DEVICES_COLD_MS 500
double gcuba_plan_grow_after(const gcuba_settings *s, const int *dev, int n);
/* gcubainit/gcubaexit around a call, and the count of running calls */
void gcuba_plan_hooks_begin(void);
void gcuba_plan_hooks_end(void);
/* the backend and GPUs of this thread's last call */
void gcuba_plan_used(int bk, int ndev);

#ifdef __cplusplus
}
#endif
#endif
