/* tests/test-gpu.cu -- the kernel that GCUBA_INTEGRAND instantiates runs
   on the device and writes the integrand's values: equal to the host
   function's at the same points (to rounding of the device's exp/cos),
   -999 and NaN reported through the status word, userdata in device
   memory reaching the integrand.  This file is part of gcuba. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <cuda_runtime.h>
/* the integrands of this file get only the rule kernel for any
   dimension (the suite's have the ones for ndim 2..8 too) */
#define GCUBA_CUHRE_NDIMS 0
#define SUITE_HAVE_CU 1
#include "suite.h"
#include "gpu.h"

#define N 100000
#define CK(call)                                                      \
  do {                                                                \
    cudaError_t e_ = (call);                                          \
    if (e_ != cudaSuccess) {                                          \
      printf("not ok - %s: %s\n", #call, cudaGetErrorString(e_));     \
      return 1;                                                       \
    }                                                                 \
  } while (0)

static int run(gintegrand_t fg, gintegrand_t fc, int ndim, int ncomp,
               const double *x, double *dx, double *df, int *dst,
               void *dud, void *hud, double *worst, int *status)
{
  static double hf[N * 3], gf[N * 3];
  long long i;
  int c;
  *worst = 0;
  CK(cudaMemset(dst, 0, sizeof(int)));
  CK(cudaMemcpy(dx, x, sizeof(double) * N * ndim, cudaMemcpyHostToDevice));
  CK((cudaError_t)fg->gpu->eval_points(ndim, ncomp, N, dx, df, dud, dst, 0));
  CK(cudaDeviceSynchronize());
  CK(cudaMemcpy(gf, df, sizeof(double) * N * ncomp, cudaMemcpyDeviceToHost));
  CK(cudaMemcpy(status, dst, sizeof(int), cudaMemcpyDeviceToHost));
  for (i = 0; i < N; ++i) {
    (void)fc->fn(&ndim, x + i * ndim, &ncomp, hf + i * ncomp, hud);
    for (c = 0; c < ncomp; ++c) {
      double a = hf[i * ncomp + c], b = gf[i * ncomp + c];
      double e = a == b ? 0 : fabs(a - b) / fmax(fabs(a), 1e-300);
      if (!(e <= *worst)) *worst = e; /* NaN propagates */
    }
  }
  return 0;
}

/* prod_i (1 + x_i^2): integral (4/3)^ndim */
GCUBA_INTEGRAND(poly)(const int *ndim, const double x[], const int *ncomp,
                      double f[], void *userdata)
{
  double p = 1;
  for (int i = 0; i < *ndim; ++i) p *= 1 + x[i] * x[i];
  f[0] = p;
  return 0;
}

/* gCuhre through the rule kernel for any dimension */
static void generic_kernel(int ndim, double epsrel)
{
  long long neval;
  int nregions, fail;
  double integral, error, prob, truth = pow(4.0 / 3, ndim);
  llgCuhre(ndim, 1, poly, NULL, 1, epsrel, 0, 0, 0, 2000000000LL, 0, NULL,
           NULL, &nregions, &neval, &fail, &integral, &error, &prob);
  ok(fail == 0 && fabs(integral - truth) <= epsrel * truth &&
         strcmp(gcuba_last_backend(), "gpu") == 0,
     "%dD, rule kernel for any dimension: fail %d, %.15g (true %.15g), "
     "%lld evaluations, backend %s", ndim, fail, integral, truth, neval,
     gcuba_last_backend());
}

int main(void)
{
  static double x[N * 8];
  double *dx, *df, worst;
  int *dst, status, fam;
  unsigned long long s = 88172645463325252ULL;
  struct suite_param p = {2.5, 3}, *dp;
  gpu_required_or_skip();
  plan(0);
  for (long long i = 0; i < N * 8; ++i) {
    s ^= s << 13; s ^= s >> 7; s ^= s << 17;
    x[i] = (s >> 11) * (1.0 / 9007199254740992.0);
  }
  CK(cudaMalloc(&dx, sizeof(double) * N * 8));
  CK(cudaMalloc(&df, sizeof(double) * N * 3));
  CK(cudaMalloc(&dst, sizeof(int)));
  CK(cudaMalloc(&dp, sizeof p));
  CK(cudaMemcpy(dp, &p, sizeof p, cudaMemcpyHostToDevice));
  ok(f4_cu->gpu->abi == GCUBA_ABI_VERSION, "GPU table ABI %d",
     f4_cu->gpu->abi);
  for (fam = 1; fam <= 8; ++fam) {
    if (run(suite_family(fam, 1), suite_family(fam, 0), 8, 1, x, dx, df, dst,
            0, 0, &worst, &status))
      return 1;
    /* nvcc contracts a*b+c to fma: a few ulps in the arguments, more in
       cos near its zeros */
    ok(worst <= 1e-10 && status == 0,
       "f%d 8D on the device: %d points, worst rel. difference %.2e, "
       "status %d", fam, N, worst, status);
  }
  if (run(f43c_cu, f43c_c, 3, 3, x, dx, df, dst, 0, 0, &worst, &status))
    return 1;
  ok(worst <= 1e-10 && status == 0, "ncomp = 3 on the device (%.2e)",
     worst);
  if (run(fparam_cu, fparam_c, 2, 1, x, dx, df, dst, dp, &p, &worst,
          &status))
    return 1;
  ok(worst <= 1e-15 && status == 0,
     "userdata in device memory reaches the kernel (%.2e)", worst);
  if (run(fabort_cu, fabort_c, 2, 1, x, dx, df, dst, 0, 0, &worst, &status))
    return 1;
  ok(status & GCUBA_ST_ABORT, "-999 reported by the kernel");
  if (run(fnan_cu, fnan_c, 2, 1, x, dx, df, dst, 0, 0, &worst, &status))
    return 1;
  ok((status & GCUBA_ST_NONFINITE) && !(status & GCUBA_ST_ABORT),
     "NaN reported by the kernel");
  CK(cudaFree(dx));
  CK(cudaFree(df));
  CK(cudaFree(dst));
  CK(cudaFree(dp));
  setenv("GCUBA_DEVICE", "gpu", 1);
  generic_kernel(3, 1e-9);
  generic_kernel(10, 1e-6);
  return battery_done();
}
