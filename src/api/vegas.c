/* src/api/vegas.c -- gVegas and llgVegas: Cuba's argument lists, checked,
   then the driver (src/vegas/).  This file is part of gcuba. */
#include <limits.h>
#include "common/common.h"
#include "common/coll.h"
#include "vegas/vegas.h"

static void vegas(gcuba_call *c)
{
  int i;
  c->verbose = gcuba_env_verbose(c->flags);
  c->neval = 0;
  c->fail = 0;
  if (gcuba_coll_status(c, gcuba_check_common(c, 1, GCUBA_MAXDIM))) return;
  if (c->nstart < 2 || c->nincrease < 0 || c->nbatch < 1 || c->gridno < -10 ||
      c->gridno > 10) {
    gcuba_fail(c, GCUBA_FAIL_PARAM,
               "nstart = %lld (>= 2), nincrease = %lld (>= 0), nbatch = %lld "
               "(>= 1), gridno = %d (-10..10)",
               c->nstart, c->nincrease, c->nbatch, c->gridno);
    return;
  }
  for (i = 0; i < c->ncomp; ++i) {
    c->integral[i] = 0;
    c->error[i] = 0;
    c->prob[i] = 0;
  }
  gcuba_run_init();
  gcuba_vegas_run(c);
  gcuba_run_exit();
}

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
  double t0;
  c.routine = routine;
  c.ndim = ndim;
  c.ncomp = ncomp;
  c.integrand = integrand;
  c.userdata = userdata;
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
  c.verbose = gcuba_env_verbose(flags);
  c.coll = gcuba_coll_begin();
  t0 = gcuba_now_ms();
  c.grow = 1;
  if (!c.coll || !gcuba_coll_args(&c, !neval || !fail)) {
    if (!neval || !fail)
      gcuba_fail(&c, GCUBA_FAIL_NULL, "neval or fail is NULL");
    else
      vegas(&c);
  }
  if (c.coll) gcuba_coll_end(&c, t0);
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
