/* tests/test-cuhre-state.c -- gCuhre's state file: an interrupted run
   (maxeval) leaves it, a rerun resumes from it and ends with exactly the
   answer of an uninterrupted run; it is removed on success unless
   GCUBA_KEEPSTATE; a corrupt, foreign or unwritable file gives a clear
   negative fail code.  This file is part of gcuba. */
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include "tap.h"
#include "suite.h"
#include "gpu.h"

typedef struct {
  int nregions, fail;
  long long neval;
  double integral, error, prob;
} result;

static void run_eps(result *r, int ndim, gintegrand_t f, double epsrel,
                    long long maxeval, int flags, const char *state)
{
  llgCuhre(ndim, 1, f, NULL, 1, epsrel, 1e-20, flags, 0, maxeval, 0, state,
           NULL, &r->nregions, &r->neval, &r->fail, &r->integral, &r->error,
           &r->prob);
}

static void run(result *r, int ndim, gintegrand_t f, long long maxeval,
                int flags, const char *state)
{
  run_eps(r, ndim, f, 1e-9, maxeval, flags, state);
}

static int same(const result *a, const result *b)
{
  return a->fail == b->fail && a->integral == b->integral &&
         a->error == b->error && a->neval == b->neval &&
         a->nregions == b->nregions;
}

/* Cuba-sized budgets (the run starts from the unit cube, and maxeval caps
   splits, the scan and the search for cuts): a run interrupted at part
   and resumed with maxeval 150000 equals the uninterrupted one.  Each
   case made a choice that a larger maxeval would not (a split cut short
   where a bin of keys ends, a scan that did not fit) and saved its state
   after it. */
static void check_small(const char *state)
{
  static const struct {
    int f, ndim;
    double epsrel;
    long long part;
  } cs[] = {{8, 8, 1e-8, 74646}, {7, 5, 1e-8, 22474}, {1, 5, 1e-6, 134848},
            {3, 5, 1e-6, 1498},  {2, 3, 1e-4, 104864}};
  const gintegrand_t fs[] = {S(f1), S(f2), S(f3), S(f4),
                             S(f5), S(f6), S(f7), S(f8)};
  size_t i;
  for (i = 0; i < sizeof cs / sizeof cs[0]; ++i) {
    result full, part, res;
    const gintegrand_t f = fs[cs[i].f - 1];
    remove(state);
    run_eps(&full, cs[i].ndim, f, cs[i].epsrel, 150000, 0, NULL);
    run_eps(&part, cs[i].ndim, f, cs[i].epsrel, cs[i].part, 0, state);
    run_eps(&res, cs[i].ndim, f, cs[i].epsrel, 150000, 0, state);
    ok(part.fail == 1 && same(&res, &full),
       "f%d %dD at %g interrupted at %lld, resumed at 150000: %.17g "
       "(neval %lld), uninterrupted %.17g (%lld)", cs[i].f, cs[i].ndim,
       cs[i].epsrel, cs[i].part, res.integral, res.neval, full.integral,
       full.neval);
  }
  remove(state);
}

int main(void)
{
  char state[64];
  result full, part, res;
  FILE *f;
  battery_start();
  plan(0);
  snprintf(state, sizeof state, "cuhre-state-%d.tmp", (int)getpid());
  remove(state);

  /* f6 (a box with exp inside) at 1e-9: its features found, about 4e6
     evaluations; interrupted at 2e6 */
  run(&full, 5, S(f6), 1000000000LL, 0, NULL);
  run(&part, 5, S(f6), 2000000, 0, state);
  ok(part.fail == 1 && access(state, F_OK) == 0,
     "interrupted by maxeval: fail %d, state file kept", part.fail);
  run(&res, 5, S(f6), 1000000000LL, 0, state);
  ok(res.fail == 0 && same(&res, &full),
     "resumed run = uninterrupted run: %.17g (neval %lld, %lld)",
     res.integral, res.neval, full.neval);
  ok(access(state, F_OK) != 0, "state file removed after success");
  check_small(state);

  run(&res, 5, S(f6), 1000000000LL, GCUBA_KEEPSTATE, state);
  ok(res.fail == 0 && access(state, F_OK) == 0,
     "GCUBA_KEEPSTATE keeps the state file");
  run(&res, 5, S(f6), 1000000000LL, 0, state);
  ok(res.fail == 0 && res.integral == full.integral,
     "rerun from a kept final state: same answer");

  run(&part, 5, S(f6), 2000000, 0, state);
  run(&res, 6, S(f6), 1000000000LL, 0, state);
  ok(res.fail == GCUBA_FAIL_STATE, "state of another problem: fail %d",
     res.fail);
  run(&res, 5, S(f4), 1000000000LL, 0, state);
  ok(res.fail == GCUBA_FAIL_STATE, "state of another integrand: fail %d",
     res.fail);
  /* flip one byte in the middle */
  f = fopen(state, "r+b");
  if (f) {
    int ch;
    fseek(f, 200, SEEK_SET);
    ch = fgetc(f);
    fseek(f, 200, SEEK_SET);
    fputc(ch ^ 0x55, f);
    fclose(f);
  }
  run(&res, 5, S(f6), 1000000000LL, 0, state);
  ok(res.fail == GCUBA_FAIL_STATE, "corrupt state file: fail %d", res.fail);
  f = fopen(state, "wb");
  if (f) {
    fputs("garbage", f);
    fclose(f);
  }
  run(&res, 5, S(f6), 1000000000LL, 0, state);
  ok(res.fail == GCUBA_FAIL_STATE, "not a state file: fail %d", res.fail);
  remove(state);
  run(&res, 5, S(f6), 1000000000LL, 0, "/nonexistent-dir/state");
  ok(res.fail == GCUBA_FAIL_STATEIO, "unwritable state file: fail %d",
     res.fail);
  return battery_done();
}
