/* src/team/team.h -- several GPUs of this process run one call
   (GCUBA_DEVICES): a layer over the drivers, as libgcuba_mpi is.  The plan
   (src/plan/) chooses the GPUs; a team runs the call on them, one thread
   per GPU, as the members of an in-process collective (common/coll.h),
   with the bits of one GPU.  This file is part of gcuba. */
#ifndef GCUBA_TEAM_H
#define GCUBA_TEAM_H
#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif
struct gcuba_call;

/* run(c) by n members (1..GCUBA_MAXDEVICES), member k on GPU dev[k] (-1:
   none, for the CPU backend: tests/test-team.c), this thread the first;
   c gets the first member's result (or fail set when the threads could
   not start) */
void gcuba_team_run_on(struct gcuba_call *c,
                       void (*run)(struct gcuba_call *), const int *dev,
                       int n);
/* GCUBA_DEVICES=auto: call c, stopped after an iteration, goes on as
   run(c) by a team of the n GPUs dev, each member resuming from state
   (bytes, the state file's payload) and, for gCuhre, the regions set (a
   gcuba_region_set in a GPU's memory; NULL: none).  0 when the team
   finished the call; 1 when it could not (memory or a device error on a
   GPU): c's fail and neval are then as before, and its caller goes on
   alone. */
int gcuba_team_grow(struct gcuba_call *c, void (*run)(struct gcuba_call *),
                    const int *dev, int n, const void *state, size_t bytes,
                    const void *set);
/* 1 when a member of a team of this process has run on GPU dev (its
   CUDA context exists) */
int gcuba_team_used(int dev);
/* the CPUs the calling thread may run on (its affinity, e.g. mpirun's
   binding to one core), 0 where unknown */
int gcuba_team_cpus(void);

#ifdef __cplusplus
}
#endif
#endif
