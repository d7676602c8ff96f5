/* cuda/batch.h -- gCuhreBatch's GPU pipeline: what its host side
   (batch.cu) and its steps (batch_steps.cu) share.

   Many integrals run as one partition of leaves in device memory, each
   leaf carrying its integral's index: the kept leaves of every integral
   first, then the new ones, integral after integral, in the order in
   which the CPU backend keeps them for one integral (its kept leaves in
   order, then the children of its split ones in order).  One iteration
   is a few launches over all of them:
     the rule kernel of the integrand (the one single calls use: each
       region's userdata and status by its integral) over the new leaves;
     evaluated (one block per integral): the two-level error, the sums,
       the totals and the stop of gcuba/detail/cuhre_policy.h;
     the scan of the cube's central lines at an integral's first
       iteration (the integrand's search kernel);
     split (one block per integral): the kind of split, the histogram,
       relative-error finishing, the plan, every leaf's class, the cuts;
     two scans over the integrals (the next partition's offsets), one
       copy to the host;
     the searches for where to cut, when an integral has features;
     scatter (one block per integral): the next partition.
   An integral's arithmetic depends on its own leaves only (one warp per
   region in the rule kernel, sums in a fixed order within its block), so
   its answer does not depend on the other integrals of the batch, and
   its decisions are those of its single call on the CPU backend.
   Integrals enter the partition while there is room (a queue), so that
   memory holds the integrals running at once, not all of them.  This
   file is part of gcuba. */
#ifndef GCUBA_CUDA_BATCH_H
#define GCUBA_CUDA_BATCH_H

#include "gcuba/detail/cuhre_policy.h"
#include "gcuba/detail/gpu_ops.h"

#define BNC GCUBA_CUHRE_GPU_MAXCOMP
/* threads of the per-integral steps */
#define BBLOCK 128

/* an integral's code: running, or how it ended (GCUBA_CUHRE_CONVERGED ..
   NOMEM, ABORT, NAN of gcuba/detail/cuhre_policy.h) */
#define BRUN (-1)
/* doubles per integral in owhy */
#define BWHY 6
#define BABORT GCUBA_CUHRE_ABORT
#define BNAN GCUBA_CUHRE_NAN

/* One integral's state */
typedef struct gcuba_bint {
  long long iter, neval, nfinished, nregions;
  long long koff, kcnt, noff, ncnt; /* its kept and its new leaves */
  long long nkeep, nsplit, nsearch; /* its next partition (split) */
  int small, nfull, code, worst, haveparents, scan, kind;
  double relfrac, excess;
  double stall_r;       /* the rounding floor (gcuba_cuhre_roundoff) */
  long long stall_neval;
  gcuba_classify cl; /* this iteration's (its budget: below) */
  double finavg[BNC], finerr[BNC], tot[BNC], err[BNC], budget[BNC];
  double prev[BNC], pconv[BNC];
  gcuba_vegas_combine_t chi[BNC];
  gcuba_cutmap cm;
} gcuba_bint;

/* the leaves of a partition, structure of arrays */
typedef struct {
  double *lo, *w, *avg, *err; /* [i*ndim + d], [i*ncomp + c] */
  int *dims, *own;            /* [i*ncomp + c], [i] (-1: a hole) */
} gcuba_bleaves;

/* what every step reads */
typedef struct gcuba_bargs {
  int ndim, ncomp, np, degree, relfinish, cuts;
  double epsrel, epsabs;
  long long mineval, maxeval, maxregions, minbatch;
  gcuba_bint *st;           /* [nintegrals] */
  const int *act;           /* [m] the running integrals, in order */
  gcuba_bleaves a;          /* this partition */
  long long nbase;          /* where its new leaves begin (pair 0) */
  double *pavg, *perr;      /* its new pairs' parents [pair*ncomp + c] */
  int *status;              /* [nintegrals] GCUBA_ST_* of the kernels */
  unsigned long long *nev;  /* [nintegrals] the searches' evaluations */
  /* per leaf of the partition: class, cut axis and fraction (or -1 -
     component: to search), its search's index */
  unsigned char *cls;
  int *cax, *sidx;
  double *cq;
  /* the searches (the scan's and the splits'): boxes, axes, cuts, found,
     owners; the scan's jumps */
  double *slo, *sw, *scut, *sjump;
  int *sax, *sfound, *sown;
  unsigned long long *nscan; /* the integrals whose scan goes on (set by
                                k_scan_next, read after each round) */
  /* results [b * ncomp + c], [b] */
  double *integral, *error;
  gcuba_vegas_combine_t *chi;
  long long *oneval, *onregions;
  int *ocode;
  double *owhy; /* [b*BWHY]: the worst component's finished error,
                   budget; the rounding floor's stall_r, stall_neval,
                   units and below (gcuba_cuhre_why) */
  int *oworst;
} gcuba_bargs;

/* the scans' counts of the running integrals: (nsplit << 32 | nkeep),
   (nsearch << 32 | running) */
#define BHI(x) ((long long)((unsigned long long)(x) >> 32))
#define BLO(x) ((long long)((x) & 0xffffffffLL))

#ifdef __cplusplus
extern "C" {
#endif
/* batch_steps.cu: the steps, queued on stream; each returns a
   cudaError_t of its launch */
int gcuba_b_admit(const gcuba_bargs *g, int first, int count, long long base,
                  int *act, int m, void *stream);
int gcuba_b_evaluated(const gcuba_bargs *g, int m, int scan, void *stream);
int gcuba_b_scan_next(const gcuba_bargs *g, int m, void *stream);
int gcuba_b_split(const gcuba_bargs *g, int m, void *stream);
int gcuba_b_counts(const gcuba_bargs *g, int m, long long *kn,
                   long long *sr, void *stream);
int gcuba_b_cutlist(const gcuba_bargs *g, int m, const long long *sr,
                    void *stream);
int gcuba_b_scatter(const gcuba_bargs *g, int m, const long long *kn,
                    const long long *sr, long long knext, gcuba_bleaves b,
                    int *actnext, void *stream);
#ifdef __cplusplus
}
#endif
#endif
