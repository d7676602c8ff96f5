/* src/api/romberg.c -- gRomberg and llgRomberg: the arguments checked as
   gCuhre's are (ncomp, NULL pointers, tolerances, nvec, mineval and
   maxeval; ndim is 1), then the driver (src/romberg/).  Both entry points
   share one body; the int one narrows neval.  This file is part of gcuba. */
#include <limits.h>
#include "common/common.h"
#include "romberg/romberg.h"

static void entry(const char *routine, const int ncomp,
                  gintegrand_t integrand, void *userdata,
                  const long long int nvec, const gcubareal epsrel,
                  const gcubareal epsabs, const int flags,
                  const long long int mineval, const long long int maxeval,
                  long long int *neval, int *fail, gcubareal integral[],
                  gcubareal error[], gcubareal prob[])
{
  gcuba_call c = {0};
  int i;
  c.routine = routine;
  c.ndim = 1;
  c.ncomp = ncomp;
  c.integrand = integrand;
  c.userdata = userdata;
  c.nvec = nvec;
  c.epsrel = epsrel;
  c.epsabs = epsabs;
  c.flags = flags;
  c.mineval = mineval;
  c.maxeval = maxeval;
  c.integral = integral;
  c.error = error;
  c.prob = prob;
  c.verbose = gcuba_env_verbose(flags);
  if (!neval || !fail) {
    gcuba_fail(&c, GCUBA_FAIL_NULL, "neval or fail is NULL");
    if (fail) *fail = c.fail;
    return;
  }
  *neval = 0;
  if (gcuba_check_common(&c, 1, 1)) {
    *fail = c.fail;
    return;
  }
  /* levels 0 and 1 (3 points) give the first error estimate */
  if (maxeval < 3) {
    gcuba_fail(&c, GCUBA_FAIL_EVALS,
               "maxeval = %lld: gRomberg needs at least 3 evaluations "
               "(levels 0 and 1) for an error estimate", maxeval);
    *fail = c.fail;
    return;
  }
  for (i = 0; i < ncomp; ++i) integral[i] = error[i] = prob[i] = 0;
  gcuba_run_init();
  gcuba_romberg_run(&c);
  gcuba_run_exit();
  *neval = c.neval;
  *fail = c.fail;
}

void llgRomberg(const int ncomp, gintegrand_t integrand, void *userdata,
                const long long int nvec, const gcubareal epsrel,
                const gcubareal epsabs, const int flags,
                const long long int mineval, const long long int maxeval,
                long long int *neval, int *fail, gcubareal integral[],
                gcubareal error[], gcubareal prob[])
{
  entry("llgRomberg", ncomp, integrand, userdata, nvec, epsrel, epsabs,
        flags, mineval, maxeval, neval, fail, integral, error, prob);
}

void gRomberg(const int ncomp, gintegrand_t integrand, void *userdata,
              const int nvec, const gcubareal epsrel,
              const gcubareal epsabs, const int flags, const int mineval,
              const int maxeval, int *neval, int *fail,
              gcubareal integral[], gcubareal error[], gcubareal prob[])
{
  long long n = 0;
  entry("gRomberg", ncomp, integrand, userdata, nvec, epsrel, epsabs, flags,
        mineval, maxeval, neval ? &n : NULL, fail, integral, error, prob);
  if (neval) *neval = n > INT_MAX ? INT_MAX : (int)n;
}
