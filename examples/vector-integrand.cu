/* vector-integrand.cu -- an integrand with three components (ncomp = 3),
   integrated together over the same regions:
     f[0] = exp(x + y + z)
     f[1] = sin(pi x) sin(pi y) sin(pi z)
     f[2] = x^2 + y^2 + z^2
   Compile it with nvcc, or as C: cc -x c -c vector-integrand.cu. */
#include <math.h>
#include <gcuba.h>

#define PI 3.14159265358979323846

GCUBA_INTEGRAND(Vector)(const int *ndim, const double x[], const int *ncomp,
                        double f[], void *userdata)
{
  (void)ndim;
  (void)ncomp;
  (void)userdata;
  f[0] = exp(x[0] + x[1] + x[2]);
  f[1] = sin(PI * x[0]) * sin(PI * x[1]) * sin(PI * x[2]);
  f[2] = x[0] * x[0] + x[1] * x[1] + x[2] * x[2];
  return 0;
}
