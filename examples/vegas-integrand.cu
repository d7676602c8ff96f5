/* vegas-integrand.cu -- the integrand of vegas.c: a Gaussian peak in any
   dimension, exp(-100 |x - 1/2|^2).  Compile it with nvcc (the integrand
   then runs on the GPU, and on CPU threads when there is none) or, without
   CUDA, as C: cc -x c -c vegas-integrand.cu. */
#include <math.h>
#include <gcuba.h>

GCUBA_INTEGRAND(Peak)(const int *ndim, const double x[], const int *ncomp,
                      double f[], void *userdata)
{
  double s = 0;
  int i;
  (void)ncomp;
  (void)userdata;
  for (i = 0; i < *ndim; ++i) s += (x[i] - 0.5) * (x[i] - 0.5);
  f[0] = exp(-100 * s);
  return 0;
}
