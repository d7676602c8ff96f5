/* src/api/divonne.c -- gDivonne and llgDivonne: Cuba's argument lists,
   handed to the plan (src/plan/), which checks them and runs the driver
   (src/divonne/).  This file is part of gcuba. */
#include <limits.h>
#include "common/common.h"
#include "plan/plan.h"

void llgDivonne(const int ndim, const int ncomp, gintegrand_t integrand,
                void *userdata, const long long int nvec,
                const gcubareal epsrel, const gcubareal epsabs,
                const int flags, const int seed,
                const long long int mineval, const long long int maxeval,
                const int key1, const int key2, const int key3,
                const int maxpass, const gcubareal border,
                const gcubareal maxchisq, const gcubareal mindeviation,
                const long long int ngiven, const int ldxgiven,
                gcubareal xgiven[], const long long int nextra,
                gcuba_peakfinder_t peakfinder, const char *statefile,
                void *spin, int *nregions, long long int *neval, int *fail,
                gcubareal integral[], gcubareal error[], gcubareal prob[])
{
  gcuba_call c = {0};
  c.routine = "gDivonne";
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
  c.key1 = key1;
  c.key2 = key2;
  c.key3 = key3;
  c.maxpass = maxpass;
  c.border = border;
  c.maxchisq = maxchisq;
  c.mindeviation = mindeviation;
  c.ngiven = ngiven;
  c.ldxgiven = ldxgiven;
  c.xgiven = xgiven;
  c.nextra = nextra;
  c.peakfinder = peakfinder;
  c.statefile = statefile && *statefile ? statefile : NULL;
  c.spin = spin;
  c.integral = integral;
  c.error = error;
  c.prob = prob;
  gcuba_plan_call(&c, GCUBA_ROUTINE_DIVONNE, !nregions || !neval || !fail);
  if (nregions && neval && fail) {
    *nregions = c.nregions > INT_MAX ? INT_MAX : (int)c.nregions;
    *neval = c.neval;
  }
  if (fail) *fail = c.fail;
}

void gDivonne(const int ndim, const int ncomp, gintegrand_t integrand,
              void *userdata, const int nvec, const gcubareal epsrel,
              const gcubareal epsabs, const int flags, const int seed,
              const int mineval, const int maxeval, const int key1,
              const int key2, const int key3, const int maxpass,
              const gcubareal border, const gcubareal maxchisq,
              const gcubareal mindeviation, const int ngiven,
              const int ldxgiven, gcubareal xgiven[], const int nextra,
              gcuba_peakfinder_t peakfinder, const char *statefile,
              void *spin, int *nregions, int *neval, int *fail,
              gcubareal integral[], gcubareal error[], gcubareal prob[])
{
  long long n = 0;
  llgDivonne(ndim, ncomp, integrand, userdata, nvec, epsrel, epsabs, flags,
             seed, mineval, maxeval, key1, key2, key3, maxpass, border,
             maxchisq, mindeviation, ngiven, ldxgiven, xgiven, nextra,
             peakfinder, statefile, spin, nregions, neval ? &n : NULL, fail,
             integral, error, prob);
  if (neval) *neval = n > INT_MAX ? INT_MAX : (int)n;
}
