/* tests/gaussians.h -- the many-component test integrand: component k is
   (k + 1) exp(-|x - c_k|^2 / w_k^2), a Gaussian of its own centre c_k
   (golden-ratio steps) and width w_k (0.3 to 0.5), with its closed form.
   For tests/test-ncomp-gpu.cu (host and device) and the CPU batteries
   test-suave.c and test-divonne.c.  This file is part of gcuba. */
#ifndef GCUBA_TESTS_GAUSSIANS_H
#define GCUBA_TESTS_GAUSSIANS_H

#include <math.h>

#ifdef __CUDACC__
#define GAUSSIANS_HD __host__ __device__
#else
#define GAUSSIANS_HD
#endif

/* centre of component k along axis d, and its width */
static GAUSSIANS_HD inline double gaussians_centre(int k, int d)
{
  const double u = (k + 1) * 0.6180339887498949 * (d + 1);
  return 0.25 + 0.5 * (u - floor(u));
}
static GAUSSIANS_HD inline double gaussians_width(int k)
{
  return 0.3 + 0.2 * ((k * 7) % 11) / 10.0;
}

/* the ncomp components at x, times a */
static GAUSSIANS_HD inline void gaussians_eval(int ndim, const double *x,
                                               int ncomp, double *f, double a)
{
  int k, d;
  for (k = 0; k < ncomp; ++k) {
    const double w = gaussians_width(k);
    double s = 0;
    for (d = 0; d < ndim; ++d) {
      const double t = x[d] - gaussians_centre(k, d);
      s += t * t;
    }
    f[k] = a * (k + 1) * exp(-s / (w * w));
  }
}

/* component k's integral over the unit cube */
static inline double gaussians_truth(int k, int ndim)
{
  const double w = gaussians_width(k), h = 0.5 * sqrt(M_PI) * w;
  double v = k + 1;
  int d;
  for (d = 0; d < ndim; ++d)
    v *= h * (erf((1 - gaussians_centre(k, d)) / w) +
              erf(gaussians_centre(k, d) / w));
  return v;
}

#endif
