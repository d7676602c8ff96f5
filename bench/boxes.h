/* bench/boxes.h -- products of steps and kinks at a different point on
   every axis, the sweep of bench-boxes: over the first n axes
     step   x_i < c[i] ? 1 : w     (w = 0: the indicator of a box)
     kink   |x_i - c[i]| + w
     mixed  as step on even axes, x_i > c[i] ? 1 : w on odd ones (a box
            at a corner other than 0 and 1)
     inner  a[i] < x_i < c[i] ? 1 : w  (a box inside the cube)
   and the analytic value.  Header only, C99/C++/nvcc: BOXES_GCUBA_INTEGRAND
   (name) after gcuba.h defines the integrand, the instance through
   userdata.  This file is part of gcuba. */
#ifndef GCUBA_BENCH_BOXES_H
#define GCUBA_BENCH_BOXES_H

#include <math.h>

#define BOXES_MAXD 8
enum { BOX_STEP, BOX_KINK, BOX_MIXED, BOX_INNER, BOX_KINDS };
static const char *const box_names[BOX_KINDS] = {"step", "kink", "mixed",
                                                 "inner"};

struct boxes {
  int kind, n;
  double a[BOXES_MAXD], c[BOXES_MAXD], w; /* a: inner's lower faces */
};

#define BOXES_GCUBA_INTEGRAND(name)                                         \
  GCUBA_INTEGRAND(name)(const int *ndim, const double x[],               \
                        const int *ncomp, double f[], void *userdata)    \
  {                                                                      \
    const struct boxes *p = (const struct boxes *)userdata;              \
    double v = 1;                                                        \
    int i;                                                               \
    (void)ncomp;                                                         \
    for (i = 0; i < p->n && i < *ndim; ++i) {                            \
      const double u = x[i] - p->c[i];                                   \
      const int in = p->kind == BOX_MIXED && (i & 1) ? u > 0             \
                     : p->kind == BOX_INNER ? u < 0 && x[i] > p->a[i]    \
                                            : u < 0;                     \
      v *= p->kind == BOX_KINK ? fabs(u) + p->w : in ? 1 : p->w;         \
    }                                                                    \
    f[0] = v;                                                            \
    return 0;                                                            \
  }

/* the integral over [0, 1]^d */
static double boxes_truth(const struct boxes *p)
{
  double v = 1;
  int i;
  for (i = 0; i < p->n; ++i) {
    const double c = p->c[i], w = p->w;
    const double in = p->kind == BOX_MIXED && (i & 1) ? 1 - c
                      : p->kind == BOX_INNER             ? c - p->a[i]
                                                         : c;
    v *= p->kind == BOX_KINK ? 0.5 * (c * c + (1 - c) * (1 - c)) + w
                             : in + w * (1 - in);
  }
  return v;
}

#endif
