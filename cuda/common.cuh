/* cuda/common.cuh -- what the CUDA backends share: one macro that checks
   every CUDA call and launch, recording call, file and line, and turning
   the error into a gcuba fail code.  Never compiled out.
   This file is part of gcuba. */
#ifndef GCUBA_CUDA_COMMON_CUH
#define GCUBA_CUDA_COMMON_CUH

#include <cuda_runtime.h>
#include "common/common.h"

/* 0 on success; else logs (verbosity >= 1) and returns GCUBA_FAIL_DEVMEM
   for cudaErrorMemoryAllocation, GCUBA_FAIL_CUDA otherwise, and sets
   c->fail.  The sticky-free error state is cleared. */
int gcuba_cuda_check(gcuba_call *c, cudaError_t e, const char *what,
                     const char *file, int line);

#define GCUBA_CK(c, call) \
  gcuba_cuda_check((c), (cudaError_t)(call), #call, __FILE__, __LINE__)

/* checks a kernel launch just made (cudaPeekAtLastError) */
#define GCUBA_CK_LAUNCH(c, what) \
  gcuba_cuda_check((c), cudaPeekAtLastError(), what, __FILE__, __LINE__)

/* device.cu: cudaMalloc, and when the device is out of memory the idle
   contexts that the backends keep between calls (gcuba_release's) on the
   current device freed and the allocation tried once more, so that memory
   gcuba holds for later calls never makes a call fail.  Every device
   allocation of the backends goes through it. */
cudaError_t gcuba_cuda_malloc_v(void **p, size_t n);
template <class T>
static inline cudaError_t gcuba_cuda_malloc(T **p, size_t n)
{
  return gcuba_cuda_malloc_v((void **)p, n);
}
/* device.cu: the idle contexts of the current device freed (the
   pipelines of the batches, which size their waves by the memory free,
   call it first); how many.  cuhre.cu, vegas.cu: each one's, of device
   dev. */
int gcuba_cuda_trim(void);
int gcuba_cuhre_cuda_trim(int dev);
int gcuba_vegas_cuda_trim(int dev);
/* the devices whose idle contexts cuhre.cu and vegas.cu keep (calls on
   several GPUs); gcuba_cuda_release (device.cu) trims each */
#define GCUBA_CUDA_CACHE_SLOTS 16

/* device.cu: userdata as the kernels see it (NULL, the caller's device or
   managed pointer, or a copy of bytes bytes in *copy, grown to *cap);
   0 or a fail code */
int gcuba_device_userdata(gcuba_call *c, void *u, size_t bytes,
                          const char *hint, void **ud, void **copy,
                          size_t *cap, cudaStream_t stream);

/* pinned.cu: a page-locked host buffer (p, cap bytes), grown to hold n
   bytes (its contents lost: doubled from 2 MiB, its pages touched on
   `threads' CPU threads); 0 or a fail code.  gcuba_pinned_free frees it
   (either is safe on a zeroed one). */
typedef struct {
  char *p;
  size_t cap;
  int mapped; /* mmap and cudaHostRegister (else cudaMallocHost) */
} gcuba_pinned;
int gcuba_pinned_grow(gcuba_call *c, gcuba_pinned *b, size_t n, int threads);
void gcuba_pinned_free(gcuba_pinned *b);

/* points.cu: what gSuave's device passes (suave.cu) use of its points
   executor's context: the call, the stream, the integrand's userdata as
   the kernels see it, its status (device) and the status' pinned host
   copy */
struct gcuba_points_parts {
  gcuba_call *c;
  cudaStream_t stream;
  void *ud;
  int *status, *h_status;
};
void gcuba_points_parts_of(void *ctx, gcuba_points_parts *p);

struct gcuba_rule;
/* cuhre.cu: the rule's points as the Cuhre kernels read them, in device
   memory (*du, stride *ustride); 0 or a fail code */
int gcuba_cuhre_points(gcuba_call *c, const struct gcuba_rule *r,
                       double **du, int *ustride);

#endif
