/* src/divonne/topup.c -- gDivonne's top-up after the final phase: while
   the final error misses the tolerance, one more shifted copy for the
   region whose variance weighs most; and the variance statistics the
   driver shares with it (the widening of the total, inflate).
   The region of most weight is kept by one indexed binary heap per
   component, so that a copy costs O(log regions) and not a pass over
   every region (8-D Gaussians at epsrel 1e-6, maxeval 2e7: 19,699
   regions, 140,000 copies, 15 s of passes).  This file is part of
   gcuba. */
#include <pthread.h>
#include <math.h>
#include <setjmp.h>
#include <stdlib.h>
#include "divonne/divonne_int.h"
#include "common/chisq.h"
#include "common/wheap.h"

/* dof / chi^2_dof(5%): the factor that takes a variance estimated with
   dof degrees of freedom to the one the true variance exceeds with 5%
   probability.  Computed once per process for dof below NQ05 (a
   quantile costs thousands of terms of a series, and the top-up asks
   for it at every copy) */
#define NQ05 1024
static double q05[NQ05];
static pthread_mutex_t q05_lock = PTHREAD_MUTEX_INITIALIZER;

static double upper95(int dof)
{
  double f;
  if (dof >= NQ05) return dof / gcuba_chisq_quantile(.05, dof);
  pthread_mutex_lock(&q05_lock);
  f = q05[dof];
  pthread_mutex_unlock(&q05_lock);
  if (f) return f;
  f = dof / gcuba_chisq_quantile(.05, dof);
  pthread_mutex_lock(&q05_lock);
  q05[dof] = f;
  pthread_mutex_unlock(&q05_lock);
  return f;
}

/* The final variance is a sum of the regions' estimates, those of the
   shifted lattices with DIV_COPIES - 1 degrees of freedom each.  When a
   few regions dominate it, the sum has few degrees of freedom
   (Satterthwaite's nu = (sum v)^2 / sum v^2 / nu_r) and may well be far
   below the true variance: the factor nu / chi^2_nu(5%) makes the error
   one that the true variance exceeds with 5% probability.  (Student's t
   instead, which asks only that the answer lie within 4 errors, made 11
   claims more than 4 errors off on Genz's protocol against 1) */
double gcuba_divonne_inflate(divonne *d, const dtot *t)
{
  double nu;
  int dof;
  if (!(t->sigw > 0)) return 1;
  nu = t->sigsq * t->sigsq / t->sigw;
  if (nu > 1e5) return 1;
  dof = nu < 1 ? 1 : (int)floor(nu);
  if (dof < NQ05) return upper95(dof);
  /* the call's last one above the table (the top-up asks at every copy,
     and the degrees of freedom move slowly) */
  if (dof != d->qdof) {
    d->qval = upper95(dof);
    d->qdof = dof;
  }
  return d->qval;
}

/* upper95, beyond NUCB degrees of freedom approximated */
#define NUCB 64
static double upper(int dof)
{
  return dof >= NUCB ? 1 + 2.33 / sqrt(dof) : upper95(dof);
}

/* region i's weight for component cc, 0 when it has no say (fewer than
   two copies; a weight that is not positive is never the most) */
static double weight(const dreg *r, int cc)
{
  double w;
  if (r->ncopy < 2) return 0;
  w = gcuba_divonne_cvar(r, cc) * upper(r->ncopy - 1);
  return w > 0 ? w : 0;
}

/* While the final error misses the tolerance and maxeval allows, the
   region whose variance weighs most against the tolerance gets one more
   shifted copy: its variance falls and gains a degree of freedom, which
   also narrows the widening of the total.  The variances are weighed at
   their upper 95% bounds: three copies that happen to agree closely (2
   degrees of freedom) would otherwise never be looked at again (Genz's
   10-D discontinuous family: a region's 3 copies 16 times closer than
   300 copies scatter, its estimate 20 errors off).  Cuba has no such
   pass (its error never asks for one); without it the final phase's
   uniform sizing leaves the budget unused where a few regions dominate
   the error.  The region picked is the one of largest weight over the
   components, the first in the list among equals: one heap per component
   (src/common/wheap.h) keyed by the weight before its division by the
   tolerance squared, which is the same for every region. */
void gcuba_divonne_more_copies(divonne *d)
{
  gcuba_call *c = d->c;
  const int nc = d->ncomp;
  const long long nr = d->nreg;
  double a[GCUBA_MAXCOMP];
  gcuba_wheap q[GCUBA_MAXCOMP];
  long long i, ncopies = 0;
  int cc;
  d->phase = 2;
  /* (in d: a failed evaluation longjmps out, and teardown frees them) */
  free(d->hpos);
  free(d->hkey);
  d->hpos = (long long *)malloc(sizeof(long long) * 2 * (size_t)(nr + 1) *
                                (size_t)nc);
  d->hkey = (double *)malloc(sizeof(double) * (size_t)(nr + 1) * (size_t)nc);
  if (!d->hpos || !d->hkey) {
    d->fail = gcuba_fail(c, GCUBA_FAIL_NOMEM, "gDivonne's top-up");
    longjmp(d->abort, 1);
  }
  for (cc = 0; cc < nc; ++cc) {
    gcuba_wheap *h = &q[cc];
    h->h = d->hpos + (size_t)2 * cc * (size_t)(nr + 1);
    h->pos = h->h + nr + 1;
    h->key = d->hkey + (size_t)cc * (size_t)(nr + 1);
    for (i = 0; i < nr; ++i) h->key[i] = weight(d->reg[i], cc);
    gcuba_wheap_build(h, nr);
  }
  for (;;) {
    dreg *best = NULL;
    long long ib = -1;
    double worst = 0;
    int done = 1;
    gcuba_divonne_checkpoint(d, 0);
    for (cc = 0; cc < nc; ++cc) {
      const dtot *t = &d->tot[cc];
      const double e = gcuba_divonne_maxerr(d, t->integral);
      /* (the factor is at least 1: no need to ask for it above e^2) */
      if (t->sigsq > e * e ||
          t->sigsq * gcuba_divonne_inflate(d, t) > e * e)
        done = 0;
    }
    if (done) break;
    for (cc = 0; cc < nc; ++cc) {
      const double e = gcuba_divonne_maxerr(d, d->tot[cc].integral);
      long long top;
      double w;
      if ((top = gcuba_wheap_top(&q[cc])) < 0) continue;
      w = q[cc].key[top] / (e * e);
      if (w > worst || (w == worst && w > 0 && top < ib)) {
        worst = w;
        ib = top;
      }
    }
    if (ib >= 0) best = d->reg[ib];
    if (!best || d->neval + best->cp > c->maxeval) break;
    gcuba_divonne_copy(d, best, a);
    ++ncopies;
    for (cc = 0; cc < nc; ++cc) {
      dtot *t = &d->tot[cc];
      /* Welford's update of the mean and the squared deviations */
      const int n0 = best->ncopy;
      const double m0 = best->csum[cc], v0 = gcuba_divonne_cvar(best, cc);
      const double delta = a[cc] - m0;
      double v1;
      best->csum[cc] = m0 + delta / (n0 + 1);
      best->csq[cc] += delta * (a[cc] - best->csum[cc]);
      best->ncopy = n0 + 1;
      v1 = gcuba_divonne_cvar(best, cc);
      best->ncopy = n0;
      t->integral += best->csum[cc] - m0;
      t->sigsq += v1 - v0;
      t->sigw += v1 * v1 / n0 - v0 * v0 / (n0 - 1);
      best->avg[cc] = best->csum[cc];
      best->spread[cc] = sqrt(v1);
    }
    ++best->ncopy;
    for (cc = 0; cc < nc; ++cc)
      gcuba_wheap_rekey(&q[cc], ib, weight(best, cc));
  }
  if (ncopies)
    gcuba_log(c, 2, "%lld more copies of the regions of largest variance",
              ncopies);
}
