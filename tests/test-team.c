/* tests/test-team.c -- the in-process collective behind GCUBA_DEVICES
   (gcuba_team_run_on, src/team/team.c), on the CPU: no GPU is needed,
   so CI runs it.  Its members are threads; here they have no device and
   use the CPU backend, whose collective path is the one MPI uses.
   - The operations: all-gather of blocks of unequal sizes (some empty),
     reductions of every kind over more values than one chunk, the status
     agreement (one member's failure reaches all), argument agreement.
   - Whole gCuhre and gVegas calls (the plan's members,
     gcuba_plan_member_cuhre and gcuba_plan_member_vegas) by
     2, 3 and 4 members: the bits of one thread (integral, error, prob,
     neval, nregions, fail), within the tolerance of the analytic value;
     an abort and a NaN that only one member's share sees; a state file
     written by a team and resumed by another.
   - GCUBA_DEVICES=auto's delay before a call grows
     (gcuba_plan_grow_after).
   This file is part of gcuba. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "tap.h"
#include "capture.h"
#include "common/common.h"
#include "common/coll.h"
#include "plan/plan_int.h"
#include "team/team.h"
#include "collective.h"

/* ---- the operations ---------------------------------------------------- */
static int bad[GCUBA_MAXDEVICES]; /* per member: checks that failed */

#define NRED 600 /* more than one chunk of team_reduce */
static void ops(gcuba_call *c)
{
  const gcuba_collective *k = c->coll;
  const int me = k->rank, n = k->size;
  long long counts[GCUBA_MAXDEVICES] = {0}, tot = 0, ll[NRED], i;
  double d[NRED], *buf;
  int r, j, nb = 0;
  /* member r gives r * 3 doubles (member 0 none) of value 1000 r + j */
  for (r = 0; r < n; ++r) tot += counts[r] = 3 * r;
  buf = (double *)malloc(sizeof(double) * (size_t)(tot + 1));
  for (i = 0, r = 0; r < n; ++r)
    for (j = 0; j < counts[r]; ++j, ++i)
      buf[i] = r == me ? 1000.0 * r + j : -1;
  if (gcuba_coll_gather(c, buf, counts, GCUBA_COLL_DOUBLE)) ++nb;
  for (i = 0, r = 0; r < n; ++r)
    for (j = 0; j < counts[r]; ++j, ++i)
      if (buf[i] != 1000.0 * r + j) ++nb;
  free(buf);
  /* reductions */
  for (j = 0; j < NRED; ++j) {
    ll[j] = (long long)(me + 1) * (j + 1);
    d[j] = (me + 1) * 0.5 + j;
  }
  if (gcuba_coll_reduce_ll(c, ll, NRED, GCUBA_COLL_SUM)) ++nb;
  for (j = 0; j < NRED; ++j)
    if (ll[j] != (long long)n * (n + 1) / 2 * (j + 1)) ++nb;
  if (gcuba_coll_reduce_d(c, d, NRED, GCUBA_COLL_MAX)) ++nb;
  for (j = 0; j < NRED; ++j)
    if (d[j] != n * 0.5 + j) ++nb;
  for (j = 0; j < NRED; ++j) ll[j] = me == j % n ? 1LL << (j % 40) : 0;
  if (gcuba_coll_reduce_ll(c, ll, NRED, GCUBA_COLL_BOR)) ++nb;
  for (j = 0; j < NRED; ++j)
    if (ll[j] != 1LL << (j % 40)) ++nb;
  d[0] = me;
  if (gcuba_coll_reduce_d(c, d, 1, GCUBA_COLL_MIN) || d[0] != 0) ++nb;
  /* all-to-all: member s sends s + r + 1 bytes of value 16 s + r to member
     r, from send + 11 r, received at recv + 12 s, the rest untouched */
  {
    unsigned char send[11 * 8 + 16], recv[12 * 8];
    long long sc[GCUBA_MAXDEVICES], so[GCUBA_MAXDEVICES],
        rc[GCUBA_MAXDEVICES], ro[GCUBA_MAXDEVICES];
    memset(recv, 0xee, sizeof recv);
    for (r = 0; r < n; ++r) {
      sc[r] = me + r + 1;
      so[r] = 11 * r;
      memset(send + so[r], 16 * me + r, (size_t)sc[r]);
      rc[r] = r + me + 1;
      ro[r] = 12 * r;
    }
    if (gcuba_coll_alltoallv(c, send, sc, so, recv, rc, ro)) ++nb;
    for (r = 0; r < n; ++r)
      for (j = 0; j < 12; ++j)
        if (recv[12 * r + j] != (j < r + me + 1 ? 16 * r + me : 0xee)) ++nb;
  }
  /* a status: the last member fails, every member learns it */
  if (gcuba_coll_status(c, me == n - 1 ? GCUBA_FAIL_NOMEM : 0) !=
      GCUBA_FAIL_NOMEM)
    ++nb;
  c->fail = 0;
  /* arguments: equal, then one member differs */
  {
    static const char *const what[] = {"x"};
    long long v = 7;
    if (gcuba_coll_agree(c, &v, 1, what)) ++nb;
    v = me == 0 ? 8 : 7;
    if (gcuba_coll_agree(c, &v, 1, what) != GCUBA_FAIL_COLLECTIVE) ++nb;
    c->fail = 0;
  }
  bad[me] = nb;
}

/* ---- whole calls ------------------------------------------------------- */
typedef struct {
  long long neval, nregions;
  int fail;
  double integral[2], error[2], prob[2];
} result;

static int verbose; /* of call() */

/* one call as src/api does it, by a team of n (1: this thread alone) */
static void call(int vegas, int ndim, int ncomp, gintegrand_t f, double eps,
                 long long maxeval, int seed, const char *state, int n,
                 result *r)
{
  gcuba_call c;
  int dev[GCUBA_MAXDEVICES], i;
  memset(&c, 0, sizeof c);
  memset(r, 0, sizeof *r);
  c.routine = vegas ? "llgVegas" : "llgCuhre";
  c.verbose = verbose;
  c.ndim = ndim;
  c.ncomp = ncomp;
  c.integrand = f;
  c.nvec = 1;
  c.epsrel = eps;
  c.epsabs = 1e-12;
  c.seed = seed;
  c.maxeval = maxeval;
  c.nstart = 10000;
  c.nincrease = 5000;
  c.nbatch = 1000;
  c.statefile = state;
  c.integral = r->integral;
  c.error = r->error;
  c.prob = r->prob;
  /* the plan's decisions for a call on CPU threads */
  if (gcuba_plan_settings(&c) ||
      gcuba_plan_check(&c, vegas ? GCUBA_ROUTINE_VEGAS
                                 : GCUBA_ROUTINE_CUHRE)) {
    r->fail = c.fail;
    return;
  }
  c.verbose = verbose;
  c.backend = GCUBA_BK_CPU;
  c.threads = 1;
  for (i = 0; i < n; ++i) dev[i] = -1;
  if (n == 1)
    vegas ? gcuba_plan_member_vegas(&c) : gcuba_plan_member_cuhre(&c);
  else
    gcuba_team_run_on(&c, vegas ? gcuba_plan_member_vegas
                                : gcuba_plan_member_cuhre, dev, n);
  r->neval = c.neval;
  r->nregions = c.nregions;
  r->fail = c.fail;
}

static int same(const result *a, const result *b)
{
  return a->neval == b->neval && a->nregions == b->nregions &&
         a->fail == b->fail && !memcmp(a->integral, b->integral, sizeof a->integral) &&
         !memcmp(a->error, b->error, sizeof a->error) &&
         !memcmp(a->prob, b->prob, sizeof a->prob);
}

int main(void)
{
  static const struct {
    const char *name;
    int vegas, ndim, ncomp, seed;
    double eps;
    long long maxeval;
  } cases[] = {
      {"gCuhre 4D product peak, 2 components", 0, 4, 2, 0, 1e-7, 20000000},
      {"gCuhre 3D product peak, maxeval 30000", 0, 3, 1, 0, 1e-9, 30000},
      {"gVegas 4D product peak, Sobol", 1, 4, 2, 0, 1e-3, 2000000},
      {"gVegas 4D product peak, seed 5", 1, 4, 1, 5, 3e-3, 2000000},
  };
  result one, a, b;
  char state[64];
  int n, i, r, nb;
  setenv("GCUBA_DEVICE", "cpu", 1);
  unsetenv("GCUBA_DEVICES");
  gcubacores(&(int){1}, NULL); /* members are threads already */

  for (n = 2; n <= 5; ++n) {
    gcuba_call c;
    int dev[GCUBA_MAXDEVICES];
    memset(&c, 0, sizeof c);
    c.routine = "test";
    for (i = 0; i < n; ++i) dev[i] = -1;
    memset(bad, 0, sizeof bad);
    gcuba_team_run_on(&c, ops, dev, n);
    for (nb = 0, r = 0; r < n; ++r) nb += bad[r];
    ok(nb == 0 && c.fail == 0, "%d members: gather, reductions, all-to-all, "
       "status and argument agreement (%d wrong)", n, nb);
  }

  for (i = 0; i < (int)(sizeof cases / sizeof *cases); ++i) {
    const double exact = peak_exact(cases[i].ndim, COLL_U0);
    call(cases[i].vegas, cases[i].ndim, cases[i].ncomp, peak, cases[i].eps,
         cases[i].maxeval, cases[i].seed, NULL, 1, &one);
    ok(one.fail != 0 ||
           fabs(one.integral[0] - exact) <=
               (cases[i].vegas ? 4 * one.error[0] : cases[i].eps * exact),
       "%s, one thread: fail %d, within the tolerance", cases[i].name,
       one.fail);
    for (n = 2; n <= 4; ++n) {
      call(cases[i].vegas, cases[i].ndim, cases[i].ncomp, peak,
           cases[i].eps, cases[i].maxeval, cases[i].seed, NULL, n, &a);
      ok(same(&a, &one), "%s, %d members: the bits of one thread (fail %d, "
         "neval %lld)", cases[i].name, n, a.fail, a.neval);
    }
  }

  for (n = 2; n <= 3; ++n) {
    call(0, 2, 1, corner_abort, 1e-9, 1000000, 0, NULL, n, &a);
    ok(a.fail == GCUBA_FAIL_ABORT, "gCuhre, %d members, -999 in one corner: "
       "fail -99 (%d)", n, a.fail);
    call(0, 2, 1, corner_nan, 1e-9, 1000000, 0, NULL, n, &a);
    ok(a.fail == GCUBA_FAIL_NAN, "gCuhre, %d members, NaN in one corner: "
       "fail -9 (%d)", n, a.fail);
    call(1, 2, 1, corner_abort, 1e-9, 1000000, 1, NULL, n, &a);
    ok(a.fail == GCUBA_FAIL_ABORT, "gVegas, %d members, -999 in one corner: "
       "fail -99 (%d)", n, a.fail);
    call(1, 2, 1, corner_nan, 1e-9, 1000000, 1, NULL, n, &a);
    ok(a.fail == GCUBA_FAIL_NAN, "gVegas, %d members, NaN in one corner: "
       "fail -9 (%d)", n, a.fail);
  }

  /* a state file: stopped by a team of 3, resumed by a team of 2, as by
     one thread */
  snprintf(state, sizeof state, "test-team-%ld.state", (long)getpid());
  for (i = 0; i < 2; ++i) {
    const int vegas = i == 1;
    const long long stop = vegas ? 30000 : 200000;
    result l1, l2;
    remove(state);
    call(vegas, 4, 2, peak, 1e-6, stop, 0, state, 1, &l1);
    call(vegas, 4, 2, peak, 1e-6, 20000000, 0, state, 1, &l2);
    remove(state);
    call(vegas, 4, 2, peak, 1e-6, stop, 0, state, 3, &a);
    call(vegas, 4, 2, peak, 1e-6, 20000000, 0, state, 2, &b);
    remove(state);
    ok(l1.fail == 1 && same(&a, &l1) && same(&b, &l2),
       "%s: stopped with a state file by 3 members, resumed by 2, as by one "
       "thread (fail %d then %d)", vegas ? "gVegas" : "gCuhre", a.fail,
       b.fail);
  }
  {
    /* verbosity 2 says how long each member waited for the others: every
       member passes the same barriers, and waits no longer than the call */
    static char buf[1 << 20];
    const char *log = "test-team-log.txt", *p;
    double w[4] = {-1, -1, -1, -1}, tot[4] = {0};
    long long nb[4] = {0};
    int save = capture_begin(log), k, seen = 0, good = 1;
    verbose = 2;
    call(0, 4, 2, peak, 1e-5, 20000000, 0, NULL, 3, &a);
    verbose = 0;
    capture_end(save, log, buf, sizeof buf);
    for (p = buf; (p = strstr(p, "member ")) != NULL; ++p) {
      double wk, tk;
      long long bk;
      if (sscanf(p, "member %d (CPU): waited %lf ms of %lf ms for the "
                 "others, at %lld barriers", &k, &wk, &tk, &bk) == 4 &&
          k >= 0 && k < 3) {
        w[k] = wk;
        tot[k] = tk;
        nb[k] = bk;
        ++seen;
      }
    }
    for (k = 0; k < 3; ++k)
      good &= w[k] >= 0 && w[k] <= tot[k] && nb[k] > 0 && nb[k] == nb[0];
    ok(seen == 3 && good && a.fail == 0,
       "gCuhre by 3 members at verbosity 2: each member's waiting time "
       "(%.2f, %.2f, %.2f ms of %.2f) and barriers (%lld, %lld, %lld)",
       w[0], w[1], w[2], tot[0], nb[0], nb[1], nb[2]);
  }
  {
    /* GCUBA_DEVICES=auto's delay: GPUs on which no team member of this
       process has run start their CUDA contexts first (no team here has
       used a GPU), so the default is the longer one; an explicit
       GCUBA_DEVICES_AFTER applies as it is */
    const int devs[2] = {0, 1};
    gcuba_settings s;
    unsetenv("GCUBA_DEVICES_AFTER");
    gcuba_settings_get(&s, NULL, 0);
    ok(gcuba_plan_grow_after(&s, devs, 2) == GCUBA_DEVICES_COLD_MS,
       "GPUs not used yet: grow after %d ms (%g)", GCUBA_DEVICES_COLD_MS,
       gcuba_plan_grow_after(&s, devs, 2));
    setenv("GCUBA_DEVICES_AFTER", "7", 1);
    gcuba_settings_get(&s, NULL, 0);
    ok(gcuba_plan_grow_after(&s, devs, 2) == 7,
       "GCUBA_DEVICES_AFTER=7: grow after 7 ms (%g)",
       gcuba_plan_grow_after(&s, devs, 2));
    unsetenv("GCUBA_DEVICES_AFTER");
  }
  return done();
}
