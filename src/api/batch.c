/* src/api/batch.c -- gCuhreBatch, gVegasBatch and their llg forms: many
   integrals of one integrand, integral b with userdata (char *)userdata +
   b * userstride.

   The arguments are checked once, as gCuhre / gVegas check them (a bad
   one sets every fail[b]).  Then:
     - gCuhre with ndim >= 2 and at most 8 components, where a single
       call would run on the GPU (GCUBA_DEVICE, gcubaaccel): the GPU
       pipeline (cuda/batch.cu, gcuba/cuhre_batch.cuh), every integral's
       whole loop in one launch, one thread block per integral at a time.
       Same rule, error estimate and region policy as the driver, the
       CPU backend's region order; the sums are taken in another order,
       so the answer is a single call's up to rounding, and it does not
       depend on the other integrals of the batch.  An integral whose
       partition outgrows its block's memory runs as a single GPU call.
     - otherwise each integral is one run of the Cuhre or Vegas driver
       with exactly the arguments a single call would get, so its answer
       is the single call's, bit for bit:
       - on CPU threads (the default for these, and GCUBA_DEVICE=cpu)
         the integrals run in parallel, one thread each
         (gcuba_batch_inner: the driver's CPU backend then uses the
         calling thread only, and never the GPU), scheduled
         dynamically, so an easy integral frees its thread for the next
         one while a hard one goes on;
       - with GCUBA_DEVICE=gpu they run one after another on the GPU
         (each a single call, its parameter block of userstride bytes
         copied to the device unless gcuba_userdata_size says
         otherwise);
       - Vegas with gridno != 0 runs them in index order on the calling
         thread: the grid slots are shared, as between single calls.
   gcubainit/gcubaexit are called once around the batch.  This file is
   part of gcuba. */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "common/common.h"
#include "cuhre/cuhre.h"
#include "vegas/vegas.h"
#ifdef _OPENMP
#include <omp.h>
#endif

enum { CUHRE, VEGAS };

typedef struct {
  int which, n;
  gcuba_call proto;       /* the arguments common to all integrals */
  size_t stride;
  int *nregions, *fail;
  long long *neval;       /* llg: the caller's; else scratch */
} batch;

/* integral b, on the calling thread */
static void one(const batch *B, int b)
{
  gcuba_call c = B->proto;
  char name[48];
  int i;
  snprintf(name, sizeof name, "%s[%d]", B->proto.routine, b);
  c.routine = name;
  c.userdata = c.userdata ? (char *)c.userdata + (size_t)b * B->stride
                          : NULL;
  c.integral += (size_t)b * c.ncomp;
  c.error += (size_t)b * c.ncomp;
  c.prob += (size_t)b * c.ncomp;
  for (i = 0; i < c.ncomp; ++i) c.integral[i] = c.error[i] = c.prob[i] = 0;
  if (B->which == CUHRE) gcuba_cuhre_run(&c);
  else gcuba_vegas_run(&c);
  if (B->nregions) B->nregions[b] = c.nregions > INT_MAX ? INT_MAX
                                                        : (int)c.nregions;
  B->neval[b] = c.neval;
  B->fail[b] = c.fail;
}

#ifdef HAVE_CUDA
/* cuda/batch.cu: 0 (run; defer[b] set for the integrals to run alone),
   1 (no pipeline: single calls), or a fail code */
int gcuba_cuhre_batch_gpu(gcuba_call *c, int n, size_t stride,
                          long long *neval, int *nregions, int *fail,
                          unsigned char *defer);
#endif

enum { ON_CPU = 0, ON_GPU = 1, PIPELINE = 2 };

/* where the batch runs: ON_CPU (threads), ON_GPU (one call after
   another), PIPELINE; or a negative fail code (logged) */
static int where(gcuba_call *c, int which)
{
  const char *s = getenv("GCUBA_DEVICE");
  int bk;
#ifdef HAVE_CUDA
  if (which == CUHRE && c->ndim >= 2 && c->ncomp <= 8) {
    bk = gcuba_choose_backend(c, 1);
    return bk < 0 ? bk : bk == GCUBA_BK_GPU ? PIPELINE : ON_CPU;
  }
#endif
  if (s && !strcmp(s, "gpu")) {
#ifdef HAVE_CUDA
    /* the drivers' own test: Cuhre's GPU kernels hold 8 components */
    bk = gcuba_choose_backend(c, which == VEGAS || c->ncomp <= 8);
#else
    (void)which;
    bk = gcuba_choose_backend(c, 0);
#endif
    return bk < 0 ? bk : bk == GCUBA_BK_GPU ? ON_GPU : ON_CPU;
  }
  return ON_CPU;
}

/* the integrals one after another on the GPU, each a single call (only:
   those marked, or all) */
static void one_by_one(const batch *B, const unsigned char *only)
{
  size_t size = gcuba_userdata_bytes();
  int b;
  if (size == 0) gcuba_userdata_size(B->stride);
  for (b = 0; b < B->n; ++b)
    if (!only || only[b]) one(B, b);
  gcuba_userdata_size(size);
}

static void run(batch *B)
{
  gcuba_call *c = &B->proto;
  int b, gpu, threads = gcuba_threads();
  c->verbose = gcuba_env_verbose(c->flags);
  if (B->n < 0) {
    gcuba_fail(c, GCUBA_FAIL_PARAM, "nintegrals = %d (>= 0)", B->n);
    if (B->fail) B->fail[0] = c->fail;
    return;
  }
  if (B->n == 0) return;
  if (!B->fail || !B->neval || (B->which == CUHRE && !B->nregions)) {
    gcuba_fail(c, GCUBA_FAIL_NULL, "nregions, neval or fail is NULL");
    if (B->fail)
      for (b = 0; b < B->n; ++b) B->fail[b] = c->fail;
    return;
  }
  c->statefile = NULL;
  if (gcuba_check_common(c, 1, B->which == CUHRE ? GCUBA_CUHRE_MAXDIM
                                                : GCUBA_MAXDIM) ||
      (B->which == VEGAS &&
       (c->nstart < 2 || c->nincrease < 0 || c->nbatch < 1 ||
        c->gridno < -10 || c->gridno > 10) &&
       gcuba_fail(c, GCUBA_FAIL_PARAM,
                  "nstart = %lld (>= 2), nincrease = %lld (>= 0), nbatch = "
                  "%lld (>= 1), gridno = %d (-10..10)",
                  c->nstart, c->nincrease, c->nbatch, c->gridno)) ||
      (gpu = where(c, B->which)) < 0) {
    for (b = 0; b < B->n; ++b) {
      B->fail[b] = c->fail;
      B->neval[b] = 0;
      if (B->nregions) B->nregions[b] = 0;
    }
    return;
  }
  gcuba_log(c, 1, "%d integrals on %s", B->n,
            gpu == PIPELINE ? "the GPU, in one pipeline"
            : gpu == ON_GPU ? "the GPU, one after another"
                            : "CPU threads");
  gcuba_run_init();
#ifdef HAVE_CUDA
  if (gpu == PIPELINE) {
    unsigned char *defer = (unsigned char *)calloc((size_t)B->n, 1);
    int rc = defer ? gcuba_cuhre_batch_gpu(c, B->n, B->stride, B->neval,
                                           B->nregions, B->fail, defer)
                   : 1;
    c->fail = 0;
    if (rc < 0)
      for (b = 0; b < B->n; ++b) {
        B->fail[b] = rc;
        B->neval[b] = 0;
        B->nregions[b] = 0;
      }
    else
      one_by_one(B, rc == 0 ? defer : NULL);
    free(defer);
  } else
#endif
  if (gpu == ON_GPU) {
    one_by_one(B, NULL);
  } else if (threads < 2 || B->n < 2 ||
             (B->which == VEGAS && c->gridno != 0)) {
    gcuba_batch_inner(1);
    for (b = 0; b < B->n; ++b) one(B, b);
    gcuba_batch_inner(0);
  } else {
#ifdef _OPENMP
#pragma omp parallel num_threads(threads)
#endif
    {
      gcuba_batch_inner(1);
#ifdef _OPENMP
#pragma omp for schedule(dynamic, 1)
#endif
      for (b = 0; b < B->n; ++b) one(B, b);
      gcuba_batch_inner(0);
    }
  }
  gcuba_set_last_backend(gpu != ON_CPU ? GCUBA_BK_GPU : GCUBA_BK_CPU);
  gcuba_run_exit();
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
  B->proto.userdata = userdata;
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
  setup(&B, CUHRE, routine, n, ndim, ncomp, integrand, userdata, stride,
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
  setup(&B, VEGAS, routine, n, ndim, ncomp, integrand, userdata, stride,
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
