/* demo/fortran-integrands.c -- the integrands that demo-fortran.F runs
   on the GPU, written once with GCUBA_INTEGRAND.  A Fortran program names
   each by its C name through bind(c):
     type(gcuba_integrand), bind(c, name="SinCosExp") :: sincosexp
   Compile this file with nvcc for the GPU (nvcc -x cu -c
   fortran-integrands.c, flags from pkg-config, see doc/fortran.md), or
   with cc for CPU threads only.  This file is part of gcuba. */
#include <math.h>
#include <gcuba.h>

/* Cuba's demo integrand: sin(x) cos(y) exp(z) on the unit cube */
GCUBA_INTEGRAND(SinCosExp)(const int *ndim, const double x[],
                           const int *ncomp, double f[], void *userdata)
{
  (void)ndim; (void)ncomp; (void)userdata;
  f[0] = sin(x[0]) * cos(x[1]) * exp(x[2]);
  return 0;
}

/* a narrow Gaussian peak, exp(-625 |x - 1/2|^2), in any dimension */
GCUBA_INTEGRAND(GaussPeak)(const int *ndim, const double x[],
                           const int *ncomp, double f[], void *userdata)
{
  double s = 0;
  int i;
  (void)ncomp; (void)userdata;
  for (i = 0; i < *ndim; ++i) s += (x[i] - 0.5) * (x[i] - 0.5);
  f[0] = exp(-625 * s);
  return 0;
}
