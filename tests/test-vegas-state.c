/* tests/test-vegas-state.c -- gVegas state files and grid slots: a run
   interrupted by maxeval and resumed from its state file ends with the
   same bits as an uninterrupted one (in two and three pieces); the file
   goes away after success unless flags bit 4 keeps it, and a kept file
   replays the last iteration to the same answer; flags bit 5 keeps only
   the grid, which then serves another integrand; gridno keeps a grid for
   the next call of the same dimension (fewer evaluations), -gridno empties
   the slot first; a run whose bins grow resumes as well.  This file is
   part of gcuba. */
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include "tap.h"
#include "suite.h"
#include "gpu.h"

#define SF "test-vegas-state.state"
#define TRUE5 1.791326036748786e-06

typedef struct {
  double I, E, P;
  long long neval;
  int fail;
} result;

static void run(gintegrand_t f, int ndim, int flags, long long maxeval,
                int gridno, const char *sf, result *r)
{
  memset(r, 0, sizeof *r);
  llgVegas(ndim, 1, f, NULL, 1, 1e-3, 1e-20, flags, 11, 0, maxeval, 10000,
           10000, 1000, gridno, sf, NULL, &r->neval, &r->fail, &r->I, &r->E,
           &r->P);
}

/* f4 5D at 1e-4 from nstart = nincrease = 20000: the grid settles with
   128 bins per axis on iterations of about 2e5 samples, is rebinned to
   1024 and adapts on (tests/test-vegas-flags.c sees it in the log) */
static void grown(long long maxeval, const char *sf, result *r)
{
  memset(r, 0, sizeof *r);
  llgVegas(5, 1, S(f4), NULL, 1, 1e-4, 1e-20, 0, 1, 0, maxeval, 20000,
           20000, 1000, 0, sf, NULL, &r->neval, &r->fail, &r->I, &r->E,
           &r->P);
}

#ifndef SUITE_GPU
/* GCUBA_VEGASAUTO with the polish: C0 exp(-10 sum |x_i - 1/2|) in 8D at
   2e-5 from nstart 2e4 with 128 bins polishes in iteration 13 and decides
   after 14; the corner peak (1 + sum_i i x_i)^-4 in 3D at 5e-7 with 512
   bins polishes in iteration 13, refines again after 14 and decides
   after 15.  A host function in Cuba's nvec form (it is told the
   iteration) returns -999 in iteration abort_at (0: never). */
static int abort_at, corner;
static int polish_fn(const int *ndim, const double x[], const int *ncomp,
                 double f[], void *userdata, const int *nvec,
                 const int *core, const double weight[], const int *iter)
{
  int i, d;
  (void)ncomp;
  (void)userdata;
  (void)core;
  (void)weight;
  if (*iter == abort_at) return -999;
  for (i = 0; i < *nvec; ++i) {
    double s = 0;
    for (d = 0; d < *ndim; ++d)
      s += corner ? (d + 1) * x[(size_t)i * *ndim + d]
                  : fabs(x[(size_t)i * *ndim + d] - 0.5);
    f[i] = corner ? pow(1 + s, -(*ndim + 1)) : exp(-10 * s);
  }
  return 0;
}

/* x^-0.7 (1 - y)^-0.2 at 1e-2, seed 1, Cuba's nstart 1000 and
   nincrease 500: the map chases the face x = 0, and its first bin on
   axis 1 maps by u^2, u^4, u^8 (rule 6's edge powers) after iterations
   5, 6 and 7; the call ends after 8 */
static int edge_fn(const int *ndim, const double x[], const int *ncomp,
                   double f[], void *userdata)
{
  (void)ndim;
  (void)ncomp;
  (void)userdata;
  f[0] = pow(x[0], -0.7) * pow(1 - x[1], -0.2);
  return 0;
}
static void edged(long long maxeval, const char *sf, result *r)
{
  memset(r, 0, sizeof *r);
  llgVegas(2, 1, gcuba_host_integrand(edge_fn, 0), NULL, 1, 1e-2, 1e-30, 0,
           1, 0, maxeval, 1000, 500, 1000, 0, sf, NULL, &r->neval, &r->fail,
           &r->I, &r->E, &r->P);
}

static void polished(int abort_iter, const char *sf, result *r)
{
  memset(r, 0, sizeof *r);
  abort_at = abort_iter;
  setenv("GCUBA_VEGAS_NBINS", corner ? "512" : "128", 1);
  llgVegas(corner ? 3 : 8, 1,
           gcuba_host_integrand((gcuba_host_fn)polish_fn, 1), NULL, 1000,
           corner ? 5e-7 : 2e-5, 1e-20, GCUBA_VEGASAUTO, 1, 0, 2000000000,
           20000, 20000, 1000, 0, sf, NULL, &r->neval, &r->fail, &r->I,
           &r->E, &r->P);
  unsetenv("GCUBA_VEGAS_NBINS");
}
#endif

static int same(const result *a, const result *b)
{
  return a->fail == b->fail && a->neval == b->neval && a->I == b->I &&
         a->E == b->E && a->P == b->P;
}

static int exists(const char *f) { return access(f, F_OK) == 0; }

#ifdef SUITE_GPU
/* the GPU battery takes the kept grid into f4 itself */
#define OTHER S(f4)
#define SCALE 1
#else
/* twice f4, through a plain host function */
static int f4x2(const int *ndim, const double x[], const int *ncomp,
                double f[], void *userdata)
{
  int r = f4_c->fn(ndim, x, ncomp, f, userdata);
  f[0] *= 2;
  return r;
}
#define OTHER gcuba_host_integrand(f4x2, 0)
#define SCALE 2
#endif

#ifndef SUITE_GPU
/* polished() uninterrupted, then stopped by -999 in iteration abort_iter
   (neval evaluations done, a state file kept) and resumed: the same bits */
static void polish_resumed(const char *name, double truth, int abort_iter,
                           long long neval, const char *after)
{
  result full, a, c;
  polished(0, NULL, &full);
  ok(full.fail == 0 && fabs(full.I - truth) <= 4 * full.E,
     "%s, uninterrupted: %.15g +- %.3g, neval %lld", name, full.I, full.E,
     full.neval);
  polished(abort_iter, SF, &a);
  {
    const int kept = exists(SF); /* the state after the iteration before */
    polished(0, SF, &c);
    ok(a.fail == -99 && a.neval == neval && kept && same(&c, &full) &&
           !exists(SF),
       "%s: aborted in the iteration after %s (fail %d, neval %lld), "
       "resumed to the same bits", name, after, a.fail, a.neval);
  }
}
#endif

int main(void)
{
  result full, a, b, c;
  battery_start();
  plan(0);
  remove(SF);

  run(S(f4), 5, 0, 100000000, 0, NULL, &full);
  ok(full.fail == 0 && fabs(full.I - TRUE5) <= 4 * full.E,
     "uninterrupted: %.15g +- %.3g, neval %lld", full.I, full.E, full.neval);

  run(S(f4), 5, 0, 60000, 0, SF, &a);
  ok(a.fail == 1 && exists(SF), "maxeval 60000: fail %d, state file kept",
     a.fail);
  run(S(f4), 5, 0, 100000000, 0, SF, &b);
  ok(same(&b, &full), "resumed: the same bits as uninterrupted (%.15g, "
     "neval %lld)", b.I, b.neval);
  ok(!exists(SF), "state file removed after success");

  run(S(f4), 5, 0, 30000, 0, SF, &a);
  run(S(f4), 5, 0, 150000, 0, SF, &b);
  run(S(f4), 5, 0, 100000000, 0, SF, &c);
  ok(a.fail == 1 && b.fail == 1 && same(&c, &full),
     "three pieces (maxeval 30000, 150000, 1e8): the same bits");

  run(S(f4), 5, GCUBA_KEEPSTATE, 100000000, 0, SF, &a);
  ok(same(&a, &full) && exists(SF), "flags bit 4: the same result, file "
     "kept");
  run(S(f4), 5, GCUBA_KEEPSTATE, 100000000, 0, SF, &b);
  ok(same(&b, &full), "rerun on the kept file: the last iteration replayed, "
     "the same bits");

  run(OTHER, 5, GCUBA_RESETSTATE, 100000000, 0, SF, &c);
  run(OTHER, 5, 0, 100000000, 0, NULL, &b);
  ok(c.fail == 0 && fabs(c.I - SCALE * TRUE5) <= 4 * c.E && c.neval < b.neval,
     "flags bit 5: the kept grid serves %d f4: %.12g +- %.2g with %lld "
     "evaluations (%lld from a uniform grid)", SCALE, c.I, c.E, c.neval,
     b.neval);
  ok(!exists(SF), "... and the file is gone after that success");

  /* grid slots */
  run(S(f4), 5, 0, 100000000, 3, NULL, &a);
  ok(same(&a, &full), "gridno 3, first call: as without a slot");
  run(S(f4), 5, 0, 100000000, 3, NULL, &b);
  ok(b.fail == 0 && fabs(b.I - TRUE5) <= 4 * b.E && b.neval < a.neval,
     "gridno 3, second call: %lld evaluations instead of %lld, %.12g +- "
     "%.2g", b.neval, a.neval, b.I, b.E);
  run(S(f4), 5, 0, 100000000, -3, NULL, &c);
  ok(same(&c, &full), "gridno -3: slot emptied first, as a fresh start");
  run(S(f4), 4, 0, 100000000, 0, NULL, &a);
  run(S(f4), 4, 0, 100000000, 3, NULL, &b);
  ok(same(&a, &b), "a slot of another dimension is not used");
  run(S(f4), 5, 0, 100000000, 4, NULL, &c);
  ok(same(&c, &full), "another slot is independent");
  /* bins that grow: the state file holds the grid at its current bins */
  grown(2000000000, NULL, &full);
  ok(full.fail == 0 && fabs(full.I - TRUE5) <= 4 * full.E,
     "growing bins, uninterrupted: %.15g +- %.3g, neval %lld", full.I,
     full.E, full.neval);
  grown(600000, SF, &a);
  grown(3000000, SF, &b);
  grown(2000000000, SF, &c);
  ok(a.fail == 1 && b.fail == 1 && same(&c, &full) && !exists(SF),
     "growing bins: stopped at 6e5 (128 bins) and 3e6 (1024), resumed to "
     "the same bits");
#ifndef SUITE_GPU
  /* the polish: stopped in the iteration after the polishing one (the
     state holds the grid before the polish, for the decision after it)
     and resumed (CPU: the host function knows the iteration) */
  polish_resumed("polish", pow(0.2 * (1 - exp(-5.0)), 8), 14, 2498656,
                 "the polishing one");
  /* the polish repeated: stopped in the iteration after the one that
     refined again (the state holds the grid of the first polish) */
  corner = 1;
  polish_resumed("polish repeated", 1.0846560846560847e-02, 15, 11750336,
                 "the second refinement");
  corner = 0;
  /* the map's edge powers are part of the state */
  edged(1000000, NULL, &full);
  ok(full.fail == 0 && fabs(full.I - 1 / (0.3 * 0.8)) <= 4 * full.E,
     "edge powers, uninterrupted: %.15g +- %.3g, neval %lld", full.I,
     full.E, full.neval);
  edged(15000, SF, &a);
  edged(1000000, SF, &c);
  ok(a.fail == 1 && a.neval == 13268 && same(&c, &full) && !exists(SF),
     "edge powers: stopped after iteration 6 (the edge bin at u^4, fail "
     "%d, neval %lld) and resumed to the same bits", a.fail, a.neval);
  /* ... and of a grid slot: the second call starts from the first one's
     map, edge powers included (here the map, frozen at once, still chases
     the face slowly, so rule 6 refuses fail = 0: an honest fail = 1) */
  {
    result s1, s2;
    memset(&s1, 0, sizeof s1);
    memset(&s2, 0, sizeof s2);
    llgVegas(2, 1, gcuba_host_integrand(edge_fn, 0), NULL, 1, 1e-2, 1e-30,
             0, 1, 0, 1000000, 1000, 500, 1000, 4, NULL, NULL, &s1.neval,
             &s1.fail, &s1.I, &s1.E, &s1.P);
    llgVegas(2, 1, gcuba_host_integrand(edge_fn, 0), NULL, 1, 1e-2, 1e-30,
             0, 2, 0, 1000000, 1000, 500, 1000, 4, NULL, NULL, &s2.neval,
             &s2.fail, &s2.I, &s2.E, &s2.P);
    ok(same(&s1, &full) && s2.fail >= 0 &&
       (s2.fail || fabs(s2.I - 1 / (0.3 * 0.8)) <= 4 * s2.E),
       "edge powers in slot 4: the second call from the first's map, fail "
       "%d, %.6g +- %.2g", s2.fail, s2.I, s2.E);
    llgVegas(2, 1, gcuba_host_integrand(edge_fn, 0), NULL, 1, 1e-2, 1e-30,
             0, 1, 0, 1000000, 1000, 500, 1000, -4, NULL, NULL, &s1.neval,
             &s1.fail, &s1.I, &s1.E, &s1.P);
  }
#endif
  return battery_done();
}
