/* src/divonne/divonne_int.h -- the gDivonne driver's data, shared by the
   files of src/divonne/: driver.c (the three phases, the totals, the
   stopping rules), sample.c (the samplers: lattices, quasi-random and
   pseudo-random points, and the single points of the searches),
   extremum.c (a region's smallest and largest values), split.c (where to
   cut a region and the recursion over its pieces).  This file is part of
   gcuba. */
#ifndef GCUBA_DIVONNE_INT_H
#define GCUBA_DIVONNE_INT_H

#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <math.h>
#include "divonne/divonne.h"

/* splits of the first region, of a region chosen in the partitioning
   phase, and of a region re-split after the final integration */
#define DIV_INIDEPTH 3
#define DIV_DEPTH 5
#define DIV_POSTDEPTH 15
/* the largest lattice (points per region: half of it plus one) */
#define DIV_MAXPRIME 9689
/* the final phase's randomly shifted copies (Genz's protocol: 2 copies
   315 claims, one of them more than 4 errors off; 3 copies 311, 4 copies
   306, all within) */
#define DIV_COPIES 3
/* the final phase's copies are Sobol points, randomly digitally shifted,
   from this many dimensions on, and lattices below.  Genz's protocol
   (bench-genz --routines divonne, seed 4711, 20 instances per group):
   - 8 and 10 dimensions: lattices 59 claims of 240, Sobol points 200,
     all within 4 errors (lattices: 8-D Gaussians 1% off after 150,000
     evaluations);
   - 6 and 7: Sobol points 208 claims against 161, as many or more in
     every group (lattices: one 7-D product peak 4 errors off);
   - 2 to 5: lattices 1 to 2 more claims in 5 of 24 groups, alike in the
     rest; tests/test-divonne's f1 5D (cos(x1 + 2 x2 + ... + 5 x5))
     converges with lattices and not with Sobol points */
#define DIV_SOBOLDIM 6
/* the executor's extrema of the last copies in d->cbuf (make_copies) */
#define DIV_CEXT(d) ((d)->cbuf + DIV_COPIES * (d)->ncomp)
/* the most regions whose final copies are made in one call of the
   executor (ahead.c), unless GCUBA_DIVONNE_AHEAD says */
#define DIV_AHEAD_MAX 4096
/* a region whose final points see a range this many times the one its
   partition knew is explored again, and cut again where they saw less
   than DIV_SEEN of the range found then (driver.c, sampled_range) */
#define DIV_SURPRISE 10
#define DIV_SEEN .5
/* a key's absolute value below this multiplies the points needed */
#define DIV_KEYMULT 40

/* a sampler: how a region's points are drawn */
enum { DIV_LATTICE = 1, DIV_RANDOM = 2, DIV_RULE = 3 };

typedef struct dsamp {
  int kind;
  long long n;     /* evaluations per region */
  long long neff;  /* the points they stand for (a lattice: its prime) */
  long long a;     /* a lattice's multiplier */
  int key;         /* a rule's key */
  int shifted;     /* a lattice drawn this many times, randomly shifted */
  struct gcuba_rule *rule; /* a rule's table */
} dsamp;

/* A region: its box, what its last sampling gave and where its extrema
   lie.  depth > 0: splits still to do; < 0: a parent cut into -depth
   pieces (removed once the pieces are in place). */
typedef struct dspec dspec; /* a cut worked out ahead (split.c) */
typedef struct dreg {
  int depth;
  int isamp;          /* the sampler of its last sampling: 0, 1, 2 */
  int cutcomp;        /* the component its cuts follow */
  int major;          /* which extremum the cuts centre on: 2 comp + 1
                         the maximum, 2 comp the minimum */
  int df;             /* extra samplings in the final phase */
  long long child;    /* a parent's first piece (the pieces follow) */
  double fmajor, fminor, vol;
  double *lo, *hi;    /* [ndim] */
  double *avg, *err, *spread, *fmin, *fmax, *chisq; /* [ncomp] */
  /* the final phase's shifted copies: their number, lattice, and per
     component their mean and the sum of their squared deviations from
     it; ncopy 0 when the region's final estimate is not theirs alone */
  int ncopy;
  long long cp, ca;
  double *csum, *csq;   /* [ncomp] */
  double *xext;       /* [2 ncomp][ndim]: minimum and maximum points */
  long long serial;   /* the regions made before it (totals.c) */
  long long pre;      /* explored ahead on a thread (look.c): 1 + the
                         evaluations that took; 0 not */
  dspec *spec;        /* its cut and pieces worked out ahead, or NULL */
  long long flight;   /* 1 + its item in the cuts being worked out while
                         the rounds go on (look.c), 0 none */
} dreg;

/* the final phase's copies made ahead, many regions in one call of the
   executor (ahead.c): a batch's results */
typedef struct dslot {
  long long cap;        /* regions the buffers hold */
  int kcap;             /* copies per region the buffers hold */
  long long *serial;    /* [cap] */
  double *sum, *ext;    /* [cap k ncomp], [cap 2 ncomp] */
  long long *iext;      /* [cap 2 ncomp] */
  /* the batch's parameters, kept for make_copies' walks to the extrema */
  struct gcuba_copies *q; /* [cap] */
  double *qd;           /* per region its widths, z, shifts: (2 + k) ndim */
  uint64_t *qm;         /* per region its masks: k ndim */
} dslot;

/* a batch: its regions and how they were made */
typedef struct dbatch {
  long long n;          /* regions */
  uint64_t nshift;      /* the shifts' counter at the first region */
  long long p, ca;      /* their lattice (ca 0: Sobol points) */
  int k, phase;         /* copies per region; the integrand's phase */
} dbatch;

typedef struct dahead {
  dbatch cur;           /* the batch being taken (slot[now]) */
  long long next;       /* its next region to take */
  dbatch pend;          /* the batch under way (slot[1 - now]; n 0: none) */
  int now;
  long long run;        /* regions taken since the plan last changed */
  long long max;        /* the most regions of a batch (GCUBA_DIVONNE_AHEAD) */
  long long wasted;     /* evaluations made ahead for nothing */
  long long nbatch;     /* batches made */
  long long npend;      /* of them made while the host worked */
  dslot slot[2];
} dahead;

/* per component */
typedef struct dtot {
  double avg, spreadsq, spread, secondspread;
  double nneed, maxerrsq, mindevsq;
  double integral, sigsq, chisq;
  double sigw;          /* sum of sigsq^2 / its degrees of freedom */
  double pavg[2], perr[2];
  int iregion;
} dtot;

typedef struct divonne {
  gcuba_call *c;
  const gcuba_points_ops *ops;
  void *ctx;
  int ndim, ncomp;
  double epsrel, epsabs;
  double blo, bhi;      /* the border: points closer to the unit cube's
                           faces are extrapolated */
  int phase;            /* passed to the integrand */
  int selcomp, selsign; /* the component a search follows, +1 min / -1 max */
  int rr;               /* the next axis of a bisection with no clue */
  long long neval, neval_opt, neval_cut;
  long long limit;      /* pieces explored past this many evaluations are
                           not cut further */
  long long nlimited;   /* pieces the limit kept from being cut */
  /* where the run stands (all in the state file): stage 1 partitioning
     (iter, pass, nmin), 2 the final phase (fi: the next region, -1
     before it is sized; nwant, short_, df, adjust), 3 the top-up and the
     answer */
  int stage, iter, pass, adjust;
  long long nmin, fi, nwant, short_, df;
  long long reserve;    /* evaluations the final phase leaves to more
                           copies */
  /* state files: the evaluations and stage of the last one written; bound
     once a decision depended on maxeval (the pass that found neval past
     it, a final phase sized short, ...): the states after that are not
     those of a run with a larger maxeval, so none is written (the file
     keeps the last one that is) */
  long long lastsave;
  int laststage, bound;
  dsamp samp[3];
  struct gcuba_rule *rules; /* [3] the samplers' rules */
  uint64_t nshift;      /* the random shifts drawn */
  uint64_t seed;
  const uint64_t *sobol; /* seed 0: Sobol direction numbers */
  const uint64_t *csobol; /* the final phase's copies: Sobol direction
                             numbers, [bit][axis] (and scratch) */
  uint64_t next;         /* the next quasi-random / random point */
  dreg **reg;
  long long nreg, cap;
  /* the partition's copy of the regions' averages and spreads, in the
     list's order ([2 ncomp] each; mcap regions): its rounds read them
     all, from one array instead of every region */
  double *mir;
  long long mcap;
  /* the partition's totals by blocks of regions (totals.c): regions made
     so far; per block its first place in the list ([nblk + 1], the last
     the list's end), per block and component the partial sums and
     extrema ([nblk][ncomp][4]) and the place of the largest spread */
  long long nserial;
  long long *bfirst, *btop;
  double *bsum;
  long long nblk, nbcap;
  /* while the partition runs (lazy): a region cut leaves a hole (NULL)
     in its place instead of the regions after it moving up; dead holes
     in reg[0 .. nreg-1], closed now and then (gcuba_divonne_compact) */
  int lazy;
  long long dead;
  dtot *tot;
  /* given points (ngiven) and the peak finder's (nextra) with values */
  double *xgiven, *fgiven;
  long long ngiven;
  double *xextra, *fextra;
  long long nextra;
  /* scratch */
  double *sx, *sf;      /* a sampling's points and values */
  long long scap;
  /* final copies made by the executor (ops->copies): their sums and
     extrema (sample.c's make_copies); ext: the last sampling's d->sx
     holds only each component's least and greatest values' points */
  double *cbuf;
  long long *cext;
  int ext;
  /* (cbuf: the copies' sums [DIV_COPIES ncomp], then their extrema
     DIV_CEXT [2 ncomp], then their estimates [DIV_COPIES ncomp]) */
  double *cq;           /* a copy's widths, z, shifts: (2 + DIV_COPIES) ndim */
  uint64_t *cm;         /* its masks: DIV_COPIES ndim */
  double *wx, *wf;      /* a single point's: [2 ndim], [2 ncomp] */
  double *bx;           /* the border's points, values, distances */
  long long bcap;       /* points bx holds */
  dahead ahead;
  /* the top-up's heaps (topup.c): places and keys */
  long long *hpos;
  double *hkey;
  /* gcuba_divonne_inflate's last factor beyond its table, and its dof */
  double qval;
  int qdof;
  double *xmem;         /* an extremum search's scratch */
  double *pbox;         /* a cut's pieces' boxes (split.c) */
  /* the partition's pieces explored ahead on CPU threads (look.c): per
     thread a copy of this struct with its own scratch (nwork of them);
     in a copy, worker is 1 and tid its thread */
  struct divonne *work;
  int nwork, worker, tid;
  long long nspec, nspec_taken, nlook; /* cuts worked out ahead, those
                                          taken; pieces explored ahead */
  double tahead;        /* ms in the threads' loops */
  long long nloops;     /* and their number */
  struct dflight *fl;   /* the cuts worked out while the rounds go on */
  long long nfly;       /* such loops */
  double tfly;          /* ms the rounds waited for them */
  jmp_buf abort;        /* a failed evaluation ends the call (a worker:
                           its piece is explored again in its turn) */
  int fail;
} divonne;

/* sample.c */
/* region r's copies' description q: K copies of p points (lattice ca; 0:
   Sobol points) in r's box, shifted by numbers ctr .. ctr + K - 1 of the
   call's shifts; w, z [ndim] and u, m [K ndim] hold its arrays */
void gcuba_divonne_copies_q(const divonne *d, const dreg *r, long long p,
                            long long ca, int K, uint64_t ctr, double *w,
                            double *z, double *u, uint64_t *m,
                            struct gcuba_copies *q);
/* sets sampler isamp for key (as Cuba's key1..3) wanting nwant points
   per region, at most nmax; returns the points short of nwant (0 if
   none), with bit 62 set when even nmin do not fit */
long long gcuba_divonne_lookup(divonne *d, int isamp, int key,
                               long long nwant, long long nmax,
                               long long nmin);
/* samples region r with sampler isamp: r's avg and err, the points and
   values in d->sx, d->sf (returns their count) */
long long gcuba_divonne_sample(divonne *d, dreg *r, int isamp);
/* one more randomly shifted copy of region r's final points (r->cp,
   r->ca): its estimate of each component into a[ncomp]; its values
   widen r's range */
void gcuba_divonne_copy(divonne *d, dreg *r, double *a);
/* the variance of the mean of n copies of region r's points (component
   cc), sq the sum of their squared deviations from it.  When they all
   agree to the bit (sq 0; an integrand of few values, an indicator,
   often gives such copies, a scatter that says little of the variance),
   a copy's estimate moves in steps of vol (fmax - fmin) / p at most:
   half a step is taken as a copy's standard deviation, 0 only where
   every value the region gave was the same */
double gcuba_divonne_copies_var(const dreg *r, int cc, double sq, int n);
/* the selected component at x (clamped to the unit cube, the border
   extrapolated), times d->selsign */
double gcuba_divonne_point(divonne *d, const double *x);
/* evaluates n points (the border extrapolated): 0 or longjmp */
void gcuba_divonne_eval(divonne *d, long long n, const double *x, double *f);

/* the tolerance at avg: max(epsrel |avg|, epsabs) */
static inline double gcuba_divonne_maxerr(const divonne *d, double avg)
{
  const double e = d->epsrel * fabs(avg);
  return e > d->epsabs ? e : d->epsabs;
}
/* the variance of the mean of region r's copies of component cc */
static inline double gcuba_divonne_cvar(const dreg *r, int cc)
{
  return gcuba_divonne_copies_var(r, cc, r->csq[cc], r->ncopy);
}

/* topup.c: the final error widened where a few regions dominate it (the
   factor for the variance); more copies where the variance weighs most,
   while the final error misses the tolerance and maxeval allows */
double gcuba_divonne_inflate(divonne *d, const dtot *t);
void gcuba_divonne_more_copies(divonne *d);

/* ahead.c: the final phase's copies of region i and those after it made
   in one call of the executor, unless they are made already (final_loop,
   before it samples region i); a region's results taken when they are
   those of its copies (K of them, the first shift ctr): the parameters
   they were made with (valid until the next call here), else NULL (the
   caller makes them); the buffers freed */
void gcuba_divonne_ahead(divonne *d, long long i);
const struct gcuba_copies *gcuba_divonne_ahead_take(divonne *d,
                                                    const dreg *r, int K,
                                                    uint64_t ctr, double *sum,
                                                    double *ext,
                                                    long long *iext);
/* the batch under way, if any, finished and dropped (before the executor
   makes other copies, and before it goes) */
void gcuba_divonne_ahead_settle(divonne *d);
void gcuba_divonne_ahead_free(divonne *d);

/* look.c: the pieces of a round from place j on (all to be explored
   in turn) explored ahead on the CPU threads, when there are several and
   the executor evaluates on the calling thread (ops->eval_on); their
   results as a serial exploration's, bit for bit.  The threads' copies
   freed. */
void gcuba_divonne_look_ahead(divonne *d, long long j);
void gcuba_divonne_look_free(divonne *d);
/* the partition's rounds: the cuts of the regions of largest spread
   (component cc; the next rounds' likely) worked out ahead on the CPU
   threads, a window at a time: the round's own region, when it has no
   cut, in a loop of all of them, the rest on the workers while the
   rounds go on.  All of them dropped (the partition's end) */
void gcuba_divonne_spec_ahead(divonne *d, int cc);
void gcuba_divonne_spec_drop(divonne *d);

/* state.c: writes the run's state to the state file when due (force:
   now, unless it is the one last written); longjmps on an error */
void gcuba_divonne_checkpoint(divonne *d, int force);
/* reads it: 1 resumed, 0 no file, < 0 fail code */
int gcuba_divonne_load_state(divonne *d);

/* extremum.c: the smallest value of the selected component (times
   selsign) in the box lo..hi, searched from x (fx its value); x is moved
   to where it is found */
double gcuba_divonne_minimum(divonne *d, const double *lo, const double *hi,
                             double *x, double fx);

/* split.c */
dreg *gcuba_divonne_region_new(divonne *d);
/* explores region i (sampled with its isamp unless that is 1 or 2 and
   the samples are in place): extrema, spread, whether to split; splits
   it if its depth says so.  Returns 0, or -1 when every value is NaN */
int gcuba_divonne_explore(divonne *d, long long i, int sampled);
/* what exploring a piece (unsampled region) r reads of nothing another
   piece changes: its sampling, extrema, searches, spread and cut
   component (explore's first part; d a worker's copy in look.c) */
void gcuba_divonne_look(divonne *d, dreg *r);
/* region r's cut and its pieces, explored, worked out on a worker's copy
   d into r->spec (a longjmp leaves r->spec to gcuba_divonne_spec_free):
   what split would make of r in the list, bit for bit */
void gcuba_divonne_speculate(divonne *d, dreg *r);
void gcuba_divonne_spec_free(dreg *r);
/* splits region i (depth > 0) and explores the pieces recursively;
   isamp < 0: i is cut first (its extrema known), else i is explored with
   sampler isamp first.  tot: the spread corrections are added to
   tot[].spreadsq.  Region i, once cut, leaves the list: the regions
   after it move up, or, while d->lazy, a hole stays in its place */
void gcuba_divonne_iterate(divonne *d, long long i, int depth, int isamp,
                           dtot *tot);
/* totals.c: d->tot's averages, spreads' squares, largest and second
   largest spreads and the place of the largest from the blocks
   (gcuba_divonne_totals); the mirror and the blocks built for the list
   as it is (init), updated after a round that cut region i (parent
   before, the pieces from place first on: round), and the holes closed
   (compact) */
void gcuba_divonne_totals(divonne *d);
void gcuba_divonne_totals_init(divonne *d);
void gcuba_divonne_totals_round(divonne *d, long long i, const dreg *parent,
                                long long first);
void gcuba_divonne_totals_compact(divonne *d);
/* the places of the k (at most GCUBA_DIVONNE_TOPMAX) regions of largest
   spread (component cc), the largest first: their number */
#define GCUBA_DIVONNE_TOPMAX 2048
int gcuba_divonne_totals_top(const divonne *d, int cc, int k,
                             long long *pos);
/* the holes of a lazy partition closed (the regions keep their order);
   the partition's mirror too when mir is set */
void gcuba_divonne_compact(divonne *d, double *mir);

#endif
