/* src/cuhre/cuhre.h -- the gCuhre driver.  This file is part of gcuba. */
#ifndef GCUBA_CUHRE_H
#define GCUBA_CUHRE_H
#include "common/common.h"

/* Integrates c (arguments already checked); sets the outputs and c->fail. */
void gcuba_cuhre_run(gcuba_call *c);

#endif
