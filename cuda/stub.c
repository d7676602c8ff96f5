/* cuda/stub.c -- stands in for the CUDA backend when gcuba is built
   without CUDA: no devices.  This file is part of gcuba. */
#include <stdio.h>
#include "common/common.h"

int gcuba_cuda_device_count(void) { return 0; }

const char *gcuba_cuda_device_name(int dev, char *buf, size_t n)
{
  snprintf(buf, n, "device %d (no CUDA in this build)", dev);
  return buf;
}

void gcuba_cuda_release(void) {}

int gcuba_cuda_select(gcuba_call *c)
{
  (void)c;
  return 0;
}
