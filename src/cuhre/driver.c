/* src/cuhre/driver.c -- the gCuhre driver loop.  This file is part of gcuba. */
#include "cuhre/cuhre.h"

void gcuba_cuhre_run(gcuba_call *c)
{
  gcuba_fail(c, GCUBA_FAIL_NOTAVAIL, "the Cuhre algorithm has not landed yet");
}
