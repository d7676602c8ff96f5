/* src/plan/tables.h -- the executors' ops tables: the plan (src/plan/)
   picks one per call and hands it to a driver, which never names one.
   Defined by the CPU backends (src/cpu/) and the CUDA backends (cuda/).
   This file is part of gcuba. */
#ifndef GCUBA_PLAN_TABLES_H
#define GCUBA_PLAN_TABLES_H

#include "cuhre/backend.h"
#include "vegas/backend.h"
#include "romberg/romberg.h"
#include "suave/suave.h"
#include "divonne/divonne.h"

#ifdef __cplusplus
extern "C" {
#endif
extern const gcuba_cuhre_ops gcuba_cuhre_cpu;
extern const gcuba_vegas_ops gcuba_vegas_cpu;
extern const gcuba_romberg_ops gcuba_romberg_cpu;
extern const gcuba_points_ops gcuba_suave_cpu;
#ifdef HAVE_CUDA
extern const gcuba_cuhre_ops gcuba_cuhre_cuda;
extern const gcuba_vegas_ops gcuba_vegas_cuda;
extern const gcuba_romberg_ops gcuba_romberg_cuda;
extern const gcuba_points_ops gcuba_points_cuda;
/* gCuhreBatch's GPU pipeline (cuda/batch.cu): the n integrals of c
   (userdata c->ud.p + b * stride) with the CPU backend's policy and
   region limit maxregions; their results in c's arrays, neval, nregions
   and out.  0 (out[b].code DEFER: run it as a single call), 1 when there
   is no pipeline for them (single calls), or a fail code. */
int gcuba_cuhre_batch_gpu(gcuba_call *c, int n, size_t stride,
                          long long maxregions, long long *neval,
                          int *nregions, gcuba_cuhre_bout *out);
/* gVegasBatch's GPU pipeline (cuda/vegas_batch.cu): the n integrals of c,
   each with its own call calls[b] as its single call would get it
   (userdata c->ud.p + b * stride on the device); their outputs and fail
   in calls[b].  0, 1 when there is no pipeline for them (single calls),
   or a fail code (then every calls[b] that did not end has it). */
int gcuba_vegas_batch_gpu(gcuba_call *c, gcuba_call *calls, int n,
                          size_t stride);
#endif
#ifdef __cplusplus
}
#endif

#endif
