/* cuda/device.cu -- device probe of the CUDA backend.  No device, no
   driver or a driver too old for this runtime all mean "0 devices":
   the CPU backend runs, nothing crashes.  This file is part of gcuba. */
#include <cuda_runtime.h>
#include <stdio.h>
#include <pthread.h>
#include "common.cuh"


static pthread_once_t probe_once = PTHREAD_ONCE_INIT;
static int ndevices;

static void probe(void)
{
  int n = 0;
  if (cudaGetDeviceCount(&n) != cudaSuccess) {
    (void)cudaGetLastError(); /* clear the sticky error, if any */
    n = 0;
  }
  ndevices = n;
}

int gcuba_cuda_device_count(void)
{
  pthread_once(&probe_once, probe);
  return ndevices;
}

const char *gcuba_cuda_device_name(int dev, char *buf, size_t n)
{
  cudaDeviceProp p;
  if (cudaGetDeviceProperties(&p, dev) != cudaSuccess) {
    (void)cudaGetLastError();
    snprintf(buf, n, "device %d", dev);
  } else
    snprintf(buf, n, "%s, sm_%d%d, %.1f GiB", p.name, p.major, p.minor,
             p.totalGlobalMem / 1073741824.0);
  return buf;
}

int gcuba_cuda_check(gcuba_call *c, cudaError_t e, const char *what,
                     const char *file, int line)
{
  if (e == cudaSuccess) return 0;
  (void)cudaGetLastError(); /* clear a non-sticky error */
  return gcuba_fail(c, e == cudaErrorMemoryAllocation ? GCUBA_FAIL_DEVMEM
                                                      : GCUBA_FAIL_CUDA,
                    "%s: %s (%s:%d)", what, cudaGetErrorString(e), file,
                    line);
}
