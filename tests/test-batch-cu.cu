/* tests/test-batch-cu.cu -- test-batch's peak built by nvcc.  It defines
   GCUBA_BATCH as files written for older versions did: still accepted,
   and the same as without it (check_no_macro runs an integrand from a
   file without it).  This file is part of gcuba. */
#define GCUBA_BATCH 1
#include <math.h>
#include "gcuba.h"
#include "peak.h"

GCUBA_INTEGRAND(gpeak_cu)(const int *ndim, const double x[],
                          const int *ncomp, double f[],
                          void *userdata) TEST_BATCH_PEAK_BODY
