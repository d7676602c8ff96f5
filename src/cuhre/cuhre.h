/* src/cuhre/cuhre.h -- the gCuhre driver.  This file is part of gcuba. */
#ifndef GCUBA_CUHRE_H
#define GCUBA_CUHRE_H
#include "common/common.h"
#include "cuhre/backend.h"

#ifdef __cplusplus
extern "C" {
#endif
/* Integrates c (arguments checked, backend chosen by the plan) over the
   backend ops; sets the outputs and c->fail: two and more dimensions
   (driver.c), one dimension (oned.c) */
void gcuba_cuhre_drive(gcuba_call *c, const gcuba_cuhre_ops *ops);
void gcuba_cuhre1d_drive(gcuba_call *c, const gcuba_cuhre_ops *ops);
/* What an executor of the policy knows of an outcome, for its message:
   the worst component's finished error and tolerance, the region limit,
   a bisection's evaluations; at the rounding floor (gcuba_cuhre_roundoff)
   the error where it stalled (in units of the tolerance), from which
   neval, the error in rounding units of the total (< 0: no such test,
   one dimension), and whether the tolerance lies below the floor. */
typedef struct gcuba_cuhre_why {
  double finerr, budget;
  int worst;
  long long maxregions;
  int bisection;
  double stall_r, units;
  long long stall_neval;
  int below;
} gcuba_cuhre_why;
/* The end of c with outcome o (GCUBA_CUHRE_CONVERGED .. ROUNDOFF,
   gcuba/detail/cuhre_policy.h): c->fail, and at verbosity 1 the message every
   executor gives (the driver's, the batch pipeline's). */
void gcuba_cuhre_outcome(gcuba_call *c, int o, const gcuba_cuhre_why *w);
/* the most regions GCUBA_MEMLIMIT (or the host's memory) allows at per
   bytes each (0: the CPU backend's); 1 << 62 for a device store without
   GCUBA_MEMLIMIT */
long long gcuba_cuhre_max_regions(const gcuba_call *c, int device,
                                  long long per);
#ifdef __cplusplus
}
#endif

#endif
