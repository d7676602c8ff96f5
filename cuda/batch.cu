/* cuda/batch.cu -- gCuhreBatch on the GPU: sets up and launches the
   pipeline of gcuba/cuhre_batch.cuh (every integral's whole loop in one
   launch), then hands each integral's result back as a single call
   would: fail codes, messages at the caller's verbosity, prob from the
   iteration totals.  Memory: the rule's points, the parameter blocks
   (one copy), the results, and a slab of regions per resident block,
   sized from maxeval and cudaMemGetInfo.  Every CUDA call is checked.
   This file is part of gcuba. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "common.cuh"
#include "common/chisq.h"
#include "cuhre/backend.h"
#include "gcuba/cuhre_batch.cuh"

/* the share of free device memory the slabs may take */
#define SLAB_SHARE 0.5
/* most leaves per slab (a larger partition is run as a single call) */
#define SLAB_MAX (1LL << 22)

static double now_ms(void)
{
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec * 1e3 + ts.tv_nsec * 1e-6;
}


/* integral b's outcome, as the driver reports it */
static void finish(const gcuba_call *proto, int b, int status,
                   long long iters, const double *integral,
                   const double *error, const gcuba_vegas_combine_t *chi,
                   long long nevalb, int *fail)
{
  gcuba_call c = *proto;
  char name[48];
  int comp;
  snprintf(name, sizeof name, "%s[%d]", proto->routine, b);
  c.routine = name;
  c.fail = 0;
  c.neval = nevalb;
  for (comp = 0; comp < c.ncomp; ++comp) {
    double prob;
    gcuba_vegas_combine_result(&chi[comp], 0, NULL, NULL, NULL, NULL, &prob);
    c.integral[(size_t)b * c.ncomp + comp] = integral[comp];
    c.error[(size_t)b * c.ncomp + comp] = error[comp];
    c.prob[(size_t)b * c.ncomp + comp] = prob == GCUBA_CHISQ_NODOF ? 0 : prob;
  }
  switch (status) {
  case GCUBA_BATCH_MAXEVAL:
    c.fail = 1;
    gcuba_log(&c, 1, "maxeval %lld reached (%lld evaluations)", c.maxeval,
              c.neval);
    break;
  case GCUBA_BATCH_FINERR:
    c.fail = 1;
    gcuba_log(&c, 1, "the finished regions' error is above the tolerance "
              "(an integrand changing sign? try flags GCUBA_NORELFINISH)");
    break;
  case GCUBA_BATCH_ABORT:
    gcuba_fail(&c, GCUBA_FAIL_ABORT, "at iteration %lld", iters);
    break;
  case GCUBA_BATCH_NAN:
    gcuba_fail(&c, GCUBA_FAIL_NAN, "at iteration %lld (the estimate so far "
               "is returned)", iters);
    break;
  }
  *fail = c.fail;
}

extern "C" int gcuba_cuhre_batch_gpu(gcuba_call *c, int n, size_t stride,
                                      long long *neval, int *nregions,
                                      int *fail, unsigned char *defer)
{
  const struct gcuba_gpu_ops *g = c->integrand->gpu;
  struct gcuba_cuhre_batch_launch a;
  gcuba_rule r;
  gcuba_rule *drule = NULL;
  double *du = NULL, *dres = NULL, *hres = NULL;
  long long *dll = NULL, *hll = NULL;
  int *dst = NULL, *hst = NULL, ustride = 0, rc = 0, q = 0;
  unsigned int *dnext = NULL;
  char *slab = NULL;
  void *duser = NULL, *ucopy = NULL;
  size_t ucap = 0;
  cudaStream_t stream = NULL;
  size_t freeb = 0, totalb = 0, nres = (size_t)n * c->ncomp;
  const size_t chib = sizeof(gcuba_vegas_combine_t) * nres;
  long long np, n0, m, per, b;
  double t0 = now_ms(), t1;

  if (!g || !g->cuhre_batch) {
    gcuba_log(c, 1, "no GPU pipeline: the integrand's file was compiled "
              "without GCUBA_BATCH (define it to 1 before including "
              "gcuba.h); single GPU calls");
    return 1;
  }
  if (gcuba_rule_init(&r, c->ndim, c->key))
    return gcuba_fail(c, GCUBA_FAIL_NDIM, "no rule for ndim = %d, key = %d",
                      c->ndim, c->key);
  np = gcuba_rule_nevals(&r);
  memset(&a, 0, sizeof a);
  a.ndim = c->ndim;
  a.ncomp = c->ncomp;
  a.nint = n;
  a.nsets = r.nsets;
  a.npoints = r.npoints;
  a.nprobe = r.nprobe;
  a.stride = stride;
  a.epsrel = c->epsrel;
  a.epsabs = c->epsabs;
  a.relfinish = !(c->flags & GCUBA_NORELFINISH);
  a.mineval = c->mineval;
  a.maxeval = c->maxeval;
  a.query = &q;
  /* the most blocks resident at once (the launcher's occupancy) */
  if ((rc = g->cuhre_batch(&a, NULL)) != 0) {
    (void)cudaGetLastError();
    return 1; /* no pipeline for this integrand: single calls */
  }
  a.query = NULL;
  a.nblocks = q < n ? q : n;
  if (a.nblocks < 1) return 1;
  /* leaves per slab: what maxeval can pay for (each leaf costs np
     evaluations), at least the start and its first split */
  n0 = 1LL << (c->ndim < 10 ? c->ndim : 10);
  m = c->maxeval / np + 2 * n0 + 64;
  if (m > SLAB_MAX) m = SLAB_MAX;
  if (GCUBA_CK(c, cudaMemGetInfo(&freeb, &totalb))) return c->fail;
  per = (long long)gcuba_batch_slab_layout(NULL, c->ndim, c->ncomp, 1024,
                                           NULL) / 1024 + 1;
  if (c->set.memlimit > 0) {
    /* GCUBA_MEMLIMIT bounds each integral's region store */
    long long lim = (long long)(c->set.memlimit / per);
    if (lim < 2) lim = 2;
    if (m > lim) m = lim;
  }
  if (m * per * a.nblocks > SLAB_SHARE * (double)freeb)
    m = (long long)(SLAB_SHARE * (double)freeb / a.nblocks / per);
  if (m < 4 * n0) return 1; /* too little memory: single calls */
  a.maxregions = m;
  a.slabbytes = gcuba_batch_slab_layout(NULL, c->ndim, c->ncomp, m, NULL);
  a.slabbytes = (a.slabbytes + 255) / 256 * 256;

  if (GCUBA_CK(c, cudaStreamCreateWithFlags(&stream,
                                            cudaStreamNonBlocking)) ||
      GCUBA_CK(c, cudaMalloc(&drule, sizeof r)) ||
      GCUBA_CK(c, cudaMemcpy(drule, &r, sizeof r, cudaMemcpyHostToDevice)) ||
      gcuba_cuhre_points(c, &r, &du, &ustride) ||
      gcuba_device_userdata(c, c->ud.p, c->ud.bytes,
                            " (or a nonzero userstride)", &duser, &ucopy,
                            &ucap, stream) ||
      GCUBA_CK(c, cudaMalloc(&slab, a.slabbytes * a.nblocks)) ||
      GCUBA_CK(c, cudaMalloc(&dres, sizeof(double) * 2 * nres + chib)) ||
      GCUBA_CK(c, cudaMalloc(&dll, sizeof(long long) * 3 * n)) ||
      GCUBA_CK(c, cudaMalloc(&dst, sizeof(int) * n)) ||
      GCUBA_CK(c, cudaMalloc(&dnext, sizeof(unsigned int))) ||
      GCUBA_CK(c, cudaMemsetAsync(dnext, 0, sizeof(unsigned int), stream))) {
    rc = c->fail;
    goto done;
  }
  hres = (double *)malloc(sizeof(double) * 2 * nres + chib);
  hll = (long long *)malloc(sizeof(long long) * 3 * n);
  hst = (int *)malloc(sizeof(int) * n);
  if (!hres || !hll || !hst) {
    rc = gcuba_fail(c, GCUBA_FAIL_NOMEM, "batch results");
    goto done;
  }
  a.rule = drule;
  a.u = du;
  a.ustride = ustride;
  a.userdata = (char *)duser;
  a.slab = slab;
  a.next = dnext;
  a.integral = dres;
  a.error = dres + nres;
  a.chi = (gcuba_vegas_combine_t *)(dres + 2 * nres);
  a.neval = dll;
  a.nregions = dll + n;
  a.iters = dll + 2 * n;
  a.status = dst;
  t1 = now_ms();
  if (GCUBA_CK(c, g->cuhre_batch(&a, stream)) ||
      GCUBA_CK(c, cudaStreamSynchronize(stream)) ||
      GCUBA_CK(c, cudaMemcpy(hres, dres, sizeof(double) * 2 * nres + chib,
                             cudaMemcpyDeviceToHost)) ||
      GCUBA_CK(c, cudaMemcpy(hll, dll, sizeof(long long) * 3 * n,
                             cudaMemcpyDeviceToHost)) ||
      GCUBA_CK(c, cudaMemcpy(hst, dst, sizeof(int) * n,
                             cudaMemcpyDeviceToHost))) {
    rc = c->fail;
    goto done;
  }
  {
    long long ndefer = 0, nev = 0;
    const gcuba_vegas_combine_t *chi =
        (const gcuba_vegas_combine_t *)(hres + 2 * nres);
    for (b = 0; b < n; ++b) {
      defer[b] = hst[b] == GCUBA_BATCH_DEFER;
      if (defer[b]) {
        ++ndefer;
        continue;
      }
      neval[b] = hll[b];
      nev += hll[b];
      nregions[b] = hll[n + b] > 0x7fffffff ? 0x7fffffff : (int)hll[n + b];
      finish(c, (int)b, hst[b], hll[2 * n + b], hres + b * c->ncomp,
             hres + nres + b * c->ncomp, chi + b * c->ncomp, hll[b],
             &fail[b]);
    }
    gcuba_log(c, 2, "GPU pipeline: %d integrals on %d blocks, %lld leaves "
              "per block, %lld evaluations in %.3f ms (set-up %.3f ms); "
              "%lld run alone (larger partitions)", n, a.nblocks, m, nev,
              now_ms() - t1, t1 - t0, ndefer);
  }
done:
  if (rc == GCUBA_FAIL_DEVMEM) {
    /* no room for the pipeline: the integrals run as single calls */
    gcuba_log(c, 1, "GPU pipeline: out of device memory, single calls");
    c->fail = 0;
    rc = 1;
  }
  cudaFree(dnext);
  cudaFree(dst);
  cudaFree(dll);
  cudaFree(dres);
  cudaFree(slab);
  cudaFree(ucopy);
  cudaFree(du);
  cudaFree(drule);
  if (stream) cudaStreamDestroy(stream);
  free(hres);
  free(hll);
  free(hst);
  return rc;
}
