/* src/vegas/backend.h -- the operation the gVegas driver asks of a
   backend: sample one iteration.  The driver (driver.c) is plain C and
   owns everything between iterations (grid, refinement, combination,
   stopping rules, state files); a backend only samples: for the grid it
   is given, it evaluates the integrand at every point of the stratified
   iteration and returns the iteration's integral and variance per
   component and, for iterations that adapt the grid, the bin
   contributions of the first component.  Every sum is taken in the
   canonical order of include/gcuba/detail/vegas.h (chunks, slices, the fixed
   tree, exact 128-bit bin sums), so two backends that see the same
   integrand values return the same bits, whatever their thread count or
   launch shape.  This file is part of gcuba. */
#ifndef GCUBA_VEGAS_BACKEND_H
#define GCUBA_VEGAS_BACKEND_H

#include <stdint.h>
#include "common/common.h"
#include "gcuba/detail/vegas.h"

/* what does not change during a call */
typedef struct gcuba_vegas_setup {
  int ndim, ncomp;
  int nb;              /* bins per axis */
  int nbmax;           /* the most bins per axis the call may grow to
                          (nb when they stay): a backend may size its bin
                          buffers for it, so that create() for the grown
                          bins reuses them (cuda/vegas.cu) */
  int shared;          /* one grid for all axes (GCUBA_VEGAS1D) */
  long long max_calls; /* the largest iteration of the call (samples) */
  const uint64_t *sobol; /* seed 0: ndim*64 Sobol direction numbers (the
                            same array in every iteration); else NULL */
} gcuba_vegas_setup;

/* one iteration */
typedef struct gcuba_vegas_iter {
  uint64_t seed;              /* Philox key */
  uint32_t iter;              /* Philox counter word: iteration, from 0 */
  const uint64_t *sobol;      /* quasi-random points (the setup's), or
                                 NULL: gcuba_vegas_y */
  uint64_t qoff;              /* Sobol index of the iteration's first
                                 sample */
  gcuba_vegas_strat_t strat;  /* stratification (gcuba_vegas_strat) */
  gcuba_vegas_plan_t plan;    /* chunks and slices (gcuba_vegas_plan) */
  double ck[3];               /* gcuba_vegas_cube_k(strat.npg, ncubes), or
                                 gcuba_vegas_cube_k_iid(calls) with sobol */
  const double *grid;         /* host copy: ndim (or 1 when shared) grids
                                 of nb+1 edges; NULL in a run in steps
                                 that has not needed its own yet: the
                                 uniform grids (gcuba_vegas_grid_init) */
  int nb;                     /* their bins per axis (the setup's) */
  int grid_changed;           /* grid differs from the previous call's */
  const int *epow;            /* [2*ndim] the edge powers of the map
                                 (gcuba_vegas_map), NULL when all are 0;
                                 they change only with the grid */
  int bins;                   /* accumulate the bin contributions */
  int hostd;                  /* ... which the driver reads itself (a
                                 polish), not only their sums and the
                                 refinement (gcuba_vegas_took) */
  int remote;                 /* grid is stale: the batch's pipeline keeps
                                 the current one (gcuba_vegas_refined_at) */
  const double *qw;           /* [ncomp] their weights (gcuba_vegas_q) */
  /* adaptive stratification (gcuba/detail/vegas.h, "as units") when nreal > 0:
     strat.ncubes counts the units (of strat.npg samples), strat's g and r
     divide [0,1)^ndim into nreal cubes, and cube h has units R[h] ..
     R[h+1]-1; the backend returns in cvar[h] the sum of
     gcuba_vegas_unit_var over cube h's units (qw as weights), in unit
     order, and takes the extremes of F times the unit's rho
     (gcuba_vegas_unit_k).  R and cvar are the driver's (host memory), or
     NULL when the backend's units op made the allocation: R and cvar are
     then the backend's own. */
  const int64_t *R;
  int64_t nreal;
  double *cvar;
} gcuba_vegas_iter;

/* an allocation of units (the driver's alloc_units) */
typedef struct gcuba_vegas_units {
  gcuba_vegas_strat_t s; /* the new cubes (nr = s.ncubes) */
  gcuba_vegas_strat_t o; /* the previous iteration's (nrp of them) */
  int64_t nrp;           /* 0: no previous variances (evenly) */
  int64_t extra;         /* units beyond one per cube */
  int bk;                /* beta = bk/32 (gcuba_vegas_unit_weight) */
  const int64_t *R;      /* NULL, or the previous R and cvar to use */
  const double *cvar;
} gcuba_vegas_units;

typedef struct gcuba_vegas_ops {
  const char *name;
  /* a sampler for call c; NULL on failure with *fail set (logged) */
  void *(*create)(gcuba_call *c, const gcuba_vegas_setup *s, int *fail);
  void (*destroy)(void *ctx);
  /* Sample iteration it: sums[comp] = I, sums[ncomp + comp] = Var of
     component comp (with it->sobol: the sum of the cube terms, see
     gcuba_vegas_cube_k_iid), sums[2 ncomp + comp] and sums[3 ncomp +
     comp] = the largest and the smallest F = f J of a sample (any order:
     the same bits on every backend); with it->bins, d[a*nb + b] = the bin
     contributions
     (q = sum_c qw_c F_c^2, see gcuba/detail/vegas.h), else d untouched.
     0, or GCUBA_FAIL_ABORT, GCUBA_FAIL_NAN, GCUBA_FAIL_NOMEM,
     GCUBA_FAIL_CUDA, GCUBA_FAIL_DEVMEM (sums then undefined). */
  int (*iterate)(void *ctx, const gcuba_vegas_iter *it, double *sums,
                 double *d);
  /* Adaptive stratification kept in the backend (NULL: the driver
     allocates in host memory).  units: the units R of the next iteration's
     cubes from the previous iteration's (its R and cvar, kept; or those
     of u->R, u->cvar when set, from a state file), as the driver's host
     allocation makes them; *nunits = R[nr].  units_get: the previous
     iteration's R (nrp + 1 values) and cvar (nrp) into host memory, for a
     state file.  0 or a fail code. */
  int (*units)(void *ctx, const struct gcuba_vegas_units *u,
               int64_t *nunits);
  int (*units_get)(void *ctx, int64_t nrp, int64_t *R, double *cvar);
} gcuba_vegas_ops;

/* the backends' tables (src/cpu/, cuda/): src/plan/tables.h */

/* the nvec form of a host integrand as gVegas calls it: Cuba's Vegas
   passes the sample weights and the iteration number (1-based) too */
typedef int (*gcuba_vegas_nvec_fn)(const int *ndim, const double x[],
                                   const int *ncomp, double f[],
                                   void *userdata, const int *nvec,
                                   const int *core, const double weight[],
                                   const int *iter);

#endif
