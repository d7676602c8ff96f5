/* src/suave/suave.h -- the gSuave driver and the one operation it asks of
   a backend: the integrand's values at a list of points.  The driver
   (src/suave/driver.c and the files beside it) is plain C and owns the
   whole algorithm: the regions, their samples and grids, where to cut,
   how many samples each half gets, the estimates, the stopping rules, the
   state files.  The points are drawn by the driver (seed 0: one Sobol
   sequence over the whole run; else Philox keyed by the seed and the
   sample's number), so every backend sees the same points and, given the
   same integrand values, the run takes the same steps to the same bits
   on any backend and thread count.  This file is part of gcuba. */
#ifndef GCUBA_SUAVE_DRIVER_H
#define GCUBA_SUAVE_DRIVER_H
#include "common/common.h"
#include "common/points.h"

/* its executors evaluate points: common/points.h */

/* the backends' tables: src/plan/tables.h */

#ifdef __cplusplus
extern "C" {
#endif
/* Integrates c (arguments checked, backend chosen by the plan) over the
   backend ops; sets the outputs and c->fail. */
void gcuba_suave_drive(gcuba_call *c, const gcuba_points_ops *ops);
#ifdef __cplusplus
}
#endif

#endif
