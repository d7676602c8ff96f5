/* tests/test-ncomp-gpu.cu -- many components on the GPU, for the four
   routines.  gCuhre: ncomp 1 and 8 on the GPU's rule kernels, 9, 64 and
   1024 with the integrand on the GPU and the rules on the CPU threads
   (cuda/points.cu, src/cpu/cuhre_cpu.c).  gVegas: its kernels, every
   ncomp.  gSuave: its driver on the host, the samples and the passes
   over them on the GPU (cuda/suave.cu).  gDivonne: its driver on the
   host, the integrand's values from the GPU (cuda/points.cu).  Component
   k of the integrand is
   a 3-D Gaussian of its own centre and width times (k + 1); each call is
   made on the GPU and on the CPU backend: the same fail and neval (for
   gDivonne within 0.5%: its extremum searches follow the integrand's
   last bits, which the device's exp may differ in), the answers within
   their errors of each other, and, where fail = 0, every
   component near the closed form (gCuhre: within its tolerance; the
   statistical routines: within 5 of its errors, or its tolerance).  The
   GPU call must run on the GPU (gcuba_last_backend).  Diagnostics give
   the time of each call and per evaluation and component.  Without a
   usable device it skips (fails under GCUBA_TEST_REQUIRE_GPU=1).  With
   GCUBA_DEVICE unset, gCuhre's calls with more than 8 components stay on
   the CPU threads.  This file is part of gcuba. */
#include <cuda_runtime.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "tap.h"
#include "gpu.h"
#include "gcuba.h"
#include "gaussians.h"

/* userdata: NULL, or a scale factor (in device memory: check_devud) */
GCUBA_INTEGRAND(many)(const int *ndim, const double x[], const int *ncomp,
                      double f[], void *userdata)
{
  gaussians_eval(*ndim, x, *ncomp, f,
                 userdata ? *(const double *)userdata : 1);
  return 0;
}

static double now_ms(void)
{
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec * 1e3 + ts.tv_nsec * 1e-6;
}

enum { CUHRE, VEGAS, SUAVE, DIVONNE };
static const char *const names[] = {"gCuhre", "gVegas", "gSuave",
                                    "gDivonne"};

/* one call of routine r on the backend dev ("gpu" or "cpu") */
static void call(int r, const char *dev, int ncomp, double epsrel,
                 long long *neval, int *fail, double *I, double *E,
                 double *P)
{
  const int ndim = 3;
  int nreg;
  setenv("GCUBA_DEVICE", dev, 1);
  switch (r) {
  case CUHRE:
    llgCuhre(ndim, ncomp, many, NULL, 1, epsrel, 0, 0, 0, 10000000, 0, NULL,
             NULL, &nreg, neval, fail, I, E, P);
    break;
  case VEGAS:
    llgVegas(ndim, ncomp, many, NULL, 1, epsrel, 0, 0, 1, 0, 10000000,
             10000, 5000, 1000, 0, NULL, NULL, neval, fail, I, E, P);
    break;
  case SUAVE:
    llgSuave(ndim, ncomp, many, NULL, 1, epsrel, 0, 0, 1, 0, 2000000, 1000,
             2, 25, NULL, NULL, &nreg, neval, fail, I, E, P);
    break;
  default:
    llgDivonne(ndim, ncomp, many, NULL, 1, epsrel, 0, 0, 0, 0, 2000000, 47,
               1, 1, 5, 0, 10, .25, 0, ndim, NULL, 0, NULL, NULL, NULL,
               &nreg, neval, fail, I, E, P);
  }
}

static void check(int r, int ncomp, double epsrel)
{
  const int ndim = 3;
  double *I = (double *)malloc(sizeof(double) * 6 * ncomp);
  double *E = I + ncomp, *P = E + ncomp, *i1 = P + ncomp, *e1 = i1 + ncomp,
         *p1 = e1 + ncomp;
  long long nev, n1;
  int fail, f1, k, within = 1, agree = 1;
  double t0, tg, tc;
  char bk[8];
  t0 = now_ms();
  call(r, "gpu", ncomp, epsrel, &nev, &fail, I, E, P);
  tg = now_ms() - t0;
  snprintf(bk, sizeof bk, "%s", gcuba_last_backend());
  t0 = now_ms();
  call(r, "cpu", ncomp, epsrel, &n1, &f1, i1, e1, p1);
  tc = now_ms() - t0;
  for (k = 0; k < ncomp; ++k) {
    const double t = gaussians_truth(k, ndim), tol = epsrel * fabs(t);
    /* the exact rules' answers agree with their errors; the statistical
       routines' GPU and CPU answers are the same samples' */
    if (!(fabs(I[k] - i1[k]) <= E[k] + e1[k] + 1e-12 * fabs(t))) agree = 0;
    if (fail == 0 &&
        !(fabs(I[k] - t) <= (r == CUHRE ? tol : fmax(5 * E[k], tol)) +
                                1e-13 * (k + 1))) {
      if (within)
        diag("component %d: %.15g +- %.3g, true %.15g", k, I[k], E[k], t);
      within = 0;
    }
  }
  ok(!strcmp(bk, "gpu") && fail == 0 && f1 == fail &&
         (n1 == nev || (r == DIVONNE && llabs(n1 - nev) * 200 <= nev)) &&
         agree && within,
     "%s, ncomp %d at epsrel %g: on the %s, fail %d, neval %lld (CPU: "
     "fail %d, neval %lld); every component within the errors of the "
     "CPU's and near the truth", names[r], ncomp, epsrel, bk, fail, nev,
     f1, n1);
  diag("%s, ncomp %d: GPU %.1f ms, CPU backend %.1f ms (%lld evaluations, "
       "%.3f ns per evaluation and component on the GPU)", names[r], ncomp,
       tg, tc, nev, tg * 1e6 / ((double)nev * ncomp));
  free(I);
  battery_backend();
}

/* userdata in device memory: the integrand reads it on the GPU, and the
   CPU threads, which apply the rules, never call it (no search for where
   to cut) */
static void check_devud(void)
{
  double *d = NULL, I[16], E[16], P[16];
  const double two = 2;
  long long nev;
  int nreg, fail, k, good = 1;
  if (cudaMalloc((void **)&d, sizeof *d) != cudaSuccess ||
      cudaMemcpy(d, &two, sizeof two, cudaMemcpyHostToDevice) !=
          cudaSuccess) {
    ok(0, "cudaMalloc for the userdata");
    return;
  }
  setenv("GCUBA_DEVICE", "gpu", 1);
  llgCuhre(3, 16, many, d, 1, 1e-5, 0, 0, 0, 10000000, 0, NULL, NULL, &nreg,
           &nev, &fail, I, E, P);
  for (k = 0; k < 16; ++k)
    if (!(fabs(I[k] - 2 * gaussians_truth(k, 3)) <=
          2e-5 * gaussians_truth(k, 3)))
      good = 0;
  ok(fail == 0 && good && !strcmp(gcuba_last_backend(), "gpu"),
     "16 components, userdata in device memory: fail %d on the %s, every "
     "component within its tolerance", fail, gcuba_last_backend());
  cudaFree(d);
  battery_backend();
}

int main(void)
{
  gpu_required_or_skip();
  plan(0);
  {
    static const int nc[] = {1, 8, 9, 64, 1024};
    /* gCuhre's tolerances as before; the statistical routines at 1e-3,
       gSuave and gDivonne at 1e-2 with 1024 components (their drivers'
       work per component: at 1e-3, 15 to 30 s) */
    static const double eps[4][5] = {{1e-6, 1e-6, 1e-6, 1e-5, 1e-4},
                                     {1e-3, 1e-3, 1e-3, 1e-3, 1e-3},
                                     {1e-3, 1e-3, 1e-3, 1e-3, 1e-2},
                                     {1e-3, 1e-3, 1e-3, 1e-3, 1e-2}};
    int r, i;
    for (r = CUHRE; r <= DIVONNE; ++r)
      for (i = 0; i < 5; ++i) check(r, nc[i], eps[r][i]);
  }
  check_devud();
  /* GCUBA_DEVICE=gpu with more than 8 components runs there (it once
     gave GCUBA_FAIL_NOTAVAIL); without it, on the CPU threads */
  {
    double I[16], E[16], P[16];
    long long nev;
    int nreg, fail, fail2;
    char bk[8];
    setenv("GCUBA_DEVICE", "gpu", 1);
    llgCuhre(2, 16, many, NULL, 1, 1e-3, 0, 0, 0, 1000000, 0, NULL, NULL,
             &nreg, &nev, &fail, I, E, P);
    snprintf(bk, sizeof bk, "%s", gcuba_last_backend());
    unsetenv("GCUBA_DEVICE");
    llgCuhre(2, 16, many, NULL, 1, 1e-3, 0, 0, 0, 1000000, 0, NULL, NULL,
             &nreg, &nev, &fail2, I, E, P);
    ok(fail == 0 && !strcmp(bk, "gpu") && fail2 == 0 &&
           !strcmp(gcuba_last_backend(), "cpu"),
       "2-D, 16 components: GCUBA_DEVICE=gpu on the %s (fail %d), unset "
       "on the %s (fail %d)", bk, fail, gcuba_last_backend(), fail2);
    battery_backend();
  }
  return battery_done();
}
