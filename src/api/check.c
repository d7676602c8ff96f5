/* src/api/check.c -- argument checks shared by gCuhre and gVegas, done
   before any work: each bad argument gives its own fail code and, at
   verbosity >= 1, a message.  This file is part of gcuba. */
#include <math.h>
#include "common/common.h"

int gcuba_check_common(gcuba_call *c, int mindim, int maxdim)
{
  if (gcuba_env_check(c)) return c->fail;
  if (!c->integrand)
    return gcuba_fail(c, GCUBA_FAIL_NULL, "integrand is NULL");
  if (c->integrand->abi != GCUBA_ABI_VERSION) {
    /* an older header's descriptor, or no descriptor at all: a plain
       function passed where GCUBA_INTEGRAND's object belongs (the
       "abi" read is then the function's first machine code bytes) */
    if (c->integrand->abi >= 1 && c->integrand->abi < GCUBA_ABI_VERSION)
      return gcuba_fail(c, GCUBA_FAIL_ABI,
                        "the integrand was compiled against an older "
                        "gcuba.h (descriptor version %d, library %d): "
                        "recompile the file that defines it",
                        c->integrand->abi, GCUBA_ABI_VERSION);
    return gcuba_fail(c, GCUBA_FAIL_ABI,
                      "the integrand argument is not a gcuba integrand: "
                      "define it with GCUBA_INTEGRAND(name)(const int *ndim, "
                      "const double x[], const int *ncomp, double f[], void "
                      "*userdata) { ... } and declare it elsewhere with "
                      "GCUBA_DECLARE_INTEGRAND(name); a plain Cuba function "
                      "f is passed as gcuba_host_integrand(f, 0)");
  }
  if (!c->integrand->fn)
    return gcuba_fail(c, GCUBA_FAIL_NULL, "integrand has no host function");
  if (c->ndim < mindim || c->ndim > maxdim)
    return gcuba_fail(c, GCUBA_FAIL_NDIM, "ndim = %d, allowed %d..%d",
                      c->ndim, mindim, maxdim);
  if (c->ncomp < 1 || c->ncomp > GCUBA_MAXCOMP)
    return gcuba_fail(c, GCUBA_FAIL_NCOMP, "ncomp = %d, allowed 1..%d",
                      c->ncomp, GCUBA_MAXCOMP);
  if (!c->integral || !c->error || !c->prob)
    return gcuba_fail(c, GCUBA_FAIL_NULL,
                      "integral, error or prob is NULL");
  if (!(c->epsrel >= 0) || !(c->epsabs >= 0))
    return gcuba_fail(c, GCUBA_FAIL_TOLERANCE, "epsrel = %g, epsabs = %g",
                      c->epsrel, c->epsabs);
  if (c->nvec < 1)
    return gcuba_fail(c, GCUBA_FAIL_EVALS, "nvec = %lld, must be >= 1",
                      c->nvec);
  if (c->mineval < 0 || c->maxeval < c->mineval)
    return gcuba_fail(c, GCUBA_FAIL_EVALS,
                      "mineval = %lld, maxeval = %lld (need 0 <= mineval <= "
                      "maxeval)",
                      c->mineval, c->maxeval);
  return 0;
}
