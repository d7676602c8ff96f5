/* llcuhre-integrand.cu -- the integrand of llcuhre.c: a narrow Gaussian
   peak, exp(-625 |x - 1/2|^2) (Genz's Gaussian family, f4 of the PAGANI
   test suite).  Compile it with nvcc, or as C: cc -x c -c
   llcuhre-integrand.cu. */
#include <math.h>
#include <gcuba.h>

GCUBA_INTEGRAND(Gauss)(const int *ndim, const double x[], const int *ncomp,
                       double f[], void *userdata)
{
  double s = 0;
  int i;
  (void)ncomp;
  (void)userdata;
  for (i = 0; i < *ndim; ++i) s += (x[i] - 0.5) * (x[i] - 0.5);
  f[0] = exp(-625 * s);
  return 0;
}
