/* tests/test-vegas-corner-gpu.cu -- tests/test-vegas-corner.c with its
   integrand compiled by nvcc and GCUBA_DEVICE=gpu: the map's edge rule
   (rule 6 of doc/vegas.md) lives in the driver that both backends share,
   and this says so on the GPU.  Without a usable device it skips (fails
   under GCUBA_TEST_REQUIRE_GPU=1), as every GPU test.  This file is part
   of gcuba. */
#define CORNER_DEVICE "gpu"
#define CORNER_GPU
#include "test-vegas-corner.c"
