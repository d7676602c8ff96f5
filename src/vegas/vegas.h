/* src/vegas/vegas.h -- the gVegas driver.  This file is part of gcuba. */
#ifndef GCUBA_VEGAS_DRIVER_H
#define GCUBA_VEGAS_DRIVER_H
#include "common/common.h"
#include "vegas/backend.h"

#ifdef __cplusplus
extern "C" {
#endif
/* Integrates c (arguments checked, backend chosen by the plan) over the
   backend ops; sets the outputs and c->fail. */
void gcuba_vegas_drive(gcuba_call *c, const gcuba_vegas_ops *ops);
/* The driver in steps, for a batch that samples the iterations of many
   calls at once (cuda/vegas_batch.cu): gcuba_vegas_start sets up call c
   as gcuba_vegas_drive does (NULL when it ended at once: its outputs and
   c->fail are then set); gcuba_vegas_want gives the next iteration to
   sample and where its sums (9 ncomp doubles, of which the iterate op's
   4 ncomp are written) and bin contributions (ndim nb doubles) go, or
   NULL when the call has ended; gcuba_vegas_took hands the sampled
   iteration back with the sampler's return code (0 or a fail code) and,
   when the caller has them (else NULL), the gcuba_vegas_bin_sums of each
   axis' bin contributions (2 ndim doubles; then the driver reads its bin
   contributions only when the iteration says hostd), and says 1 when the
   call has ended; gcuba_vegas_end writes the outputs and
   frees the run.  ops serves the call's set-up (create; its iterate is
   used only by gcuba_vegas_resume).  A run in steps makes its grid when
   it first needs it: until then an iteration's grid is NULL, the
   uniform one (gcuba_vegas_grid_init). */
typedef struct gcuba_vegas_run gcuba_vegas_run;
gcuba_vegas_run *gcuba_vegas_start(gcuba_call *c, const gcuba_vegas_ops *ops);
const gcuba_vegas_iter *gcuba_vegas_want(gcuba_vegas_run *v, double **sums,
                                         double **d);
int gcuba_vegas_took(gcuba_vegas_run *v, int rc, const double *ds);
/* gcuba_vegas_took's third answer: the iteration asks for a refinement
   of its grid (ngrids x (nb + 1) values: the iteration's, or the copy
   the caller keeps), which the caller makes and keeps: each grid refined
   from its bin contributions by gcuba_vegas_refine_axis (vegas/refine.h)
   with GCUBA_VEGAS_ALPHA and gcuba_vegas_refine_mode's bits; then
   gcuba_vegas_refined_at(v, edge, nleft, fetch, ctx): edge holds each
   grid's first and last bin widths (2 ngrids doubles), nleft the grids
   left unchanged (refine_axis nonzero), and whenever the driver needs
   the grid itself (a rebinning, a polish, the rest of the call on a
   backend) it calls fetch(ctx, grid) to copy it in (0, or a fail code);
   until then the iterations it gives say remote, and their grid is
   stale.  It says 1 when the call has ended, as gcuba_vegas_took */
#define GCUBA_VEGAS_REFINE 2
int gcuba_vegas_refine_mode(const gcuba_vegas_run *v);
int gcuba_vegas_refined_at(gcuba_vegas_run *v, const double *edge, int nleft,
                           int (*fetch)(void *ctx, double *grid), void *ctx);
/* the rest of the call on the backend ops (its iterations one at a time,
   as gcuba_vegas_drive samples them), then gcuba_vegas_end; for a call
   whose next iteration the batch cannot sample: gcuba_vegas_want was
   called last */
void gcuba_vegas_resume(gcuba_vegas_run *v, const gcuba_vegas_ops *ops);
void gcuba_vegas_end(gcuba_vegas_run *v);
/* adaptive stratification's beta for call c (flags GCUBA_VEGASPLUS,
   GCUBA_VEGAS_BETA); 0: none */
double gcuba_vegas_beta(const gcuba_call *c);
#ifdef __cplusplus
}
#endif

#endif
