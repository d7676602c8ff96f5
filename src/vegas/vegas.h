/* src/vegas/vegas.h -- the gVegas driver.  This file is part of gcuba. */
#ifndef GCUBA_VEGAS_DRIVER_H
#define GCUBA_VEGAS_DRIVER_H
#include "common/common.h"

/* Integrates c (arguments already checked); sets the outputs and c->fail. */
void gcuba_vegas_run(gcuba_call *c);

#endif
