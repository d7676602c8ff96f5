/* cuda/stub.c -- stands in for the CUDA backend when gcuba is built
   without CUDA: no devices.  This file is part of gcuba. */
#include <stdio.h>
#include "common/common.h"
#include "cuda/device.h"

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

int gcuba_cuda_current(void) { return -1; }

void gcuba_cuda_restore(int dev) { (void)dev; }

int gcuba_cuda_reads_in_place(const void *p)
{
  (void)p;
  return 0;
}

int gcuba_cuda_pointer_device(const void *p)
{
  (void)p;
  return -1;
}

int gcuba_cuda_copy_peer(void *dst, int ddev, const void *src, int sdev,
                         size_t bytes, void *stream)
{
  (void)dst;
  (void)ddev;
  (void)src;
  (void)sdev;
  (void)bytes;
  (void)stream;
  return -1;
}

int gcuba_cuda_wait(void *stream)
{
  (void)stream;
  return -1;
}
