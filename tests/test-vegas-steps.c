/* tests/test-vegas-steps.c -- gVegas's driver in steps (src/vegas/vegas.h)
   driven as gVegasBatch's GPU pipeline drives it, on the CPU: the CPU
   backend samples each iteration from a grid that the caller keeps, the
   caller refines that grid when the driver asks (gcuba_vegas_refine_axis
   on the caller's copy; the driver gets only the edge bins' widths,
   gcuba_vegas_refined_at, and takes the grid back through fetch when it
   needs it), and hands the driver the settling test's totals
   (gcuba_vegas_bin_sums).  Every call so driven gives its single call's
   integral, error, prob, neval and fail, bit for bit: Gaussian peaks with
   Sobol and Philox points, peaks whose grids are rebinned on the way,
   GCUBA_VEGASAUTO, one shared grid (GCUBA_VEGAS1D), maxeval.  The GPU
   pipeline's own test (test-vegas-batch-gpu) needs a GPU; this one runs
   the driver's side of it everywhere.  This file is part of gcuba. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "tap.h"
#include "common/common.h"
#include "plan/plan_int.h"
#include "plan/tables.h"
#include "vegas/driver_int.h"
#include "vegas/refine.h"
#include "vegas/grid.h"

typedef struct {
  double c[4], w;
} peak;

static int fpeak(const int *ndim, const double x[], const int *ncomp,
                 double f[], void *userdata)
{
  const peak *p = (const peak *)userdata;
  double s = 0;
  int i;
  (void)ncomp;
  for (i = 0; i < *ndim; ++i) s += (x[i] - p->c[i]) * (x[i] - p->c[i]);
  f[0] = exp(-s / (p->w * p->w));
  return 0;
}

typedef struct {
  int ndim, flags, seed;
  long long maxeval, nstart, nincrease;
  double epsrel;
} args;

typedef struct {
  long long neval;
  int fail;
  double I, E, P;
} out;

/* the caller's copy of a driver's grid (as the pipeline's device store) */
typedef struct {
  double *g;
  int nb, ngrids, fetched;
} store;

static int fetch(void *ctx, double *grid)
{
  store *s = (store *)ctx;
  memcpy(grid, s->g, sizeof(double) * s->ngrids * (size_t)(s->nb + 1));
  ++s->fetched;
  return 0;
}

/* the call of a on peak p in steps; *fetched: how often the driver took
   its grid back; *uniform: iterations it asked for on the uniform grid
   that it had not made (it->grid NULL) */
static void stepped(const args *a, peak *p, out *o, int *fetched,
                    int *uniform)
{
  const int ngrids = a->flags & GCUBA_VEGAS1D ? 1 : a->ndim;
  gcuba_call c;
  vegas *v;
  store S;
  double *d = (double *)malloc(sizeof(double) * a->ndim * NBINS_MAX);
  double *sc = (double *)malloc(sizeof(double) *
                                GCUBA_VEGAS_GRID_SCRATCH(NBINS_MAX));
  double ds[2 * 4], edge[2 * 4];
  memset(&c, 0, sizeof c);
  c.routine = "steps";
  c.ndim = a->ndim;
  c.ncomp = 1;
  c.integrand = gcuba_host_integrand(fpeak, 0);
  c.nvec = 1;
  c.epsrel = a->epsrel;
  c.flags = a->flags;
  c.seed = a->seed;
  c.maxeval = a->maxeval;
  c.nstart = a->nstart;
  c.nincrease = a->nincrease;
  c.nbatch = 1000;
  c.integral = &o->I;
  c.error = &o->E;
  c.prob = &o->P;
  S.g = (double *)malloc(sizeof(double) * ngrids * (NBINS_MAX + 1));
  S.ngrids = ngrids;
  S.nb = 0;
  S.fetched = 0;
  *uniform = 0;
  gcuba_plan_settings(&c);
  gcuba_plan_zero(&c);
  c.threads = 1;
  c.backend = GCUBA_BK_CPU;
  gcuba_plan_userdata(&c, p, sizeof *p);
  v = gcuba_vegas_start(&c, &gcuba_vegas_cpu);
  while (v) {
    double *sums, *dd;
    const gcuba_vegas_iter *it = gcuba_vegas_want(v, &sums, &dd);
    gcuba_vegas_iter x;
    int rc, r, ax;
    if (!it) {
      gcuba_vegas_end(v);
      break;
    }
    /* the grid where the caller keeps it: sent when the driver's own is
       the current one */
    if (!it->remote && it->grid)
      memcpy(S.g, it->grid, sizeof(double) * ngrids * (size_t)(it->nb + 1));
    else if (!it->remote) {
      /* (the driver's grid is the uniform one, not yet made) */
      gcuba_vegas_grid_init(S.g, it->nb, ngrids);
      ++*uniform;
    }
    S.nb = it->nb;
    x = *it;
    x.grid = S.g;
    x.grid_changed = 1;
    rc = v->ops->iterate(v->ctx, &x, sums, d);
    if (it->hostd) memcpy(dd, d, sizeof(double) * a->ndim * it->nb);
    for (ax = 0; it->bins && ax < a->ndim; ++ax)
      gcuba_vegas_bin_sums(d + (size_t)ax * it->nb, it->nb, ds + 2 * ax);
    r = gcuba_vegas_took(v, rc, it->bins ? ds : NULL);
    if (r == GCUBA_VEGAS_REFINE) {
      const int nb = S.nb, mode = gcuba_vegas_refine_mode(v);
      int g, left = 0;
      for (g = 0; g < ngrids; ++g) {
        double *e = S.g + (size_t)g * (nb + 1);
        left += gcuba_vegas_refine_axis(e, nb, d + (size_t)g * nb,
                                        ngrids == 1 ? a->ndim : 1,
                                        GCUBA_VEGAS_ALPHA, mode, sc) != 0;
        edge[2 * g] = e[1] - e[0];
        edge[2 * g + 1] = e[nb] - e[nb - 1];
      }
      r = gcuba_vegas_refined_at(v, edge, left, fetch, &S);
    }
    if (r) {
      gcuba_vegas_end(v);
      break;
    }
  }
  o->neval = c.neval;
  o->fail = c.fail;
  *fetched = S.fetched;
  free(S.g);
  free(d);
  free(sc);
}

static void single(const args *a, peak *p, out *o)
{
  gcuba_userdata_size(sizeof *p);
  llgVegas(a->ndim, 1, gcuba_host_integrand(fpeak, 0), p, 1, a->epsrel, 0,
           a->flags, a->seed, 0, a->maxeval, a->nstart, a->nincrease, 1000,
           0, NULL, NULL, &o->neval, &o->fail, &o->I, &o->E, &o->P);
  gcuba_userdata_size(0);
}

static unsigned long long rng = 99;
static double rnd(void)
{
  rng = rng * 6364136223846793005ULL + 1442695040888963407ULL;
  return (double)(rng >> 11) * 0x1.0p-53;
}

/* n peaks of widths w0 .. w0 + dw through a in steps and as single
   calls: how many agree bit for bit; *fetches: grids taken back,
   *uniform: iterations on the uniform grid the driver had not made */
static int compare(const char *what, const args *a, int n, double w0,
                   double dw, int *fetches, int *conv, int *uniform)
{
  int b, alike = 0, i;
  *fetches = *conv = *uniform = 0;
  for (b = 0; b < n; ++b) {
    peak p;
    out s, t;
    int f, u;
    for (i = 0; i < 4; ++i) p.c[i] = 0.2 + 0.6 * rnd();
    p.w = w0 + dw * rnd();
    single(a, &p, &s);
    stepped(a, &p, &t, &f, &u);
    *fetches += f;
    *uniform += u;
    *conv += t.fail == 0;
    if (s.neval == t.neval && s.fail == t.fail && s.I == t.I && s.E == t.E &&
        s.P == t.P)
      ++alike;
    else
      diag("%s, peak %d: single %.17g +- %.17g (%lld, fail %d), steps "
           "%.17g +- %.17g (%lld, fail %d)", what, b, s.I, s.E, s.neval,
           s.fail, t.I, t.E, t.neval, t.fail);
  }
  return alike;
}

int main(void)
{
  static const struct {
    const char *what;
    args a;
    int n;
    double w0, dw;
  } cases[] = {
      {"4-D peaks, Sobol (seed 0)", {4, 0, 0, 1000000, 1000, 500, 1e-3}, 6,
       0.2, 0.3},
      {"4-D peaks, Philox (seed 3)", {4, 0, 3, 1000000, 1000, 500, 1e-3}, 6,
       0.2, 0.3},
      {"3-D peaks at 1e-5, rebinned", {3, 0, 1, 3000000, 20000, 10000,
                                       1e-5}, 2, 0.15, 0.1},
      {"3-D peaks at 1e-5, GCUBA_VEGASAUTO", {3, GCUBA_VEGASAUTO, 1,
                                              3000000, 20000, 10000, 1e-5},
       2, 0.15, 0.1},
      {"2-D peaks, one shared grid", {2, GCUBA_VEGAS1D, 2, 1000000, 2000,
                                      1000, 1e-3}, 4, 0.1, 0.2},
      {"4-D narrow peaks, maxeval 30000", {4, 0, 1, 30000, 1000, 1000, 1e-4},
       4, 0.02, 0.02}};
  const int ncases = (int)(sizeof cases / sizeof cases[0]);
  int k, rebin_fetches = 0;
  plan(2 * ncases + 1);
  for (k = 0; k < ncases; ++k) {
    int fetches, conv, uniform;
    const int alike =
        compare(cases[k].what, &cases[k].a, cases[k].n, cases[k].w0,
                cases[k].dw, &fetches, &conv, &uniform);
    if (k == 2) rebin_fetches = fetches;
    ok(alike == cases[k].n, "%s: %d of %d calls in steps with their single "
       "calls' bits (%d converged; the grid taken back %d times)",
       cases[k].what, alike, cases[k].n, conv, fetches);
    /* a run in steps makes no grid of its own before it needs one: its
       first iteration is on the uniform grid it has not made */
    ok(uniform >= cases[k].n, "%s: %d iterations on the uniform grid that "
       "the driver had not made (at least its first of each call)",
       cases[k].what, uniform);
  }
  ok(rebin_fetches > 0, "rebinning takes the grid back from the caller "
     "(%d times)", rebin_fetches);
  return done();
}
