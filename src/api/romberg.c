/* src/api/romberg.c -- gRomberg and llgRomberg: the arguments checked as
   gCuhre's are (ncomp, NULL pointers, tolerances, nvec, mineval and
   maxeval; ndim is 1), then the driver (src/romberg/).  Both entry points
   share one body; the int one narrows neval.  This file is part of gcuba. */
#include <limits.h>
#include "common/common.h"
#include "plan/plan.h"

static void entry(const char *routine, const int ncomp,
                  gintegrand_t integrand, void *userdata,
                  const long long int nvec, const gcubareal epsrel,
                  const gcubareal epsabs, const int flags,
                  const long long int mineval, const long long int maxeval,
                  long long int *neval, int *fail, gcubareal integral[],
                  gcubareal error[], gcubareal prob[])
{
  gcuba_call c = {0};
  c.routine = routine;
  c.ndim = 1;
  c.ncomp = ncomp;
  c.integrand = integrand;
  c.ud.p = userdata;
  c.nvec = nvec;
  c.epsrel = epsrel;
  c.epsabs = epsabs;
  c.flags = flags;
  c.mineval = mineval;
  c.maxeval = maxeval;
  c.integral = integral;
  c.error = error;
  c.prob = prob;
  gcuba_plan_call(&c, GCUBA_ROUTINE_ROMBERG, !neval || !fail);
  if (neval && fail) *neval = c.neval;
  if (fail) *fail = c.fail;
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
