/* tests/peak.h -- the peak integrand of test-batch, for its cc
   (test-batch.c) and nvcc (test-batch-cu.cu, test-vegas-batch-gpu.cu)
   builds, and its true value.  This file is part of gcuba. */
#ifndef GCUBA_TESTS_PEAK_H
#define GCUBA_TESTS_PEAK_H
#include <math.h>

/* a Gaussian peak exp(-|x - c|^2 / w^2) (component j times j + 1), or
   NaN / -999 by mode, or with a step along x0 at s: half beyond it */
struct peak {
  double c[5], w;
  int mode; /* 0 peak, 1 NaN beyond x0 > 0.9, 2 -999 beyond x0 > 0.9,
               3 the peak halved where x0 > s */
  double s;
};

#define TEST_BATCH_PEAK_BODY                                               \
  {                                                                        \
    const struct peak *p = (const struct peak *)userdata;                  \
    double s = 0;                                                          \
    int i, j;                                                              \
    for (i = 0; i < *ndim; ++i) s += (x[i] - p->c[i]) * (x[i] - p->c[i]);  \
    for (j = 0; j < *ncomp; ++j) f[j] = (j + 1) * exp(-s / (p->w * p->w)); \
    if (p->mode == 3 && x[0] > p->s)                                       \
      for (j = 0; j < *ncomp; ++j) f[j] *= 0.5;                            \
    if (p->mode == 1 && x[0] > 0.9) f[0] = NAN;                            \
    if (p->mode == 2 && x[0] > 0.9) return -999;                           \
    return 0;                                                              \
  }

/* its integral over [0,1]^ndim (component 0) */
static inline double peak_truth(const struct peak *p, int ndim)
{
  const double h = 0.5 * sqrt(M_PI) * p->w;
  double v = 1;
  int i;
  for (i = 0; i < ndim; ++i)
    if (i == 0 && p->mode == 3)
      /* full weight below the step at s, half above */
      v *= h * (erf((p->s - p->c[0]) / p->w) + erf(p->c[0] / p->w)) +
           0.5 * h * (erf((1 - p->c[0]) / p->w) -
                      erf((p->s - p->c[0]) / p->w));
    else
      v *= h * (erf((1 - p->c[i]) / p->w) + erf(p->c[i] / p->w));
  return v;
}

#endif
