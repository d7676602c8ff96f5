/* tests/test-vegas-genz.c -- gVegas on a reduced Genz protocol
   (bench/genz.h: d = 5 and 8, the six families, instances 0-9, epsrel
   1e-3, maxeval 150000, Cuba's nstart 1000, nincrease 500, nbatch 1000,
   seed 0, flags 0; CPU backend).  Seed 0 samples Sobol points, as Cuba's
   Vegas does.  Asserts, per call, neval <= maxeval and no false claim
   (fail = 0 implies a true relative error <= epsrel); per (d, family), at
   least the honest answers of Cuba 4.2.2's Vegas on the same instances
   (the table below) and at least those gVegas reached when this test was
   written.  Before seed 0 meant Sobol points, the full protocol (360
   calls) had 86 false claims, 19 of them in the 20 8D product peaks;
   before the grid kept zero runs apart and mixed in the uniform map, 9,
   all in the discontinuous family.  Then one case of
   another kind, a corner singularity x^-0.9 y^-0.5 in 2D, on which the
   estimate converged 10-24 errors off for most seeds: every claim must
   be true.  This file is part of gcuba. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "tap.h"
#include "gcuba.h"
#include "genz.h"
#include "genz-report.h"

#define EPSREL 1e-3
#define MAXEVAL 150000
#define NINST 10

static const int dims[] = {5, 8};
#define NDIMS ((int)(sizeof dims / sizeof dims[0]))

/* honest answers of Cuba 4.2.2's Vegas (seed 0: Sobol; flags 0, epsrel
   1e-3, epsabs 1e-20, maxeval 150000, nstart 1000, nincrease 500, nbatch
   1000, one core) on instances 0-9 of seed 4711, by d and family
   (oscillatory, product peak, corner peak, Gaussian, C0,
   discontinuous); Cuba also claimed falsely 7 and 5 times in the
   discontinuous family */
static const int cuba_honest[NDIMS][GENZ_NFAMILIES] = {
    {0, 10, 10, 10, 10, 2}, /* d = 5 */
    {3, 10, 10, 10, 10, 0}, /* d = 8 */
};
/* gVegas's when this test was written (2026-11-25), raised when seed 0's
   error took the Sobol iterations' scatter into account (2026-11-26) */
static const int floor_honest[NDIMS][GENZ_NFAMILIES] = {
    {2, 10, 10, 10, 10, 6}, /* d = 5 */
    {3, 10, 10, 10, 10, 3}, /* d = 8 */
};

GENZ_GCUBA_INTEGRAND(genz_c)

/* x^-0.9 y^-0.5 on the unit square: 20 */
GCUBA_INTEGRAND(corner)(const int *ndim, const double x[], const int *ncomp,
                        double f[], void *userdata)
{
  (void)ndim;
  (void)ncomp;
  (void)userdata;
  f[0] = pow(x[0], -0.9) * pow(x[1], -0.5);
  return 0;
}

int main(void)
{
  int di, f, k, seed;
  setenv("GCUBA_DEVICE", "cpu", 1); /* genz_c has host code only */
  plan(0);
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
        llgVegas(g.d, 1, genz_c, &g, 1, EPSREL, 1e-20, 0, 0, 0, MAXEVAL,
                 1000, 500, 1000, 0, NULL, NULL, &r.neval, &r.fail,
                 &r.integral, &r.error, &r.prob);
        r.ms = 0;
        rel = genz_relerr(r.integral, truth);
        genz_stats_add(&st, &r, truth, EPSREL);
        ok(r.fail >= 0 && r.neval <= MAXEVAL && (r.fail != 0 || rel <= EPSREL),
           "%dD %s %d: fail %d, relerr %.2e, error %.2e, neval %lld",
           g.d, genz_names[f - 1], k, r.fail, rel, r.error / fabs(truth),
           r.neval);
      }
      ok(st.honest >= floor_honest[di][f - 1] &&
         st.honest >= cuba_honest[di][f - 1],
         "%dD %s: %d honest of %d >= %d (Cuba's Vegas: %d); converged %d, "
         "false %d, mean neval %.0f", dims[di], genz_names[f - 1], st.honest,
         st.n, floor_honest[di][f - 1], cuba_honest[di][f - 1], st.conv,
         st.nfalse, genz_stats_mean(&st));
    }
  for (seed = 0; seed <= 10; ++seed) {
    long long neval;
    int fail;
    double I, E, P, rel;
    llgVegas(2, 1, corner, NULL, 1, EPSREL, 1e-20, 0, seed, 0, 2000000,
             1000, 500, 1000, 0, NULL, NULL, &neval, &fail, &I, &E, &P);
    rel = fabs(I - 20) / 20;
    ok(fail >= 0 && (fail != 0 || rel <= EPSREL),
       "x^-0.9 y^-0.5, seed %d: fail %d, %.8g +- %.2g (true 20: relative "
       "error %.2e, %.1f errors), neval %lld", seed, fail, I, E, rel,
       fabs(I - 20) / E, neval);
  }
  return done();
}
