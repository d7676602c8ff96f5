/* bench/batch-peak-cu.cu -- bench-batch's integrand built by nvcc (GPU
   and host): its single calls and gCuhreBatch's GPU pipeline.  This file
   is part of gcuba. */
#include "batch-peak.h"
GCUBA_INTEGRAND(bpeak_cu)(const int *ndim, const double x[],
                          const int *ncomp, double f[],
                          void *userdata) BATCH_PEAK_BODY
