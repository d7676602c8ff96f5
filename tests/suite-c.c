/* tests/suite-c.c -- the suite built by a C compiler (host only).
   This file is part of gcuba. */
#include <math.h>
#include "suite.h"
#define SUITE(n) GCUBA_INTEGRAND(n##_c)
#include "suite.inc"
