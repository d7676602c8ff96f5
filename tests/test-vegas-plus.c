/* tests/test-vegas-plus.c -- gVegas with adaptive stratification
   (GCUBA_VEGASPLUS, GCUBA_VEGAS_BETA, VEGAS+), on the CPU backend and, in
   its GPU build,
   on the GPU:
   - two Gaussians on the diagonal of [0,1]^4, which a product grid cannot
     follow: seeds 1-6 at epsrel 3e-4 give fail = 0 with the true value
     within 4 errors, and take together at most 0.6 of the evaluations
     the same calls take without it (0.53 measured);
   - the suite (f2 6D, f3 3D, f4 5D, f5 8D, f6 6D) at 1e-3 with beta 0.75,
     f4 5D with beta 1 and with GCUBA_VEGASAUTO at 1e-4, three components
     with one grid for all axes: fail = 0, true values within 4 errors;
   - the same bits run after run and on 1, 2 and 3 CPU threads; flags
     GCUBA_VEGASPLUS the bits of GCUBA_VEGAS_BETA=0.75, or of the beta
     the variable sets; GCUBA_VEGAS_BETA=0 gives the bits of the unset
     variable; seed 0
     (Sobol points, no cubes) says so at verbosity 1 and ignores it;
   - a run interrupted by maxeval and resumed from its state file ends
     with the same bits as an uninterrupted one.
   GCUBA_TEST_QUICK=1 (for compute-sanitizer): the diagonal with seeds 1
   and 2 at 1e-3, without the comparison of evaluations.
   This file is part of gcuba. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "tap.h"
#include "suite.h"
#include "gpu.h"
#include "capture.h"

#define SF "test-vegas-plus.state"

typedef struct {
  double I[3], E[3], P[3];
  long long neval;
  int fail;
} result;

static void run(gintegrand_t f, int ndim, int ncomp, double epsrel,
                int flags, int seed, long long maxeval, long long nstart,
                long long nincrease, const char *sf, result *r)
{
  memset(r, 0, sizeof *r);
  llgVegas(ndim, ncomp, f, NULL, 1, epsrel, 1e-20, flags, seed, 0, maxeval,
           nstart, nincrease, 1000, 0, sf, NULL, &r->neval, &r->fail, r->I,
           r->E, r->P);
}

static int same(const result *a, const result *b)
{
  return a->fail == b->fail && a->neval == b->neval &&
         !memcmp(a->I, b->I, sizeof a->I) && !memcmp(a->E, b->E, sizeof a->E) &&
         !memcmp(a->P, b->P, sizeof a->P);
}

static void beta(const char *b)
{
  if (b)
    setenv("GCUBA_VEGAS_BETA", b, 1);
  else
    unsetenv("GCUBA_VEGAS_BETA");
}

/* fail = 0 and the true value within 4 errors */
static int honest(const result *r, int k, double truth)
{
  return r->fail == 0 && fabs(r->I[k] - truth) <= 4 * r->E[k];
}

static void suite_case(int family, int d, double truth, const char *b,
                       double epsrel, int flags)
{
  result r;
  beta(b);
  run(suite_family(family, SUITE_BACKEND), d, 1, epsrel, flags, 5,
      1000000000LL, 100000, 100000, NULL, &r);
  ok(honest(&r, 0, truth) && r.E[0] <= epsrel * fabs(r.I[0]),
     "beta %s: f%d %dD at %.0e%s: fail %d, %.12g +- %.2e (%.2f errors off), "
     "neval %lld", b, family, d, epsrel,
     flags & GCUBA_VEGASAUTO ? " (GCUBA_VEGASAUTO)" : "", r.fail, r.I[0],
     r.E[0], fabs(r.I[0] - truth) / r.E[0], r.neval);
  beta(NULL);
}

int main(void)
{
  const double tdiag = suite_diag_truth(4);
  const double g = sqrt(M_PI) / 25 * erf(12.5);
  result a, b, c;
  long long non = 0, noff = 0;
  int s, n, all = 1, same3 = 1;
  const int quick = getenv("GCUBA_TEST_QUICK") != NULL;
  const int nseed = quick ? 2 : 6;
  const double eps = quick ? 1e-3 : 3e-4;
  char buf[4096];
  battery_start();
  plan(0);

  /* the diagonal: honest, and fewer evaluations */
  for (s = 1; s <= nseed; ++s) {
    beta("0.75");
    run(S(fdiag), 4, 1, eps, 0, s, 400000000LL, 100000, 100000, NULL, &a);
    beta(NULL);
    run(S(fdiag), 4, 1, eps, 0, s, 400000000LL, 100000, 100000, NULL, &b);
    if (!honest(&a, 0, tdiag) || !honest(&b, 0, tdiag)) {
      all = 0;
      diag("seed %d: fail %d, %.12g +- %.2e; without: fail %d, %.12g +- "
           "%.2e; true %.12g", s, a.fail, a.I[0], a.E[0], b.fail, b.I[0],
           b.E[0], tdiag);
    }
    non += a.neval;
    noff += b.neval;
  }
  ok(all, "two Gaussians on the diagonal, 4D, %.0e, seeds 1-%d: fail = 0 "
     "and the true value within 4 errors, with and without", eps, nseed);
  if (!quick)
    ok(non <= 0.6 * (double)noff, "... in %lld evaluations with beta 0.75 "
       "against %lld without (%.2f)", non, noff, (double)non / noff);

  /* the suite */
  suite_case(2, 6, 1.2868879901109878e+13, "0.75", 1e-3, 0);
  suite_case(3, 3, 1.0846560846560847e-02, "0.75", 1e-3, 0);
  suite_case(4, 5, 1.791326036748786e-06, "0.75", 1e-3, 0);
  suite_case(5, 8, 2.425217625641885e-06, "0.75", 1e-3, 0);
  suite_case(6, 6, 1.5477367885091207e+08, "0.75", 1e-3, 0);
  suite_case(4, 5, 1.791326036748786e-06, "1", 1e-3, 0);
  suite_case(4, 5, 1.791326036748786e-06, "0.75", 1e-4, GCUBA_VEGASAUTO);
  beta("0.75");
  run(S(f43c), 3, 3, 1e-3, GCUBA_VEGAS1D, 2, 100000000, 20000, 20000, NULL,
      &a);
  beta(NULL);
  ok(honest(&a, 0, g * g * g) && honest(&a, 1, 1.0846560846560847e-02) &&
     honest(&a, 2, 2), "three components, one grid for all axes: fail %d, "
     "%.10g, %.10g, %.10g (+- %.2g, %.2g, %.2g)", a.fail, a.I[0], a.I[1],
     a.I[2], a.E[0], a.E[1], a.E[2]);

  /* determinism */
  beta("0.75");
  run(S(f4), 5, 1, 1e-3, 0, 7, 100000000, 20000, 20000, NULL, &a);
  run(S(f4), 5, 1, 1e-3, 0, 7, 100000000, 20000, 20000, NULL, &b);
  ok(a.fail == 0 && same(&a, &b), "two identical calls: the same bits "
     "(%.17g +- %.17g, neval %lld)", a.I[0], a.E[0], a.neval);
  for (n = 1; n <= 3; ++n) {
    gcubacores(&n, &n);
    run(S(f4), 5, 1, 1e-3, 0, 7, 100000000, 20000, 20000, NULL, &c);
    same3 &= same(&a, &c);
  }
  n = -1;
  gcubacores(&n, &n);
  ok(same3, "1, 2 and 3 CPU threads: the same bits");
  beta(NULL);
  run(S(f4), 5, 1, 1e-3, GCUBA_VEGASPLUS, 7, 100000000, 20000, 20000, NULL,
      &b);
  ok(same(&a, &b), "flags GCUBA_VEGASPLUS: the bits of GCUBA_VEGAS_BETA=0.75");
  beta("1");
  run(S(f4), 5, 1, 1e-3, 0, 7, 100000000, 20000, 20000, NULL, &a);
  run(S(f4), 5, 1, 1e-3, GCUBA_VEGASPLUS, 7, 100000000, 20000, 20000, NULL,
      &b);
  ok(same(&a, &b) && memcmp(a.I, c.I, sizeof a.I),
     "GCUBA_VEGAS_BETA=1 sets the beta of GCUBA_VEGASPLUS");
  beta("0");
  run(S(f4), 5, 1, 1e-3, 0, 7, 100000000, 20000, 20000, NULL, &a);
  beta(NULL);
  run(S(f4), 5, 1, 1e-3, 0, 7, 100000000, 20000, 20000, NULL, &b);
  ok(same(&a, &b), "GCUBA_VEGAS_BETA=0: the bits of the unset variable");
  beta("0.75");
  {
    const int save = capture_begin("test-vegas-plus.err");
    run(S(f4), 5, 1, 1e-3, 1, 0, 4000000, 20000, 20000, NULL, &a);
    capture_end(save, "test-vegas-plus.err", buf, sizeof buf);
  }
  beta(NULL);
  run(S(f4), 5, 1, 1e-3, 0, 0, 4000000, 20000, 20000, NULL, &b);
  ok(same(&a, &b) && strstr(buf, "no adaptive stratification"),
     "seed 0 (Sobol points): stratification ignored, said at verbosity 1");

  /* state file */
  beta("0.75");
  remove(SF);
  run(S(f4), 5, 1, 1e-4, 0, 3, 100000000, 20000, 20000, NULL, &c);
  run(S(f4), 5, 1, 1e-4, 0, 3, 150000, 20000, 20000, SF, &a);
  run(S(f4), 5, 1, 1e-4, 0, 3, 100000000, 20000, 20000, SF, &b);
  beta(NULL);
  ok(c.fail == 0 && a.fail == 1 && same(&b, &c),
     "interrupted at maxeval 150000 and resumed from the state file: the "
     "same bits as uninterrupted (%.15g, neval %lld)", b.I[0], b.neval);
  remove(SF);
  return battery_done();
}
