/* tests/gpu.h -- shared start of every GPU test program: skip when no
   device is usable, fail instead when GCUBA_TEST_REQUIRE_GPU=1.
   This file is part of gcuba. */
#ifndef GCUBA_TESTS_GPU_H
#define GCUBA_TESTS_GPU_H
#include <stdlib.h>
#include <string.h>
#include "tap.h"
#include "gcuba.h"

TAP_UNUSED static void gpu_required_or_skip(void)
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

/* Start of a test battery: in its GPU build (SUITE_GPU) skip or fail
   without a device and run everything with GCUBA_DEVICE=gpu. */
TAP_UNUSED static void battery_start(void)
{
#ifdef SUITE_GPU
  gpu_required_or_skip();
  setenv("GCUBA_DEVICE", "gpu", 1);
#endif
}

/* the backend a battery runs on, restored after a host-only detour */
TAP_UNUSED static void battery_backend(void)
{
#ifdef SUITE_GPU
  setenv("GCUBA_DEVICE", "gpu", 1);
#else
  unsetenv("GCUBA_DEVICE");
#endif
}
/* the end of a battery: the device memory gcuba keeps between calls is
   freed (gcuba_release), so that a leak check sees none, then done() */
TAP_UNUSED static int battery_done(void)
{
  gcuba_release();
  return done();
}

#endif
