/* tests/fortran-gpu.c -- GCUBA_INTEGRAND objects that test-fortran-module
   names through bind(c).  Compiled by nvcc (-x cu) in CUDA builds, so they
   carry their GPU kernels, by cc otherwise.  This file is part of gcuba. */
#include <math.h>
#include "gcuba.h"

/* the Gaussian exp(-625 sum_i (x_i - 1/2)^2), as the Fortran tests'
   integrands compute it */
GCUBA_INTEGRAND(fgauss)(const int *ndim, const double x[], const int *ncomp,
                        double f[], void *userdata)
{
  double s = 0;
  int i;
  (void)ncomp; (void)userdata;
  for (i = 0; i < *ndim; ++i) s += (x[i] - 0.5) * (x[i] - 0.5);
  f[0] = exp(-625 * s);
  return 0;
}

/* a * prod_i x_i^k with (a, k) from userdata: the layout of the Fortran
   type, bind(c) :: param; real(c_double) :: a; integer(c_int) :: k */
struct fparam {
  double a;
  int k;
};

GCUBA_INTEGRAND(fgparam)(const int *ndim, const double x[], const int *ncomp,
                         double f[], void *userdata)
{
  const struct fparam *p = (const struct fparam *)userdata;
  double v = p->a;
  int i, j;
  (void)ncomp;
  for (i = 0; i < *ndim; ++i)
    for (j = 0; j < p->k; ++j) v *= x[i];
  f[0] = v;
  return 0;
}
