/* src/suave/suave.h -- the gSuave driver and what it asks of a backend:
   the integrand's values at a list of points, and, where the backend
   keeps the samples in its device's memory (the GPU's), the passes over
   them (gcuba_suave_dev below).  The driver (src/suave/driver.c and the
   files beside it) is plain C and owns the whole algorithm: the regions,
   their grids, where to cut, how many samples each half gets, the
   estimates, the stopping rules, the state files.  The points are those
   of the driver's sequence (seed 0: one Sobol sequence over the whole
   run; else Philox keyed by the seed and the sample's number), so every
   backend sees the same points.  Given the same integrand values, a run
   with the samples in host memory takes the same steps to the same bits
   on any thread count; a device's passes sum in their own fixed order,
   the same bits on every run there.  This file is part of gcuba. */
#ifndef GCUBA_SUAVE_DRIVER_H
#define GCUBA_SUAVE_DRIVER_H
#include "common/common.h"
#include <stdint.h>
#include "common/points.h"

/* its executors evaluate points: common/points.h */

/* gSuave's samples in the memory of the device that runs the integrand
   (a points executor's `suave' member): a region's block holds its
   samples in the layout of the host's (src/suave/suave_int.h: w[n],
   x[n][ndim], f[n][ncomp], sn[n], then the own set's bin[nown][ndim]),
   and the passes over them run there; the driver keeps the rest (the
   regions' boxes, grids, estimates and their sets' ends) and decides
   everything from the sums that come back.  The passes are queued, in
   order: their inputs are taken when they are called, their results
   are in place after the next wait (the caller keeps the places until
   then).  Each member returns 0 or a fail code (logged, c->fail set);
   an abort or NaN of the integrand is reported by the wait after it. */
typedef struct gcuba_suave_dev {
  /* the device's part of a run: pctx is the points executor's context;
     sobol its ndim*64 direction numbers (seed 0) or NULL (Philox keyed
     by seed) */
  void *(*create)(void *pctx, const uint64_t *sobol, uint64_t seed,
                  int *fail);
  void (*destroy)(void *d);
  /* a block for n samples of which the last nown are the own set's;
     NULL with c->fail untouched when the device's memory is full, with
     c->fail set on any other failure */
  void *(*alloc)(void *d, long long n, long long nown);
  void (*release)(void *d, void *blk);
  /* the own set drawn (point i0 + k of the sequence for its sample k)
     in the box lo..hi with grids grid, weights jac times the grids'
     factors, its end marked, and evaluated */
  int (*draw)(void *d, void *blk, const double *lo, const double *hi,
              const double *grid, double jac, uint64_t i0);
  /* gcuba_suave_scan's sums over the block's samples (mid[ndim] the
     axes' middles): fl[2 ndim], fn[2 ndim] */
  int (*scan)(void *d, void *blk, int comp, double avg, double norm,
              double amax, double flatness, const double *mid, double *fl,
              long long *fn);
  /* the samples into the inherited parts of L and R (cut at mid on
     axis dim; the nset sets end at ends[]), each set's end kept on
     either side; right[j] the samples of set j that went right */
  int (*share)(void *d, void *blk, int nset, const long long *ends,
               int dim, double mid, void *L, void *R, long long *right);
  /* gcuba_suave_marg's sums over the own set: marg[ndim][NB] */
  int (*marg)(void *d, void *blk, const double *scale, double *marg);
  /* per set j (ending at ends[j]): rec[j (1 + 4 ncomp)] its size when
     drawn, then per component the sum of |w| f, of its squares, its
     least and greatest value */
  int (*sets)(void *d, void *blk, int nset, const long long *ends,
              double *rec);
  /* everything queued done and its results in place */
  int (*wait)(void *d);
  /* the block's samples to and from host memory (state files), at once */
  int (*get)(void *d, void *blk, void *host);
  int (*put)(void *d, void *blk, const void *host);
} gcuba_suave_dev;

/* the backends' tables: src/plan/tables.h */

#ifdef __cplusplus
extern "C" {
#endif
/* Integrates c (arguments checked, backend chosen by the plan) over the
   backend ops; sets the outputs and c->fail. */
void gcuba_suave_drive(gcuba_call *c, const gcuba_points_ops *ops);
#ifdef __cplusplus
}
#endif

#endif
