/* tests/test-rules.c -- checks of the cubature rules in gcuba/detail/rule.h.
   This file is part of gcuba.

   For every rule configuration (key 7 in ndim 2,3,5,8; key 9 in 2,3,4,6,8;
   key 11 in 3; key 13 in 2) it checks
     - the point count against the closed formula and the weight sums,
     - the generated points (inside the cube, distinct, each set equal to a
       brute-force enumeration of its orbit),
     - exactness for every monomial up to the degree (all of them in low
       ndim, a random subset plus all pure powers otherwise) over two
       boxes, and inexactness one degree higher,
     - the null rules' degrees and the error estimate,
     - the split axis and the lower-level entry points,
   and then the key selection, limits and the Gauss-Kronrod pairs; the
   pieces of the error estimate are in tests/test-errest.c. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <math.h>
#include "gcuba/detail/rule.h"
#include "tap.h"

#define MAXD 8          /* largest ndim tested point by point */
#define MAXMONO 6000    /* enumerate all monomials when there are fewer */
#define NRANDOM 40      /* random monomials per degree otherwise */

/* ------------------------------------------------------------------ */
/* helpers                                                               */

static unsigned long long rng_state = 88172645463325252ULL;

static unsigned rnd(unsigned n)
{
  rng_state ^= rng_state << 13;
  rng_state ^= rng_state >> 7;
  rng_state ^= rng_state << 17;
  return (unsigned)(rng_state % n);
}

/* an integrand: value at x (ndim n) given parameters */
typedef double (*fun_t)(const double *x, int n, const void *par);

/* a rule with all its points expanded (u, half-width units) */
typedef struct {
  gcuba_rule r;
  int n, np;
  double *u;
} expanded;

static void expand(expanded *e, int ndim, int key)
{
  long p;
  gcuba_rule_init(&e->r, ndim, key);
  e->n = ndim;
  e->np = gcuba_rule_npoints(&e->r);
  e->u = (double *)malloc(sizeof(double) * e->np * ndim);
  for (p = 0; p < e->np; ++p) gcuba_rule_point(&e->r, p, e->u + p * ndim);
}

/* apply the rule on the box [lo, hi] to a single-component f */
static void integrate(const expanded *e, const double *lo, const double *hi,
  fun_t f, const void *par, double *avg, double *err, int *split)
{
  double *fv = (double *)malloc(sizeof(double) * e->np);
  double x[MAXD], vol = 1, w[MAXD];
  int p, i, sd;
  for (i = 0; i < e->n; ++i) {
    w[i] = hi[i] - lo[i];
    vol *= w[i];
  }
  for (p = 0; p < e->np; ++p) {
    for (i = 0; i < e->n; ++i)
      x[i] = .5 * (lo[i] + hi[i]) + .5 * w[i] * e->u[p * e->n + i];
    fv[p] = f(x, e->n, par);
  }
  sd = gcuba_rule_widest(e->n, w);
  gcuba_rule_apply(&e->r, 1, fv, vol, NULL, avg, err, &sd);
  if (split) *split = gcuba_rule_axis(sd);
  free(fv);
}

static double monomial(const double *x, int n, const void *par)
{
  const int *k = (const int *)par;
  double v = 1;
  int i, j;
  for (i = 0; i < n; ++i)
    for (j = 0; j < k[i]; ++j) v *= x[i];
  return v;
}

static double monomial_exact(const int *k, int n, const double *lo,
  const double *hi)
{
  double v = 1;
  int i;
  for (i = 0; i < n; ++i)
    v *= (pow(hi[i], k[i] + 1) - pow(lo[i], k[i] + 1)) / (k[i] + 1);
  return v;
}

/* all compositions of t into the parts i..n-1 of k, appended to out */
static int compositions(int n, int t, int i, int *k, int (*out)[MAXD],
  int cnt, int cap)
{
  int v;
  if (i == n - 1) {
    k[i] = t;
    if (cnt < cap) memcpy(out[cnt], k, sizeof(int) * MAXD);
    return cnt + 1;
  }
  for (v = t; v >= 0; --v) {
    k[i] = v;
    cnt = compositions(n, t - v, i + 1, k, out, cnt, cap);
  }
  return cnt;
}

/* exponent vectors of total degree t in n dims: all of them if there are
   at most MAXMONO, else NRANDOM random ones plus the n pure powers.
   Returns the count written to out (rows of MAXD ints). */
static int exponents(int n, int t, int (*out)[MAXD], int cap)
{
  int cnt = 0, i, k[MAXD];
  double all = 1;
  for (i = 1; i < n; ++i) all = all * (t + i) / i;     /* C(t+n-1, n-1) */
  memset(k, 0, sizeof k);
  if (all <= MAXMONO && all <= cap)
    return compositions(n, t, 0, k, out, 0, cap);
  for (i = 0; i < NRANDOM && cnt < cap; ++i) {
    int j;
    memset(out[cnt], 0, sizeof out[cnt]);
    for (j = 0; j < t; ++j) ++out[cnt][rnd((unsigned)n)];
    ++cnt;
  }
  for (i = 0; i < n && cnt < cap; ++i) {
    memset(out[cnt], 0, sizeof out[cnt]);
    out[cnt++][i] = t;
  }
  return cnt;
}

static int cmp_point_n;
static int cmp_point(const void *a, const void *b)
{
  const double *x = (const double *)a, *y = (const double *)b;
  int i;
  for (i = 0; i < cmp_point_n; ++i)
    if (x[i] != y[i]) return x[i] < y[i] ? -1 : 1;
  return 0;
}

static long ipow(long b, int e)
{
  long v = 1;
  while (e-- > 0) v *= b;
  return v;
}

/* closed-form point counts */
static long count_formula(int key, long n)
{
  switch (key) {
  case 7: return 1 + 6 * n + 2 * n * (n - 1) + (1L << n);
  case 9: return 1 + 8 * n + 6 * n * (n - 1) + 4 * n * (n - 1) * (n - 2) / 3
      + (1L << n);
  case 11: return 1 + 5 * 2 * n + 2 * 2 * n * (n - 1)
      + 3 * 4 * n * (n - 1) * (n - 2) / 3 + 2 * 4 * n * (n - 1) * (n - 2);
  default: return 1 + 5 * 2 * n + 5 * 2 * n * (n - 1) + 3 * 4 * n * (n - 1);
  }
}

/* the two test boxes: the unit cube and a skewed one (no interval is
   symmetric about 0, so no monomial integrates to zero) */
static const double box_lo[] = {0.2, -1, 0.5, -0.3, 1, -2, 0.1, -0.7};
static const double box_hi[] = {0.7, 2, 1.5, 0.9, 1.25, -0.5, 0.35, 1.1};
static const double unit_lo[MAXD] = {0, 0, 0, 0, 0, 0, 0, 0};
static const double unit_hi[MAXD] = {1, 1, 1, 1, 1, 1, 1, 1};
static const double cube_lo[MAXD] = {-1, -1, -1, -1, -1, -1, -1, -1};

/* ------------------------------------------------------------------ */
/* per-configuration checks                                              */

static void check_structure(const expanded *e, int key)
{
  const gcuba_rule *r = &e->r;
  double sw[GCUBA_RULE_NRULES] = {0, 0, 0, 0, 0}, bad = 0;
  int s, k, sum = 0, good = 1;
  for (s = 0; s < r->nsets; ++s) {
    good &= r->set[s].first == sum;
    sum += r->set[s].npts;
    for (k = 0; k < GCUBA_RULE_NRULES; ++k)
      sw[k] += r->set[s].npts * r->set[s].w[k];
  }
  bad = fabs(sw[0] - 1);
  for (k = 1; k < GCUBA_RULE_NRULES; ++k)
    if (fabs(sw[k]) > bad) bad = fabs(sw[k]);
  /* DCUHRE's/Cuba's error coefficients per rule */
  good &= key == 13 ? r->errcoeff[0] == 10 && r->errcoeff[1] == 1
      && r->errcoeff[2] == 5
    : key == 11 ? r->errcoeff[0] == 4 && r->errcoeff[1] == .5
      && r->errcoeff[2] == 3
    : r->errcoeff[0] == 5 && r->errcoeff[1] == 1 && r->errcoeff[2] == 5;
  ok(good && sum == e->np && e->np == count_formula(key, e->n)
      && gcuba_rule_degree(r) == key && bad < 1e-13,
    "key %d ndim %d: %d points in %d sets (formula %ld), weights sum to 1 "
    "and null rules to 0 (dev %.1e), error coefficients %g %g %g", key,
    e->n, e->np, r->nsets, count_formula(key, e->n), bad, r->errcoeff[0],
    r->errcoeff[1], r->errcoeff[2]);
}

/* all vectors of {0, +-a, +-b}^n with ma entries +-a and mb entries +-b */
static int brute_orbit(int n, int ma, double a, int mb, double b, double *out)
{
  long total = ipow(5, n), c;
  int cnt = 0, i;
  const double val[5] = {0, a, -a, b, -b};
  for (c = 0; c < total; ++c) {
    long cc = c;
    int na = 0, nb = 0;
    double v[MAXD];
    for (i = 0; i < n; ++i) {
      int d = (int)(cc % 5);
      cc /= 5;
      v[i] = val[d];
      na += d == 1 || d == 2;
      nb += d == 3 || d == 4;
    }
    if (na == ma && nb == mb) {
      memcpy(out + (long)cnt * n, v, sizeof(double) * n);
      ++cnt;
    }
  }
  return cnt;
}

static void check_points(const expanded *e, int key)
{
  const gcuba_rule *r = &e->r;
  int n = e->n, s, p, i, good = 1, distinct = 1, inside = 1, sets = 1;
  double *all = (double *)malloc(sizeof(double) * e->np * n);
  memcpy(all, e->u, sizeof(double) * e->np * n);
  cmp_point_n = n;
  for (p = 0; p < e->np; ++p)
    for (i = 0; i < n; ++i)
      inside &= fabs(e->u[p * n + i]) <= 1;
  qsort(all, e->np, sizeof(double) * n, cmp_point);
  for (p = 1; p < e->np; ++p)
    distinct &= cmp_point(all + (p - 1) * n, all + p * n) != 0;
  for (s = 0; s < r->nsets; ++s) {
    const gcuba_rule_set *t = &r->set[s];
    double *ref = (double *)malloc(sizeof(double) * (t->npts + 1) * n);
    int m = brute_orbit(n, t->ma, t->a, t->mb, t->b, ref);
    for (p = t->first; p < t->first + t->npts; ++p)
      sets &= gcuba_rule_set_of_point(r, p) == s;
    if (m != t->npts) {
      good = 0;
      diag("set %d: brute force %d points, rule %d", s, m, t->npts);
    }
    else if (m) {
      memcpy(all, e->u + (long)t->first * n, sizeof(double) * m * n);
      qsort(all, m, sizeof(double) * n, cmp_point);
      qsort(ref, m, sizeof(double) * n, cmp_point);
      if (memcmp(all, ref, sizeof(double) * m * n)) {
        good = 0;
        diag("set %d: points differ from the orbit", s);
      }
    }
    free(ref);
  }
  sets &= gcuba_rule_set_of_point(r, -1) == -1
    && gcuba_rule_set_of_point(r, e->np) == -1;
  ok(good && distinct && inside && sets,
    "key %d ndim %d: points distinct (%d), in [-1,1] (%d), sets = "
    "brute-force orbits (%d), set_of_point (%d)", key, n, distinct, inside,
    good, sets);
  free(all);
}

/* every monomial of degree <= deg exact on both boxes; degree deg+1 not */
static void check_exactness(const expanded *e, int key)
{
  static int ex[MAXMONO + 64][MAXD];
  const double *los[2], *his[2];
  double worst[16], over = 0, overbox = 0;
  int n = e->n, deg = gcuba_rule_degree(&e->r), t, b, m, cnt, total = 0;
  char line[400];
  int len = 0;
  los[0] = unit_lo, his[0] = unit_hi, los[1] = box_lo, his[1] = box_hi;
  for (t = 0; t <= deg + 1; ++t) {
    cnt = exponents(n, t, ex, MAXMONO + 64);
    worst[t] = 0;
    for (m = 0; m < cnt; ++m) {
      double avg, err, rel;
      if (t <= deg) {
        for (b = 0; b < 2; ++b) {
          double exact = monomial_exact(ex[m], n, los[b], his[b]);
          integrate(e, los[b], his[b], monomial, ex[m], &avg, &err, NULL);
          rel = fabs(avg - exact) / fabs(exact);
          if (rel > worst[t]) worst[t] = rel;
        }
        ++total;
      }
      else {
        /* inexact one degree up: on the centred cube [-1,1]^n (exact value
           0 for odd exponents, so use the pure even powers) and on the
           skewed box */
        int i, pure = 0;
        for (i = 0; i < n; ++i) pure |= ex[m][i] == t;
        if (!pure) continue;
        integrate(e, cube_lo, unit_hi, monomial, ex[m], &avg, &err, NULL);
        rel = fabs(avg - monomial_exact(ex[m], n, cube_lo, unit_hi))
          / fabs(monomial_exact(ex[m], n, cube_lo, unit_hi));
        if (rel > over) over = rel;
        integrate(e, box_lo, box_hi, monomial, ex[m], &avg, &err, NULL);
        rel = fabs(avg - monomial_exact(ex[m], n, box_lo, box_hi))
          / fabs(monomial_exact(ex[m], n, box_lo, box_hi));
        if (rel > overbox) overbox = rel;
      }
    }
  }
  {
    double w = 0;
    for (t = 0; t <= deg; ++t) {
      if (worst[t] > w) w = worst[t];
      len += sprintf(line + len, " %d:%.0e", t, worst[t]);
    }
    diag("key %d ndim %d worst relative error by degree:%s", key, n, line);
    ok(w < 1e-12, "key %d ndim %d: %d monomials of degree <= %d exact on "
      "[0,1]^%d and a skewed box (worst rel %.1e)", key, n, total, deg, n,
      n, w);
  }
  ok(over > 1e-6 && overbox > 1e-9, "key %d ndim %d: degree %d not exact "
    "(pure powers: rel err %.1e on [-1,1]^%d, %.1e on the skewed box)",
    key, n, deg + 1, over, n, overbox);
}

/* null rules: rules 1,2 annihilate degree deg-2, rule 3 deg-4, rule 4
   deg-6 (on [-1,1]^n, odd monomials vanish by symmetry), and each fails
   two degrees up; so the error estimate is round-off for a polynomial of
   degree deg-6 (not beyond), and clearly positive for a narrow Gaussian.
   The estimate also matches a from-scratch recomputation both for the
   Gaussian (where Cuba's recipe takes the "max" branch) and for a smooth
   function (the "fast decay" branch). */
static double gauss(const double *x, int n, const void *par)
{
  double s = 0;
  int i;
  (void)par;
  for (i = 0; i < n; ++i) s += (x[i] - .5) * (x[i] - .5);
  return exp(-50 * s);
}

static double poly(const double *x, int n, const void *par)
{
  double s = 1;
  int i;
  for (i = 0; i < n; ++i) s += .3 * (i + 1) * x[i];
  return pow(s, *(const int *)par);
}

/* The error estimate on the unit cube recomputed from scratch, point by
   point, from the per-set weights and the published recipe: null-rule
   values q_k, for each pair (k, k+1) the set-wise combinations
   q_{k+1} + c q_k with c = -w_{k+1}(s)/w_k(s) (100 if w_k(s) = 0) scaled
   by their 1-norms, the largest of them e_k, and DCUHRE's/Cuba's
   coefficients per rule. */
static double reference_error(const expanded *e, fun_t f, int *branch)
{
  const gcuba_rule *r = &e->r;
  double q[GCUBA_RULE_NRULES] = {0, 0, 0, 0, 0}, ek[3], x[MAXD], c0, c1, c2;
  int p, k, s, t, i;
  switch (r->key) {
  case 13: c0 = 10, c1 = 1, c2 = 5; break;
  case 11: c0 = 4, c1 = .5, c2 = 3; break;
  default: c0 = 5, c1 = 1, c2 = 5; break;
  }
  for (p = 0; p < e->np; ++p) {
    double v;
    for (i = 0; i < e->n; ++i) x[i] = .5 + .5 * e->u[p * e->n + i];
    v = f(x, e->n, NULL);
    for (k = 0; k < GCUBA_RULE_NRULES; ++k)
      q[k] += r->set[gcuba_rule_set_of_point(r, p)].w[k] * v;
  }
  for (k = 1; k <= 3; ++k) {
    ek[k - 1] = 0;
    for (s = 0; s < r->nsets; ++s) {
      const double *w = r->set[s].w;
      double c = w[k] == 0 ? 100 : -w[k + 1] / w[k], norm = 0, v;
      for (t = 0; t < r->nsets; ++t)
        norm += r->set[t].npts
          * fabs(r->set[t].w[k + 1] + c * r->set[t].w[k]);
      v = fabs(q[k + 1] + c * q[k]) / norm;
      if (v > ek[k - 1]) ek[k - 1] = v;
    }
  }
  if (c0 * ek[0] <= ek[1] && c0 * ek[1] <= ek[2]) {
    *branch = 1;
    return c1 * ek[0];
  }
  *branch = 2;
  return c2 * fmax(ek[0], fmax(ek[1], ek[2]));
}

static double smooth(const double *x, int n, const void *par)
{
  double s = 0;
  int i;
  (void)par;
  for (i = 0; i < n; ++i) s += x[i] / (i + 2);
  return 1 / (1 + s) + cos(s);
}

static void check_null(const expanded *e, int key)
{
  static int ex[MAXMONO + 64][MAXD];
  const gcuba_rule *r = &e->r;
  int n = e->n, deg = r->degree, k, t, m, p, cnt, good = 1;
  int nulldeg[GCUBA_RULE_NRULES];
  double kill[GCUBA_RULE_NRULES], miss[GCUBA_RULE_NRULES];
  double avg, err, exact, g1, pavg, perr, ref, savg, serr, sref;
  int b1 = 0, b2 = 0;
  int pdeg = deg - 6;
  nulldeg[0] = deg;
  nulldeg[1] = nulldeg[2] = deg - 2;
  nulldeg[3] = deg - 4;
  nulldeg[4] = deg - 6;
  for (k = 1; k < GCUBA_RULE_NRULES; ++k) {
    kill[k] = 0;
    miss[k] = 0;
    for (t = 0; t <= nulldeg[k] + 2; t += 2) {
      cnt = exponents(n, t, ex, MAXMONO + 64);
      for (m = 0; m < cnt; ++m) {
        double q = 0, mag = 0;
        for (p = 0; p < e->np; ++p) {
          double v = monomial(e->u + p * n, n, ex[m]);
          double w = r->set[gcuba_rule_set_of_point(r, p)].w[k];
          q += w * v;
          mag += fabs(w * v);
        }
        if (t <= nulldeg[k]) {
          if (fabs(q) / mag > kill[k]) kill[k] = fabs(q) / mag;
        }
        else if (fabs(q) / mag > miss[k])
          miss[k] = fabs(q) / mag;
      }
    }
    good &= kill[k] < 1e-13 && miss[k] > 1e-6;
  }
  ok(good, "key %d ndim %d: null rules of degree %d,%d,%d,%d (residual "
    "%.0e %.0e %.0e %.0e, two degrees up %.0e %.0e %.0e %.0e)", key, n,
    nulldeg[1], nulldeg[2], nulldeg[3], nulldeg[4], kill[1], kill[2],
    kill[3], kill[4], miss[1], miss[2], miss[3], miss[4]);

  integrate(e, box_lo, box_hi, poly, &pdeg, &pavg, &perr, NULL);
  integrate(e, unit_lo, unit_hi, gauss, NULL, &avg, &err, NULL);
  g1 = sqrt(acos(-1.) / 50) * erf(.5 * sqrt(50.));
  exact = pow(g1, n);
  ref = reference_error(e, gauss, &b1);
  integrate(e, unit_lo, unit_hi, smooth, NULL, &savg, &serr, NULL);
  sref = reference_error(e, smooth, &b2);
  ok(perr <= 1e-13 * fabs(pavg) && err > 1e-3 * exact
      && fabs(err - ref) <= 1e-10 * ref + 1e-14 * fabs(avg) && b1 == 2
      && fabs(serr - sref) <= 1e-10 * sref + 1e-14 * fabs(savg) && b2 == 1,
    "key %d ndim %d: error estimate %.1e for a degree %d polynomial; "
    "%.3e for exp(-50 r^2) (true error %.1e), recomputed %.3e; smooth f "
    "%.5e, recomputed %.5e", key, n, perr, pdeg, err, fabs(avg - exact),
    ref, serr, sref);
  /* above degree deg-6 the lower-degree null rules see the polynomial:
     the estimate is then not round-off even though avg is exact */
  pdeg = deg;
  integrate(e, box_lo, box_hi, poly, &pdeg, &pavg, &perr, NULL);
  diag("key %d ndim %d: degree %d polynomial: estimate %.1e (relative "
    "%.1e), not round-off", key, n, deg, perr, perr / fabs(pavg));
}

/* split axis, per-component output, fallback, and the lower-level calls */
typedef struct { int k; double c; } axisfun_par;

static double axisfun(const double *x, int n, const void *par)
{
  const axisfun_par *a = (const axisfun_par *)par;
  (void)n;
  return exp(a->c * x[a->k]);
}

static void check_split(const expanded *e, int key)
{
  const gcuba_rule *r = &e->r;
  int n = e->n, k, p, i, c, s, good = 1, multi = 1, same = 1, axes = 1;
  int split[3], fb;
  double avg, err;
  for (k = 0; k < n; ++k) {
    axisfun_par a;
    a.k = k;
    a.c = 3;
    integrate(e, box_lo, box_hi, axisfun, &a, &avg, &err, split);
    good &= split[0] == k;
  }
  /* fourth differences: zero for a quadratic along any axis; for u_k^4
     exactly |2 ratio a1^4 - 2 a2^4| on axis k and 0 on the others */
  {
    double *g = (double *)malloc(sizeof(double) * e->np);
    double a1 = r->set[1].a, a2 = r->set[2].a, rt = (a2 / a1) * (a2 / a1);
    double want = fabs(2 * rt * pow(a1, 4) - 2 * pow(a2, 4)), dev = 0;
    for (k = 0; k < n; ++k) {
      for (p = 0; p < e->np; ++p) {
        double v = e->u[p * n + k];
        g[p] = v * v * v * v;
      }
      for (i = 0; i < n; ++i)
        dev = fmax(dev, fabs(gcuba_rule_fourthdiff(r, i, g[0], g + 1)
          - (i == k ? want : 0)) / want);
      for (p = 0; p < e->np; ++p) {
        double v = e->u[p * n + k], w = e->u[p * n + (k + 1) % n];
        g[p] = 2 - 3 * v + .7 * v * v + 5 * w * v;
      }
      for (i = 0; i < n; ++i)
        dev = fmax(dev, gcuba_rule_fourthdiff(r, i, g[0], g + 1) / 10);
    }
    good &= dev < 1e-13;
    free(g);
  }
  /* where each axis point lies */
  for (k = 0; k < n; ++k)
    for (i = 0; i < 4; ++i) {
      int q = gcuba_rule_axis_point(r, k, i), d;
      const gcuba_rule_set *t = &r->set[1 + i / 2];
      for (d = 0; d < n; ++d)
        axes &= e->u[q * n + d] == (d != k ? 0 : i & 1 ? -t->a : t->a);
    }
  /* three components: exp(3 x_k), exp(-2 x_j), constant; on the unit box */
  {
    int ncomp = 3, kk = n - 1, jj = n / 2;
    double *f = (double *)malloc(sizeof(double) * e->np * ncomp);
    double *one = (double *)malloc(sizeof(double) * e->np);
    double *fax = (double *)malloc(sizeof(double) * 4 * n);
    double a3[3], e3[3], setsum[GCUBA_RULE_MAXSETS];
    for (p = 0; p < e->np; ++p) {
      double x[MAXD];
      for (i = 0; i < n; ++i) x[i] = .5 + .5 * e->u[p * n + i];
      f[p * ncomp] = exp(3 * x[kk]);
      f[p * ncomp + 1] = exp(-2 * x[jj]);
      f[p * ncomp + 2] = 1.5;
    }
    fb = n - 2;
    split[0] = fb;
    gcuba_rule_apply(r, ncomp, f, 1, NULL, a3, e3, split);
    for (c = 0; c < ncomp; ++c) split[c] = gcuba_rule_axis(split[c]);
    multi = split[0] == kk && split[1] == jj && split[2] == fb;
    /* the same numbers from gcuba_rule_combine / gcuba_rule_fourthdiff */
    for (c = 0; c < ncomp; ++c) {
      double a1, e1, best = 0;
      int sd = fb;
      for (p = 0; p < e->np; ++p) one[p] = f[p * ncomp + c];
      for (s = 0; s < r->nsets; ++s) {
        setsum[s] = 0;
        for (p = r->set[s].first; p < r->set[s].first + r->set[s].npts; ++p)
          setsum[s] += one[p];
      }
      gcuba_rule_combine(r, setsum, 1, 0, 0, &a1, &e1);
      for (i = 0; i < 4 * n; ++i) fax[i] = one[1 + i];
      for (k = 0; k < n; ++k) {
        double v = gcuba_rule_fourthdiff(r, k, one[0], fax);
        if (v > best) {
          best = v;
          sd = k;
        }
      }
      same &= a1 == a3[c] && e1 == e3[c] && sd == split[c]
        && sd == gcuba_rule_splitdim(r, one[0], one + 1, 1, fb);
    }
    /* NULL splitdim is allowed */
    gcuba_rule_apply(r, ncomp, f, 1, NULL, a3, e3, NULL);
    free(f);
    free(one);
    free(fax);
  }
  ok(good && multi && same && axes, "key %d ndim %d: split axis of "
    "exp(3 x_k) is k for all k (%d); per component + fallback (%d); "
    "combine/fourthdiff agree with apply (%d); axis points (%d)", key, n,
    good, multi, same, axes);
}

/* ------------------------------------------------------------------ */
/* global checks                                                         */

static void check_select(void)
{
  /* (ndim, key) -> degree, as Cuba's Cuhre chooses */
  static const int tab[][3] = {
    {2, 0, 13}, {3, 0, 11}, {4, 0, 9}, {9, 0, 9}, {2, 13, 13}, {3, 13, 11},
    {5, 13, 9}, {3, 11, 11}, {2, 11, 13}, {4, 11, 9}, {2, 9, 9}, {3, 9, 9},
    {7, 9, 9}, {2, 7, 7}, {3, 7, 7}, {12, 7, 7}, {2, 5, 13}, {3, 1, 11},
    {4, -7, 9}, {6, 8, 9}
  };
  unsigned i;
  int good = 1;
  gcuba_rule r;
  for (i = 0; i < sizeof tab / sizeof tab[0]; ++i) {
    int rc = gcuba_rule_init(&r, tab[i][0], tab[i][1]);
    if (rc || r.degree != tab[i][2] || r.key != tab[i][2]) {
      good = 0;
      diag("ndim %d key %d: rc %d degree %d, expected %d", tab[i][0],
        tab[i][1], rc, r.degree, tab[i][2]);
    }
  }
  ok(good, "key selection as in Cuba (default 13/11/9, 9 and 7 in any "
    "ndim, fallback otherwise)");
  good = gcuba_rule_init(&r, 0, 7) == -1 && r.npoints == 0
    && gcuba_rule_init(&r, -3, 9) == -1
    && gcuba_rule_init(&r, GCUBA_RULE_MAXDIM + 1, 7) == -1
    && gcuba_rule_init(&r, GCUBA_RULE_MAXDIM, 9) == 0;
  ok(good, "init rejects ndim < 1 and > %d", GCUBA_RULE_MAXDIM);
  good = gcuba_rule_init(&r, 1, 15) == 0 && r.key == 15 && r.npoints == 15
    && gcuba_rule_init(&r, 1, 0) == 0 && r.key == 21 && r.npoints == 21
    && gcuba_rule_init(&r, 1, 7) == 0 && r.key == 21
    && gcuba_rule_init(&r, 1, 13) == 0 && r.key == 21;
  ok(good, "ndim 1: key 15 gives G7-K15, any other key G10-K21");
}

static void check_counts(void)
{
  int n, key, good = 1;
  gcuba_rule r;
  for (key = 7; key <= 9; key += 2)
    for (n = 2; n <= GCUBA_RULE_MAXDIM; ++n) {
      gcuba_rule_init(&r, n, key);
      good &= gcuba_rule_npoints(&r) == count_formula(key, n);
    }
  gcuba_rule_init(&r, 8, 9);
  good &= r.npoints == 1105;
  gcuba_rule_init(&r, 8, 7);
  good &= r.npoints == 417;
  gcuba_rule_init(&r, 3, 11);
  good &= r.npoints == 127;
  gcuba_rule_init(&r, 2, 13);
  good &= r.npoints == 65;
  ok(good, "point counts for keys 7, 9 in ndim 2..%d match the formulas "
    "(1105 for key 9 in 8D, 127 for key 11, 65 for key 13)",
    GCUBA_RULE_MAXDIM);
  /* the largest rule: last point in range, the corner orbit's last point */
  {
    double u[GCUBA_RULE_MAXDIM];
    int i, corner = 1;
    gcuba_rule_init(&r, GCUBA_RULE_MAXDIM, 7);
    gcuba_rule_point(&r, r.npoints - 1, u);
    for (i = 0; i < GCUBA_RULE_MAXDIM; ++i)
      corner &= u[i] == -r.set[r.nsets - 1].a;
    /* then the 2 ndim boundary probes +-pu e_d, then the centre */
    corner &= r.nprobe == 2 * GCUBA_RULE_MAXDIM;
    gcuba_rule_point(&r, r.npoints + 2 * 3 + 1, u);
    for (i = 0; i < GCUBA_RULE_MAXDIM; ++i)
      corner &= u[i] == (i == 3 ? -r.pu : 0);
    corner &= r.pu > r.set[1].a && r.pu < 1;
    gcuba_rule_point(&r, r.npoints + r.nprobe, u);
    for (i = 0; i < GCUBA_RULE_MAXDIM; ++i) corner &= u[i] == 0;
    ok(corner, "ndim %d: %d points, last point -a(1,...,1), then %d probes "
      "(-pu e_3 is probe 7), out of range gives the centre",
      GCUBA_RULE_MAXDIM, r.npoints, r.nprobe);
  }
  diag("sizeof(gcuba_rule) = %u bytes (any ndim)",
    (unsigned)sizeof(gcuba_rule));
  ok(sizeof(gcuba_rule) <= 4096, "gcuba_rule is small");
}

/* One dimension: the Gauss-Kronrod pairs.  Kronrod exact to degree
   3n+1, Gauss to 2m-1 (K15/G7: 23/13, K21/G10: 31/19) and not beyond;
   the points symmetric in (-1, 1); the estimate and its error on smooth
   and rough functions; the probes. */
static double gk_sum(const gcuba_rule *r, int k, int which, double *fv)
{
  double s = 0, u[1];
  int p;
  for (p = 0; p < r->npoints; ++p) {
    int set = gcuba_rule_set_of_point(r, p);
    gcuba_rule_point(r, p, u);
    s += r->set[set].w[which] * pow(u[0], k);
    if (fv) fv[p] = pow(u[0], k);
  }
  return s;
}

static void check_gk(void)
{
  static const int keys[2] = {15, 21};
  int i, k, p;
  for (i = 0; i < 2; ++i) {
    gcuba_rule r;
    double worst[2] = {0, 0}, beyond[2] = {0, 0}, u[1], wsum = 0;
    const int dk = keys[i] == 15 ? 23 : 31, dg = keys[i] == 15 ? 13 : 19;
    int sym = 1, inside = 1;
    gcuba_rule_init(&r, 1, keys[i]);
    for (k = 0; k <= dk + 1; ++k) {
      /* the mean of u^k over (-1, 1): 1/(k+1) for even k, 0 for odd */
      double exact = k % 2 ? 0 : 1.0 / (k + 1);
      double ek = fabs(gk_sum(&r, k, 0, NULL) - exact);
      double eg = fabs(gk_sum(&r, k, 1, NULL) - exact);
      if (k <= dk && ek > worst[0]) worst[0] = ek;
      if (k <= dg && eg > worst[1]) worst[1] = eg;
      if (k == dk + 1) beyond[0] = ek;
      if (k == dg + 1) beyond[1] = eg;
    }
    ok(worst[0] < 4e-16 && worst[1] < 4e-16 && beyond[0] > 1e-13 &&
       beyond[1] > 1e-13,
       "K%d exact to degree %d (worst %.2g, degree %d off by %.2g), "
       "G%d to %d (worst %.2g, next off by %.2g)", keys[i], dk, worst[0],
       dk + 1, beyond[0], keys[i] == 15 ? 7 : 10, dg, worst[1],
       beyond[1]);
    for (p = 0; p < r.npoints; ++p) {
      double v[1];
      gcuba_rule_point(&r, p, u);
      wsum += r.set[gcuba_rule_set_of_point(&r, p)].w[0];
      if (!(fabs(u[0]) < 1)) inside = 0;
      if (p > 0 && p % 2 == 1) {
        gcuba_rule_point(&r, p + 1, v);
        if (v[0] != -u[0]) sym = 0;
      }
    }
    ok(sym && inside && fabs(wsum - 1) < 1e-15 &&
       gcuba_rule_nevals(&r) == r.npoints + 2,
       "K%d: %d points in (-1, 1), symmetric, weights sum to 1, 2 probes",
       keys[i], r.npoints);
    {
      /* f = e^u on a region of volume 2 ((-1, 1)): estimate and error;
         f = |u - 0.3|: the error covers the true one */
      double f[32], avg, err, e1, d;
      int dims = 5;
      const int np = gcuba_rule_nevals(&r);
      for (p = 0; p < np; ++p) {
        gcuba_rule_point(&r, p, u);
        f[p] = exp(u[0]);
      }
      gcuba_rule_apply(&r, 1, f, 2, NULL, &avg, &err, &dims);
      e1 = fabs(avg - (exp(1) - exp(-1)));
      ok(e1 < 1e-15 && err >= e1 && err < 1e-14 && dims == 0,
         "K%d on e^u over (-1, 1): error %.2g, estimate %.2g (the rounding "
         "floor), split axis 0", keys[i], e1, err);
      for (p = 0; p < np; ++p) {
        gcuba_rule_point(&r, p, u);
        f[p] = fabs(u[0] - 0.3);
      }
      gcuba_rule_apply(&r, 1, f, 2, NULL, &avg, &err, NULL);
      d = fabs(avg - (1.3 * 1.3 + 0.7 * 0.7) / 2);
      ok(d > 1e-5 && err >= d, "K%d on |u - 0.3|: error %.2g, estimate "
         "%.2g", keys[i], d, err);
      /* a kink between the outermost node and the end: only the probe
         sees it, and the estimate covers what the rule misses */
      for (p = 0; p < np; ++p) {
        gcuba_rule_point(&r, p, u);
        f[p] = u[0] > 0.9999 ? u[0] - 0.9999 : 0;
      }
      gcuba_rule_apply(&r, 1, f, 2, NULL, &avg, &err, NULL);
      d = 0.5 * 1e-4 * 1e-4;
      ok(avg == 0 && err >= d, "K%d: a kink at 0.9999 seen by the probe "
         "alone: estimate %.2g for a true error %.2g", keys[i], err, d);
    }
  }
  {
    /* the bisection check: children that disagree with their parent by
       more than its error take the difference as theirs */
    double e1 = 3e-5, e2 = 3e-5;
    gcuba_gk_twolevel(1.0, 1e-4, 0.5, &e1, 0.49995, &e2);
    ok(e1 == 3e-5 && e2 == 3e-5, "GK bisection check: a difference within "
       "the parent's error and the children's changes nothing");
    gcuba_gk_twolevel(1.0, 1e-4, 0.5, &e1, 0.499, &e2);
    ok(fabs(e1 - 1e-3) < 1e-15 && fabs(e2 - 1e-3) < 1e-15,
       "GK bisection check: a difference 1e-3 above the parent's error "
       "1e-4 becomes each child's error");
    e1 = 1e-9;
    e2 = 2e-9;
    gcuba_gk_twolevel(1.0, 1e-4, 0.5, &e1, 0.49995, &e2);
    ok(fabs(e1 - 5e-5) < 1e-15 && fabs(e2 - 5e-5) < 1e-15,
       "GK bisection check: a difference 5e-5 above the children's errors "
       "becomes each child's error");
  }
}

int main(void)
{
  static const int configs[][2] = {
    {7, 2}, {7, 3}, {7, 5}, {7, 8}, {9, 2}, {9, 3}, {9, 4}, {9, 6}, {9, 8},
    {11, 3}, {13, 2}
  };
  unsigned i;
  (void)skip_all;       /* tap.h helper this program has no use for */
  plan(0);
  for (i = 0; i < sizeof configs / sizeof configs[0]; ++i) {
    expanded e;
    int key = configs[i][0], n = configs[i][1];
    expand(&e, n, key);
    check_structure(&e, key);
    check_points(&e, key);
    check_exactness(&e, key);
    check_null(&e, key);
    check_split(&e, key);
    free(e.u);
  }
  check_select();
  check_counts();
  check_gk();
  return done();
}
