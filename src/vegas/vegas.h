/* src/vegas/vegas.h -- the gVegas driver.  This file is part of gcuba. */
#ifndef GCUBA_VEGAS_DRIVER_H
#define GCUBA_VEGAS_DRIVER_H
#include "common/common.h"
#include "vegas/backend.h"

#ifdef __cplusplus
extern "C" {
#endif
/* Integrates c (arguments checked, backend chosen by the plan) over the
   backend ops; sets the outputs and c->fail. */
void gcuba_vegas_drive(gcuba_call *c, const gcuba_vegas_ops *ops);
/* adaptive stratification's beta for call c (flags GCUBA_VEGASPLUS,
   GCUBA_VEGAS_BETA); 0: none */
double gcuba_vegas_beta(const gcuba_call *c);
#ifdef __cplusplus
}
#endif

#endif
