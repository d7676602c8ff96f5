/* src/vegas/driver.c -- the gVegas driver loop.  This file is part of gcuba. */
#include "vegas/vegas.h"

void gcuba_vegas_run(gcuba_call *c)
{
  gcuba_fail(c, GCUBA_FAIL_NOTAVAIL, "the Vegas algorithm has not landed yet");
}
