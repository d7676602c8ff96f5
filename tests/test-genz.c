/* tests/test-genz.c -- gCuhre on Genz's protocol as in Cuba's manual
   (bench/genz.h: d = 5, 8 and 10, the six families, instances 0-19,
   epsrel 1e-3, maxeval 150000, key 0, flags 0; CPU backend): the whole
   protocol, 360 calls, half a second.  Asserts, per call, neval <=
   maxeval and no false claim (fail = 0 implies true relative error <=
   epsrel), in every family (Cuba's Cuhre claims falsely 32 times on
   these instances, in five families; gCuhre's boundary probes see a cut
   between the rule's points and a face, and 5D discontinuous 14, cut at
   x_2 = 0.019, is run again on its own: claimed with a 20% error before
   the probes named the split axis); per (d, family), at least the
   honest results (fail = 0 and true relative error <= epsrel) gCuhre
   has reached, printed beside Cuba 4.2.2's on the same instances (the
   tables below; where gCuhre's is lower, the gap is an open issue, not a
   goal met).  First, the analytic values of the 360 instances against
   their check by one-dimensional quadratures.  Built a second time as
   tests/test-genz-gpu (GENZ_GPU, with bench/genz-cu.cu): the same
   protocol on the GPU backend, where each call must also end as the CPU
   backend's call on the same instance does (fail code, and an honest
   answer where that one is honest), so that both backends give the same
   counts.  This file is part of gcuba. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "tap.h"
#include "gcuba.h"
#include "genz.h"
#include "genz-report.h"
#ifdef GENZ_GPU
#include "gpu.h"
GCUBA_DECLARE_INTEGRAND(genz_cu);
#endif

#define EPSREL 1e-3
#define MAXEVAL 150000
#define NINST 20

static const int dims[] = {5, 8, 10};
#define NDIMS ((int)(sizeof dims / sizeof dims[0]))

/* honest counts of Cuba 4.2.2's Cuhre (key 0, flags 0, epsrel 1e-3,
   epsabs 1e-20, maxeval 150000, one core) on instances 0-19 of seed
   4711, by d and family (oscillatory, product peak, corner peak,
   Gaussian, C0, discontinuous); bench/RESULTS.md has the whole table */
static const int cuba_honest[NDIMS][GENZ_NFAMILIES] = {
    {20, 20, 20, 17, 3, 12}, /* d = 5 */
    {20, 11, 17, 19, 0, 6},  /* d = 8 */
    {20, 11, 0, 13, 0, 0},   /* d = 10 */
};
/* gCuhre's, measured with the budget-aware policy, the boundary probes,
   the bridged error estimate of trusted regions (gcuba_rule_nullerr) and
   the cuts at jumps and kinks (gcuba/detail/cut.h, 2026-11-27): the floor that
   guards against regressions.  Before the cuts: {20,20,20,20,0,18},
   {20,11,20,20,0,1}, {20,11,17,18,0,0}; before the bridge:
   {20,15,20,20,0,18}, {20,7,20,20,0,1}, {20,7,2,8,0,0} */
static const int floor_honest[NDIMS][GENZ_NFAMILIES] = {
    {20, 20, 20, 20, 20, 18}, /* d = 5 */
    {20, 11, 20, 20, 0, 11},  /* d = 8 */
    {20, 11, 17, 18, 0, 12},  /* d = 10 */
};

#ifndef GENZ_GPU
GENZ_GCUBA_INTEGRAND(genz_c)
#endif

/* the analytic values against genz_truth_1d: within 1e-10, or for the
   corner peak within the rounding bound of its inclusion-exclusion sum */
static void check_truths(void)
{
  static const int all_dims[] = {5, 8, 10};
  int di, f, k;
  for (di = 0; di < 3; ++di)
    for (f = 1; f <= GENZ_NFAMILIES; ++f) {
      double worst = 0, tol = 1e-10;
      for (k = 0; k < 20; ++k) {
        struct genz_instance g;
        double r;
        genz_make(&g, GENZ_SEED, all_dims[di], f, k);
        r = genz_relerr(genz_truth(&g), genz_truth_1d(&g));
        if (f == 3) {
          long double cond;
          genz_corner_ie(&g, &cond);
          if (tol < 4 * (double)(cond * LDBL_EPSILON))
            tol = 4 * (double)(cond * LDBL_EPSILON);
        }
        if (!(r <= worst)) worst = r;
      }
      ok(worst <= tol, "truth %dD %s: analytic vs 1-D quadratures, largest "
         "relative difference %.2e (tolerance %.2e)", all_dims[di],
         genz_names[f - 1], worst, tol);
    }
}

/* the generator: the same instance twice, parameters in range, sum a_i
   the difficulty; and instance 0 of (5D, oscillatory) still the one the
   floors were measured on (u_1 and the value, as genz.h made them) */
static void check_instances(void)
{
  struct genz_instance g, h;
  int f, i, bad = 0;
  for (f = 1; f <= GENZ_NFAMILIES; ++f) {
    double s = 0;
    genz_make(&g, GENZ_SEED, 8, f, 3);
    genz_make(&h, GENZ_SEED, 8, f, 3);
    bad |= memcmp(&g, &h, sizeof g) != 0;
    for (i = 0; i < 8; ++i) {
      bad |= !(g.a[i] > 0) || !(g.u[i] >= 0 && g.u[i] < 1);
      s += g.a[i];
    }
    bad |= fabs(s - genz_difficulty[f - 1]) > 1e-12 * s;
  }
  genz_make(&g, GENZ_SEED, 8, 1, 3);
  genz_make(&h, GENZ_SEED, 8, 1, 4);
  bad |= memcmp(&g.u, &h.u, sizeof g.u) == 0; /* other k, other u */
  bad |= genz_make(&g, GENZ_SEED, 0, 1, 0) != -1;
  ok(!bad, "instances: reproducible, a_i > 0 summing to the difficulty, "
     "u_i in [0,1), distinct per instance");
  genz_make(&g, GENZ_SEED, 5, 1, 0);
  ok(fabs(genz_truth(&g) - 0.27327193992815607) < 1e-15,
     "instances: 5D oscillatory 0 is the floors' instance (u_1 %.17g, "
     "value %.17g)", g.u[0], genz_truth(&g));
}

/* one call of the protocol on the backend GCUBA_DEVICE names */
static void call(const struct genz_instance *g, struct genz_result *r)
{
  int nregions;
#ifdef GENZ_GPU
  gintegrand_t f = genz_cu;
#else
  gintegrand_t f = genz_c;
#endif
  llgCuhre(g->d, 1, f, (void *)g, 1, EPSREL, 1e-20, 0, 0, MAXEVAL, 0, NULL,
           NULL, &nregions, &r->neval, &r->fail, &r->integral, &r->error,
           &r->prob);
  r->ms = 0;
}

int main(void)
{
  int di, f, k;
#ifdef GENZ_GPU
  int same = 0, ncalls = 0;
  gpu_required_or_skip();
  gcuba_userdata_size(sizeof(struct genz_instance));
  setenv("GCUBA_DEVICE", "gpu", 1);
#else
  setenv("GCUBA_DEVICE", "cpu", 1); /* genz_c has host code only */
#endif
  plan(0);
  check_instances();
  check_truths();
  for (di = 0; di < NDIMS; ++di)
    for (f = 1; f <= GENZ_NFAMILIES; ++f) {
      struct genz_stats st;
      memset(&st, 0, sizeof st);
      for (k = 0; k < NINST; ++k) {
        struct genz_instance g;
        struct genz_result r;
        double truth, rel;
        genz_make(&g, GENZ_SEED, dims[di], f, k);
        truth = genz_truth(&g);
        call(&g, &r);
        rel = genz_relerr(r.integral, truth);
#ifdef GENZ_GPU
        {
          /* the CPU backend on the same instance ends alike */
          struct genz_result rc;
          double relc;
          setenv("GCUBA_DEVICE", "cpu", 1);
          call(&g, &rc);
          setenv("GCUBA_DEVICE", "gpu", 1);
          relc = genz_relerr(rc.integral, truth);
          ++ncalls;
          if (rc.fail == r.fail &&
              (rc.fail != 0 || relc > EPSREL || rel <= EPSREL))
            ++same;
          else
            diag("%dD %s %d: GPU fail %d relerr %.2e neval %lld, CPU fail "
                 "%d relerr %.2e neval %lld", g.d, genz_names[f - 1], k,
                 r.fail, rel, r.neval, rc.fail, relc, rc.neval);
        }
#endif
        genz_stats_add(&st, &r, truth, EPSREL);
        ok(r.fail != 0 || rel <= EPSREL,
           "%dD %s %d: no false claim: fail %d, relerr %.2e, error %.2e",
           g.d, genz_names[f - 1], k, r.fail, rel, r.error);
        ok(r.fail >= 0 && r.neval <= MAXEVAL,
           "%dD %s %d: neval %lld <= maxeval (fail %d)", g.d,
           genz_names[f - 1], k, r.neval, r.fail);
      }
      ok(st.honest >= floor_honest[di][f - 1],
         "%dD %s: %d honest of %d >= %d (Cuba's Cuhre: %d); converged %d, "
         "false %d, mean neval %.0f", dims[di], genz_names[f - 1], st.honest,
         st.n, floor_honest[di][f - 1], cuba_honest[di][f - 1], st.conv,
         st.nfalse, genz_stats_mean(&st));
    }
#ifdef GENZ_GPU
  ok(same == ncalls, "GPU and CPU backends: %d of %d calls end alike (fail "
     "code, honest where the CPU's is)", same, ncalls);
#endif
  {
    /* GCUBA_CUTS=0 bisects, as Cuba: 5D C0 0 (kinks at x_1 = 0.175 ...)
       then runs out of maxeval, where the cuts converge honestly */
    struct genz_instance g;
    struct genz_result r0, r1;
    double truth;
    genz_make(&g, GENZ_SEED, 5, 5, 0);
    truth = genz_truth(&g);
    setenv("GCUBA_CUTS", "0", 1);
    call(&g, &r0);
    unsetenv("GCUBA_CUTS");
    call(&g, &r1);
    ok(r0.fail == 1 && r0.neval <= MAXEVAL && r1.fail == 0 &&
           genz_relerr(r1.integral, truth) <= EPSREL,
       "5D C0 0: GCUBA_CUTS=0 fail %d after %lld evaluations; cut: fail %d, "
       "relerr %.2e after %lld", r0.fail, r0.neval, r1.fail,
       genz_relerr(r1.integral, truth), r1.neval);
  }
  {
    /* the cut next to a face: 5D discontinuous 14 */
    struct genz_instance g;
    struct genz_result r;
    double truth, rel;
    genz_make(&g, GENZ_SEED, 5, 6, 14);
    truth = genz_truth(&g);
    call(&g, &r);
    rel = genz_relerr(r.integral, truth);
    ok(g.u[1] < 0.02 && (r.fail != 0 || rel <= EPSREL) && r.neval <= MAXEVAL,
       "5D discontinuous 14 (cut at x_2 = %.4f): no false claim: fail %d, "
       "relerr %.2e, error %.2e, neval %lld", g.u[1], r.fail, rel, r.error,
       r.neval);
  }
#ifdef GENZ_GPU
  gcuba_release();
#endif
  return done();
}
