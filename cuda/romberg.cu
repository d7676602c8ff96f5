/* cuda/romberg.cu -- the GPU executor of gRomberg (src/romberg/romberg.h):
   for a block of a level's points, a library kernel writes the points,
   the integrand's eval_points launcher (include/gcuba/kernels.cuh,
   through the descriptor's GPU table) evaluates them, and library kernels
   reduce f and |f| by the perfect pairwise tree of romberg.h: groups of
   up to 256 consecutive values, level by level v[i] = v[2i] + v[2i+1] in
   shared memory, then the group sums the same way.  No atomics: the same
   bits on every run, and the same tree as the CPU executor.  The block
   (at most 2^22 / ncomp points, a power of two) bounds the device memory
   whatever maxeval is: x, f and two tree buffers, allocated once per
   call; one synchronisation per block, to read back 2 ncomp sums and the
   status word.  Every CUDA call and launch is checked.
   This file is part of gcuba. */
#include <cuda_runtime.h>
#include <stdlib.h>
#include "common.cuh"
#include "romberg/romberg.h"
#include "gcuba/detail/gpu_ops.h"

#define GROUP 256
/* points x components of a block, at most */
#define BLOCK_VALUES ((long long)1 << 22)

struct rctx {
  gcuba_call *c;
  int ncomp;
  long long block;       /* points per block */
  cudaStream_t stream;
  double *x, *f;         /* [block], [block*ncomp] */
  double *t1, *t2;       /* tree levels [2*ncomp][block/GROUP] */
  int *status;
  double *h_sums;        /* pinned [2*ncomp] */
  int *h_status;
  void *ud, *udcopy;     /* userdata as the device sees it; our copy */
  size_t udcap;          /* bytes of udcopy */
};

/* userdata: gcuba_device_userdata (device.cu) */
static int device_userdata(rctx *t)
{
  return gcuba_device_userdata(t->c, t->c->ud.p, t->c->ud.bytes,
                               "", &t->ud, &t->udcopy, &t->udcap, t->stream);
}

/* x[i] = point j0 + i of level k */
__global__ void gcuba_rk_points(double *x, int k, long long j0, long long n)
{
  long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) x[i] = gcuba_romberg_x(k, j0 + i);
}

/* the tree over v[0..g) in shared memory (g a power of two <= GROUP):
   v[i] = v[2i] + v[2i+1], level by level; the result in v[0] */
__device__ __forceinline__ void gcuba_rk_tree(double *v, int g)
{
  const int t = threadIdx.x;
  for (int m = g; m > 1; m /= 2) {
    double s = 0;
    if (t < m / 2) s = v[2 * t] + v[2 * t + 1];
    __syncthreads();
    if (t < m / 2) v[t] = s;
    __syncthreads();
  }
}

/* first level: group b of g values of component c of f (stride ncomp):
   dst[c*m + b] = sum f, dst[(ncomp + c)*m + b] = sum |f| */
__global__ void gcuba_rk_first(const double *f, int ncomp, int g,
                               double *dst, long long m)
{
  __shared__ double v[GROUP], a[GROUP];
  const long long b = blockIdx.x;
  const int c = blockIdx.y, t = threadIdx.x;
  const double y = f[(b * g + t) * ncomp + c];
  v[t] = y;
  a[t] = fabs(y);
  __syncthreads();
  gcuba_rk_tree(v, g);
  gcuba_rk_tree(a, g);
  if (t == 0) {
    dst[(long long)c * m + b] = v[0];
    dst[(long long)(ncomp + c) * m + b] = a[0];
  }
}

/* further levels: column col (n values) in groups of g into dst[col*m+b] */
__global__ void gcuba_rk_next(const double *src, long long n, int g,
                              double *dst, long long m)
{
  __shared__ double v[GROUP];
  const long long b = blockIdx.x;
  const int col = blockIdx.y, t = threadIdx.x;
  v[t] = src[(long long)col * n + b * g + t];
  __syncthreads();
  gcuba_rk_tree(v, g);
  if (t == 0) dst[(long long)col * m + b] = v[0];
}

static void destroy(void *ctx)
{
  rctx *t = (rctx *)ctx;
  if (!t) return;
  /* clean-up after a failure: errors here change nothing */
  if (t->stream) cudaStreamSynchronize(t->stream);
  cudaFree(t->x);
  cudaFree(t->f);
  cudaFree(t->t1);
  cudaFree(t->t2);
  cudaFree(t->status);
  cudaFree(t->udcopy);
  cudaFreeHost(t->h_sums);
  cudaFreeHost(t->h_status);
  if (t->stream) cudaStreamDestroy(t->stream);
  (void)cudaGetLastError();
  free(t);
}

static void *create(gcuba_call *c, int *fail)
{
  rctx *t = (rctx *)calloc(1, sizeof *t);
  long long ng;
  if (!t) {
    *fail = gcuba_fail(c, GCUBA_FAIL_NOMEM, "gRomberg's GPU executor");
    return NULL;
  }
  t->c = c;
  t->ncomp = c->ncomp;
  t->block = 2;
  while (2 * t->block * c->ncomp <= BLOCK_VALUES) t->block *= 2;
  ng = t->block / GROUP > 1 ? t->block / GROUP : 1;
  if (GCUBA_CK(c, cudaStreamCreateWithFlags(&t->stream,
                                            cudaStreamNonBlocking)) ||
      GCUBA_CK(c, gcuba_cuda_malloc(&t->x, sizeof(double) * t->block)) ||
      GCUBA_CK(c, gcuba_cuda_malloc(&t->f, sizeof(double) * t->block *
                                               t->ncomp)) ||
      GCUBA_CK(c, gcuba_cuda_malloc(&t->t1,
                                    sizeof(double) * ng * 2 * t->ncomp)) ||
      GCUBA_CK(c, gcuba_cuda_malloc(&t->t2,
                                    sizeof(double) * ng * 2 * t->ncomp)) ||
      GCUBA_CK(c, gcuba_cuda_malloc(&t->status, sizeof(int))) ||
      GCUBA_CK(c, cudaMemsetAsync(t->status, 0, sizeof(int), t->stream)) ||
      GCUBA_CK(c, cudaMallocHost(&t->h_sums,
                                 sizeof(double) * 2 * t->ncomp)) ||
      GCUBA_CK(c, cudaMallocHost(&t->h_status, sizeof(int))) ||
      device_userdata(t)) {
    *fail = c->fail ? c->fail : GCUBA_FAIL_CUDA;
    destroy(t);
    return NULL;
  }
  return t;
}

static long long block(void *ctx) { return ((rctx *)ctx)->block; }

static int sum(void *ctx, int k, long long j0, long long n, double *sums)
{
  rctx *t = (rctx *)ctx;
  gcuba_call *c = t->c;
  const int nc = t->ncomp;
  double *src = NULL, *dst = t->t1;
  long long m = n;
  int rc, first = 1;
  gcuba_rk_points<<<(unsigned)((n + 255) / 256), 256, 0, t->stream>>>(
      t->x, k, j0, n);
  if ((rc = GCUBA_CK_LAUNCH(c, "gcuba_rk_points"))) return rc;
  rc = c->integrand->gpu->eval_points(1, nc, n, t->x, t->f, t->ud,
                                      t->status, t->stream);
  if (rc) return GCUBA_CK(c, (cudaError_t)rc);
  while (first || m > 1) {
    const int g = (int)(m < GROUP ? m : GROUP);
    const long long mg = m / g;
    if (first) {
      gcuba_rk_first<<<dim3((unsigned)mg, (unsigned)nc), g, 0, t->stream>>>(
          t->f, nc, g, dst, mg);
      rc = GCUBA_CK_LAUNCH(c, "gcuba_rk_first");
    } else {
      gcuba_rk_next<<<dim3((unsigned)mg, (unsigned)(2 * nc)), g, 0,
                      t->stream>>>(src, m, g, dst, mg);
      rc = GCUBA_CK_LAUNCH(c, "gcuba_rk_next");
    }
    if (rc) return rc;
    first = 0;
    m = mg;
    src = dst;
    dst = dst == t->t1 ? t->t2 : t->t1;
  }
  if ((rc = GCUBA_CK(c, cudaMemcpyAsync(t->h_sums, src,
                                        sizeof(double) * 2 * nc,
                                        cudaMemcpyDeviceToHost, t->stream))) ||
      (rc = GCUBA_CK(c, cudaMemcpyAsync(t->h_status, t->status, sizeof(int),
                                        cudaMemcpyDeviceToHost, t->stream))) ||
      (rc = GCUBA_CK(c, cudaStreamSynchronize(t->stream))))
    return rc;
  if (*t->h_status & GCUBA_ST_ABORT) return GCUBA_FAIL_ABORT;
  if (*t->h_status & GCUBA_ST_NONFINITE) return GCUBA_FAIL_NAN;
  for (int i = 0; i < 2 * nc; ++i) sums[i] = t->h_sums[i];
  return 0;
}

extern "C" const gcuba_romberg_ops gcuba_romberg_cuda = {
    "gpu", create, destroy, block, sum};
