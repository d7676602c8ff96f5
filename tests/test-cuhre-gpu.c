/* tests/test-cuhre-gpu.c -- what only the GPU backend of gCuhre has:
   a parameter struct copied to the device (gcuba_userdata_size), a host
   pointer refused without a size, concurrent calls from several host
   threads (each with its own stream) giving the answers of sequential
   calls, the cached device context switching between the two forms of
   its regions' widths as calls cut or not, an idle context kept per
   shape for calls that alternate between shapes.  Built with the nvcc-built
   suite.  This file is part of gcuba. */
#include <math.h>
#include <pthread.h>
#include <string.h>
#include "tap.h"
#include "capture.h"
#include "suite.h"
#include "gpu.h"

typedef struct {
  int family, d, fail;
  double integral, error;
  double eps;      /* 0: 1e-6 */
  int flags;
  long long neval;
} job;

static void *work(void *arg)
{
  job *j = (job *)arg;
  int nregions;
  double prob;
  if (j->eps == 0) j->eps = 1e-6;
  llgCuhre(j->d, 1, suite_family(j->family, 1), NULL, 1, j->eps, 1e-20,
           j->flags, 0, 2000000000LL, 0, NULL, NULL, &nregions, &j->neval,
           &j->fail, &j->integral, &j->error, &prob);
  return NULL;
}

/* One shape (5-D), calls that cut (f6: the scan finds its steps, and the
   widths turn to doubles, said at verbosity 2) and calls that do not
   (f4), in turn on the context the last call left: each gives the bits
   of the same call on a fresh context (after gcuba_release), the width
   arrays of one form parked while the other's are in use. */
static void widths_switch(void)
{
  static const int seq[5] = {6, 4, 6, 6, 4};
  const char *log = "test-cuhre-gpu.log";
  job fresh[2], j;
  char buf[1 << 16];
  int i, k, same = 1, honest = 1, cuts = 1, save;
  for (k = 0; k < 2; ++k) {
    gcuba_release();
    memset(&fresh[k], 0, sizeof fresh[k]);
    fresh[k].family = k ? 4 : 6;
    fresh[k].d = 5;
    fresh[k].eps = k ? 1e-6 : 1e-4;
    fresh[k].flags = 2; /* verbosity 2: the switch said */
    save = capture_begin(log);
    work(&fresh[k]);
    capture_end(save, log, buf, sizeof buf);
  }
  for (i = 0; i < 5; ++i) {
    const job *f = &fresh[seq[i] == 4];
    /* suite_cases[4] is f4 5D, suite_cases[8] f6 5D */
    const double truth = suite_cases[seq[i] == 4 ? 4 : 8].truth;
    memset(&j, 0, sizeof j);
    j.family = seq[i];
    j.d = 5;
    j.eps = f->eps;
    j.flags = 2;
    save = capture_begin(log);
    work(&j);
    capture_end(save, log, buf, sizeof buf);
    if (j.fail != f->fail || j.neval != f->neval ||
        j.integral != f->integral || j.error != f->error) {
      diag("call %d (f%d): fail %d neval %lld %.17g +- %.3g; fresh: fail %d "
           "neval %lld %.17g +- %.3g", i, seq[i], j.fail, j.neval,
           j.integral, j.error, f->fail, f->neval, f->integral, f->error);
      same = 0;
    }
    if (j.fail == 0 && !(fabs(j.integral - truth) <= j.eps * fabs(truth)))
      honest = 0;
    if ((strstr(buf, "region widths as doubles") != NULL) != (seq[i] == 6))
      cuts = 0;
  }
  ok(cuts, "f6 5D cuts (widths as doubles), f4 5D does not");
  ok(same, "calls that cut and calls that do not, in turn on one cached "
     "context: the bits of fresh calls (fail, neval, integral, error)");
  ok(honest, "and every fail = 0 within its tolerance");
  gcuba_release();
}

/* Two shapes in turn (f4 in 2-D and 4-D): each keeps its own idle
   context, so only the first call of each shape allocates a region store
   (said at verbosity 2), and every call gives the bits of the same call
   on a fresh context. */
static void shapes_alternate(void)
{
  static const int seq[5] = {2, 4, 2, 4, 2};
  const char *log = "test-cuhre-gpu.log";
  job fresh[2], j;
  char buf[1 << 16];
  int i, k, same = 1, honest = 1, allocs = 1, save;
  for (k = 0; k < 2; ++k) {
    gcuba_release();
    memset(&fresh[k], 0, sizeof fresh[k]);
    fresh[k].family = 4;
    fresh[k].d = k ? 4 : 2;
    fresh[k].eps = 1e-7;
    fresh[k].flags = 2;
    save = capture_begin(log);
    work(&fresh[k]);
    capture_end(save, log, buf, sizeof buf);
  }
  gcuba_release();
  for (i = 0; i < 5; ++i) {
    const job *f = &fresh[seq[i] == 4];
    /* f4 is exp(-625 |x - 1/2|^2): (sqrt(pi) / 25)^d */
    const double truth = pow(sqrt(M_PI) / 25, seq[i]);
    memset(&j, 0, sizeof j);
    j.family = 4;
    j.d = seq[i];
    j.eps = f->eps;
    j.flags = 2;
    save = capture_begin(log);
    work(&j);
    capture_end(save, log, buf, sizeof buf);
    if (j.fail != f->fail || j.neval != f->neval ||
        j.integral != f->integral || j.error != f->error) {
      diag("call %d (%d-D): fail %d neval %lld %.17g +- %.3g; fresh: fail "
           "%d neval %lld %.17g +- %.3g", i, seq[i], j.fail, j.neval,
           j.integral, j.error, f->fail, f->neval, f->integral, f->error);
      same = 0;
    }
    if (!(j.fail == 0 && fabs(j.integral - truth) <= j.eps * truth))
      honest = 0;
    if ((strstr(buf, "device region store") != NULL) != (i < 2)) {
      diag("call %d (%d-D): a store allocated: %s", i, seq[i],
           strstr(buf, "device region store") ? "yes" : "no");
      allocs = 0;
    }
  }
  ok(allocs, "2-D and 4-D calls in turn: only the first of each shape "
     "allocates a region store");
  ok(same, "and each gives the bits of a fresh call (fail, neval, integral, "
     "error)");
  ok(honest, "and converges within its tolerance");
  gcuba_release();
}

int main(void)
{
  struct suite_param p = {3.0, 2};
  int nregions, fail, i, same = 1;
  long long neval;
  double integral, error, prob, truth = 3.0 / 27; /* a / (k+1)^d, d = 3 */
  job seq[4] = {{3, 3, 0, 0, 0}, {4, 5, 0, 0, 0}, {6, 5, 0, 0, 0},
                {8, 8, 0, 0, 0}};
  job par[4];
  pthread_t th[4];
  battery_start();
  plan(0);

  gcuba_userdata_size(sizeof p);
  llgCuhre(3, 1, S(fparam), &p, 1, 1e-8, 1e-20, 0, 0, 2000000000LL, 0, NULL,
           NULL, &nregions, &neval, &fail, &integral, &error, &prob);
  ok(fail == 0 && fabs(integral - truth) <= 1e-8 * truth &&
         !strcmp(gcuba_last_backend(), "gpu"),
     "userdata struct copied to the device: %.15g (true %.15g), fail %d",
     integral, truth, fail);
  gcuba_userdata_size(0);
  llgCuhre(3, 1, S(fparam), &p, 1, 1e-8, 1e-20, 0, 0, 2000000000LL, 0, NULL,
           NULL, &nregions, &neval, &fail, &integral, &error, &prob);
  ok(fail == GCUBA_FAIL_PARAM,
     "a host userdata pointer without a size is refused: fail %d", fail);

  widths_switch();
  shapes_alternate();
  for (i = 0; i < 4; ++i) work(&seq[i]);
  memcpy(par, seq, sizeof par);
  for (i = 0; i < 4; ++i) pthread_create(&th[i], NULL, work, &par[i]);
  for (i = 0; i < 4; ++i) pthread_join(th[i], NULL);
  for (i = 0; i < 4; ++i)
    if (par[i].fail != 0 || seq[i].fail != 0 ||
        par[i].integral != seq[i].integral || par[i].error != seq[i].error)
      same = 0;
  ok(same, "4 concurrent calls from host threads = 4 sequential calls");
  gcuba_release();
  work(&par[0]);
  ok(par[0].fail == 0 && par[0].integral == seq[0].integral,
     "after gcuba_release the next call allocates afresh: same answer");
  gcuba_release();
  return battery_done();
}
