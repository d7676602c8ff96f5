/* tests/test-gpu-none.c -- the GPU test of a build without CUDA: it skips,
   or fails when GCUBA_TEST_REQUIRE_GPU=1.  This file is part of gcuba. */
#include <stdlib.h>
#include <string.h>
#include "tap.h"

int main(void)
{
  const char *req = getenv("GCUBA_TEST_REQUIRE_GPU");
  if (req && !strcmp(req, "1")) {
    printf("1..1\nnot ok 1 - GCUBA_TEST_REQUIRE_GPU=1 but gcuba was built "
           "without CUDA\n");
    return 1;
  }
  skip_all("gcuba built without CUDA");
  return 0;
}
