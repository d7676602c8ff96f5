/* tests/test-vegas-corner-gpu.cu -- tests/test-vegas-corner.c with its
   integrand compiled by nvcc and GCUBA_DEVICE=gpu: the map's edge rule
   (rule 6 of doc/vegas.md) lives in the driver that both backends share,
   and this says so on the GPU.  This file is part of gcuba. */
#define CORNER_DEVICE "gpu"
#include "test-vegas-corner.c"
