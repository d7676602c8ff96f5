/* bench/peaks.h -- bench-peaks' integrands, one body for cc and nvcc:
   a peak at a random centre c (anywhere in the cube, its tails cut by
   the faces) of a random width w, in ndim <= PEAKS_MAXDIM dimensions:
     gauss    exp(-|x - c|^2 / w^2)
     lorentz  prod_i 1 / (1 + ((x_i - c_i) / w)^2)
   with its closed form (the product of one-dimensional integrals), and
   the instances drawn from a seed.  This file is part of gcuba. */
#ifndef GCUBA_BENCH_PEAKS_H
#define GCUBA_BENCH_PEAKS_H
#include <math.h>

#define PEAKS_MAXDIM 6
enum { PEAKS_GAUSS, PEAKS_LORENTZ, PEAKS_KINDS };

struct peaks_inst {
  int kind;
  double c[PEAKS_MAXDIM], w;
};

#define PEAKS_BODY                                                         \
  {                                                                        \
    const struct peaks_inst *p = (const struct peaks_inst *)userdata;      \
    double s = 0, v = 1;                                                   \
    int i;                                                                 \
    (void)ncomp;                                                           \
    for (i = 0; i < *ndim; ++i) {                                          \
      const double u = (x[i] - p->c[i]) / p->w;                            \
      s += u * u;                                                          \
      v *= 1 + u * u;                                                      \
    }                                                                      \
    f[0] = p->kind == PEAKS_GAUSS ? exp(-s) : 1 / v;                       \
    return 0;                                                              \
  }

/* the integral over [0, 1]^ndim */
static inline double peaks_truth(const struct peaks_inst *p, int ndim)
{
  double v = 1;
  int i;
  for (i = 0; i < ndim; ++i) {
    const double a = p->c[i] / p->w, b = (1 - p->c[i]) / p->w;
    v *= p->kind == PEAKS_GAUSS
             ? 0.5 * sqrt(acos(-1.0)) * p->w * (erf(a) + erf(b))
             : p->w * (atan(a) + atan(b));
  }
  return v;
}

/* splitmix64: a uniform double in [0, 1) from the state *s */
static inline double peaks_uniform(unsigned long long *s)
{
  unsigned long long z = (*s += 0x9E3779B97F4A7C15ULL);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
  z ^= z >> 31;
  return (double)(z >> 11) * (1.0 / 9007199254740992.0);
}

/* instance number i of a set: the centre uniform in the cube, the width
   log-uniform in [wmin, wmax]; the same for a (seed, kind, ndim, i)
   whatever else the run does */
static inline void peaks_draw(struct peaks_inst *p, int kind, int ndim,
                              unsigned long long seed, long long i,
                              double wmin, double wmax)
{
  unsigned long long s =
      seed * 0x100000001B3ULL ^ ((unsigned long long)kind << 56) ^
      ((unsigned long long)ndim << 48) ^ (unsigned long long)i;
  int d;
  (void)peaks_uniform(&s);
  p->kind = kind;
  for (d = 0; d < PEAKS_MAXDIM; ++d) p->c[d] = d < ndim ? peaks_uniform(&s) : 0;
  p->w = wmin * pow(wmax / wmin, peaks_uniform(&s));
}

#endif
