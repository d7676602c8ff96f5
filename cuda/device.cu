/* cuda/device.cu -- device probe of the CUDA backend.  No device, no
   driver or a driver too old for this runtime all mean "0 devices":
   the CPU backend runs, nothing crashes.  This file is part of gcuba. */
#include <cuda_runtime.h>
#include <stdio.h>
#include <pthread.h>

extern "C" int gcuba_cuda_device_count(void);
extern "C" const char *gcuba_cuda_device_name(int dev, char *buf, size_t n);

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
