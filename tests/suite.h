/* tests/suite.h -- the test suite's integrands (suite.inc), their true
   values, and helpers shared by the test programs.  The objects built by
   cc end in _c (suite-c.c), those built by nvcc in _cu (suite-cu.cu).
   This file is part of gcuba. */
#ifndef GCUBA_TESTS_SUITE_H
#define GCUBA_TESTS_SUITE_H

#include <math.h>
#include "gcuba.h"

struct suite_param {
  double a; /* factor */
  int k;    /* power of each x_i */
};

/* fadv's parameters (suite.inc): a separable product over the first
   n coordinates of a factor with a feature at c (width w) */
struct suite_adv {
  double c, w;
  int kind; /* SUITE_ADV_* */
  int n;    /* coordinates with the feature (the rest contribute 1) */
};
#define SUITE_ADV_STEP 0   /* x < c ? 1 : w */
#define SUITE_ADV_KINK 1   /* |x - c| + w */
#define SUITE_ADV_PEAK 2   /* w / ((x - c)^2 + w^2) */
#define SUITE_ADV_EXPKINK 3 /* exp(-|x - c| / w) */

/* fbox's parameters (suite.inc): the indicator of the box
   a[i] < x_i < c[i] for i < n (the rest contribute 1) */
struct suite_box {
  double c[8];
  int n;
  double a[8]; /* 0: the box x_i < c[i] */
};

/* the true value of fbox for p */
static inline double suite_box_truth(const struct suite_box *p)
{
  double v = 1;
  int i;
  for (i = 0; i < p->n; ++i) v *= p->c[i] - p->a[i];
  return v;
}

/* fmix's parameters (suite.inc): a product over the first n coordinates
   of steps, kinks and peaks, each at its own point */
struct suite_mix {
  double c[8], w;
  int kind[8]; /* SUITE_MIX_* */
  int n;
};
#define SUITE_MIX_BELOW 0 /* x < c ? 1 : w */
#define SUITE_MIX_ABOVE 1 /* x > c ? 1 : w */
#define SUITE_MIX_KINK 2  /* |x - c| + w */
#define SUITE_MIX_PEAK 3  /* 1 / (1 + ((x - c) / w)^2) */
#define SUITE_MIX_GAUSS 4 /* exp(-((x - c) / w)^2) */

/* the true value of fmix for p */
static inline double suite_mix_truth(const struct suite_mix *p)
{
  double v = 1;
  int i;
  for (i = 0; i < p->n; ++i) {
    const double c = p->c[i], w = p->w;
    v *= p->kind[i] == SUITE_MIX_BELOW   ? c + w * (1 - c)
         : p->kind[i] == SUITE_MIX_ABOVE ? 1 - c + w * c
         : p->kind[i] == SUITE_MIX_PEAK  ? w * (atan((1 - c) / w) + atan(c / w))
         : p->kind[i] == SUITE_MIX_GAUSS
             ? 0.5 * sqrt(acos(-1.0)) * w * (erf((1 - c) / w) + erf(c / w))
             : (c * c + (1 - c) * (1 - c)) / 2 + w;
  }
  return v;
}

/* the true value of fadv for p */
static inline double suite_adv_truth(const struct suite_adv *p)
{
  double g, c = p->c, w = p->w, v = 1;
  int i;
  if (p->kind == SUITE_ADV_STEP) g = c + w * (1 - c);
  else if (p->kind == SUITE_ADV_KINK) g = (c * c + (1 - c) * (1 - c)) / 2 + w;
  else if (p->kind == SUITE_ADV_PEAK) g = atan((1 - c) / w) + atan(c / w);
  else g = w * (2 - exp(-c / w) - exp(-(1 - c) / w));
  for (i = 0; i < p->n; ++i) v *= g;
  return v;
}

/* the true value of fdiag (suite.inc) in ndim dimensions: twice the
   product of one axis's Gaussian integral (the two are equal) */
static inline double suite_diag_truth(int ndim)
{
  const double s = 0.05 * sqrt(2.0);
  const double g = 0.5 * s * sqrt(M_PI) *
                   (erf((2.0 / 3) / s) + erf((1.0 / 3) / s));
  return 2 * pow(g, ndim);
}

/* f1d's parameters (suite.inc): one-dimensional integrands, component
   j of kind[j] with parameters c[j], w[j] */
struct suite_1d {
  int kind[3];
  double c[3], w[3];
};
#define SUITE_1D_I1 0      /* e^{cos x} (issue 22's I1) */
#define SUITE_1D_I2 1      /* sqrt(exp(cos(x^{x^x}))) (I2) */
#define SUITE_1D_POW 2     /* x^c (c > -1) */
#define SUITE_1D_LOG 3     /* log x */
#define SUITE_1D_PEAK 4    /* w / ((x - c)^2 + w^2) */
#define SUITE_1D_COS 5     /* cos(w x) */
#define SUITE_1D_JUMP 6    /* x < c ? 1 : 1/2 */
#define SUITE_1D_KINK 7    /* |x - c| */
#define SUITE_1D_LOGIN 8   /* log |x - c|, c inside */
#define SUITE_1D_POWLOG 9  /* x^c log x */
#define SUITE_1D_NAN 10    /* NaN for x > c */
#define SUITE_1D_KINDS 10  /* kinds with a truth (NAN excluded) */

/* Truth of component j.  I1 and I2 were computed with mpmath 1.3 at 40
   and 50 digits (tanh-sinh; I2 also Gauss-Legendre on [0, 1e-20, 1e-6,
   1/3, 1], agreeing to 28 digits). */
static inline double suite_1d_truth(const struct suite_1d *p, int j)
{
  const double c = p->c[j], w = p->w[j];
  switch (p->kind[j]) {
  case SUITE_1D_I1: return 2.3415748417130531649229751862;
  case SUITE_1D_I2: return 1.5022971195982904396818962210;
  case SUITE_1D_POW: return 1 / (c + 1);
  case SUITE_1D_LOG: return -1;
  case SUITE_1D_PEAK: return atan((1 - c) / w) + atan(c / w);
  case SUITE_1D_COS: return sin(w) / w;
  case SUITE_1D_JUMP: return c + 0.5 * (1 - c);
  case SUITE_1D_KINK: return 0.5 * (c * c + (1 - c) * (1 - c));
  case SUITE_1D_LOGIN:
    return c * log(c) - c + (1 - c) * log(1 - c) - (1 - c);
  case SUITE_1D_POWLOG: return -1 / ((c + 1) * (c + 1));
  }
  return NAN;
}

/* the true values of Cuba's demo integrands 1..11 (cubademo in 3-D,
   suite_param k; high-precision quadrature; 4: 7/8 + 2 pi R^5 / 15 with
   R^2 = 1/8; 11: pi / 6) */
static const double suite_demo_truth[12] = {0,
  0.66466967978137727, 5.2685200883758385, 0.30780740962133682,
  0.87731400153029082, 0.41653838588663817, 1.2020569029951009,
  0.70961588563693412, 0.89121279811130238, 0.08018556505241012,
  2.3962437642589401, 0.52359877559829887};

#define SUITE_FUNCS(X) \
  X(f1) X(f2) X(f3) X(f4) X(f5) X(f6) X(f7) X(f8) X(f43c) X(fparam) \
  X(fabort) X(fnan) X(cubademo) X(fadv) X(fbox) X(f1d) X(fdiag) \
  X(fmix)

#define SUITE_DECL_C_(n) GCUBA_DECLARE_INTEGRAND(n##_c);
#define SUITE_DECL_CU_(n) GCUBA_DECLARE_INTEGRAND(n##_cu);
SUITE_FUNCS(SUITE_DECL_C_)
SUITE_FUNCS(SUITE_DECL_CU_)

/* S(f4): the object a test battery runs: f4_cu in its GPU build
   (SUITE_GPU, nvcc-built integrands, GCUBA_DEVICE=gpu), f4_c else.
   SUITE_BACKEND is 1 in the GPU build. */
#ifdef SUITE_GPU
#define S(n) n##_cu
#define SUITE_BACKEND 1
#else
#define S(n) n##_c
#define SUITE_BACKEND 0
#endif

/* The cases and their true values to 15 digits (closed forms: bench/BENCH.md) */
struct suite_case {
  const char *name; /* "f4" */
  int family;       /* 1..8 */
  int d;
  double truth;
};

static const struct suite_case suite_cases[] = {
  {"f1", 1, 8, 3.4395579521832516e-05},
  {"f2", 2, 6, 1.2868879901109878e+13},
  {"f3", 3, 3, 1.0846560846560847e-02},
  {"f3", 3, 8, 2.2751965817917756e-10},
  {"f4", 4, 5, 1.791326036748786e-06},
  {"f4", 4, 6, 1.2700170928250806e-07},
  {"f4", 4, 8, 6.3838021900043837e-10},
  {"f5", 5, 8, 2.425217625641885e-06},
  {"f6", 6, 5, 1.9102946875697125e+05},
  {"f6", 6, 6, 1.5477367885091207e+08},
  {"f7", 7, 8, 1.4953692837579778e+06},
  {"f8", 8, 8, 8.8798511754142762e+03},
};
#define SUITE_NCASES ((int)(sizeof suite_cases / sizeof suite_cases[0]))

/* descriptor of family 1..8 built by cc (gpu = 0) or by nvcc (gpu = 1;
   NULL when this build has no CUDA objects linked) */
static inline gintegrand_t suite_family(int family, int gpu)
{
#ifdef SUITE_HAVE_CU
  gintegrand_t cu[] = {f1_cu, f2_cu, f3_cu, f4_cu, f5_cu, f6_cu, f7_cu, f8_cu};
#endif
  gintegrand_t c[] = {f1_c, f2_c, f3_c, f4_c, f5_c, f6_c, f7_c, f8_c};
  if (family < 1 || family > 8) return 0;
#ifdef SUITE_HAVE_CU
  if (gpu) return cu[family - 1];
#else
  if (gpu) return 0;
#endif
  return c[family - 1];
}

#endif
