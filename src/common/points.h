/* src/common/points.h -- an executor that evaluates the integrand at a
   list of points: gSuave's and gDivonne's backends (src/cpu/suave_cpu.c, the GPU's
   cuda/points.cu), and the GPU's for gCuhre's CPU backend when the call
   has more components than the GPU's rule kernels hold (gcuba_call's
   points).  This file is part of gcuba. */
#ifndef GCUBA_POINTS_H
#define GCUBA_POINTS_H
#include "common/common.h"
#include "common/copies.h"

typedef struct gcuba_points_ops {
  const char *name;
  /* an executor for call c; NULL on failure with *fail set (logged) */
  void *(*create)(gcuba_call *c, int *fail);
  void (*destroy)(void *ctx);
  /* f[i*ncomp + k] = component k of the integrand at x[i*ndim ...],
     0 <= i < n; w[i] the samples' weights and iter the iteration number
     that an nvec-form host integrand is passed (Cuba's Suave: the
     region's splits + 1; NULL and 0 where they mean nothing).  gDivonne
     passes w NULL and iter its phase: an nvec-form host integrand gets
     the phase as its 8th argument, as under Cuba's Divonne.  0, or
     GCUBA_FAIL_ABORT, GCUBA_FAIL_NAN, GCUBA_FAIL_NOMEM, GCUBA_FAIL_CUDA. */
  int (*eval)(void *ctx, long long n, const double *x, const double *w,
              int iter, double *f);
  /* gDivonne's final copies of nq regions, made where the integrand
     runs (no points cross to the device): q[r] region r's copies, all
     alike but for their boxes and shifts (the same k, p, z and v; their
     own lo, w, u, m).  sum[(r k + h) ncomp + c] the sum of component c
     over copy h of region r; ext[2 (r ncomp + c)] and ext[2 (r ncomp +
     c) + 1] the least and the greatest value of component c in region r,
     iext at the same places their points' numbers h p + i within the
     region's copies (the first such); iter as for eval.  A region's sums
     and extrema are those of a call for it alone, bit for bit, in an
     order fixed by the executor whatever its threads.  0 or a fail code
     as for eval.  NULL: the caller makes the points and calls eval. */
  int (*copies)(void *ctx, int nq, const gcuba_copies *q, int iter,
                double *sum, double *ext, long long *iext);
  /* eval's values for at most on_max(ctx) points, computed on the
     calling host thread as CPU thread tid (its userdata, gcuba_ud_thread)
     and bit for bit eval's: gDivonne's partition explores several
     regions at once on the threads of a gcuba_pool_for loop (tid: the
     loop's).  A fail code as for eval, without a message.  on_max 0 (or
     NULL members): no such evaluation. */
  int (*eval_on)(void *ctx, int tid, long long n, const double *x, int iter,
                 double *f);
  long long (*on_max)(void *ctx);
  /* copies in two halves, so that the caller works while the executor
     does: copies_start sets nq regions' copies going (q and its arrays
     may change once it returns), copies_wait returns when their sums,
     extrema and their points' numbers are in the arrays start was given
     (they stay the caller's and untouched until then), with copies'
     code.  One batch at a time: nothing else may call the executor's
     copies, or start another batch, before copies_wait; eval and eval_on
     may.  A start that fails has started nothing (no copies_wait).
     NULL members: copies only. */
  int (*copies_start)(void *ctx, int nq, const gcuba_copies *q, int iter,
                      double *sum, double *ext, long long *iext);
  int (*copies_wait)(void *ctx);
  /* gSuave's samples kept where the integrand runs, and the passes over
     them made there (src/suave/suave.h); NULL: the driver keeps them in
     host memory and makes the passes on the CPU threads */
  const struct gcuba_suave_dev *suave;
} gcuba_points_ops;

#endif
