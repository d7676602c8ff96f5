/* src/plan/check.c -- the arguments of every routine, checked before any
   work: each bad argument gives its own fail code and, at verbosity >= 1,
   a message; a collective call's arguments agree on every process.  This
   file is part of gcuba. */
#include <limits.h>
#include <math.h>
#include <string.h>
#include "plan/plan_int.h"
#include "common/coll.h"
#include "common/state.h"

/* what every routine takes */
static int check_common(gcuba_call *c, int mindim, int maxdim)
{
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

/* a string's hash, in lower case, without a leading "ll" (gCuhre,
   llgCuhre and Fortran's gcuhre are one routine) */
static long long hash_name(const char *s)
{
  uint64_t h = GCUBA_FNV_SEED;
  if ((s[0] == 'l' || s[0] == 'L') && (s[1] == 'l' || s[1] == 'L')) s += 2;
  for (; *s; ++s) {
    unsigned char ch = (unsigned char)*s;
    if (ch >= 'A' && ch <= 'Z') ch += 'a' - 'A';
    h = gcuba_fnv1a(&ch, 1, h);
  }
  return (long long)(h >> 1);
}

int gcuba_plan_check(gcuba_call *c, int r)
{
  int rc;
  if (r == GCUBA_ROUTINE_CUHRE)
    return check_common(c, 1, GCUBA_CUHRE_MAXDIM);
  if (r == GCUBA_ROUTINE_ROMBERG) {
    if ((rc = check_common(c, 1, 1))) return rc;
    /* levels 0 and 1 (3 points) give the first error estimate */
    if (c->maxeval < 3)
      return gcuba_fail(c, GCUBA_FAIL_EVALS,
                        "maxeval = %lld: gRomberg needs at least 3 "
                        "evaluations (levels 0 and 1) for an error estimate",
                        c->maxeval);
    return 0;
  }
  if ((rc = check_common(c, 1, GCUBA_MAXDIM))) return rc;
  if (r == GCUBA_ROUTINE_DIVONNE) {
    if (c->key1 == 0 || c->key2 == 0)
      return gcuba_fail(c, GCUBA_FAIL_PARAM,
                        "key1 = %d, key2 = %d: 0 selects no sampler (7, 9, "
                        "11, 13: a rule; other values: points, doc/"
                        "divonne.md)", c->key1, c->key2);
    if (c->maxpass < 0 || !(c->border >= 0 && c->border < .5) ||
        !(c->maxchisq >= 0) || !(c->mindeviation >= 0))
      return gcuba_fail(c, GCUBA_FAIL_PARAM,
                        "maxpass = %d (>= 0), border = %g (0 <= border < "
                        "0.5), maxchisq = %g (>= 0), mindeviation = %g "
                        "(>= 0)", c->maxpass, c->border, c->maxchisq,
                        c->mindeviation);
    if (c->ngiven < 0 || c->nextra < 0 ||
        (c->ngiven > 0 && (!c->xgiven || c->ldxgiven < c->ndim)) ||
        (c->nextra > 0 && !c->peakfinder) || c->nextra > INT_MAX)
      return gcuba_fail(c, GCUBA_FAIL_PARAM,
                        "ngiven = %lld with xgiven %s and ldxgiven = %d "
                        "(>= ndim = %d), nextra = %lld with peakfinder %s",
                        c->ngiven, c->xgiven ? "given" : "NULL",
                        c->ldxgiven, c->ndim, c->nextra,
                        c->peakfinder ? "given" : "NULL");
    return 0;
  }
  if (r == GCUBA_ROUTINE_SUAVE) {
    if (c->nnew < 2 || c->nmin < 0 || !(c->flatness > 0) ||
        !(c->flatness < 1e300))
      return gcuba_fail(c, GCUBA_FAIL_PARAM,
                        "nnew = %lld (>= 2), nmin = %lld (>= 0), flatness = "
                        "%g (> 0)", c->nnew, c->nmin, c->flatness);
    if (c->maxeval < 2)
      return gcuba_fail(c, GCUBA_FAIL_EVALS, "maxeval = %lld: gSuave needs at "
                        "least 2 evaluations (a set of samples)", c->maxeval);
    return 0;
  }
  if (c->nstart < 2 || c->nincrease < 0 || c->nbatch < 1 || c->gridno < -10 ||
      c->gridno > 10)
    return gcuba_fail(c, GCUBA_FAIL_PARAM,
                      "nstart = %lld (>= 2), nincrease = %lld (>= 0), nbatch "
                      "= %lld (>= 1), gridno = %d (-10..10)",
                      c->nstart, c->nincrease, c->nbatch, c->gridno);
  return 0;
}

void gcuba_plan_zero(gcuba_call *c)
{
  int i;
  for (i = 0; i < c->ncomp; ++i) c->integral[i] = c->error[i] = c->prob[i] = 0;
}

/* A collective call: the processes must have passed the same arguments
   (the integrand is compared by its name, userdata not at all). */
int gcuba_plan_agree_args(gcuba_call *c, int nullout)
{
  static const char *const what[] = {
      "the routine", "ndim", "ncomp", "the integrand", "nvec", "epsrel",
      "epsabs", "flags", "seed", "mineval", "maxeval", "key", "nstart",
      "nincrease", "nbatch", "gridno", "statefile", "the output pointers "
      "(NULL or not)"};
  long long v[18];
  const char *name = c->integrand && c->integrand->abi == GCUBA_ABI_VERSION
                         ? c->integrand->name
                         : NULL;
  union {
    double d;
    long long l;
  } u;
  v[0] = hash_name(c->routine);
  v[1] = c->ndim;
  v[2] = c->ncomp;
  v[3] = !c->integrand ? 0 : name ? hash_name(name)
                                  : 1;
  v[4] = c->nvec;
  u.d = c->epsrel;
  v[5] = u.l;
  u.d = c->epsabs;
  v[6] = u.l;
  v[7] = c->flags & ~3; /* the verbosity may differ */
  v[8] = c->seed;
  v[9] = c->mineval;
  v[10] = c->maxeval;
  v[11] = c->key;
  v[12] = c->nstart;
  v[13] = c->nincrease;
  v[14] = c->nbatch;
  v[15] = c->gridno;
  v[16] = c->statefile ? (long long)(gcuba_fnv1a(c->statefile,
                                                     strlen(c->statefile),
                                                     GCUBA_FNV_SEED) >> 1)
                   : 0;
  v[17] = nullout || !c->integral || !c->error || !c->prob;
  return gcuba_coll_agree(c, v, 18, what);
}
