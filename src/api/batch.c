/* src/api/batch.c -- gCuhreBatch, gVegasBatch and their llg forms: many
   integrals of one integrand, integral b with userdata (char *)userdata +
   b * userstride.  The entry points pack the arguments; the plan
   (src/plan/batch.c) checks them once and decides where the integrals
   run.  This file is part of gcuba. */
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include "common/common.h"
#include "plan/plan.h"

typedef struct {
  int which, n;
  gcuba_call proto;       /* the arguments common to all integrals */
  size_t stride;
  int *nregions, *fail;
  long long *neval;       /* llg: the caller's; else scratch */
} batch;

static void run(batch *B)
{
  gcuba_plan_batch(B->which, &B->proto, B->n, B->stride, B->nregions,
                   B->neval, B->fail);
}

/* neval as int: the llg form's counts narrowed */
static void narrow(const long long *ll, int *out, int n)
{
  int b;
  for (b = 0; b < n; ++b) out[b] = ll[b] > INT_MAX ? INT_MAX : (int)ll[b];
}

/* the arguments every batch has */
static void setup(batch *B, int which, const char *routine, int n, int ndim,
                  int ncomp, gintegrand_t integrand, void *userdata,
                  size_t stride, long long nvec, double epsrel, double epsabs,
                  int flags, long long mineval, long long maxeval,
                  long long *neval, int *fail, double *integral,
                  double *error, double *prob)
{
  memset(B, 0, sizeof *B);
  B->which = which;
  B->n = n;
  B->stride = stride;
  B->neval = neval;
  B->fail = fail;
  B->proto.routine = routine;
  B->proto.ndim = ndim;
  B->proto.ncomp = ncomp;
  B->proto.integrand = integrand;
  B->proto.ud.p = userdata;
  B->proto.nvec = nvec;
  B->proto.epsrel = epsrel;
  B->proto.epsabs = epsabs;
  B->proto.flags = flags;
  B->proto.mineval = mineval;
  B->proto.maxeval = maxeval;
  B->proto.integral = integral;
  B->proto.error = error;
  B->proto.prob = prob;
}

/* the int forms' long long neval: 0 with *ll the scratch (NULL when
   there is nothing to count), or -1 when memory is out (every fail[b]
   set); give_back narrows the counts into neval and frees it */
static int scratch(int n, const int *neval, int *fail, long long **ll)
{
  int b;
  *ll = NULL;
  if (n <= 0 || !neval ||
      (*ll = (long long *)calloc((size_t)n, sizeof **ll)) != NULL)
    return 0;
  if (fail)
    for (b = 0; b < n; ++b) fail[b] = GCUBA_FAIL_NOMEM;
  return -1;
}

static void give_back(long long *ll, int *neval, int n)
{
  if (ll) narrow(ll, neval, n);
  free(ll);
}

static void cuhre_batch(const char *routine, int n, int ndim, int ncomp,
                        gintegrand_t integrand, void *userdata, size_t stride,
                        long long nvec, double epsrel, double epsabs,
                        int flags, long long mineval, long long maxeval,
                        int key, int *nregions, long long *neval, int *fail,
                        double *integral, double *error, double *prob)
{
  batch B;
  setup(&B, GCUBA_ROUTINE_CUHRE, routine, n, ndim, ncomp, integrand, userdata, stride,
        nvec, epsrel, epsabs, flags, mineval, maxeval, neval, fail,
        integral, error, prob);
  B.nregions = nregions;
  B.proto.key = key;
  run(&B);
}

void llgCuhreBatch(const int nintegrals, const int ndim, const int ncomp,
                   gintegrand_t integrand, void *userdata,
                   const size_t userstride, const long long int nvec,
                   const gcubareal epsrel, const gcubareal epsabs,
                   const int flags, const long long int mineval,
                   const long long int maxeval, const int key,
                   int nregions[], long long int neval[], int fail[],
                   gcubareal integral[], gcubareal error[], gcubareal prob[])
{
  cuhre_batch("llgCuhreBatch", nintegrals, ndim, ncomp, integrand, userdata,
              userstride, nvec, epsrel, epsabs, flags, mineval, maxeval, key,
              nregions, neval, fail, integral, error, prob);
}

void gCuhreBatch(const int nintegrals, const int ndim, const int ncomp,
                 gintegrand_t integrand, void *userdata,
                 const size_t userstride, const int nvec,
                 const gcubareal epsrel, const gcubareal epsabs,
                 const int flags, const int mineval, const int maxeval,
                 const int key, int nregions[], int neval[], int fail[],
                 gcubareal integral[], gcubareal error[], gcubareal prob[])
{
  long long *ll;
  if (scratch(nintegrals, neval, fail, &ll)) return;
  cuhre_batch("gCuhreBatch", nintegrals, ndim, ncomp, integrand, userdata,
              userstride, nvec, epsrel, epsabs, flags, mineval, maxeval, key,
              nregions, ll, fail, integral, error, prob);
  give_back(ll, neval, nintegrals);
}

static void vegas_batch(const char *routine, int n, int ndim, int ncomp,
                        gintegrand_t integrand, void *userdata, size_t stride,
                        long long nvec, double epsrel, double epsabs,
                        int flags, int seed, long long mineval,
                        long long maxeval, long long nstart,
                        long long nincrease, long long nbatch, int gridno,
                        long long *neval, int *fail, double *integral,
                        double *error, double *prob)
{
  batch B;
  setup(&B, GCUBA_ROUTINE_VEGAS, routine, n, ndim, ncomp, integrand, userdata, stride,
        nvec, epsrel, epsabs, flags, mineval, maxeval, neval, fail,
        integral, error, prob);
  B.proto.seed = seed;
  B.proto.nstart = nstart;
  B.proto.nincrease = nincrease;
  B.proto.nbatch = nbatch;
  B.proto.gridno = gridno;
  run(&B);
}

void llgVegasBatch(const int nintegrals, const int ndim, const int ncomp,
                   gintegrand_t integrand, void *userdata,
                   const size_t userstride, const long long int nvec,
                   const gcubareal epsrel, const gcubareal epsabs,
                   const int flags, const int seed,
                   const long long int mineval, const long long int maxeval,
                   const long long int nstart, const long long int nincrease,
                   const long long int nbatch, const int gridno,
                   long long int neval[], int fail[], gcubareal integral[],
                   gcubareal error[], gcubareal prob[])
{
  vegas_batch("llgVegasBatch", nintegrals, ndim, ncomp, integrand, userdata,
              userstride, nvec, epsrel, epsabs, flags, seed, mineval,
              maxeval, nstart, nincrease, nbatch, gridno, neval, fail,
              integral, error, prob);
}

void gVegasBatch(const int nintegrals, const int ndim, const int ncomp,
                 gintegrand_t integrand, void *userdata,
                 const size_t userstride, const int nvec,
                 const gcubareal epsrel, const gcubareal epsabs,
                 const int flags, const int seed, const int mineval,
                 const int maxeval, const int nstart, const int nincrease,
                 const int nbatch, const int gridno, int neval[], int fail[],
                 gcubareal integral[], gcubareal error[], gcubareal prob[])
{
  long long *ll;
  if (scratch(nintegrals, neval, fail, &ll)) return;
  vegas_batch("gVegasBatch", nintegrals, ndim, ncomp, integrand, userdata,
              userstride, nvec, epsrel, epsabs, flags, seed, mineval,
              maxeval, nstart, nincrease, nbatch, gridno, ll, fail, integral,
              error, prob);
  give_back(ll, neval, nintegrals);
}
