/* bench/peaks-cu.cu -- bench-peaks' integrand built by nvcc (GPU and
   host): its single calls and gCuhreBatch's GPU pipeline.  This file is
   part of gcuba. */
#include "gcuba.h"
#include "peaks.h"
GCUBA_INTEGRAND(peaks_cu)(const int *ndim, const double x[],
                          const int *ncomp, double f[],
                          void *userdata) PEAKS_BODY
