/* tests/test-devices-gpu.cu -- one call on several GPUs (GCUBA_DEVICES).
   Every case is computed on the current GPU alone, then with
   GCUBA_DEVICES naming several: the results must be the same bits
   (integral, error, prob, neval, nregions, fail), and a converged one
   must be within its tolerance of the analytic value.  The lists are
   "0,0" and "0,0,0" (members sharing the one GPU, which every device
   machine has) and "all" when there are two GPUs or more.  Also: an
   abort or a NaN seen by one member ends the call with its fail code, a
   state file written and resumed across the team, a host parameter
   struct copied to every GPU, userdata in one GPU's memory (the call
   stays on that GPU), GCUBA_DEVICES values that are wrong (fail -16),
   and the caller's current device unchanged; members whose region stores
   differ in size; a gCuhre call whose regions do not fit one GPU's
   GCUBA_MEMLIMIT converges on four, and so does one with kinks off the
   dyadic grid, whose regions the members search for where to cut.
   GCUBA_DEVICES=auto (the default):
   gCuhre and gVegas calls that grow to several GPUs give the bits of
   one, and say so in gcuba_last_devices; a thread bound to one CPU core
   does not grow, one bound to two grows to two GPUs.  First, a gVegas
   call on a fresh context whose first iteration has more chunks than
   maxeval/2.  This file is part of gcuba. */
#include <cuda_runtime.h>
#include <math.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "tap.h"
#include "gpu.h"
#include "collective.h"

/* the bytes of a region by which GCUBA_MEMLIMIT counts (src/cuhre) */
extern "C" long long gcuba_cuhre_region_bytes(int ndim, int ncomp);

typedef struct {
  long long neval;
  int nregions, fail;
  double integral[2], error[2], prob[2];
} result;

typedef struct {
  const char *name;
  int vegas, ndim, ncomp;
  gintegrand_t f;
  double epsrel;
  int flags, seed;
  long long maxeval;
  int key;
  long long nstart, nincrease;
  double exact;
} kase;

static void call(const kase *k, long long maxeval, void *ud,
                 const char *state, result *r)
{
  memset(r, 0, sizeof *r);
  if (k->vegas)
    llgVegas(k->ndim, k->ncomp, k->f, ud, 1, k->epsrel, 1e-12, k->flags,
             k->seed, 0, maxeval, k->nstart, k->nincrease, 1000, 0, state,
             NULL, &r->neval, &r->fail, r->integral, r->error, r->prob);
  else
    llgCuhre(k->ndim, k->ncomp, k->f, ud, 1, k->epsrel, 1e-12, k->flags, 0,
             maxeval, k->key, state, NULL, &r->nregions, &r->neval, &r->fail,
             r->integral, r->error, r->prob);
}

static int same(const result *a, const result *b)
{
  return a->neval == b->neval && a->nregions == b->nregions &&
         a->fail == b->fail &&
         !memcmp(a->integral, b->integral, sizeof a->integral) &&
         !memcmp(a->error, b->error, sizeof a->error) &&
         !memcmp(a->prob, b->prob, sizeof a->prob);
}

static int within(const kase *k, const result *r)
{
  double tol;
  if (r->fail != 0) return r->fail > 0;
  tol = k->vegas ? 4 * r->error[0] : k->epsrel * fabs(k->exact);
  return fabs(r->integral[0] - k->exact) <= tol;
}

static const kase cases[] = {
    {"gCuhre 4D product peak, 2 components", 0, 4, 2, peak, 1e-7, 0, 0,
     50000000, 0, 0, 0, 0},
    {"gCuhre 5D oscillatory, key 13", 0, 5, 1, osc, 1e-8, 0, 0, 100000000,
     13, 0, 0, 0},
    {"gCuhre 6D oscillatory, maxeval 150000", 0, 6, 1, osc, 1e-3, 0, 0,
     150000, 9, 0, 0, 0},
    {"gVegas 4D product peak, Sobol (seed 0)", 1, 4, 2, peak, 1e-3, 0, 0,
     2000000, 0, 20000, 5000, 0},
    {"gVegas 4D product peak, seed 7", 1, 4, 2, peak, 2e-4, 0, 7, 30000000,
     0, 100000, 0, 0},
    {"gVegas 5D oscillatory, seed 3, GCUBA_VEGASAUTO", 1, 5, 1, osc, 1e-4,
     GCUBA_VEGASAUTO, 3, 20000000, 0, 200000, 0, 0},
    {"gCuhre 4D kinks off the dyadic grid (cuts, searches)", 0, 4, 1, kinks,
     1e-10, 0, 0, 50000000, 0, 0, 0, 0},
};
#define KINKS 6 /* the case above */
#define NCASES ((int)(sizeof cases / sizeof cases[0]))

/* GCUBA_DEVICES=list, n GPUs (members); auto:... with GCUBA_DEVICES_AFTER=0:
   a gCuhre call grows to them after its third iteration, a gVegas call
   after its second: the first case does (the other gCuhre cases converge
   before), and so does the gVegas case at 2e-4 (many iterations); the
   other gVegas cases may */
static void team(const char *list, int n, const kase *ks, const result *loc)
{
  result a, b, l1, l2;
  int i, dev0 = -1, dev1 = -1, grow = !strncmp(list, "auto", 4);
  char state[64];
  setenv("GCUBA_DEVICES", list, 1);
  cudaGetDevice(&dev0);
  for (i = 0; i < NCASES; ++i) {
    int want = !grow || i == 0 || i == 4 || i == KINKS ? n
               : ks[i].vegas                          ? -1
                                                      : 1,
        used;
    call(&ks[i], ks[i].maxeval, NULL, NULL, &a);
    used = gcuba_last_devices();
    ok(same(&a, &loc[i]) && within(&ks[i], &a) &&
           (want < 0 ? used == 1 || used == n : used == want),
       "GCUBA_DEVICES=%s, %s: the bits of one GPU (fail %d, neval %lld, "
       "rel. error %.2g), ended on %d GPUs (%d)",
       list, ks[i].name, a.fail, a.neval,
       fabs(a.integral[0] - ks[i].exact) / fabs(ks[i].exact), want, used);
  }
  cudaGetDevice(&dev1);
  ok(dev0 == dev1, "GCUBA_DEVICES=%s: the caller's device stays %d (%d)",
     list, dev0, dev1);

  /* a state file: stopped by maxeval, resumed; as on one GPU */
  snprintf(state, sizeof state, "test-devices-%d.state", (int)getpid());
  setenv("GCUBA_DEVICES", "1", 1);
  remove(state);
  call(&ks[0], 200000, NULL, state, &l1);
  call(&ks[0], ks[0].maxeval, NULL, state, &l2);
  remove(state);
  setenv("GCUBA_DEVICES", list, 1);
  call(&ks[0], 200000, NULL, state, &a);
  call(&ks[0], ks[0].maxeval, NULL, state, &b);
  ok(l1.fail == 1 && same(&a, &l1) && same(&b, &l2) && within(&ks[0], &b),
     "GCUBA_DEVICES=%s: stopped by maxeval with a state file and resumed, "
     "as on one GPU (fail %d then %d)", list, a.fail, b.fail);
  remove(state);
  { /* gVegas too */
    const kase *k = &ks[3];
    setenv("GCUBA_DEVICES", "1", 1);
    call(k, 30000, NULL, state, &l1);
    call(k, k->maxeval, NULL, state, &l2);
    remove(state);
    setenv("GCUBA_DEVICES", list, 1);
    call(k, 30000, NULL, state, &a);
    call(k, k->maxeval, NULL, state, &b);
    remove(state);
    ok(l1.fail == 1 && same(&a, &l1) && same(&b, &l2) && within(k, &b),
       "GCUBA_DEVICES=%s: gVegas stopped with a state file and resumed, "
       "as on one GPU (fail %d then %d)", list, a.fail, b.fail);
  }

  /* one member's regions or samples abort or give NaN */
  {
    kase k = ks[0];
    k.ndim = 2;
    k.ncomp = 1;
    k.epsrel = 1e-9;
    k.f = corner_abort;
    call(&k, 1000000, NULL, NULL, &a);
    ok(a.fail == GCUBA_FAIL_ABORT, "GCUBA_DEVICES=%s: gCuhre, -999 in one "
       "corner: fail -99 (%d)", list, a.fail);
    k.f = corner_nan;
    call(&k, 1000000, NULL, NULL, &a);
    ok(a.fail == GCUBA_FAIL_NAN, "GCUBA_DEVICES=%s: gCuhre, NaN in one "
       "corner: fail -9 (%d)", list, a.fail);
    k.vegas = 1;
    k.nstart = 100000;
    k.nincrease = 0;
    k.f = corner_abort;
    call(&k, 1000000, NULL, NULL, &a);
    ok(a.fail == GCUBA_FAIL_ABORT, "GCUBA_DEVICES=%s: gVegas, -999 in one "
       "corner: fail -99 (%d)", list, a.fail);
    k.f = corner_nan;
    call(&k, 1000000, NULL, NULL, &a);
    ok(a.fail == GCUBA_FAIL_NAN, "GCUBA_DEVICES=%s: gVegas, NaN in one "
       "corner: fail -9 (%d)", list, a.fail);
  }
  setenv("GCUBA_DEVICES", "1", 1);
}

int main(void)
{
  kase ks[NCASES];
  result loc[NCASES], a, b;
  int i, ndev;
  gpu_required_or_skip();
  setenv("GCUBA_DEVICE", "gpu", 1);
  setenv("GCUBA_DEVICES", "1", 1);
  ndev = gcuba_device_count();
  /* a fresh sampler sized for maxeval 30000, Sobol points (one sample and
     one chunk per cube): its buffers hold the first iteration's 20000
     chunks (they held maxeval/2 before) */
  {
    kase k = cases[3];
    k.exact = peak_exact(4, COLL_U0);
    gcuba_release();
    call(&k, 30000, NULL, NULL, &a);
    ok(a.fail == 1 && a.neval == 20000,
       "gVegas, Sobol, nstart 20000, maxeval 30000 on a fresh context: "
       "fail 1 after 20000 samples (%d, %lld)", a.fail, a.neval);
  }
  for (i = 0; i < NCASES; ++i) {
    ks[i] = cases[i];
    ks[i].exact = ks[i].f == osc     ? osc_exact(ks[i].ndim)
                  : ks[i].f == kinks ? kinks_exact(ks[i].ndim)
                                     : peak_exact(ks[i].ndim, COLL_U0);
    call(&ks[i], ks[i].maxeval, NULL, NULL, &loc[i]);
    ok(within(&ks[i], &loc[i]), "one GPU, %s: fail %d, within the tolerance",
       ks[i].name, loc[i].fail);
  }
  team("0,0", 2, ks, loc);
  team("0,0,0", 3, ks, loc);
  if (ndev >= 2) {
    team("all", ndev, ks, loc);
    team("2", 2, ks, loc);
  } else
    diag("one GPU: GCUBA_DEVICES=all is the current GPU alone");
  /* GCUBA_DEVICES=auto (the default): a call that has run
     GCUBA_DEVICES_AFTER ms goes on on several GPUs, with the bits of one */
  setenv("GCUBA_DEVICES_AFTER", "0", 1);
  team("auto:0,0", 2, ks, loc);
  if (ndev >= 2) team("auto", ndev, ks, loc);
  unsetenv("GCUBA_DEVICES_AFTER");
  {
    /* not before GCUBA_DEVICES_AFTER: an hour */
    setenv("GCUBA_DEVICES_AFTER", "3600000", 1);
    setenv("GCUBA_DEVICES", "auto:0,0", 1);
    call(&ks[0], ks[0].maxeval, NULL, NULL, &a);
    ok(same(&a, &loc[0]) && gcuba_last_devices() == 1,
       "GCUBA_DEVICES=auto:0,0, GCUBA_DEVICES_AFTER=3600000: one GPU (%d)",
       gcuba_last_devices());
    unsetenv("GCUBA_DEVICES_AFTER");
    setenv("GCUBA_DEVICES", "1", 1);
  }
  {
    /* a thread bound to one CPU core (mpirun's default binding) stays on
       its GPU; bound to two, it grows to two GPUs at most */
    cpu_set_t old, set;
    int cpu, first = -1, second = -1;
    if (sched_getaffinity(0, sizeof old, &old) == 0) {
      for (cpu = 0; cpu < CPU_SETSIZE && second < 0; ++cpu)
        if (CPU_ISSET(cpu, &old)) {
          if (first < 0)
            first = cpu;
          else
            second = cpu;
        }
    }
    if (first >= 0) {
      setenv("GCUBA_DEVICES_AFTER", "0", 1);
      setenv("GCUBA_DEVICES", "auto:0,0", 1);
      CPU_ZERO(&set);
      CPU_SET(first, &set);
      sched_setaffinity(0, sizeof set, &set);
      call(&ks[0], ks[0].maxeval, NULL, NULL, &a);
      ok(same(&a, &loc[0]) && gcuba_last_devices() == 1,
         "GCUBA_DEVICES=auto:0,0 on one CPU core: one GPU (%d)",
         gcuba_last_devices());
      if (second >= 0) {
        setenv("GCUBA_DEVICES", "auto:0,0,0", 1);
        CPU_SET(second, &set);
        sched_setaffinity(0, sizeof set, &set);
        call(&ks[0], ks[0].maxeval, NULL, NULL, &a);
        ok(same(&a, &loc[0]) && gcuba_last_devices() == 2,
           "GCUBA_DEVICES=auto:0,0,0 on two CPU cores: two GPUs (%d)",
           gcuba_last_devices());
      }
      sched_setaffinity(0, sizeof old, &old);
      unsetenv("GCUBA_DEVICES_AFTER");
      setenv("GCUBA_DEVICES", "1", 1);
    } else
      diag("no CPU affinity: the one-core case is not run");
  }

  /* Members whose stores differ in size: after a one-GPU call of about
     120000 regions, one member takes its cached store and the other
     starts at 65536 regions and grows alone; the members must still make
     the same collective calls */
  {
    kase k = ks[0];
    k.epsrel = 1e-11;
    k.maxeval = 1000000000;
    call(&k, k.maxeval, NULL, NULL, &a);
    setenv("GCUBA_DEVICES", "0,0", 1);
    call(&k, k.maxeval, NULL, NULL, &b);
    setenv("GCUBA_DEVICES", "1", 1);
    ok(same(&a, &b) && a.fail == 0 && within(&k, &b),
       "GCUBA_DEVICES=0,0 after a call that leaves a large store: 4D peak "
       "at 1e-11, the bits of one GPU (fail %d, neval %lld)", b.fail,
       b.neval);
  }

  /* Memory beyond one GPU: GCUBA_MEMLIMIT holds 3000 regions, where the
     4D peak needs about 7700 at once.  One GPU stops with fail 1; four
     members hold the regions together (each its share, within the limit)
     and give the bits of one GPU without a limit. */
  {
    char lim[64];
    snprintf(lim, sizeof lim, "%lld",
             3000 * gcuba_cuhre_region_bytes(ks[0].ndim, ks[0].ncomp));
    setenv("GCUBA_MEMLIMIT", lim, 1);
    call(&ks[0], ks[0].maxeval, NULL, NULL, &a);
    ok(a.fail == 1 && a.neval < loc[0].neval,
       "GCUBA_MEMLIMIT=%s (3000 regions), one GPU: out of memory, fail 1 "
       "(%d) after %lld evaluations", lim, a.fail, a.neval);
    setenv("GCUBA_DEVICES", ndev >= 4 ? "0,1,2,3" : "0,0,0,0", 1);
    call(&ks[0], ks[0].maxeval, NULL, NULL, &b);
    ok(same(&b, &loc[0]) && b.fail == 0 && within(&ks[0], &b),
       "GCUBA_MEMLIMIT=%s on each of 4 GPUs: converges, the bits of one GPU "
       "without the limit (fail %d, neval %lld)", lim, b.fail, b.neval);
    /* two members hold 2 x 2996: the bits of one GPU with that limit
       (out of memory there too, or evicting) */
    setenv("GCUBA_DEVICES", "0,0", 1);
    call(&ks[0], ks[0].maxeval, NULL, NULL, &b);
    setenv("GCUBA_DEVICES", "1", 1);
    snprintf(lim, sizeof lim, "%lld",
             2 * 2996 * gcuba_cuhre_region_bytes(ks[0].ndim, ks[0].ncomp));
    setenv("GCUBA_MEMLIMIT", lim, 1);
    call(&ks[0], ks[0].maxeval, NULL, NULL, &a);
    ok(same(&a, &b), "GCUBA_MEMLIMIT of 3000 regions on each of 2 GPUs: "
       "the bits of one GPU with 5992 (fail %d, neval %lld)", b.fail,
       b.neval);
    /* the kinks: the largest limit (of 2000, 1400, 1000, ... regions)
       that one GPU runs out of (it needed about 2800 regions at once
       before gcuba_rule_nullerr's deep regions, fewer since); that limit
       on each of 4 members (a distributed store whose members search
       their own regions for where to cut) gives the bits of one GPU
       without a limit */
    {
      static const int lims[] = {2000, 1400, 1000, 700, 500, 350, 250};
      int j, nlim = 0;
      a.fail = 0;
      setenv("GCUBA_DEVICES", "1", 1);
      for (j = 0; j < (int)(sizeof lims / sizeof lims[0]) && a.fail != 1;
           ++j) {
        nlim = lims[j];
        snprintf(lim, sizeof lim, "%lld",
                 nlim * gcuba_cuhre_region_bytes(ks[KINKS].ndim,
                                                  ks[KINKS].ncomp));
        setenv("GCUBA_MEMLIMIT", lim, 1);
        call(&ks[KINKS], ks[KINKS].maxeval, NULL, NULL, &a);
      }
      setenv("GCUBA_DEVICES", ndev >= 4 ? "0,1,2,3" : "0,0,0,0", 1);
      call(&ks[KINKS], ks[KINKS].maxeval, NULL, NULL, &b);
      ok(a.fail == 1 && same(&b, &loc[KINKS]) && b.fail == 0 &&
             within(&ks[KINKS], &b),
         "GCUBA_MEMLIMIT of %d regions: %s fails on one GPU (%d) and "
         "converges on 4, the bits of one GPU without the limit (fail %d, "
         "neval %lld)", nlim, ks[KINKS].name, a.fail, b.fail, b.neval);
    }
    setenv("GCUBA_DEVICES", "1", 1);
    unsetenv("GCUBA_MEMLIMIT");
  }

  /* a host parameter struct, copied to every member's GPU */
  {
    struct peak_param p = {{0.61, 0.25, 0.5, 0.83}};
    kase k = ks[0];
    k.exact = peak_exact(4, p.u);
    gcuba_userdata_size(sizeof p);
    call(&k, k.maxeval, &p, NULL, &a);
    setenv("GCUBA_DEVICES", ndev >= 2 ? "all" : "0,0", 1);
    call(&k, k.maxeval, &p, NULL, &b);
    setenv("GCUBA_DEVICES", "1", 1);
    ok(same(&a, &b) && a.fail == 0 && within(&k, &b),
       "userdata from the host (gcuba_userdata_size): every GPU gets it, "
       "the bits of one GPU");
    /* in the memory of GPU 0: the call stays there */
    {
      void *dp = NULL;
      int rc = cudaMalloc(&dp, sizeof p) != cudaSuccess ||
               cudaMemcpy(dp, &p, sizeof p, cudaMemcpyHostToDevice) !=
                   cudaSuccess;
      gcuba_userdata_size(0);
      setenv("GCUBA_DEVICES", ndev >= 2 ? "all" : "0,0", 1);
      if (!rc) call(&k, k.maxeval, dp, NULL, &b);
      setenv("GCUBA_DEVICES", "1", 1);
      ok(!rc && same(&a, &b),
         "userdata in GPU memory: the call runs on that GPU, same bits");
      cudaFree(dp);
    }
  }

  /* GCUBA_DEVICES that do not parse or ask for more than there is */
  {
    static const char *const bad[] = {"x", "0,", ",1", "0,,1", "0", "-1",
                                      "1e3", "all,0"};
    char many[32];
    for (i = 0; i < (int)(sizeof bad / sizeof *bad); ++i) {
      setenv("GCUBA_DEVICES", bad[i], 1);
      call(&ks[0], 100000, NULL, NULL, &a);
      ok(a.fail == GCUBA_FAIL_ENV, "GCUBA_DEVICES=\"%s\": fail -16 (%d)",
         bad[i], a.fail);
    }
    snprintf(many, sizeof many, "%d", ndev + 1);
    setenv("GCUBA_DEVICES", many, 1);
    call(&ks[0], 100000, NULL, NULL, &a);
    ok(a.fail == GCUBA_FAIL_ENV, "GCUBA_DEVICES=%s with %d GPU(s): fail -16 "
       "(%d)", many, ndev, a.fail);
    snprintf(many, sizeof many, "auto:%d", ndev + 1);
    setenv("GCUBA_DEVICES", many, 1);
    call(&ks[0], 100000, NULL, NULL, &a);
    ok(a.fail == GCUBA_FAIL_ENV, "GCUBA_DEVICES=%s with %d GPU(s): fail -16 "
       "(%d)", many, ndev, a.fail);
    snprintf(many, sizeof many, "0,%d", ndev);
    setenv("GCUBA_DEVICES", many, 1);
    call(&ks[3], 100000, NULL, NULL, &a);
    ok(a.fail == GCUBA_FAIL_ENV, "GCUBA_DEVICES=%s (no GPU %d): gVegas "
       "fail -16 (%d)", many, ndev, a.fail);
    setenv("GCUBA_DEVICES", "1", 1);
    call(&ks[0], ks[0].maxeval, NULL, NULL, &a);
    ok(same(&a, &loc[0]), "GCUBA_DEVICES=1: the current GPU, same bits");
    setenv("GCUBA_DEVICES", "1", 1);
  }
  gcuba_release();
  return done();
}
