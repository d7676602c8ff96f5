/* bench/batch-peak.h -- bench-batch's integrand, one body for cc and nvcc:
   exp(-|x - c|^2 / w^2) with c and w from userdata.  This file is part
   of gcuba. */
#ifndef GCUBA_BENCH_BATCH_PEAK_H
#define GCUBA_BENCH_BATCH_PEAK_H
#include <math.h>
#include "gcuba.h"

struct peak {
  double c[5], w; /* centre (ndim <= 5) and width */
};

#define BATCH_PEAK_BODY                                                    \
  {                                                                        \
    const struct peak *p = (const struct peak *)userdata;                  \
    double s = 0;                                                          \
    int i;                                                                 \
    (void)ncomp;                                                           \
    for (i = 0; i < *ndim; ++i) s += (x[i] - p->c[i]) * (x[i] - p->c[i]);  \
    f[0] = exp(-s / (p->w * p->w));                                        \
    return 0;                                                              \
  }

#endif
