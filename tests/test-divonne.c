/* tests/test-divonne.c -- gDivonne: Cuba's demo integrands (converged
   wherever Cuba 4.2.2's Divonne converges, every fail = 0 within the
   tolerance of the true value), test integrands of the suite against
   their analytic values, the samplers (rules, lattices, quasi-random and
   pseudo-random points), the border, given points and a peak finder,
   bad arguments (each its fail code, no work done), an integrand's abort
   and NaN, the same bits for any thread count, Cuba's nvec form (the
   phase), many components, final copies of millions of points, the
   state file (a run interrupted by maxeval or by the integrand resumes
   to the bits of an uninterrupted one), the final phase's copies made
   many regions a call (the bits of one region a call), regions whose
   copies see what their partition did not (honest errors).
   Built twice: CPU integrands, and (test-divonne-gpu) nvcc-built ones on
   the GPU.  This file is part of gcuba. */
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include "tap.h"
#include "suite.h"
#include "gpu.h"
#include "gaussians.h"
#include "capture.h"

typedef struct {
  int nregions, fail;
  long long neval;
  double I, E, P;
} result;

typedef struct {
  int key1, key2, key3, maxpass;
  double border, maxchisq, mindev;
  long long ngiven;
  const double *xgiven;
  long long nextra;
  gcuba_peakfinder_t pf;
} keys;

/* Cuba's demo-c.c: key1 47, key2 1, key3 1, maxpass 5, border 0,
   maxchisq 10, mindeviation 0.25 */
static const keys demo_keys = {47, 1, 1, 5, 0, 10, .25, 0, NULL, 0, NULL};

#ifdef SUITE_GPU
#define SF "test-divonne-gpu.state"
#else
#define SF "test-divonne.state"
#endif
/* the state file of the calls (NULL: none) */
static const char *statefile;

static void run(result *r, int ndim, gintegrand_t f, void *ud, int flags,
                int seed, double epsrel, long long maxeval, const keys *k)
{
  r->nregions = r->fail = 12345;
  r->neval = -1;
  llgDivonne(ndim, 1, f, ud, 1, epsrel, 1e-12, flags, seed, 0, maxeval,
             k->key1, k->key2, k->key3, k->maxpass, k->border, k->maxchisq,
             k->mindev, k->ngiven, ndim, (double *)k->xgiven, k->nextra,
             k->pf, statefile, NULL, &r->nregions, &r->neval, &r->fail, &r->I,
             &r->E, &r->P);
}

static int same(const result *a, const result *b)
{
  return a->fail == b->fail && a->neval == b->neval &&
         a->nregions == b->nregions && !memcmp(&a->I, &b->I, sizeof a->I) &&
         !memcmp(&a->E, &b->E, sizeof a->E) &&
         !memcmp(&a->P, &b->P, sizeof a->P);
}

/* Cuba's demo (demo-c.c: epsrel 1e-3, epsabs 1e-12, flags 0, maxeval
   50000), its 11 integrands in 3D */

static void check_demo(void)
{
  int k, conv = 0, honest = 1;
  for (k = 1; k <= 11; ++k) {
    struct suite_param p = {0};
    result r;
    double err;
    p.k = k;
    p.a = 1;
    gcuba_userdata_size(sizeof p);
    run(&r, 3, S(cubademo), &p, 0, 0, 1e-3, 50000, &demo_keys);
    gcuba_userdata_size(0);
    err = fabs(r.I - suite_demo_truth[k]);
    diag("demo %2d: %.10f +- %.3e, fail %d, neval %lld, regions %d, prob "
         "%.3f, true error %.2e", k, r.I, r.E, r.fail, r.neval, r.nregions,
         r.P, err);
    conv += r.fail == 0;
    if (r.fail == 0 && !(err <= 4 * r.E && r.E <= 1e-3 * fabs(r.I)))
      honest = 0;
    if (r.fail < 0 || r.neval > 50000 + 50000 / 10) honest = 0;
  }
  ok(honest, "Cuba's demo: every fail = 0 within 4 errors of the true "
     "value, its error within the tolerance, neval near maxeval at most");
  /* Cuba 4.2.2's Divonne converges on all 11 */
  ok(conv == 11, "Cuba's demo: %d of 11 converge", conv);
}

/* Cuba's demo 11, the unit ball's indicator, with other random shifts
   (seeds 1-6): each converges within 4 errors, within maxeval.  Before
   flat regions' copies counted no error and cuts skipped curved jumps,
   the seeds 0-19 converged 7 times of 20 */
static void check_ball(void)
{
  int seed, good = 0;
  for (seed = 1; seed <= 6; ++seed) {
    struct suite_param p = {0};
    result r;
    double err;
    p.k = 11;
    p.a = 1;
    gcuba_userdata_size(sizeof p);
    run(&r, 3, S(cubademo), &p, 0, seed, 1e-3, 50000, &demo_keys);
    gcuba_userdata_size(0);
    err = fabs(r.I - suite_demo_truth[11]);
    diag("ball, seed %d: %.10f +- %.3e, fail %d, neval %lld, regions %d, "
         "true error %.2e", seed, r.I, r.E, r.fail, r.neval, r.nregions, err);
    good += r.fail == 0 && err <= 4 * r.E && r.neval <= 50000;
  }
  ok(good == 6, "Cuba's demo 11 (the ball) with seeds 1-6: %d of 6 "
     "converge within 4 errors", good);
}

/* the suite's integrands at their analytic values: every fail = 0 within
   4 errors of the truth, and the easy ones converge */
static void check_suite(void)
{
  static const struct {
    int idx;
    double epsrel;
    long long maxeval;
    int must;
  } cases[] = {{2, 1e-3, 200000, 1}, {0, 1e-3, 200000, 0},
               {11, 1e-2, 400000, 0}, {3, 1e-2, 300000, 0},
               {9, 1e-2, 300000, 0}, {10, 1e-2, 300000, 0}};
  int i;
  for (i = 0; i < (int)(sizeof cases / sizeof cases[0]); ++i) {
    const struct suite_case *sc = &suite_cases[cases[i].idx];
    result r;
    double err;
    run(&r, sc->d, suite_family(sc->family, SUITE_BACKEND), NULL, 0, 0,
        cases[i].epsrel, cases[i].maxeval, &demo_keys);
    err = fabs(r.I - sc->truth);
    ok(r.fail >= 0 && (r.fail != 0 || err <= 4 * r.E) &&
       (!cases[i].must || r.fail == 0),
       "%s %dD at %g: fail %d, neval %lld, regions %d, %.8e +- %.2e, true "
       "error %.2e", sc->name, sc->d, cases[i].epsrel, r.fail, r.neval,
       r.nregions, r.I, r.E, err);
  }
}

/* final copies of millions of points (key2 points per region): the
   GPU makes a region's copies one by one when they do not fit one chunk
   together (key2 8e6: 3 copies of 2^21 points), and a copy in chunks
   when it does not fit one (2e7: 2^23 points, two chunks each; the GPU
   build only, 0.6 G evaluations).  A skipped or repeated chunk would put
   the estimate many errors off */
static void check_big_copies(void)
{
  const struct suite_case *sc = &suite_cases[11];
  static const double key2s[] = {8e6, 2e7};
  keys k = demo_keys;
  int i;
  for (i = 0; i < (SUITE_BACKEND ? 2 : 1); ++i) {
    result r;
    double err;
    k.key2 = (int)key2s[i];
    run(&r, sc->d, suite_family(sc->family, SUITE_BACKEND), NULL, 0, 0,
        1e-3, 2000000000LL, &k);
    err = fabs(r.I - sc->truth);
    ok(r.fail == 0 && err <= 4 * r.E && r.E <= 1e-6 * sc->truth &&
           r.neval > 15 * (long long)key2s[i],
       "%s %dD, key2 %.0e: fail %d, neval %lld, regions %d, %.10e +- "
       "%.2e, true error %.2e", sc->name, sc->d, key2s[i], r.fail, r.neval,
       r.nregions, r.I, r.E, err);
  }
}

/* the final phase's copies of many regions made in one call of the
   executor (src/divonne/ahead.c): the same bits as one region a call
   (GCUBA_DIVONNE_AHEAD=1) and as batches of at most 3 regions, and the
   call says it made batches.  f8 8D at epsrel 1e-4: some 300 regions of
   12,000 points, an honest answer; f4 5D: regions cut again in the final
   phase, whose batches are made again after the cut (the evaluations
   made ahead for nothing are said; the answer's honesty is not this
   test's) */
static void check_ahead(void)
{
  static char log[1 << 20];
  static const char *const size[] = {"1", "3", NULL};
  static const int cases[] = {11, 4};
  const char *file = "test-divonne-ahead.log", *p;
  int c;
  for (c = 0; c < 2; ++c) {
    const struct suite_case *sc = &suite_cases[cases[c]];
    result r[3];
    long long nb = 0, npend = -1, wasted = -1;
    int i, save = -1;
    for (i = 0; i < 3; ++i) {
      if (size[i]) setenv("GCUBA_DIVONNE_AHEAD", size[i], 1);
      else {
        unsetenv("GCUBA_DIVONNE_AHEAD");
        save = capture_begin(file);
      }
      run(&r[i], sc->d, suite_family(sc->family, SUITE_BACKEND), NULL,
          size[i] ? 0 : 2, 0, 1e-4, 20000000, &demo_keys);
      if (!size[i]) capture_end(save, file, log, sizeof log);
    }
    if ((p = strstr(log, "copies in ")))
      sscanf(p, "copies in %lld batches, %lld of them made while the "
             "regions before them were taken; %lld", &nb, &npend, &wasted);
    ok(same(&r[0], &r[1]) && same(&r[0], &r[2]) && nb > 1 &&
           /* the GPU sets the next batch going as the host takes one */
           (SUITE_BACKEND ? npend > 0 : npend == 0) &&
           (c == 0 ? r[0].fail == 0 &&
                         fabs(r[0].I - sc->truth) <= 4 * r[0].E
                   : wasted > 0),
       "%s %dD at 1e-4: the final copies region by region, by 3 and in "
       "%lld batches (%lld while the host took others) give the same "
       "bits (%.15g +- %.3g, true error %.3g, fail %d, neval %lld, "
       "regions %d; %lld evaluations made ahead were not taken)",
       sc->name, sc->d, nb, npend, r[0].I, r[0].E,
       fabs(r[0].I - sc->truth), r[0].fail, r[0].neval, r[0].nregions,
       wasted);
  }
}

/* regions the partition did not know (src/divonne/driver.c, surprised):
   the 6-D Gaussian exp(-625 |x - 1/2|^2) at epsrel 1e-4 had regions
   whose partition saw values of 1e-23 and below and whose copies missed
   a sliver of the peak along a face, with a small scatter: seeds 0-3
   claimed it 8 to 54 errors off.  Now no claim misses the tolerance by
   more than 4 errors, and every error is at least a quarter of the true
   one */
static void check_surprise(void)
{
  const struct suite_case *sc = &suite_cases[5];
  int seed, bad = 0;
  for (seed = 0; seed < 4; ++seed) {
    result r;
    double err;
    run(&r, sc->d, suite_family(sc->family, SUITE_BACKEND), NULL, 0, seed,
        1e-4, 20000000, &demo_keys);
    err = fabs(r.I - sc->truth);
    if (!(r.fail >= 0 && err <= 4 * r.E &&
          (r.fail != 0 || err <= 1e-4 * sc->truth + 4 * r.E)))
      ++bad;
    diag("%s %dD at 1e-4, seed %d: fail %d, neval %lld, regions %d, "
         "%.10e +- %.2e, true error %.2e", sc->name, sc->d, seed, r.fail,
         r.neval, r.nregions, r.I, r.E, err);
  }
  ok(bad == 0, "%s %dD at 1e-4, seeds 0-3: every error at least a quarter "
     "of the true one (%d not)", sc->name, sc->d, bad);
}

#ifndef SUITE_GPU
/* a 4-D Gaussian peak at 0.6 that returns -999 in a small box in a
   corner (x1, x2 in 0.88 .. 0.92), reached after some 28,000
   evaluations */
static int corner_fn(const int *ndim, const double x[], const int *ncomp,
                     double f[], void *userdata)
{
  double s = 0;
  int j;
  (void)ncomp;
  (void)userdata;
  if (fabs(x[0] - .9) < .02 && fabs(x[1] - .9) < .02) return -999;
  for (j = 0; j < *ndim; ++j) s += (x[j] - .6) * (x[j] - .6);
  f[0] = exp(-100 * s);
  return 0;
}

/* Genz's discontinuous family: exp(a . x) where x1 < u1 and x2 < u2,
   else 0 (userdata: u1, u2, a[ndim]).  Its flat pieces give the searches
   no clue, so their cuts are bisections that only the call can place
   (the threads' cuts fail and are made in their turn) */
static int flat_fn(const int *ndim, const double x[], const int *ncomp,
                   double f[], void *userdata)
{
  const double *u = (const double *)userdata;
  double s = 0;
  int j;
  (void)ncomp;
  for (j = 0; j < *ndim; ++j) s += u[2 + j] * x[j];
  f[0] = x[0] < u[0] && x[1] < u[1] ? exp(s) : 0;
  return 0;
}
#endif

/* the partition's cuts worked out ahead and its pieces explored on the
   threads (src/divonne/look.c): the bits of one thread, with the
   lattices of Cuba's demo, with a rule (key1 9) and with the border;
   the log says cuts were taken.  gcubacores sets the threads of both
   backends (the GPU's partition runs on the host). */
static void check_threads(void)
{
  static char log[1 << 20];
  static const int cases[] = {4, 11};
  const char *file = "test-divonne-threads.log", *p;
  int c, v;
  for (c = 0; c < 2; ++c)
    for (v = 0; v < 3; ++v) {
      const struct suite_case *sc = &suite_cases[cases[c]];
      keys k = demo_keys;
      result r[3];
      long long made = 0, taken = 0, more = 0;
      int i, nth = 0, save;
      const double eps = v == 0 ? 1e-4 : 1e-3;
      if (v == 1) k.key1 = sc->d <= 5 ? 9 : 7;
      if (v == 2) k.border = .1;
      for (i = 0; i < 3; ++i) {
        int n = i == 0 ? 1 : i == 1 ? 2 : 5;
        gcubacores(&n, &n);
        if (i == 2) save = capture_begin(file);
        run(&r[i], sc->d, suite_family(sc->family, SUITE_BACKEND), NULL,
            i == 2 ? 2 : 0, 0, eps, 20000000, &k);
        if (i == 2) capture_end(save, file, log, sizeof log);
      }
      if ((p = strstr(log, "gDivonne: on ")))
        sscanf(p, "gDivonne: on %d threads: %lld cuts worked out ahead, "
               "%lld of them taken; %lld", &nth, &made, &taken, &more);
#ifdef SUITE_GPU
      /* the GPU evaluates more than 64 points on the device: a rule's
         partition stays on one thread */
      const int par = v != 1;
#else
      const int par = 1;
#endif
      ok(same(&r[0], &r[1]) && same(&r[0], &r[2]) &&
             (par ? nth == 5 && taken > 0 && taken <= made : nth == 0) &&
             r[0].fail >= 0,
         "%s %dD at %g, key1 %d, border %g: 1, 2 and 5 threads give the "
         "same bits (%.15g +- %.3g, true error %.3g, fail %d, neval %lld, "
         "regions %d; %lld cuts worked out ahead, %lld taken, %lld more "
         "pieces explored ahead)", sc->name, sc->d, eps, k.key1, k.border,
         r[0].I, r[0].E, fabs(r[0].I - sc->truth), r[0].fail, r[0].neval,
         r[0].nregions, made, taken, more);
    }
#ifndef SUITE_GPU
  {
    /* an integrand that aborts in a corner the partition
       reaches after some rounds: the threads' explorations that fail
       are made again in their turn, where the call ends as on one */
    result one, four;
    int n = 1;
    gcubacores(&n, &n);
    run(&one, 4, gcuba_host_integrand((gcuba_host_fn)corner_fn, 1), NULL, 0,
        0, 1e-5, 20000000, &demo_keys);
    n = 4;
    gcubacores(&n, &n);
    run(&four, 4, gcuba_host_integrand((gcuba_host_fn)corner_fn, 1), NULL,
        0, 0, 1e-5, 20000000, &demo_keys);
    ok(same(&one, &four) && one.fail == -99 && one.neval > 1000,
       "an abort in a corner: 1 and 4 threads end alike (fail %d, neval "
       "%lld; 4 threads: fail %d, neval %lld)", one.fail, one.neval,
       four.fail, four.neval);
  }
  {
    /* cuts worked out while the rounds go on, some of them failing on
       the threads: the bits of one thread, 5-D and 8-D, 3 and 5 threads,
       instances of random parameters */
    static char log[1 << 20];
    const char *file = "test-divonne-threads.log", *p;
    double u[2 + 8];
    unsigned rng = 12345;
    long long made = 0, flew = 0, nev = 0;
    int i, j, n, alike = 0, save = -1, nth = 0;
    for (i = 0; i < 24; ++i) {
      const int nd = i % 2 ? 8 : 5;
      result one, more;
      for (j = 0; j < 2 + nd; ++j) {
        rng = rng * 1103515245u + 12345u;
        u[j] = j < 2 ? .2 + .6 * (rng >> 8) / 16777216. : 2 * (rng >> 8) /
                                                              16777216.;
      }
      n = 1;
      gcubacores(&n, &n);
      run(&one, nd, gcuba_host_integrand((gcuba_host_fn)flat_fn, 1), u, 0,
          0, 1e-3, 1000000, &demo_keys);
      n = i % 4 < 2 ? 3 : 5;
      gcubacores(&n, &n);
      if (i == 3) save = capture_begin(file);
      run(&more, nd, gcuba_host_integrand((gcuba_host_fn)flat_fn, 1), u,
          i == 3 ? 2 : 0, 0, 1e-3, 1000000, &demo_keys);
      if (i == 3) capture_end(save, file, log, sizeof log);
      alike += same(&one, &more);
      nev += one.neval;
    }
    if ((p = strstr(log, "gDivonne: on ")))
      sscanf(p, "gDivonne: on %d threads: %lld cuts worked out ahead, "
             "%*d of them taken; %*d more pieces explored ahead; %*d "
             "loops, %*f s; %lld loops while", &nth, &made, &flew);
    ok(alike == 24 && nth == 5 && made > 0 && flew > 0,
       "Genz's discontinuous family, 24 instances in 5-D and 8-D: 3 and 5 "
       "threads give the bits of one (%d of 24; %lld evaluations in all; "
       "in one call %lld cuts worked out ahead, %lld loops while the "
       "rounds went on)", alike, nev, made, flew);
  }
#endif
  {
    int n = -1;
    gcubacores(&n, &n);
  }
}

/* the other samplers and the border, given points and a peak finder on
   one 4-D Gaussian: each converges to the truth */
static int pf_calls;
static void peaks(const int *ndim, const double b[], int *n, double x[],
                  void *userdata)
{
  int j;
  (void)userdata;
  ++pf_calls;
  if (*n < 1) return;
  for (j = 0; j < *ndim; ++j) {
    x[j] = .5;
    if (x[j] < b[2 * j] || x[j] > b[2 * j + 1]) {
      *n = 0;
      return;
    }
  }
  *n = 1;
}

static void check_keys(void)
{
  const struct suite_case *sc = &suite_cases[2];
  static const double centre[4] = {.5, .5, .5, .5};
  static const struct {
    const char *what;
    keys k;
    int seed;
  } v[] = {
      {"key1 9, key2 9 (rules: fail 1 allowed)",
       {9, 9, 1, 5, 0, 10, .25, 0, NULL, 0, NULL}, 0},
      {"key1 7, key2 1, key3 7", {7, 1, 7, 5, 0, 10, .25, 0, NULL, 0, NULL},
       0},
      {"key1 -47, key2 -1 (Sobol)",
       {-47, -1, 1, 5, 0, 10, .25, 0, NULL, 0, NULL}, 0},
      {"key1 -47, key2 -1, seed 5 (Philox)",
       {-47, -1, 1, 5, 0, 10, .25, 0, NULL, 0, NULL}, 5},
      {"key1 200, key2 3, key3 0", {200, 3, 0, 5, 0, 10, .25, 0, NULL, 0,
                                    NULL}, 0},
      {"border 0.01", {47, 1, 1, 5, .01, 10, .25, 0, NULL, 0, NULL}, 0},
      {"ngiven 1 (the peak)", {47, 1, 1, 5, 0, 10, .25, 1, centre, 0, NULL},
       0},
      {"nextra 1 (a peak finder)",
       {47, 1, 1, 5, 0, 10, .25, 0, NULL, 1, peaks}, 0},
  };
  int i;
  for (i = 0; i < (int)(sizeof v / sizeof v[0]); ++i) {
    result r;
    double err;
    pf_calls = 0;
    run(&r, sc->d, suite_family(sc->family, SUITE_BACKEND), NULL, 0,
        v[i].seed, 1e-3, 300000, &v[i].k);
    err = fabs(r.I - sc->truth);
    /* (the border's extrapolation is a bias no error covers) */
    ok((r.fail == 0 || (i == 0 && r.fail == 1)) &&
       (err <= 4 * r.E || v[i].k.border > 0) &&
       (r.fail || err <= 2e-3 * sc->truth) &&
       (v[i].k.nextra == 0 || pf_calls > 0),
       "%s on %s %dD: fail %d, neval %lld, regions %d, %.8e +- %.2e, true "
       "error %.2e", v[i].what, sc->name, sc->d, r.fail, r.neval,
       r.nregions, r.I, r.E, err);
  }
}

static void check_args(void)
{
  result r;
  int nreg, fail;
  long long neval;
  double I, E, P, xg[4] = {.5, .5, .5, .5};
#define BAD(call, code, what)                                               \
  do {                                                                      \
    fail = 12345;                                                           \
    neval = -1;                                                             \
    call;                                                                   \
    ok(fail == (code) && neval <= 0, "%s: fail %d", what, fail);           \
  } while (0)
#define D(ndim, ncomp, f, eps, mineval, maxeval, k1, k2, mp, border, chi,   \
          dev, ng, ld, xg, ne, pf, nr)                                      \
  llgDivonne(ndim, ncomp, f, NULL, 1, eps, 0, 0, 0, mineval, maxeval, k1,  \
             k2, 1, mp, border, chi, dev, ng, ld, xg, ne, pf, NULL, NULL,   \
             nr, &neval, &fail, &I, &E, &P)
  BAD(D(0, 1, S(f4), 1e-3, 0, 1000, 47, 1, 5, 0, 10, .25, 0, 0, NULL, 0,
        NULL, &nreg), GCUBA_FAIL_NDIM, "ndim 0");
  BAD(D(2, 0, S(f4), 1e-3, 0, 1000, 47, 1, 5, 0, 10, .25, 0, 0, NULL, 0,
        NULL, &nreg), GCUBA_FAIL_NCOMP, "ncomp 0");
  BAD(D(2, 1, NULL, 1e-3, 0, 1000, 47, 1, 5, 0, 10, .25, 0, 0, NULL, 0,
        NULL, &nreg), GCUBA_FAIL_NULL, "NULL integrand");
  BAD(D(2, 1, S(f4), -1, 0, 1000, 47, 1, 5, 0, 10, .25, 0, 0, NULL, 0,
        NULL, &nreg), GCUBA_FAIL_TOLERANCE, "negative epsrel");
  BAD(D(2, 1, S(f4), 1e-3, 5000, 1000, 47, 1, 5, 0, 10, .25, 0, 0, NULL, 0,
        NULL, &nreg), GCUBA_FAIL_EVALS, "mineval > maxeval");
  BAD(D(2, 1, S(f4), 1e-3, 0, 1000, 0, 1, 5, 0, 10, .25, 0, 0, NULL, 0,
        NULL, &nreg), GCUBA_FAIL_PARAM, "key1 0");
  BAD(D(2, 1, S(f4), 1e-3, 0, 1000, 47, 0, 5, 0, 10, .25, 0, 0, NULL, 0,
        NULL, &nreg), GCUBA_FAIL_PARAM, "key2 0");
  BAD(D(2, 1, S(f4), 1e-3, 0, 1000, 47, 1, -1, 0, 10, .25, 0, 0, NULL, 0,
        NULL, &nreg), GCUBA_FAIL_PARAM, "maxpass -1");
  BAD(D(2, 1, S(f4), 1e-3, 0, 1000, 47, 1, 5, .5, 10, .25, 0, 0, NULL, 0,
        NULL, &nreg), GCUBA_FAIL_PARAM, "border 0.5");
  BAD(D(2, 1, S(f4), 1e-3, 0, 1000, 47, 1, 5, 0, NAN, .25, 0, 0, NULL, 0,
        NULL, &nreg), GCUBA_FAIL_PARAM, "maxchisq NaN");
  BAD(D(2, 1, S(f4), 1e-3, 0, 1000, 47, 1, 5, 0, 10, -1, 0, 0, NULL, 0,
        NULL, &nreg), GCUBA_FAIL_PARAM, "mindeviation -1");
  BAD(D(2, 1, S(f4), 1e-3, 0, 1000, 47, 1, 5, 0, 10, .25, 1, 2, NULL, 0,
        NULL, &nreg), GCUBA_FAIL_PARAM, "ngiven 1, xgiven NULL");
  BAD(D(4, 1, S(f4), 1e-3, 0, 1000, 47, 1, 5, 0, 10, .25, 1, 3, xg, 0,
        NULL, &nreg), GCUBA_FAIL_PARAM, "ldxgiven 3 < ndim 4");
  BAD(D(2, 1, S(f4), 1e-3, 0, 1000, 47, 1, 5, 0, 10, .25, -1, 2, xg, 0,
        NULL, &nreg), GCUBA_FAIL_PARAM, "ngiven -1");
  BAD(D(2, 1, S(f4), 1e-3, 0, 1000, 47, 1, 5, 0, 10, .25, 0, 2, NULL, 1,
        NULL, &nreg), GCUBA_FAIL_PARAM, "nextra 1, peakfinder NULL");
  BAD(D(2, 1, S(f4), 1e-3, 0, 1000, 47, 1, 5, 0, 10, .25, 0, 2, NULL, 0,
        NULL, NULL), GCUBA_FAIL_NULL, "nregions NULL");
#undef D
#undef BAD
  /* the integrand's -999 and NaN */
  run(&r, 2, S(fabort), NULL, 0, 0, 1e-3, 100000, &demo_keys);
  ok(r.fail == GCUBA_FAIL_ABORT, "integrand returns -999: fail %d",
     r.fail);
  run(&r, 2, S(fnan), NULL, 0, 0, 1e-3, 100000, &demo_keys);
  ok(r.fail == GCUBA_FAIL_NAN, "integrand returns NaN: fail %d", r.fail);
  /* too few evaluations for the final phase: fail 1, the partition's
     estimate */
  run(&r, 5, S(f4), NULL, 0, 0, 1e-6, 500, &demo_keys);
  ok(r.fail >= 1 && r.neval <= 1500 && r.nregions >= 1,
     "maxeval 500 at 1e-6: fail %d, neval %lld, regions %d", r.fail,
     r.neval, r.nregions);
}

/* A run cut short by maxeval leaves its state; a rerun with a larger
   maxeval resumes and ends with the bits of a single run.  f1 5D's
   partition ends after about 5600 evaluations: maxeval 3000 cuts it
   there, the larger ones in the final phase */
static void check_state(void)
{
  static const double cuts[2][3] = {{3000, 0, 0}, {3000, .15, .35}};
  result whole, a, b, kept;
  int k;
  unlink(SF);
  statefile = NULL;
  run(&whole, 5, S(f1), NULL, 0, 0, 1e-3, 300000, &demo_keys);
  statefile = SF;
  for (k = 0; k < 2; ++k) {
    int i, resumed = 1;
    unlink(SF);
    for (i = 0; i < 3 && cuts[k][i] > 0; ++i) {
      const long long m = cuts[k][i] > 1
                              ? (long long)cuts[k][i]
                              : (long long)(cuts[k][i] * (double)whole.neval);
      run(&a, 5, S(f1), NULL, 0, 0, 1e-3, m, &demo_keys);
      resumed &= a.fail == 1 && access(SF, F_OK) == 0;
      diag("maxeval %lld: fail %d, neval %lld, state file %s", m, a.fail,
           a.neval, access(SF, F_OK) == 0 ? "kept" : "gone");
    }
    run(&b, 5, S(f1), NULL, 0, 0, 1e-3, 300000, &demo_keys);
    ok(whole.fail == 0 && resumed && same(&whole, &b),
       "f1 5D cut by maxeval %s and resumed through a state file: the "
       "same bits (%.15g, neval %lld; whole: %.15g, neval %lld)",
       k ? "3000, 15% and 35% of its evaluations" : "3000", b.I, b.neval,
       whole.I, whole.neval);
    ok(access(SF, F_OK) != 0, "the state file is removed after success");
  }
  run(&kept, 5, S(f1), NULL, GCUBA_KEEPSTATE, 0, 1e-3, 300000, &demo_keys);
  ok(access(SF, F_OK) == 0 && same(&whole, &kept),
     "flags bit 4 keeps the file");
  run(&kept, 5, S(f1), NULL, GCUBA_KEEPSTATE, 0, 1e-3, 300000, &demo_keys);
  ok(same(&whole, &kept), "a kept file resumes at the answer");
  run(&kept, 5, S(f1), NULL, GCUBA_RESETSTATE, 0, 1e-3, 300000,
      &demo_keys);
  ok(same(&whole, &kept) && access(SF, F_OK) != 0,
     "flags bit 5 starts afresh: the same bits");
  run(&a, 5, S(f1), NULL, 0, 0, 1e-3, whole.neval / 2, &demo_keys);
  run(&kept, 4, S(f1), NULL, 0, 0, 1e-3, 300000, &demo_keys);
  ok(kept.fail == GCUBA_FAIL_STATE, "another problem's state: fail %d",
     kept.fail);
  run(&kept, 5, S(f1), NULL, 0, 1, 1e-3, 300000, &demo_keys);
  ok(kept.fail == GCUBA_FAIL_STATE, "another seed's state: fail %d",
     kept.fail);
  {
    FILE *f = fopen(SF, "r+b");
    if (f) {
      fseek(f, 100, SEEK_SET);
      fputc(0x5a ^ fgetc(f), f);
      fclose(f);
    }
    run(&kept, 5, S(f1), NULL, 0, 0, 1e-3, 300000, &demo_keys);
    ok(f && kept.fail == GCUBA_FAIL_STATE, "a corrupt state: fail %d",
       kept.fail);
  }
  unlink(SF);
  statefile = NULL;
}

#ifndef SUITE_GPU
static int seen_phase[4], bad_phase;
static int nvec_fn(const int *ndim, const double x[], const int *ncomp,
                   double f[], void *userdata, const int *nvec,
                   const int *core, const int *phase)
{
  int i;
  (void)ncomp;
  (void)userdata;
  (void)core;
  if (*phase >= 0 && *phase <= 3) seen_phase[*phase] = 1;
  else bad_phase = 1;
  for (i = 0; i < *nvec; ++i)
    f[i] = exp(-x[i * *ndim] - 2 * x[i * *ndim + 1]);
  return 0;
}

static void check_cpu(void)
{
  result one, three, nv;
  const double truth = (1 - exp(-1.0)) * (1 - exp(-2.0)) / 2;
  keys k = demo_keys;
  static const double xg[2] = {.1, .2};
  int n = 1;
  gcubacores(&n, &n);
  run(&one, 6, S(f4), NULL, 0, 0, 1e-3, 300000, &demo_keys);
  n = 3;
  gcubacores(&n, &n);
  run(&three, 6, S(f4), NULL, 0, 0, 1e-3, 300000, &demo_keys);
  ok(same(&one, &three), "f4 6D: one thread and three give the same bits "
     "(%.15g, neval %lld)", one.I, one.neval);
  n = -1;
  gcubacores(&n, &n);
  k.ngiven = 1;
  k.xgiven = xg;
  k.key3 = 7;
  k.maxchisq = 0;
  k.mindev = 0;
  run(&nv, 2, gcuba_host_integrand((gcuba_host_fn)nvec_fn, 1), NULL, 0, 0,
      1e-4, 200000, &k);
  ok(nv.fail == 0 && fabs(nv.I - truth) <= 1e-4 * truth,
     "Cuba's nvec form: %.10f (true %.10f), fail %d", nv.I, truth, nv.fail);
  ok(!bad_phase && seen_phase[0] && seen_phase[1] && seen_phase[2] &&
     seen_phase[3], "it gets the phase: 0 (given points), 1, 2 and 3 "
     "(seen %d %d %d %d)", seen_phase[0], seen_phase[1], seen_phase[2],
     seen_phase[3]);
}

/* many components: Gaussians of their own centres and widths (as
   tests/test-ncomp-gpu.cu), each with its own extremum searches */
static int gaussians(const int *ndim, const double x[], const int *ncomp,
                     double f[], void *userdata)
{
  (void)userdata;
  gaussians_eval(*ndim, x, *ncomp, f, 1);
  return 0;
}

static void check_ncomp(void)
{
  enum { NC = 16 };
  double I[NC], E[NC], P[NC], worst = 0;
  long long neval;
  int nreg, fail, k;
  llgDivonne(3, NC, gcuba_host_integrand((gcuba_host_fn)gaussians, 0), NULL,
             1, 1e-3, 0, 0, 0, 0, 1000000, 47, 1, 1, 5, 0, 10, .25, 0, 3,
             NULL, 0, NULL, NULL, NULL, &nreg, &neval, &fail, I, E, P);
  for (k = 0; k < NC; ++k) {
    const double t = gaussians_truth(k, 3);
    double z;
    z = fabs(I[k] - t) / E[k];
    if (!(z <= worst)) worst = z;
    if (!(E[k] <= 1e-3 * fabs(I[k]))) worst = INFINITY;
  }
  ok(fail == 0 && worst <= 4,
     "%d components at epsrel 1e-3: fail %d, neval %lld, every error within "
     "the tolerance, every answer within %.2f of its errors", NC, fail,
     neval, worst);
}

/* an integrand that fails (-999) after a number of evaluations, as a run
   that is killed: rerun, it resumes from the last state written */
static long long abort_after = -1, nseen;
static int killed(const int *ndim, const double x[], const int *ncomp,
                  double f[], void *userdata)
{
  double s = 0;
  int j;
  (void)ncomp;
  (void)userdata;
  if (abort_after >= 0 && ++nseen > abort_after) return -999;
  for (j = 0; j < *ndim; ++j) s += (x[j] - .4) * (x[j] - .4);
  f[0] = exp(-8 * s);
  return 0;
}

static void check_killed(void)
{
  static const double at[] = {.1, .35, .6, .8, .95};
  const gintegrand_t f = gcuba_host_integrand((gcuba_host_fn)killed, 0);
  result whole, a, b;
  int i, n = 1, all = 1;
  gcubacores(&n, &n);
  statefile = NULL;
  abort_after = -1;
  run(&whole, 6, f, NULL, 0, 0, 1e-3, 400000, &demo_keys);
  statefile = SF;
  for (i = 0; i < (int)(sizeof at / sizeof at[0]); ++i) {
    unlink(SF);
    nseen = 0;
    abort_after = (long long)(at[i] * (double)whole.neval);
    run(&a, 6, f, NULL, 0, 0, 1e-3, 400000, &demo_keys);
    abort_after = -1;
    run(&b, 6, f, NULL, 0, 0, 1e-3, 400000, &demo_keys);
    if (!(a.fail == GCUBA_FAIL_ABORT && same(&whole, &b))) all = 0;
    diag("killed after %lld evaluations: fail %d; resumed: %.15g, neval "
         "%lld, fail %d", (long long)(at[i] * (double)whole.neval), a.fail,
         b.I, b.neval, b.fail);
  }
  ok(whole.fail == 0 && all, "a 6-D Gaussian killed at 10, 35, 60, 80 and "
     "95%% of its evaluations resumes to the bits of one run (%.15g, "
     "neval %lld)", whole.I, whole.neval);
  unlink(SF);
  statefile = NULL;
  n = -1;
  gcubacores(&n, &n);
}
#endif

int main(void)
{
  battery_start();
  plan(0);
  battery_backend();
  check_args();
  check_demo();
  check_ball();
  check_suite();
  check_big_copies();
  check_ahead();
  check_surprise();
  check_threads();
  check_keys();
  check_state();
#ifndef SUITE_GPU
  check_cpu();
  check_killed();
  check_ncomp();
#endif
  return done();
}
