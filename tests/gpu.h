/* tests/gpu.h -- shared start of every GPU test program: skip when no
   device is usable, fail instead when GCUBA_TEST_REQUIRE_GPU=1.
   This file is part of gcuba. */
#ifndef GCUBA_TESTS_GPU_H
#define GCUBA_TESTS_GPU_H
#include <stdlib.h>
#include <string.h>
#include "tap.h"
#include "gcuba.h"

static void gpu_required_or_skip(void)
{
  const char *req = getenv("GCUBA_TEST_REQUIRE_GPU");
  if (gcuba_device_count() > 0) return;
  if (req && !strcmp(req, "1")) {
    printf("1..1\nnot ok 1 - GCUBA_TEST_REQUIRE_GPU=1 but no usable CUDA "
           "device\n");
    exit(1);
  }
  skip_all("no CUDA device");
}
#endif
