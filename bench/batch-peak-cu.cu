/* bench/batch-peak-cu.cu -- bench-batch's integrand built by nvcc (GPU
   and host), with gCuhreBatch's GPU pipeline.  This file is part of
   gcuba. */
#define GCUBA_BATCH 1
#include "batch-peak.h"
GCUBA_INTEGRAND(bpeak_cu)(const int *ndim, const double x[],
                          const int *ncomp, double f[],
                          void *userdata) BATCH_PEAK_BODY
