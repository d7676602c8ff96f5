/* src/cuhre/backend.h -- the operations the Cuhre driver asks of a
   backend.  The driver (driver.c) is plain C and holds no region data;
   a backend keeps the active regions (on the host for the CPU backend,
   in device memory for the CUDA one) and performs each step over all of
   them.  Every reduction is done in a fixed order, so results do not
   depend on the number of threads.  This file is part of gcuba. */
#ifndef GCUBA_CUHRE_BACKEND_H
#define GCUBA_CUHRE_BACKEND_H

#include <math.h>
#include <stdlib.h>
#include "common/common.h"
#include "gcuba/detail/rule.h"

#include "gcuba/detail/cuhre_policy.h"

/* Host copy of the leaves, for state files: [0, nold) evaluated (with
   avg, err, dims), [nold, n) waiting, children 2k, 2k+1 of parent k.
   Or (ondev) the leaves in the memory of GPU dev, as save_dev gives
   them. */
typedef struct gcuba_region_set {
  long long n, nold;
  int haveparents;        /* 0 before the first split */
  double *lo, *w;         /* [n*ndim] lower corner and width */
  double *avg, *err;      /* [nold*ncomp] */
  int *dims;              /* [nold*ncomp] */
  double *pavg, *perr;    /* [(n-nold)/2*ncomp] parents of the new ones */
  int ondev, dev;
  unsigned short *wk;     /* ondev: [n*ndim] the widths as exponents, w =
                             2^-wk, where w is NULL (cuda/cuhre.cu) */
} gcuba_region_set;

/* the host arrays of a set that save filled (not an ondev one) */
static inline void gcuba_region_set_free(gcuba_region_set *s)
{
  free(s->lo);
  free(s->w);
  free(s->avg);
  free(s->err);
  free(s->dims);
  free(s->pavg);
  free(s->perr);
}

typedef struct gcuba_cuhre_ops {
  const char *name;
  int device; /* the regions live in a GPU's memory */
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
  /* optional (NULL: none): the leaves where they are, in the memory of
     a GPU (s->ondev), for load by the members of a collective call on
     the GPUs of this process while ctx lives (GCUBA_DEVICES=auto); 0 or
     a fail code */
  int (*save_dev)(void *ctx, gcuba_region_set *s);
  /* 1: apply cuts split leaves where gcuba/detail/cut.h says (a known feature,
     or what a search finds), adding the searches' evaluations to neval,
     and eval keeps the error of a region that straddles a known feature
     at least its integral (c->cutmap); 0: at their middle */
  int cuts;
  /* with cuts: the search of gcuba/detail/cut.h along axis ax[j] of the n boxes
     (lo, w)[j*ndim + d] (host arrays, n <= GCUBA_CUT_MAXSEARCH), on
     component 0: where to cut in cut[j], in found[j] 1 when a jump or a
     kink lies there (2: a jump, and a second one on the line), and in
     jump[j] what gcuba_cut_jump says;
     the evaluations added to the call's neval; 0 or a fail code (the
     driver's scan for features) */
  int (*search)(void *ctx, int n, const double *lo, const double *w,
                const int *ax, double *cut, int *found, double *jump);
} gcuba_cuhre_ops;

#ifdef __cplusplus
extern "C" {
#endif
/* the backends' tables (src/cpu/, cuda/): src/plan/tables.h */
/* bytes a leaf region takes in host memory (src/cpu/cuhre_cpu.c) */
long long gcuba_cuhre_region_bytes(int ndim, int ncomp);
/* an integral's end in the batch pipeline: code GCUBA_CUHRE_CONVERGED ..
   ROUNDOFF, ABORT, NAN, DEFER (gcuba/detail/cuhre_policy.h), and for its
   message the worst component, its finished error and tolerance, and at
   the rounding floor what gcuba_cuhre_why says of it */
typedef struct gcuba_cuhre_bout {
  int code, worst;
  double finerr, budget;
  double stall_r, units;
  long long stall_neval;
  int below;
} gcuba_cuhre_bout;
#ifdef __cplusplus
}
#endif



#endif
