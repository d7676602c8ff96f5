/* bench/floor.h -- the integrands of Cuba programs that ask gCuhre for
   tolerances near double precision (issue 52), with their closed forms
   in long double: shared by tests/test-cuhre-floor, bench/bench-floor
   and bench/bench-bound.
     floor_osc:  s exp(-x) cos(w x) exp(-2 y) cos(w y / 2) on [0, 1]^2
                 (userdata: struct floor_par), asked at epsrel = epsabs
                 = 1e-13 .. 1e-14 with the degree 13 rule;
     floor_prod: prod_d exp(-(d+1) x_d) cos(w (d+1) x_d / 2) in 2-4 D
                 (userdata: the double w), at epsrel = epsabs = 1e-12
                 with the degree 9 rule (floor_prod_box: over a box).
   This file is part of gcuba. */
#ifndef GCUBA_BENCH_FLOOR_H
#define GCUBA_BENCH_FLOOR_H
#include <math.h>

struct floor_par {
  double s, w;
};

static inline int floor_osc(const int *ndim, const double x[],
                            const int *ncomp, double f[], void *userdata)
{
  const struct floor_par *p = (const struct floor_par *)userdata;
  (void)ndim;
  (void)ncomp;
  f[0] = p->s * exp(-x[0]) * cos(p->w * x[0]) * exp(-2 * x[1]) *
         cos(0.5 * p->w * x[1]);
  return 0;
}

static inline int floor_prod(const int *ndim, const double x[],
                             const int *ncomp, double f[], void *userdata)
{
  const double w = *(const double *)userdata;
  double v = 1;
  int d;
  (void)ncomp;
  for (d = 0; d < *ndim; ++d)
    v *= exp(-(d + 1) * x[d]) * cos(w * (d + 1) * 0.5 * x[d]);
  f[0] = v;
  return 0;
}

/* int_lo^hi exp(-a x) cos(w x) dx, from the antiderivative
   exp(-a x) (w sin(w x) - a cos(w x)) / (a^2 + w^2) */
static inline long double floor_ixab(long double a, long double w,
                                     long double lo, long double hi)
{
  return (expl(-a * hi) * (w * sinl(w * hi) - a * cosl(w * hi)) -
          expl(-a * lo) * (w * sinl(w * lo) - a * cosl(w * lo))) /
         (a * a + w * w);
}

/* int_0^1 exp(-a x) cos(w x) dx */
static inline long double floor_ix(long double a, long double w)
{
  return floor_ixab(a, w, 0, 1);
}

static inline long double floor_osc_truth(const struct floor_par *p)
{
  return p->s * floor_ix(1, p->w) * floor_ix(2, 0.5L * p->w);
}

/* floor_prod over the box [lo, hi] */
static inline long double floor_prod_box(int ndim, double w,
                                         const double *lo, const double *hi)
{
  long double v = 1;
  int d;
  for (d = 0; d < ndim; ++d)
    v *= floor_ixab(d + 1, w * (d + 1) * 0.5L, lo[d], hi[d]);
  return v;
}

static inline long double floor_prod_truth(int ndim, double w)
{
  long double v = 1;
  int d;
  for (d = 0; d < ndim; ++d) v *= floor_ix(d + 1, w * (d + 1) * 0.5L);
  return v;
}

#endif
