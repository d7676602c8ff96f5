/* bench/edges.h -- the integrable power singularities of bench/bench-edges
   and tests/test-vegas-corner: prod_i x_i^-p_i over the unit cube, at a
   corner (x_i on every axis) or on faces (1 - x_i on the odd axes), the
   exponents in the userdata; its value prod_i 1/(1 - p_i).  A gcuba
   integrand (GCUBA_INTEGRAND: host, and device when compiled by nvcc) and
   the truth; header only, after #include "gcuba.h".  This file is part of
   gcuba. */
#ifndef GCUBA_BENCH_EDGES_H
#define GCUBA_BENCH_EDGES_H
#include <math.h>

struct edges {
  int ndim, face;
  double p[6];
};

GCUBA_INTEGRAND(edges_f)(const int *ndim, const double x[],
                         const int *ncomp, double f[], void *userdata)
{
  const struct edges *e = (const struct edges *)userdata;
  double v = 1;
  int i;
  (void)ncomp;
  for (i = 0; i < *ndim; ++i)
    v *= pow(e->face && (i & 1) ? 1 - x[i] : x[i], -e->p[i]);
  f[0] = v;
  return 0;
}

static inline double edges_truth(const struct edges *e)
{
  double t = 1;
  int i;
  for (i = 0; i < e->ndim; ++i) t /= 1 - e->p[i];
  return t;
}

#endif
