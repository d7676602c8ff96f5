/* src/cuhre/outcome.c -- how a gCuhre call ends, said once for every
   executor of the policy (gcuba/detail/cuhre_policy.h): the driver's loop and
   the batch pipeline's integrals.  This file is part of gcuba. */
#include "cuhre/cuhre.h"
#include "gcuba/detail/cuhre_policy.h"

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
  default:
    break;
  }
}
