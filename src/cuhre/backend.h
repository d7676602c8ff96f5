/* src/cuhre/backend.h -- the operations the Cuhre driver asks of a
   backend.  The driver (driver.c) is plain C and holds no region data;
   a backend keeps the active regions (on the host for the CPU backend,
   in device memory for the CUDA one) and performs each step over all of
   them.  Every reduction is done in a fixed order, so results do not
   depend on the number of threads.  This file is part of gcuba. */
#ifndef GCUBA_CUHRE_BACKEND_H
#define GCUBA_CUHRE_BACKEND_H

#include <math.h>
#include "common/common.h"
#include "gcuba/rule.h"

/* The backend holds every leaf region of the current partition with its
   cached result (avg, err per component, split axes); new regions (the
   children of the last split) wait to be evaluated.  Each iteration the
   driver classifies the leaves by their key max_c err_c / budget[c]:
     - finished: relfinish and err_c <= max(epsabs, epsrel |avg_c|) for
       every c (PAGANI's relative-error classification), or key <=
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
} gcuba_classify;

/* Keys are binned on a log scale for the threshold search:
   bin j (0 <= j < GCUBA_HIST_BINS) holds keys in
   [2^(GCUBA_HIST_LOG2MIN + j/GCUBA_HIST_PEROCT), next), the first and last
   bins also everything below and above; key 0 goes to bin 0. */
#define GCUBA_HIST_PEROCT 8
#define GCUBA_HIST_LOG2MIN (-64)
#define GCUBA_HIST_BINS (128 * GCUBA_HIST_PEROCT)

typedef struct gcuba_hist {
  long long count[GCUBA_HIST_BINS]; /* regions not finished by relfinish */
  double keysum[GCUBA_HIST_BINS];   /* count * gcuba_hist_mid(bin): the
                                       same on every backend */
  long long nrel;                   /* regions finished by relfinish */
} gcuba_hist;

/* Host copy of the leaves, for state files: [0, nold) evaluated (with
   avg, err, dims), [nold, n) waiting, children 2k, 2k+1 of parent k. */
typedef struct gcuba_region_set {
  long long n, nold;
  int haveparents;        /* 0 before the first split */
  double *lo, *w;         /* [n*ndim] lower corner and width */
  double *avg, *err;      /* [nold*ncomp] */
  int *dims;              /* [nold*ncomp] */
  double *pavg, *perr;    /* [(n-nold)/2*ncomp] parents of the new ones */
} gcuba_region_set;

typedef struct gcuba_cuhre_ops {
  const char *name;
  /* A region store for call c and rule r holding at most *maxregions
     leaves (the backend may lower it to what its memory holds).  NULL on
     failure with *fail set. */
  void *(*create)(gcuba_call *c, const gcuba_rule *r, long long *maxregions,
                  int *fail);
  void (*destroy)(void *ctx);
  /* the fewest regions worth splitting in one iteration (a batch that
     keeps the backend busy) */
  long long (*minbatch)(void *ctx);
  /* the uniform initial split: ndiv[d] equal parts along axis d */
  int (*init)(void *ctx, const int *ndiv);
  /* load / save the leaves (state files); save malloc's the arrays */
  int (*load)(void *ctx, const gcuba_region_set *s);
  int (*save)(void *ctx, gcuba_region_set *s);
  /* leaves, and those among them not evaluated yet */
  long long (*nleaves)(void *ctx);
  long long (*nnew)(void *ctx);
  /* Evaluate the new regions with the rule, apply the two-level error
     estimate to each pair of children, and sum avg and err over all
     leaves per component (in leaf order).  0 or a fail code. */
  int (*eval)(void *ctx, double *sumavg, double *sumerr);
  /* the histogram of keys (under cl's budget) of the leaves that cl's
     relfinish does not finish; relerr[c] gets the sum of err_c over
     those it finishes */
  int (*hist)(void *ctx, const gcuba_classify *cl, gcuba_hist *h,
              double *relerr);
  /* Apply cl: add the finished regions' avg and err to finavg, finerr
     and drop them, keep the kept ones, append the children of the split
     ones (the new regions of the next eval). */
  int (*apply)(void *ctx, const gcuba_classify *cl, double *finavg,
               double *finerr);
  /* milliseconds the rule kernel has run in this call, timed on the
     device when the call's verbosity is 2 or more; NULL or < 0: not
     measured */
  double (*kernel_ms)(void *ctx);
  /* optional (NULL: none): the relative-error part of the classification
     the driver will ask hist for after the next eval (relfinish, epsrel,
     epsabs of cl; cl->budget unused), with the finished estimates finavg
     from which, with the next eval's sums, it forms the budget.  A backend
     may compute that histogram with the eval, saving a round trip. */
  void (*hint)(void *ctx, const gcuba_classify *cl, const double *finavg);
} gcuba_cuhre_ops;

#ifdef __cplusplus
extern "C" {
#endif
extern const gcuba_cuhre_ops gcuba_cuhre_cpu;
/* bytes the CPU backend needs per leaf region */
long long gcuba_cuhre_region_bytes(int ndim, int ncomp);
#ifdef HAVE_CUDA
extern const gcuba_cuhre_ops gcuba_cuhre_cuda;
#endif
#ifdef __cplusplus
}
#endif



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
static inline double gcuba_hist_edge(int j)
{
  return ldexp(1 + (double)(j % GCUBA_HIST_PEROCT) / GCUBA_HIST_PEROCT,
               GCUBA_HIST_LOG2MIN + j / GCUBA_HIST_PEROCT);
}
static inline double gcuba_hist_mid(int j)
{
  /* 0.5 (edge(j) + edge(j + 1)), exactly: (1 + (2k + 1)/16) 2^e */
  return ldexp(1 + (double)(2 * (j % GCUBA_HIST_PEROCT) + 1) /
               (2 * GCUBA_HIST_PEROCT),
               GCUBA_HIST_LOG2MIN + j / GCUBA_HIST_PEROCT);
}
/* count * mid of bin j (most bins are empty: no ldexp for them) */
static inline double gcuba_hist_keysum(long long count, int j)
{
  return count ? (double)count * gcuba_hist_mid(j) : 0.0;
}

#endif
