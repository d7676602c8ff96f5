/* src/cuhre/iter.h -- what the gCuhre drivers share (driver.c for two
   and more dimensions, oned.c for one): the state of a call, its set-up
   and clean-up, and the two halves of an iteration -- the evaluation of
   the new regions with the iteration's totals, and the split -- over the
   backend's ops table, with the policy's steps of gcuba/detail/cuhre_policy.h.
   This file is part of gcuba. */
#ifndef GCUBA_CUHRE_ITER_H
#define GCUBA_CUHRE_ITER_H
#include "cuhre/cuhre.h"
#include "cuhre/backend.h"
#include "common/state.h"

/* one dimension: the iteration totals Wynn's epsilon algorithm
   extrapolates (oned.c; in the state file of every call) */
#define WYNN_TERMS 16

typedef struct gcuba_cuhre_t {
  gcuba_call *c;
  const gcuba_cuhre_ops *ops;
  void *ctx;
  gcuba_rule rule;
  int ncomp;
  gcuba_cuhre_state st;             /* the policy's (detail/cuhre_policy.h):
                                       iterations, start, thresholds, the
                                       totals and their sequence */
  long long maxregions;
  double *sumavg, *sumerr;          /* active sums of this iteration */
  double *e;                        /* scratch [ncomp] */
  long long nfinished;              /* regions finished so far */
  long long minbatch;               /* fewest regions split per iteration */
  gcuba_hist *hist;
  double tm[5];                     /* ms in eval, classify, apply, setup */
  int capped;                       /* maxeval made a choice that a larger
                                       one would not (a split cut short,
                                       halvings for cuts, a scan left out
                                       or ended early): from here on no
                                       state is saved, so that a run
                                       resumed with a larger maxeval
                                       follows the path of an
                                       uninterrupted one */
  /* one dimension: Wynn's epsilon algorithm over the iteration totals */
  int nseq, nres;                   /* terms in seq, results in res */
  double *seq;                      /* [ncomp][WYNN_TERMS] the last totals */
  double *res;                      /* [ncomp][3] the last extrapolations */
  double *xres, *xerr;              /* [ncomp] this iteration's */
  int *xok;                         /* [ncomp] xres meets the tolerance */
  /* GCUBA_DEVICES=auto: the GPUs this call may grow to (ngrow >= 2; 0:
     it stays where it is), from when (ms, now_ms's clock), and whether
     it stopped to grow */
  int ngrow;
  double grow_at, grow_after;
  int grow_any;                     /* GCUBA_DEVICES_AFTER=0: at GROW_ITER
                                       whatever the evaluations cost */
  int grown;
  gcuba_buf grow_state;             /* the state it grows from, and its */
  gcuba_region_set grow_set;        /* regions in this GPU's memory */
  int cont;                         /* run goes on where it stopped */
  int cuts; /* the backend's apply cuts (gcuba/detail/cut.h) */
  int list; /* verbosity 3 on some process of the call: every one takes
               part in listing the evaluated regions (iter.c) */
  gcuba_cutmap cm;                  /* and what it knows (c->cutmap) */
  double t0_iter, t1;                /* this iteration's start, its
                                       evaluation's end (ms) */
  double start;                     /* the call's (ms) */
  const char *bkname;               /* the backend's name */
  double *mem;                      /* the arrays above [ncomp] */
} cuhre;

/* Set-up: the rule, the region limit, the driver's arrays, the backend's
   store (wrapped for a collective call); 0, or a fail code (c->fail set,
   nothing to clean up) */
int gcuba_cuhre_open(cuhre *t, gcuba_call *c, const gcuba_cuhre_ops *ops);
/* the store destroyed, the call's timing said, the arrays freed */
void gcuba_cuhre_close(cuhre *t);
/* The start: resumed from the state file (or the state a call growing
   to several GPUs left), else the budget's initial split.  1 to run, 0
   when the call ended (c->fail set). */
int gcuba_cuhre_begin(cuhre *t);
/* The new regions evaluated, the evaluations counted, the iteration's
   totals and test (need: passing iterations in a row; *excess, *worst:
   gcuba_cuhre_totals), the iteration said at verbosity 1: 1 when every
   component passed, 0 when not, -1 when the call ended (c->fail set). */
int gcuba_cuhre_evaluate(cuhre *t, int need, double *excess, int *worst,
                         long long *nleaves);
/* The end with outcome o (gcuba_cuhre_stop's, said as every executor
   says it). */
void gcuba_cuhre_end(cuhre *t, int o, int worst);
/* The split after an iteration that did not end the call: the scan of
   the cube's lines before the first one, the kind of split, the
   classification, the next partition, the state file.  0 to go on, 1
   when the call ended (c->fail set). */
int gcuba_cuhre_split(cuhre *t, double excess, int worst, long long nleaves);
/* The rounding floor (gcuba_cuhre_roundoff of gcuba/detail/cuhre_policy.h,
   with the extrapolation's errors when xerr): 1 when the call stops there
   (c->fail = GCUBA_FAIL_ROUNDOFF, said at verbosity 1), else 0. */
int gcuba_cuhre_floor_stop(cuhre *t, double window, double ulps, int xerr);
/* the final totals, their errors and prob into the call's outputs, and
   the state file removed after a success */
void gcuba_cuhre_results(cuhre *t);
/* the driver's state and the backend's leaves (state.c): into *pb (the
   state's payload) and, when file, the state file; with dev the leaves
   stay where they are (save_dev) and dev describes them; 0 or a fail
   code */
int gcuba_cuhre_payload(cuhre *t, gcuba_buf *pb, int file,
                        gcuba_region_set *dev);
/* the state read back: 1 resumed, 0 no state file, < 0 a fail code */
int gcuba_cuhre_load(cuhre *t);

#endif
