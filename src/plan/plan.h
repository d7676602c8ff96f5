/* src/plan/plan.h -- the one call pipeline between the public entry
   points (src/api/) and the drivers: for every routine and path it
   checks the arguments, reads the settings (common/settings.h), resolves
   userdata into a descriptor, chooses the backend -- CPU threads, one
   GPU, a team of GPUs, an MPI collective -- once, picks the driver's ops
   table and runs the driver.  No driver chooses a backend or names CUDA;
   this is the only place that does.  This file is part of gcuba. */
#ifndef GCUBA_PLAN_H
#define GCUBA_PLAN_H
#include "common/common.h"

#ifdef __cplusplus
extern "C" {
#endif

enum { GCUBA_ROUTINE_CUHRE = 0, GCUBA_ROUTINE_VEGAS = 1,
       GCUBA_ROUTINE_ROMBERG = 2, GCUBA_ROUTINE_SUAVE = 3,
       GCUBA_ROUTINE_DIVONNE = 4 };

/* One public call of routine r (GCUBA_ROUTINE_*, any form): its
   arguments in c (userdata in c->ud.p), its outputs set there (c->fail,
   c->neval, ...).  nullout: an output pointer outside c (nregions, neval,
   fail) is NULL.  A call made while libgcuba_mpi's collective is
   installed runs on every process of it (common/coll.h). */
void gcuba_plan_call(gcuba_call *c, int r, int nullout);

/* Many integrals of one integrand (gCuhreBatch, gVegasBatch): proto
   holds the arguments every integral shares (userdata the first block,
   integral/error/prob the arrays of all of them), integral b gets
   userdata + b * stride; nregions (Cuhre only), neval, fail are [n]. */
void gcuba_plan_batch(int r, gcuba_call *proto, int n, size_t stride,
                      int *nregions, long long *neval, int *fail);

/* A call as one member of a collective (c->coll set: a team's thread, or
   an MPI process): the driver on the backend the plan chose (c->backend),
   after the member selects its GPU.  For src/team/ and tests. */
void gcuba_plan_member_cuhre(gcuba_call *c);
void gcuba_plan_member_vegas(gcuba_call *c);

/* Settings a program makes by calling gcuba (src/api/process.c) */
void gcuba_plan_set_cores(int n);      /* gcubacores: -1 unset */
void gcuba_plan_set_accel(int n);      /* gcubaaccel: -1 unset */
void gcuba_plan_set_hooks(int which, void (*f)(), void *arg); /* 0 init */
void gcuba_plan_set_userdata_size(size_t bytes); /* this thread's */
const char *gcuba_plan_last_backend(void);       /* this thread's */
int gcuba_plan_last_devices(void);

#ifdef __cplusplus
}
#endif
#endif
