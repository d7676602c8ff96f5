/* tests/test-vegas-sobol.c -- TAP tests of the Sobol points of gcuba's
   Vegas (seed 0): published values and the net property on every axis.
   Split from test-vegas-core.c.  This file is part of gcuba. */
#include <math.h>
#include <string.h>
#include <stdint.h>
#include "tap.h"
#include "gcuba/detail/vegas.h"
#include "vegas/sobol.h"

/* Sobol points (seed 0): the first points of the first three axes as
   published for Joe and Kuo's numbers (Gray-code order; scipy's
   unscrambled Sobol gives the same), and on every one of the 1024 axes
   the net property that every table entry must give: points 0 .. 2^m - 1
   take each of the values k / 2^m once (m = 10), and so do points
   2^m .. 2^(m+1) - 1 */
static void test_sobol(void)
{
  static const double first[8][3] = {
      {0, 0, 0},         {0.5, 0.5, 0.5},     {0.75, 0.25, 0.25},
      {0.25, 0.75, 0.75}, {0.375, 0.375, 0.625}, {0.875, 0.875, 0.125},
      {0.625, 0.125, 0.875}, {0.125, 0.625, 0.375}};
  static uint64_t v[GCUBA_SOBOL_MAXDIM * GCUBA_SOBOL_BITS];
  static unsigned char seen[2][1024];
  int i, a, bad = 0, badnet = 0, badodd = 0;
  double worst = 0;
  ok(gcuba_sobol_dirs(0, v) < 0 && gcuba_sobol_dirs(1025, v) < 0 &&
     gcuba_sobol_dirs(GCUBA_SOBOL_MAXDIM, v) == 0,
     "Sobol direction numbers for 1 to %d axes", GCUBA_SOBOL_MAXDIM);
  {
    /* the shared table: the same numbers, one table for every ndim */
    const uint64_t *t5 = gcuba_sobol_table(5), *tm =
        gcuba_sobol_table(GCUBA_SOBOL_MAXDIM);
    static uint64_t w[5 * GCUBA_SOBOL_BITS];
    gcuba_sobol_dirs(5, w);
    ok(t5 && t5 == tm && !gcuba_sobol_table(0) &&
           !gcuba_sobol_table(GCUBA_SOBOL_MAXDIM + 1) &&
           !memcmp(t5, w, sizeof w) && !memcmp(tm, v, sizeof v),
       "the shared Sobol table holds gcuba_sobol_dirs' numbers for 5 and "
       "%d axes, NULL outside 1..%d", GCUBA_SOBOL_MAXDIM, GCUBA_SOBOL_MAXDIM);
  }
  for (i = 0; i < 8; ++i)
    for (a = 0; a < 3; ++a) {
      double u = gcuba_vegas_sobol(v + a * 64, (uint64_t)i);
      double e = fabs(u - first[i][a]);
      if (e > worst) worst = e;
      if (!(u > 0 && u < 1)) ++bad;
    }
  ok(worst <= 0x1p-52 && !bad,
     "Sobol points 0-7 of axes 1-3 as published (largest difference "
     "%.3g, the half-step 2^-53 of the open interval)", worst);
  for (a = 0; a < GCUBA_SOBOL_MAXDIM; ++a) {
    int b;
    /* direction number b is m_(b+1) 2^(63-b) with m odd */
    for (b = 0; b < 64; ++b)
      if (!((v[a * 64 + b] >> (63 - b)) & 1) ||
          (b < 63 && (v[a * 64 + b] & ((1ull << (63 - b)) - 1))))
        ++badodd;
    memset(seen, 0, sizeof seen);
    for (i = 0; i < 2048; ++i) {
      double u = gcuba_vegas_sobol(v + a * 64, (uint64_t)i);
      int k = (int)(u * 1024);
      if (k >= 0 && k < 1024) seen[i >> 10][k]++;
    }
    for (i = 0; i < 1024; ++i)
      if (seen[0][i] != 1 || seen[1][i] != 1) {
        ++badnet;
        break;
      }
  }
  ok(!badodd && !badnet, "all %d axes: odd direction numbers (%d bad), "
     "blocks of 1024 points stratified (%d axes bad)",
     GCUBA_SOBOL_MAXDIM, badodd, badnet);
  /* the walk (gcuba_vegas_sobol_step, the CPU sampler's) gives every
     point's bits, also across carries into high bits and from 2^40 on */
  {
    static const uint64_t start[3] = {1, 1023, (1ull << 40) - 5};
    int s, nbad = 0;
    for (s = 0; s < 3; ++s)
      for (a = 0; a < GCUBA_SOBOL_MAXDIM; a += 97) {
        uint64_t q = start[s], x = gcuba_vegas_sobol_bits(v + a * 64, q);
        for (i = 0; i < 3000; ++i, ++q) {
          if (x != gcuba_vegas_sobol_bits(v + a * 64, q) ||
              gcuba_vegas_sobol_value(x) != gcuba_vegas_sobol(v + a * 64, q))
            ++nbad;
          x = gcuba_vegas_sobol_step(v + a * 64, x, q);
        }
      }
    ok(nbad == 0, "Sobol walk: 3000 consecutive points from 1, 1023 and "
       "2^40 - 5 on every 97th axis, the bits of each point (%d bad)", nbad);
  }
  /* gcuba_vegas_y with Sobol: point qoff + sample + 1, no strata */
  {
    gcuba_vegas_strat_t st;
    double y[3];
    int c[3] = {1, 1, 1};
    gcuba_vegas_strat(1000, 3, 0, &st);
    gcuba_vegas_y(0, 0, v, 5, &st, 1, c, y);
    ok(fabs(y[0] - 0.125) <= 0x1p-52 && fabs(y[1] - 0.625) <= 0x1p-52 &&
       fabs(y[2] - 0.375) <= 0x1p-52,
       "quasi-random y of sample 1 after 5 earlier samples: Sobol point 7 "
       "(%g %g %g), whatever the cube", y[0], y[1], y[2]);
  }
  /* the variance of independent samples from the cube terms */
  {
    double k[3], F[4] = {1, 2, 4, 7}, s1 = 0, s2 = 0, ip, vp, I, V, m = 0,
                  ss = 0;
    for (i = 0; i < 4; ++i) {
      s1 += F[i];
      s2 += F[i] * F[i];
      m += F[i] / 4;
    }
    for (i = 0; i < 4; ++i) ss += (F[i] - m) * (F[i] - m);
    gcuba_vegas_cube_k_iid(4, k);
    gcuba_vegas_cube_estimate_k(s1, s2, k, &ip, &vp);
    I = ip;
    V = gcuba_vegas_iid_var(vp, I, 4);
    ok(fabs(I - m) <= 1e-15 && fabs(V - ss / 3 / 4) <= 1e-14,
       "independent-sample variance: I %.15g (%.15g), Var %.15g (%.15g)", I,
       m, V, ss / 12);
  }
}

int main(void)
{
  plan(0);
  test_sobol();
  return done();
}
