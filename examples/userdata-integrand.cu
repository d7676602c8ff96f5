/* userdata-integrand.cu -- an integrand with parameters: a Gaussian whose
   widths and centre come from a struct params (params.h) passed as
   userdata.  On the GPU, userdata points to gcuba's device copy of the
   struct (userdata.c calls gcuba_userdata_size); on CPU threads, to the
   caller's struct.  Compile it with nvcc, or as C: cc -x c -c
   userdata-integrand.cu. */
#include <math.h>
#include <gcuba.h>
#include "params.h"

GCUBA_INTEGRAND(Genz)(const int *ndim, const double x[], const int *ncomp,
                      double f[], void *userdata)
{
  const struct params *p = (const struct params *)userdata;
  double s = 0;
  int i;
  (void)ncomp;
  for (i = 0; i < *ndim; ++i) {
    const double t = p->a[i] * (x[i] - p->u[i]);
    s += t * t;
  }
  f[0] = exp(-s);
  return 0;
}
