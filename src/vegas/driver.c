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
   This file is part of gcuba. */
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "vegas/vegas.h"
#include "vegas/backend.h"
#include "vegas/grid.h"
#include "common/chisq.h"
#include "common/state.h"
#include "common/coll.h"
#include "vegas/sobol.h"

/* ---- tunables (doc/vegas.md) ------------------------------------------ */
#define NBINS_DEFAULT 128  /* bins per axis (Cuba's NBINS) */
#define NBINS_MAX 1024
#define NBINS_SPB 64       /* samples per bin of an iteration for the
                              bins to grow to (grow_target) */
#define P_DROP 0.99        /* window front dropped while its chi^2 CDF is
                              above this */
#define GAIN_WARM 0.5      /* iterations on grids of lower gain (settle())
                              are warm-up: never in the window */
#define P_CLAIM 0.95       /* no fail = 0 while the window's chi^2 CDF is
                              above this (Cuba's own rule of thumb) */
/* v->frozen */
#define FROZEN 1           /* the grid is frozen */
#define POLISHING 2        /* the next iteration accumulates bins again */
#define POLISHED 3         /* the next samples the polished grid */
#define POLISH_DONE 4      /* polished, and kept or undone */
#define POLISH_SPB 10000.0 /* samples per bin of the polishing iteration */
#define POLISH_GROW 8      /* ... when iterations are to grow past this
                              many times its size (polish()) */
#define POLISH_EXPO 4      /* the polishing iteration at least this many
                              times the size of the one before: the pair
                              measures how the variance falls with the
                              samples (measure_expo()) */
#define POLISH_AGAIN 0.9   /* a polish that lowered the variance per sample
                              to this share or less is followed by another
                              while iterations are still to grow past
                              POLISH_GROW times its size */
#define NMIN_WINDOW 3      /* iterations in the window for fail = 0 */
#define STATE_VERSION 5
#define KAPPA 0.1          /* no fail = 0 while one sample moves the
                              combination by more than this share of the
                              tolerance */
#define VARFLOOR (1.0 / 20282409603651670423947251286016.0) /* 2^-104 */
/* adaptive stratification (GCUBA_VEGAS_BETA > 0): units of VP_NPG
   samples, an iteration of ncall samples has ncall/VP_NPG of them and
   about ncall/(2 VP_UNITS) cubes (at most VP_MAXCUBES), so that a quarter
   of the samples is spread evenly (a unit per cube) and the rest by the
   cubes' variances (alloc_units) */
#define VP_NPG 2
#define VP_UNITS 4
#define VP_MAXCUBES (1LL << 23)
#define VP_GROW 8.0 /* most growth of an iteration's size (autosize) */

typedef struct {
  gcuba_call *c;
  const gcuba_vegas_ops *ops;
  void *ctx;
  gcuba_vegas_setup *setup; /* the backend's (nb changes when bins grow) */
  int nb0;                 /* the bins per axis the call starts with */
  int nb_fixed;            /* GCUBA_VEGAS_NBINS set: the bins never grow */
  int ndim, ncomp, nb, shared, ngrids, last, smooth;
  long long adapt_max;     /* GCUBA_VEGAS_ADAPT: most refinements (-1 auto) */
  double *grid;            /* ngrids * (nb + 1) */
  double *d;               /* ndim * nb bin contributions */
  double *scratch;         /* refinement scratch */
  double *sums;            /* 2 * ncomp of the latest iteration */
  double *res, *err, *prob, *chi2; /* [ncomp] current results */
  double *qw;              /* [ncomp] weights of the bin contributions */
  uint64_t *sobol;         /* seed 0: Sobol direction numbers, else NULL */
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
     gcuba/vegas.h) and variances (cv) of the iteration being sampled, and
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
} vegas;

/* GCUBA_DEVICES=auto: a call grows after iteration GROW_ITER at the
   earliest, once an iteration takes GROW_MS (its samples are divided
   among the GPUs by their index, so the result is the bits of one GPU;
   the GPUs agree and reduce at every slice of an iteration, which short
   iterations do not repay; see gcuba_team_grow_devices) */
#define GROW_ITER 2
#define GROW_MS 1

/* ---- grid slots (Cuba's gridno) ---------------------------------------- */
#define NSLOTS 10
static struct {
  int ndim, nb, shared;
  double *grid;
} slots[NSLOTS];
static pthread_mutex_t slot_lock = PTHREAD_MUTEX_INITIALIZER;

/* the grid to start from: slot |gridno| when it holds a grid of this
   dimension and layout (rebinned to nb when needed), else uniform;
   gridno < 0 empties the slot first */
static void slot_get(vegas *v)
{
  int no = v->c->gridno, s = (no < 0 ? -no : no) - 1;
  gcuba_vegas_grid_init(v->grid, v->nb, v->ngrids);
  if (s < 0 || s >= NSLOTS) return;
  pthread_mutex_lock(&slot_lock);
  if (no < 0) {
    free(slots[s].grid);
    slots[s].grid = NULL;
  }
  if (slots[s].grid && slots[s].ndim == v->ndim &&
      slots[s].shared == v->shared) {
    if (slots[s].nb == v->nb)
      memcpy(v->grid, slots[s].grid,
             sizeof(double) * v->ngrids * (v->nb + 1));
    else
      gcuba_vegas_grid_resize(slots[s].grid, slots[s].nb, v->grid, v->nb,
                              v->ngrids);
    gcuba_log(v->c, 2, "grid taken from slot %d", s + 1);
  }
  pthread_mutex_unlock(&slot_lock);
}

/* keep the grid in slot |gridno| for the next call */
static void slot_put(vegas *v)
{
  int no = v->c->gridno, s = (no < 0 ? -no : no) - 1;
  size_t n = (size_t)v->ngrids * (v->nb + 1);
  double *g;
  if (s < 0 || s >= NSLOTS) return;
  pthread_mutex_lock(&slot_lock);
  g = (double *)realloc(slots[s].grid, sizeof(double) * n);
  if (g) {
    memcpy(g, v->grid, sizeof(double) * n);
    slots[s].grid = g;
    slots[s].ndim = v->ndim;
    slots[s].nb = v->nb;
    slots[s].shared = v->shared;
  }
  pthread_mutex_unlock(&slot_lock);
}

/* ---- settings ------------------------------------------------------------ */

/* the bins per axis to start with (GCUBA_VEGAS_NBINS, or Cuba's 128
   growing later: grow_target), the refinements before the grid freezes
   (GCUBA_VEGAS_ADAPT: -1 auto) and adaptive stratification's beta */
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

/* ---- history and combination ------------------------------------------ */

/* room for the units and variances of nr cubes: 0, or -1 */
static int units_reserve(vegas *v, long long nr)
{
  void *p;
  int bad = 0;
  if (nr <= v->nrcap) return 0;
  if ((p = realloc(v->R, sizeof(int64_t) * (nr + 1)))) v->R = (int64_t *)p;
  else bad = 1;
  if ((p = realloc(v->Rp, sizeof(int64_t) * (nr + 1)))) v->Rp = (int64_t *)p;
  else bad = 1;
  if ((p = realloc(v->cv, sizeof(double) * nr))) v->cv = (double *)p;
  else bad = 1;
  if ((p = realloc(v->cvp, sizeof(double) * nr))) v->cvp = (double *)p;
  else bad = 1;
  if ((p = realloc(v->ws, sizeof(double) * nr))) v->ws = (double *)p;
  else bad = 1;
  if (bad) return -1;
  v->nrcap = nr;
  return 0;
}

static int hist_reserve(vegas *v, long long n)
{
  long long cap = v->hcap ? v->hcap : 64;
  double *a, *b;
  long long *cl;
  if (n <= v->hcap) return 0;
  while (cap < n) cap *= 2;
  a = (double *)realloc(v->hI, sizeof(double) * cap * v->ncomp);
  if (!a) return -1;
  v->hI = a;
  b = (double *)realloc(v->hV, sizeof(double) * cap * v->ncomp);
  if (!b) return -1;
  v->hV = b;
  b = (double *)realloc(v->hX, sizeof(double) * cap * v->ncomp);
  if (!b) return -1;
  v->hX = b;
  cl = (long long *)realloc(v->hcalls, sizeof(long long) * cap);
  if (!cl) return -1;
  v->hcalls = cl;
  v->hcap = cap;
  return 0;
}

/* Cuba's tolerance for an estimate I: max(epsrel |I|, epsabs) (NaN for a
   NaN I) */
static double tolerance(const gcuba_call *c, double I)
{
  const double t = c->epsrel * fabs(I);
  return t < c->epsabs ? c->epsabs : t;
}

/* a scale for errors of I: the tolerance, else |I|, else 1 */
static double tolerance_scale(const gcuba_call *c, double I)
{
  const double t = tolerance(c, I);
  return t > 0 ? t : fabs(I) > 0 ? fabs(I) : 1;
}

/* The combination of iterations [w0, k) for component comp: weights
   proportional to the samples (see doc/vegas.md: Cuba's inverse-variance
   weights are biased towards iterations whose variance came out low),
   error^2 = sum n_k^2 V_k / N^2, chi^2 = sum (I_k - I)^2 / V_k with k - w0 - 1
   degrees of freedom, prob its CDF.  With `last', integral and error are
   those of the latest iteration (chi^2 unchanged). */
static void combine(const vegas *v, long long w0, int comp, int last,
                    double *I, double *E, double *chi2, int *ndof,
                    double *prob)
{
  long long j;
  double N = 0, S = 0, W = 0, x2 = 0, mean, err;
  int nd;
  for (j = w0; j < v->k; ++j) {
    const double n = (double)v->hcalls[j];
    N += n;
    S += n * v->hI[j * v->ncomp + comp];
    W += n * n * v->hV[j * v->ncomp + comp];
  }
  mean = N > 0 ? S / N : 0;
  err = N > 0 ? sqrt(W) / N : 0;
  for (j = w0; j < v->k; ++j) {
    const double n = (double)v->hcalls[j];
    double var = v->hV[j * v->ncomp + comp], dv;
    const double vmin = VARFLOOR / (n > 1 ? n - 1 : 1);
    if (!(var >= vmin)) var = var != var ? var : vmin;
    dv = v->hI[j * v->ncomp + comp] - mean;
    x2 += dv * dv / var;
  }
  nd = (int)(v->k - w0) - 1;
  if (last && v->k > w0) {
    mean = v->hI[(v->k - 1) * v->ncomp + comp];
    err = sqrt(v->hV[(v->k - 1) * v->ncomp + comp]);
  }
  if (I) *I = mean;
  if (E) *E = err;
  if (chi2) *chi2 = x2;
  if (ndof) *ndof = nd;
  if (prob) *prob = gcuba_chisq_prob(x2, nd);
}

/* Seed 0: the factor on the error of a window of Sobol iterations.  Their
   variances are those of independent samples, which overstate a
   quasi-random error (Genz's oscillatory family in 10D: chi^2/df 0.017
   over 22 iterations, true errors 5-10 times below the error).  The
   iterations, disjoint stretches of the sequence, show the true scale s^2
   of their variances in their chi^2 = sum (I_k - I)^2 / V_k: with the
   SOBOL_ALPHA quantile q of chi^2(ndof), chi^2 / q bounds s^2 from above
   at confidence 1 - SOBOL_ALPHA.  The error takes the square root of that
   bound when it is below 1, but never less than SOBOL_FLOOR of itself
   (a floor of 0.5 made false claims on the 10D oscillatory family).
   Pseudo-random seeds keep their variances. */
#define SOBOL_NDOF 2
#define SOBOL_ALPHA 0.05
#define SOBOL_FLOOR 0.7
static double sobol_scale(double chi2, int ndof)
{
  const double b = chi2 / gcuba_chisq_quantile(SOBOL_ALPHA, ndof);
  if (!(b < 1)) return 1; /* NaN too */
  return b > SOBOL_FLOOR * SOBOL_FLOOR ? sqrt(b) : SOBOL_FLOOR;
}

/* the largest chi^2 CDF over the components of window [w0, k) */
static double window_prob(const vegas *v, long long w0)
{
  double pmax = 0, p;
  int comp, ndof;
  for (comp = 0; comp < v->ncomp; ++comp) {
    combine(v, w0, comp, 0, NULL, NULL, NULL, &ndof, &p);
    if (ndof > 0 && !(p <= pmax)) pmax = p; /* NaN counts as inconsistent */
  }
  return pmax;
}

/* the largest error / tolerance over the components of window [w0, k) */
static double window_score(const vegas *v, long long w0)
{
  double worst = 0;
  int comp;
  for (comp = 0; comp < v->ncomp; ++comp) {
    double I, E, tol;
    combine(v, w0, comp, 0, &I, &E, NULL, NULL, NULL);
    tol = tolerance_scale(v->c, I);
    if (!(E / tol <= worst)) worst = E / tol; /* NaN wins */
  }
  return worst;
}

/* Rule 3: drop iterations from the window's front while it is
   inconsistent.  Rule 3b: iterations sampled on grids that were refined
   since (every iteration before the grid froze) leave the front when that
   lowers the combined error relative to the tolerance: with weights by
   samples, a small iteration on a poor early grid can otherwise dominate
   the error of many later ones.  Iterations on the frozen grid are
   equivalent and never leave by 3b (no choosing among them by their
   noise), and the window keeps NMIN_WINDOW iterations. */
static void update_window(vegas *v)
{
  long long w0 = v->wstart, lim, j, best;
  double sbest, s;
  while (w0 < v->k - 1 && !(window_prob(v, w0) <= P_DROP)) ++w0;
  if (w0 != v->wstart)
    gcuba_log(v->c, 2, "iterations %lld..%lld left the combination: "
              "inconsistent with the later ones (chi^2)", v->wstart + 1, w0);
  v->wstart = w0;
  lim = v->k - NMIN_WINDOW;
  if (v->frozen && v->settled_at < lim) lim = v->settled_at;
  if (lim <= w0) return;
  best = w0;
  sbest = window_score(v, w0);
  for (j = w0 + 1; j <= lim; ++j)
    if ((s = window_score(v, j)) < sbest) {
      sbest = s;
      best = j;
    }
  if (best != w0) {
    gcuba_log(v->c, 2, "iterations %lld..%lld left the combination: "
              "sampled on earlier grids, they raised its error", w0 + 1,
              best);
    v->wstart = best;
  }
}

static void results(vegas *v)
{
  int comp, ndof;
  for (comp = 0; comp < v->ncomp; ++comp) {
    combine(v, v->wstart, comp, v->last, &v->res[comp], &v->err[comp],
            &v->chi2[comp], &ndof, &v->prob[comp]);
    if (v->sobol && !v->last && ndof >= SOBOL_NDOF)
      v->err[comp] *= sobol_scale(v->chi2[comp], ndof);
  }
}
/* Rule 5: the most that one sample moves the result of component comp:
   the largest |F - I_j| of the window's iterations over the window's
   samples (each sample's weight in the combination), or over the last
   iteration's with `last'.  A heavy tail (an integrable singularity that
   the map cannot flatten, a narrow peak found by a few samples) shows
   here long before the variance notices it: the variance of such
   samples is itself estimated from a handful of them. */
static double single(const vegas *v, int comp)
{
  long long j, j0 = v->last ? v->k - 1 : v->wstart;
  double N = 0, X = 0;
  for (j = j0; j < v->k; ++j) {
    const double x = v->hX[j * v->ncomp + comp];
    N += (double)v->hcalls[j];
    if (!(x <= X)) X = x; /* NaN wins */
  }
  return N > 0 ? X / N : 0;
}

/* fail = 0 may be claimed: doc/vegas.md, "When gVegas says fail = 0" */
static int converged(vegas *v)
{
  const gcuba_call *c = v->c;
  long long nwin = v->k - v->wstart;
  int comp;
  for (comp = 0; comp < v->ncomp; ++comp) {
    if (!(v->err[comp] <= tolerance(c, v->res[comp]))) return 0;
  }
  if (c->neval < c->mineval) return 0;
  if (v->warm < 0) {
    gcuba_log(c, 3, "tolerance met, but the grid is still warming up");
    return 0;
  }
  if (nwin < NMIN_WINDOW) {
    gcuba_log(c, 3, "tolerance met, but only %lld iteration(s) in the "
              "combination (need %d)", nwin, NMIN_WINDOW);
    return 0;
  }
  for (comp = 0; comp < v->ncomp; ++comp) {
    const double tol = tolerance(c, v->res[comp]), shift = single(v, comp);
    if (!(shift <= KAPPA * tol)) {
      gcuba_log(c, 2, "tolerance met, but one sample moves the estimate "
                "of component %d by %.3g (%.0f%% of the tolerance): the "
                "error rests on too few samples", comp + 1, shift,
                100 * shift / tol);
      return 0;
    }
  }
  if (!(window_prob(v, v->wstart) <= P_CLAIM)) {
    gcuba_log(c, 2, "tolerance met, but the iterations are not consistent "
              "(chi^2 probability %.4f > %.2f)", window_prob(v, v->wstart),
              P_CLAIM);
    return 0;
  }
  return 1;
}

/* After an adapting iteration (before its refinement): has the grid
   settled?  From the bin contributions d of the iteration:
     gain  = min over axes of (sum_b sqrt d_b)^2 / (nb sum_b d_b), <= 1: the
             factor by which the best reweighting of the current bins could
             lower E[F^2] (1: every bin carries the same share, nothing left
             to gain);
     U     = (sum_b d_b / calls - I^2) / I^2: the relative variance per
             sample without the stratification, i.e. the quality of the
             grid alone (several components: I^2 = sum_c w_c I_c^2 with
             the weights of the bin contributions).
   Settled when gain >= GAIN_SETTLED, or when U has not improved by
   IMPROVE for STALL refinements while gain >= GAIN_STALL (integrands with
   edges keep a few bins uneven for ever). */
#define GAIN_SETTLED 0.999
#define GAIN_STALL 0.8
#define IMPROVE 0.95
#define STALL 3
static void settle(vegas *v)
{
  const long long j = v->k - 1;
  double I2 = 0, gain = 1, f2 = 0, U;
  int a, b;
  for (a = 0; a < v->ndim; ++a) {
    const double *d = v->d + (size_t)a * v->nb;
    double s1 = 0, s2 = 0;
    for (b = 0; b < v->nb; ++b) {
      s1 += sqrt(d[b]);
      s2 += d[b];
    }
    if (a == 0) f2 = s2;
    if (s2 > 0 && s1 * s1 / (v->nb * s2) < gain) gain = s1 * s1 / (v->nb * s2);
  }
  for (a = 0; a < v->ncomp; ++a) {
    const double I = v->hI[j * v->ncomp + a];
    I2 = fma(I * I, v->qw[a], I2);
  }
  U = (f2 / (double)v->hcalls[j] - I2) / I2;
  if (!(U > 0)) U = 0; /* also I = 0: a zero integrand */
  if (v->nadapt == 0 || U < IMPROVE * v->ubest) {
    v->ubest = U;
    v->stall = 0;
  } else
    ++v->stall;
  gcuba_log(v->c, 3, "  grid: gain %.5f, relative variance per unstratified "
            "sample %.4g (best %.4g, %lld refinements ago)", gain, U,
            v->ubest, v->stall);
  if (v->warm < 0 && gain >= GAIN_WARM) {
    v->warm = j;
    if (v->wstart < j) {
      gcuba_log(v->c, 2, "iterations 1..%lld were warm-up (grid gain below "
                "%g): not combined", j, GAIN_WARM);
      v->wstart = j;
    }
  }
  if (v->settled_at >= 0) return;
  if (gain >= GAIN_SETTLED || (gain >= GAIN_STALL && v->stall >= STALL)) {
    v->settled_at = v->k;
    gcuba_log(v->c, 2, "grid settled after iteration %lld (gain %.5f)", v->k,
              gain);
  }
}

/* ---- growing bins ----------------------------------------------------- */

/* v->nb becomes nb: the grid, bin contributions and scratch reallocated,
   the grid rebinned when rebin (the same map: gcuba_vegas_grid_resize),
   and the backend, whose bins are fixed when it is created, created anew.
   Every process of a collective call does this at the same iteration.
   0, or the fail code (set) */
static int set_nb(vegas *v, int nb, int rebin)
{
  gcuba_call *c = v->c;
  const size_t ng = (size_t)v->ngrids * (nb + 1);
  double *g = (double *)malloc(sizeof(double) * ng);
  double *d = (double *)malloc(sizeof(double) * (size_t)v->ndim * nb);
  double *sc = (double *)malloc(sizeof(double) *
                                GCUBA_VEGAS_GRID_SCRATCH_PAR(nb, v->ndim));
  int fail = 0;
  if (gcuba_coll_status(c, !g || !d || !sc ? GCUBA_FAIL_NOMEM : 0)) {
    free(g);
    free(d);
    free(sc);
    if (c->fail == 0) gcuba_fail(c, GCUBA_FAIL_NOMEM, "grid of %d bins", nb);
    return c->fail;
  }
  if (rebin)
    gcuba_vegas_grid_resize(v->grid, v->nb, g, nb, v->ngrids);
  else
    gcuba_vegas_grid_init(g, nb, v->ngrids);
  free(v->grid);
  free(v->d);
  free(v->scratch);
  v->grid = g;
  v->d = d;
  v->scratch = sc;
  v->nb = nb;
  v->grid_changed = 1;
  v->setup->nb = nb;
  if (v->ctx) v->ops->destroy(v->ctx);
  v->ctx = v->ops->create(c, v->setup, &fail);
  if (gcuba_coll_status(c, v->ctx ? 0 : fail ? fail : GCUBA_FAIL_NOMEM)) {
    if (v->ctx) v->ops->destroy(v->ctx);
    v->ctx = NULL;
    if (c->fail == 0) gcuba_fail(c, fail ? fail : GCUBA_FAIL_NOMEM,
                                 "sampler for %d bins", nb);
    return c->fail;
  }
  return 0;
}

/* More bins pay only when much is left to do: the grid adapts anew
   after the rebinning, for about as many iterations as it took to settle.
   The samples the tolerance needs at the latest iteration's variance per
   sample (plain Monte Carlo, every component) against GROW_WORK times
   those spent so far: below, the grid freezes with the bins it has and
   the call ends on cheaper frozen iterations. */
#define GROW_WORK 16
static int grow_pays(const vegas *v, double *need)
{
  const gcuba_call *c = v->c;
  const long long j = v->k - 1;
  int comp;
  *need = 0;
  if (j < 0) return 1;
  for (comp = 0; comp < v->ncomp; ++comp) {
    const double tol = tolerance(c, v->res[comp]),
                 s2 = v->hV[j * v->ncomp + comp] * (double)v->hcalls[j];
    if (!(tol > 0) || !(s2 >= 0)) return 1;
    if (s2 / (tol * tol) > *need) *need = s2 / (tol * tol);
  }
  return *need > GROW_WORK * (double)c->neval;
}

/* When the grid has settled on iterations large enough to place more
   bins (NBINS_SPB samples each), it is rebinned to the most bins they
   can place (a power of two times NBINS_DEFAULT, up to NBINS_MAX) and
   adapts on: more bins follow a peak more closely (f2 6D, floored: 1024
   bins a twentieth of the variance per sample of 128), while a call
   that converges during the adaptation, as at Cuba's budgets, keeps
   Cuba's 128 (1024 bins from the start made 43 false claims in Genz's
   protocol, and adapted more slowly).
   Not when GCUBA_VEGAS_NBINS or GCUBA_VEGAS_ADAPT is set.  The bins to
   grow to after an iteration of calls samples; v->nb when they stay. */
static int grow_target(vegas *v, long long calls)
{
  int nb = v->nb;
  double need;
  if (v->nb_fixed || v->adapt_max >= 0 || v->settled_at < 0) return nb;
  while (nb < NBINS_MAX && calls >= 2LL * NBINS_SPB * nb) nb *= 2;
  if (nb != v->nb && !grow_pays(v, &need)) {
    gcuba_log(v->c, 2, "grid settled with %d bins per axis: the tolerance "
              "needs about %.3g samples, less than %d times the %lld spent: "
              "no rebinning", v->nb, need, GROW_WORK, v->c->neval);
    return v->nb;
  }
  return nb;
}

/* ---- state files -------------------------------------------------------- */

/* what a state file must match: the shape of the problem and of the grid
   (not the integrand: as in Cuba, flags bit 5 may take a grid adapted for
   one integrand into another) */
static uint64_t signature(const vegas *v)
{
  const gcuba_call *c = v->c;
  int w[5];
  w[0] = c->ndim;
  w[1] = c->ncomp;
  w[2] = v->nb0;
  w[3] = v->shared;
  w[4] = STATE_VERSION;
  return gcuba_fnv1a(w, sizeof w, GCUBA_FNV_SEED);
}

/* the state after an iteration: into *pb when pb (else dropped), and to
   c->statefile when file */
static int state_payload(vegas *v, gcuba_buf *pb, int file)
{
  gcuba_call *c = v->c;
  gcuba_buf b = {0};
  size_t nh = (size_t)v->k * v->ncomp;
  int rc;
  if (v->nrp > 0 && v->ops->units && !v->units_put) {
    /* (the backend keeps them) */
    if (units_reserve(v, v->nrp))
      return gcuba_fail(c, GCUBA_FAIL_NOMEM, "the cubes' units");
    if ((rc = v->ops->units_get(v->ctx, v->nrp, v->Rp, v->cvp))) return rc;
  }
  gcuba_buf_put(&b, &v->k, sizeof v->k);
  gcuba_buf_put(&b, &v->nsamples, sizeof v->nsamples);
  gcuba_buf_put(&b, &c->neval, sizeof c->neval);
  gcuba_buf_put(&b, &v->wstart, sizeof v->wstart);
  gcuba_buf_put(&b, &v->nadapt, sizeof v->nadapt);
  gcuba_buf_put(&b, &v->settled_at, sizeof v->settled_at);
  gcuba_buf_put(&b, &v->warm, sizeof v->warm);
  gcuba_buf_put(&b, &v->stall, sizeof v->stall);
  gcuba_buf_put(&b, &v->ubest, sizeof v->ubest);
  gcuba_buf_put(&b, &v->expo, sizeof v->expo);
  gcuba_buf_put(&b, &v->frozen, sizeof v->frozen);
  gcuba_buf_put(&b, &v->nb, sizeof v->nb);
  gcuba_buf_put(&b, v->grid, sizeof(double) * v->ngrids * (v->nb + 1));
  gcuba_buf_put(&b, v->frozen == POLISHED ? v->gold : v->grid,
                sizeof(double) * v->ngrids * (v->nb + 1));
  gcuba_buf_put(&b, v->hI, sizeof(double) * nh);
  gcuba_buf_put(&b, v->hV, sizeof(double) * nh);
  gcuba_buf_put(&b, v->hX, sizeof(double) * nh);
  gcuba_buf_put(&b, v->hcalls, sizeof(long long) * v->k);
  if (v->nrp > 0) {
    /* adaptive stratification: what the next allocation starts from */
    gcuba_buf_put(&b, &v->nrp, sizeof v->nrp);
    gcuba_buf_put(&b, v->Rp, sizeof(int64_t) * (v->nrp + 1));
    gcuba_buf_put(&b, v->cvp, sizeof(double) * v->nrp);
  }
  rc = b.bad ? gcuba_fail(c, GCUBA_FAIL_NOMEM, "state buffer")
       : file ? gcuba_state_write(c, "vegas", signature(v), &b)
              : 0;
  if (pb && !rc)
    *pb = b;
  else
    gcuba_buf_free(&b);
  return rc;
}
static int save_state(vegas *v) { return state_payload(v, NULL, 1); }

/* 1 resumed, 0 no state file, < 0 fail code */
static int load_state(vegas *v)
{
  gcuba_call *c = v->c;
  gcuba_buf b = {0};
  long long k = 0;
  /* a call growing to several GPUs: the state its one GPU left, read in
     place */
  const int view = c->resume != NULL;
  int rc, a, bad, nb = 0;
  /* the bins per axis of the saved grid (they may have grown) */
  const size_t nbpos = sizeof k + sizeof(long long) * 7 +
                       2 * sizeof(double) + sizeof(int);
  size_t ng;
  if (view) {
    b.p = (unsigned char *)c->resume;
    b.n = c->resume_n;
    rc = 1;
  } else
    rc = gcuba_state_read(c, "vegas", signature(v), &b);
  if (rc <= 0) return rc;
  if (b.n >= nbpos + sizeof nb) memcpy(&nb, b.p + nbpos, sizeof nb);
  if (nb != v->nb && nb >= 2 && nb <= NBINS_MAX && !v->nb_fixed &&
      set_nb(v, nb, 0)) {
    if (!view) gcuba_buf_free(&b);
    return c->fail;
  }
  ng = (size_t)v->ngrids * (v->nb + 1);
  gcuba_buf_get(&b, &k, sizeof k);
  {
    const size_t base = sizeof(long long) * 7 + 2 * sizeof(double) +
                        2 * sizeof(int) + 2 * sizeof(double) * ng +
                        (size_t)(k >= 0 ? k : 0) *
                            (3 * sizeof(double) * v->ncomp +
                             sizeof(long long));
    long long nrp = 0;
    /* an adaptive stratification's cubes after the history (state_payload) */
    if (!b.bad && b.n - b.pos > base + sizeof nrp)
      memcpy(&nrp, b.p + b.pos + base, sizeof nrp);
    bad = b.bad || k < 0 || nb != v->nb || nrp < 0 || nrp > VP_MAXCUBES ||
          b.n - b.pos != base + (nrp > 0 ? sizeof nrp +
                                               (size_t)nrp * (2 * sizeof(double)) +
                                               sizeof(int64_t)
                                         : 0);
    if (!bad && nrp > 0 && units_reserve(v, nrp)) {
      if (!view) gcuba_buf_free(&b);
      return gcuba_fail(c, GCUBA_FAIL_NOMEM, "the cubes' units");
    }
    v->nrp = bad ? 0 : nrp;
  }
  if (!bad && hist_reserve(v, k + 1)) {
    if (!view) gcuba_buf_free(&b);
    return gcuba_fail(c, GCUBA_FAIL_NOMEM, "iteration history");
  }
  if (!bad) {
    v->k = k;
    gcuba_buf_get(&b, &v->nsamples, sizeof v->nsamples);
    gcuba_buf_get(&b, &c->neval, sizeof c->neval);
    gcuba_buf_get(&b, &v->wstart, sizeof v->wstart);
    gcuba_buf_get(&b, &v->nadapt, sizeof v->nadapt);
    gcuba_buf_get(&b, &v->settled_at, sizeof v->settled_at);
    gcuba_buf_get(&b, &v->warm, sizeof v->warm);
    gcuba_buf_get(&b, &v->stall, sizeof v->stall);
    gcuba_buf_get(&b, &v->ubest, sizeof v->ubest);
    gcuba_buf_get(&b, &v->expo, sizeof v->expo);
    gcuba_buf_get(&b, &v->frozen, sizeof v->frozen);
    gcuba_buf_get(&b, &nb, sizeof nb);
    gcuba_buf_get(&b, v->grid, sizeof(double) * ng);
    if (v->frozen == POLISHED &&
        !(v->gold = (double *)malloc(sizeof(double) * ng))) {
      if (!view) gcuba_buf_free(&b);
      return gcuba_fail(c, GCUBA_FAIL_NOMEM, "grid copy");
    }
    if (v->frozen == POLISHED)
      gcuba_buf_get(&b, v->gold, sizeof(double) * ng);
    else
      b.pos += sizeof(double) * ng;
    gcuba_buf_get(&b, v->hI, sizeof(double) * k * v->ncomp);
    gcuba_buf_get(&b, v->hV, sizeof(double) * k * v->ncomp);
    gcuba_buf_get(&b, v->hX, sizeof(double) * k * v->ncomp);
    gcuba_buf_get(&b, v->hcalls, sizeof(long long) * k);
    if (v->nrp > 0) {
      long long h, nrp;
      gcuba_buf_get(&b, &nrp, sizeof nrp);
      gcuba_buf_get(&b, v->Rp, sizeof(int64_t) * (v->nrp + 1));
      gcuba_buf_get(&b, v->cvp, sizeof(double) * v->nrp);
      bad = v->Rp[0] != 0;
      for (h = 0; h < v->nrp && !bad; ++h)
        bad = !(v->Rp[h + 1] > v->Rp[h]) || !(v->cvp[h] >= 0);
      if (bad) v->nrp = 0;
      v->units_put = !bad;
    }
    bad = bad || b.bad || v->nsamples < 2 || c->neval < 0 || v->wstart < 0 ||
          v->wstart > k || v->frozen < 0 || v->frozen > POLISH_DONE;
    for (a = 0; a < v->ngrids && !bad; ++a)
      bad = !gcuba_vegas_grid_check(v->grid + (size_t)a * (v->nb + 1),
                                    v->nb) ||
            (v->gold &&
             !gcuba_vegas_grid_check(v->gold + (size_t)a * (v->nb + 1),
                                     v->nb));
  }
  if (!view) gcuba_buf_free(&b);
  if (bad)
    return gcuba_fail(c, GCUBA_FAIL_STATE, "%s: inconsistent contents",
                      view ? "the state of one GPU" : c->statefile);
  if (!view)
    gcuba_log(c, 1, "resuming after iteration %lld, %lld evaluations", v->k,
              c->neval);
  return 1;
}

/* ---- output ------------------------------------------------------------ */

static void params(const vegas *v)
{
  const gcuba_call *c = v->c;
  if (c->verbose < 2) return;
  fprintf(stderr, "%s input parameters:\n  ndim %d\n  ncomp %d\n  nvec %lld\n"
          "  epsrel %g\n  epsabs %g\n  flags %d\n  seed %d\n  mineval %lld\n"
          "  maxeval %lld\n  nstart %lld\n  nincrease %lld\n  nbatch %lld\n"
          "  gridno %d\n  statefile \"%s\"\n", c->routine, c->ndim,
          c->ncomp, c->nvec, c->epsrel, c->epsabs, c->flags, c->seed,
          c->mineval, c->maxeval, c->nstart, c->nincrease, c->nbatch,
          c->gridno, c->statefile ? c->statefile : "");
  fprintf(stderr, "  (gcuba: %d bins per axis%s, adapting %s)\n", v->nb,
          v->shared ? ", one grid for all axes" : "",
          v->adapt_max < 0 ? "until the grid settles" : "a fixed number");
  fflush(stderr);
}

/* " (lo to hi per cube)" from the units in host memory, else "" (report) */
static void units_range(const gcuba_vegas_iter *it, char *buf, size_t n)
{
  long long h, lo, hi;
  buf[0] = 0;
  if (!it->R) return;
  lo = hi = it->R[1] - it->R[0];
  for (h = 1; h < it->nreal; ++h) {
    const long long r = it->R[h + 1] - it->R[h];
    if (r < lo) lo = r;
    if (r > hi) hi = r;
  }
  snprintf(buf, n, " (%lld to %lld per cube)", lo, hi);
}

static void report(const vegas *v, const gcuba_vegas_iter *it)
{
  const gcuba_vegas_strat_t *s = &it->strat;
  const gcuba_call *c = v->c;
  int comp, ndof;
  if (c->verbose < 1) return;
  fprintf(stderr, "\nIteration %lld:  %lld integrand evaluations so far\n",
          v->k, c->neval);
  for (comp = 0; comp < v->ncomp; ++comp) {
    double chi2;
    combine(v, v->wstart, comp, 0, NULL, NULL, &chi2, &ndof, NULL);
    fprintf(stderr, "[%d] %g +- %g  \tchisq %g (%d df)\n", comp + 1,
            v->res[comp], v->err[comp], chi2, ndof < 0 ? 0 : ndof);
  }
  if (c->verbose >= 3) {
    long long j = v->k - 1;
    if (v->sobol)
      fprintf(stderr, "  this iteration: %lld samples, Sobol points %lld.."
              "%lld; [1] %.15g +- %.6g; window %lld..%lld%s\n",
              (long long)s->calls, c->neval - (long long)s->calls + 1,
              c->neval, v->hI[j * v->ncomp], sqrt(v->hV[j * v->ncomp]),
              v->wstart + 1, v->k, v->frozen ? ", grid frozen" : "");
    else if (it->nreal > 0) {
      char range[64];
      units_range(it, range, sizeof range);
      fprintf(stderr, "  this iteration: %lld samples, %lld cubes (%d^%d x "
              "%d^%d) sampled by %lld units of %lld%s; [1] %.15g +- %.6g; "
              "window %lld..%lld%s\n",
              (long long)s->calls, (long long)it->nreal, s->g + 1, s->r,
              s->g, s->ndim - s->r, (long long)s->ncubes, (long long)s->npg,
              range, v->hI[j * v->ncomp], sqrt(v->hV[j * v->ncomp]),
              v->wstart + 1, v->k, v->frozen ? ", grid frozen" : "");
    }
    else
      fprintf(stderr, "  this iteration: %lld samples, %lld cubes (%d^%d x "
              "%d^%d), %lld per cube; [1] %.15g +- %.6g; window "
              "%lld..%lld%s\n",
              (long long)s->calls, (long long)s->ncubes, s->g + 1, s->r,
              s->g, s->ndim - s->r, (long long)s->npg, v->hI[j * v->ncomp],
              sqrt(v->hV[j * v->ncomp]), v->wstart + 1, v->k,
              v->frozen ? ", grid frozen" : "");
  }
  fflush(stderr);
}

/* The weights of the components in the bin contributions: 1/tol_c^2 with
   tol_c = max(epsrel |I_c|, epsabs) from the current results (1/I_c^2 when
   both tolerances are 0, 0 when that is 0 too), scaled to a largest weight
   of 1, so that the grid serves the component furthest from its tolerance
   most (Cuba weights by 1/I_c^2 of the iteration just done).  Before the
   first estimate, and when no weight is positive: the first component
   alone. */
static void bin_weights(vegas *v)
{
  const gcuba_call *c = v->c;
  double wmax = 0;
  int comp;
  for (comp = 0; comp < v->ncomp; ++comp) {
    double tol = tolerance(c, v->res[comp]), w = 0;
    if (!(tol > 0)) tol = fabs(v->res[comp]);
    if (v->k > 0 && tol > 1e-150 && tol < 1e150) w = 1 / (tol * tol);
    v->qw[comp] = w;
    if (w > wmax) wmax = w;
  }
  for (comp = 0; comp < v->ncomp; ++comp)
    v->qw[comp] = wmax > 0 && v->ncomp > 1 ? v->qw[comp] / wmax : comp == 0;
}

/* the variance of iteration j, the components weighted by
   1/tolerance^2 */
static double scaled_var(const vegas *v, long long j)
{
  double s = 0;
  int comp;
  for (comp = 0; comp < v->ncomp; ++comp) {
    const double tol = tolerance_scale(v->c, v->res[comp]),
                 w = 1 / (tol * tol);
    s += w * v->hV[j * v->ncomp + comp];
  }
  return s;
}

/* the variance per sample of iteration j over that of j - 1 (polish(): j
   sampled the refined grid, j - 1 the grid before); NaN when undefined */
static double polish_ratio(const vegas *v, long long j)
{
  return scaled_var(v, j) * (double)v->hcalls[j] /
         (scaled_var(v, j - 1) * (double)v->hcalls[j - 1]);
}

/* GCUBA_VEGASAUTO: on a frozen grid, the samples per iteration for which
   NMIN_WINDOW iterations meet every component's tolerance, from the
   variance per sample of the latest iteration (as for plain Monte Carlo:
   stratification only makes the error fall faster), with 20% to spare.
   Sizes never decrease and never fall below Cuba's schedule.  When an
   iteration is to be more than twice the size of the latest, the window
   restarts with it: fail = 0 then rests on NMIN_WINDOW iterations of the
   new size, not on small ones that the chi^2 test could hardly check. */
#define AUTO_SPARE 1.2
#define AUTO_STRAT 0.5
static long long auto_need(const vegas *v, long long j)
{
  const gcuba_call *c = v->c;
  /* Sobol points: the variance of independent samples, n^-1; else the
     assumed exponent, or the one measured at the polish when the
     variance fell faster (at most stratification's 1 + 2/ndim) */
  const double e0 = 1 + AUTO_STRAT / v->ndim, emax = 1 + 2.0 / v->ndim;
  const double expo = v->sobol           ? 1
                      : !(v->expo > e0)  ? e0
                      : v->expo < emax   ? v->expo
                                         : emax;
  const double left = (double)(c->maxeval - c->neval);
  double need = 0;
  int comp;
  for (comp = 0; comp < v->ncomp; ++comp) {
    const double V = v->hV[j * v->ncomp + comp];
    const double tol = tolerance(c, v->res[comp]);
    double m;
    if (!(tol > 0) || !(V >= 0)) continue;
    m = (double)v->hcalls[j] *
        pow(AUTO_SPARE * V / (tol * tol) / NMIN_WINDOW, 1 / expo);
    if (m > need) need = m;
  }
  return (long long)(need > left ? left : need);
}

static void autosize(vegas *v)
{
  const gcuba_call *c = v->c;
  long long j = v->k - 1;
  long long n;
  if (!v->frozen || j < 0 || j < v->settled_at) return;
  /* adaptive stratification: the first iteration on new cubes samples
     with an allocation learnt on others; the next tells the variance */
  if (v->beta > 0 && (v->cold & 2)) return;
  /* just after a polish that restored the grid before, the polishing
     iteration sampled the grid in use */
  if (v->frozen == POLISH_DONE && j == v->settled_at &&
      !(polish_ratio(v, j) <= 1))
    --j;
  n = auto_need(v, j);
  /* (adaptive stratification: the first iteration on new cubes may have
     asked for more than its successors need) */
  if (v->beta > 0 && n < v->nsamples && n >= c->nstart) {
    v->nsamples = n;
    return;
  }
  /* (and grows step by step: the variance per sample of finer cubes is
     known only once they have been sampled twice) */
  if (v->beta > 0 && (double)n > VP_GROW * (double)v->hcalls[j])
    n = (long long)(VP_GROW * (double)v->hcalls[j]);
  if (n <= v->nsamples) return;
  if (v->frozen == FROZEN && v->adapt_max < 0 && !(v->beta > 0) &&
      (double)v->hcalls[j] < POLISH_SPB * v->nb &&
      (double)n >= POLISH_GROW * POLISH_SPB * v->nb) {
    v->frozen = POLISHING;
    v->nsamples = (long long)(POLISH_SPB * v->nb);
    gcuba_log(c, 2, "iterations grow from %lld to %lld samples: one of %lld "
              "samples refines the grid first", v->hcalls[j], n,
              v->nsamples);
    return;
  }
  if (n > 2 * v->hcalls[j] && v->wstart < v->k) {
    gcuba_log(c, 2, "iterations grow from %lld to %lld samples "
              "(GCUBA_VEGASAUTO): the combination restarts", v->hcalls[j],
              n);
    v->wstart = v->k;
  }
  v->nsamples = n;
}

/* one refinement of the grid from the latest bin contributions, floored
   (floor) or mixed (grid.h) */
static void refine(vegas *v, int floor)
{
  const int n = gcuba_vegas_grid_refine_par(
      v->grid, v->nb, v->ndim, v->shared, v->d, GCUBA_VEGAS_ALPHA,
      (v->smooth ? GCUBA_VEGAS_GRID_SMOOTH : 0) |
          (floor ? GCUBA_VEGAS_GRID_FLOOR : 0),
      v->scratch, v->c->threads > 0 ? v->c->threads : 1);
  if (n)
    gcuba_log(v->c, 3, "%d grid(s) left unchanged (no information)", n);
  v->grid_changed = 1;
}

/* At the polish: the polishing iteration and the one before it sampled
   the same frozen grid, with sizes at least POLISH_EXPO apart, so their
   variances (scaled_var()) tell how the variance falls with the samples,
   n^-expo.  autosize() assumes 1 + AUTO_STRAT/ndim, which is right for
   peaks and edges that the cubes never resolve (f4, f6: 1.01-1.02
   measured) but too slow for integrands that stratification keeps
   resolving (f7 8D, f8 8D, f3 8D: 1.21-1.22),
   whose iterations then came out up to three times too large (an error
   of 0.57 eps at 3.2e-7). */
static void measure_expo(vegas *v)
{
  const long long j = v->k - 1;
  double a, b;
  if (j < 1 || j - 1 < v->settled_at ||
      (double)v->hcalls[j] < POLISH_EXPO * (double)v->hcalls[j - 1])
    return;
  a = scaled_var(v, j - 1);
  b = scaled_var(v, j);
  if (!(a > 0) || !(b > 0)) return;
  v->expo = log(a / b) / log((double)v->hcalls[j] / (double)v->hcalls[j - 1]);
  gcuba_log(v->c, 2, "the variance fell as n^-%.3f from %lld to %lld samples "
            "on the frozen grid", v->expo, v->hcalls[j - 1], v->hcalls[j]);
}

/* GCUBA_VEGASAUTO, once per call: the frozen grid was learnt from the
   small iterations of the adaptation (f3 3D from nstart 1e5: about 1000
   samples per bin), and its noise costs the large iterations that follow.
   So before they grow past POLISH_GROW times POLISH_SPB samples per bin,
   autosize() has one iteration of POLISH_SPB samples per bin accumulate
   the bins again (POLISHING), from which the grid is refined as at the
   freeze (floored).  The next iteration, of about the same size, samples
   the refined grid (POLISHED) and accumulates the bins too; when its
   variance per sample (the components weighted by 1/tolerance^2) is above
   the polishing iteration's, the grid before is restored (on f4 5D the
   refined grid sampled worse).  When it is POLISH_AGAIN of it or less
   and the iterations are still to grow past POLISH_GROW times its size,
   its bins refine the grid again, and the next iteration judges that
   refinement in turn: the stratified variance keeps falling over several
   refinements after the adaptation's gain says that the grid has settled
   (f3 3D at 6.4e-8: 0.50, 0.63, 0.78 and 0.93 times the variance per
   sample of the grid before; half the samples in all).  Every iteration
   is combined as any other: every grid's estimate is unbiased.  0, or the
   fail code (set) */
static int polish(vegas *v)
{
  gcuba_call *c = v->c;
  const size_t ng = (size_t)v->ngrids * (v->nb + 1);
  if (v->frozen == POLISHING) {
    /* (a call polishes once: gold is NULL here) */
    v->gold = (double *)malloc(sizeof(double) * ng);
    if (gcuba_coll_status(c, v->gold ? 0 : GCUBA_FAIL_NOMEM)) {
      if (c->fail == 0) gcuba_fail(c, GCUBA_FAIL_NOMEM, "grid copy");
      return c->fail;
    }
    memcpy(v->gold, v->grid, sizeof(double) * ng);
    measure_expo(v);
    refine(v, 1);
    v->frozen = POLISHED;
    v->settled_at = v->k;
    gcuba_log(c, 2, "grid refined from %lld samples", v->hcalls[v->k - 1]);
  } else {
    const long long j = v->k - 1;
    const double r = polish_ratio(v, j);
    const int again = r <= POLISH_AGAIN &&
                      (double)auto_need(v, j) >=
                          POLISH_GROW * (double)v->hcalls[j];
    if (!(r <= 1)) {
      memcpy(v->grid, v->gold, sizeof(double) * ng);
      v->grid_changed = 1;
    }
    gcuba_log(c, 2, "the refined grid sampled with %.3g times the variance "
              "per sample: %s", r,
              r <= 1 ? "kept" : "the grid before is restored");
    if (again) {
      /* this iteration's bins, on the refined grid, refine it again */
      memcpy(v->gold, v->grid, sizeof(double) * ng);
      refine(v, 1);
      v->settled_at = v->k;
      gcuba_log(c, 2, "grid refined again from %lld samples",
                v->hcalls[j]);
      return 0;
    }
    v->frozen = POLISH_DONE;
    free(v->gold);
    v->gold = NULL;
  }
  return 0;
}

/* ---- the loop ----------------------------------------------------------- */

/* an iteration of ncall samples: stratified, or with Sobol points one
   sample per cube */
static void strat(const vegas *v, long long ncall, gcuba_vegas_strat_t *s)
{
  if (v->sobol)
    gcuba_vegas_strat_qmc(ncall, v->ndim, s);
  else
    gcuba_vegas_strat(ncall, v->ndim, 0, s);
}

/* the stratification of an iteration with nr cubes (nr determines g and r:
   (g+1)^r g^(ndim-r) grows with g, then r) */
static void strat_of(int ndim, long long nr, gcuba_vegas_strat_t *s)
{
  long long g = (long long)pow((double)nr, 1.0 / ndim) + 1;
  for (; g >= 1; --g) {
    long long n = gcuba_vegas_ipow(g, ndim, nr);
    int r;
    for (r = 0; r < ndim && n <= nr; ++r) {
      if (n == nr) {
        s->ndim = ndim;
        s->g = (int)g;
        s->r = r;
        s->ncubes = nr;
        s->inv[0] = 1.0 / (double)(g + 1);
        s->inv[1] = 1.0 / (double)g;
        return;
      }
      n = n / g * (g + 1);
    }
  }
  s->ndim = ndim; /* (not reached for an nr of gcuba_vegas_strat) */
  s->g = 1;
  s->r = 0;
  s->ncubes = 1;
  s->inv[0] = 0.5;
  s->inv[1] = 1;
}

/* the canonical tree's sum of w[0..n) (gcuba/vegas.h), with scr holding
   gcuba_vegas_tree_next(n) values */
static double tree_sum(const double *w, long long n, double *scr)
{
  double g[GCUBA_VEGAS_GROUP];
  const double *src = w;
  if (n == 1) return w[0];
  while (n > 1) {
    const long long m = gcuba_vegas_tree_next(n);
    long long j;
    for (j = 0; j < m; ++j) {
      const long long i0 = j * GCUBA_VEGAS_GROUP;
      int i;
      for (i = 0; i < GCUBA_VEGAS_GROUP; ++i)
        g[i] = i0 + i < n ? src[i0 + i] : 0;
      gcuba_vegas_tree_group(g);
      scr[j] = g[0];
    }
    src = scr;
    n = m;
  }
  return scr[0];
}

/* Adaptive stratification: the iteration of ncall samples as units
   (gcuba/vegas.h) into it: about ncall/(2 VP_UNITS) cubes, ncall/VP_NPG
   units; each cube gets one, and the others go to the cubes in proportion
   to sigma_h^beta (Lepage's VEGAS+), sigma_h^2 being the mean of the
   variances of its units in the previous iteration (of the previous cube
   that holds its centre when the cubes changed); evenly without one.  In
   host memory, or by the backend's units op, with the same bits.  0, or
   a fail code. */
static int alloc_units(vegas *v, long long ncall, gcuba_vegas_iter *it)
{
  gcuba_vegas_strat_t s, o;
  long long ustar = ncall / VP_NPG, nr, extra, h, total;
  const int bk = (int)floor(v->beta * 32 + 0.5);
  gcuba_vegas_strat(ncall / VP_UNITS, v->ndim, VP_MAXCUBES, &s);
  /* the cubes stay while they are at least half as many as these (and
     each can have a unit): the allocation learnt on them carries over */
  if (v->nrp > 0 && ustar >= v->nrp && s.ncubes <= 2 * v->nrp &&
      s.ncubes != v->nrp)
    strat_of(v->ndim, v->nrp, &s);
  nr = s.ncubes;
  if (ustar < nr) ustar = nr;
  extra = ustar - nr;
  v->cold = (v->cold & ~1) | (v->nrp != nr);
  if (v->nrp > 0)
    strat_of(v->ndim, v->nrp, &o);
  else
    o = s;
  if (v->ops->units) {
    gcuba_vegas_units u;
    int64_t n = 0;
    int rc;
    u.s = s;
    u.o = o;
    u.nrp = v->nrp;
    u.extra = extra;
    u.bk = bk;
    u.R = v->units_put ? v->Rp : NULL;
    u.cvar = v->units_put ? v->cvp : NULL;
    if ((rc = v->ops->units(v->ctx, &u, &n))) return rc;
    v->units_put = 0;
    total = n;
    it->R = NULL;
    it->cvar = NULL;
  } else {
    double sum = 0;
    if (units_reserve(v, nr))
      return gcuba_fail(v->c, GCUBA_FAIL_NOMEM, "the cubes' units");
    if (v->nrp > 0) {
      for (h = 0; h < nr; ++h) {
        const long long ho =
            v->nrp == nr ? h : gcuba_vegas_unit_from(&s, &o, h);
        v->cv[h] = gcuba_vegas_unit_weight(v->cvp[ho],
                                           v->Rp[ho + 1] - v->Rp[ho], bk);
      }
      sum = tree_sum(v->cv, nr, v->ws);
    }
    v->R[0] = 0;
    for (h = 0; h < nr; ++h)
      v->R[h + 1] = v->R[h] + gcuba_vegas_unit_count(v->nrp > 0 ? v->cv[h]
                                                                : 0,
                                                     sum, extra, nr);
    {
      const long long d = nr + extra - v->R[nr];
      for (h = 0; h < nr; ++h)
        v->R[h + 1] = gcuba_vegas_unit_spread(v->R[h + 1], h, d > 0 ? d : 0,
                                              nr);
    }
    total = v->R[nr];
    it->R = v->R;
    it->cvar = v->cv;
  }
  s.npg = VP_NPG;
  s.ncubes = total;
  s.calls = s.ncubes * VP_NPG;
  it->strat = s;
  it->nreal = nr;
  return 0;
}

static void run(vegas *v)
{
  gcuba_call *c = v->c;
  const int nc = v->ncomp;
  int rc, comp, resumed;
  gcuba_vegas_iter it;

  resumed = v->cont                      ? 1
            : c->statefile || c->resume ? load_state(v)
                                        : 0;
  if (resumed < 0) return;
  if (resumed && !v->cont && !c->resume && (c->flags & GCUBA_RESETSTATE)) {
    gcuba_log(c, 1, "flags bit 5: state reset, grid kept");
    resumed = 0;
  } else if (!resumed)
    slot_get(v);
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
  }
  if (v->adapt_max >= 0 && v->nadapt >= v->adapt_max && !v->frozen) {
    v->frozen = FROZEN;
    if (v->settled_at < 0) v->settled_at = v->k;
    if (v->warm < 0) v->warm = v->wstart = v->k;
  }
  v->grid_changed = 1;
  memset(&it, 0, sizeof it);
  it.seed = (uint64_t)(uint32_t)c->seed;
  it.sobol = v->sobol;
  it.grid = v->grid;
  params(v);
  results(v);

  for (;;) {
    long long ncall;
    const double t0 = gcuba_now_ms();
    if (c->flags & GCUBA_VEGASAUTO) autosize(v);
    ncall = v->nsamples;
    if (v->beta > 0 ? alloc_units(v, ncall, &it)
                    : (strat(v, ncall, &it.strat), 0))
      break;
    if (c->neval + it.strat.calls > c->maxeval) {
      if (v->k > 0) {
        c->fail = 1;
        gcuba_log(c, 1, "maxeval %lld reached (the next iteration needs "
                  "%lld more)", c->maxeval, (long long)it.strat.calls);
        break;
      }
      ncall = c->maxeval - c->neval;
      if (ncall < 2) ncall = 2;
      if (v->beta > 0 ? alloc_units(v, ncall, &it)
                      : (strat(v, ncall, &it.strat), 0))
        break;
    }
    if (it.strat.npg > GCUBA_VEGAS_SLICE_SAMPLES) {
      gcuba_fail(c, GCUBA_FAIL_PARAM, "%lld samples per cube: too many",
                 (long long)it.strat.npg);
      break;
    }
    if (hist_reserve(v, v->k + 1)) {
      gcuba_fail(c, GCUBA_FAIL_NOMEM, "iteration history");
      break;
    }
    gcuba_vegas_plan(&it.strat, nc, &it.plan);
    if (v->sobol)
      gcuba_vegas_cube_k_iid(it.strat.calls, it.ck);
    else
      gcuba_vegas_cube_k(it.strat.npg, it.strat.ncubes, it.ck);
    if (v->beta > 0 && (v->cold & 2) && v->frozen && v->k > v->settled_at &&
        v->wstart < v->k) {
      gcuba_log(c, 2, "iteration %lld sampled new cubes with the allocation "
                "of others: the combination restarts", v->k);
      v->wstart = v->k;
    }
    it.iter = (uint32_t)v->k;
    it.qoff = (uint64_t)c->neval;
    it.grid_changed = v->grid_changed;
    it.bins = !v->frozen || v->frozen == POLISHING || v->frozen == POLISHED;
    if (it.bins || v->beta > 0) bin_weights(v);
    it.qw = v->qw;
    rc = gcuba_coll_status(c, v->ops->iterate(v->ctx, &it, v->sums, v->d));
    v->grid_changed = 0;
    if (rc) {
      if (rc == GCUBA_FAIL_DEVMEM && v->k > 0) {
        c->fail = 1;
        gcuba_log(c, 1, "device memory exhausted at iteration %lld: the "
                  "estimate so far is returned", v->k + 1);
      } else
        gcuba_fail(c, rc, "at iteration %lld", v->k + 1);
      break;
    }
    c->neval += it.strat.calls;
    for (comp = 0; comp < nc; ++comp) {
      v->hI[v->k * nc + comp] = v->sums[comp];
      v->hV[v->k * nc + comp] =
          v->sobol ? gcuba_vegas_iid_var(v->sums[nc + comp], v->sums[comp],
                                         it.strat.calls)
                   : v->sums[nc + comp];
      {
        const double hi = v->sums[2 * nc + comp] - v->sums[comp],
                     lo = v->sums[comp] - v->sums[3 * nc + comp];
        v->hX[v->k * nc + comp] = hi > lo ? hi : lo;
      }
    }
    v->hcalls[v->k] = it.strat.calls;
    if (it.R) {
      /* the cubes' units and variances for the next allocation */
      int64_t *R = v->Rp;
      double *q = v->cvp;
      v->Rp = v->R;
      v->R = R;
      v->cvp = v->cv;
      v->cv = q;
    }
    if (it.nreal > 0) { /* (in the backend without it.R) */
      v->nrp = it.nreal;
      v->cold = (v->cold & 1) << 1;
    }
    ++v->k;
    if (it.bins) settle(v);
    update_window(v);
    results(v);
    report(v, &it);
    if (converged(v)) break;

    if (v->frozen == POLISHING || v->frozen == POLISHED) {
      if (polish(v)) break;
    } else if (!v->frozen) {
      /* the refinement that freezes the grid floors it instead of mixing
         (grid.h): the mixture protects the adaptation from a map that
         has not yet found part of the integrand; the frozen map, which
         takes most of the samples at large budgets, keeps the learned
         density wherever it is above the floor (f2 6D at 1024 bins: a
         thirtieth of the variance per sample; Genz's protocol: more
         honest answers, the same false claims) */
      const int nbto = grow_target(v, v->hcalls[v->k - 1]);
      const int last = nbto == v->nb &&
                       (v->adapt_max >= 0 ? v->nadapt + 1 >= v->adapt_max
                                          : v->settled_at >= 0);
      refine(v, last);
      ++v->nadapt;
      if (nbto != v->nb) {
        gcuba_log(c, 2, "grid settled with %d bins per axis: rebinned to "
                  "%d, adapting on", v->nb, nbto);
        if (set_nb(v, nbto, 1)) break;
        it.grid = v->grid;
        v->settled_at = -1;
        v->stall = 0;
      } else if (v->adapt_max >= 0 ? v->nadapt >= v->adapt_max
                                   : v->settled_at >= 0) {
        v->frozen = FROZEN;
        if (v->settled_at < 0) v->settled_at = v->k;
        if (v->warm < 0) v->warm = v->wstart = v->k; /* forced by the knob */
        gcuba_log(c, 2, "grid frozen after %lld refinements", v->nadapt);
      }
    }
    v->nsamples += c->nincrease;
    if (c->statefile && save_state(v)) break;
    /* GCUBA_DEVICES=auto: the call has run long enough; it goes on from
       here on several GPUs (gcuba_vegas_run) */
    if (v->ngrow >= 2 && v->k >= GROW_ITER) {
      const double now = gcuba_now_ms();
      if (now >= v->grow_at && gcuba_calls_running() == 1 &&
          (v->grow_any || now - t0 >= GROW_MS)) {
        if (!state_payload(v, &v->grow_state, 0)) {
          v->grown = 1;
          break;
        }
        c->fail = 0; /* no memory for the state: it stays */
        v->ngrow = 0;
      }
    }
  }

  for (comp = 0; comp < nc; ++comp) {
    c->integral[comp] = v->res[comp];
    c->error[comp] = v->err[comp];
    c->prob[comp] = v->prob[comp] == GCUBA_CHISQ_NODOF ? 0 : v->prob[comp];
  }
  if (v->grown) return;
  slot_put(v);
  if (c->fail == 0 && c->statefile) gcuba_state_remove(c);
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

void gcuba_vegas_drive(gcuba_call *c, const gcuba_vegas_ops *ops)
{
  vegas v;
  gcuba_vegas_setup s;
  int fail = 0;
  size_t ng;
  memset(&v, 0, sizeof v);
  v.c = c;
  v.ndim = c->ndim;
  v.ncomp = c->ncomp;
  v.shared = (c->flags & GCUBA_VEGAS1D) != 0;
  v.ngrids = v.shared ? 1 : c->ndim;
  v.last = (c->flags & GCUBA_LAST) != 0;
  v.smooth = !(c->flags & GCUBA_SHARPEDGES);
  knobs(&v);
  if (v.beta > 0 && c->seed == 0) {
    gcuba_log(c, 1, "seed 0 samples Sobol points, which have no cubes: no "
              "adaptive stratification (GCUBA_VEGASPLUS, "
              "GCUBA_VEGAS_BETA)");
    v.beta = 0;
  }
  v.ops = ops;
  ng = (size_t)v.ngrids * (v.nb + 1);
  v.grid = (double *)malloc(sizeof(double) * ng);
  v.d = (double *)malloc(sizeof(double) * (size_t)v.ndim * v.nb);
  v.scratch = (double *)malloc(sizeof(double) *
                               GCUBA_VEGAS_GRID_SCRATCH_PAR(v.nb, v.ndim));
  v.sums = (double *)malloc(sizeof(double) * 9 * v.ncomp);
  if (gcuba_coll_status(c, !v.grid || !v.d || !v.scratch || !v.sums ||
                               hist_reserve(&v, 64) ? GCUBA_FAIL_NOMEM : 0)) {
    if (c->fail == 0 || c->fail == GCUBA_FAIL_NOMEM)
      gcuba_fail(c, GCUBA_FAIL_NOMEM, "driver state");
    goto out;
  }
  v.res = v.sums + 4 * v.ncomp;
  v.err = v.res + v.ncomp;
  v.prob = v.err + v.ncomp;
  v.chi2 = v.prob + v.ncomp;
  v.qw = v.chi2 + v.ncomp;
  s.ndim = v.ndim;
  s.ncomp = v.ncomp;
  s.nb = v.nb;
  s.nbmax = v.nb_fixed || v.adapt_max >= 0 || v.nb >= NBINS_MAX ? v.nb
                                                                : NBINS_MAX;
  s.shared = v.shared;
  s.max_calls = c->maxeval;
  s.sobol = NULL;
  if (c->seed == 0) {
    /* Cuba's Vegas samples Sobol points for seed 0: so does gVegas */
    v.sobol = (uint64_t *)malloc(sizeof(uint64_t) * GCUBA_SOBOL_BITS *
                                 (size_t)v.ndim);
    if (gcuba_coll_status(c, !v.sobol || gcuba_sobol_dirs(v.ndim, v.sobol)
                                 ? GCUBA_FAIL_NOMEM : 0)) {
      if (c->fail == 0 || c->fail == GCUBA_FAIL_NOMEM)
        gcuba_fail(c, GCUBA_FAIL_NOMEM, "Sobol direction numbers");
      goto out;
    }
    s.sobol = v.sobol;
  }
  v.ctx = v.ops->create(c, &s, &fail);
  if (gcuba_coll_status(c, v.ctx ? 0 : fail ? fail : GCUBA_FAIL_NOMEM) &&
      v.ctx) {
    v.ops->destroy(v.ctx);
    v.ctx = NULL;
  }
  v.setup = &s;
  if (v.ctx) {
    if (c->grow && !c->coll && !(v.beta > 0)) {
      /* GCUBA_DEVICES=auto: the plan says where and when it may grow */
      v.ngrow = c->grow->n;
      v.grow_at = gcuba_now_ms() + c->grow->after;
      v.grow_any = c->grow->after == 0;
    }
    run(&v);
    while (v.grown && grow(&v)) run(&v);
    if (v.ctx) v.ops->destroy(v.ctx);
  }
out:
  free(v.grid);
  free(v.gold);
  free(v.d);
  free(v.scratch);
  free(v.sums);
  free(v.hI);
  free(v.hV);
  free(v.hX);
  free(v.hcalls);
  free(v.sobol);
  free(v.R);
  free(v.Rp);
  free(v.cv);
  free(v.cvp);
  free(v.ws);
}
