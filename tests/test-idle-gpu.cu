/* tests/test-idle-gpu.cu -- the device memory gcuba keeps between calls
   (idle gCuhre region stores, idle gVegas samplers) never makes a later
   call fail: a gCuhre call leaves a large idle store, the rest of the
   device is taken by the test itself, and a gVegas call that needs more
   than is left still runs (its allocation frees the idle contexts and is
   tried again) and gives the right answer; then a gCuhre call of
   another shape, whose store grows into the idle one's memory.
   This file is part of gcuba. */
#include <cuda_runtime.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include "tap.h"
#include "gpu.h"

/* exp(-625 |x - 1/2|^2): (sqrt(pi) / 25)^ndim on the unit cube */
GCUBA_INTEGRAND(gauss)(const int *ndim, const double x[], const int *ncomp,
                       double f[], void *userdata)
{
  double s = 0;
  (void)ncomp;
  (void)userdata;
  for (int i = 0; i < *ndim; ++i) s += (x[i] - 0.5) * (x[i] - 0.5);
  f[0] = exp(-625 * s);
  return 0;
}

static size_t free_bytes(void)
{
  size_t f = 0, t = 0;
  if (cudaMemGetInfo(&f, &t) != cudaSuccess) return 0;
  return f;
}

/* all but `leave' bytes of what is free, in blocks of at most 1 GiB (the
   last ones smaller); how many blocks in *n */
static void take_all_but(size_t leave, void **blk, int max, int *n)
{
  size_t want = 1ull << 30;
  *n = 0;
  while (*n < max && want >= (1u << 20)) {
    const size_t f = free_bytes();
    if (f <= leave) break;
    if (want > f - leave) want = f - leave;
    if (cudaMalloc(&blk[*n], want) == cudaSuccess)
      ++*n;
    else {
      (void)cudaGetLastError();
      want /= 2;
    }
  }
}

/* a gCuhre call that runs to maxeval (epsrel 1e-14 is never reached),
   its store left idle afterwards */
/* a gCuhre call that runs to maxeval (f4 at epsrel 1e-10 takes billions
   of evaluations in 5 and 6 D), its store left idle afterwards */
static int cuhre_to_maxeval(int ndim, long long maxeval, int *nregions)
{
  int fail;
  long long neval;
  double integral, error, prob;
  llgCuhre(ndim, 1, gauss, NULL, 1, 1e-10, 1e-30, 0, 0, maxeval, 0, NULL,
           NULL, nregions, &neval, &fail, &integral, &error, &prob);
  return fail;
}

/* gVegas, 10^5 points an iteration, at most 10^7 */
static int vegas(double *integral, double *error)
{
  int fail;
  long long neval;
  double prob;
  llgVegas(3, 1, gauss, NULL, 1, 1e-3, 1e-30, 0, 0, 0, 10000000LL,
           100000LL, 0, 1000, 0, NULL, NULL, &neval, &fail, integral, error,
           &prob);
  return fail;
}

int main(void)
{
  enum { MAXBLK = 256 };
  const size_t leave = 4u << 20; /* what the test leaves free */
  void *blk[MAXBLK];
  int nblk = 0, fail, i, nregions;
  double integral, error;
  const double t3 = pow(sqrt(M_PI) / 25, 3);
  size_t before, idle, after, sampler;
  gpu_required_or_skip();
  setenv("GCUBA_DEVICE", "gpu", 1);
  plan(0);

  /* every kernel run once first (a launch may size the device's local
     memory); the sampler's size */
  cuhre_to_maxeval(6, 1000000LL, &nregions);
  cuhre_to_maxeval(5, 1000000LL, &nregions);
  gcuba_release();
  before = free_bytes();
  vegas(&integral, &error);
  sampler = before - free_bytes();
  gcuba_release();

  /* an idle 5-D store of hundreds of MB */
  before = free_bytes();
  fail = cuhre_to_maxeval(5, 800000000LL, &nregions);
  idle = before - free_bytes();
  ok(fail == 1 && sampler > leave && idle > sampler + leave,
     "a 5-D gCuhre call to maxeval leaves %zu MB idle (fail %d); a gVegas "
     "sampler takes %zu MB", idle >> 20, fail, sampler >> 20);

  /* the device full but 4 MB: the sampler does not fit beside the idle
     store */
  take_all_but(leave, blk, MAXBLK, &nblk);
  diag("%d blocks taken, %zu MB free", nblk, free_bytes() >> 20);
  fail = vegas(&integral, &error);
  ok(fail == 0 && fabs(integral - t3) <= 5 * error && error <= 1e-3 * t3,
     "gVegas beside the idle store on a full device: fail %d, %.10g +- "
     "%.3g (true %.10g)", fail, integral, error, t3);
  after = free_bytes();
  gcuba_release();
  /* gcuba_release frees the sampler now, not the store too */
  ok(free_bytes() - after < idle,
     "the idle store was freed for it (gcuba_release then frees %zu MB, "
     "the store held %zu MB)", (free_bytes() - after) >> 20, idle >> 20);
  for (i = 0; i < nblk; ++i) cudaFree(blk[i]);

  /* the same with gCuhre: a 6-D call to maxeval whose store grows into
     the idle 5-D one's memory; in 4 MB fewer than 14,000 regions fit */
  cuhre_to_maxeval(5, 800000000LL, &nregions);
  take_all_but(leave, blk, MAXBLK, &nblk);
  fail = cuhre_to_maxeval(6, 400000000LL, &nregions);
  ok(fail == 1 && nregions > 100000,
     "a 6-D gCuhre call on a full device grows its store into the idle "
     "5-D one's memory: fail %d, %d regions", fail, nregions);
  for (i = 0; i < nblk; ++i) cudaFree(blk[i]);
  return battery_done();
}
