/* tests/test-userdata.c -- userdata on CPU threads: an integrand that
   writes scratch into its parameter block (safe under Cuba's worker
   processes) gives the bits of one thread on 2, 3 and 4 threads when the
   block's size is known (gcuba_userdata_size); each thread but the first
   then gets a copy of its own, made at the start of each call; the block
   itself is passed when its size is not known or exceeds
   GCUBA_UD_PRIVATE_MAX (1 MiB).  gCuhre, gVegas, gRomberg.
   This file is part of gcuba. */
#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include "tap.h"
#include "gcuba.h"

typedef struct {
  double a;          /* a parameter */
  double scratch[8]; /* written by every evaluation */
} params;

/* the pointers each core (the integrand's `core' argument) was given */
#define MAXCORE 8
static const void *seen[MAXCORE];
static int conflict;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;

static void note(const void *ud, int core)
{
  pthread_mutex_lock(&lock);
  if (core >= 0 && core < MAXCORE) {
    if (!seen[core]) seen[core] = ud;
    else if (seen[core] != ud) conflict = 1;
  }
  pthread_mutex_unlock(&lock);
}

static void forget(void)
{
  memset(seen, 0, sizeof seen);
  conflict = 0;
}

/* f = exp(-a |x|^2) through the scratch array: each point is written
   there, a while is spent, and the value is computed from what is read
   back (another thread writing the same block changes it) */
static int scratch_fn(const int *ndim, const double x[], const int *ncomp,
                      double f[], void *userdata, const int *nvec,
                      const int *core)
{
  params *p = (params *)userdata;
  int i, d, k;
  (void)ncomp;
  note(userdata, *core);
  for (i = 0; i < *nvec; ++i) {
    const double *y = x + (size_t)i * *ndim;
    double s = 0;
    volatile double w = 0;
    for (d = 0; d < *ndim; ++d) p->scratch[d] = y[d];
    for (k = 0; k < 300; ++k) w += sqrt((double)k);
    for (d = 0; d < *ndim; ++d) s += p->scratch[d] * p->scratch[d];
    f[i] = exp(-p->a * s);
  }
  return 0;
}

/* the same in Romberg's form (ndim 1) */
static int scratch_1d(const int *ndim, const double x[], const int *ncomp,
                      double f[], void *userdata, const int *nvec,
                      const int *core)
{
  return scratch_fn(ndim, x, ncomp, f, userdata, nvec, core);
}

typedef struct {
  double I, E, P;
  long long neval, nregions;
  int fail;
} result;

static void cores(int n)
{
  gcubacores(&n, &n);
}

enum { CUHRE, VEGAS, ROMBERG };

static void run(int routine, params *p, result *r)
{
  gintegrand_t f = gcuba_host_integrand((gcuba_host_fn)scratch_fn, 1);
  memset(r, 0, sizeof *r);
  if (routine == CUHRE)
    llgCuhre(3, 1, f, p, 4, 1e-14, 1e-20, 0, 0, 200000, 0, NULL, NULL,
             &r->nregions, &r->neval, &r->fail, &r->I, &r->E, &r->P);
  else if (routine == VEGAS)
    llgVegas(4, 1, f, p, 4, 1e-9, 1e-20, 0, 5, 0, 60000, 10000, 5000,
             1000, 0, NULL, NULL, &r->neval, &r->fail, &r->I, &r->E, &r->P);
  else
    llgRomberg(1, gcuba_host_integrand((gcuba_host_fn)scratch_1d, 1), p, 4,
               1e-12, 1e-20, 0, 0, 1 << 20, &r->neval, &r->fail, &r->I,
               &r->E, &r->P);
}

static int same(const result *a, const result *b)
{
  return a->fail == b->fail && a->neval == b->neval &&
         a->nregions == b->nregions && !memcmp(&a->I, &b->I, sizeof a->I) &&
         !memcmp(&a->E, &b->E, sizeof a->E) &&
         !memcmp(&a->P, &b->P, sizeof a->P);
}

/* cores 1.. got pointers of their own (none the block's) and core 0 the
   block; returns how many cores ran */
static int private_ok(const params *p, int *ok1)
{
  int k, n = 0, j;
  *ok1 = !conflict && (!seen[0] || seen[0] == (const void *)p);
  for (k = 0; k < MAXCORE; ++k) {
    if (!seen[k]) continue;
    ++n;
    if (k > 0 && seen[k] == (const void *)p) *ok1 = 0;
    for (j = 0; j < k; ++j)
      if (seen[j] == seen[k]) *ok1 = 0;
  }
  return n;
}

int main(void)
{
  static const char *const name[] = {"gCuhre", "gVegas", "gRomberg"};
  params p;
  int routine, n;
  plan(0);

  for (routine = CUHRE; routine <= ROMBERG; ++routine) {
    result r1, r;
    int bits = 1, priv = 1, ran = 0;
    memset(&p, 0, sizeof p);
    p.a = routine == ROMBERG ? 1e5 : 2;
    gcuba_userdata_size(sizeof p);
    cores(1);
    run(routine, &p, &r1);
    for (n = 2; n <= 4; ++n) {
      int ok1, m;
      cores(n);
      forget();
      run(routine, &p, &r);
      bits &= same(&r1, &r);
      m = private_ok(&p, &ok1);
      priv &= ok1;
      if (m > ran) ran = m;
    }
    ok(bits, "%s: an integrand writing scratch into userdata "
       "(size known): 1, 2, 3 and 4 threads give the same bits "
       "(%.15g +- %.2g, neval %lld, fail %d)", name[routine], r1.I, r1.E,
       r1.neval, r1.fail);
    ok(priv, "%s: thread 0 gets the block, each other thread a copy of its "
       "own (%d threads ran)", name[routine], ran);
    ok(p.a == (routine == ROMBERG ? 1e5 : 2), "%s: the parameters are unchanged", name[routine]);
  }

  /* size not known: the block itself, as before */
  gcuba_userdata_size(0);
  {
    result r;
    int k, all = 1;
    cores(3);
    forget();
    run(CUHRE, &p, &r);
    for (k = 0; k < MAXCORE; ++k)
      if (seen[k] && seen[k] != (const void *)&p) all = 0;
    ok(all, "size not known: every thread gets userdata itself");
  }
  /* larger than GCUBA_UD_PRIVATE_MAX: shared */
  {
    const size_t big = ((size_t)1 << 20) + sizeof(params);
    params *q = (params *)calloc(1, big);
    result r;
    int k, all = 1;
    if (!q) {
      ok(0, "out of memory");
      return done();
    }
    q->a = 2;
    gcuba_userdata_size(big);
    forget();
    run(CUHRE, q, &r);
    for (k = 0; k < MAXCORE; ++k)
      if (seen[k] && seen[k] != (const void *)q) all = 0;
    ok(all, "a block over 1 MiB: shared by the threads");
    free(q);
  }
  gcuba_userdata_size(0);
  cores(-1);
  return done();
}
