/* src/cuhre/outcome.c -- how a gCuhre call ends, said once for every
   executor of the policy (gcuba/detail/cuhre_policy.h): the driver's loop and
   the batch pipeline's integrals.  This file is part of gcuba. */
#include "cuhre/cuhre.h"
#include "gcuba/detail/cuhre_policy.h"

/* gcuba_cuhre_fail's 2 is gcuba.h's GCUBA_FAIL_ROUNDOFF */
typedef char gcuba_cuhre_roundoff_is_2[GCUBA_FAIL_ROUNDOFF == 2 ? 1 : -1];

void gcuba_cuhre_outcome(gcuba_call *c, int o, const gcuba_cuhre_why *w)
{
  c->fail = gcuba_cuhre_fail(o);
  switch (o) {
  case GCUBA_CUHRE_FINERR:
    gcuba_log(c, 1, "the finished regions' error %.3g of component %d is "
              "above its tolerance %.3g (an integrand changing sign? try "
              "flags GCUBA_NORELFINISH)", w->finerr, w->worst + 1,
              w->budget);
    break;
  case GCUBA_CUHRE_MAXEVAL:
    gcuba_log(c, 1, "maxeval %lld reached (%lld evaluations, a bisection "
              "costs %d)", c->maxeval, c->neval, w->bisection);
    break;
  case GCUBA_CUHRE_NOMEM:
    gcuba_log(c, 1, "out of memory for regions (limit %lld): the best "
              "estimate is returned", w->maxregions);
    break;
  case GCUBA_CUHRE_ROUNDOFF:
    if (w->below)
      gcuba_log(c, 1, "the tolerance and the error (%.1f rounding units "
                "of the total) lie below twice the rounding floor of the "
                "total (%d units each): the estimate is the best that can "
                "be certified", w->units, GCUBA_CUHRE_ROUND);
    else if (w->units >= 0)
      gcuba_log(c, 1, "the error has stayed at %.3g of the tolerance from "
                "%lld to %lld evaluations, %.0f rounding units of the "
                "total: the rounding of the integrand's values sets a floor "
                "above the tolerance; the estimate is the best the rules "
                "certify", w->stall_r, w->stall_neval, c->neval, w->units);
    else
      gcuba_log(c, 1, "the error has stayed at %.3g of the tolerance from "
                "%lld to %lld evaluations: the rounding errors of the "
                "integrand's values (an integral much smaller than that of "
                "|f|?) set a floor above the tolerance", w->stall_r,
                w->stall_neval, c->neval);
    break;
  default:
    break;
  }
}
