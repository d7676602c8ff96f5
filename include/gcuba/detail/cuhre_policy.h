/* gcuba/detail/cuhre_policy.h -- gCuhre's policy, written once: where a call
   starts, when it stops and with which outcome, which leaves it finishes,
   keeps or splits, how many it splits in one iteration, and where it cuts
   them.  Plain data and host/device step functions, called by every
   executor of the policy: the driver (src/cuhre/, on the host over the
   CPU or the CUDA backend, one GPU or a distributed store over several),
   the backends' per-leaf passes, and gCuhreBatch's GPU pipeline
   (cuda/batch.cu, one integral per thread block), so that they follow
   one policy.  This file is part of gcuba. */
#ifndef GCUBA_CUHRE_POLICY_H
#define GCUBA_CUHRE_POLICY_H

#include <float.h>
#include <limits.h>
#include <math.h>
#include "gcuba/hd.h"
#include "gcuba/detail/combine.h"
#include "gcuba/detail/cut.h"

/* the regions split in one iteration carry GAMMA times the excess of
   the error over the tolerance (in units of the tolerance) */
#define GCUBA_CUHRE_GAMMA 0.5
/* and at least this fraction of the regions that carry all but SIGTAIL
   of the error */
#define GCUBA_CUHRE_BATCHFRAC 0.05
#define GCUBA_CUHRE_SIGTAIL 1e-3
/* the first NFULL iterations split every region: two levels of
   refinement everywhere before any region is judged (with one, f7 8D
   claims 4e-5 at 596 regions with a true error of 5e-5, as PAGANI and
   Cuba do) */
#define GCUBA_CUHRE_NFULL 2
/* The budget decides the start.  When maxeval pays for LARGE times the
   uniform start (2 parts along each of the first 10 axes) that start is
   taken, with the NFULL full splits: breadth from the first iteration, as
   a GPU needs.  Below, the run starts from the unit cube as Cuba's Cuhre
   does, and each iteration spends at most GROWTH times the evaluations
   made so far (at least one bisection): a Cuba-sized budget is spent
   nearly one worst region at a time, a larger one grows geometrically
   into GPU-sized batches.  The cap depends on what was spent, not on
   maxeval, so that a run resumed from a state file follows the path of
   an uninterrupted one. */
#define GCUBA_CUHRE_LARGE 64
#define GCUBA_CUHRE_GROWTH 0.1
/* relative-error finishing: the finished regions' errors may take up to
   FINMAX of the tolerance, one iteration's at most FINSTEP of what is left
   of that; when they would take more, the threshold (in units of epsrel)
   is divided by RELSTEP, and finishing stops below RELMIN.  Integrands
   that change sign end there; positive ones only need a smaller threshold
   (switching it off instead costs them 5x more evaluations: f4 5D at
   6.4e-8).  With FINMAX 0.5 and FINSTEP 0.5 the finished errors took half
   of the tolerance within a few iterations and finishing stopped for good:
   f4 5D at 2.56e-9 needed 2.9e10 evaluations (9.1e8 now), f2 6D at 3.2e-7
   did not converge within 1e11 (7.1e10 now) */
#define GCUBA_CUHRE_FINMAX 0.75
#define GCUBA_CUHRE_FINSTEP 0.25
#define GCUBA_CUHRE_RELSTEP 4.0
#define GCUBA_CUHRE_RELMIN 1e-4
/* the rounding term of a total's error, in rounding units of the total
   (gcuba_cuhre_totals): with compensated sums (gcuba_ksum) the totals of
   3-D Gaussians and exponentials were within 1.9 units of the truth, and
   no claim at epsrel 1e-16 .. 1e-15 was false; without the term 15 of
   34 claims at 1e-16 were */
#define GCUBA_CUHRE_ROUND 2

/* The backend holds every leaf region of the current partition with its
   cached result (avg, err per component, split axes); new regions (the
   children of the last split) wait to be evaluated.  Each iteration the
   driver classifies the leaves by their key max_c err_c / budget[c]:
     - finished: relfinish and err_c <= max(epsabs vol, epsrel |avg_c|)
       for every c (PAGANI's relative-error classification; vol is the
       leaf's volume, its share of the unit cube and so of an absolute
       tolerance), or key <=
       fin_thresh (eviction when memory runs short; < 0: none).  Their
       avg and err move to the driver's finished totals for good.
     - split: not finished and key >= split_thresh: bisected along the
       split axis of their component with the largest err_c/budget[c].
     - kept: the rest, cached, not evaluated again.                      */
typedef struct gcuba_classify {
  int relfinish;
  double epsrel, epsabs;
  double fin_thresh, split_thresh;
  long long split_max;  /* split at most this many (the first in leaf
                           order); < 0: no limit */
  const double *budget; /* [ncomp], > 0 */
  int nocut;            /* split leaves at their middle, without looking
                           for where to cut (gcuba/detail/cut.h) */
} gcuba_classify;

/* Keys are binned on a log scale for the threshold search:
   bin j (0 <= j < GCUBA_HIST_BINS) holds keys in
   [2^(GCUBA_HIST_LOG2MIN + j/GCUBA_HIST_PEROCT), next), the first and last
   bins also everything below and above; key 0 goes to bin 0. */
#define GCUBA_HIST_PEROCT 8
#define GCUBA_HIST_LOG2MIN (-64)
#define GCUBA_HIST_BINS (128 * GCUBA_HIST_PEROCT)

typedef struct gcuba_hist {
  long long count[GCUBA_HIST_BINS]; /* regions not finished by relfinish;
                                       a bin's keys add up to
                                       gcuba_hist_keysum(count, bin): the
                                       same on every backend */
  long long nrel;                   /* regions finished by relfinish */
} gcuba_hist;

/* Neumaier's compensated sum, for the totals of the leaves' integrals:
   x added to the sum *s with compensation *k; the sum is *s + *k.  The
   null rules cannot see the rounding of a plain sum over 10^4-10^5
   leaves: 3-D Gaussians at epsrel 1e-15 were 5-43 rounding units of the
   total off, 43 of 100 claims false (none now, and none at 1e-16). */
GCUBA_HD static inline void gcuba_ksum(double *s, double *k, double x)
{
  const double u = *s + x;
  *k += fabs(*s) >= fabs(x) ? (*s - u) + x : (x - u) + *s;
  *s = u;
}

/* the volume of a leaf of widths w[ndim] (the product in axis order:
   every backend gets the same bits) */
GCUBA_HD static inline double gcuba_leaf_vol(const double *w, int ndim)
{
  double v = 1;
  int d;
  for (d = 0; d < ndim; ++d) v *= w[d];
  return v;
}

/* the tolerance of a component whose total is tot: Cuba's
   max(epsabs, epsrel |tot|), never 0.  The driver's budget; a backend that
   forms it on the device after a hint must get the same bits. */
GCUBA_HD static inline double gcuba_budget(double tot, double epsrel,
                                           double epsabs)
{
  double b = fabs(tot) * epsrel;
  b = b > epsabs ? b : epsabs;
  return b > 0 ? b : 1e-300;
}

/* bin of a key (shared by every backend) */
GCUBA_HD static inline int gcuba_hist_bin(double key)
{
  int e;
  double m;
  if (!(key > 0)) return 0;
  m = frexp(key, &e); /* key = m 2^e, m in [0.5, 1) */
  e = (e - 1 - GCUBA_HIST_LOG2MIN) * GCUBA_HIST_PEROCT +
      (int)((2 * m - 1) * GCUBA_HIST_PEROCT);
  return e < 0 ? 0 : e >= GCUBA_HIST_BINS ? GCUBA_HIST_BINS - 1 : e;
}
/* lower edge of bin j, and its middle */
GCUBA_HD static inline double gcuba_hist_edge(int j)
{
  return ldexp(1 + (double)(j % GCUBA_HIST_PEROCT) / GCUBA_HIST_PEROCT,
               GCUBA_HIST_LOG2MIN + j / GCUBA_HIST_PEROCT);
}
GCUBA_HD static inline double gcuba_hist_mid(int j)
{
  /* 0.5 (edge(j) + edge(j + 1)), exactly: (1 + (2k + 1)/16) 2^e */
  return ldexp(1 + (double)(2 * (j % GCUBA_HIST_PEROCT) + 1) /
               (2 * GCUBA_HIST_PEROCT),
               GCUBA_HIST_LOG2MIN + j / GCUBA_HIST_PEROCT);
}
/* count * mid of bin j (most bins are empty: no ldexp for them) */
GCUBA_HD static inline double gcuba_hist_keysum(long long count, int j)
{
  return count ? (double)count * gcuba_hist_mid(j) : 0.0;
}


/* The relative-error finishing threshold at the start, in units of
   epsrel.  With the degree-11 rule (3-D) some regions in the tails of a
   Gaussian peak pass the test while their true errors are well above
   their estimates, all of one sign: of 100,000 3-D peaks (widths
   0.05-0.5) at epsrel 1e-6, 6 were claimed with true errors of 1.05-1.58
   times the tolerance, all from finished regions (without relative-error
   finishing their true errors were below 0.06 of it).  At half the
   threshold those regions are split instead: 0 of the 100,000, and 0.02%
   more evaluations.  The other rules are not affected (the Genz protocol,
   5-10 D, has no false claim at the full threshold). */
#ifndef GCUBA_CUHRE_REL0_DEG11
#define GCUBA_CUHRE_REL0_DEG11 0.5
#endif
GCUBA_HD static inline double gcuba_cuhre_relfrac0(int degree)
{
  return degree == 11 ? GCUBA_CUHRE_REL0_DEG11 : 1.0;
}

/* the first component whose finished errors, with relerr[c] more, would
   take more than FINSTEP of what FINMAX of its tolerance leaves; ncomp
   when none (relative-error finishing may go on at this threshold) */
GCUBA_HD static inline int gcuba_cuhre_relfinish_over(int ncomp,
  const double *relerr, const double *budget, const double *finerr)
{
  int c;
  for (c = 0; c < ncomp; ++c)
    if (relerr[c] > GCUBA_CUHRE_FINSTEP *
                        (GCUBA_CUHRE_FINMAX * budget[c] - finerr[c]))
      return c;
  return ncomp;
}

/* Cuba's test for one component, with the change since the last
   iteration (pass: the count of iterations in a row that passed, kept by
   the caller): at coarse partitions the rules can agree with each other
   and still be wrong (f7 8D at 512 regions: error 3.8e-5, true error
   5.5e-5).  An estimate without any variation (every point of every rule
   alike, as when all of them miss where the integrand lives) is no
   evidence: 0 +- 0 is not accepted (the Genz discontinuous family with
   its cut near a face: 0 +- 0 after one bisection). */
GCUBA_HD static inline int gcuba_cuhre_passes(double tot, double err,
                                              double prev, double budget)
{
  return err + fabs(tot - prev) <= budget && !(err == 0 && tot == 0);
}

/* One iteration's split (after the first NFULL): how many regions the
   budget allows and which keys to split, from the histogram h of the n
   leaves' keys. */
typedef struct gcuba_cuhre_plan {
  /* in */
  long long n;          /* leaves */
  long long minbatch;   /* the backend's fewest regions per split */
  long long neval, maxeval, maxregions;
  int nevals;           /* evaluations per region (rule and probes) */
  int small;            /* started from one region: GROWTH caps */
  double target;        /* GAMMA times the excess, in key units */
  /* out */
  long long nsplit;     /* regions to split */
  long long room;       /* leaves memory holds beyond the kept ones */
  long long evicted;    /* smallest-key leaves finished for memory */
  int capped;           /* cut short by what maxeval leaves */
  int offpath;          /* split less than a larger maxeval would */
  int squeezed;         /* fewer split than chosen, for memory */
} gcuba_cuhre_plan;

/* Split the leaves of largest key until their keys add up to target,
   but at least a minimum batch (BATCHFRAC of the regions that carry all
   but SIGTAIL of the error, and p->minbatch), at most what maxeval
   leaves (and, started small, GROWTH times the evaluations so far);
   evict (finish) the leaves of smallest key when the partition would
   not fit in memory.  Fills cl's thresholds and split_max.  Returns 0,
   or 1 when memory cannot hold a useful split. */
GCUBA_HD static inline int gcuba_cuhre_plan_split(const gcuba_hist *h,
  gcuba_cuhre_plan *p, gcuba_classify *cl)
{
  long long nsplit = 0, nkeep = p->n - h->nrel, minbatch, left, cap;
  long long capfree = LLONG_MAX, mbfree; /* the same without maxeval */
  double keys = 0;
  int j, top, jlo, jhi;
  {
    /* at least BATCHFRAC of the regions that carry all but SIGTAIL of the
       error (in key units) are split: the many negligible ones, kept when
       relative-error finishing is lowered or off, must not swell the batch
       (f4 5D at 1.024e-10 split 5% of all regions per iteration and ran
       into the memory limit after 6.5e11 evaluations) */
    double total = 0, acc = 0;
    long long nsig = 0;
    /* the bins in use, [jlo, jhi] (empty bins add nothing: the sums are
       the same bits as over all of them, in a fraction of the time) */
    for (jhi = GCUBA_HIST_BINS - 1; jhi > 0 && !h->count[jhi]; --jhi)
      continue;
    for (jlo = 0; jlo < jhi && !h->count[jlo]; ++jlo) continue;
    for (j = jlo; j <= jhi; ++j) total += gcuba_hist_keysum(h->count[j], j);
    for (j = jhi; j >= jlo && acc < (1 - GCUBA_CUHRE_SIGTAIL) * total; --j) {
      acc += gcuba_hist_keysum(h->count[j], j);
      nsig += h->count[j];
    }
    minbatch = (long long)(GCUBA_CUHRE_BATCHFRAC * nsig);
  }
  if (minbatch < p->minbatch) minbatch = p->minbatch;
  /* the most regions this iteration may split: what maxeval leaves, and
     (started small) GROWTH times the evaluations so far */
  left = (p->maxeval - p->neval) / (2 * p->nevals);
  if (p->small) {
    capfree = (long long)(GCUBA_CUHRE_GROWTH * p->neval /
                          (2.0 * p->nevals));
    if (capfree < 1) capfree = 1;
  }
  cap = left < capfree ? left : capfree;
  if (cap < 1) cap = 1; /* the caller checked that one bisection fits */
  mbfree = minbatch < capfree ? minbatch : capfree;
  if (minbatch > cap) minbatch = cap;
  p->capped = p->squeezed = 0;
  p->evicted = 0;
  cl->fin_thresh = -1;
  cl->split_thresh = HUGE_VAL;
  cl->split_max = -1;
  /* from the largest keys down */
  for (top = jhi; top >= jlo; --top) {
    nsplit += h->count[top];
    keys += gcuba_hist_keysum(h->count[top], top);
    if ((keys >= p->target && nsplit >= minbatch) || nsplit >= cap) break;
  }
  /* where a larger maxeval would have split more (the bins' loop
     stopped at what maxeval leaves before the target and the batch
     without it were reached, or the batch is cut below them), the path
     is not that of a larger maxeval (p->offpath) */
  p->offpath = cap < capfree &&
               (nsplit > cap ||
                (top >= jlo && !((keys >= p->target && nsplit >= mbfree) ||
                                 nsplit >= capfree)));
  if (top < jlo) top = 0;
  if (nsplit > cap) {
    cl->split_max = cap;
    nsplit = cap;
    if (cap == left) p->capped = 1;
  }
  cl->split_thresh = top > 0 ? gcuba_hist_edge(top) : 0;
  nkeep -= nsplit;
  p->nsplit = nsplit;
  /* memory: each split adds one leaf */
  p->room = p->maxregions - (nkeep + nsplit);
  if (nsplit <= p->room) return 0;
  if (p->room > 0 && p->room >= minbatch / 4) {
    cl->split_max = p->room;
    p->squeezed = 1;
    return 0;
  }
  /* evict the smallest keys, a quarter of the kept leaves at least */
  {
    long long ne = 0, want = nsplit - p->room;
    if (want < (nkeep + 3) / 4) want = (nkeep + 3) / 4;
    for (j = 0; j < top; ++j) {
      ne += h->count[j];
      if (ne >= want) break;
    }
    if (j >= top || p->room + ne <= 0) return 1; /* nothing to evict */
    cl->fin_thresh = gcuba_hist_edge(j + 1);
    p->evicted = ne;
    if (nsplit > p->room + ne) cl->split_max = p->room + ne;
  }
  return 0;
}

/* ---- the iteration's steps ------------------------------------------------

   The policy's state of one call (or one integral of a batch); the arrays
   [ncomp] are the owner's. */
typedef struct gcuba_cuhre_state {
  long long iter;     /* iterations done (splits applied) */
  int small;          /* started from one region (gcuba_cuhre_start) */
  int nfull;          /* iterations that split every leaf */
  double relfrac;     /* relative-error finishing threshold in units of
                         epsrel (0: off) */
  int ncomp;
  double *finavg, *finerr; /* the finished regions' totals */
  double *tot, *err, *budget, *prev; /* this iteration's, the last's */
  double *pconv;      /* iterations in a row whose total passed */
  gcuba_vegas_combine_t *chi; /* the totals' sequence (prob) */
  double stall_r;     /* the rounding floor (gcuba_cuhre_roundoff): the
                         smallest error so far in units of the tolerance
                         (halvings only; HUGE_VAL at the start) ... */
  long long stall_neval; /* ... and neval when it was reached */
} gcuba_cuhre_state;

/* The CPU backend's fewest regions split per iteration: a fixed count
   (not per thread, so that a run cut short by maxeval does not depend on
   the thread count).  A GPU's larger batches are used only where the
   budget pays for them (gcuba_cuhre_minbatch). */
#define GCUBA_CUHRE_CPU_MINBATCH 32

/* The fewest regions one iteration splits: the backend's (the count that
   keeps it busy, `backend') once the call has spent what one such split
   costs (np evaluations a region), the CPU backend's before, so that a
   call too small to fill a GPU takes the CPU's path there too: the same
   regions, fail codes and counts on every backend.  It depends on what was
   spent, not on maxeval, so that a run resumed from a state file follows
   the path of an uninterrupted one. */
GCUBA_HD static inline long long gcuba_cuhre_minbatch(long long backend,
  long long neval, int np)
{
  if (backend > GCUBA_CUHRE_CPU_MINBATCH &&
      (double)neval < 2.0 * np * (double)backend)
    return GCUBA_CUHRE_CPU_MINBATCH;
  return backend;
}

/* The start.  When maxeval pays for LARGE times the uniform start (two
   parts along each of the first 10 axes, np evaluations a region) that
   start is taken, with NFULL full splits; else the unit cube, bisected
   first.  ndiv[d] (NULL: not wanted) gets the parts along axis d.
   Returns small. */
GCUBA_HD static inline int gcuba_cuhre_start(int np, int ndim,
                                             long long maxeval, int *ndiv)
{
  const double nuni = (double)np * (1 << (ndim < 10 ? ndim : 10));
  const int small = !(maxeval >= GCUBA_CUHRE_LARGE * nuni);
  int d;
  if (ndiv)
    for (d = 0; d < ndim; ++d) ndiv[d] = !small && d < 10 ? 2 : 1;
  return small;
}
/* iterations that split every leaf */
GCUBA_HD static inline int gcuba_cuhre_nfull(int small)
{
  return small ? 1 : GCUBA_CUHRE_NFULL;
}

/* The iteration's totals from the leaves' sums (sumavg, sumerr) and the
   finished ones (the error with GCUBA_CUHRE_ROUND rounding units of the
   total), its budgets, the test of each component (Cuba's, with
   the change since the last iteration: gcuba_cuhre_passes) and the
   totals' sequence for prob.  A component has converged after `need'
   passing iterations in a row (one dimension asks for two).  Returns 1
   when every component has; *excess gets the largest err/budget - 1, and
   *worst its component. */
GCUBA_HD static inline int gcuba_cuhre_totals(gcuba_cuhre_state *s,
  const double *sumavg, const double *sumerr, double epsrel, double epsabs,
  int need, double *excess, int *worst)
{
  int c, converged = 1;
  *excess = 0;
  *worst = 0;
  for (c = 0; c < s->ncomp; ++c) {
    double r;
    s->tot[c] = s->finavg[c] + sumavg[c];
    s->err[c] = s->finerr[c] + sumerr[c] +
                GCUBA_CUHRE_ROUND * DBL_EPSILON * fabs(s->tot[c]);
    s->budget[c] = gcuba_budget(s->tot[c], epsrel, epsabs);
    r = s->err[c] / s->budget[c] - 1;
    s->pconv[c] = gcuba_cuhre_passes(s->tot[c], s->err[c], s->prev[c],
                                     s->budget[c])
                      ? s->pconv[c] + 1
                      : 0;
    if (s->pconv[c] < need) converged = 0;
    s->prev[c] = s->tot[c];
    if (r > *excess) {
      *excess = r;
      *worst = c;
    }
    gcuba_vegas_combine_add(&s->chi[c], s->tot[c], s->err[c] * s->err[c],
                            2);
  }
  return converged;
}

/* What an iteration does after its evaluation pass: the outcomes that
   end a call, and the kinds of split that go on. */
enum {
  GCUBA_CUHRE_GOON = -1,     /* not decided yet (gcuba_cuhre_stop) */
  GCUBA_CUHRE_CONVERGED = 0, /* fail 0 */
  GCUBA_CUHRE_FINERR = 1,    /* fail 1: the finished regions' errors
                                spend the tolerance */
  GCUBA_CUHRE_MAXEVAL = 2,   /* fail 1: one more bisection would pass
                                maxeval */
  GCUBA_CUHRE_NOMEM = 3,     /* fail 1: memory holds no useful split */
  GCUBA_CUHRE_SPLITALL = 4,  /* split every leaf */
  GCUBA_CUHRE_PLAN = 5,      /* classify by the histogram's plan */
  GCUBA_CUHRE_ROUNDOFF = 6,  /* fail 2: the error stopped falling at the
                                rounding floor (gcuba_cuhre_roundoff) */
  /* how an executor saw a call end otherwise */
  GCUBA_CUHRE_ABORT = 10,    /* the integrand returned -999 */
  GCUBA_CUHRE_NAN = 11,      /* the integrand gave NaN or Inf */
  GCUBA_CUHRE_DEFER = 12     /* it outgrew the executor: run it alone */
};

/* The end of a call, before any split: converged (every component, once
   mineval is spent and every leaf carries the two-level error) or the
   finished errors above the worst component's tolerance (an integrand
   changing sign: relative-error finishing ran out). */
GCUBA_HD static inline int gcuba_cuhre_stop(const gcuba_cuhre_state *s,
  int converged, long long nleaves, long long neval, long long mineval,
  int worst)
{
  if (converged && neval >= mineval && s->iter > 0)
    return GCUBA_CUHRE_CONVERGED;
  if (nleaves == 0 || s->finerr[worst] > s->budget[worst])
    return GCUBA_CUHRE_FINERR;
  return GCUBA_CUHRE_GOON;
}

/* Lines across the cube are searched for features (gcuba/detail/cut.h)
   before the first split when maxeval leaves room for three rounds of
   lines and one split with a search (np: the rule's evaluations per
   region); each round after the first while it leaves room for it
   (gcuba_cuhre_scan_room). */
GCUBA_HD static inline int gcuba_cuhre_scan_fits(long long neval,
  long long maxeval, int ndim, int np)
{
  return ndim >= 1 && ndim <= GCUBA_RULE_MAXDIM &&
         !(neval + 3LL * ndim * GCUBA_CUT_MAXEVALS +
               2LL * (np + GCUBA_CUT_MAXEVALS) >
           maxeval);
}

/* the evaluations the scan may still spend (gcuba_cutmap_lines) */
GCUBA_HD static inline long long gcuba_cuhre_scan_room(long long neval,
  long long maxeval, int np)
{
  return maxeval - neval - 2LL * (np + GCUBA_CUT_MAXEVALS);
}

/* Half the most evaluations one split may cost: each child's rule (np),
   and half the search for where to cut while the call searches. */
GCUBA_HD static inline int gcuba_cuhre_split_nevals(
  int np, const gcuba_cutmap *cm)
{
  return np + (cm && gcuba_cut_searching(cm, 1)
                   ? (GCUBA_CUT_MAXEVALS + 1) / 2 : 0);
}

/* The kind of split after gcuba_cuhre_stop said GOON.  maxeval is a
   budget: the next iteration bisects at least one region, 2 np
   evaluations.  Everything is split in the first nfull iterations (so
   that every leaf gets the two-level error) and until mineval is spent,
   as far as maxeval allows (nsplit: gcuba_cuhre_split_nevals), unless
   memory cannot hold the doubled partition. */
GCUBA_HD static inline int gcuba_cuhre_split_kind(const gcuba_cuhre_state *s,
  long long nleaves, long long neval, long long mineval, long long maxeval,
  int np, int nsplit, long long maxregions)
{
  if (neval + 2LL * np > maxeval) return GCUBA_CUHRE_MAXEVAL;
  if ((s->iter < s->nfull || neval < mineval) &&
      nleaves <= (maxeval - neval) / (2LL * nsplit))
    return 2 * nleaves > maxregions ? GCUBA_CUHRE_NOMEM
                                    : GCUBA_CUHRE_SPLITALL;
  return GCUBA_CUHRE_PLAN;
}

/* the classification that splits every leaf */
GCUBA_HD static inline void gcuba_cuhre_split_all(gcuba_classify *cl)
{
  cl->relfinish = 0;
  cl->fin_thresh = -1;
  cl->split_thresh = 0;
  cl->split_max = -1;
  cl->nocut = 0;
}

/* The relative part of relative-error finishing, in units of the
   threshold, for the rule of `degree'.  The relative test gives a leaf a
   share of the tolerance in proportion to its integral, and on a peak one
   leaf holds much of it: with the degree 9 rule (key 0 from 4-D up, or key
   9) the false claims left on random peaks (bench/bench-peaks, seed 1: 8
   of 9,453 claims, up to 1.96 times the tolerance) came each from one or
   two leaves by the peak, one to four widths across, that finished at
   their first classification with 5-15 % of the tolerance, their null
   values falling off by chance and their estimates 7-16 times below their
   true errors.  At a quarter of the threshold they are split instead: no
   false claim on seeds 1 and 2, and fewer evaluations (the finished leaves
   no longer take the tolerance early, which lowered the threshold for the
   rest of the run).  The absolute part (epsabs times the leaf's volume)
   keeps the whole threshold: a leaf's volume share does not gather on a
   peak, and 4-D products at epsrel = epsabs = 1e-12 (bench/bench-floor),
   where it decides, took more evaluations with a quarter of it.  The degree
   11 rule starts its threshold lower instead (gcuba_cuhre_relfrac0). */
#ifndef GCUBA_CUHRE_RELSHARE_DEG9
#define GCUBA_CUHRE_RELSHARE_DEG9 0.25
#endif
GCUBA_HD static inline double gcuba_cuhre_relshare(int degree)
{
  return degree == 9 ? GCUBA_CUHRE_RELSHARE_DEG9 : 1.0;
}

/* the relative-error part of the classification at the current threshold
   (norelfinish: flags GCUBA_NORELFINISH; degree: the rule's) */
GCUBA_HD static inline void gcuba_cuhre_relative(const gcuba_cuhre_state *s,
  int norelfinish, int degree, double epsrel, double epsabs,
  gcuba_classify *cl)
{
  cl->relfinish = !norelfinish && s->relfrac > 0;
  cl->epsrel = s->relfrac * gcuba_cuhre_relshare(degree) * epsrel;
  cl->epsabs = s->relfrac * epsabs;
}

/* After the histogram at the current threshold: when the finished errors
   with relerr[c] more would take more than the policy allows
   (gcuba_cuhre_relfinish_over), the threshold goes down by RELSTEP, off
   below RELMIN; returns the component that asked for it, or ncomp when
   the threshold stands. */
GCUBA_HD static inline int gcuba_cuhre_relfinish_lower(gcuba_cuhre_state *s,
  const double *relerr)
{
  const int comp =
      gcuba_cuhre_relfinish_over(s->ncomp, relerr, s->budget, s->finerr);
  if (comp == s->ncomp) return comp;
  s->relfrac /= GCUBA_CUHRE_RELSTEP;
  if (s->relfrac < GCUBA_CUHRE_RELMIN) s->relfrac = 0;
  return comp;
}

/* The thresholds of a planned iteration from the histogram h (the plan's
   inputs in p; p->nevals the rule's evaluations, np): split as
   gcuba_cuhre_plan_split says, where a searched cut costs
   gcuba_cuhre_split_nevals; when what maxeval leaves does not pay for
   cuts, halvings instead (cl->nocut), a path a resumed run cannot follow
   (p->capped, p->offpath).  Returns 0, or 1 when memory holds no useful split. */
GCUBA_HD static inline int gcuba_cuhre_choose(const gcuba_hist *h,
  gcuba_cuhre_plan *p, gcuba_classify *cl, const gcuba_cutmap *cm,
  int np)
{
  p->nevals = gcuba_cuhre_split_nevals(np, cm);
  cl->nocut = 0;
  if (gcuba_cuhre_plan_split(h, p, cl)) return 1;
  if (cm && (p->capped || p->neval + 2LL * p->nevals * p->nsplit > p->maxeval)) {
    p->nevals = np;
    cl->nocut = 1;
    if (gcuba_cuhre_plan_split(h, p, cl)) return 1;
    p->capped = p->offpath = 1;
  }
  return 0;
}

/* The classes of a leaf */
enum { GCUBA_LEAF_KEEP = 0, GCUBA_LEAF_FIN = 1, GCUBA_LEAF_SPLIT = 2 };

/* A leaf's key, max_c err[c] / budget[c], and *comp its component (the
   first of equals): the one whose split axis a split leaf takes. */
GCUBA_HD static inline double gcuba_cuhre_key(const double *err, int ncomp,
                                              const double *budget,
                                              int *comp)
{
  double k = -1;
  int c;
  *comp = 0;
  for (c = 0; c < ncomp; ++c) {
    const double r = err[c] / budget[c];
    if (r > k) {
      k = r;
      *comp = c;
    }
  }
  return k;
}

/* The class of one leaf of volume vol under cl (budget[ncomp]): its
   avg[c], err[c].  *key (when not finished by relative error) gets its
   key and *comp its component (gcuba_cuhre_key).  The absolute part of
   the relative-error test is epsabs times the leaf's volume: with the
   whole of epsabs for every leaf, the leaves finished early took the
   three quarters of the tolerance that GCUBA_CUHRE_FINMAX allows with
   their first errors, and the rest had to go that much lower (4-D
   oscillatory products at epsrel = epsabs = 1e-12, key 9, where epsabs
   decides: 6-24 % more evaluations, as many as with no finishing). */
GCUBA_HD static inline int gcuba_cuhre_leaf(const double *avg,
  const double *err, int ncomp, double vol, const gcuba_classify *cl,
  const double *budget, double *key, int *comp)
{
  int c;
  if (cl->relfinish) {
    const double ea = cl->epsabs * vol;
    for (c = 0; c < ncomp; ++c) {
      const double a = fabs(avg[c]) * cl->epsrel;
      if (err[c] > (a > ea ? a : ea)) break;
    }
    if (c == ncomp) return GCUBA_LEAF_FIN;
  }
  *key = gcuba_cuhre_key(err, ncomp, budget, comp);
  if (*key <= cl->fin_thresh) return GCUBA_LEAF_FIN;
  return *key >= cl->split_thresh ? GCUBA_LEAF_SPLIT : GCUBA_LEAF_KEEP;
}

/* Where a split leaf (lo, w) is cut: along the first axis where it
   straddles a known feature, at that feature (returns 0, *ax and *q
   set); else along its split axis `axis' (that of the component that
   chose it), in the middle unless a search along it finds a jump or a
   kink (returns 1 when the caller searches: the map has features and
   `search' allows it).  Where a jump lies in a sliver by a face
   (gcuba_cut_sliver), the leaf is halved across it until it can be cut
   there. */
GCUBA_HD static inline int gcuba_cuhre_cut_leaf(const gcuba_cutmap *cm,
  int ndim, const double *lo, const double *w, int axis, int search,
  int *ax, double *q)
{
  const int known = cm ? gcuba_cut_known(cm, ndim, lo, w, q) : -1;
  int d;
  if (known >= 0) {
    *ax = known;
    return 0;
  }
  if (cm && cm->nfeat)
    for (d = 0; d < ndim; ++d)
      if (gcuba_cut_sliver(cm, d, lo, w, q) > 0) {
        *ax = d;
        *q = 0.5;
        return 0;
      }
  *ax = axis;
  *q = 0.5;
  return cm && search;
}

/* A new leaf (lo, w) that straddles a known feature: its error is at
   least |its integral| until it is cut there (a rule need not see a kink
   inside a region: gcuba/detail/cut.h), and on component 0 (the one the
   searches read) at least GCUBA_CUT_JSAFE jump[d] times the volume of its
   smaller part at a jump it straddles.  The jump's part counts also at a
   jump in a sliver by a face (gcuba_cut_sliver: the rule's points all
   lie on one side; a sliver of a box a < x < b beyond a face at
   0.5 + 2e-4 was finished with error 0).  A sliver of width g (of the
   leaf's) also makes it at least g / GCUBA_CUT_MIN |its integral|: the
   jump's height came from one line, and elsewhere it may be far larger
   (a step at 0.49991 in a 5-D product of steps and kinks was 670 times
   as high as on its line: claimed 1.6e-7 at 1e-4, true 7.7e-7), so the
   leaf is halved until it can be cut there (a sliver of a thousandth of
   it: |its integral|, as a leaf that straddles one).  avg[c], err[c]
   for c < ncomp. */
GCUBA_HD static inline void gcuba_cuhre_floor(const gcuba_cutmap *cm,
  int ndim, const double *lo, const double *w, const double *avg,
  double *err, int ncomp)
{
  double vol = 1, part = 0, slim = 0;
  int c, d, any = 0;
  if (!cm->nfeat) return;
  for (d = 0; d < ndim; ++d) {
    double f, s;
    int k;
    vol *= w[d];
    for (k = 0; k < 2; ++k)
      if (gcuba_cut_at(k ? cm->feat2[d] : cm->feat[d], lo[d], w[d], &f)) {
        s = (f < 0.5 ? f : 1 - f) * (k ? cm->jump2[d] : cm->jump[d]);
        any = 1;
        if (s > part) part = s;
      }
    if ((s = gcuba_cut_sliver(cm, d, lo, w, &f)) > 0) {
      const double g = f < 0.5 ? f : 1 - f;
      if (s > part) part = s;
      if (g > slim) slim = g;
    }
  }
  if (!any && part == 0) return;
  for (c = 0; c < ncomp; ++c) {
    double v = any ? fabs(avg[c]) : slim / GCUBA_CUT_MIN * fabs(avg[c]);
    if (c == 0 && GCUBA_CUT_JSAFE * part * vol > v)
      v = GCUBA_CUT_JSAFE * part * vol;
    if (!(err[c] >= v)) err[c] = v;
  }
}

/* The rounding floor, tested after an iteration that did not end the
   call (gcuba_cuhre_stop) and before its split.  The call stops there
   (GCUBA_CUHRE_ROUNDOFF; else GCUBA_CUHRE_GOON) when a component misses
   its tolerance and, past mineval,
   - below: every component that misses it has a tolerance and an error
     below twice the rounding term of its total (GCUBA_CUHRE_ROUND
     rounding units, part of its error: gcuba_cuhre_totals): what the
     rules could still gain is within the rounding; or
   - stalled: the error (in units of the tolerance; with xerr, non-NULL,
     the extrapolation's where it is smaller) has not halved while the
     evaluations grew `window'-fold (and past GCUBA_FLOOR_MIN); with
     `ulps' > 0 only while every component that misses its tolerance has
     an error of at most ulps rounding units of its total.
   *units gets the largest error of a missing component in rounding units
   of its total, *below 1 in the first case.  gCuhre N-D (the driver and
   the batch pipeline): window 4, ulps GCUBA_FLOOR_ULPS; one dimension:
   window 8, no ulps test. */
#define GCUBA_FLOOR_MIN 20000
#define GCUBA_FLOOR_ULPS 1e4
GCUBA_HD static inline int gcuba_cuhre_roundoff(gcuba_cuhre_state *s,
  long long neval, long long mineval, double window, double ulps,
  const double *xerr, double *units, int *below)
{
  double r = 0, u = 0;
  int c, miss = 0, under = 1;
  for (c = 0; c < s->ncomp; ++c) {
    const double e = xerr && xerr[c] < s->err[c] ? xerr[c] : s->err[c];
    const double q = e / s->budget[c];
    if (q > r) r = q;
    if (q > 1) {
      const double a = DBL_EPSILON * fabs(s->tot[c]),
                   rho = GCUBA_CUHRE_ROUND * a, v = e / a;
      if (!(v <= u)) u = v; /* (NaN, a zero total: no floor) */
      miss = 1;
      if (!(s->budget[c] < 2 * rho && e <= 2 * rho)) under = 0;
    }
  }
  *units = u;
  *below = miss && under;
  if (*below && neval >= mineval) return GCUBA_CUHRE_ROUNDOFF;
  if (!(r > 0.5 * s->stall_r)) {
    s->stall_r = r;
    s->stall_neval = neval;
    return GCUBA_CUHRE_GOON;
  }
  if (!((double)neval > window * (double)s->stall_neval &&
        neval > GCUBA_FLOOR_MIN) ||
      (ulps > 0 && !(r > 1 && u <= ulps && neval >= mineval)))
    return GCUBA_CUHRE_GOON;
  return GCUBA_CUHRE_ROUNDOFF;
}

/* the fail code of an outcome (GCUBA_CUHRE_CONVERGED .. ROUNDOFF):
   0, 2 (GCUBA_FAIL_ROUNDOFF of gcuba.h) or 1 */
GCUBA_HD static inline int gcuba_cuhre_fail(int outcome)
{
  return outcome == GCUBA_CUHRE_CONVERGED  ? 0
         : outcome == GCUBA_CUHRE_ROUNDOFF ? 2
                                           : 1;
}

#endif /* GCUBA_CUHRE_POLICY_H */
