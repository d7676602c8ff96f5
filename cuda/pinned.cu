/* cuda/pinned.cu -- page-locked host buffers that grow, for the pipelines'
   copies to and from the device.  cudaMallocHost pins page by page the
   memory it has just had the kernel zero: on the hosts measured (H200
   machines, 16 cores) 16 MiB took 9 ms and its cudaFreeHost 3 ms, a
   tenth of gVegasBatch's pipeline for 100,000 3-D integrals.  Here the
   buffer is mapped in 2 MiB huge pages where the kernel gives them
   (madvise), its pages touched on the CPU threads, then registered
   (cudaHostRegister): 16 MiB in 1.4-1.8 ms, unregistered and unmapped in
   0.5 ms.  Where that fails (no mmap, registration refused) the buffer
   comes from cudaMallocHost.  This file is part of gcuba. */
#include <stdlib.h>
#include <sys/mman.h>
#include "cuda/common.cuh"
#include "common/pool.h"

#define PIN_STEP ((size_t)2 << 20) /* sizes in huge pages */
#define PIN_PAGE 4096              /* a touch per (small) page */

static int touch_item(void *ctx, long long i, int tid)
{
  volatile char *p = (volatile char *)ctx + (size_t)i * PIN_STEP;
  size_t k;
  (void)tid;
  for (k = 0; k < PIN_STEP; k += PIN_PAGE) p[k] = 0;
  return 0;
}

void gcuba_pinned_free(gcuba_pinned *b)
{
  if (b->p && b->mapped) {
    cudaHostUnregister(b->p);
    munmap(b->p, b->cap);
  } else if (b->p)
    cudaFreeHost(b->p);
  b->p = NULL;
  b->cap = 0;
  b->mapped = 0;
}

int gcuba_pinned_grow(gcuba_call *c, gcuba_pinned *b, size_t n, int threads)
{
  size_t m = b->cap ? b->cap : PIN_STEP;
  void *q;
  int rc;
  if (n <= b->cap) return 0;
  while (m < n) m *= 2;
  gcuba_pinned_free(b);
  q = mmap(NULL, m, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1,
           0);
  if (q != MAP_FAILED) {
#ifdef MADV_HUGEPAGE
    (void)madvise(q, m, MADV_HUGEPAGE); /* (a hint: small pages else) */
#endif
    gcuba_pool_for(threads, (long long)(m / PIN_STEP), 1, touch_item, q);
    if (cudaHostRegister(q, m, cudaHostRegisterDefault) == cudaSuccess) {
      b->p = (char *)q;
      b->cap = m;
      b->mapped = 1;
      return 0;
    }
    (void)cudaGetLastError(); /* (refused: cudaMallocHost's way) */
    munmap(q, m);
  }
  if ((rc = GCUBA_CK(c, cudaMallocHost(&q, m)))) return rc;
  b->p = (char *)q;
  b->cap = m;
  return 0;
}
