/* tests/suite-cu.cu -- the same suite built by nvcc: host and device
   functions plus the kernels instantiated for each.  This file is part
   of gcuba. */
#include <math.h>
#include "suite.h"
#define SUITE(n) GCUBA_INTEGRAND(n##_cu)
#include "suite.inc"
