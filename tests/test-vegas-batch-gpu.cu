/* tests/test-vegas-batch-gpu.cu -- gVegasBatch's GPU pipeline
   (cuda/vegas_batch.cu): every integral of a batch gives its single gVegas
   call on the GPU (neval and fail; integral, error and prob up to
   rounding: the batch refines its grids on the device, the single call
   on the host) and the same bits whatever else is in the batch, with
   Philox and Sobol points, vector integrands and one shared grid;
   members that fail (NaN, -999, maxeval) fail alone; an iteration beyond
   one launch (more than one slice) goes on the single-call backend; more
   integrals than run at once enter as others leave; the answers are
   within 4 errors of the truth.  This file is part of gcuba. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "tap.h"
#include "gpu.h"
#include "gcuba.h"
#include "peak.h"

GCUBA_INTEGRAND(vpeak)(const int *ndim, const double x[], const int *ncomp,
                       double f[], void *userdata) TEST_BATCH_PEAK_BODY

static unsigned long long rng = 4242;
static double rnd(void)
{
  rng = rng * 6364136223846793005ULL + 1442695040888963407ULL;
  return (double)(rng >> 11) * 0x1.0p-53;
}

static void make(struct peak *p, int n)
{
  for (int b = 0; b < n; ++b) {
    for (int i = 0; i < 5; ++i) p[b].c[i] = 0.1 + 0.8 * rnd();
    p[b].w = 0.2 + 0.3 * rnd();
    p[b].mode = 0;
    p[b].s = 0.5;
  }
}

/* the arguments of one batch */
struct args {
  int ndim, ncomp, flags, seed;
  long long maxeval, nstart, nincrease;
  double epsrel; /* (0: 1e-3) */
};

struct out {
  long long nev;
  int fail;
  double I[3], E[3], P[3];
};

/* members p[0 .. n-1] as one batch into o */
static void batch(const struct args *a, struct peak *p, int n, struct out *o)
{
  long long *nev = (long long *)malloc(sizeof *nev * n);
  int *fail = (int *)malloc(sizeof *fail * n);
  double *I = (double *)malloc(sizeof *I * n * a->ncomp),
         *E = (double *)malloc(sizeof *E * n * a->ncomp),
         *P = (double *)malloc(sizeof *P * n * a->ncomp);
  llgVegasBatch(n, a->ndim, a->ncomp, vpeak, p, sizeof p[0], 1,
                a->epsrel > 0 ? a->epsrel : 1e-3, 0, a->flags, a->seed, 0, a->maxeval, a->nstart, a->nincrease,
                1000, 0, nev, fail, I, E, P);
  for (int b = 0; b < n; ++b) {
    o[b].nev = nev[b];
    o[b].fail = fail[b];
    for (int k = 0; k < a->ncomp; ++k) {
      o[b].I[k] = I[b * a->ncomp + k];
      o[b].E[k] = E[b * a->ncomp + k];
      o[b].P[k] = P[b * a->ncomp + k];
    }
  }
  free(nev);
  free(fail);
  free(I);
  free(E);
  free(P);
}

/* member p alone, as a single gVegas call on the GPU */
static void single(const struct args *a, struct peak *p, struct out *o)
{
  gcuba_userdata_size(sizeof *p);
  llgVegas(a->ndim, a->ncomp, vpeak, p, 1, a->epsrel > 0 ? a->epsrel : 1e-3,
           0, a->flags, a->seed, 0,
           a->maxeval, a->nstart, a->nincrease, 1000, 0, NULL, NULL, &o->nev,
           &o->fail, o->I, o->E, o->P);
  gcuba_userdata_size(0);
}

/* x and y bit for bit (two batches: both refine their grids on the
   device) */
static int bits(const struct args *a, const struct out *x,
                const struct out *y)
{
  if (x->nev != y->nev || x->fail != y->fail) return 0;
  for (int k = 0; k < a->ncomp; ++k)
    if (x->fail >= 0 && (x->I[k] != y->I[k] || x->E[k] != y->E[k] ||
                         x->P[k] != y->P[k]))
      return 0;
  return 1;
}

/* a member y against its single call x, whose grid the host refines:
   the same neval and fail, the answers up to rounding (the device's and
   the host's log1p differ in the last bits of the grids' weights): the
   integral within 1e-12, its error within 1e-8 (a variance is a
   difference of sums that cancels: 2e-12 measured on 1-D peaks), prob
   within 1e-9 */
static int near(double u, double v, double rel)
{
  return fabs(u - v) <= rel * fabs(u);
}
static int same(const struct args *a, const struct out *x,
                const struct out *y)
{
  if (x->nev != y->nev || x->fail != y->fail) return 0;
  for (int k = 0; k < a->ncomp; ++k)
    if (x->fail >= 0 &&
        (!near(x->I[k], y->I[k], 1e-12) || !near(x->E[k], y->E[k], 1e-8) ||
         fabs(x->P[k] - y->P[k]) > 1e-9))
      return 0;
  return 1;
}

/* members 0 .. m-1 of a batch o against their single calls: how many
   agree bit for bit (the first few that do not are said) */
static int against_single(const struct args *a, struct peak *p,
                          const struct out *o, int m)
{
  int alike = 0, said = 0;
  for (int b = 0; b < m; ++b) {
    struct out s;
    single(a, &p[b], &s);
    if (same(a, &s, &o[b])) ++alike;
    else if (said++ < 5)
      diag("member %d: batch %.17g +- %.3g (%lld, fail %d), single %.17g "
           "+- %.3g (%lld, fail %d)", b, o[b].I[0], o[b].E[0], o[b].nev,
           o[b].fail, s.I[0], s.E[0], s.nev, s.fail);
  }
  return alike;
}

static void check_peaks(int seed)
{
  enum { N = 1000, M = 100, S0 = 137, NS = 50 };
  static struct peak p[N];
  static struct out o[N], o2[NS];
  const struct args a = {5, 1, 0, seed, 1000000, 10000, 5000};
  int conv = 0, within = 0, alike, sub = 0;
  long long tot = 0;
  make(p, N);
  batch(&a, p, N, o);
  ok(!strcmp(gcuba_last_backend(), "gpu"), "seed %d: backend %s", seed,
     gcuba_last_backend());
  for (int b = 0; b < N; ++b) {
    tot += o[b].nev;
    if (o[b].fail == 0) {
      ++conv;
      if (fabs(o[b].I[0] - peak_truth(&p[b], 5)) <= 4 * o[b].E[0]) ++within;
    }
  }
  ok(conv >= N - N / 100 && within == conv, "seed %d: %d 5-D peaks at "
     "1e-3, %d converged, %d of them within 4 errors of the truth (mean "
     "neval %lld)", seed, N, conv, within, tot / N);
  alike = against_single(&a, p, o, M);
  ok(alike == M, "seed %d: the first %d members agree with their "
     "single GPU calls up to rounding (%d)", seed, M, alike);
  batch(&a, p + S0, NS, o2);
  for (int b = 0; b < NS; ++b) sub += bits(&a, &o2[b], &o[S0 + b]);
  ok(sub == NS, "seed %d: %d members run as a batch of their own: the same "
     "bits (%d)", seed, NS, sub);
}

/* a NaN and a -999 member fail alone; the others as their single calls */
static void check_members(void)
{
  enum { N = 8 };
  static struct peak p[N];
  static struct out o[N];
  const struct args a = {5, 1, 0, 3, 1000000, 10000, 5000};
  int good = 1, conv = 0;
  make(p, N);
  p[2].mode = 1;
  p[5].mode = 2;
  batch(&a, p, N, o);
  for (int b = 0; b < N; ++b) {
    struct out s;
    single(&a, &p[b], &s);
    if (!same(&a, &s, &o[b])) {
      good = 0;
      diag("member %d: fail %d neval %lld, alone fail %d neval %lld", b,
           o[b].fail, o[b].nev, s.fail, s.nev);
    }
  }
  for (int b = 0; b < N; ++b) conv += o[b].fail == 0;
  ok(good && o[2].fail == GCUBA_FAIL_NAN && o[5].fail == GCUBA_FAIL_ABORT &&
         conv == N - 2,
     "a NaN member (fail %d) and a -999 member (fail %d) fail alone, the "
     "other %d converge; every member as its single call", o[2].fail,
     o[5].fail, conv);
}

/* maxeval: the iteration that would pass it is not sampled (fail 1) */
static void check_maxeval(void)
{
  enum { N = 20 };
  static struct peak p[N];
  static struct out o[N];
  const struct args a = {5, 1, 0, 2, 42000, 10000, 5000};
  int alike, stopped = 0;
  make(p, N);
  for (int b = 0; b < N; ++b) p[b].w = 0.05; /* narrow: not at 42000 */
  batch(&a, p, N, o);
  alike = against_single(&a, p, o, N);
  for (int b = 0; b < N; ++b)
    stopped += o[b].fail == 1 && o[b].nev <= 42000;
  ok(alike == N && stopped == N, "maxeval 42000 on narrow peaks: %d of %d "
     "stop with fail 1 within it, %d as their single calls",
     stopped, N, alike);
}

/* three components, one grid for all axes (GCUBA_VEGAS1D), 3-D */
static void check_vector(void)
{
  enum { N = 40 };
  static struct peak p[N];
  static struct out o[N];
  const struct args a = {3, 3, GCUBA_VEGAS1D, 9, 1000000, 5000, 2000};
  int alike, within = 0, conv = 0;
  make(p, N);
  batch(&a, p, N, o);
  alike = against_single(&a, p, o, N);
  for (int b = 0; b < N; ++b)
    if (o[b].fail == 0) {
      ++conv;
      if (fabs(o[b].I[2] - 3 * peak_truth(&p[b], 3)) <= 4 * o[b].E[2])
        ++within;
    }
  ok(alike == N && conv >= N / 2 && within == conv, "3 components, one "
     "grid: %d of %d members as their single calls, %d converged, "
     "%d of them within 4 errors", alike, N, conv, within);
}

/* iterations of more than one slice (2^24 samples) go on alone */
static void check_alone(void)
{
  enum { N = 3 };
  static struct peak p[N];
  static struct out o[N];
  const struct args a = {3, 1, 0, 5, 200000000, 20000000, 0};
  int alike;
  make(p, N);
  batch(&a, p, N, o);
  alike = against_single(&a, p, o, N);
  ok(alike == N && o[0].nev >= 20000000, "iterations of 2e7 samples: %d of "
     "%d members as their single calls (neval %lld)", alike, N,
     o[0].nev);
}

/* 3-D peaks at 1e-5 with iterations of 20000 samples and more: their
   grids settle and are rebinned to more bins (the driver takes its grid
   back from the device, rebins it and sends it again), also with
   GCUBA_VEGASAUTO; every member as its single call */
static void check_rebin(void)
{
  enum { N = 4 };
  static struct peak p[N];
  static struct out o[N];
  int alike = 0, conv = 0, within = 0, atmax = 0;
  make(p, N);
  for (int f = 0; f < 2; ++f) {
    const struct args a = {3, 1, f ? GCUBA_VEGASAUTO : 0, 1, 50000000, 20000,
                           10000, 1e-5};
    for (int b = 0; b < N; ++b) p[b].w = 0.15 + 0.1 * rnd();
    batch(&a, p, N, o);
    alike += against_single(&a, p, o, N);
    for (int b = 0; b < N; ++b) {
      conv += o[b].fail == 0;
      within += o[b].fail == 0 &&
                fabs(o[b].I[0] - peak_truth(&p[b], 3)) <= 4 * o[b].E[0];
      atmax += o[b].fail == 1;
    }
  }
  ok(alike == 2 * N && conv >= N && within == conv && conv + atmax == 2 * N,
     "3-D peaks at 1e-5, rebinned on the way, with and without "
     "GCUBA_VEGASAUTO: %d of %d as their single calls, %d converged (%d "
     "within 4 errors), the others at maxeval", alike, 2 * N, conv, within);
}

/* more integrals than the pipeline runs at once (2^16): those that enter
   late as others leave, the same bits */
static void check_admit(void)
{
  enum { N = 70000 };
  static struct peak p[N];
  static struct out o[N];
  const struct args a = {1, 1, 0, 1, 1000000, 1000, 500};
  const int pick[] = {0, 65535, 65536, 65537, 69999};
  int alike = 0, conv = 0, within = 0;
  make(p, N);
  batch(&a, p, N, o);
  for (int b = 0; b < N; ++b)
    if (o[b].fail == 0) {
      ++conv;
      if (fabs(o[b].I[0] - peak_truth(&p[b], 1)) <= 4 * o[b].E[0]) ++within;
    }
  for (int i = 0; i < 5; ++i) {
    struct out s1;
    single(&a, &p[pick[i]], &s1);
    alike += same(&a, &s1, &o[pick[i]]);
  }
  ok(alike == 5 && conv >= N - N / 1000 && within >= conv - N / 1000,
     "%d 1-D peaks: %d "
     "converged, %d within 4 errors; members 0, 65535 .. 65537 and 69999 "
     "agree with their single calls (%d of 5)", N, conv, within, alike);
}

/* userstride 0 and no gcuba_userdata_size: one block in host memory of
   unknown size.  The batch goes where a single call with that block
   goes: CPU threads when this GPU cannot read host memory in place
   (fail -6 with GCUBA_DEVICE=gpu), the GPU when it can */
static void check_nosize(void)
{
  static struct peak q;
  long long nev[2], n1;
  int fail[2], f1, good = 1;
  double I[2], E[2], P[2], i1, e1, p1;
  char bb[2][16], b1[2][16];
  make(&q, 1);
  for (int forced = 0; forced < 2; ++forced) {
    if (forced) setenv("GCUBA_DEVICE", "gpu", 1);
    llgVegasBatch(2, 5, 1, vpeak, &q, 0, 1, 1e-3, 0, 0, 1, 0, 1000000, 10000,
                  5000, 1000, 0, nev, fail, I, E, P);
    snprintf(bb[forced], sizeof bb[0], "%s", gcuba_last_backend());
    llgVegas(5, 1, vpeak, &q, 1, 1e-3, 0, 0, 1, 0, 1000000, 10000, 5000,
             1000, 0, NULL, NULL, &n1, &f1, &i1, &e1, &p1);
    snprintf(b1[forced], sizeof b1[0], "%s", gcuba_last_backend());
    unsetenv("GCUBA_DEVICE");
    if (fail[0] != f1 || fail[1] != f1 || strcmp(bb[forced], b1[forced]) ||
        (f1 == 0 && (I[0] != I[1] || fabs(I[0] - i1) > 4 * e1)) ||
        (forced == 0 && f1 != 0) ||
        (forced == 1 && f1 != 0 && f1 != GCUBA_FAIL_PARAM))
      good = 0;
    diag("%s: batch fail %d %d on %s, single call fail %d on %s",
         forced ? "GCUBA_DEVICE=gpu" : "auto", fail[0], fail[1], bb[forced],
         f1, b1[forced]);
  }
  ok(good, "userstride 0, no size: the batch where its single call goes "
     "(%s; with GCUBA_DEVICE=gpu %s), with its fail", bb[0], bb[1]);
}

int main(void)
{
  gpu_required_or_skip();
  plan(0);
  check_peaks(1);
  check_peaks(0);
  check_members();
  check_maxeval();
  check_vector();
  check_alone();
  check_rebin();
  check_admit();
  check_nosize();
  gcuba_release(); /* (the single calls' cached device buffers) */
  return done();
}
