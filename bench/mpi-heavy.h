/* bench/mpi-heavy.h -- an expensive integrand for bench/bench-mpi: the
   mean of HEAVY_TERMS cosines of linear forms, cos(sum_d a_dk x_d) with
   a_dk = 0.01 (d + 1) k, about a microsecond per point on one CPU core.
   Defines HEAVY_NAME (heavy_c by cc, heavy_cu by nvcc) and, once,
   heavy_truth.  This file is part of gcuba. */
#ifndef HEAVY_NAME
#error "define HEAVY_NAME"
#endif
#include <math.h>
#include "gcuba.h"
#define HEAVY_TERMS 64

/* GCUBA_INTEGRAND pastes its argument: expand HEAVY_NAME first */
#define HEAVY_DEF_(n) GCUBA_INTEGRAND(n)
#define HEAVY_DEF(n) HEAVY_DEF_(n)
HEAVY_DEF(HEAVY_NAME)(const int *ndim, const double x[],
                            const int *ncomp, double f[], void *userdata)
{
  double s = 0;
  int k, d;
  (void)ncomp;
  (void)userdata;
  for (k = 1; k <= HEAVY_TERMS; ++k) {
    double t = 0;
    for (d = 0; d < *ndim; ++d) t += 0.01 * (d + 1) * k * x[d];
    s += cos(t);
  }
  f[0] = s / HEAVY_TERMS;
  return 0;
}

#ifndef HEAVY_NO_TRUTH
/* the mean over k of Re prod_d (e^{i a_dk} - 1) / (i a_dk) */
static double heavy_truth(int ndim)
{
  double s = 0;
  int k, d;
  for (k = 1; k <= HEAVY_TERMS; ++k) {
    double re = 1, im = 0;
    for (d = 0; d < ndim; ++d) {
      double a = 0.01 * (d + 1) * k, fr = sin(a) / a, fi = (1 - cos(a)) / a;
      double r = re * fr - im * fi;
      im = re * fi + im * fr;
      re = r;
    }
    s += re;
  }
  return s / HEAVY_TERMS;
}
#endif
