/* cuda/device.cu -- device probe of the CUDA backend.  No device, no
   driver or a driver too old for this runtime all mean "0 devices":
   the CPU backend runs, nothing crashes.  This file is part of gcuba. */
#include <cuda_runtime.h>
#include <stdio.h>
#include <pthread.h>
#include "common.cuh"
#include "common/coll.h"
#include "cuda/device.h"


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

#define PEER_MAX 64
static pthread_mutex_t peer_lock = PTHREAD_MUTEX_INITIALIZER;
static unsigned char peer_asked[PEER_MAX][PEER_MAX];

int gcuba_cuda_select(gcuba_call *c)
{
  const gcuba_collective *k = c->coll;
  int n = gcuba_cuda_device_count(), dev = 0;
  if (k && k->device >= 0) {
    /* a member of a team (GCUBA_DEVICES): its own GPU */
    int d, can;
    dev = k->device;
    gcuba_log(c, 2, "member %d of %d uses GPU %d of %d", k->rank, k->size,
              dev, n);
    if (GCUBA_CK(c, cudaSetDevice(dev))) return c->fail;
    /* direct copies from the other GPUs (allgatherv_dev), where possible;
       asked once per pair in this process */
    for (d = 0; d < n && dev < PEER_MAX; ++d) {
      int ask;
      if (d == dev || d >= PEER_MAX) continue;
      pthread_mutex_lock(&peer_lock);
      ask = !peer_asked[dev][d];
      peer_asked[dev][d] = 1;
      pthread_mutex_unlock(&peer_lock);
      if (ask && cudaDeviceCanAccessPeer(&can, dev, d) == cudaSuccess &&
          can && cudaDeviceEnablePeerAccess(d, 0) != cudaSuccess)
        (void)cudaGetLastError(); /* enabled by the caller before */
    }
    return 0;
  } else {
    if (!k || k->local_size < 2 || n < 2) return 0;
    dev = k->local_rank % n;
    gcuba_log(c, 1, "process %d of %d on this node uses GPU %d of %d",
              k->local_rank, k->local_size, dev, n);
  }
  return gcuba_cuda_check(c, cudaSetDevice(dev), "cudaSetDevice", __FILE__,
                          __LINE__);
}

int gcuba_cuda_copy_peer(void *dst, int ddev, const void *src, int sdev,
                         size_t bytes, void *stream)
{
  cudaError_t e =
      ddev == sdev ? cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDeviceToDevice,
                                     (cudaStream_t)stream)
                   : cudaMemcpyPeerAsync(dst, ddev, src, sdev, bytes,
                                         (cudaStream_t)stream);
  if (e == cudaSuccess) return 0;
  (void)cudaGetLastError();
  return (int)e;
}

int gcuba_cuda_wait(void *stream)
{
  cudaError_t e = cudaStreamSynchronize((cudaStream_t)stream);
  if (e == cudaSuccess) return 0;
  (void)cudaGetLastError();
  return (int)e;
}

int gcuba_cuda_current(void)
{
  int dev = -1;
  if (gcuba_cuda_device_count() == 0) return -1;
  if (cudaGetDevice(&dev) != cudaSuccess) {
    (void)cudaGetLastError();
    return -1;
  }
  return dev;
}

void gcuba_cuda_restore(int dev)
{
  if (dev >= 0 && cudaSetDevice(dev) != cudaSuccess) (void)cudaGetLastError();
}

int gcuba_cuda_pointer_device(const void *p)
{
  cudaPointerAttributes at;
  if (!p || gcuba_cuda_device_count() == 0) return -1;
  if (cudaPointerGetAttributes(&at, p) != cudaSuccess) {
    (void)cudaGetLastError();
    return -1;
  }
  return at.type == cudaMemoryTypeDevice ? at.device : -1;
}

int gcuba_cuda_reads_in_place(const void *p)
{
  cudaPointerAttributes at;
  int dev = 0, pageable = 0;
  if (!p || gcuba_cuda_device_count() == 0) return 0;
  if (cudaPointerGetAttributes(&at, p) == cudaSuccess &&
      (at.type == cudaMemoryTypeDevice || at.type == cudaMemoryTypeManaged ||
       at.type == cudaMemoryTypeHost))
    return 1;
  (void)cudaGetLastError();
  if (cudaGetDevice(&dev) != cudaSuccess ||
      cudaDeviceGetAttribute(&pageable, cudaDevAttrPageableMemoryAccess,
                             dev) != cudaSuccess) {
    (void)cudaGetLastError();
    return 0;
  }
  return pageable != 0;
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

int gcuba_cuda_trim(void)
{
  int dev;
  if (cudaGetDevice(&dev) != cudaSuccess) {
    (void)cudaGetLastError();
    return 0;
  }
  return gcuba_cuhre_cuda_trim(dev) + gcuba_vegas_cuda_trim(dev);
}

void gcuba_cuda_release(void)
{
  int dev;
  for (dev = 0; dev < GCUBA_CUDA_CACHE_SLOTS; ++dev) {
    gcuba_vegas_cuda_trim(dev);
    gcuba_cuhre_cuda_trim(dev);
  }
}

cudaError_t gcuba_cuda_malloc_v(void **p, size_t n)
{
  cudaError_t e = cudaMalloc(p, n);
  if (e != cudaErrorMemoryAllocation) return e;
  (void)cudaGetLastError();
  return gcuba_cuda_trim() ? cudaMalloc(p, n) : e;
}

/* userdata as the kernels see it: NULL stays NULL; a pointer the device
   can dereference (device or managed memory) is passed unchanged; a host
   pointer is copied (bytes bytes, on stream) into *copy, which is reused
   when *cap holds it and grown otherwise (the caller frees *copy).  A
   host pointer without a size is refused with GCUBA_FAIL_PARAM: Cuba's
   argument list does not say how large userdata is (hint: how else the
   caller can give it). */
int gcuba_device_userdata(gcuba_call *c, void *u, size_t bytes,
                          const char *hint, void **ud, void **copy,
                          size_t *cap, cudaStream_t stream)
{
  cudaPointerAttributes at;
  int rc;
  *ud = NULL;
  if (!u) return 0;
  if (cudaPointerGetAttributes(&at, u) == cudaSuccess &&
      (at.type == cudaMemoryTypeDevice || at.type == cudaMemoryTypeManaged)) {
    *ud = u;
    return 0;
  }
  (void)cudaGetLastError();
  /* no size: read where it is when the GPU can (page-locked host memory,
     pageable memory on HMM/ATS systems; src/plan/plan.c has moved the
     call to the CPU where it cannot, unless GCUBA_DEVICE=gpu) */
  if (bytes == 0 && gcuba_cuda_reads_in_place(u)) {
    *ud = u;
    return 0;
  }
  if (bytes == 0)
    return gcuba_fail(c, GCUBA_FAIL_PARAM,
                      "userdata is a host pointer: give its size with "
                      "gcuba_userdata_size()%s to have it copied to the "
                      "GPU, or pass device or managed memory", hint);
  if (bytes > *cap) {
    if ((rc = GCUBA_CK(c, cudaFree(*copy)))) return rc;
    *copy = NULL;
    *cap = 0;
    if ((rc = GCUBA_CK(c, gcuba_cuda_malloc(copy, bytes)))) return rc;
    *cap = bytes;
  }
  if ((rc = GCUBA_CK(c, cudaMemcpyAsync(*copy, u, bytes,
                                        cudaMemcpyHostToDevice, stream))))
    return rc;
  *ud = *copy;
  return 0;
}
