/* src/vegas/driver_int.h -- what the files of the gVegas driver share
   (driver.c, slots.c, history.c, adapt.c, autosize.c, strat.c, state.c,
   report.c): the tunables, the state of a call (vegas) and the functions
   that one file calls in another.  This file is part of gcuba. */
#ifndef GCUBA_VEGAS_DRIVER_INT_H
#define GCUBA_VEGAS_DRIVER_INT_H
#include <stdint.h>
#include "vegas/vegas.h"
#include "vegas/backend.h"
#include "common/state.h"

/* ---- tunables (doc/vegas.md) ------------------------------------------ */
#define NBINS_DEFAULT 128  /* bins per axis (Cuba's NBINS) */
#define NBINS_MAX 1024
#define NBINS_SPB 64       /* samples per bin of an iteration for the
                              bins to grow to (gcuba_vegas_grow_target) */
#define P_DROP 0.99        /* window front dropped while its chi^2 CDF is
                              above this */
#define GAIN_WARM 0.5      /* iterations on grids of lower gain
                              (gcuba_vegas_settle()) are warm-up: never
                              in the window */
#define P_CLAIM 0.95       /* no fail = 0 while the window's chi^2 CDF is
                              above this (Cuba's own rule of thumb) */
/* v->frozen */
#define FROZEN 1           /* the grid is frozen */
#define POLISHING 2        /* the next iteration accumulates bins again */
#define POLISHED 3         /* the next samples the polished grid */
#define POLISH_DONE 4      /* polished, and kept or undone */
#define POLISH_SPB 10000.0 /* samples per bin of the polishing iteration */
#define POLISH_GROW 8      /* ... when iterations are to grow past this
                              many times its size
                              (gcuba_vegas_polish()) */
#define POLISH_EXPO 4      /* the polishing iteration at least this many
                              times the size of the one before: the pair
                              measures how the variance falls with the
                              samples (measure_expo()) */
#define POLISH_AGAIN 0.9   /* a polish that lowered the variance per sample
                              to this share or less is followed by another
                              while iterations are still to grow past
                              POLISH_GROW times its size */
#define NMIN_WINDOW 3      /* iterations in the window for fail = 0 */
#define STATE_VERSION 7
#define NCHASE 4           /* rule 6: the refinements over which the map's
                              edge bins may shrink by at most ... */
#define CHASE_MIN 0.25     /* ... this factor for fail = 0
                              (gcuba_vegas_chase) */
#define CHASE_DEPTH 1e-10  /* rule 6: no fail = 0 while an edge bin is
                              narrower than this share of a uniform bin */
#define CHASE_SLOW_DEPTH 1e-3 /* ... or narrower than this and ... */
#define CHASE_SLOW 0.9     /* ... shrank by more than this factor over
                              NCHASE refinements */
#define EPOW_DEPTH 1e-2    /* rule 6's edge powers: an edge bin narrower
                              than this share of a uniform bin, while the
                              map chases, maps by a power law one step
                              steeper, ... */
#define EPOW_KMAX 4        /* ... up to u^(2^EPOW_KMAX)
                              (gcuba_vegas_edge_powers) */
#define KAPPA 0.35         /* no fail = 0 while one sample moves the
                              combination by more than this share of the
                              tolerance, ... */
#define KAPPA_EDGE 0.1     /* ... or this share when an edge bin of the
                              map is narrower than ... */
#define EDGE_NARROW 0.05   /* ... this share of a uniform bin */
#define VARFLOOR (1.0 / 20282409603651670423947251286016.0) /* 2^-104 */
/* adaptive stratification (GCUBA_VEGAS_BETA > 0): units of VP_NPG
   samples, an iteration of ncall samples has ncall/VP_NPG of them and
   about ncall/(2 VP_UNITS) cubes (at most VP_MAXCUBES), so that a quarter
   of the samples is spread evenly (a unit per cube) and the rest by the
   cubes' variances (gcuba_vegas_alloc_units) */
#define VP_NPG 2
#define VP_UNITS 4
#define VP_MAXCUBES (1LL << 23)
#define VP_GROW 8.0 /* most growth of an iteration's size
                       (gcuba_vegas_autosize) */

typedef struct gcuba_vegas_run {
  gcuba_call *c;
  const gcuba_vegas_ops *ops;
  void *ctx;
  gcuba_vegas_setup *setup; /* the backend's (nb changes when bins grow):
                              &setup_store */
  gcuba_vegas_setup setup_store;
  int nb0;                 /* the bins per axis the call starts with */
  int nb_fixed;            /* GCUBA_VEGAS_NBINS set: the bins never grow */
  int ndim, ncomp, nb, shared, ngrids, last, smooth;
  long long adapt_max;     /* GCUBA_VEGAS_ADAPT: most refinements (-1 auto) */
  double *grid;            /* ngrids * (nb + 1); NULL in a run in steps
                              until it needs it (the uniform grids, made
                              by gcuba_vegas_grid_here: fewer pages to
                              touch for each of many runs at once) */
  double *d;               /* ndim * nb bin contributions */
  double *scratch;         /* refinement scratch */
  double *sums;            /* 2 * ncomp of the latest iteration */
  double *res, *err, *prob, *chi2; /* [ncomp] current results */
  double *qw;              /* [ncomp] weights of the bin contributions */
  const uint64_t *sobol;   /* seed 0: Sobol direction numbers (shared,
                              gcuba_sobol_table), else NULL */
  int grid_changed;
  /* ---- the run state (state files) ---- */
  long long k;             /* iterations done */
  long long nsamples;      /* Cuba's nsamples of the next iteration */
  long long wstart;        /* first iteration of the window */
  long long nadapt;        /* refinements done */
  long long settled_at;    /* first iteration on a settled grid, -1 */
  long long warm;          /* first iteration past the warm-up, -1 */
  long long stall;         /* refinements since ubest last improved */
  double ubest;            /* best relative variance per sample */
  double expo;             /* the exponent of the variance's fall with the
                              samples, measured at the polish (0: none) */
  int frozen;              /* 0 adapting, else FROZEN .. POLISH_DONE */
  long long nfine;         /* grids recorded in fine (the first and every
                              refinement's) */
  double fine[NCHASE + 1]; /* [i % (NCHASE + 1)]: the narrowest edge bin
                              of grid i, times the bins (gcuba_vegas_chase) */
  int *epow;               /* [2 * ndim] the map's edge powers, part of the
                              grid (gcuba_vegas_map, slots, state files) */
  double *gold;            /* POLISHED: the grid before the polish */
  long long hcap;
  double *hI, *hV;         /* [k * ncomp + comp] iteration results */
  double *hX;              /* [k * ncomp + comp] the largest |F - I| of a
                              sample of the iteration */
  long long *hcalls;       /* [k] samples */
  /* GCUBA_DEVICES=auto: the GPUs this call may grow to (ngrow >= 2),
     from when (gcuba_now_ms), whether it stopped to grow, with which
     state, and whether run goes on where it stopped */
  int ngrow, grow_any, grown, cont;
  double grow_at;
  gcuba_buf grow_state;
  /* adaptive stratification: beta (0: off); the cubes' units (R, as in
     detail/vegas.h) and variances (cv) of the iteration being sampled, and
     of the previous one (Rp, cvp, for nrp cubes; nrp = 0: none) */
  double beta;
  int cold;                /* the allocation of the iteration being sampled
                              (cold) and of the latest one (cold >> 1) did
                              not come from the same cubes */
  int64_t *R, *Rp;
  double *cv, *cvp, *ws; /* (ws: the allocation's scratch) */
  long long nrcap, nrp;
  int units_put;           /* Rp and cvp came from a state file: the
                              backend's units op starts from them */
  gcuba_vegas_iter it;     /* the iteration being sampled (driver.c's
                              steps) */
  double t0;               /* when it was prepared (gcuba_now_ms) */
  int begun, done;         /* begin() started the run, finish() wrote its
                              outputs */
  int defer;               /* consume leaves the refinement to the caller
                              (gcuba_vegas_took) */
  int nbto, rlast;         /* the refinement consume asked for: the bins
                              per axis after it, and whether it floors */
  const double *ds;        /* during gcuba_vegas_took: the caller's
                              gcuba_vegas_bin_sums of d per axis, or NULL */
  /* the grid kept by the caller of the steps (gVegasBatch's pipeline,
     on the device) since its refinement: grid is stale, edge [2 ngrids]
     holds each grid's first and last bin widths, and fetch(fetch_ctx,
     grid) copies it in (gcuba_vegas_grid_here) */
  int remote;
  double *edge;
  int (*fetch)(void *ctx, double *grid);
  void *fetch_ctx;
} vegas;

/* ---- slots.c: grid slots (Cuba's gridno) ------------------------------- */
void gcuba_vegas_slot_get(vegas *v);
void gcuba_vegas_slot_put(vegas *v);

/* ---- history.c: the history of iterations and their combination ------ */
int gcuba_vegas_hist_reserve(vegas *v, long long n);
double gcuba_vegas_tolerance(const gcuba_call *c, double I);
double gcuba_vegas_tolerance_scale(const gcuba_call *c, double I);
void gcuba_vegas_hist_combine(const vegas *v, long long w0, int comp,
                              int last, double *I, double *E, double *chi2,
                              int *ndof, double *prob);
void gcuba_vegas_update_window(vegas *v);
void gcuba_vegas_results(vegas *v);
int gcuba_vegas_converged(vegas *v);

/* ---- adapt.c: the grid's adaptation and the growth of its bins -------- */
void gcuba_vegas_settle(vegas *v);
void gcuba_vegas_bin_weights(vegas *v);
int gcuba_vegas_grid_here(vegas *v);
/* v->d and v->scratch, which a batch's run in steps allocates only when
   its driver needs them: 0, or the fail code (set) */
int gcuba_vegas_buffers(vegas *v);
void gcuba_vegas_refine(vegas *v, int floor);
int gcuba_vegas_refine_bits(const vegas *v, int floor);
void gcuba_vegas_refine_note(vegas *v, int floor, int nleft);
void gcuba_vegas_chase_record(vegas *v);
double gcuba_vegas_chase(const vegas *v);
double gcuba_vegas_edge_depth(const vegas *v);
int gcuba_vegas_edge_settled(const vegas *v);
int gcuba_vegas_edge_powers(vegas *v);
const int *gcuba_vegas_epow(const vegas *v);
int gcuba_vegas_set_nb(vegas *v, int nb, int rebin);
int gcuba_vegas_grow_target(vegas *v, long long calls);

/* ---- autosize.c: GCUBA_VEGASAUTO, the iterations' size and the polish - */
void gcuba_vegas_autosize(vegas *v);
int gcuba_vegas_polish(vegas *v);

/* ---- strat.c: an iteration's stratification, adaptive stratification - */
int gcuba_vegas_units_reserve(vegas *v, long long nr);
void gcuba_vegas_iter_strat(const vegas *v, long long ncall,
                            gcuba_vegas_strat_t *s);
int gcuba_vegas_alloc_units(vegas *v, long long ncall, gcuba_vegas_iter *it);

/* ---- state.c: state files ---------------------------------------------- */
int gcuba_vegas_state_payload(vegas *v, gcuba_buf *pb, int file);
int gcuba_vegas_save_state(vegas *v);
int gcuba_vegas_load_state(vegas *v);

/* ---- report.c: the output at verbosity >= 1 ----------------------------- */
void gcuba_vegas_params(const vegas *v);
void gcuba_vegas_report(const vegas *v, const gcuba_vegas_iter *it);

#endif
