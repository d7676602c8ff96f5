/* bench/genz.h -- Genz's six test families as run by the test in Cuba's
   manual: the integrand, parametrised by a struct genz_instance; a
   deterministic instance generator; the analytic value of every instance
   and an independent check of it by one-dimensional quadratures.  Header
   only, plain C99; compiles as C++ and under nvcc (the integrand is
   __host__ __device__, the rest host code).

   The protocol (T. Hahn, Cuba manual, section "Tests and Comparisons",
   and Cuba 4.2's demo/testsuite.m, after A. Genz, "A package for testing
   multiple integration subroutines", 1987), on [0,1]^d:
     1 oscillatory     cos(2 pi u_1 + sum a_i x_i)
     2 product peak    prod 1 / (a_i^-2 + (x_i - u_i)^2)
     3 corner peak     (1 + sum a_i x_i)^-(d+1)
     4 Gaussian        exp(-sum a_i^2 (x_i - u_i)^2)
     5 C0              exp(-sum a_i |x_i - u_i|)
     6 discontinuous   0 if x_1 > u_1 or x_2 > u_2, else exp(sum a_i x_i)
   u_i and the a_i before scaling are uniform random numbers; the a_i are
   then scaled so that sum a_i is the family's difficulty, the same for
   every d: 6.0, 18.0, 2.2, 15.2, 16.1, 16.4 (the manual's table and
   testsuite.m's `difficulty').  The manual's test: d = 5, 8, 10, 20
   instances per family, epsrel 1e-3, at most 150000 samples.  (Genz's
   TESTPACK scales instead to h_j / d^e_j with h = 110, 600, 600, 100,
   150, 100 and e = 1.5, 2, 2, 1, 2, 2; Novak and Ritter use 9.0, 7.25,
   1.85, 7.03, 2.04, 4.3.  Not used here.)

   Instances: genz_make(&g, seed, d, family, k) draws u_1..u_d, then the
   raw a_1..a_d, from splitmix64 started at a key made from (seed, d,
   family, k), so every program makes the same instance k whatever else
   it draws.  GENZ_SEED (4711, testsuite.m's) is the protocol's seed.

   Use:
     gcuba:  GENZ_GCUBA_INTEGRAND(genz_c)   after #include "gcuba.h":
             defines the gintegrand_t genz_c; pass &g as userdata (and
             gcuba_userdata_size(sizeof g) for the GPU, where the struct
             is copied).
     Cuba:   Cuhre(d, 1, (integrand_t)genz_integrand, &g, ...).

   This file is part of gcuba. */
#ifndef GCUBA_BENCH_GENZ_H
#define GCUBA_BENCH_GENZ_H

#include <math.h>
#include <stdint.h>
#include <float.h>

#if defined(__CUDACC__)
#define GENZ_HD __host__ __device__
#else
#define GENZ_HD
#endif

#define GENZ_MAXDIM 20
#define GENZ_NFAMILIES 6
#define GENZ_SEED 4711ULL

/* sum_i a_i of family 1..6 (Cuba's manual, table "tab:comp") */
static const double genz_difficulty[GENZ_NFAMILIES] = {6.0,  18.0, 2.2,
                                                       15.2, 16.1, 16.4};
static const char *const genz_names[GENZ_NFAMILIES] = {
    "oscillatory", "productpeak", "cornerpeak",
    "gaussian",    "c0",          "discontinuous"};

struct genz_instance {
  int d;                  /* dimension, 1..GENZ_MAXDIM */
  int family;             /* 1..6 */
  double a[GENZ_MAXDIM];  /* affective parameters, > 0, sum = difficulty */
  double u[GENZ_MAXDIM];  /* non-affective parameters, in [0,1) */
};

/* ---- the integrand (host and device) ------------------------------ */

GENZ_HD static inline double genz_f(const struct genz_instance *g,
                                    const double *x)
{
  const int d = g->d;
  double s = 0, p = 1;
  int i;
  switch (g->family) {
  case 1:
    for (i = 0; i < d; ++i) s += g->a[i] * x[i];
    return cos(6.283185307179586476925 * g->u[0] + s);
  case 2:
    for (i = 0; i < d; ++i) {
      double t = x[i] - g->u[i], ia = 1 / g->a[i];
      p *= ia * ia + t * t;
    }
    return 1 / p;
  case 3:
    s = 1;
    for (i = 0; i < d; ++i) s += g->a[i] * x[i];
    for (i = 0; i <= d; ++i) p *= s;
    return 1 / p;
  case 4:
    for (i = 0; i < d; ++i) {
      double t = g->a[i] * (x[i] - g->u[i]);
      s += t * t;
    }
    return exp(-s);
  case 5:
    for (i = 0; i < d; ++i) s += g->a[i] * fabs(x[i] - g->u[i]);
    return exp(-s);
  case 6:
    if (x[0] > g->u[0] || (d > 1 && x[1] > g->u[1])) return 0;
    for (i = 0; i < d; ++i) s += g->a[i] * x[i];
    return exp(s);
  }
  return 0;
}

/* Cuba's integrand_t; userdata is the struct genz_instance.  -999 (abort)
   when *ndim is not the instance's dimension. */
GENZ_HD static inline int genz_integrand(const int *ndim, const double x[],
                                         const int *ncomp, double f[],
                                         void *userdata)
{
  const struct genz_instance *g = (const struct genz_instance *)userdata;
  (void)ncomp;
  if (*ndim != g->d) return -999;
  f[0] = genz_f(g, x);
  return 0;
}

/* GENZ_GCUBA_INTEGRAND(name): the gcuba integrand object `name' (needs
   gcuba.h) */
#define GENZ_GCUBA_INTEGRAND(name)                                             \
  GCUBA_INTEGRAND(name)(const int *ndim, const double x[], const int *ncomp,  \
                        double f[], void *userdata)                           \
  {                                                                            \
    return genz_integrand(ndim, x, ncomp, f, userdata);                       \
  }

/* ---- instances (host) --------------------------------------------- */

static inline uint64_t genz_splitmix64(uint64_t *s)
{
  uint64_t z = (*s += 0x9E3779B97F4A7C15ULL);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
  return z ^ (z >> 31);
}

/* instance k (0, 1, ...) of family 1..6 in d dimensions; 0, or -1 for
   arguments out of range */
static inline int genz_make(struct genz_instance *g, uint64_t seed, int d,
                            int family, int k)
{
  uint64_t s, key;
  double raw[GENZ_MAXDIM], sum = 0;
  int i;
  g->d = g->family = 0;
  for (i = 0; i < GENZ_MAXDIM; ++i) g->a[i] = g->u[i] = 0;
  if (d < 1 || d > GENZ_MAXDIM || family < 1 || family > GENZ_NFAMILIES ||
      k < 0)
    return -1;
  /* the key: seed, then (d, family, k) mixed in, each through splitmix */
  s = seed;
  key = genz_splitmix64(&s);
  s = key ^ (((uint64_t)d << 48) | ((uint64_t)family << 40) | (uint64_t)k);
  key = genz_splitmix64(&s);
  s = key;
  g->d = d;
  g->family = family;
  for (i = 0; i < d; ++i) /* [0,1) */
    g->u[i] = (double)(genz_splitmix64(&s) >> 11) * (1.0 / 9007199254740992.0);
  for (i = 0; i < d; ++i) { /* (0,1] */
    raw[i] = (double)((genz_splitmix64(&s) >> 11) + 1) *
             (1.0 / 9007199254740992.0);
    sum += raw[i];
  }
  for (i = 0; i < d; ++i) g->a[i] = raw[i] * genz_difficulty[family - 1] / sum;
  return 0;
}

/* family number from "1".."6" or a name (or a prefix of one of 3 or more
   letters: "osc", "gauss", "disc"); 0 if none */
static inline int genz_family_of(const char *s, int len)
{
  int f, i;
  if (len == 1 && s[0] >= '1' && s[0] <= '0' + GENZ_NFAMILIES)
    return s[0] - '0';
  for (f = 0; f < GENZ_NFAMILIES; ++f) {
    const char *n = genz_names[f];
    if (len < 2 || (len < 3 && f != 4)) continue;
    for (i = 0; i < len && n[i] && n[i] == s[i]; ++i) continue;
    if (i == len) return f + 1;
  }
  return 0;
}

/* ---- analytic values (host, long double) -------------------------- */

#define GENZ_PI_L 3.14159265358979323846264338327950288L

/* the corner peak by inclusion-exclusion over the 2^d corners:
     I = sum_{S subset of 1..d} (-1)^|S| / (1 + sum_{i in S} a_i)
         / (d! prod a_i)
   The sum cancels (at d = 10 it is about 1e-4 of its largest terms);
   *cond gets sum |terms| / |sum|, so that cond * LDBL_EPSILON bounds the
   relative rounding error. */
static inline long double genz_corner_ie(const struct genz_instance *g,
                                         long double *cond)
{
  const int d = g->d;
  long double sum = 0, abssum = 0, den = 1;
  unsigned long m, n = 1UL << d;
  int i;
  for (m = 0; m < n; ++m) {
    long double s = 1, t;
    int par = 0;
    for (i = 0; i < d; ++i)
      if (m >> i & 1) {
        s += g->a[i];
        par ^= 1;
      }
    t = 1 / s;
    sum += par ? -t : t;
    abssum += t;
  }
  for (i = 0; i < d; ++i) den *= (long double)(i + 1) * g->a[i];
  if (cond) *cond = sum != 0 ? abssum / fabsl(sum) : HUGE_VALL;
  return sum / den;
}

/* the value of the integral over [0,1]^d */
static inline double genz_truth(const struct genz_instance *g)
{
  const int d = g->d;
  long double v = 1, s = 0;
  int i;
  switch (g->family) {
  case 1: /* Re e^{2 pi i u_1} prod (e^{i a} - 1)/(i a)
             = cos(2 pi u_1 + sum a/2) prod sin(a/2)/(a/2) */
    for (i = 0; i < d; ++i) {
      long double h = 0.5L * g->a[i];
      v *= sinl(h) / h;
      s += h;
    }
    return (double)(v * cosl(2 * GENZ_PI_L * g->u[0] + s));
  case 2: /* prod a (atan(a (1 - u)) + atan(a u)) */
    for (i = 0; i < d; ++i) {
      long double a = g->a[i], u = g->u[i];
      v *= a * (atanl(a * (1 - u)) + atanl(a * u));
    }
    return (double)v;
  case 3:
    return (double)genz_corner_ie(g, 0);
  case 4: /* prod sqrt(pi)/(2 a) (erf(a (1 - u)) + erf(a u)) */
    for (i = 0; i < d; ++i) {
      long double a = g->a[i], u = g->u[i];
      v *= sqrtl(GENZ_PI_L) / (2 * a) * (erfl(a * (1 - u)) + erfl(a * u));
    }
    return (double)v;
  case 5: /* prod (2 - e^{-a u} - e^{-a (1 - u)}) / a */
    for (i = 0; i < d; ++i) {
      long double a = g->a[i], u = g->u[i];
      v *= (-expm1l(-a * u) - expm1l(-a * (1 - u))) / a;
    }
    return (double)v;
  case 6: /* prod (e^{a w} - 1) / a, w = u for i = 1, 2 and 1 above */
    for (i = 0; i < d; ++i) {
      long double a = g->a[i], w = i < 2 ? (long double)g->u[i] : 1.0L;
      v *= expm1l(a * w) / a;
    }
    return (double)v;
  }
  return NAN;
}

/* ---- an independent check of genz_truth (host) -------------------- */

/* composite 20-point Gauss-Legendre over [lo, hi] in np panels of
   f(t, g, k); nodes by Newton's method on P_20 */
#define GENZ_GL_N 20
static inline long double genz_gl(long double (*f)(long double,
                                                   const struct genz_instance *,
                                                   int),
                                  const struct genz_instance *g, int k,
                                  long double lo, long double hi, int np)
{
  long double x[GENZ_GL_N], w[GENZ_GL_N], sum = 0, h = (hi - lo) / np;
  int i, j, it, p;
  for (i = 0; i < GENZ_GL_N; ++i) {
    long double z = cosl(GENZ_PI_L * (i + 0.75L) / (GENZ_GL_N + 0.5L)), dp = 1;
    for (it = 0; it < 100; ++it) {
      long double p0 = 1, p1 = z, dz;
      for (j = 2; j <= GENZ_GL_N; ++j) {
        long double p2 = ((2 * j - 1) * z * p1 - (j - 1) * p0) / j;
        p0 = p1;
        p1 = p2;
      }
      dp = GENZ_GL_N * (z * p1 - p0) / (z * z - 1);
      dz = p1 / dp;
      z -= dz;
      if (fabsl(dz) <= 4 * LDBL_EPSILON) break;
    }
    x[i] = z;
    w[i] = 2 / ((1 - z * z) * dp * dp);
  }
  for (p = 0; p < np; ++p) {
    long double c = lo + (p + 0.5L) * h;
    for (i = 0; i < GENZ_GL_N; ++i) sum += w[i] * f(c + 0.5L * h * x[i], g, k);
  }
  return sum * 0.5L * h;
}

/* one-dimensional factors; k: the axis (family 1: k >= 100 + i is the
   sine part of axis i; family 3: the Laplace-transform integrand) */
static inline long double genz_1d_(long double t,
                                   const struct genz_instance *g, int k)
{
  long double a, u, r;
  int i;
  switch (g->family) {
  case 1:
    return k >= 100 ? sinl(g->a[k - 100] * t) : cosl(g->a[k] * t);
  case 2:
    a = g->a[k], u = g->u[k];
    return 1 / (1 / (a * a) + (t - u) * (t - u));
  case 3: /* t^d e^-t / d! prod (1 - e^{-a t}) / (a t) */
    r = expl(-t);
    for (i = 0; i < g->d; ++i) {
      long double at = g->a[i] * t;
      r *= t / (i + 1) * (at > 0 ? -expm1l(-at) / at : 1);
    }
    return r;
  case 4:
    a = g->a[k], u = g->u[k];
    return expl(-a * a * (t - u) * (t - u));
  case 5:
    a = g->a[k], u = g->u[k];
    return expl(-a * fabsl(t - u));
  case 6:
    return expl(g->a[k] * t);
  }
  return 0;
}

/* the integral by one-dimensional quadratures, independent of
   genz_truth's closed forms: families 2, 4, 5, 6 as products of 1-D
   integrals (split at u_i), 1 as the real part of a product of complex
   1-D integrals, 3 through (1 + s)^-(d+1) = int_0^inf t^d e^{-t(1+s)}
   dt / d!, one integral over t without cancellation */
static inline double genz_truth_1d(const struct genz_instance *g)
{
  const int d = g->d, np = 64;
  long double v = 1, re = 1, im = 0;
  int i;
  if (g->family == 3)
    return (double)genz_gl(genz_1d_, g, 0, 0, 120 + 4 * d, 256);
  for (i = 0; i < d; ++i) {
    long double u = g->u[i];
    switch (g->family) {
    case 1: {
      long double c = genz_gl(genz_1d_, g, i, 0, 1, np);
      long double s = genz_gl(genz_1d_, g, 100 + i, 0, 1, np);
      long double r2 = re * c - im * s;
      im = re * s + im * c;
      re = r2;
      break;
    }
    case 2: case 4: case 5:
      v *= (u > 0 ? genz_gl(genz_1d_, g, i, 0, u, np) : 0) +
           genz_gl(genz_1d_, g, i, u, 1, np);
      break;
    case 6:
      v *= genz_gl(genz_1d_, g, i, 0, i < 2 ? u : 1, np);
      break;
    }
  }
  if (g->family == 1) {
    long double ph = 2 * GENZ_PI_L * g->u[0];
    return (double)(re * cosl(ph) - im * sinl(ph));
  }
  return (double)v;
}

#endif
