/* tests/romberg-cases.h -- the gRomberg test integrands with their true
   values, shared by tests/test-romberg.c (compiled by cc, and by nvcc for
   test-romberg-gpu) and bench/bench-romberg.c.  Each true value was
   computed with mpmath 1.3.0 at 45 digits (mp.dps = 45, mpmath.quad over
   [0, 1], I2 also split at 1e-6, 1e-3, 0.1, 0.5: the two agree to 4e-43),
   or from the closed form given.  This file is part of gcuba. */
#ifndef GCUBA_TESTS_ROMBERG_CASES_H
#define GCUBA_TESTS_ROMBERG_CASES_H
#include <math.h>
#include "gcuba.h"

/* I1 = int_0^1 e^{cos x} dx (mpmath) */
#define ROMB_I1 2.34157484171305316492297518622
/* I2 = int_0^1 sqrt(exp(cos(x^(x^x)))) dx (mpmath, see above) */
#define ROMB_I2 1.50229711959829043968189622098
/* int_0^1 e^{sin 2 pi x} dx = I_0(1), modified Bessel function */
#define ROMB_PER 1.26606587775200833559824462521
/* int_0^1 cos(100 x) dx = sin(100)/100 */
#define ROMB_COS100 -0.0050636564110975879365655761046
/* int_0^1 exp(-(x - 0.3)^2 / (2 0.01^2)) dx
   = 0.01 sqrt(pi/2) (erf(70/sqrt 2) + erf(30/sqrt 2)) */
#define ROMB_PEAK 0.0250662827463100050241576528481

GCUBA_INTEGRAND(romb_i1)(const int *ndim, const double x[], const int *ncomp,
                         double f[], void *userdata)
{
  f[0] = exp(cos(x[0]));
  return 0;
}

GCUBA_INTEGRAND(romb_i2)(const int *ndim, const double x[], const int *ncomp,
                         double f[], void *userdata)
{
  f[0] = sqrt(exp(cos(pow(x[0], pow(x[0], x[0])))));
  return 0;
}

/* 4x^3 - 3x^2 + 2x + 1: integral 1 - 1 + 1 + 1 = 2.  Exact values at the
   dyadic points up to level 17 (Horner, contracted or not): the same
   bits on every compiler and device */
GCUBA_INTEGRAND(romb_cubic)(const int *ndim, const double x[],
                            const int *ncomp, double f[], void *userdata)
{
  const double t = x[0];
  f[0] = ((4 * t - 3) * t + 2) * t + 1;
  return 0;
}

/* degree 9: 10 x^9 + 1, integral 2; exact from column 4 of the table */
GCUBA_INTEGRAND(romb_poly9)(const int *ndim, const double x[],
                            const int *ncomp, double f[], void *userdata)
{
  const double t = x[0], t2 = t * t, t4 = t2 * t2;
  f[0] = 10 * t4 * t4 * t + 1;
  return 0;
}

GCUBA_INTEGRAND(romb_per)(const int *ndim, const double x[],
                          const int *ncomp, double f[], void *userdata)
{
  f[0] = exp(sin(2 * 3.14159265358979323846 * x[0]));
  return 0;
}

GCUBA_INTEGRAND(romb_cos100)(const int *ndim, const double x[],
                             const int *ncomp, double f[], void *userdata)
{
  f[0] = cos(100 * x[0]);
  return 0;
}

/* a jump at the non-dyadic 1/3: integral 2/3 */
GCUBA_INTEGRAND(romb_jump)(const int *ndim, const double x[],
                           const int *ncomp, double f[], void *userdata)
{
  f[0] = x[0] < 1.0 / 3 ? 0.0 : 1.0;
  return 0;
}

/* a kink at 1/3: integral 5/18 */
GCUBA_INTEGRAND(romb_kink)(const int *ndim, const double x[],
                           const int *ncomp, double f[], void *userdata)
{
  f[0] = fabs(x[0] - 1.0 / 3);
  return 0;
}

GCUBA_INTEGRAND(romb_peak)(const int *ndim, const double x[],
                           const int *ncomp, double f[], void *userdata)
{
  const double u = (x[0] - 0.3) / 0.01;
  f[0] = exp(-0.5 * u * u);
  return 0;
}

/* a log singularity between the points, at c = 0.93549764473737718:
   integral c log c - c + (1 - c) log(1 - c) - (1 - c) */
#define ROMB_LOGC 0.93549764473737718
#define ROMB_LOGIN                                                          \
  (ROMB_LOGC * log(ROMB_LOGC) - ROMB_LOGC +                                 \
   (1 - ROMB_LOGC) * log(1 - ROMB_LOGC) - (1 - ROMB_LOGC))
GCUBA_INTEGRAND(romb_login)(const int *ndim, const double x[],
                            const int *ncomp, double f[], void *userdata)
{
  f[0] = log(fabs(x[0] - ROMB_LOGC));
  return 0;
}

/* derivative singular at 0: integral 2/3 */
GCUBA_INTEGRAND(romb_sqrt)(const int *ndim, const double x[],
                           const int *ncomp, double f[], void *userdata)
{
  f[0] = sqrt(x[0]);
  return 0;
}

/* three components: e^{cos x}, the cubic, cos(100 x) */
GCUBA_INTEGRAND(romb_vec)(const int *ndim, const double x[],
                          const int *ncomp, double f[], void *userdata)
{
  const double t = x[0];
  f[0] = exp(cos(t));
  f[1] = ((4 * t - 3) * t + 2) * t + 1;
  f[2] = cos(100 * t);
  return 0;
}

/* -999 at the midpoint of level 3 nearest 5/8 */
GCUBA_INTEGRAND(romb_abort)(const int *ndim, const double x[],
                            const int *ncomp, double f[], void *userdata)
{
  f[0] = 1;
  return x[0] == 0.625 ? -999 : 0;
}

/* NaN at x = 1/4 (level 2) */
GCUBA_INTEGRAND(romb_nan)(const int *ndim, const double x[],
                          const int *ncomp, double f[], void *userdata)
{
  f[0] = x[0] == 0.25 ? sqrt(-x[0]) : 1;
  return 0;
}

/* 1/sqrt(x): infinite at the endpoint 0 (integrable: gCuhre's case) */
GCUBA_INTEGRAND(romb_endsing)(const int *ndim, const double x[],
                              const int *ncomp, double f[], void *userdata)
{
  f[0] = 1 / sqrt(x[0]);
  return 0;
}

/* userdata: a * x^2 with a from a struct; integral a/3 */
typedef struct {
  double a;
} romb_param;
GCUBA_INTEGRAND(romb_user)(const int *ndim, const double x[],
                           const int *ncomp, double f[], void *userdata)
{
  f[0] = ((const romb_param *)userdata)->a * x[0] * x[0];
  return 0;
}

typedef struct {
  const char *name;
  gintegrand_t *f;
  double truth;
} romb_case;

/* the honesty table: every integrand with its true value */
#define ROMB_CASES(X)                                                          \
  X("e^cos x (I1)", &romb_i1, ROMB_I1)                                         \
  X("sqrt(exp(cos(x^x^x))) (I2)", &romb_i2, ROMB_I2)                           \
  X("cubic", &romb_cubic, 2.0)                                                 \
  X("10 x^9 + 1", &romb_poly9, 2.0)                                            \
  X("e^sin 2 pi x", &romb_per, ROMB_PER)                                       \
  X("cos 100 x", &romb_cos100, ROMB_COS100)                                    \
  X("jump at 1/3", &romb_jump, 2.0 / 3)                                        \
  X("|x - 1/3|", &romb_kink, 5.0 / 18)                                         \
  X("peak at 0.3, width 0.01", &romb_peak, ROMB_PEAK)                          \
  X("sqrt x", &romb_sqrt, 2.0 / 3)                                             \
  X("log|x - 0.9355|", &romb_login, ROMB_LOGIN)

#endif
