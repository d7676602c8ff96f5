/* cuda/device.h -- the device services of the CUDA backend, plain C, for
   the layers that choose and combine GPUs (src/plan/, src/team/) and the
   public functions (src/api/).  cuda/device.cu implements them, and
   cuda/stub.c in a build without CUDA (no devices).  This file is part of
   gcuba. */
#ifndef GCUBA_CUDA_DEVICE_H
#define GCUBA_CUDA_DEVICE_H
#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif
struct gcuba_call;

/* usable CUDA devices (0 without CUDA, driver or device) */
int gcuba_cuda_device_count(void);
const char *gcuba_cuda_device_name(int dev, char *buf, size_t n);
/* frees the idle device memory the backends keep between calls */
void gcuba_cuda_release(void);
/* a collective call on the GPU backend: a team member makes its GPU
   current; a process of an MPI job with several on a node and several
   GPUs, GPU (local rank mod GPUs); 0 or a fail code */
int gcuba_cuda_select(struct gcuba_call *c);
/* the calling thread's current device (-1: none), and setting it back */
int gcuba_cuda_current(void);
void gcuba_cuda_restore(int dev);
/* bytes from src on GPU sdev to dst on GPU ddev, on stream (a
   cudaStream_t of ddev); 0 or nonzero on an error */
int gcuba_cuda_copy_peer(void *dst, int ddev, const void *src, int sdev,
                         size_t bytes, void *stream);
/* the work queued on stream done: 0 or nonzero on an error */
int gcuba_cuda_wait(void *stream);
/* the GPU whose memory p is (-1: host, managed or not known) */
int gcuba_cuda_pointer_device(const void *p);
/* 1 when the current GPU can read p where it is: device, managed or
   page-locked (registered) host memory, or any host memory on a system
   whose GPU reads pageable memory (cudaDevAttrPageableMemoryAccess: HMM
   or ATS); else 0 */
int gcuba_cuda_reads_in_place(const void *p);

#ifdef __cplusplus
}
#endif
#endif
