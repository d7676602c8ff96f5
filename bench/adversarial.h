/* bench/adversarial.h -- products of one-dimensional features off the
   dyadic grid, the adversarial sweep of bench-adversarial: over each of
   the d axes the same g(x_i), with g
     lorentz  w / ((x - c)^2 + w^2)
     gauss    exp(-((x - c) / w)^2)
     expkink  exp(-|x - c| / w)
     abskink  |x - c| + w
     step     x < c ? 1 : w
   and the analytic value (the one-dimensional integral to the power d).
   Header only, C99/C++/nvcc: ADVERSARIAL_GCUBA_INTEGRAND(name) after
   gcuba.h defines the integrand, the instance through userdata.  This
   file is part of gcuba. */
#ifndef GCUBA_BENCH_ADVERSARIAL_H
#define GCUBA_BENCH_ADVERSARIAL_H

#include <math.h>

enum { FEAT_LORENTZ, FEAT_GAUSS, FEAT_EXPKINK, FEAT_ABSKINK, FEAT_STEP,
       FEAT_KINDS };

static const char *const feat_names[FEAT_KINDS] = {
    "lorentz", "gauss", "expkink", "abskink", "step"};
/* the three widths of each kind */
static const double feat_widths[FEAT_KINDS][3] = {
    {0.02, 0.1, 0.3}, {0.05, 0.1, 0.3}, {0.05, 0.1, 0.3},
    {0.01, 0.1, 1.0}, {0.25, 0.5, 2.0}};
/* the positions: one dyadic, three not */
static const double feat_centres[4] = {0.5, 0.3, 0.123456, 0.7071};

struct feature {
  int kind;
  double c, w;
};

#define ADVERSARIAL_BODY                                                     \
  {                                                                       \
    const struct feature *p = (const struct feature *)userdata;           \
    double v = 1;                                                         \
    int i;                                                                \
    (void)ncomp;                                                          \
    for (i = 0; i < *ndim; ++i) {                                         \
      const double u = x[i] - p->c;                                       \
      switch (p->kind) {                                                  \
      case FEAT_LORENTZ: v *= p->w / (u * u + p->w * p->w); break;        \
      case FEAT_GAUSS: v *= exp(-(u / p->w) * (u / p->w)); break;         \
      case FEAT_EXPKINK: v *= exp(-fabs(u) / p->w); break;                \
      case FEAT_ABSKINK: v *= fabs(u) + p->w; break;                      \
      default: v *= u < 0 ? 1 : p->w; break;                              \
      }                                                                   \
    }                                                                     \
    f[0] = v;                                                             \
    return 0;                                                             \
  }

#define ADVERSARIAL_GCUBA_INTEGRAND(name)                                    \
  GCUBA_INTEGRAND(name)(const int *ndim, const double x[],                \
                        const int *ncomp, double f[], void *userdata)     \
  ADVERSARIAL_BODY

/* the integral over [0, 1]^d */
static double feature_truth(const struct feature *p, int d)
{
  const double c = p->c, w = p->w;
  double g;
  switch (p->kind) {
  case FEAT_LORENTZ: g = atan((1 - c) / w) + atan(c / w); break;
  case FEAT_GAUSS:
    g = 0.5 * sqrt(M_PI) * w * (erf((1 - c) / w) + erf(c / w));
    break;
  case FEAT_EXPKINK: g = w * (2 - exp(-c / w) - exp(-(1 - c) / w)); break;
  case FEAT_ABSKINK: g = 0.5 * (c * c + (1 - c) * (1 - c)) + w; break;
  default: g = c + w * (1 - c); break;
  }
  return pow(g, d);
}

#endif
