/* tests/test-cuhre-demo.c -- gCuhre as a drop-in for Cuba's Cuhre at
   Cuba's own settings, and honest where a cubature rule can be fooled.
   1. The eleven integrands of Cuba's demo (demo-c.c: ndim 3, epsrel 1e-3,
      epsabs 1e-12, flags LAST, maxeval 50000, key 0): gCuhre converges
      on every one where Cuba 4.2.2's Cuhre does (all but 7 and 11), within
      4 times Cuba's evaluations, and every fail = 0 is within the
      tolerance of the true value.
   2. Features at non-dyadic points that the bisection never aligns with:
      steps (which the degree 7 and 9 rules' points miss when they lie in
      the strip next to a region's face; the boundary probes see them),
      kinks and narrow peaks, in 3 to 6 dimensions and at 1e-3 to 1e-6:
      every fail = 0 is within the tolerance of the true value, and the
      easier ones converge.
   3. Boxes the cube's central lines miss (fixed ones, and 150 at random
      corners in 4 to 6 dimensions), and a step in a sliver beside the
      first cut at 1/2 in a product of steps and kinks: every answer
      within its tolerance.
   4. A 3-D Lorentzian peak near a face of its dyadic box, where the
      degree 11 rule's null values cancel (gcuba_rule_line_axis), at 31
      tolerances from 1e-3 to 1e-6: every answer within its tolerance
      (17 of the 31 were claimed up to 6.3 times off without the axis
      lines).
   5. Gaussian and Lorentzian peaks in 4 and 5 dimensions (bench-peaks'
      seed 1 instances that were claimed falsely), each at 11 tolerances
      over a decade around the one where it was: every answer within its
      tolerance (without the quarter share of relative-error finishing for
      the degree 9 rule, gcuba_cuhre_relshare, 12 of the 55 were claimed,
      up to 2.46 times off); and seed 2's 3-D Lorentzian #128 (6 of its
      11 claimed up to 2.16 times off before the axis lines' least
      estimate, gcuba_rule_nullerr).
   Runs on the CPU backend, and on the GPU in its GPU build.
   This file is part of gcuba. */
#include <math.h>
#include <stdio.h>
#include "tap.h"
#include "suite.h"
#include "gpu.h"

/* Cuba 4.2.2's Cuhre on the demo: fail and neval */
static const int cuba_fail[12] = {0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 1};
static const long long cuba_neval[12] = {0, 381, 3429, 635, 381, 381,
  11049, 50165, 381, 381, 29845, 50165};

typedef struct {
  int nregions, fail;
  long long neval;
  double integral, error, prob;
} result;

static void run(result *r, int ndim, gintegrand_t f, void *ud, size_t size,
                double epsrel, double epsabs, int flags, long long maxeval)
{
  gcuba_userdata_size(size);
  llgCuhre(ndim, 1, f, ud, 1, epsrel, epsabs, flags, 0, maxeval, 0, NULL,
           NULL, &r->nregions, &r->neval, &r->fail, &r->integral, &r->error,
           &r->prob);
  gcuba_userdata_size(0);
}

static void check_demo(void)
{
  int k, conv = 1, honest = 1, cheap = 1;
  for (k = 1; k <= 11; ++k) {
    struct suite_param p;
    result r;
    double err;
    p.a = 1;
    p.k = k;
    run(&r, 3, S(cubademo), &p, sizeof p, 1e-3, 1e-12, 4, 50000);
    err = fabs(r.integral - suite_demo_truth[k]);
    diag("demo %2d: %.12f +- %.3e, fail %d, neval %lld (Cuba: fail %d, "
         "neval %lld), true error %.2e", k, r.integral, r.error, r.fail,
         r.neval, cuba_fail[k], cuba_neval[k], err);
    if (cuba_fail[k] == 0 && r.fail != 0) conv = 0;
    if (r.fail == 0 &&
        !(err <= fmax(1e-3 * fabs(suite_demo_truth[k]), 1e-12)))
      honest = 0;
    if (cuba_fail[k] == 0 && r.neval > 4 * cuba_neval[k]) cheap = 0;
  }
  ok(conv, "Cuba's demo: converges on every integrand where Cuba does");
  ok(cheap, "Cuba's demo: within 4 times Cuba's evaluations there");
  ok(honest, "Cuba's demo: every fail = 0 within 1e-3 of the true value");
}

static void check_adversarial(void)
{
  static const struct {
    int kind, ndim, n;
    double c, w, epsrel;
    long long maxeval;
    int must; /* must converge */
  } cases[] = {
    {SUITE_ADV_STEP, 4, 2, 0.123456, 0.25, 1e-3, 500000, 0},
    {SUITE_ADV_STEP, 4, 2, 0.7071, 0.25, 1e-3, 500000, 1},
    {SUITE_ADV_STEP, 5, 3, 0.4142, 0.25, 1e-3, 500000, 0},
    {SUITE_ADV_STEP, 4, 2, 0.123456, 0.25, 1e-5, 2000000, 0},
    {SUITE_ADV_STEP, 4, 1, 0.7071, 0.5, 1e-6, 2000000, 0},
    {SUITE_ADV_STEP, 6, 2, 0.4142, 0.25, 1e-3, 1000000, 1},
    {SUITE_ADV_KINK, 4, 4, 1. / 3, 0.1, 1e-3, 500000, 1},
    {SUITE_ADV_KINK, 4, 4, 1. / 3, 0.1, 1e-5, 2000000, 1},
    {SUITE_ADV_KINK, 4, 4, 0.123456, 0.1, 1e-3, 500000, 1},
    {SUITE_ADV_KINK, 5, 5, 0.123456, 0.1, 1e-5, 2000000, 0},
    {SUITE_ADV_PEAK, 4, 4, 0.5, 0.02, 1e-4, 2000000, 0},
    {SUITE_ADV_PEAK, 3, 3, 0.3, 0.05, 1e-5, 2000000, 1},
    {SUITE_ADV_PEAK, 4, 4, 0.4142, 0.1, 1e-6, 2000000, 0},
    /* the cases of issue 23: products of steps at 1e-7 in 4-6D, kinks
       exp(-|x - c|/a) near dyadic points in 4-5D */
    {SUITE_ADV_STEP, 4, 4, 0.123456, 0.5, 1e-7, 5000000, 0},
    {SUITE_ADV_STEP, 5, 2, 0.7071, 0.25, 1e-7, 5000000, 0},
    {SUITE_ADV_STEP, 6, 3, 0.4142, 0.5, 1e-7, 5000000, 0},
    {SUITE_ADV_EXPKINK, 4, 4, 1. / 3, 0.1, 1e-3, 500000, 0},
    {SUITE_ADV_EXPKINK, 4, 4, 1. / 3, 0.1, 1e-5, 5000000, 0},
    {SUITE_ADV_EXPKINK, 5, 5, 0.123456, 0.2, 1e-3, 1000000, 0},
    {SUITE_ADV_EXPKINK, 5, 5, 0.123456, 0.2, 1e-5, 5000000, 0},
  };
  unsigned i;
  int honest = 1, conv = 1, nconv = 0;
  for (i = 0; i < sizeof cases / sizeof cases[0]; ++i) {
    struct suite_adv p;
    result r;
    double truth, rel;
    p.kind = cases[i].kind;
    p.n = cases[i].n;
    p.c = cases[i].c;
    p.w = cases[i].w;
    truth = suite_adv_truth(&p);
    run(&r, cases[i].ndim, S(fadv), &p, sizeof p, cases[i].epsrel, 1e-20, 0,
        cases[i].maxeval);
    rel = fabs(r.integral - truth) / fabs(truth);
    diag("%s %dD (%d axes) c %g w %g at %g: fail %d, neval %lld, "
         "relative error reported %.2e, true %.2e",
         p.kind == SUITE_ADV_STEP ? "step" : p.kind == SUITE_ADV_KINK
         ? "kink" : p.kind == SUITE_ADV_PEAK ? "peak" : "expkink", cases[i].ndim, p.n, p.c, p.w, cases[i].epsrel,
         r.fail, r.neval, r.error / fabs(truth), rel);
    if (r.fail == 0) {
      ++nconv;
      if (!(rel <= cases[i].epsrel)) honest = 0;
    } else if (cases[i].must)
      conv = 0;
    if (!(r.neval <= cases[i].maxeval)) conv = 0;
  }
  ok(honest, "features off the dyadic grid: every fail = 0 within epsrel "
     "(%d of %d converged)", nconv,
     (int)(sizeof cases / sizeof cases[0]));
  ok(conv, "features off the dyadic grid: the easier ones converge, all "
     "within maxeval");
}

/* Indicators of boxes [0, c) in 6D.  The first's step along x5 lies at
   0.031: beyond it the integrand vanishes, so the central lines along the
   other axes (x5 = 1/2) see zeros and find nothing, and regions
   straddling the step at x2 = 0.5075 next to the dyadic 1/2 were
   finished with value 0: 0.77% of the integral lost, claimed at 1e-4.
   The lines through the slabs the step at x5 makes find the others.  The
   second's c_i are all below 1/2 (issue 48's false claim: 4% off at
   1e-5): it vanishes on every central line, and the lines near the
   corner find its faces.  The last is at a corner with both 0 and 1
   among its coordinates. */
static void check_box(void)
{
  static const struct {
    struct suite_box p;
    double epsrel;
  } cases[] = {
    {{{0.948408544, 0.507537901, 0.985339522, 0.723091066, 0.030910313,
       0.714427412}, 6}, 1e-4},
    {{{0.077902, 0.429731, 0.260398, 0.084422, 0.126886, 0.315291}, 6},
     1e-5},
    /* boxes a < x < b: lines that cross two faces (one false claim 38
       times the tolerance off before such lines were followed), and a
       face 2e-4 beyond a bisection at 1/2 (x6; the sliver beyond it was
       finished with error 0) */
    {{{0.47817966386672028, 0.8065911092114314, 0.5041755531240526,
       0.95816582587361265}, 4, {0.16012012365363859, 0.48949159306899526,
       0.11420276061562454, 0.27598717784775417}}, 1e-4},
    {{{0.62466982316158859, 0.79180290970561351, 0.37185521629204094,
       0.69015042704575669, 0.60574187807187785, 0.5002127006113094}, 6,
      {0.02, 0.39420767946396096, 0.12869883983238789, 0.43032412904536466,
       0.02, 0.18867382401306443}}, 1e-4},
    /* x_i < c_i on x1, x3, x5 and x_i > c_i on x2, x4: a box at a corner
       that neither diagonal's lines meet (claimed 4.6% off at 1e-5 before
       the lines through the other corners' points) */
    {{{0.30641347169876099, 1, 0.082547545433044434, 1, 0.5771479606628418},
      5, {0, 0.9177405834197998, 0, 0.37550240755081177, 0}}, 1e-5},
    /* boxes that only one line near a diagonal corner crosses: the lines
       of the other axes must go through its point (claimed 1.4% and 9%
       off before they did) */
    {{{0.3551247276287402, 0.50727931922888669, 0.063691084669294545, 1},
      4, {0, 0, 0, 0.89719853184827769}}, 1e-4},
    {{{1, 1, 1, 1, 1, 0.42649101034234144}, 6,
      {0.53627593223539272, 0.92236890513527048, 0.45204648294938926,
       0.77220739865245458, 0.9229222153499852, 0}}, 1e-3},
  };
  unsigned i;
  for (i = 0; i < sizeof cases / sizeof cases[0]; ++i) {
    struct suite_box p = cases[i].p;
    const double truth = suite_box_truth(&p), eps = cases[i].epsrel;
    result r;
    double rel;
    run(&r, p.n, S(fbox), &p, sizeof p, eps, 1e-20, 0, 20000000);
    rel = fabs(r.integral - truth) / truth;
    ok(r.fail == 0 && rel <= eps,
       "a %dD box the central lines miss (%u) at %g: fail %d, neval %lld, "
       "relative error reported %.2e, true %.2e", p.n, i + 1, eps, r.fail,
       r.neval, r.error / truth, rel);
  }
}

/* A 5-D product of kinks (x1, x3, x5) and steps from 1 to 0.1 (x2, x4),
   the one at x4 = 0.49991 in a sliver by the first cut at 1/2, where
   the step is up to 670 times as high as on the line that found it
   (claimed 1.6e-7 at 1e-4, true error 7.7e-7, before the sliver's
   leaves were kept from finishing): every answer within its tolerance. */
static void check_sliver(void)
{
  static const struct suite_mix p = {
      {0.51395473091989852, 0.1123715811454435, 0.52594755311779096,
       0.49991004435581521, 0.26557203808870716},
      0.1,
      {SUITE_MIX_KINK, SUITE_MIX_BELOW, SUITE_MIX_KINK, SUITE_MIX_BELOW,
       SUITE_MIX_KINK},
      5};
  const double truth = suite_mix_truth(&p);
  double eps;
  for (eps = 1e-3; eps > 1e-6; eps /= 10) {
    struct suite_mix q = p;
    result r;
    double rel;
    run(&r, 5, S(fmix), &q, sizeof q, eps, 1e-20, 0, 20000000);
    rel = fabs(r.integral - truth) / truth;
    ok(r.fail == 0 && rel <= eps,
       "a step in a sliver by a cut, 5D, at %g: fail %d, neval %lld, "
       "relative error reported %.2e, true %.2e", eps, r.fail, r.neval,
       r.error / truth, rel);
  }
}

/* Boxes at random corners: on each axis x_i < c_i or x_i > c_i, c_i
   uniform in (0.05, 0.95), 4 to 6 dimensions, epsrel 1e-3 to 1e-5 in
   turn.  Every call converges, and every answer is within its tolerance
   (3 of these 150 were claimed 0.34% to 1.6% off before the lines
   through a corner line's point). */
static void check_boxes(void)
{
  static const double eps[3] = {1e-3, 1e-4, 1e-5};
  unsigned long long s = 20261206;
  int i, d, conv = 0, honest = 0, n = 0;
  double worst = 0;
  long long most = 0;
  for (i = 0; i < 150; ++i) {
    struct suite_box p;
    result r;
    double truth, rel;
    p.n = 4 + i % 3;
    for (d = 0; d < p.n; ++d) {
      double u, c;
      s = s * 6364136223846793005ULL + 1442695040888963407ULL;
      u = (double)(s >> 11) * 0x1p-53;
      c = 0.05 + 0.9 * u;
      if (s >> 10 & 1) p.a[d] = c, p.c[d] = 1;
      else p.a[d] = 0, p.c[d] = c;
    }
    truth = suite_box_truth(&p);
    run(&r, p.n, S(fbox), &p, sizeof p, eps[i / 3 % 3], 1e-20, 0, 20000000);
    rel = fabs(r.integral - truth) / truth;
    ++n;
    conv += r.fail == 0;
    if (r.fail == 0 && rel <= eps[i / 3 % 3]) ++honest;
    else if (r.fail == 0)
      diag("box %d (%dD) at %g: claimed %.3e, true %.3e off", i, p.n,
           eps[i / 3 % 3], r.error / truth, rel);
    if (r.fail == 0 && rel / eps[i / 3 % 3] > worst)
      worst = rel / eps[i / 3 % 3];
    if (r.neval > most) most = r.neval;
  }
  ok(conv == n && honest == n,
     "%d boxes at random corners in 4 to 6D: %d converge, %d within the "
     "tolerance (worst %.2g of it; most evaluations %lld)", n, conv,
     honest, worst, most);
}

/* The 3-D Lorentzian of bench-peaks (seed 1) whose false claim was the
   worst there: c = (0.833, 0.336, 0.285), w = 0.0536, epsrel 1e-3 *
   10^(-k/10), k = 0 .. 30, key 0 (the degree 11 rule). */
static void check_lorentz(void)
{
  static const struct suite_mix p = {
      {0.833, 0.336, 0.285}, 0.0536,
      {SUITE_MIX_PEAK, SUITE_MIX_PEAK, SUITE_MIX_PEAK}, 3};
  const double truth = suite_mix_truth(&p);
  int k, conv = 0, honest = 0;
  double worst = 0;
  for (k = 0; k <= 30; ++k) {
    const double eps = 1e-3 * pow(10, -k / 10.0);
    struct suite_mix q = p;
    result r;
    double rel;
    run(&r, 3, S(fmix), &q, sizeof q, eps, 1e-20, 0, 10000000);
    rel = fabs(r.integral - truth) / truth;
    if (r.fail == 0) {
      ++conv;
      honest += rel <= eps;
      if (rel / eps > worst) worst = rel / eps;
    }
  }
  ok(honest == conv && conv >= 29,
     "a 3-D Lorentzian by a face, 31 tolerances 1e-3..1e-6: %d converged, "
     "%d within their tolerance (worst true error %.2f times it)", conv,
     honest, worst);
}

static void check_peaks(void)
{
  static const struct {
    const char *what;
    int kind, n;
    double w, eps, c[5];
  } q[] = {
      {"Gaussian 4-D", SUITE_MIX_GAUSS, 4, 0.077882466415508958, 1e-6,
       {0.25017533968375649, 0.64159292054354611, 0.14312977012821404,
        0.67571506155713723}},
      {"Gaussian 5-D", SUITE_MIX_GAUSS, 5, 0.11210018014968226, 1e-3,
       {0.61259055874140589, 0.45085354828635471, 0.93848480862816919,
        0.010927732724110406, 0.15322197942245341}},
      {"Gaussian 5-D", SUITE_MIX_GAUSS, 5, 0.23315743315990886, 1e-4,
       {0.027063460055033683, 0.14398360704607194, 0.024093328681720871,
        0.53643605302738062, 0.28120343502135525}},
      {"Lorentzian 4-D", SUITE_MIX_PEAK, 4, 0.097332699573590586, 1e-3,
       {0.061307557362798248, 0.38640034339936735, 0.64209881995514462,
        0.021235615519074158}},
      {"Lorentzian 4-D", SUITE_MIX_PEAK, 4, 0.076535103602848487, 1e-3,
       {0.35863561868834748, 0.78905811348868748, 0.11775513614828614,
        0.93653205896077929}},
      /* seed 2, #128: its peak 0.07 from the face y = 1 of a slab never
         split along y (gcuba_rule_nullerr, the line as the least
         estimate) */
      {"Lorentzian 3-D", SUITE_MIX_PEAK, 3, 0.11075077748262677, 1e-4,
       {0.74563541242475373, 0.93132928671778448, 0.66209630194311153}}};
  int i, j, k;
  for (i = 0; i < (int)(sizeof q / sizeof *q); ++i) {
    struct suite_mix p;
    double truth, worst = 0;
    int conv = 0, honest = 0;
    p.n = q[i].n;
    p.w = q[i].w;
    for (j = 0; j < 8; ++j) {
      p.c[j] = j < p.n ? q[i].c[j] : 0;
      p.kind[j] = q[i].kind;
    }
    truth = suite_mix_truth(&p);
    for (k = 0; k <= 10; ++k) {
      const double eps = q[i].eps * pow(10, (5 - k) / 10.0);
      struct suite_mix u = p;
      result r;
      double rel;
      run(&r, p.n, S(fmix), &u, sizeof u, eps, 0, 0, 10000000);
      rel = fabs(r.integral - truth) / truth;
      if (r.fail == 0) {
        ++conv;
        honest += rel <= eps;
        if (rel / eps > worst) worst = rel / eps;
      }
    }
    ok(honest == conv && conv == 11,
       "a %s peak of width %.3f, 11 tolerances around %g: %d converged, %d "
       "within their tolerance (worst true error %.2f times it)", q[i].what,
       q[i].w, q[i].eps, conv, honest, worst);
  }
}

int main(void)
{
  battery_start();
  plan(0);
  check_demo();
  check_adversarial();
  check_box();
  check_boxes();
  check_sliver();
  check_lorentz();
  check_peaks();
  return battery_done();
}
