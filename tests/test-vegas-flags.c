/* tests/test-vegas-flags.c -- gVegas's flags and knobs: verbosity 0-3 (the
   per-iteration lines of Cuba on stderr, GCUBAVERBOSE), bit 2 (the last
   iteration only), bit 3 (no smoothing: sharp edges), GCUBA_VEGAS1D (one
   grid for all axes), Cuba's random-number-generator bits (ignored),
   several components, mineval, GCUBA_VEGAS_ADAPT and GCUBA_VEGAS_NBINS.
   This file is part of gcuba. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "tap.h"
#include "capture.h"
#include "suite.h"
#include "gpu.h"

#define T5 1.791326036748786e-06 /* f4 5D */
#define T3 1.0846560846560847e-02 /* f3 3D */
#define T65 1.9102946875697125e+05 /* f6 5D */
#define T58 2.425217625641885e-06 /* f5 8D */
#define LOG "test-vegas-flags.log"

typedef struct {
  double I[3], E[3], P[3];
  long long neval;
  int fail;
} result;

static void run(gintegrand_t f, int ndim, int ncomp, double epsrel,
                int flags, long long mineval, long long nstart, result *r)
{
  memset(r, 0, sizeof *r);
  llgVegas(ndim, ncomp, f, NULL, 1, epsrel, 1e-20, flags, 5, mineval,
           20000000, nstart, nstart, 1000, 0, NULL, NULL, &r->neval,
           &r->fail, r->I, r->E, r->P);
}

static int good(const result *r, int comp, double truth, double epsrel)
{
  return r->fail == 0 && fabs(r->I[comp] - truth) <= 4 * r->E[comp] &&
         r->E[comp] <= epsrel * fabs(r->I[comp]) && r->P[comp] >= 0 &&
         r->P[comp] <= 1;
}

static int same(const result *a, const result *b)
{
  return a->fail == b->fail && a->neval == b->neval &&
         !memcmp(a->I, b->I, sizeof a->I) && !memcmp(a->E, b->E, sizeof a->E);
}

/* stderr of one call (one component, seed, maxeval, nstart = nincrease),
   into buf */
static char buf[1 << 16];
static const char *capture(gintegrand_t f, int ndim, double epsrel,
                           int flags, long long nstart, int seed,
                           long long maxeval, result *r)
{
  const int save = capture_begin(LOG);
  memset(r, 0, sizeof *r);
  llgVegas(ndim, 1, f, NULL, 1, epsrel, 1e-20, flags, seed, 0, maxeval,
           nstart, nstart, 1000, 0, NULL, NULL, &r->neval, &r->fail, r->I,
           r->E, r->P);
  return capture_end(save, LOG, buf, sizeof buf);
}

/* f4 5D at 1e-3 as run() does it */
static const char *captured(gintegrand_t f, int flags, result *r)
{
  return capture(f, 5, 1e-3, flags, 10000, 5, 20000000, r);
}

/* any case, epsrel and nstart; seed 1, maxeval 2e9 */
static const char *captured_eps(gintegrand_t f, int ndim, double epsrel,
                                int flags, long long nstart, result *r)
{
  return capture(f, ndim, epsrel, flags, nstart, 1, 2000000000, r);
}

/* the final window holds exactly the last k iterations reported at
   verbosity 3 ("this iteration: N samples"), which are within a factor 2
   of each other and more than twice the size of the one before them */
static int last_sizes_equal(const char *s, int k)
{
  long long n[4096];
  int m = 0, i;
  const char *p = s, *w;
  long long a = 0, b = 0;
  while ((p = strstr(p, "this iteration: ")) && m < 4096)
    n[m++] = atoll(p += 16);
  if (m <= k) return 0;
  for (i = m - k; i < m; ++i)
    if (n[i] > 2 * n[m - k] || n[m - k] > 2 * n[i]) return 0;
  if (2 * n[m - k - 1] >= n[m - k]) return 0;
  w = s;
  while ((p = strstr(w, "; window "))) w = p + 9;
  return w != s && sscanf(w, "%lld..%lld", &a, &b) == 2 && b == m &&
         b - a + 1 == k;
}

static int count(const char *s, const char *w)
{
  int n = 0;
  while ((s = strstr(s, w))) ++n, ++s;
  return n;
}

int main(void)
{
  result a, b, c;
  const char *out;
  int niter;
  double g = sqrt(M_PI) / 25 * erf(12.5);
  battery_start();
  plan(0);

  run(S(f4), 5, 1, 1e-3, 0, 0, 10000, &a);
  ok(good(&a, 0, T5, 1e-3), "flags 0: %.12g +- %.2g", a.I[0], a.E[0]);

  out = captured(S(f4), 0, &b);
  ok(!*out && same(&a, &b), "verbosity 0: silent");
  out = captured(S(f4), 1, &b);
  niter = count(out, "Iteration ");
  ok(niter > 2 && strstr(out, "Iteration 1:  ") &&
     count(out, " integrand evaluations so far") == niter &&
     count(out, "[1] ") == niter && count(out, "chisq ") == niter &&
     !strstr(out, "input parameters") && same(&a, &b),
     "verbosity 1: one Cuba-style report per iteration (%d), results "
     "unchanged", niter);
  out = captured(S(f4), 2, &b);
  ok(strstr(out, "input parameters") && strstr(out, "  nstart 10000") &&
     count(out, "Iteration ") == niter, "verbosity 2: the parameters too");
  out = captured(S(f4), 3, &b);
  ok(strstr(out, "this iteration:") != NULL, "verbosity 3: iteration "
     "details");
  setenv("GCUBAVERBOSE", "1", 1);
  out = captured(S(f4), 0, &b);
  unsetenv("GCUBAVERBOSE");
  ok(count(out, "Iteration ") == niter, "GCUBAVERBOSE=1 raises verbosity "
     "0 to 1");

  run(S(f4), 5, 1, 1e-3, 1 << 8 | 7 << 12, 0, 10000, &b);
  ok(same(&a, &b), "Cuba's generator bits 8-23: ignored (Philox)");

  run(S(f4), 5, 1, 1e-3, GCUBA_LAST, 0, 10000, &b);
  /* one iteration alone must meet the tolerance: a longer run */
  ok(good(&b, 0, T5, 1e-3) && b.neval > a.neval,
     "bit 2, the last iteration only: %.12g +- %.2g in %lld evaluations "
     "(all: +- %.2g in %lld)", b.I[0], b.E[0], b.neval, a.E[0], a.neval);

  run(S(f6), 5, 1, 1e-3, 0, 0, 100000, &b);
  memset(&c, 0, sizeof c);
  llgVegas(5, 1, S(f6), NULL, 1, 1e-3, 1e-20, GCUBA_SHARPEDGES, 5, 0,
           4000000, 100000, 100000, 1000, 0, NULL, NULL, &c.neval, &c.fail,
           c.I, c.E, c.P);
  ok(good(&b, 0, T65, 1e-3) && (c.fail || good(&c, 0, T65, 1e-3)) &&
     !same(&b, &c),
     "bit 3 on f6 5D (edges; maxeval 4e6): fail %d, %.12g +- %.2g in %lld "
     "evaluations (smoothed: %lld)", c.fail, c.I[0], c.E[0], c.neval, b.neval);

  run(S(f4), 5, 1, 1e-3, GCUBA_VEGAS1D, 0, 10000, &b);
  ok(good(&b, 0, T5, 1e-3) && !same(&a, &b),
     "GCUBA_VEGAS1D, symmetric f4 5D: %.12g +- %.2g, neval %lld", b.I[0],
     b.E[0], b.neval);
  run(S(f3), 3, 1, 1e-3, GCUBA_VEGAS1D, 0, 10000, &b);
  ok(b.fail != 0 || fabs(b.I[0] - T3) <= 4 * b.E[0],
     "GCUBA_VEGAS1D, asymmetric f3 3D: fail %d, %.12g +- %.2g", b.fail,
     b.I[0], b.E[0]);

  run(S(f43c), 3, 3, 1e-3, 0, 0, 10000, &b);
  ok(good(&b, 0, g * g * g, 1e-3) && good(&b, 1, T3, 1e-3) &&
     good(&b, 2, 2, 1e-3),
     "3 components (one grid for all): %.10g +- %.2g, %.10g +- %.2g, "
     "%.10g +- %.2g", b.I[0], b.E[0], b.I[1], b.E[1], b.I[2], b.E[2]);

  run(S(f4), 5, 1, 1e-1, 0, 0, 10000, &b);
  run(S(f4), 5, 1, 1e-1, 0, 2000000, 10000, &c);
  ok(b.fail == 0 && c.fail == 0 && c.neval >= 2000000 && b.neval < 2000000,
     "mineval 2e6: neval %lld (without: %lld)", c.neval, b.neval);

  setenv("GCUBA_VEGAS_ADAPT", "0", 1);
  run(S(f3), 3, 1, 1e-3, 0, 0, 10000, &b);
  ok(good(&b, 0, T3, 1e-3), "GCUBA_VEGAS_ADAPT=0 (stratified sampling on "
     "the uniform grid): %.12g +- %.2g, neval %lld", b.I[0], b.E[0],
     b.neval);
  setenv("GCUBA_VEGAS_ADAPT", "3", 1);
  out = captured(S(f4), 2, &b);
  /* a grid frozen this early may not reach 1e-3 within maxeval: then
     fail = 1, and the estimate still within 4 errors */
  ok(strstr(out, "frozen after 3 refinements") &&
     (b.fail == 0 ? good(&b, 0, T5, 1e-3)
                  : b.fail == 1 && fabs(b.I[0] - T5) <= 4 * b.E[0]),
     "GCUBA_VEGAS_ADAPT=3: frozen after 3 refinements, fail %d, %.12g +- "
     "%.2g", b.fail, b.I[0], b.E[0]);
  unsetenv("GCUBA_VEGAS_ADAPT");
  /* GCUBA_VEGASAUTO: small Cuba iterations while the grid adapts, then
     iterations sized from the variance; three of them carry the claim,
     in at most half of the iterations of Cuba's schedule (256 bins per
     axis from nstart 2e4: 13 against 31) */
  out = captured_eps(S(f3), 3, 4e-6, 1, 20000, &b);
  niter = count(out, "Iteration ");
  out = captured_eps(S(f3), 3, 4e-6, GCUBA_VEGASAUTO | 2, 20000, &c);
  ok(good(&b, 0, T3, 4e-6) && good(&c, 0, T3, 4e-6) &&
     niter > 24 && count(out, "Iteration ") <= niter / 2 &&
     c.neval < 1.5 * b.neval &&
     strstr(out, "GCUBA_VEGASAUTO): the combination restarts"),
     "GCUBA_VEGASAUTO, f3 3D at 4e-6 from nstart 2e4: %.12g +- %.2g in %d "
     "iterations, %lld evaluations (Cuba's schedule: %d, %lld)", c.I[0],
     c.E[0], count(out, "Iteration "), c.neval, niter, b.neval);
  out = captured_eps(S(f3), 3, 4e-6, GCUBA_VEGASAUTO | 3, 20000, &b);
  ok(same(&b, &c) && last_sizes_equal(out, 3),
     "GCUBA_VEGASAUTO: the claim rests on the 3 iterations of the new size");
  /* bins that grow: f4 5D at 1e-4 from nstart 2e4 settles with 128 bins
     on iterations of about 2e5 samples, rebins to 1024 and freezes
     later; not with GCUBA_VEGAS_NBINS, nor at Cuba's nstart */
  out = captured_eps(S(f4), 5, 1e-4, 2, 20000, &b);
  ok(good(&b, 0, T5, 1e-4) &&
     strstr(out, "grid settled with 128 bins per axis: rebinned to 1024") &&
     strstr(out, "grid frozen after"),
     "f4 5D at 1e-4 from nstart 2e4: bins grow to 1024, %.12g +- %.2g",
     b.I[0], b.E[0]);
  /* ... but not when the tolerance is near: at 3e-4 the samples it needs
     are fewer than 16 times those spent when the grid settles, and a new
     adaptation would cost about as many as it took; the 128 bins freeze */
  out = captured_eps(S(f4), 5, 3e-4, 2, 20000, &c);
  ok(good(&c, 0, T5, 3e-4) && !strstr(out, "rebinned") &&
     strstr(out, "less than 16 times the") && strstr(out, "no rebinning") &&
     strstr(out, "grid frozen after") && c.neval < b.neval,
     "f4 5D at 3e-4 from nstart 2e4: the bins stay, %.12g +- %.2g, %lld "
     "evaluations", c.I[0], c.E[0], c.neval);
  setenv("GCUBA_VEGAS_NBINS", "128", 1);
  out = captured_eps(S(f4), 5, 1e-4, 2, 20000, &c);
  unsetenv("GCUBA_VEGAS_NBINS");
  ok(good(&c, 0, T5, 1e-4) && !strstr(out, "rebinned"),
     "GCUBA_VEGAS_NBINS=128: the bins stay, %.12g +- %.2g", c.I[0], c.E[0]);
  out = captured_eps(S(f4), 5, 1e-3, 2, 1000, &c);
  ok(good(&c, 0, T5, 1e-3) && !strstr(out, "rebinned"),
     "nstart 1000: the bins stay, %.12g +- %.2g", c.I[0], c.E[0]);
  /* (rule 3b at Cuba's 128 bins: with 1024 from nstart 5e5 the early
     grids leave the combination by the chi^2 rule instead) */
  setenv("GCUBA_VEGAS_NBINS", "128", 1);
  out = captured_eps(S(f5), 8, 2e-4, 2, 500000, &b);
  unsetenv("GCUBA_VEGAS_NBINS");
  ok(good(&b, 0, T58, 2e-4) && strstr(out, "sampled on earlier grids"),
     "rule 3b, f5 8D at 2e-4: iterations on early grids leave the "
     "combination (%lld evaluations)", b.neval);
  /* the polish (GCUBA_VEGASAUTO): before iterations grow past 8 times
     1e4 samples per bin, one of 1e4 samples per bin (1.28e6 at 128 bins)
     refines the frozen grid again, and the next iteration decides by its
     variance per sample whether the refined grid stays.  f5 8D at 2e-5:
     it stays (0.90 times the variance); f3 3D at 1.6e-6: the grid before
     is restored (1.01 times) */
  setenv("GCUBA_VEGAS_NBINS", "128", 1);
  out = captured_eps(S(f5), 8, 2e-5, GCUBA_VEGASAUTO | 2, 20000, &b);
  ok(good(&b, 0, T58, 2e-5) && count(out, "grid refined from 1") == 1 &&
     strstr(out, "variance per sample: kept") &&
     !strstr(out, "grid before is restored"),
     "polish, f5 8D at 2e-5: the refined grid is kept, %.12g +- %.2g, "
     "%lld evaluations", b.I[0], b.E[0], b.neval);
  out = captured_eps(S(f3), 3, 1.6e-6, GCUBA_VEGASAUTO | 2, 20000, &b);
  {
    /* the iterations that follow are sized from the polishing one, which
       sampled the restored grid */
    const char *p = strstr(out, "grid refined from ");
    char want[64] = "-";
    if (p) snprintf(want, sizeof want, "iterations grow from %lld to",
                    atoll(p + 18));
    ok(good(&b, 0, T3, 1.6e-6) && count(out, "grid refined from 1") == 1 &&
       strstr(out, "the grid before is restored") && strstr(out, want),
       "polish, f3 3D at 1.6e-6: the grid before is restored, and the "
       "iterations sized from the polishing one, %.12g +- %.2g", b.I[0],
       b.E[0]);
  }
  /* the polish repeats while it pays: f3 3D at 5e-7 with 512 bins.  The
     polishing iteration and the one before it, on the same grid, measure
     how the variance falls with the samples; the refined grid samples
     with 0.52 times the variance, and the iterations to come are large
     enough for another refinement to pay, from the bins of the iteration
     that judged it; after the second (0.71 times) they grow */
  setenv("GCUBA_VEGAS_NBINS", "512", 1);
  out = captured_eps(S(f3), 3, 5e-7, GCUBA_VEGASAUTO | 2, 20000, &b);
  setenv("GCUBA_VEGAS_NBINS", "128", 1);
  ok(good(&b, 0, T3, 5e-7) && count(out, "the variance fell as n^-") == 1 &&
     count(out, "grid refined from 5") == 1 &&
     count(out, "grid refined again from 5") == 1 &&
     count(out, "variance per sample: kept") == 2 &&
     !strstr(out, "grid before is restored") &&
     strstr(strstr(out, "grid refined again from") ?
                strstr(out, "grid refined again from") : out,
            "the combination restarts"),
     "polish repeated, f3 3D at 5e-7 with 512 bins: the variance's fall "
     "measured, refined twice, both kept, then the iterations grow; "
     "%.12g +- %.2g, %lld evaluations", b.I[0], b.E[0], b.neval);
  /* not without GCUBA_VEGASAUTO, nor with GCUBA_VEGAS_ADAPT */
  setenv("GCUBA_VEGAS_ADAPT", "12", 1);
  out = captured_eps(S(f3), 3, 1.6e-6, GCUBA_VEGASAUTO | 2, 20000, &c);
  unsetenv("GCUBA_VEGAS_ADAPT");
  unsetenv("GCUBA_VEGAS_NBINS");
  ok(good(&c, 0, T3, 1.6e-6) && !strstr(out, "grid refined from"),
     "GCUBA_VEGAS_ADAPT: no polish, %.12g +- %.2g", c.I[0], c.E[0]);
  setenv("GCUBA_VEGAS_NBINS", "512", 1);
  run(S(f4), 5, 1, 1e-3, 0, 0, 10000, &b);
  unsetenv("GCUBA_VEGAS_NBINS");
  ok(good(&b, 0, T5, 1e-3) && !same(&a, &b), "GCUBA_VEGAS_NBINS=512: "
     "%.12g +- %.2g, neval %lld", b.I[0], b.E[0], b.neval);
  return battery_done();
}
