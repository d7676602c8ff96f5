/* bench/boxes-cu.cu -- bench/boxes.h's integrand built by nvcc for
   bench-boxes in a CUDA build.  This file is part of gcuba. */
#include "gcuba.h"
#include "boxes.h"

BOXES_GCUBA_INTEGRAND(boxes_cu)
