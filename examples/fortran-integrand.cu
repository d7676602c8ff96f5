/* fortran-integrand.cu -- a GCUBA_INTEGRAND that module.f90 names through
   bind(c, name="Gauss"): an integrand that runs on the GPU, called from
   Fortran.  Compile it with nvcc, or as C: cc -x c -c
   fortran-integrand.cu. */
#include <math.h>
#include <gcuba.h>

/* exp(-100 |x - 1/2|^2) in any dimension */
GCUBA_INTEGRAND(Gauss)(const int *ndim, const double x[], const int *ncomp,
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
