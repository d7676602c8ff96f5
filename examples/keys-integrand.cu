/* keys-integrand.cu -- the integrands of keys.c.  Compile it with nvcc, or
   as C: cc -x c -c keys-integrand.cu. */
#include <math.h>
#include <gcuba.h>

#define PI 3.14159265358979323846

/* Genz's corner peak (1 + sum_i i x_i)^-(ndim + 1), smooth and positive */
GCUBA_INTEGRAND(Corner)(const int *ndim, const double x[], const int *ncomp,
                        double f[], void *userdata)
{
  double s = 1, p = 1;
  int i;
  (void)ncomp;
  (void)userdata;
  for (i = 0; i < *ndim; ++i) s += (i + 1) * x[i];
  for (i = 0; i <= *ndim; ++i) p *= s;
  f[0] = 1 / p;
  return 0;
}

/* a 2D integrand that changes sign: sin(2 pi x) sin(2 pi y) + x y
   (integral 1/4) */
GCUBA_INTEGRAND(Wave)(const int *ndim, const double x[], const int *ncomp,
                      double f[], void *userdata)
{
  (void)ndim;
  (void)ncomp;
  (void)userdata;
  f[0] = sin(2 * PI * x[0]) * sin(2 * PI * x[1]) + x[0] * x[1];
  return 0;
}
