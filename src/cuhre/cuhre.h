/* src/cuhre/cuhre.h -- the gCuhre driver.  This file is part of gcuba. */
#ifndef GCUBA_CUHRE_H
#define GCUBA_CUHRE_H
#include "common/common.h"

#ifdef __cplusplus
extern "C" {
#endif
/* Integrates c (arguments already checked); sets the outputs and c->fail. */
void gcuba_cuhre_run(gcuba_call *c);
/* the most regions GCUBA_MEMLIMIT (or the host's memory) allows at per
   bytes each (0: the CPU backend's); 1 << 62 for a device store without
   GCUBA_MEMLIMIT; -1 with fail -16 when GCUBA_MEMLIMIT is bad */
long long gcuba_cuhre_max_regions(gcuba_call *c, int device, long long per);
#ifdef __cplusplus
}
#endif

#endif
