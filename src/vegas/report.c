/* src/vegas/report.c -- the output of the gVegas driver: the input
   parameters (verbosity >= 2) and each iteration's results as Cuba's
   Vegas prints them (verbosity >= 1, details at 3).  This file is part
   of gcuba. */
#include <math.h>
#include <stdio.h>
#include "vegas/driver_int.h"

void gcuba_vegas_params(const vegas *v)
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

/* " (lo to hi per cube)" from the units in host memory, else ""
   (gcuba_vegas_report) */
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

void gcuba_vegas_report(const vegas *v, const gcuba_vegas_iter *it)
{
  const gcuba_vegas_strat_t *s = &it->strat;
  const gcuba_call *c = v->c;
  int comp, ndof;
  if (c->verbose < (c->report_at > 0 ? c->report_at : 1)) return;
  fprintf(stderr, "\nIteration %lld:  %lld integrand evaluations so far\n",
          v->k, c->neval);
  for (comp = 0; comp < v->ncomp; ++comp) {
    double chi2;
    gcuba_vegas_hist_combine(v, v->wstart, comp, 0, NULL, NULL, &chi2, &ndof,
                             NULL);
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
