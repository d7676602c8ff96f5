/* bench/mpi-heavy-cu.cu -- bench/mpi-heavy.h's integrand compiled by nvcc
   (heavy_cu).  This file is part of gcuba. */
#define HEAVY_NAME heavy_cu
#define HEAVY_NO_TRUTH
#include "mpi-heavy.h"
