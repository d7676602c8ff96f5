/* src/divonne/divonne.h -- the gDivonne driver and the one operation it
   asks of a backend: the integrand's values at a list of points (the
   executors of gSuave, common/points.h).  The driver (src/divonne/) is
   plain C and owns the whole algorithm: the partition, the samples, the
   estimates, the stopping rules.  Its points do not depend on the
   backend, so that given the same integrand values every backend and
   thread count takes the same steps to the same bits.  This file is part
   of gcuba. */
#ifndef GCUBA_DIVONNE_DRIVER_H
#define GCUBA_DIVONNE_DRIVER_H
#include "common/common.h"
#include "common/points.h"

#ifdef __cplusplus
extern "C" {
#endif
/* Integrates c (arguments checked, backend chosen by the plan) over the
   backend ops; sets the outputs and c->fail. */
void gcuba_divonne_drive(gcuba_call *c, const gcuba_points_ops *ops);
#ifdef __cplusplus
}
#endif

#endif
