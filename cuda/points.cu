/* cuda/points.cu -- the GPU's points executor (src/common/points.h):
   gSuave's GPU backend, and the integrand's side of gCuhre calls with
   more components than the GPU's rule kernels hold (the CPU backend
   applies the rules).  The points a step drew are copied to the device,
   the integrand's eval_points launcher (include/gcuba/kernels.cuh,
   through the descriptor's GPU table) evaluates them, and the values
   come back.  The buffers grow geometrically and are kept for the call;
   one synchronisation per step.  Every CUDA call and launch is checked.
   A list of at most HOSTMAX points (gDivonne's searches ask for one at a
   time, its partition for a few dozen) is evaluated by the integrand's
   host function when userdata is readable there: a launch and two copies
   cost more than the points (Genz's protocol through gDivonne on an H200:
   75 s with every point on the device, 13 s on one CPU thread).
   This file is part of gcuba. */
#include <cuda_runtime.h>
#include <math.h>
#include <stdlib.h>
#include "common.cuh"
#include "common/points.h"
#include "cuda/device.h"
#include "gcuba/detail/gpu_ops.h"

#define HOSTMAX 64

struct sctx {
  gcuba_call *c;
  int ndim, ncomp;
  cudaStream_t stream;
  long long cap;         /* points the buffers hold */
  double *x, *f;         /* device [cap*ndim], [cap*ncomp] */
  int *status, *h_status;
  void *ud, *udcopy;
  size_t udcap;
  int host;              /* small lists on the host (userdata readable) */
};

static void destroy(void *ctx)
{
  sctx *t = (sctx *)ctx;
  if (!t) return;
  /* clean-up after a failure: errors here change nothing */
  if (t->stream) cudaStreamSynchronize(t->stream);
  cudaFree(t->x);
  cudaFree(t->f);
  cudaFree(t->status);
  cudaFree(t->udcopy);
  cudaFreeHost(t->h_status);
  if (t->stream) cudaStreamDestroy(t->stream);
  (void)cudaGetLastError();
  free(t);
}

static void *create(gcuba_call *c, int *fail)
{
  sctx *t = (sctx *)calloc(1, sizeof *t);
  if (!t) {
    *fail = gcuba_fail(c, GCUBA_FAIL_NOMEM, "the GPU's points executor");
    return NULL;
  }
  t->c = c;
  t->ndim = c->ndim;
  t->ncomp = c->ncomp;
  if (GCUBA_CK(c, cudaStreamCreateWithFlags(&t->stream,
                                            cudaStreamNonBlocking)) ||
      GCUBA_CK(c, cudaMalloc(&t->status, sizeof(int))) ||
      GCUBA_CK(c, cudaMemsetAsync(t->status, 0, sizeof(int), t->stream)) ||
      GCUBA_CK(c, cudaMallocHost(&t->h_status, sizeof(int))) ||
      gcuba_device_userdata(c, c->ud.p, c->ud.bytes, "", &t->ud, &t->udcopy,
                            &t->udcap, t->stream)) {
    *fail = c->fail ? c->fail : GCUBA_FAIL_CUDA;
    destroy(t);
    return NULL;
  }
  t->host = c->integrand->fn &&
            (!c->ud.p || gcuba_cuda_pointer_device(c->ud.p) < 0);
  return t;
}

/* the points on the host, one by one: 0 or a fail code */
static int eval_host(sctx *t, long long n, const double *x, double *f)
{
  gcuba_call *c = t->c;
  long long i;
  int k;
  for (i = 0; i < n; ++i) {
    if (c->integrand->fn(&t->ndim, x + i * t->ndim, &t->ncomp,
                         f + i * t->ncomp, c->ud.p) == -999)
      return GCUBA_FAIL_ABORT;
    for (k = 0; k < t->ncomp; ++k)
      if (!isfinite(f[i * t->ncomp + k])) return GCUBA_FAIL_NAN;
  }
  return 0;
}

static int reserve(sctx *t, long long n)
{
  gcuba_call *c = t->c;
  int rc;
  if (n <= t->cap) return 0;
  if (n < 2 * t->cap) n = 2 * t->cap;
  if ((rc = GCUBA_CK(c, cudaStreamSynchronize(t->stream)))) return rc;
  cudaFree(t->x);
  cudaFree(t->f);
  t->x = t->f = NULL;
  t->cap = 0;
  if ((rc = GCUBA_CK(c, cudaMalloc(&t->x, sizeof(double) * n * t->ndim))) ||
      (rc = GCUBA_CK(c, cudaMalloc(&t->f, sizeof(double) * n * t->ncomp))))
    return rc;
  t->cap = n;
  return 0;
}

static int eval(void *ctx, long long n, const double *x, const double *w,
                int iter, double *f)
{
  sctx *t = (sctx *)ctx;
  gcuba_call *c = t->c;
  int rc;
  (void)w;
  (void)iter;
  if (t->host && n <= HOSTMAX) return eval_host(t, n, x, f);
  if ((rc = reserve(t, n)) ||
      (rc = GCUBA_CK(c, cudaMemcpyAsync(t->x, x, sizeof(double) * n * t->ndim,
                                        cudaMemcpyHostToDevice, t->stream))))
    return rc;
  rc = c->integrand->gpu->eval_points(t->ndim, t->ncomp, n, t->x, t->f, t->ud,
                                      t->status, t->stream);
  if (rc) return GCUBA_CK(c, (cudaError_t)rc);
  if ((rc = GCUBA_CK(c, cudaMemcpyAsync(f, t->f, sizeof(double) * n * t->ncomp,
                                        cudaMemcpyDeviceToHost, t->stream))) ||
      (rc = GCUBA_CK(c, cudaMemcpyAsync(t->h_status, t->status, sizeof(int),
                                        cudaMemcpyDeviceToHost, t->stream))) ||
      (rc = GCUBA_CK(c, cudaStreamSynchronize(t->stream))))
    return rc;
  if (*t->h_status & GCUBA_ST_ABORT) return GCUBA_FAIL_ABORT;
  if (*t->h_status & GCUBA_ST_NONFINITE) return GCUBA_FAIL_NAN;
  return 0;
}

extern "C" const gcuba_points_ops gcuba_points_cuda = {"gpu", create, destroy,
                                                     eval};
