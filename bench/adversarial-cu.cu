/* bench/adversarial-cu.cu -- bench/adversarial.h's integrand built by nvcc for
   bench-adversarial in a CUDA build.  This file is part of gcuba. */
#include "gcuba.h"
#include "adversarial.h"

ADVERSARIAL_GCUBA_INTEGRAND(adversarial_cu)
