/* tests/test-mpi.c -- gCuhre and gVegas collective over MPI_COMM_WORLD
   (libgcuba_mpi), run by tests/test-mpi.sh under mpirun -np 1..4.
   Every case is computed first locally (no communicator) on every
   process, then collectively: the collective result must equal the
   local one bit for bit (integral, error, prob, neval, nregions, fail),
   and a converged result must be within its tolerance of the analytic
   value.  Also: processes passing different arguments all get
   GCUBA_FAIL_COLLECTIVE (adaptive stratification: -6 on all),
   an abort or a NaN seen by one process ends the
   call on all, state files resume collectively, an integrand that calls
   gCuhre itself runs its inner calls locally, verbosity 3 on one
   process lists the regions there and changes no result.  Rank 0 prints TAP lines
   (unnumbered; the script adds the plan) and writes every collective
   result as hex to argv[1], which the script compares across process
   counts.  Compiled by nvcc as tests/test-mpi-gpu.cu (TEST_MPI_GPU), it
   runs the same calls on the GPU backend (GCUBA_DEVICE=gpu), every
   process on the one device.  This file is part of gcuba. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "gcuba.h"
#include "gcuba_mpi.h"
#include "collective.h"
#include "capture.h"

#ifdef TEST_MPI_GPU
/* the bytes of a region by which GCUBA_MEMLIMIT counts (src/cuhre) */
#ifdef __cplusplus
extern "C"
#endif
    long long
    gcuba_cuhre_region_bytes(int ndim, int ncomp);
#endif

#ifdef TEST_MPI_GPU
#define GPU 1
#else
#define GPU 0
#endif
static int rank, size;
static FILE *digest;

/* ---- integrands with analytic values (and collective.h's) ---- */
/* 1D: sqrt(x) on [0, 1] = 2/3 */
GCUBA_INTEGRAND(root)(const int *ndim, const double x[], const int *ncomp,
                      double f[], void *userdata)
{
  (void)ndim;
  (void)ncomp;
  (void)userdata;
  f[0] = sqrt(x[0]);
  return 0;
}

#ifndef TEST_MPI_GPU
/* 2D, integrating itself: the inner gCuhre over y of exp(x0 x1 y) is
   local while the outer call is collective; total int int int e^{xyz} */
GCUBA_INTEGRAND(inner)(const int *ndim, const double x[], const int *ncomp,
                       double f[], void *userdata)
{
  (void)ndim;
  (void)ncomp;
  f[0] = exp(*(const double *)userdata * x[0]);
  return 0;
}
GCUBA_INTEGRAND(nested)(const int *ndim, const double x[], const int *ncomp,
                        double f[], void *userdata)
{
  double xy = x[0] * x[1], r[1], e[1], p[1];
  int nreg, neval, fail;
  (void)ndim;
  (void)ncomp;
  (void)userdata;
  gCuhre(1, 1, inner, &xy, 1, 1e-12, 0, 0, 0, 100000, 0, NULL, NULL, &nreg,
         &neval, &fail, r, e, p);
  f[0] = r[0];
  return fail ? -999 : 0;
}
#endif

/* ---- one call, local and collective ---- */
typedef struct {
  long long neval;
  int nregions, fail;
  double integral[2], error[2], prob[2];
} result;

typedef struct {
  const char *name;
  int vegas;
  int ndim, ncomp;
  gintegrand_t f;
  double epsrel;
  int flags, seed;
  long long maxeval;
  int key;
  long long nstart, nincrease;
  double exact; /* NAN: none */
  int want_fail; /* -1000: any */
} kase;

static void call(const kase *k, long long maxeval, const char *state,
                 result *r)
{
  memset(r, 0, sizeof *r);
  if (k->vegas)
    llgVegas(k->ndim, k->ncomp, k->f, NULL, 1, k->epsrel, 1e-12, k->flags,
             k->seed, 0, maxeval, k->nstart, k->nincrease, 1000, 0, state,
             NULL, &r->neval, &r->fail, r->integral, r->error, r->prob);
  else
    llgCuhre(k->ndim, k->ncomp, k->f, NULL, 1, k->epsrel, 1e-12, k->flags, 0,
             maxeval, k->key, state, NULL, &r->nregions, &r->neval, &r->fail,
             r->integral, r->error, r->prob);
}

static int same(const result *a, const result *b)
{
  return a->neval == b->neval && a->nregions == b->nregions &&
         a->fail == b->fail && !memcmp(a->integral, b->integral, sizeof a->integral) &&
         !memcmp(a->error, b->error, sizeof a->error) &&
         !memcmp(a->prob, b->prob, sizeof a->prob);
}

/* true on every process */
static int all(int v)
{
  MPI_Allreduce(MPI_IN_PLACE, &v, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
  return v;
}

static int failures;
static void report(int cond, const char *fmt, const char *name)
{
  cond = all(cond);
  if (!cond) ++failures;
  if (rank == 0) {
    printf("%sok - np=%d: ", cond ? "" : "not ", size);
    printf(fmt, name);
    printf("\n");
    fflush(stdout);
  }
}

static void record(const char *name, const result *r)
{
  int i;
  if (rank != 0 || !digest) return;
  fprintf(digest, "%s %lld %d %d", name, r->neval, r->nregions, r->fail);
  for (i = 0; i < 2; ++i)
    fprintf(digest, " %a %a %a", r->integral[i], r->error[i], r->prob[i]);
  fprintf(digest, "\n");
}

static const kase cases[] = {
    {"gCuhre 4D product peak, 2 components", 0, 4, 2, NULL, 1e-6, 0, 0,
     2000000, 0, 0, 0, NAN, 0},
    {"gCuhre 5D oscillatory, key 13", 0, 5, 1, NULL, 1e-7, 0, 0, 1000000, 13,
     0, 0, NAN, 0},
    {"gCuhre 6D oscillatory, maxeval 150000", 0, 6, 1, NULL, 1e-3, 0, 0,
     150000, 9, 0, 0, NAN, -1000},
    {"gCuhre 1D sqrt(x)", 0, 1, 1, NULL, 1e-10, 0, 0, 100000, 0, 0, 0, NAN,
     0},
    {"gCuhre 3D product peak, budget too small", 0, 3, 2, NULL, 1e-9, 0, 0,
     3000, 0, 0, 0, NAN, 1},
    {"gCuhre 4D kinks off the dyadic grid (cuts)", 0, 4, 1, NULL, 1e-8, 0, 0,
     2000000, 0, 0, 0, NAN, 0},
    {"gVegas 4D product peak, Sobol (seed 0)", 1, 4, 2, NULL, 1e-3, 0, 0,
     2000000, 0, 20000, 5000, NAN, -1000},
    {"gVegas 4D product peak, seed 7", 1, 4, 2, NULL, 2e-3, 0, 7, 3000000, 0,
     100000, 0, NAN, -1000},
    {"gVegas 5D oscillatory, seed 3, GCUBA_VEGASAUTO", 1, 5, 1, NULL, 1e-4,
     GCUBA_VEGASAUTO, 3, 20000000, 0, 200000, 0, NAN, -1000},
};
#define NCASES ((int)(sizeof cases / sizeof cases[0]))
#define KINKS 5 /* the kinks' case */

static void fill(kase *k)
{
  if (strstr(k->name, "peak")) {
    k->f = peak;
    k->exact = peak_exact(k->ndim, COLL_U0);
  } else if (strstr(k->name, "oscillatory")) {
    k->f = osc;
    k->exact = osc_exact(k->ndim);
  } else if (strstr(k->name, "kinks")) {
    k->f = kinks;
    k->exact = kinks_exact(k->ndim);
  } else {
    k->f = root;
    k->exact = 2.0 / 3;
  }
}

static int within(const kase *k, const result *r)
{
  /* the true error of a converged first component (Vegas: 4 sigma) */
  double tol;
  if (r->fail != 0) return 1;
  tol = k->epsrel * fabs(k->exact);
  if (k->vegas) tol = 4 * r->error[0];
  return fabs(r->integral[0] - k->exact) <= tol;
}

#ifdef TEST_MPI_GPU
/* case k at epsrel with GCUBA_MEMLIMIT of per regions on each process,
   collective, against the local call with the limit of what the
   processes hold together (per - 4 each: shares may exceed an even
   division by 4) */
static void memlimit_case(kase k, double epsrel, int per)
{
  const long long bytes = gcuba_cuhre_region_bytes(k.ndim, k.ncomp);
  const int local = size > 1 ? (per - 4) * size : per;
  result a, b;
  char lim[64], msg[200];
  k.epsrel = epsrel;
  k.maxeval = 50000000;
  gcuba_mpi_comm(MPI_COMM_NULL);
  snprintf(lim, sizeof lim, "%lld", local * bytes);
  setenv("GCUBA_MEMLIMIT", lim, 1);
  call(&k, k.maxeval, NULL, &a);
  gcuba_mpi_comm(MPI_COMM_WORLD);
  snprintf(lim, sizeof lim, "%lld", per * bytes);
  setenv("GCUBA_MEMLIMIT", lim, 1);
  call(&k, k.maxeval, NULL, &b);
  unsetenv("GCUBA_MEMLIMIT");
  snprintf(msg, sizeof msg, "%s at %g, GCUBA_MEMLIMIT of %d regions per "
           "process: the local result with %d regions (fail %d, neval "
           "%lld)", k.name, epsrel, per, local, b.fail, b.neval);
  report(same(&a, &b) && within(&k, &b), "%s", msg);
}
#endif

int main(int argc, char **argv)
{
  result loc[NCASES], col[NCASES], a, b;
  kase ks[NCASES];
  int i, rc;
  char state[256];

  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
#ifdef TEST_MPI_GPU
  if (gcuba_device_count() < 1) {
    const char *req = getenv("GCUBA_TEST_REQUIRE_GPU");
    int need = req && !strcmp(req, "1");
    if (rank == 0)
      printf("%sok - np=%d: the GPU backend # %s no CUDA device\n",
             need ? "not " : "", size, need ? "required but" : "SKIP");
    MPI_Finalize();
    return need;
  }
  setenv("GCUBA_DEVICE", "gpu", 1);
#endif
  if (rank == 0 && argc > 1) digest = fopen(argv[1], "w");

  for (i = 0; i < NCASES; ++i) {
    ks[i] = cases[i];
    fill(&ks[i]);
#ifdef TEST_MPI_GPU
    /* the GPU's wider iterations can spend a budget sooner */
    ks[i].want_fail = -1000;
#endif
    call(&ks[i], ks[i].maxeval, NULL, &loc[i]);
  }
  rc = gcuba_mpi_comm(MPI_COMM_WORLD);
  report(rc == MPI_SUCCESS, "%s", "gcuba_mpi_comm(MPI_COMM_WORLD)");
  for (i = 0; i < NCASES; ++i) {
    const kase *k = &ks[i];
    call(k, k->maxeval, NULL, &col[i]);
    record(k->name, &col[i]);
    report(same(&loc[i], &col[i]), "%s: the local result, bit for bit",
           k->name);
    report(within(k, &col[i]) &&
               (k->want_fail == -1000 || col[i].fail == k->want_fail),
           "%s: fail as expected; converged within the tolerance", k->name);
  }

  /* a call that runs out of budget, resumed from its state file */
  snprintf(state, sizeof state, "test-mpi-%d.state", size);
  {
    const kase *k = &ks[0];
    result l1, l2;
    char lstate[300];
    remove(state);
    /* the local reference, with a file of each process's own */
    gcuba_mpi_comm(MPI_COMM_NULL);
    snprintf(lstate, sizeof lstate, "%s.local%d", state, rank);
    remove(lstate);
    call(k, 20000, lstate, &l1);
    call(k, k->maxeval, lstate, &l2);
    remove(lstate);
    gcuba_mpi_comm(MPI_COMM_WORLD);
    call(k, 20000, state, &a);
    report(a.fail == 1 && same(&a, &l1),
           "%s: maxeval 20000 with a state file, fail = 1 as locally",
           k->name);
    call(k, k->maxeval, state, &b);
    record("resumed", &b);
    /* (not the uninterrupted call's bits: the start depends on maxeval) */
    report(same(&b, &l2) && within(k, &b) && (b.fail == 0 || GPU),
           "%s: resumed from the state file as locally, converged",
           k->name);
    {
      FILE *f = fopen(state, "r");
      report((f == NULL) == (b.fail == 0),
             "%s: the state file is removed when converged", k->name);
      if (f) fclose(f);
      MPI_Barrier(MPI_COMM_WORLD);
      if (rank == 0) remove(state);
    }
  }

#ifdef TEST_MPI_GPU
  /* Regions beyond one process's GCUBA_MEMLIMIT (3000 regions each): the
     collective call holds size x 2996 (its shares may exceed an even
     division by 4), distributed once they outgrow one process; the
     local call with that limit gives the same bits (evictions and
     squeezed splits included) */
  memlimit_case(ks[0], 1e-7, 3000);
  /* the same with the kinks and 1000 regions per process: the members
     search their own regions for where to cut */
  memlimit_case(ks[KINKS], 1e-10, 1000);
#endif

  /* an abort or a NaN where only some process evaluates */
  {
    kase k = ks[0];
    k.ndim = 2;
    k.ncomp = 1;
    k.epsrel = 1e-9;
    k.f = corner_abort;
    call(&k, 100000, NULL, &a);
    report(a.fail == GCUBA_FAIL_ABORT, "%s",
           "gCuhre: -999 from one process's regions: fail -99 on all");
    k.f = corner_nan;
    call(&k, 100000, NULL, &a);
    report(a.fail == GCUBA_FAIL_NAN, "%s",
           "gCuhre: NaN from one process's regions: fail -9 on all");
    k.vegas = 1;
    k.nstart = 10000;
    k.nincrease = 0;
    k.f = corner_abort;
    call(&k, 100000, NULL, &a);
    report(a.fail == GCUBA_FAIL_ABORT, "%s",
           "gVegas: -999 from one process's samples: fail -99 on all");
    k.f = corner_nan;
    call(&k, 100000, NULL, &a);
    report(a.fail == GCUBA_FAIL_NAN, "%s",
           "gVegas: NaN from one process's samples: fail -9 on all");
  }

#ifndef TEST_MPI_GPU
  /* an integrand that calls gCuhre (host code): its calls are local */
  {
    kase k = ks[0];
    double e = 0;
    int j;
    k.ndim = 2;
    k.ncomp = 1;
    k.epsrel = 1e-6;
    k.f = nested;
    call(&k, 20000, NULL, &a);
    /* int int int e^{xyz} = sum_n 1 / (n! (n+1)^3) */
    for (j = 0; j < 30; ++j) {
      double t = 1 / pow(j + 1, 3);
      int m;
      for (m = 2; m <= j; ++m) t /= m;
      e += t;
    }
    report(a.fail == 0 && fabs(a.integral[0] - e) <= 1e-6 * e, "%s",
           "gCuhre whose integrand calls gCuhre: inner calls local, "
           "converged");
  }
#endif

  /* processes that disagree */
  {
    const kase *k = &ks[0];
    result r;
    memset(&r, 0, sizeof r);
    llgCuhre(k->ndim, k->ncomp, k->f, NULL, 1, k->epsrel, 1e-12, 0, 0,
             rank == size - 1 ? 50000 : 40000, 0, NULL, NULL, &r.nregions,
             &r.neval, &r.fail, r.integral, r.error, r.prob);
    report(size == 1 ? r.fail == 1 : r.fail == GCUBA_FAIL_COLLECTIVE, "%s",
           "gCuhre: one process with another maxeval: fail -18 on all");
    llgCuhre(rank == size - 1 ? 0 : k->ndim, k->ncomp, k->f, NULL, 1,
             k->epsrel, 1e-12, 0, 0, 40000, 0, NULL, NULL, &r.nregions,
             &r.neval, &r.fail, r.integral, r.error, r.prob);
    report(size == 1 ? r.fail == GCUBA_FAIL_NDIM
                     : r.fail == GCUBA_FAIL_COLLECTIVE,
           "%s", "gCuhre: one process with ndim 0: fail -18 on all");
    llgVegas(k->ndim, k->ncomp, k->f, NULL, 1, k->epsrel, 1e-12, 0,
             rank == 0 ? 1 : 2, 0, 50000, 1000, 500, 1000, 0, NULL, NULL,
             &r.neval, &r.fail, r.integral, r.error, r.prob);
    report(size == 1 ? r.fail == 1 : r.fail == GCUBA_FAIL_COLLECTIVE, "%s",
           "gVegas: processes with different seeds: fail -18 on all");
    if (rank == size - 1) setenv("GCUBA_VEGAS_BETA", "0.75", 1);
    llgVegas(k->ndim, k->ncomp, k->f, NULL, 1, k->epsrel, 1e-12, 0, 1, 0,
             50000, 1000, 500, 1000, 0, NULL, NULL, &r.neval, &r.fail,
             r.integral, r.error, r.prob);
    unsetenv("GCUBA_VEGAS_BETA");
    /* (a communicator of one process: a local call) */
    report(size == 1 ? r.fail >= 0
                     : r.fail == GCUBA_FAIL_PARAM && r.neval == 0,
           "%s", "gVegas: GCUBA_VEGAS_BETA (no collective adaptive "
           "stratification) on one process: fail -6 on all");
    llgVegas(k->ndim, k->ncomp, k->f, NULL, 1, k->epsrel, 1e-12,
             GCUBA_VEGASPLUS, 1, 0, 50000, 1000, 500, 1000, 0, NULL, NULL,
             &r.neval, &r.fail, r.integral, r.error, r.prob);
    report(size == 1 ? r.fail >= 0
                     : r.fail == GCUBA_FAIL_PARAM && r.neval == 0,
           "%s", "gVegas: flags GCUBA_VEGASPLUS on every process: fail -6 "
           "on all");
    llgCuhre(k->ndim, k->ncomp, k->f, NULL, 1, k->epsrel, 1e-12, 0, 0, 40000,
             0, NULL, NULL, &r.nregions, &r.neval, &r.fail, r.integral,
             r.error, r.prob);
    report(r.fail == 1 && r.neval > 0, "%s",
           "gCuhre after a refused call: collective again");
  }

  /* verbosity 2: each process says its time in the collective
     operations; every process takes part in the same ones */
  {
    static char buf[1 << 20];
    char log[64];
    kase k = ks[0];
    const char *p;
    double ms = -1, tot = -1;
    long long ops = -1, lo, hi;
    int save, r = -1, n = -1;
    snprintf(log, sizeof log, "test-mpi-%ld.log", (long)getpid());
    save = capture_begin(log);
    k.flags |= 2;
    call(&k, k.maxeval, NULL, &a);
    capture_end(save, log, buf, sizeof buf);
    /* (the GPU backend says first which GPU each process uses) */
    for (p = buf; (p = strstr(p, ": process ")) != NULL; ++p)
      if (sscanf(p, ": process %d of %d: %lf ms of %lf ms in %lld", &r, &n,
                 &ms, &tot, &ops) == 5)
        break;
    lo = hi = ops;
    MPI_Allreduce(MPI_IN_PLACE, &lo, 1, MPI_LONG_LONG, MPI_MIN,
                  MPI_COMM_WORLD);
    MPI_Allreduce(MPI_IN_PLACE, &hi, 1, MPI_LONG_LONG, MPI_MAX,
                  MPI_COMM_WORLD);
    /* (one process: the calls are local, and say nothing of it) */
    report((size == 1 ? !p
                      : r == rank && n == size && ms >= 0 && ms <= tot &&
                            ops > 0 && lo == hi) &&
               same(&a, &col[0]),
           "%s: at verbosity 2 each process's time in the same collective "
           "operations, the same result", k.name);
  }

  /* verbosity 3 on the first process only: every process takes part in
     listing the regions, the first prints them */
  {
    static char buf[1 << 22];
    char log[64];
    kase k = ks[0];
    const char *p = buf;
    int save, nlisted = 0;
    snprintf(log, sizeof log, "test-mpi-%ld.log", (long)getpid());
    save = capture_begin(log);
    if (rank == 0) k.flags |= 3;
    call(&k, k.maxeval, NULL, &a);
    capture_end(save, log, buf, sizeof buf);
    while ((p = strstr(p, "\nRegion (")) != NULL) {
      ++nlisted;
      ++p;
    }
    report((rank == 0 ? nlisted > 0 : nlisted == 0) && same(&a, &col[0]),
           "%s: verbosity 3 on the first process only: it lists the "
           "regions, the others none, the same result", k.name);
  }

  rc = gcuba_mpi_comm(MPI_COMM_NULL);
  call(&ks[0], ks[0].maxeval, NULL, &a);
  report(rc == MPI_SUCCESS && same(&a, &loc[0]), "%s",
         "gcuba_mpi_comm(MPI_COMM_NULL): local again");
  gcuba_mpi_comm(MPI_COMM_WORLD); /* MPI_Finalize ends it */
  gcuba_release();                /* the device memory kept for reuse */
  if (digest) fclose(digest);
  MPI_Finalize();
  return failures ? 1 : 0;
}
