/* bench/genz-cu.cu -- the Genz integrand (bench/genz.h) built by nvcc for
   bench-genz in a CUDA build: host and device functions and the GPU
   kernels instantiated for them (genz_cu).  This file is part of gcuba. */
#include "gcuba.h"
#include "genz.h"

GENZ_GCUBA_INTEGRAND(genz_cu)
