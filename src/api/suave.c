/* src/api/suave.c -- gSuave and llgSuave: Cuba's argument lists, handed
   to the plan (src/plan/), which checks them and runs the driver
   (src/suave/).  This file is part of gcuba. */
#include <limits.h>
#include "common/common.h"
#include "plan/plan.h"

static void entry(const char *routine, const int ndim, const int ncomp,
                  gintegrand_t integrand, void *userdata,
                  const long long int nvec, const gcubareal epsrel,
                  const gcubareal epsabs, const int flags, const int seed,
                  const long long int mineval, const long long int maxeval,
                  const long long int nnew, const long long int nmin,
                  const gcubareal flatness, const char *statefile,
                  void *spin, int *nregions, long long int *neval,
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
  c.nnew = nnew;
  c.nmin = nmin;
  c.flatness = flatness;
  c.statefile = statefile && *statefile ? statefile : NULL;
  c.spin = spin;
  c.integral = integral;
  c.error = error;
  c.prob = prob;
  gcuba_plan_call(&c, GCUBA_ROUTINE_SUAVE, !nregions || !neval || !fail);
  if (nregions && neval && fail) {
    *nregions = c.nregions > INT_MAX ? INT_MAX : (int)c.nregions;
    *neval = c.neval;
  }
  if (fail) *fail = c.fail;
}

void llgSuave(const int ndim, const int ncomp, gintegrand_t integrand,
              void *userdata, const long long int nvec,
              const gcubareal epsrel, const gcubareal epsabs,
              const int flags, const int seed, const long long int mineval,
              const long long int maxeval, const long long int nnew,
              const long long int nmin, const gcubareal flatness,
              const char *statefile, void *spin, int *nregions,
              long long int *neval, int *fail, gcubareal integral[],
              gcubareal error[], gcubareal prob[])
{
  entry("llgSuave", ndim, ncomp, integrand, userdata, nvec, epsrel, epsabs,
        flags, seed, mineval, maxeval, nnew, nmin, flatness, statefile, spin,
        nregions, neval, fail, integral, error, prob);
}

void gSuave(const int ndim, const int ncomp, gintegrand_t integrand,
            void *userdata, const int nvec, const gcubareal epsrel,
            const gcubareal epsabs, const int flags, const int seed,
            const int mineval, const int maxeval, const int nnew,
            const int nmin, const gcubareal flatness, const char *statefile,
            void *spin, int *nregions, int *neval, int *fail,
            gcubareal integral[], gcubareal error[], gcubareal prob[])
{
  long long n = 0;
  entry("gSuave", ndim, ncomp, integrand, userdata, nvec, epsrel, epsabs,
        flags, seed, mineval, maxeval, nnew, nmin, flatness, statefile, spin,
        nregions, neval ? &n : NULL, fail, integral, error, prob);
  if (neval) *neval = n > INT_MAX ? INT_MAX : (int)n;
}
