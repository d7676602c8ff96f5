/* tests/test-vegas-core.c -- TAP tests of the numerical core of gcuba's
   Vegas: the Philox random numbers (known answers, reproducibility, range,
   moments, correlations), stratification and cube numbering, the importance
   map and its Jacobian, the per-cube estimate, grid refinement (variance
   reduction on a peaked integrand, robustness with empty or extreme bins,
   shared grid, the same bits on OpenMP threads), rebinning and the bin
   sums' fixed point.  The chi-square probability and the combination of
   iterations: test-vegas-combine.c; Sobol points: test-vegas-sobol.c.
   This file is part of gcuba. */
#include <math.h>
#include <string.h>
#include <stdint.h>
#include "tap.h"
#include "gcuba/detail/vegas.h"
#include "vegas/grid.h"
#include "common/chisq.h"

#define PI 3.14159265358979323846
#define NBMAX 512
#define DMAX 8

static double sq(double x) { return x * x; }

/* ---------------------------------------------------------------- RNG */

static double corr(const double *a, const double *b, long n)
{
  double ma = 0, mb = 0, sab = 0, saa = 0, sbb = 0;
  long i;
  for (i = 0; i < n; ++i) ma += a[i], mb += b[i];
  ma /= n;
  mb /= n;
  for (i = 0; i < n; ++i) {
    sab += (a[i] - ma) * (b[i] - mb);
    saa += sq(a[i] - ma);
    sbb += sq(b[i] - mb);
  }
  return sab / sqrt(saa * sbb);
}

#define NC 200000
static double ca[NC], cb[NC];

static void test_rng(void)
{
  uint32_t w[4];
  double u[7], v[7];
  long i, n = 0, bad = 0;
  double s = 0, s2 = 0, mean, var, lim = 5 / sqrt((double)NC), r;
  int j, k, same;

  /* known answers of Philox-4x32-10 (Random123's kat_vectors) through our
     counter layout: ctr = {sample lo, sample hi, iter, block},
     key = {seed lo, seed hi} */
  gcuba_vegas_philox(0, 0, 0, 0, w);
  ok(w[0] == 0x6627e8d5u && w[1] == 0xe169c58du && w[2] == 0xbc57ac4cu &&
     w[3] == 0x9b00dbd8u, "philox4x32-10 known answer, zero counter and key");
  gcuba_vegas_philox(0x299f31d0a4093822ull, 0x13198a2eu,
                     0x85a308d3243f6a88ull, 0x03707344u, w);
  ok(w[0] == 0xd16cfe09u && w[1] == 0x94fdccebu && w[2] == 0x5001e420u &&
     w[3] == 0x24126ea1u, "philox4x32-10 known answer, pi digits");

  /* reproducible, and dimension d of a sample does not depend on ndim */
  gcuba_vegas_uniforms(42, 3, 123456789012ull, 7, u);
  gcuba_vegas_uniforms(42, 3, 123456789012ull, 7, v);
  ok(memcmp(u, v, sizeof u) == 0, "same (seed, iter, sample) -> same bits");
  gcuba_vegas_uniforms(42, 3, 123456789012ull, 3, v);
  ok(memcmp(u, v, 3 * sizeof *u) == 0, "first dims same for ndim 3 and 7");
  gcuba_vegas_uniforms(43, 3, 123456789012ull, 7, v);
  same = 0;
  for (j = 0; j < 7; ++j) same += u[j] == v[j];
  ok(same == 0, "another seed gives other numbers");

  ok(gcuba_vegas_u01(0, 0) > 0 && gcuba_vegas_u01(0, 0) == GCUBA_VEGAS_2M53 &&
     gcuba_vegas_u01(0xffffffffu, 0xffffffffu) < 1 &&
     gcuba_vegas_u01(0xffffffffu, 0xffffffffu) == 1 - GCUBA_VEGAS_2M53,
     "extreme words map to 2^-53 and 1 - 2^-53");

  /* 1e6 draws: range, mean 1/2, variance 1/12 */
  for (i = 0; i < 250000; ++i) {
    double x[4];
    gcuba_vegas_uniforms(12345, 1, (uint64_t)i, 4, x);
    for (k = 0; k < 4; ++k) {
      if (!(x[k] > 0 && x[k] < 1)) ++bad;
      s += x[k];
      s2 += sq(x[k] - 0.5);
      ++n;
    }
  }
  mean = s / n;
  var = s2 / n - sq(mean - 0.5);
  ok(bad == 0, "1e6 uniforms all in (0,1)");
  ok(fabs(mean - 0.5) < 5 * sqrt(1.0 / 12 / n), "mean %.6f ~ 0.5", mean);
  ok(fabs(var - 1.0 / 12) < 5 * sqrt(1.0 / 180 / n),
     "variance %.6f ~ 1/12", var);

  /* uncorrelated: iterations, neighbouring samples, dims in one block,
     dims in different blocks, seeds */
  for (i = 0; i < NC; ++i) {
    double x[3], y[3];
    gcuba_vegas_uniforms(7, 1, (uint64_t)i, 3, x);
    gcuba_vegas_uniforms(7, 2, (uint64_t)i, 3, y);
    ca[i] = x[0];
    cb[i] = y[0];
  }
  r = corr(ca, cb, NC);
  ok(fabs(r) < lim, "iter 1 vs iter 2: corr %.2e", r);
  for (i = 0; i < NC; ++i) {
    double x[3], y[3];
    gcuba_vegas_uniforms(7, 1, (uint64_t)i, 3, x);
    gcuba_vegas_uniforms(7, 1, (uint64_t)i + 1, 3, y);
    ca[i] = x[2];
    cb[i] = y[2];
  }
  r = corr(ca, cb, NC);
  ok(fabs(r) < lim, "sample i vs i+1: corr %.2e", r);
  for (i = 0; i < NC; ++i) {
    double x[3];
    gcuba_vegas_uniforms(7, 1, (uint64_t)i, 3, x);
    ca[i] = x[0];
    cb[i] = x[1];
  }
  r = corr(ca, cb, NC);
  ok(fabs(r) < lim, "dim 0 vs dim 1: corr %.2e", r);
  for (i = 0; i < NC; ++i) {
    double x[3];
    gcuba_vegas_uniforms(7, 1, (uint64_t)i, 3, x);
    ca[i] = x[1];
    cb[i] = x[2];
  }
  r = corr(ca, cb, NC);
  ok(fabs(r) < lim, "dim 1 vs dim 2 (next block): corr %.2e", r);
  for (i = 0; i < NC; ++i) {
    double x[1], y[1];
    gcuba_vegas_uniforms(7, 1, (uint64_t)i, 1, x);
    gcuba_vegas_uniforms(8, 1, (uint64_t)i, 1, y);
    ca[i] = x[0];
    cb[i] = y[0];
  }
  r = corr(ca, cb, NC);
  ok(fabs(r) < lim, "seed 7 vs seed 8: corr %.2e", r);
}

/* ---------------------------------------------------- stratification */

static void test_strat(void)
{
  gcuba_vegas_strat_t s;
  static const long long ncalls[] = { 1, 2, 3, 7, 100, 999, 1000, 4096,
    65536, 100000, 1000000, 123456789, 1000000000, 4000000000000000000ll };
  int c[DMAX], cn[DMAX], nd, i, okall = 1, rt = 1;
  long cube;
  double u[3], y[3];

  gcuba_vegas_strat(1000, 3, 0, &s);
  ok(s.g == 7 && s.r == 2 && s.ncubes == 448 && s.npg == 2 && s.calls == 896,
     "ncall 1000, 3D: g %d r %d ncubes %ld npg %ld calls %ld", s.g, s.r,
     (long)s.ncubes, (long)s.npg, (long)s.calls);
  gcuba_vegas_strat(2000, 3, 0, &s);
  ok(s.g == 10 && s.r == 0 && s.ncubes == 1000 && s.npg == 2,
     "ncall 2000, 3D: g = 10 exactly (pow rounding)");
  gcuba_vegas_strat(1000000, 2, 0, &s);
  ok(s.g == 707 && s.r == 0 && s.npg == 2 && s.calls == 999698,
     "ncall 1e6, 2D");
  gcuba_vegas_strat(100000, 20, 0, &s);
  ok(s.g == 1 && s.r == 15 && s.ncubes == 32768 && s.npg == 3,
     "ncall 1e5, 20D: 2 parts on 15 axes, %ld cubes of %ld", (long)s.ncubes,
     (long)s.npg);
  gcuba_vegas_strat(1, 4, 0, &s);
  ok(s.g == 1 && s.r == 0 && s.npg == 2 && s.calls == 2, "ncall 1: npg 2");
  gcuba_vegas_strat(1000000000, 1, 1000000, &s);
  ok(s.g == 1000000 && s.npg == 1000, "maxcubes caps g^d");
  gcuba_vegas_strat(1000000, 3, 1, &s);
  ok(s.g == 1 && s.r == 0 && s.npg == 1000000,
     "maxcubes 1: plain importance sampling");

  for (nd = 1; nd <= 12; ++nd)
    for (i = 0; i < (int)(sizeof ncalls / sizeof *ncalls); ++i) {
      int64_t n = ncalls[i], p2 = 1, prod = 1, lim = n / 2 > 0 ? n / 2 : 1;
      int a;
      gcuba_vegas_strat(n, nd, 0, &s);
      for (a = 0; a < nd && p2 < n; ++a) p2 *= s.g + 1;
      for (a = 0; a < nd; ++a) prod *= gcuba_vegas_parts(&s, a);
      if (s.g < 1 || s.npg < 2 || s.calls != s.ncubes * s.npg ||
          prod != s.ncubes || s.r < 0 || s.r >= nd ||
          (n >= 2 && s.calls > n) || (n >= 2 && 2 * s.ncubes > n) ||
          (s.g < 2147483646 && a == nd && 2 * p2 <= n) ||
          (s.g < 2147483646 && s.ncubes / s.g * (s.g + 1) <= lim &&
           s.r < nd - 1))
        okall = 0;
    }
  ok(okall, "g maximal with 2 g^d <= ncall, r maximal, npg >= 2, "
     "calls <= ncall");

  gcuba_vegas_strat(2 * 125, 3, 0, &s); /* g = 5, r = 0 */
  for (cube = 0; cube < 125; ++cube) {
    gcuba_vegas_cube_coords(&s, cube, c);
    if (c[0] * 25 + c[1] * 5 + c[2] != cube) rt = 0;
  }
  gcuba_vegas_cube_coords(&s, 1, c);
  ok(s.g == 5 && s.r == 0 && rt && c[0] == 0 && c[1] == 0 && c[2] == 1,
     "cube unranking round-trips, last axis fastest");
  gcuba_vegas_strat(2 * 180, 3, 0, &s); /* 6 x 6 x 5 */
  rt = s.g == 5 && s.r == 2 && s.ncubes == 180;
  gcuba_vegas_cube_coords(&s, 0, cn);
  for (cube = 0; cube < s.ncubes; ++cube) {
    gcuba_vegas_cube_coords(&s, cube, c);
    if (c[0] * 30 + c[1] * 5 + c[2] != cube || memcmp(c, cn, sizeof *c * 3))
      rt = 0;
    gcuba_vegas_cube_next(&s, cn);
  }
  ok(rt, "mixed radix 6x6x5: unranking and the odometer agree");

  c[0] = c[1] = c[2] = 2;
  u[0] = u[1] = u[2] = 1 - GCUBA_VEGAS_2M53;
  gcuba_vegas_strat(2 * 27, 3, 0, &s);
  gcuba_vegas_point(&s, c, u, y);
  ok(y[0] < 1 && y[0] > 0.99, "last point of the last cube of g = 3 < 1");
  gcuba_vegas_strat(2 * 2147483646LL, 1, 0, &s);
  ok(s.g == 2147483646 && gcuba_vegas_point1(&s, 0, 2147483645, u[0]) < 1,
     "last point of the last cube of g = 2^31-2 < 1");
}

/* ----------------------------------------- plan, tree, exact bin sums */

static void test_plan(void)
{
  static const long long ncalls[] = { 2, 1000, 100000, 1 << 20, 10000000,
    123456789, 1000000000, 40000000000ll };
  gcuba_vegas_strat_t s;
  gcuba_vegas_plan_t p;
  double v[GCUBA_VEGAS_GROUP];
  uint64_t hi, lo, h2, l2;
  int i, nd, nc, good = 1, E;

  for (nd = 1; nd <= 10; nd += 3)
    for (nc = 1; nc <= 1024; nc *= 32)
      for (i = 0; i < (int)(sizeof ncalls / sizeof *ncalls); ++i) {
        gcuba_vegas_strat(ncalls[i], nd, 0, &s);
        gcuba_vegas_plan(&s, nc, &p);
        if (p.cpt < 1 || (p.cpt & (p.cpt - 1)) || p.cpt * s.npg > 32 * 2 ||
            p.nchunks != (s.ncubes + p.cpt - 1) / p.cpt || p.spc < 1 ||
            p.spc * p.cpt * s.npg > GCUBA_VEGAS_SLICE_SAMPLES ||
            p.spc * nc > GCUBA_VEGAS_SLICE_VALUES ||
            p.nslices != (p.nchunks + p.spc - 1) / p.spc ||
            (s.ncubes < (1 << 19) && p.cpt != 1))
          good = 0;
      }
  ok(good, "plans: chunks of <= 32 samples, slices of <= 2^24 samples and "
     "2^22 values");

  for (i = 0; i < GCUBA_VEGAS_GROUP; ++i) v[i] = i + 1;
  gcuba_vegas_tree_group(v);
  ok(v[0] == 256 * 257 / 2, "tree of 1..256 = %g", v[0]);
  for (i = 0; i < GCUBA_VEGAS_GROUP; ++i) v[i] = i == 5 ? 1 : 1e-17;
  gcuba_vegas_tree_group(v);
  ok(v[0] == 1 + 255e-17 || fabs(v[0] - 1) < 4e-16,
     "tree: pairwise, small terms are not lost one by one (%.17g)", v[0]);

  /* fixed point: scale, split, exact sums, value */
  E = gcuba_vegas_fx_exp(1.0, 1000);
  ok(E == 126 - 10 - 1, "fx_exp(1, 1000) = %d", E);
  ok(gcuba_vegas_fx_exp(0, 5) == GCUBA_VEGAS_FX_NONE &&
     gcuba_vegas_fx_exp(INFINITY, 5) == GCUBA_VEGAS_FX_NONE &&
     gcuba_vegas_fx_exp(NAN, 5) == GCUBA_VEGAS_FX_NONE,
     "fx_exp: no scale for 0, inf, NaN");
  gcuba_vegas_fx_split(0.75, E, &hi, &lo);
  ok(hi == (uint64_t)3 << (E - 2 - 64) && lo == 0, "0.75 2^%d split", E);
  ok(gcuba_vegas_fx_value(hi, lo, E) == 0.75, "split and value round-trip");
  gcuba_vegas_fx_split(1e-12, E, &h2, &l2);
  ok(fabs(gcuba_vegas_fx_value(h2, l2, E) / 1e-12 - 1) <
     1e-15, "1e-12 of the largest keeps its digits (%.17g)",
     gcuba_vegas_fx_value(h2, l2, E));
  gcuba_vegas_fx_split(1e-36, E, &h2, &l2);
  ok(h2 == 0 && l2 == 0, "below 2^-%d of the largest: nothing", E);
  /* carries: 2^64 - 1 + 1 */
  hi = 0;
  lo = ~(uint64_t)0;
  gcuba_vegas_fx_add(&hi, &lo, 0, 1);
  ok(hi == 1 && lo == 0, "carry into the high word");
  /* order independence of 1000 random contributions */
  {
    uint64_t ah = 0, al = 0, bh = 0, bl = 0, qh, ql;
    double q[1000], mx = 0, sum = 0;
    for (i = 0; i < 1000; ++i) {
      double uu[1];
      gcuba_vegas_uniforms(3, 1, (uint64_t)i, 1, uu);
      q[i] = exp(60 * (uu[0] - 0.5));
      if (q[i] > mx) mx = q[i];
      sum += q[i];
    }
    E = gcuba_vegas_fx_exp(mx, 1000);
    for (i = 0; i < 1000; ++i) {
      gcuba_vegas_fx_split(q[i], E, &qh, &ql);
      gcuba_vegas_fx_add(&ah, &al, qh, ql);
      gcuba_vegas_fx_split(q[999 - i], E, &qh, &ql);
      gcuba_vegas_fx_add(&bh, &bl, qh, ql);
    }
    ok(ah == bh && al == bl &&
       fabs(gcuba_vegas_fx_value(ah, al, E) / sum - 1) < 1e-14,
       "exact sums: any order, the same bits; value %.17g vs %.17g",
       gcuba_vegas_fx_value(ah, al, E), sum);
  }
}

/* ------------------------------------------------------------- map */

static double grid[DMAX * (NBMAX + 1)], grid2[DMAX * (NBMAX + 1)];
static double dacc[DMAX * NBMAX], scratch[2 * NBMAX + 1];

static void test_map(void)
{
  const int nb = 50;
  double y[3], x[3], xp = -1, jmax = 0, s = 0, s2 = 0, est, sig, jac;
  int b[3], i, a, mono = 1, inbin = 1, range = 1;
  long n, N = 200000;

  gcuba_vegas_grid_init(grid, 64, 3);
  for (i = 0; i < 1000; ++i) {
    gcuba_vegas_uniforms(5, 0, (uint64_t)i, 3, y);
    jac = gcuba_vegas_map(grid, 64, 0, 3, y, x, b, NULL);
    if (fabs(jac - 1) > jmax) jmax = fabs(jac - 1);
    for (a = 0; a < 3; ++a)
      if (fabs(x[a] - y[a]) > 1e-15) mono = 0;
  }
  ok(jmax < 1e-13 && mono, "uniform grid: x = y, Jacobian 1 (dev %.1e)", jmax);

  /* a non-uniform grid: axis 0 e_i = (i/nb)^2, axis 1 e_i = sqrt(i/nb),
     axis 2 e_i = sin(pi i / (2 nb)) */
  for (i = 0; i <= nb; ++i) {
    double t = (double)i / nb;
    grid[i] = t * t;
    grid[(nb + 1) + i] = sqrt(t);
    grid[2 * (nb + 1) + i] = sin(PI / 2 * t);
  }
  grid[2 * (nb + 1) + nb] = 1;
  ok(gcuba_vegas_grid_check(grid, nb) &&
     gcuba_vegas_grid_check(grid + nb + 1, nb) &&
     gcuba_vegas_grid_check(grid + 2 * (nb + 1), nb), "test grids are valid");

  mono = 1;
  for (i = 0; i < 100000; ++i) {
    y[0] = y[1] = y[2] = i / 100000.0;
    gcuba_vegas_map(grid, nb, 0, 3, y, x, b, NULL);
    if (!(x[0] > xp) && i > 0) mono = 0;
    xp = x[0];
    for (a = 0; a < 3; ++a) {
      const double *e = grid + a * (nb + 1);
      if (!(x[a] >= e[b[a]] && x[a] < e[b[a] + 1])) inbin = 0;
      if (!(x[a] >= 0 && x[a] < 1)) range = 0;
    }
  }
  ok(mono, "map is strictly increasing");
  ok(inbin, "x lies in the bin reported");
  y[0] = y[1] = y[2] = 0;
  gcuba_vegas_map(grid, nb, 0, 3, y, x, b, NULL);
  ok(x[0] == 0 && x[1] == 0 && x[2] == 0 && b[0] == 0, "y = 0 -> x = 0");
  y[0] = y[1] = y[2] = 1 - GCUBA_VEGAS_2M53;
  gcuba_vegas_map(grid, nb, 0, 3, y, x, b, NULL);
  ok(range && x[0] < 1 && x[1] < 1 && x[2] < 1 && b[0] == nb - 1,
     "[0,1) -> [0,1): largest y < 1 gives x < 1 in the last bin");

  /* shared: all axes through the sqrt grid; y = 0.31 is mid-bin 15,
     y = 0.71 mid-bin 35 */
  y[0] = 0.31;
  y[1] = 0.31;
  y[2] = 0.71;
  jac = gcuba_vegas_map(grid + nb + 1, nb, 1, 3, y, x, b, NULL);
  {
    double w15 = sqrt(0.32) - sqrt(0.30), w35 = sqrt(0.72) - sqrt(0.70);
    ok(x[0] == x[1] && b[2] == 35 &&
       fabs(x[0] - (sqrt(0.30) + 0.5 * w15)) < 1e-14 &&
       fabs(x[2] - (sqrt(0.70) + 0.5 * w35)) < 1e-14 &&
       close_rel(jac, nb * w15 * nb * w15 * nb * w35, 1e-12),
       "shared grid: every axis through the same map, J = prod nb dx");
  }

  /* plain MC of f = prod 3 x^2 (integral 1) through the non-uniform map */
  for (n = 0; n < N; ++n) {
    double f;
    gcuba_vegas_uniforms(99, 0, (uint64_t)n, 3, y);
    jac = gcuba_vegas_map(grid, nb, 0, 3, y, x, b, NULL);
    f = 27 * sq(x[0] * x[1] * x[2]) * jac;
    s += f;
    s2 += f * f;
  }
  est = s / N;
  sig = sqrt((s2 / N - est * est) / (N - 1));
  ok(fabs(est - 1) < 5 * sig, "MC through non-uniform map: %.5f +- %.5f", est,
     sig);
}

/* -------------------------------------------- stratified estimates */

/* one iteration of stratified VEGAS on f, through grid (nb bins, shared or
   per axis); accumulates d when d != NULL */
static void iterate(double (*f)(const double *, int), int ndim,
                    const gcuba_vegas_strat_t *st, uint64_t seed,
                    uint32_t iter, const double *g, int nb, int shared,
                    double *d, double *ip, double *vp)
{
  int64_t cube, k;
  int c[DMAX], b[DMAX];
  double x[DMAX], I = 0, V = 0;
  if (d) memset(d, 0, sizeof(double) * ndim * nb);
  for (cube = 0; cube < st->ncubes; ++cube) {
    double s1 = 0, s2 = 0, ci, cv;
    gcuba_vegas_cube_coords(st, cube, c);
    for (k = 0; k < st->npg; ++k) {
      double jac = gcuba_vegas_sample(seed, iter, NULL, 0, st, cube, k, c, g, nb,
                                      shared, NULL, x, b);
      double fj = f(x, ndim) * jac;
      s1 += fj;
      s2 += fj * fj;
      if (d) gcuba_vegas_bin_add(d, nb, ndim, b, fj);
    }
    gcuba_vegas_cube_estimate(s1, s2, st->npg, st->ncubes, &ci, &cv);
    I += ci;
    V += cv;
  }
  *ip = I;
  *vp = V;
}

static double fexp(const double *x, int n)
{
  double s = 0;
  int a;
  for (a = 0; a < n; ++a) s += x[a];
  return exp(s);
}

static double fpeak(const double *x, int n)
{
  double s = 0;
  int a;
  for (a = 0; a < n; ++a) s += sq(x[a] - 0.3);
  return exp(-100 * s);
}

static void test_estimate(void)
{
  gcuba_vegas_strat_t st;
  double ci, cv, I, V, i1, v1, sumv = 0, m = 0, m2 = 0, ex, ratio;
  int r, R = 200;

  /* hand-computed: two cubes of 3 samples {1,2,3}, {4,4,4}:
     I = (2 + 4)/2 = 3, Var = (1/3 + 0)/4 = 1/12 */
  gcuba_vegas_cube_estimate(6, 14, 3, 2, &i1, &v1);
  gcuba_vegas_cube_estimate(12, 48, 3, 2, &ci, &cv);
  ok(close_rel(i1 + ci, 3, 1e-15) && close_rel(v1 + cv, 1.0 / 12, 1e-14) &&
     cv == 0, "cube estimate: I %.15g Var %.15g", i1 + ci, v1 + cv);

  /* reported variance agrees with the spread over independent seeds */
  gcuba_vegas_grid_init(grid, 32, 2);
  gcuba_vegas_strat(1000, 2, 0, &st);
  ex = sq(exp(1.0) - 1);
  for (r = 0; r < R; ++r) {
    iterate(fexp, 2, &st, 1000 + r, 0, grid, 32, 0, NULL, &I, &V);
    m += I;
    m2 += I * I;
    sumv += V;
  }
  m /= R;
  m2 = (m2 / R - m * m) * R / (R - 1);
  ratio = m2 / (sumv / R);
  ok(ratio > 0.6 && ratio < 1.5,
     "stratified variance matches the spread (ratio %.3f)", ratio);
  ok(fabs(m - ex) < 5 * sqrt(sumv / R / R), "stratified mean %.7f vs %.7f",
     m, ex);
}

/* ------------------------------------------------------- refinement */

static void adapt(int shared, int64_t maxcubes, const char *what)
{
  const int nd = 3, nb = 64, niter = 10;
  const double i1 = sqrt(PI) / 20 * (erf(7.0) + erf(3.0));
  const double ex = i1 * i1 * i1;
  gcuba_vegas_strat_t st;
  gcuba_vegas_combine_t cmb;
  double I, V, v0 = 0, res, err, chi2, prob, inside = 0;
  int it, i, bad = 0, ndof;

  gcuba_vegas_strat(20000, nd, maxcubes, &st);
  gcuba_vegas_grid_init(grid, nb, shared ? 1 : nd);
  gcuba_vegas_combine_init(&cmb);
  for (it = 0; it < niter; ++it) {
    iterate(fpeak, nd, &st, 2024, (uint32_t)it, grid, nb, shared, dacc, &I,
            &V);
    if (it == 0) v0 = V;
    if (it >= 5) gcuba_vegas_combine_add(&cmb, I, V, (double)st.calls);
    if (gcuba_vegas_grid_refine(grid, nb, nd, shared, dacc,
                                GCUBA_VEGAS_ALPHA, scratch) != 0) ++bad;
  }
  for (i = 0; i < (shared ? 1 : nd); ++i)
    if (!gcuba_vegas_grid_check(grid + i * (nb + 1), nb)) ++bad;
  for (i = 0; i < nb; ++i) {
    double mid = 0.5 * (grid[i] + grid[i + 1]);
    inside += mid > 0.1 && mid < 0.5;
  }
  gcuba_vegas_combine_result(&cmb, 0, &res, &err, &chi2, &ndof, &prob);
  diag("%s: g %d npg %ld; var first %.3e last %.3e (x%.0f); %.0f of %d bins"
       " in (0.1, 0.5); I %.7f +- %.7f (exact %.7f) chi2 %.2f/%d",
       what, st.g, (long)st.npg, v0, V, v0 / V, inside, nb, res, err, ex,
       chi2, ndof);
  ok(bad == 0, "%s: every refinement succeeded, grids valid", what);
  ok(inside >= 0.75 * nb, "%s: bins concentrate near 0.3", what);
  ok(v0 / V > (maxcubes == 1 ? 100 : 10), "%s: variance down by %.0f", what,
     v0 / V);
  ok(fabs(res - ex) < 5 * err, "%s: adapted integral within 5 sigma", what);
}

static void test_refine(void)
{
  const int nb = 50;
  double e[NBMAX + 1], dd[NBMAX], e0[NBMAX + 1], w0, w1, avg;
  int i, k, rc, good;

  memset(e, 0, sizeof e);
  memset(dd, 0, sizeof dd);

  adapt(0, 1, "per-axis grids, no stratification");
  adapt(0, 0, "per-axis grids, stratified");
  adapt(1, 1, "shared grid, no stratification");

  /* constant contributions leave a uniform grid uniform */
  gcuba_vegas_grid_init(e, nb, 1);
  for (i = 0; i < nb; ++i) dd[i] = 2.5;
  rc = gcuba_vegas_grid_refine1(e, nb, dd, 1, 1.5, scratch);
  good = rc == 0;
  for (i = 0; i <= nb; ++i)
    if (fabs(e[i] - (double)i / nb) > 1e-14) good = 0;
  ok(good, "constant contributions: uniform grid stays uniform");

  /* hand-computed: nb = 3, d = {0, 3, 0}: smoothed {1/2, 1/3, 1/2} (in
     units of 3), r = {3/8, 1/4, 3/8}, w_i = ((1 - r)/ln(1/r))^1.5, edges
     x1, x2 = 1 - x1 at cumulative weight W/3 and 2W/3; then the defensive
     mixture: bins of mass (1 - L)/3 + L width, x1 < 1/3 so e1 lies in the
     middle bin */
  gcuba_vegas_grid_init(e, 3, 1);
  dd[0] = 0;
  dd[1] = 3;
  dd[2] = 0;
  gcuba_vegas_grid_refine1(e, 3, dd, 1, 1.5, scratch);
  w0 = pow(0.625 / log(8.0 / 3), 1.5);
  w1 = pow(0.75 / log(4.0), 1.5);
  avg = (2 * w0 + w1) / 3;
  {
    const double L = GCUBA_VEGAS_DEFENSIVE, x1 = avg / w0 / 3;
    const double m0 = (1 - L) / 3 + L * x1, m1 = (1 - L) / 3 + L * (1 - 2 * x1);
    const double e1 = x1 + (1.0 / 3 - m0) / m1 * (1 - 2 * x1);
    ok(fabs(e[1] - e1) < 1e-14 && fabs(e[1] + e[2] - 1) < 1e-14,
       "nb 3 hand-computed refinement: e1 %.15f (%.15f)", e[1], e1);
  }

  /* the floored form (the refinement that freezes the grid): the same
     contributions give the unmixed edges x1 and 1 - x1 themselves, since
     every bin there lies above the floor */
  gcuba_vegas_grid_init(e, 3, 1);
  dd[0] = 0;
  dd[1] = 3;
  dd[2] = 0;
  rc = gcuba_vegas_grid_refine1_ex(e, 3, dd, 1, 1.5,
                                   GCUBA_VEGAS_GRID_SMOOTH |
                                   GCUBA_VEGAS_GRID_FLOOR, scratch);
  {
    const double x1 = avg / w0 / 3;
    ok(rc == 0 && fabs(e[1] - x1) < 1e-14 && fabs(e[2] - (1 - x1)) < 1e-14,
       "nb 3 floored: the unmixed map kept, e1 %.15f (%.15f)", e[1], x1);
  }

  /* floored, contributions falling off by e^-i from x = 0: the floor
     bounds the bins far from the peak by Z/(nb L) <= (1 + L)/(nb L), and
     the bins at the peak are narrower than the mixture's (which moves
     mass L into the tail) */
  {
    const int n = 64;
    double ef[65], wmax = 0;
    for (i = 0; i < n; ++i) dd[i] = exp(-(double)i);
    gcuba_vegas_grid_init(ef, n, 1);
    rc = gcuba_vegas_grid_refine1_ex(ef, n, dd, 1, 1.5,
                                     GCUBA_VEGAS_GRID_SMOOTH |
                                     GCUBA_VEGAS_GRID_FLOOR, scratch);
    gcuba_vegas_grid_init(e, n, 1);
    gcuba_vegas_grid_refine1(e, n, dd, 1, 1.5, scratch);
    for (i = 0; i < n; ++i)
      if (ef[i + 1] - ef[i] > wmax) wmax = ef[i + 1] - ef[i];
    ok(rc == 0 && gcuba_vegas_grid_check(ef, n) &&
       wmax <= (1 + GCUBA_VEGAS_DEFENSIVE) / (n * GCUBA_VEGAS_DEFENSIVE) &&
       ef[1] < e[1],
       "floored e^-i: widest bin %.4f, first %.3g (mixture %.3g)", wmax,
       ef[1], e[1]);
  }

  /* a support that ends inside an axis (a cut at 0.4375: bins 0-27 of
     64 carry weight): the zero run beyond is one bin of its own before
     the mixture, so the bins just inside the cut stay as narrow as those
     before them, instead of one bin reaching from inside the support to
     1; and no bin is wider than 1/(nb L) */
  {
    const int n = 64;
    double wmax = 0, wcut = 0, wmid = 0;
    gcuba_vegas_grid_init(e, n, 1);
    for (i = 0; i < n; ++i) dd[i] = i < 28 ? 1.0 + i : 0;
    rc = gcuba_vegas_grid_refine1(e, n, dd, 1, 1.5, scratch);
    for (i = 0; i < n; ++i) {
      const double w = e[i + 1] - e[i];
      if (w > wmax) wmax = w;
      if (e[i] < 0.4375 - 1e-9 && e[i + 1] >= 0.4375 - 1e-9) wcut = w;
      if (e[i] < 0.25 && e[i + 1] >= 0.25) wmid = w;
    }
    ok(rc == 0 && gcuba_vegas_grid_check(e, n) && wcut <= 4 * wmid &&
       wmax <= 1.0 / (n * GCUBA_VEGAS_DEFENSIVE) + 1e-12,
       "cut at 0.4375: the bin at the cut %.4f wide (at 0.25: %.4f), widest "
       "%.4f", wcut, wmid, wmax);
  }

  /* empty bins, a single non-empty bin, huge values: valid, no NaN */
  gcuba_vegas_grid_init(e, nb, 1);
  memset(dd, 0, sizeof dd);
  dd[10] = 1;
  rc = gcuba_vegas_grid_refine1(e, nb, dd, 1, 1.5, scratch);
  ok(rc == 0 && gcuba_vegas_grid_check(e, nb), "one non-empty bin: valid");
  memset(dd, 0, sizeof dd);
  dd[0] = 1e300;
  dd[nb - 1] = 1e300;
  dd[20] = 1e-300;
  rc = gcuba_vegas_grid_refine1(e, nb, dd, 1, 1.5, scratch);
  ok(rc == 0 && gcuba_vegas_grid_check(e, nb), "1e300 and 1e-300: valid");

  memcpy(e0, e, sizeof e);
  memset(dd, 0, sizeof dd);
  rc = gcuba_vegas_grid_refine1(e, nb, dd, 1, 1.5, scratch);
  ok(rc == 1 && memcmp(e, e0, sizeof e) == 0, "all zero: grid unchanged, 1");
  dd[5] = NAN;
  rc = gcuba_vegas_grid_refine1(e, nb, dd, 1, 1.5, scratch);
  ok(rc == -1 && memcmp(e, e0, sizeof e) == 0, "NaN: grid unchanged, -1");
  dd[5] = 1;
  rc = gcuba_vegas_grid_refine1(e, nb, dd, 1, 0, scratch);
  ok(rc == 1 && memcmp(e, e0, sizeof e) == 0, "alpha 0: no adaptation");

  /* repeated refinement towards a point and towards the edge x = 0 (the
     grid shrinks geometrically until edges meet in floating point) */
  good = 1;
  gcuba_vegas_grid_init(e, nb, 1);
  for (k = 0; k < 300; ++k) {
    memset(dd, 0, sizeof dd);
    for (i = 0; i < nb; ++i)
      if (e[i] <= 0.3 && 0.3 < e[i + 1]) dd[i] = 1;
    if (gcuba_vegas_grid_refine1(e, nb, dd, 1, 1.5, scratch) != 0 ||
        !gcuba_vegas_grid_check(e, nb)) good = 0;
  }
  ok(good && e[nb / 2] > 0.29 && e[nb / 2] < 0.31,
     "300 refinements on a spike at 0.3: valid, bins at 0.3");
  good = 1;
  gcuba_vegas_grid_init(e, nb, 1);
  for (k = 0; k < 3000; ++k) {
    memset(dd, 0, sizeof dd);
    dd[0] = 1;
    if (gcuba_vegas_grid_refine1(e, nb, dd, 1, 1.5, scratch) != 0 ||
        !gcuba_vegas_grid_check(e, nb)) good = 0;
  }
  diag("after 3000 refinements towards 0: e[1] = %g, e[%d] = %g", e[1],
       nb - 1, e[nb - 1]);
  ok(good, "3000 refinements towards x = 0: strictly increasing, no NaN");

  /* shared grid = one grid refined from the summed rows */
  gcuba_vegas_grid_init(grid, nb, 1);
  gcuba_vegas_grid_init(e, nb, 1);
  for (k = 0; k < 3; ++k)
    for (i = 0; i < nb; ++i) dacc[k * nb + i] = 1 + sin(i + 3.0 * k);
  for (i = 0; i < nb; ++i)
    dd[i] = dacc[i] + dacc[nb + i] + dacc[2 * nb + i];
  gcuba_vegas_grid_refine(grid, nb, 3, 1, dacc, 1.5, scratch);
  gcuba_vegas_grid_refine1(e, nb, dd, 1, 1.5, scratch);
  good = 1;
  for (i = 0; i <= nb; ++i)
    if (fabs(e[i] - grid[i]) > 1e-15) good = 0;
  ok(good, "shared refinement sums the axes' contributions");
}

/* ------------------------------------------------------------ resize */

/* the refinement on OpenMP threads, one axis each, gives the bits of the
   serial one: 8 axes of 1024 bins (above GCUBA_VEGAS_GRID_PAR), mixed
   and floored, contributions spanning 40 decades with empty runs */
static void test_refine_par(void)
{
  enum { ND = 8, NB = 1024 };
  static double g1[ND * (NB + 1)], g2[ND * (NB + 1)], dd[ND * NB],
      sc[ND * (2 * NB + 1)];
  uint32_t w[4];
  int a, i, mode, same = 1, rc1 = 0, rc2 = 0;
  for (a = 0; a < ND; ++a)
    for (i = 0; i < NB; i += 2) {
      gcuba_vegas_philox(99, 0, (uint64_t)(a * NB + i), 0, w);
      dd[a * NB + i] = (i / 64) % 5 == 3 && a % 3 == 1
                           ? 0
                           : pow(10, -20 + 40 * gcuba_vegas_u01(w[0], w[1]));
      dd[a * NB + i + 1] = gcuba_vegas_u01(w[2], w[3]);
    }
  for (mode = 0; mode < 4; ++mode) {
    gcuba_vegas_grid_init(g1, NB, ND);
    gcuba_vegas_grid_init(g2, NB, ND);
    rc1 += gcuba_vegas_grid_refine_ex(g1, NB, ND, 0, dd, GCUBA_VEGAS_ALPHA,
                                      mode, sc);
    rc2 += gcuba_vegas_grid_refine_par(g2, NB, ND, 0, dd, GCUBA_VEGAS_ALPHA,
                                       mode, sc, 4);
    same = same && !memcmp(g1, g2, sizeof g1);
    for (a = 0; a < ND; ++a)
      same = same && gcuba_vegas_grid_check(g2 + a * (NB + 1), NB);
  }
  ok(ND * NB >= GCUBA_VEGAS_GRID_PAR && same && rc1 == 0 && rc2 == 0,
     "refinement on 4 threads: the serial refinement's bits, 8 axes of "
     "1024 bins, 4 modes");
}

static void test_resize(void)
{
  double y[1], x1[1], x2[1], j1, j2, dx = 0, dj = 0;
  int i, good = 1;

  gcuba_vegas_grid_init(grid, 128, 2);
  gcuba_vegas_grid_resize(grid, 128, grid2, 500, 2);
  for (i = 0; i <= 500; ++i)
    if (fabs(grid2[501 + i] - i / 500.0) > 1e-15) good = 0;
  ok(good, "uniform 128 -> 500 bins stays uniform");

  for (i = 0; i <= 50; ++i) grid[i] = sq(i / 50.0);
  gcuba_vegas_grid_resize(grid, 50, grid2, 150, 1);
  for (i = 0; i < 10000; ++i) {
    y[0] = (i + 0.37) / 10000;
    j1 = gcuba_vegas_map(grid, 50, 0, 1, y, x1, NULL, NULL);
    j2 = gcuba_vegas_map(grid2, 150, 0, 1, y, x2, NULL, NULL);
    if (fabs(x1[0] - x2[0]) > dx) dx = fabs(x1[0] - x2[0]);
    if (fabs(j1 - j2) > dj) dj = fabs(j1 - j2);
  }
  ok(gcuba_vegas_grid_check(grid2, 150) && dx < 1e-14 && dj < 1e-11,
     "50 -> 150 bins keeps the map (dx %.1e, dJ %.1e)", dx, dj);

  gcuba_vegas_grid_resize(grid, 50, grid2, 37, 1);
  good = gcuba_vegas_grid_check(grid2, 37);
  for (i = 0; i <= 37; ++i) {
    y[0] = i / 37.0;
    if (i < 37) gcuba_vegas_map(grid, 50, 0, 1, y, x1, NULL, NULL);
    else x1[0] = 1;
    if (fabs(grid2[i] - x1[0]) > 1e-14) good = 0;
  }
  ok(good, "50 -> 37 bins: valid, new edges on the old map");
}

/* Edge powers (gcuba_vegas_map's epow): the first and last bins of an axis
   map by u^(2^k).  Zeros are the linear map, bit for bit; within an edge
   bin x is monotone, stays in the bin and meets its edges; the Jacobian
   integrates to 1 over y; and x^-0.9 at the face, whose variance is
   infinite in a linear bin, has a finite one with u^8 (p < 15/16): the
   estimate of the same 2e5 stratified points is within 4 errors of the
   truth, where the linear map's misses by more than 4. */
static void test_epow(void)
{
  const int nb = 16;
  static const int zero[4] = {0, 0, 0, 0}, pw[4] = {3, 1, 0, 2};
  double y[2], x0[2], x1[2], xprev[2] = {-1, -1}, ji = 0, jl = 0;
  int i, a, same = 1, mono = 1, inbin = 1, k;
  const long N = 200000;

  for (i = 0; i <= nb; ++i) {
    grid[i] = sq((double)i / nb);                 /* axis 0 */
    grid[nb + 1 + i] = sqrt((double)i / nb);      /* axis 1 */
  }
  for (i = 0; i < 20000; ++i) {
    double j0, j1;
    gcuba_vegas_uniforms(9, 1, (uint64_t)i, 2, y);
    j0 = gcuba_vegas_map(grid, nb, 0, 2, y, x0, NULL, NULL);
    j1 = gcuba_vegas_map(grid, nb, 0, 2, y, x1, NULL, zero);
    if (memcmp(&j0, &j1, sizeof j0) || memcmp(x0, x1, sizeof x0)) same = 0;
  }
  ok(same, "edge powers all 0: the linear map, the same bits");

  /* y through axis 0's first bin, then axis 1's last bin, in order (the
     other axis in a linear bin) */
  for (a = 0; a < 2; ++a)
    for (i = 0; i < 4096; ++i) {
      const double u = (i + 0.5) / 4096;
      const double w0 = a ? grid[nb / 2 + 1] - grid[nb / 2] : grid[1] - grid[0];
      const double w1 = a ? grid[2 * nb + 1] - grid[2 * nb]
                          : grid[nb + 1 + nb / 2 + 1] - grid[nb + 1 + nb / 2];
      double j;
      y[0] = a ? (nb / 2 + 0.5) / nb : u / nb;
      y[1] = a ? (nb - 1 + u) / nb : (nb / 2 + 0.5) / nb;
      j = gcuba_vegas_map(grid, nb, 0, 2, y, x1, NULL, pw);
      if (!(x1[a] > xprev[a])) mono = 0;
      if (a ? !(x1[1] >= grid[2 * nb] && x1[1] < grid[2 * nb + 1])
            : !(x1[0] >= grid[0] && x1[0] < grid[1]))
        inbin = 0;
      xprev[a] = x1[a];
      /* the bins' own measure: J / (nb^2 w_0 w_1) integrates to 1 */
      *(a ? &jl : &ji) += j / ((double)nb * w0 * nb * w1) / 4096;
    }
  ji = fabs(ji - 1) > fabs(jl - 1) ? ji : jl;
  y[0] = 1.0 / nb - 1e-17;
  y[1] = (nb - 1.0) / nb;
  gcuba_vegas_map(grid, nb, 0, 2, y, x1, NULL, pw);
  ok(mono && inbin && fabs(ji - 1) < 1e-6 &&
     fabs(x1[0] - grid[1]) < 1e-12 && fabs(x1[1] - grid[2 * nb]) < 1e-12,
     "u^8 in axis 0's first bin, u^4 in axis 1's last: x monotone in its "
     "bin and meets its edges, the Jacobian integrates to 1 (%.2e off)",
     fabs(ji - 1));

  /* int_0^1 x^-0.9 dx = 10 on the grid that gives each bin an equal
     share, e_i = (i/nb)^10, with the linear map and with u^8 in the
     first bin */
  for (i = 0; i <= nb; ++i) grid[i] = pow((double)i / nb, 10);
  for (k = 0; k < 2; ++k) {
    const int e[2] = {k ? 3 : 0, 0};
    double s = 0, s2 = 0, est, sig;
    long n;
    for (n = 0; n < N; ++n) {
      double f, j;
      gcuba_vegas_uniforms(3, 0, (uint64_t)n, 1, y);
      y[0] = (n + y[0]) / N;  /* one point per stratum */
      j = gcuba_vegas_map(grid, nb, 0, 1, y, x1, NULL, e);
      f = pow(x1[0], -0.9) * j;
      s += f;
      s2 += f * f;
    }
    est = s / N;
    sig = sqrt((s2 / N - est * est) / N);
    if (k)
      ok(fabs(est - 10) < 4 * sig && sig < 0.05,
         "x^-0.9 with u^8 in the edge bin: %.5f +- %.2g (truth 10)", est,
         sig);
    else
      jl = fabs(est - 10) / sig;
  }
  ok(jl > 4, "... with the linear edge bin the same points miss by %.1f "
     "of their errors", jl);
}

/* the bin sums' fixed point: splitting with the factor 2^E
   (gcuba_vegas_fx_split_p, the CPU backend's) gives the bits of
   gcuba_vegas_fx_split for every q and E the sums use (q 2^E < 2^126),
   over the whole range of E where 2^E is a normal double */
static void test_fixed_point(void)
{
  uint64_t x = 88172645463325252ULL;
  long long bad = 0, n = 0, nonzero = 0;
  int E;
  for (E = -1022; E <= 1023; ++E) {
    const double p = ldexp(1.0, E);
    int k;
    for (k = 0; k < 400; ++k) {
      uint64_t h1, l1, h2, l2, m;
      double q;
      int e;
      /* xorshift64: a random mantissa and an exponent that keeps
         q 2^E below 2^126, from far below 1 up to the limit */
      x ^= x << 13;
      x ^= x >> 7;
      x ^= x << 17;
      m = x >> 11;
      e = 125 - E - (int)(x % 200);
      if (e < -1074) e = -1074;
      if (e > 1023) e = 1023;
      q = ldexp((double)m / 9007199254740992.0, e);
      if (k == 0) q = 0;
      if (k == 1) q = 4.9406564584124654e-324; /* the least subnormal */
      if (!(ldexp(q, E) < 8.5070591730234616e37)) continue; /* 2^126 */
      gcuba_vegas_fx_split(q, E, &h1, &l1);
      gcuba_vegas_fx_split_p(q, p, &h2, &l2);
      bad += h1 != h2 || l1 != l2;
      nonzero += (h1 | l1) != 0;
      ++n;
    }
  }
  ok(bad == 0 && nonzero > n / 4,
     "fixed point: 2^E as a factor, the bits of ldexp (%lld of %lld "
     "differ; %lld nonzero)", bad, n, nonzero);
}

int main(void)
{
  plan(0);
  test_fixed_point();
  test_rng();
  test_strat();
  test_plan();
  test_map();
  test_epow();
  test_estimate();
  test_refine();
  test_refine_par();
  test_resize();
  return done();
}
