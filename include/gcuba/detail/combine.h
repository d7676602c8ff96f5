/* gcuba/detail/combine.h -- the running combination of iteration estimates
   behind `prob' (Vegas's iterations, Cuhre's iteration totals): the
   accumulator and its update, host and device (gCuhreBatch's GPU loop
   adds to it on the device; src/common/chisq.h reads the result).
   This file is part of gcuba. */
#ifndef GCUBA_COMBINE_H
#define GCUBA_COMBINE_H

#include "gcuba/hd.h"

typedef struct {
  long n;       /* iterations added */
  double wsum;  /* sum of w_k */
  double wisum; /* sum of w_k I_k */
  double ref;   /* I_0: the shift of the chi^2 sums */
  double csum;  /* sum of w_k (I_k - I_0) */
  double cisum; /* sum of w_k (I_k - I_0) I_k */
  double last;  /* I of the latest iteration */
  double lastw; /* its weight */
} gcuba_vegas_combine_t;

/* Cuba's variance floor 2^-104 for the unnormalised variance */
#define GCUBA_COMBINE_VARFLOOR \
  (1.0 / 20282409603651670423947251286016.0)

/* add one iteration: its integral estimate, variance and sample count */
GCUBA_HD static inline void gcuba_vegas_combine_add(gcuba_vegas_combine_t *c,
                                                    double integral,
                                                    double var, double calls)
{
  double vmin = GCUBA_COMBINE_VARFLOOR / (calls >= 2 ? calls - 1 : 1), w;
  if (var < vmin) var = vmin;
  w = 1 / var;
  c->wsum += w;
  c->wisum += w * integral;
  if (c->n == 0) c->ref = integral;
  else {
    double t = w * (integral - c->ref);
    c->csum += t;
    c->cisum += t * integral;
  }
  c->last = integral;
  c->lastw = w;
  ++c->n;
}

#endif /* GCUBA_COMBINE_H */
