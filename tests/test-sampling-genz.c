/* tests/test-sampling-genz.c -- gSuave and gDivonne on a reduced Genz
   protocol (bench/genz.h: the six families, instances 0-9, epsrel 1e-3,
   maxeval 150000, Cuba's demo parameters, seed 0; CPU backend).
   Asserts, per call, that a claim (fail = 0) lies within 4 of its
   errors of the truth and that neval stays within its bound; per (d,
   family), at least the claims within 4 errors that the routine made
   when this test was written, and at least Cuba 4.2.2's on the same
   calls (the tables below).
   - gSuave, d = 5 and 8 (nnew 1000, nmin 2, flatness 25; neval <=
     maxeval): in the discontinuous family every answer, claimed or not,
     lies within 4 errors.  A region's sets were once weighed by their
     variances alone: a set that missed the jump outweighed those that
     found it, and 9 of these 10 5-D answers were 3 to 137 errors low.
   - gDivonne, d = 6, 8 and 10, where its final phase takes Sobol points
     (key1 47, key2 1, key3 1, maxpass 5, border 0, maxchisq 10,
     mindeviation 0.25; neval <= 1.1 maxeval).  With shifted lattices
     in the final phase instead, 8-D Gaussians made 2 claims of the 10
     and product peaks 1.  Before cuts were moved onto planar jumps, the
     discontinuous family made 2, 1 and 0 claims (Cuba's: 4 and 3 in 8
     and 10 dimensions); with copies of any count of Sobol points
     instead of 2^m, 8 and 7 in 6 and 10 dimensions.
   This file is part of gcuba. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include "tap.h"
#include "gcuba.h"
#include "genz.h"

#define EPSREL 1e-3
#define MAXEVAL 150000
#define NINST 10
#define MAXDIMS 3

GENZ_GCUBA_INTEGRAND(genz_c)

static void suave(const struct genz_instance *g, long long *neval, int *fail,
                  double *I, double *E)
{
  int nregions;
  double P;
  llgSuave(g->d, 1, genz_c, (void *)g, 1, EPSREL, 1e-20, 0, 0, 0, MAXEVAL,
           1000, 2, 25, NULL, NULL, &nregions, neval, fail, I, E, &P);
}

static void divonne(const struct genz_instance *g, long long *neval,
                    int *fail, double *I, double *E)
{
  int nregions;
  double P;
  llgDivonne(g->d, 1, genz_c, (void *)g, 1, EPSREL, 1e-20, 0, 0, 0, MAXEVAL,
             47, 1, 1, 5, 0., 10., .25, 0, g->d, NULL, 0, NULL, NULL, NULL,
             &nregions, neval, fail, I, E, &P);
}

struct battery {
  const char *name;
  void (*call)(const struct genz_instance *, long long *, int *, double *,
               double *);
  long long maxneval;
  int all_near;    /* every discontinuous answer within 4 errors */
  int cuba_disc;   /* Cuba's count binds the discontinuous family too */
  int ndims, dims[MAXDIMS];
  /* claims within 4 errors by d and family (oscillatory, product peak,
     corner peak, Gaussian, C0, discontinuous): Cuba's on the same calls
     (one core; -1 not measured), and the routine's when this test was
     written (2026-11-30) */
  int cuba[MAXDIMS][GENZ_NFAMILIES], floor[MAXDIMS][GENZ_NFAMILIES];
};

static const struct battery batteries[] = {
    /* Cuba's Suave also claimed 5 of the 5-D discontinuous instances more
       than 4 errors off */
    {"gSuave", suave, MAXEVAL, 1, 1, 2, {5, 8},
     {{5, 10, 10, 10, 10, 0}, {3, 10, 10, 10, 10, 0}},
     {{5, 10, 10, 10, 10, 2}, {3, 10, 10, 10, 10, 0}}},
    /* Cuba's Divonne also claimed 1 to 5 times more than 4 errors off in
       8 of the 12 groups of d = 8 and 10 */
    {"gDivonne", divonne, MAXEVAL + MAXEVAL / 10, 0, 1, 3, {6, 8, 10},
     {{-1, -1, -1, -1, -1, -1}, {9, 10, 10, 9, 10, 4}, {7, 8, 6, 5, 8, 3}},
     {{10, 10, 10, 10, 10, 9}, {10, 10, 10, 10, 10, 5},
      {9, 10, 10, 10, 10, 8}}},
};

static void run(const struct battery *b)
{
  int di, f, k;
  for (di = 0; di < b->ndims; ++di)
    for (f = 1; f <= GENZ_NFAMILIES; ++f) {
      const int cuba = b->cuba[di][f - 1], floor = b->floor[di][f - 1];
      int honest = 0, claims = 0;
      double sum = 0;
      for (k = 0; k < NINST; ++k) {
        struct genz_instance g;
        long long neval;
        int fail, near;
        double I, E, truth;
        genz_make(&g, GENZ_SEED, b->dims[di], f, k);
        truth = genz_truth(&g);
        b->call(&g, &neval, &fail, &I, &E);
        near = fabs(I - truth) <= 4 * E;
        claims += fail == 0;
        honest += fail == 0 && near;
        sum += (double)neval;
        ok(fail >= 0 && neval <= b->maxneval &&
               ((fail == 0 || (b->all_near && f == 6)) ? near : 1),
           "%s %dD %s %d: fail %d, %.10g +- %.2e, true %.10g (%.1f errors), "
           "neval %lld", b->name, g.d, genz_names[f - 1], k, fail, I, E,
           truth, fabs(I - truth) / E, neval);
      }
      ok(honest >= floor &&
             ((f == 6 && !b->cuba_disc) || honest >= cuba),
         "%s %dD %s: %d of %d within 4 errors >= %d (Cuba's: %d); claims %d, "
         "mean neval %.0f", b->name, b->dims[di], genz_names[f - 1], honest,
         NINST, floor, cuba, claims, sum / NINST);
    }
}

/* Genz's 3-D discontinuous instance 19: the jump at x1 = 0.010 leaves 1%
   of the cube non-zero.  A region sampled before the final phase's size
   was raised saw 3 x 41 zeros while 1% of it lies below the jump (28%
   of the integral): it was claimed with an error of 4e-5, the answer
   0.77 off.  It must be sampled again at the final size, or charged
   for what it may hide (driver.c, flat_again). */
static void check_pocket(void)
{
  struct genz_instance g;
  long long neval;
  int fail;
  double I, E, truth;
  genz_make(&g, GENZ_SEED, 3, 6, 19);
  truth = genz_truth(&g);
  divonne(&g, &neval, &fail, &I, &E);
  ok(fail >= 0 && fabs(I - truth) <= 4 * E && neval <= MAXEVAL + MAXEVAL / 10,
     "gDivonne 3D discontinuous 19: fail %d, %.10g +- %.2e, true %.10g "
     "(%.1f errors), neval %lld", fail, I, E, truth, fabs(I - truth) / E,
     neval);
}

int main(void)
{
  unsigned i;
  setenv("GCUBA_DEVICE", "cpu", 1); /* genz_c has host code only */
  plan(0);
  for (i = 0; i < sizeof batteries / sizeof batteries[0]; ++i)
    run(&batteries[i]);
  check_pocket();
  return done();
}
