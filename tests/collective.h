/* tests/collective.h -- the integrands of the tests of collective calls
   (test-mpi.c over MPI, test-devices-gpu.cu on several GPUs, test-team.c
   on CPU threads), with their analytic values; for cc and nvcc.  This
   file is part of gcuba. */
#ifndef GCUBA_TESTS_COLLECTIVE_H
#define GCUBA_TESTS_COLLECTIVE_H
#include <math.h>
#include "gcuba.h"

#if defined(__GNUC__)
#define COLL_UNUSED __attribute__((unused))
#else
#define COLL_UNUSED
#endif

/* Genz product peak in 4D: prod 1/(a^-2 + (x - u)^2), and x0 x1 x2 as a
   second component; u from userdata (struct peak_param) or COLL_U0 */
#define COLL_PA 5.0
struct peak_param {
  double u[4];
};
static const double COLL_U0[4] = {0.3, 0.55, 0.7, 0.42};
GCUBA_INTEGRAND(peak)(const int *ndim, const double x[], const int *ncomp,
                      double f[], void *userdata)
{
  const double U[4] = {0.3, 0.55, 0.7, 0.42};
  const double *u = userdata ? ((const struct peak_param *)userdata)->u : U;
  double p = 1;
  int d;
  for (d = 0; d < *ndim; ++d)
    p /= 1 / (COLL_PA * COLL_PA) + (x[d] - u[d]) * (x[d] - u[d]);
  f[0] = p;
  if (*ncomp > 1) f[1] = x[0] * x[1] * x[2];
  return 0;
}
COLL_UNUSED static double peak_exact(int ndim, const double *u)
{
  double p = 1;
  int d;
  for (d = 0; d < ndim; ++d)
    p *= COLL_PA * (atan(COLL_PA * (1 - u[d])) + atan(COLL_PA * u[d]));
  return p;
}

/* oscillatory: cos(2 pi 0.3 + sum c_d x_d), up to 6D */
GCUBA_INTEGRAND(osc)(const int *ndim, const double x[], const int *ncomp,
                     double f[], void *userdata)
{
  const double C[6] = {1.1, 0.7, 1.9, 0.4, 1.3, 0.8};
  double s = 2 * M_PI * 0.3;
  int d;
  (void)userdata;
  (void)ncomp;
  for (d = 0; d < *ndim; ++d) s += C[d] * x[d];
  f[0] = cos(s);
  return 0;
}
COLL_UNUSED static double osc_exact(int ndim)
{
  /* Re of e^{i s0} prod (e^{i c} - 1) / (i c) */
  const double C[6] = {1.1, 0.7, 1.9, 0.4, 1.3, 0.8};
  double re = cos(2 * M_PI * 0.3), im = sin(2 * M_PI * 0.3);
  int d;
  for (d = 0; d < ndim; ++d) {
    double c = C[d], fr = sin(c) / c, fi = (1 - cos(c)) / c, r;
    r = re * fr - im * fi;
    im = re * fi + im * fr;
    re = r;
  }
  return re;
}

/* kinks off the dyadic grid: exp(-3 sum_d |x_d - k_d|), up to 4D; gCuhre
   cuts its regions at them (gcuba/detail/cut.h) */
GCUBA_INTEGRAND(kinks)(const int *ndim, const double x[], const int *ncomp,
                       double f[], void *userdata)
{
  const double K[4] = {0.2724, 0.6131, 0.4107, 0.1893};
  double s = 0;
  int d;
  (void)userdata;
  (void)ncomp;
  for (d = 0; d < *ndim; ++d) s += fabs(x[d] - K[d]);
  f[0] = exp(-3 * s);
  return 0;
}
COLL_UNUSED static double kinks_exact(int ndim)
{
  const double K[4] = {0.2724, 0.6131, 0.4107, 0.1893};
  double p = 1;
  int d;
  for (d = 0; d < ndim; ++d)
    p *= (2 - exp(-3 * K[d]) - exp(-3 * (1 - K[d]))) / 3;
  return p;
}

/* 2D, x0 + x1, with -999 or NaN in the corner x0, x1 > 0.9: in the share
   of one process, GPU or thread only */
GCUBA_INTEGRAND(corner_abort)(const int *ndim, const double x[],
                              const int *ncomp, double f[], void *userdata)
{
  (void)ndim;
  (void)ncomp;
  (void)userdata;
  f[0] = x[0] + x[1];
  return x[0] > 0.9 && x[1] > 0.9 ? -999 : 0;
}
GCUBA_INTEGRAND(corner_nan)(const int *ndim, const double x[],
                            const int *ncomp, double f[], void *userdata)
{
  (void)ndim;
  (void)ncomp;
  (void)userdata;
  f[0] = x[0] > 0.9 && x[1] > 0.9 ? NAN : x[0] + x[1];
  return 0;
}

#endif
