/* src/api/vegas.c -- gVegas and llgVegas: Cuba's argument lists, handed
   to the plan (src/plan/), which checks them and runs the driver.  This file is part of gcuba. */
#include <limits.h>
#include "common/common.h"
#include "plan/plan.h"

static void entry(const char *routine, const int ndim, const int ncomp,
                  gintegrand_t integrand, void *userdata,
                  const long long int nvec, const gcubareal epsrel,
                  const gcubareal epsabs, const int flags, const int seed,
                  const long long int mineval, const long long int maxeval,
                  const long long int nstart, const long long int nincrease,
                  const long long int nbatch, const int gridno,
                  const char *statefile, void *spin, long long int *neval,
                  int *fail, gcubareal integral[], gcubareal error[],
                  gcubareal prob[])
{
  gcuba_call c = {0};
  c.routine = routine;
  c.ndim = ndim;
  c.ncomp = ncomp;
  c.integrand = integrand;
  c.ud.p = userdata;
  c.nvec = nvec;
  c.epsrel = epsrel;
  c.epsabs = epsabs;
  c.flags = flags;
  c.seed = seed;
  c.mineval = mineval;
  c.maxeval = maxeval;
  c.nstart = nstart;
  c.nincrease = nincrease;
  c.nbatch = nbatch;
  c.gridno = gridno;
  c.statefile = statefile && *statefile ? statefile : NULL;
  c.spin = spin;
  c.integral = integral;
  c.error = error;
  c.prob = prob;
  gcuba_plan_call(&c, GCUBA_ROUTINE_VEGAS, !neval || !fail);
  if (neval && fail) *neval = c.neval;
  if (fail) *fail = c.fail;
}

void llgVegas(const int ndim, const int ncomp, gintegrand_t integrand,
              void *userdata, const long long int nvec,
              const gcubareal epsrel, const gcubareal epsabs,
              const int flags, const int seed, const long long int mineval,
              const long long int maxeval, const long long int nstart,
              const long long int nincrease, const long long int nbatch,
              const int gridno, const char *statefile, void *spin,
              long long int *neval, int *fail, gcubareal integral[],
              gcubareal error[], gcubareal prob[])
{
  entry("llgVegas", ndim, ncomp, integrand, userdata, nvec, epsrel, epsabs,
        flags, seed, mineval, maxeval, nstart, nincrease, nbatch, gridno,
        statefile, spin, neval, fail, integral, error, prob);
}

void gVegas(const int ndim, const int ncomp, gintegrand_t integrand,
            void *userdata, const int nvec, const gcubareal epsrel,
            const gcubareal epsabs, const int flags, const int seed,
            const int mineval, const int maxeval, const int nstart,
            const int nincrease, const int nbatch, const int gridno,
            const char *statefile, void *spin, int *neval, int *fail,
            gcubareal integral[], gcubareal error[], gcubareal prob[])
{
  long long n = 0;
  entry("gVegas", ndim, ncomp, integrand, userdata, nvec, epsrel, epsabs,
        flags, seed, mineval, maxeval, nstart, nincrease, nbatch, gridno,
        statefile, spin, neval ? &n : NULL, fail, integral, error, prob);
  if (neval) *neval = n > INT_MAX ? INT_MAX : (int)n;
}
