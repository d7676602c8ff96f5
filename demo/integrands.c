/* demo/integrands.c -- the integrands of demo-c, written once with
   GCUBA_INTEGRAND.  Compiled by cc it gives host-only integrands; by nvcc
   (demo/integrands.cu just includes this file) the same source also runs
   on the GPU.  This file is part of gcuba. */
#include <math.h>
#include <gcuba.h>

/* Cuba's demo integrand: sin(x) cos(y) exp(z) on the unit cube */
GCUBA_INTEGRAND(Integrand)(const int *ndim, const double x[],
                           const int *ncomp, double f[], void *userdata)
{
  (void)ndim; (void)ncomp; (void)userdata;
  f[0] = sin(x[0]) * cos(x[1]) * exp(x[2]);
  return 0;
}

/* a Gaussian peak in 5D and a corner peak in 3D (Genz families) */
GCUBA_INTEGRAND(Gauss5)(const int *ndim, const double x[], const int *ncomp,
                        double f[], void *userdata)
{
  double s = 0;
  int i;
  (void)ncomp; (void)userdata;
  for (i = 0; i < *ndim; ++i) s += (x[i] - 0.5) * (x[i] - 0.5);
  f[0] = exp(-625 * s);
  return 0;
}

GCUBA_INTEGRAND(Corner3)(const int *ndim, const double x[], const int *ncomp,
                         double f[], void *userdata)
{
  double s = 1;
  int i;
  (void)ncomp; (void)userdata;
  for (i = 0; i < *ndim; ++i) s += (i + 1) * x[i];
  f[0] = 1 / (s * s * s * s);
  return 0;
}
