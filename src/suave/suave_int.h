/* src/suave/suave_int.h -- the gSuave driver's data, shared by the files
   of src/suave/: driver.c (the loop, the estimates, the stopping rules),
   region.c (a region's samples, its estimate, its cut), state.c (state
   files).  This file is part of gcuba. */
#ifndef GCUBA_SUAVE_INT_H
#define GCUBA_SUAVE_INT_H

#include <stddef.h>
#include <stdint.h>
#include "suave/suave.h"
#include "gcuba/detail/suave.h"

#define NB GCUBA_SUAVE_NB

/* the fewest samples a half gets (Cuba's MINSAMPLES) */
#define SUAVE_MINSAMPLES 10

/* A region: the box lo..hi (split div times from the unit cube), its
   grids, its estimate, and every sample that fell into it -- those
   inherited from the regions it was cut from and the nown of its own set,
   the last.  Sets are runs of samples drawn together; the last sample
   of a set has a negative weight (-w).  bin holds the bins of its own
   set's samples (for the refinement of its grids when it is cut).  One
   allocation (bytes) holds the struct and its arrays. */
typedef struct sreg {
  int div, df;          /* df: the sets used in its estimate - 1 */
  long long n, nown;    /* samples, of them its own set's (the last) */
  size_t bytes, cap;     /* bytes used, allocated */
  double *lo, *hi;      /* [ndim] */
  double *grid;         /* [ndim][NB + 1] */
  double *avg, *var, *chisq; /* [ncomp]: estimate, variance, chi^2 */
  double *dev;          /* [ncomp] the most one sample moves the estimate */
  double *w;            /* [n] */
  double *x;            /* [n][ndim] */
  double *f;            /* [n][ncomp] */
  double *sn;           /* [n] the size of the sample's set when drawn */
  unsigned char *bin;   /* [nown][ndim] */
  /* samples kept on the device (suave.dev): their block there (the
     arrays above NULL), and the ends of the sets, se[nset] (the host's
     regions find them by the weights' signs) */
  void *blk;
  long long *se;
  int nset;
} sreg;

typedef struct suave {
  gcuba_call *c;
  const gcuba_points_ops *ops;
  void *ctx;
  /* the samples and their passes on the device (ops->suave), or NULL;
     the share queued (the region, NULL when none, and its halves) and
     its counts on the right; the regions whose sets are queued (at most
     two), their records, and whether they are in (qdone) */
  const gcuba_suave_dev *dev;
  void *dctx;
  const sreg *shp;
  sreg *shh[2];
  long long *right;
  size_t rcap;
  const sreg *qreg[2];
  double *qrec[2];
  size_t qcap[2];
  int qdone;
  int ndim, ncomp;
  long long nnew, nmin;
  double flatness;
  int last;             /* flags bit 2: a region's own set alone */
  int smooth;           /* the grids' refinement smooths (not bit 3) */
  uint64_t seed;
  const uint64_t *sobol; /* seed 0: ndim*64 direction numbers; else NULL */
  uint64_t next;        /* the number of the next point drawn */
  sreg **reg;           /* the regions, nreg of cap */
  long long nreg, cap;
  /* the totals' copy of the regions' avg, var, chisq, dev [ncomp] each
     and df, in the list's order (MIRW doubles each; mcap regions): the
     rounds read one array instead of every region; regions nmir on and
     region dirty are copied again before a round reads it */
  double *mir;
  long long mcap, nmir, dirty;
  double *tavg, *tvar, *tchisq, *tdev; /* [ncomp] the totals */
  long long df;
  /* scratch */
  double *sx, *sw, *sf; /* the points of one step: [m][ndim], [m], [m][ncomp] */
  unsigned char *sb;    /* [m][ndim] */
  long long scap;       /* m they hold */
  double *fl;           /* [2 ndim] fluctuations of the halves, then
                           [ncomp] the components' scales (a cut) */
  long long *fn;        /* [2 ndim] their samples */
  double *marg;         /* [ndim][NB] bin contributions */
  double *gs;           /* refinement scratch */
  double *pavg;         /* [3 ncomp] the cut region's avg, var, chisq */
  double *set;          /* a region's sets: [nset][SETW(ncomp)] */
  long long setcap;     /* sets it holds */
  double *scr;          /* the allocation of the scratch above */
  sreg *spare;          /* the block of a region freed, for the next */
  double *pc;           /* the passes' per-piece results (passes.c) */
  size_t pccap;         /* doubles it holds */
} suave;

#define MIRW(nc) (4 * (size_t)(nc) + 1)

/* the doubles of one set's record in suave.set: N, m, then per component
   its sum, sum of squares, largest deviation */
#define SETW(nc) (2 + 3 * (size_t)(nc))

/* region.c */
sreg *gcuba_suave_region_new(suave *s, long long n, long long nown);
/* r (or NULL) freed, or kept for the next region_new */
void gcuba_suave_region_free(suave *s, sreg *r);
/* r (or NULL) freed for good */
void gcuba_suave_region_drop(suave *s, sreg *r);
/* the bytes of n samples (nown own) in a region's block: w, x, f, sn,
   bin (the host's and the device's layout) */
size_t gcuba_suave_sample_bytes(const suave *s, long long n, long long nown);
void gcuba_suave_region_ptrs(const suave *s, sreg *r);
/* r's estimate from its sets (avg, var, chisq, df); 0, or 1 when out of
   memory or when the device failed (c->fail set) */
int gcuba_suave_region_estimate(suave *s, sreg *r);
/* the axis to cut r at and the new samples of each half, for component
   comp with r's error err; 0, or 1 when out of memory */
int gcuba_suave_cut_plan(suave *s, const sreg *r, int comp, double err,
                         int *dim, long long *nl, long long *nr);
/* L's and R's bounds and grids from r's, the grids refined on r's own
   set first, axis dim's grid stretched over each half; 0, or 1 when out
   of memory */
int gcuba_suave_halves(suave *s, const sreg *r, int dim, sreg *L, sreg *R);

/* passes.c: the passes over a region's samples, in pieces of
   SUAVE_PIECE samples on the call's CPU threads */
#define SUAVE_PIECE 16384
/* draws nnew points of region r (its bounds and grids) into x, w, bin:
   the set's weights 2^-div/nnew times the grids' factors; s->next moves
   on by nnew */
void gcuba_suave_draw(suave *s, const sreg *r, long long nnew, double *x,
                      double *w, unsigned char *bin);
/* s->fl[2 a + side], s->fn[2 a + side]: the sums of (1 + |w| (f -
   avg)^2 norm)^flatness (the base at most amax) over r's samples of
   component comp on either side of the middle of axis a, and their
   counts; 0, or 1 when out of memory */
int gcuba_suave_scan(suave *s, const sreg *r, int comp, double avg,
                     double norm, double amax);
/* r's samples into the halves L and R cut on axis dim (the sets' ends
   kept on either side); 0, or 1 when out of memory or when the device
   failed (c->fail set) */
int gcuba_suave_share(suave *s, const sreg *r, int dim, sreg *L, sreg *R);
/* r's sets into s->set (records of SETW doubles): their number, or -1
   when out of memory or when the device failed (c->fail set) */
long long gcuba_suave_sets(suave *s, const sreg *r);
/* on the device: r's sets' sums queued for its gcuba_suave_sets (two
   regions at a time, the halves of a cut: one wait for both); 0, or 1
   as gcuba_suave_sets' -1.  Nothing on the host */
int gcuba_suave_sets_ahead(suave *s, const sreg *r);
/* on the device: what is queued done, its results in place; 0, or 1
   when the device failed (c->fail set) */
int gcuba_suave_wait(suave *s);
/* s->marg[a NB + b]: the sum over r's own set's samples in bin b of axis
   a of (w f scale)^2 over the components; 0, or 1 when out of memory */
int gcuba_suave_marg(suave *s, const sreg *r, const double *scale);

/* state.c: 0 or a fail code; load: 1 resumed, 0 none, < 0 fail code */
int gcuba_suave_save_state(suave *s);
int gcuba_suave_load_state(suave *s);

#endif
