/* src/vegas/driver.c -- the gVegas driver: Cuba's Vegas iteration loop over
   a backend (backend.h) that samples m-Cubes style (stratified cubes, a
   batch of cubes per thread).

   Iteration k takes nstart + k nincrease samples (Cuba), stratified into
   (g+1)^r g^(d-r) cubes with the same number of samples each; the
   backend returns the iteration's integral and variance per component
   and, while the grid adapts, the bin contributions q = sum_c w_c F_c^2
   (w_c ~ 1/tolerance_c^2), from which the grid is refined with Lepage's
   damping (Cuba's RefineGrid steps, src/vegas/grid.c).  Once the grid has
   settled it is frozen (the m-Cubes "ita" idea): later iterations skip
   the bin pass.

   Results combine the iterations of a window [w, k) with weights
   proportional to their samples (not Cuba's inverse variances, which
   favour iterations whose variance came out too low).  Iterations on
   grids that have not yet found the integrand (warm-up) never enter the
   window, and iterations that the window's chi^2 shows to be inconsistent
   with the later ones leave it from the front.  fail = 0 is claimed only
   when every component's error meets its tolerance, the warm-up is over,
   the window holds NMIN_WINDOW iterations and its chi^2 is acceptable
   (doc/vegas.md, "When gVegas says fail = 0").

   Everything is deterministic: the random numbers are Philox keyed by
   (seed, iteration, sample), the backends sum in one canonical order, and
   every decision depends on those sums only.  State files hold the whole
   run state, so a resumed run continues exactly as an uninterrupted one.

   This file holds the loop and the entry, gcuba_vegas_drive; the rest of
   the driver is in slots.c (grid slots), history.c (the combination of
   the iterations and the claim of fail = 0), adapt.c (the adaptation of
   the grid and the growth of its bins), autosize.c (GCUBA_VEGASAUTO: the
   size of the iterations, the polish), strat.c (the stratification of an
   iteration, adaptive stratification's units), state.c (state files) and
   report.c (the output), which share driver_int.h.  This file is part of
   gcuba. */
#include <stdlib.h>
#include <string.h>
#include "vegas/driver_int.h"
#include "vegas/grid.h"
#include "common/chisq.h"
#include "common/coll.h"
#include "vegas/sobol.h"

/* GCUBA_DEVICES=auto: a call grows after iteration GROW_ITER at the
   earliest, once an iteration takes GROW_MS (its samples are divided
   among the GPUs by their index, so the result is the bits of one GPU;
   the GPUs agree and reduce at every slice of an iteration, which short
   iterations do not repay; see gcuba_team_grow_devices) */
#define GROW_ITER 2
#define GROW_MS 1

/* ---- settings ------------------------------------------------------------ */

/* the bins per axis to start with (GCUBA_VEGAS_NBINS, or Cuba's 128
   growing later: gcuba_vegas_grow_target), the refinements before the
   grid freezes (GCUBA_VEGAS_ADAPT: -1 auto) and adaptive stratification's
   beta */
static void knobs(vegas *v)
{
  const gcuba_settings *s = &v->c->set;
  v->nb = s->vegas_nbins > 0 ? s->vegas_nbins : NBINS_DEFAULT;
  v->nb_fixed = s->vegas_nbins > 0;
  v->nb0 = v->nb;
  v->adapt_max = s->vegas_adapt;
  v->beta = gcuba_vegas_beta(v->c);
}

double gcuba_vegas_beta(const gcuba_call *c)
{
  /* GCUBA_VEGASPLUS: Lepage's beta unless the environment gives one;
     GCUBA_VEGAS_BETA alone switches it on too */
  if (c->set.vegas_beta > 0) return c->set.vegas_beta;
  return c->flags & GCUBA_VEGASPLUS ? 0.75 : 0;
}

/* ---- the loop ----------------------------------------------------------- */

/* The loop in steps, so that a batch can sample the iterations of many
   calls at once (gcuba_vegas_step): begin, then per iteration prepare
   (the iteration to sample in v->it, or the end), the backend's iterate
   into v->sums and v->d, and consume (the end, or the next iteration);
   finish writes the results. */

/* the run state at the start of a call, from a state file or fresh;
   1 when the call ends at once */
static int begin(vegas *v)
{
  gcuba_call *c = v->c;
  int resumed;

  resumed = v->cont                      ? 1
            : c->statefile || c->resume ? gcuba_vegas_load_state(v)
                                        : 0;
  if (resumed < 0) return 1;
  if (resumed && !v->cont && !c->resume && (c->flags & GCUBA_RESETSTATE)) {
    gcuba_log(c, 1, "flags bit 5: state reset, grid kept");
    resumed = 0;
  } else if (!resumed)
    gcuba_vegas_slot_get(v);
  if (!resumed) {
    v->k = 0;
    v->nsamples = c->nstart;
    c->neval = 0;
    v->wstart = 0;
    v->nadapt = 0;
    v->settled_at = -1;
    v->warm = -1;
    v->stall = 0;
    v->ubest = 0;
    v->expo = 0;
    v->frozen = 0;
    v->nfine = 0;
    gcuba_vegas_chase_record(v);
  }
  if (v->adapt_max >= 0 && v->nadapt >= v->adapt_max && !v->frozen) {
    v->frozen = FROZEN;
    if (v->settled_at < 0) v->settled_at = v->k;
    if (v->warm < 0) v->warm = v->wstart = v->k;
  }
  v->grid_changed = 1;
  memset(&v->it, 0, sizeof v->it);
  v->it.seed = (uint64_t)(uint32_t)c->seed;
  v->it.sobol = v->sobol;
  v->it.grid = v->grid;
  gcuba_vegas_params(v);
  gcuba_vegas_results(v);
  v->begun = 1;
  v->done = 0;
  return 0;
}

/* the next iteration into v->it; 1 when the call ends instead */
static int prepare(vegas *v)
{
  gcuba_call *c = v->c;
  gcuba_vegas_iter *it = &v->it;
  long long ncall;
  v->t0 = gcuba_now_ms();
  if (c->flags & GCUBA_VEGASAUTO) gcuba_vegas_autosize(v);
  ncall = v->nsamples;
  if (v->beta > 0 ? gcuba_vegas_alloc_units(v, ncall, it)
                  : (gcuba_vegas_iter_strat(v, ncall, &it->strat), 0))
    return 1;
  if (c->neval + it->strat.calls > c->maxeval) {
    if (v->k > 0) {
      c->fail = 1;
      gcuba_log(c, 1, "maxeval %lld reached (the next iteration needs "
                "%lld more)", c->maxeval, (long long)it->strat.calls);
      return 1;
    }
    ncall = c->maxeval - c->neval;
    if (ncall < 2) ncall = 2;
    if (v->beta > 0 ? gcuba_vegas_alloc_units(v, ncall, it)
                    : (gcuba_vegas_iter_strat(v, ncall, &it->strat), 0))
      return 1;
  }
  if (it->strat.npg > GCUBA_VEGAS_SLICE_SAMPLES) {
    gcuba_fail(c, GCUBA_FAIL_PARAM, "%lld samples per cube: too many",
               (long long)it->strat.npg);
    return 1;
  }
  if (gcuba_vegas_hist_reserve(v, v->k + 1)) {
    gcuba_fail(c, GCUBA_FAIL_NOMEM, "iteration history");
    return 1;
  }
  gcuba_vegas_plan(&it->strat, v->ncomp, &it->plan);
  if (v->sobol)
    gcuba_vegas_cube_k_iid(it->strat.calls, it->ck);
  else
    gcuba_vegas_cube_k(it->strat.npg, it->strat.ncubes, it->ck);
  if (v->beta > 0 && (v->cold & 2) && v->frozen && v->k > v->settled_at &&
      v->wstart < v->k) {
    gcuba_log(c, 2, "iteration %lld sampled new cubes with the allocation "
              "of others: the combination restarts", v->k);
    v->wstart = v->k;
  }
  it->iter = (uint32_t)v->k;
  it->qoff = (uint64_t)c->neval;
  it->grid_changed = v->grid_changed;
  it->nb = v->nb;
  it->epow = gcuba_vegas_epow(v);
  it->bins = !v->frozen || v->frozen == POLISHING || v->frozen == POLISHED;
  it->hostd = it->bins && v->frozen;
  it->remote = v->remote;
  if (it->bins || v->beta > 0) gcuba_vegas_bin_weights(v);
  it->qw = v->qw;
  return 0;
}

static int adapted(vegas *v);
static int next(vegas *v);

/* the sampled iteration (the backend's return code rc, its sums in
   v->sums and v->d) into the run; 1 when the call ends */
static int consume(vegas *v, int rc)
{
  gcuba_call *c = v->c;
  gcuba_vegas_iter *it = &v->it;
  const int nc = v->ncomp;
  int comp;
  v->grid_changed = 0;
  if (rc) {
    if (rc == GCUBA_FAIL_DEVMEM && v->k > 0) {
      c->fail = 1;
      gcuba_log(c, 1, "device memory exhausted at iteration %lld: the "
                "estimate so far is returned", v->k + 1);
    } else
      gcuba_fail(c, rc, "at iteration %lld", v->k + 1);
    return 1;
  }
  c->neval += it->strat.calls;
  for (comp = 0; comp < nc; ++comp) {
    v->hI[v->k * nc + comp] = v->sums[comp];
    v->hV[v->k * nc + comp] =
        v->sobol ? gcuba_vegas_iid_var(v->sums[nc + comp], v->sums[comp],
                                       it->strat.calls)
                 : v->sums[nc + comp];
    {
      const double hi = v->sums[2 * nc + comp] - v->sums[comp],
                   lo = v->sums[comp] - v->sums[3 * nc + comp];
      v->hX[v->k * nc + comp] = hi > lo ? hi : lo;
    }
  }
  v->hcalls[v->k] = it->strat.calls;
  if (it->R) {
    /* the cubes' units and variances for the next allocation */
    int64_t *R = v->Rp;
    double *q = v->cvp;
    v->Rp = v->R;
    v->R = R;
    v->cvp = v->cv;
    v->cv = q;
  }
  if (it->nreal > 0) { /* (in the backend without it->R) */
    v->nrp = it->nreal;
    v->cold = (v->cold & 1) << 1;
  }
  ++v->k;
  if (it->bins) gcuba_vegas_settle(v);
  gcuba_vegas_update_window(v);
  gcuba_vegas_results(v);
  gcuba_vegas_report(v, it);
  if (gcuba_vegas_converged(v)) return 1;

  if (v->frozen == POLISHING || v->frozen == POLISHED) {
    if (gcuba_vegas_polish(v)) return 1;
  } else if (!v->frozen) {
    /* the refinement that freezes the grid floors it instead of mixing
       (grid.h): the mixture protects the adaptation from a map that
       has not yet found part of the integrand; the frozen map, which
       takes most of the samples at large budgets, keeps the learned
       density wherever it is above the floor (f2 6D at 1024 bins: a
       thirtieth of the variance per sample; Genz's protocol: more
       honest answers, the same false claims) */
    v->nbto = gcuba_vegas_grow_target(v, v->hcalls[v->k - 1]);
    v->rlast = v->nbto == v->nb &&
               (v->adapt_max >= 0 ? v->nadapt + 1 >= v->adapt_max
                                  : v->settled_at >= 0);
    if (v->defer) return GCUBA_VEGAS_REFINE;
    gcuba_vegas_refine(v, v->rlast);
    return adapted(v);
  }
  return next(v);
}

/* after the refinement of consume: the edge powers, the bins per axis,
   the freeze; then next; 1 when the call ends */
static int adapted(vegas *v)
{
  gcuba_call *c = v->c;
  const int nbto = v->nbto;
  ++v->nadapt;
  if (!v->rlast) gcuba_vegas_edge_powers(v);
  if (nbto != v->nb) {
    gcuba_log(c, 2, "grid settled with %d bins per axis: rebinned to "
              "%d, adapting on", v->nb, nbto);
    if (gcuba_vegas_set_nb(v, nbto, 1)) return 1;
    v->it.grid = v->grid;
    v->settled_at = -1;
    v->stall = 0;
  } else if (v->adapt_max >= 0 ? v->nadapt >= v->adapt_max
                               : v->settled_at >= 0) {
    v->frozen = FROZEN;
    if (v->settled_at < 0) v->settled_at = v->k;
    if (v->warm < 0) v->warm = v->wstart = v->k; /* forced by the knob */
    gcuba_log(c, 2, "grid frozen after %lld refinements", v->nadapt);
  }
  return next(v);
}

/* the end of an iteration: the next one's size, the state file, the
   growth onto several GPUs; 1 when the call ends here */
static int next(vegas *v)
{
  gcuba_call *c = v->c;
  v->nsamples += c->nincrease;
  if (c->statefile && gcuba_vegas_save_state(v)) return 1;
  /* GCUBA_DEVICES=auto: the call has run long enough; it goes on from
     here on several GPUs (gcuba_vegas_run) */
  if (v->ngrow >= 2 && v->k >= GROW_ITER) {
    const double now = gcuba_now_ms();
    if (now >= v->grow_at && gcuba_calls_running() == 1 &&
        (v->grow_any || now - v->t0 >= GROW_MS)) {
      if (!gcuba_vegas_state_payload(v, &v->grow_state, 0)) {
        v->grown = 1;
        return 1;
      }
      c->fail = 0; /* no memory for the state: it stays */
      v->ngrow = 0;
    }
  }
  return 0;
}

/* the results into the call */
static void finish(vegas *v)
{
  gcuba_call *c = v->c;
  int comp;
  v->done = 1;
  for (comp = 0; comp < v->ncomp; ++comp) {
    c->integral[comp] = v->res[comp];
    c->error[comp] = v->err[comp];
    c->prob[comp] = v->prob[comp] == GCUBA_CHISQ_NODOF ? 0 : v->prob[comp];
  }
  if (v->grown) return;
  gcuba_vegas_slot_put(v);
  if (c->fail == 0 && c->statefile) gcuba_state_remove(c);
}

/* the prepared iteration sampled by the backend: its return code (over
   the processes of a collective call) */
static int sample(vegas *v)
{
  return gcuba_coll_status(v->c, v->ops->iterate(v->ctx, &v->it, v->sums,
                                                 v->d));
}

/* iterations until the call ends */
static void iterate(vegas *v)
{
  while (!prepare(v) && !consume(v, sample(v)))
    ;
}

static void run(vegas *v)
{
  if (begin(v)) return;
  iterate(v);
  finish(v);
}

/* GCUBA_DEVICES=auto: call v, stopped after an iteration, goes on on the
   GPUs the plan chose (c->grow) as a team from its state, with the same result as on
   one.  Returns 0 when the team finished the call; 1 when it could not
   (memory or a device error on a GPU: v then goes on where it stopped,
   on its own GPU). */
static int grow(vegas *v)
{
  const int back = v->c->grow->run(v->c, v->grow_state.p, v->grow_state.n,
                                   NULL);
  gcuba_buf_free(&v->grow_state);
  if (back) {
    v->grown = 0;
    v->ngrow = 0;
    v->cont = 1;
  }
  return back;
}

/* the run of call c over ops: its buffers and the backend's context;
   NULL when that failed (c->fail set) */
static vegas *open_run(gcuba_call *c, const gcuba_vegas_ops *ops,
                       int stepped)
{
  vegas *v = (vegas *)calloc(1, sizeof *v);
  gcuba_vegas_setup *s;
  int fail = 0;
  size_t ng;
  if (gcuba_coll_status(c, v ? 0 : GCUBA_FAIL_NOMEM)) {
    if (c->fail == 0 || c->fail == GCUBA_FAIL_NOMEM)
      gcuba_fail(c, GCUBA_FAIL_NOMEM, "driver state");
    free(v);
    return NULL;
  }
  s = &v->setup_store;
  v->c = c;
  v->ndim = c->ndim;
  v->ncomp = c->ncomp;
  v->shared = (c->flags & GCUBA_VEGAS1D) != 0;
  v->ngrids = v->shared ? 1 : c->ndim;
  v->last = (c->flags & GCUBA_LAST) != 0;
  v->smooth = !(c->flags & GCUBA_SHARPEDGES);
  knobs(v);
  if (v->beta > 0 && c->seed == 0) {
    gcuba_log(c, 1, "seed 0 samples Sobol points, which have no cubes: no "
              "adaptive stratification (GCUBA_VEGASPLUS, "
              "GCUBA_VEGAS_BETA)");
    v->beta = 0;
  }
  v->ops = ops;
  ng = (size_t)v->ngrids * (v->nb + 1);
  /* (a batch's run in steps: its grid, the bin contributions and the
     refinement's scratch when the driver needs them,
     gcuba_vegas_grid_here and gcuba_vegas_buffers; fewer pages to touch
     for each of many runs started at once) */
  if (!stepped) {
    v->grid = (double *)malloc(sizeof(double) * ng);
    v->d = (double *)malloc(sizeof(double) * (size_t)v->ndim * v->nb);
    v->scratch = (double *)malloc(
        sizeof(double) * GCUBA_VEGAS_GRID_SCRATCH_PAR(v->nb, v->ndim));
  }
  v->sums = (double *)malloc(sizeof(double) * 9 * v->ncomp);
  v->epow = (int *)calloc((size_t)2 * v->ndim, sizeof(int));
  if (gcuba_coll_status(c, (!stepped && (!v->grid || !v->d || !v->scratch)) ||
                               !v->sums || !v->epow ||
                               gcuba_vegas_hist_reserve(v, 16)
                           ? GCUBA_FAIL_NOMEM : 0)) {
    if (c->fail == 0 || c->fail == GCUBA_FAIL_NOMEM)
      gcuba_fail(c, GCUBA_FAIL_NOMEM, "driver state");
    goto fail;
  }
  v->res = v->sums + 4 * v->ncomp;
  v->err = v->res + v->ncomp;
  v->prob = v->err + v->ncomp;
  v->chi2 = v->prob + v->ncomp;
  v->qw = v->chi2 + v->ncomp;
  s->ndim = v->ndim;
  s->ncomp = v->ncomp;
  s->nb = v->nb;
  s->nbmax = v->nb_fixed || v->adapt_max >= 0 || v->nb >= NBINS_MAX
                 ? v->nb
                 : NBINS_MAX;
  s->shared = v->shared;
  s->max_calls = c->maxeval;
  s->sobol = NULL;
  if (c->seed == 0) {
    /* Cuba's Vegas samples Sobol points for seed 0: so does gVegas */
    v->sobol = gcuba_sobol_table(v->ndim);
    if (gcuba_coll_status(c, !v->sobol ? GCUBA_FAIL_NOMEM : 0)) {
      if (c->fail == 0 || c->fail == GCUBA_FAIL_NOMEM)
        gcuba_fail(c, GCUBA_FAIL_NOMEM, "Sobol direction numbers");
      goto fail;
    }
    s->sobol = v->sobol;
  }
  v->setup = s;
  v->ctx = v->ops->create(c, s, &fail);
  if (gcuba_coll_status(c, v->ctx ? 0 : fail ? fail : GCUBA_FAIL_NOMEM)) {
    if (v->ctx) v->ops->destroy(v->ctx);
    v->ctx = NULL;
    goto fail;
  }
  return v;
fail:
  gcuba_vegas_end(v);
  return NULL;
}

void gcuba_vegas_end(vegas *v)
{
  if (!v) return;
  if (v->begun && !v->done) finish(v);
  if (v->ctx) v->ops->destroy(v->ctx);
  free(v->grid);
  free(v->edge);
  free(v->gold);
  free(v->d);
  free(v->scratch);
  free(v->sums);
  free(v->epow);
  free(v->hI);
  free(v->hV);
  free(v->hX);
  free(v->hcalls);
  free(v->R);
  free(v->Rp);
  free(v->cv);
  free(v->cvp);
  free(v->ws);
  free(v);
}

void gcuba_vegas_drive(gcuba_call *c, const gcuba_vegas_ops *ops)
{
  vegas *v = open_run(c, ops, 0);
  if (!v) return;
  if (c->grow && !c->coll && !(v->beta > 0)) {
    /* GCUBA_DEVICES=auto: the plan says where and when it may grow */
    v->ngrow = c->grow->n;
    v->grow_at = gcuba_now_ms() + c->grow->after;
    v->grow_any = c->grow->after == 0;
  }
  run(v);
  while (v->grown && grow(v)) run(v);
  gcuba_vegas_end(v);
}

/* ---- the steps, for a batch -------------------------------------------- */

vegas *gcuba_vegas_start(gcuba_call *c, const gcuba_vegas_ops *ops)
{
  vegas *v = open_run(c, ops, 1);
  if (v && begin(v)) {
    gcuba_vegas_end(v);
    return NULL;
  }
  return v;
}

int gcuba_vegas_buffers(vegas *v)
{
  if (!v->d)
    v->d = (double *)malloc(sizeof(double) * (size_t)v->ndim * v->nb);
  if (!v->scratch)
    v->scratch = (double *)malloc(
        sizeof(double) * GCUBA_VEGAS_GRID_SCRATCH_PAR(v->nb, v->ndim));
  return v->d && v->scratch ? 0
                            : gcuba_fail(v->c, GCUBA_FAIL_NOMEM, "grid buffers");
}

const gcuba_vegas_iter *gcuba_vegas_want(vegas *v, double **sums, double **d)
{
  if (prepare(v) || (v->it.hostd && gcuba_vegas_buffers(v))) return NULL;
  *sums = v->sums;
  *d = v->d;
  return &v->it;
}

int gcuba_vegas_took(vegas *v, int rc, const double *ds)
{
  int r;
  v->defer = 1;
  v->ds = v->it.hostd ? NULL : ds;
  r = consume(v, rc);
  v->ds = NULL;
  v->defer = 0;
  return r;
}

int gcuba_vegas_refine_mode(const vegas *v)
{
  return gcuba_vegas_refine_bits(v, v->rlast);
}

int gcuba_vegas_refined_at(vegas *v, const double *edge, int nleft,
                           int (*fetch)(void *ctx, double *grid), void *ctx)
{
  if (!v->edge) {
    v->edge = (double *)malloc(sizeof(double) * 2 * (size_t)v->ngrids);
    if (!v->edge) {
      gcuba_fail(v->c, GCUBA_FAIL_NOMEM, "edge widths");
      return 1;
    }
  }
  memcpy(v->edge, edge, sizeof(double) * 2 * (size_t)v->ngrids);
  v->remote = 1;
  v->fetch = fetch;
  v->fetch_ctx = ctx;
  gcuba_vegas_refine_note(v, v->rlast, nleft);
  return adapted(v);
}

int gcuba_vegas_grid_here(vegas *v)
{
  int rc;
  if (!v->grid) {
    /* a run in steps: the uniform grids it has had, or room for the
       caller's */
    v->grid = (double *)malloc(sizeof(double) * v->ngrids *
                               (size_t)(v->nb + 1));
    if (!v->grid) return gcuba_fail(v->c, GCUBA_FAIL_NOMEM, "the grid");
    v->it.grid = v->grid;
    if (!v->remote) gcuba_vegas_grid_init(v->grid, v->nb, v->ngrids);
  }
  if (!v->remote) return 0;
  v->remote = 0;
  if ((rc = v->fetch(v->fetch_ctx, v->grid)))
    return gcuba_fail(v->c, rc, "copying the grid back");
  return 0;
}

void gcuba_vegas_resume(vegas *v, const gcuba_vegas_ops *ops)
{
  gcuba_call *c = v->c;
  int fail = 0;
  if (gcuba_vegas_grid_here(v) || gcuba_vegas_buffers(v)) {
    gcuba_vegas_end(v);
    return;
  }
  v->ops->destroy(v->ctx);
  v->ops = ops;
  v->ctx = ops->create(c, v->setup, &fail);
  if (!v->ctx) {
    gcuba_fail(c, fail ? fail : GCUBA_FAIL_NOMEM, "at iteration %lld",
               v->k + 1);
    gcuba_vegas_end(v);
    return;
  }
  /* the new context has no grid yet */
  v->it.grid_changed = 1;
  if (!consume(v, sample(v))) iterate(v);
  gcuba_vegas_end(v);
}
