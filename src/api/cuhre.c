/* src/api/cuhre.c -- gCuhre and llgCuhre: Cuba's argument lists, handed
   to the plan (src/plan/), which checks them and runs the driver.  Both entry points share one body
   (entry), which names the routine called in messages; the int one
   narrows its counts.  This file is part of gcuba. */
#include <limits.h>
#include "common/common.h"
#include "plan/plan.h"

static void entry(const char *routine, const int ndim, const int ncomp,
                  gintegrand_t integrand, void *userdata,
                  const long long int nvec, const gcubareal epsrel,
                  const gcubareal epsabs, const int flags,
                  const long long int mineval, const long long int maxeval,
                  const int key, const char *statefile, void *spin,
                  int *nregions, long long int *neval, int *fail,
                  gcubareal integral[], gcubareal error[], gcubareal prob[])
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
  c.mineval = mineval;
  c.maxeval = maxeval;
  c.key = key;
  c.statefile = statefile && *statefile ? statefile : NULL;
  c.spin = spin;
  c.integral = integral;
  c.error = error;
  c.prob = prob;
  gcuba_plan_call(&c, GCUBA_ROUTINE_CUHRE, !nregions || !neval || !fail);
  if (nregions && neval && fail) {
    *nregions = c.nregions > INT_MAX ? INT_MAX : (int)c.nregions;
    *neval = c.neval;
  }
  if (fail) *fail = c.fail;
}

void llgCuhre(const int ndim, const int ncomp, gintegrand_t integrand,
              void *userdata, const long long int nvec,
              const gcubareal epsrel, const gcubareal epsabs,
              const int flags, const long long int mineval,
              const long long int maxeval, const int key,
              const char *statefile, void *spin, int *nregions,
              long long int *neval, int *fail, gcubareal integral[],
              gcubareal error[], gcubareal prob[])
{
  entry("llgCuhre", ndim, ncomp, integrand, userdata, nvec, epsrel, epsabs,
        flags, mineval, maxeval, key, statefile, spin, nregions, neval, fail,
        integral, error, prob);
}

void gCuhre(const int ndim, const int ncomp, gintegrand_t integrand,
            void *userdata, const int nvec, const gcubareal epsrel,
            const gcubareal epsabs, const int flags, const int mineval,
            const int maxeval, const int key, const char *statefile,
            void *spin, int *nregions, int *neval, int *fail,
            gcubareal integral[], gcubareal error[], gcubareal prob[])
{
  long long n = 0;
  entry("gCuhre", ndim, ncomp, integrand, userdata, nvec, epsrel, epsabs,
        flags, mineval, maxeval, key, statefile, spin, nregions,
        neval ? &n : NULL, fail, integral, error, prob);
  if (neval) *neval = n > INT_MAX ? INT_MAX : (int)n;
}
