/* src/api/cuhre.c -- gCuhre and llgCuhre: Cuba's argument lists, checked,
   then the driver (src/cuhre/).  Both entry points share one body
   (entry), which names the routine called in messages; the int one
   narrows its counts.  This file is part of gcuba. */
#include <limits.h>
#include "common/common.h"
#include "common/coll.h"
#include "cuhre/cuhre.h"

static void cuhre(gcuba_call *c)
{
  int i;
  c->verbose = gcuba_env_verbose(c->flags);
  c->nregions = 0;
  c->neval = 0;
  c->fail = 0;
  if (gcuba_coll_status(c, gcuba_check_common(c, 1, GCUBA_CUHRE_MAXDIM)))
    return;
  for (i = 0; i < c->ncomp; ++i) {
    c->integral[i] = 0;
    c->error[i] = 0;
    c->prob[i] = 0;
  }
  gcuba_run_init();
  gcuba_cuhre_run(c);
  gcuba_run_exit();
}

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
  c.mineval = mineval;
  c.maxeval = maxeval;
  c.key = key;
  c.statefile = statefile && *statefile ? statefile : NULL;
  c.spin = spin;
  c.integral = integral;
  c.error = error;
  c.prob = prob;
  c.verbose = gcuba_env_verbose(flags);
  c.coll = gcuba_coll_begin();
  t0 = gcuba_now_ms();
  c.grow = 1;
  if (!c.coll || !gcuba_coll_args(&c, !nregions || !neval || !fail)) {
    if (!nregions || !neval || !fail)
      gcuba_fail(&c, GCUBA_FAIL_NULL, "nregions, neval or fail is NULL");
    else
      cuhre(&c);
  }
  if (c.coll) gcuba_coll_end(&c, t0);
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
