/* cuda/vegas_strat.cu -- adaptive stratification in gVegas's CUDA
   backend (the ops' units and units_get): the allocation of an
   iteration's units to its cubes made on the device with the host's
   bits (weights, their canonical sum, counts, a scan, the spread of
   what the counts left), the units' variances summed per cube, and the
   units and variances copied to the host for a state file.  This file
   is part of gcuba. */
#include <cuda_runtime.h>
#include <stdint.h>
#include "cuda/vegas_int.cuh"
#include <cub/device/device_scan.cuh>

/* adaptive stratification: the variances of units u0 .. u1-1 (uv, from
   u0) added to those of their cubes, in unit order */
__global__ void gcuba_vk_cvar(const long long *R, long long nreal,
                              const double *uv, double *cvar, long long u0,
                              long long u1)
{
  const long long h0 = gcuba_vegas_unit_cube((const int64_t *)R, nreal, u0),
                  h1 = gcuba_vegas_unit_cube((const int64_t *)R, nreal,
                                             u1 - 1);
  for (long long h = h0 + (long long)blockIdx.x * blockDim.x + threadIdx.x;
       h <= h1; h += (long long)gridDim.x * blockDim.x) {
    const long long a = R[h] > u0 ? R[h] : u0,
                    e = R[h + 1] < u1 ? R[h + 1] : u1;
    double v = cvar[h];
    for (long long u = a; u < e; ++u) v += uv[u - u0];
    cvar[h] = v;
  }
}

/* w[h]: cube h's weight (0 without previous variances) */
__global__ void gcuba_vk_uweight(const struct gcuba_vegas_units u,
                                 const long long *Rp, const double *cvp,
                                 double *w)
{
  const long long nr = u.s.ncubes;
  for (long long h = (long long)blockIdx.x * blockDim.x + threadIdx.x;
       h < nr; h += (long long)gridDim.x * blockDim.x) {
    const long long ho =
        u.nrp == nr ? h : gcuba_vegas_unit_from(&u.s, &u.o, h);
    w[h] = gcuba_vegas_unit_weight(cvp[ho], Rp[ho + 1] - Rp[ho], u.bk);
  }
}

/* n[h]: cube h's units, from its weight and the weights' sum */
__global__ void gcuba_vk_ucount(const double *w, const double *sum,
                                long long extra, long long nr, int have,
                                long long *n)
{
  for (long long h = (long long)blockIdx.x * blockDim.x + threadIdx.x;
       h < nr; h += (long long)gridDim.x * blockDim.x)
    n[h] = gcuba_vegas_unit_count(have ? w[h] : 0.0, have ? *sum : 0.0,
                                  extra, nr);
}

/* R[h+1] for what the counts left unallocated (T: R[nr] before) */
__global__ void gcuba_vk_uspread(long long *R, const long long *T,
                                 long long target, long long nr)
{
  const long long d = target - *T > 0 ? target - *T : 0;
  for (long long h = (long long)blockIdx.x * blockDim.x + threadIdx.x;
       h < nr; h += (long long)gridDim.x * blockDim.x)
    R[h + 1] = gcuba_vegas_unit_spread(R[h + 1], h, d, nr);
}

/* two device buffers and their capacities trade places */
template <class T>
static void swap_buf(T **a, T **b, long long *ca, long long *cb)
{
  T *p = *a;
  const long long c = *ca;
  *a = *b;
  *b = p;
  *ca = *cb;
  *cb = c;
}

int gcuba_vc_units(void *ctx, const struct gcuba_vegas_units *u,
                   int64_t *nunits)
{
  struct vctx *t = (struct vctx *)ctx;
  gcuba_call *c = t->c;
  cudaStream_t st = t->stream;
  const long long nr = u->s.ncubes, nrp = u->nrp;
  long long blocks = (nr + 255) / 256, total = 0;
  size_t bytes = 0;
  int rc;
  if (blocks > 8LL * t->nsm) blocks = 8LL * t->nsm;
  /* the finished iteration's units become the previous ones (a second
     allocation for the same iteration keeps them) */
  if (t->fresh) {
    swap_buf(&t->R, &t->Rp, &t->rcap, &t->rpcap);
    swap_buf(&t->cvar, &t->cvp, &t->ccap, &t->cpcap);
    t->fresh = 0;
  }
  if ((rc = gcuba_vc_dgrow(t, (void **)&t->R, &t->rcap, nr + 1,
                           sizeof(long long))) ||
      (rc = gcuba_vc_dgrow(t, (void **)&t->cvar, &t->ccap, nr,
                           sizeof(double))) ||
      (rc = gcuba_vc_dgrow(t, (void **)&t->w, &t->wcap, nr,
                           sizeof(double))) ||
      (rc = gcuba_vc_dgrow(t, (void **)&t->n, &t->ncap, nr,
                           sizeof(long long))) ||
      (rc = gcuba_vc_dgrow(t, (void **)&t->tsc, &t->tcap,
                           gcuba_vegas_tree_next(nr) + 1, sizeof(double))))
    return rc;
  if (u->R && nrp > 0 &&
      ((rc = gcuba_vc_dgrow(t, (void **)&t->Rp, &t->rpcap, nrp + 1,
                            sizeof(long long))) ||
       (rc = gcuba_vc_dgrow(t, (void **)&t->cvp, &t->cpcap, nrp,
                            sizeof(double))) ||
       (rc = GCUBA_CK(c, cudaMemcpyAsync(t->Rp, u->R,
                                         sizeof(long long) * (nrp + 1),
                                         cudaMemcpyHostToDevice, st))) ||
       (rc = GCUBA_CK(c, cudaMemcpyAsync(t->cvp, u->cvar,
                                         sizeof(double) * nrp,
                                         cudaMemcpyHostToDevice, st)))))
    return rc;
  if ((rc = GCUBA_CK(c, cub::DeviceScan::InclusiveSum(
           (void *)NULL, bytes, t->n, t->R + 1, (int64_t)nr, st))) ||
      (rc = gcuba_vc_dgrow(t, &t->scan, &t->scancap,
                           bytes > 0 ? (long long)bytes : 1, 1)))
    return rc;
  /* the weights and their sum (the last value of tsc), the counts, R */
  if ((rc = GCUBA_CK(c, cudaMemsetAsync(t->tsc + gcuba_vegas_tree_next(nr),
                                        0, sizeof(double), st))))
    return rc;
  if (nrp > 0) {
    gcuba_vk_uweight<<<(unsigned)blocks, 256, 0, st>>>(*u, t->Rp, t->cvp,
                                                       t->w);
    if ((rc = GCUBA_CK_LAUNCH(c, "gcuba_vk_uweight"))) return rc;
    gcuba_vk_tree_all<<<dim3((unsigned)gcuba_vegas_tree_next(nr), 1),
                        TREE_THREADS, 0, st>>>(
        t->w, nr, t->tsc, gcuba_vegas_tree_next(nr),
        t->tsc + gcuba_vegas_tree_next(nr), t->cnt);
    if ((rc = GCUBA_CK_LAUNCH(c, "gcuba_vk_tree_all"))) return rc;
  }
  gcuba_vk_ucount<<<(unsigned)blocks, 256, 0, st>>>(
      t->w, t->tsc + gcuba_vegas_tree_next(nr), u->extra, nr, nrp > 0,
      t->n);
  if ((rc = GCUBA_CK_LAUNCH(c, "gcuba_vk_ucount")) ||
      (rc = GCUBA_CK(c, cudaMemsetAsync(t->R, 0, sizeof(long long), st))) ||
      (rc = GCUBA_CK(c, cub::DeviceScan::InclusiveSum(
           t->scan, bytes, t->n, t->R + 1, (int64_t)nr, st))) ||
      /* (the sum's place holds R[nr] for the spread) */
      (rc = GCUBA_CK(c, cudaMemcpyAsync(t->tsc + gcuba_vegas_tree_next(nr),
                                        t->R + nr, sizeof(long long),
                                        cudaMemcpyDeviceToDevice, st))))
    return rc;
  gcuba_vk_uspread<<<(unsigned)blocks, 256, 0, st>>>(
      t->R, (const long long *)(t->tsc + gcuba_vegas_tree_next(nr)),
      nr + u->extra, nr);
  if ((rc = GCUBA_CK_LAUNCH(c, "gcuba_vk_uspread")) ||
      (rc = GCUBA_CK(c, cudaMemsetAsync(t->cvar, 0, sizeof(double) * nr,
                                        st))) ||
      (rc = GCUBA_CK(c, cudaMemcpyAsync(&total, t->R + nr, sizeof total,
                                        cudaMemcpyDeviceToHost, st))) ||
      (rc = GCUBA_CK(c, cudaStreamSynchronize(st))))
    return rc;
  *nunits = total;
  return 0;
}

/* the latest finished iteration's units and variance sums to the host */
int gcuba_vc_units_get(void *ctx, int64_t nrp, int64_t *R,
                       double *cvar)
{
  struct vctx *t = (struct vctx *)ctx;
  gcuba_call *c = t->c;
  const long long *r = t->fresh ? t->R : t->Rp;
  const double *v = t->fresh ? t->cvar : t->cvp;
  int rc;
  if ((rc = GCUBA_CK(c, cudaMemcpyAsync(R, r, sizeof(long long) * (nrp + 1),
                                        cudaMemcpyDeviceToHost,
                                        t->stream))) ||
      (rc = GCUBA_CK(c, cudaMemcpyAsync(cvar, v, sizeof(double) * nrp,
                                        cudaMemcpyDeviceToHost,
                                        t->stream))) ||
      (rc = GCUBA_CK(c, cudaStreamSynchronize(t->stream))))
    return rc;
  return 0;
}
