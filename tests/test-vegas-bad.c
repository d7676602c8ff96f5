/* tests/test-vegas-bad.c -- gVegas refuses bad input with its fail code,
   before doing any work, and handles a misbehaving integrand: NaN/Inf
   (GCUBA_FAIL_NAN), -999 (fail = -99 at once), maxeval too small (fail = 1
   with the estimate so far), bad environment values, unusable state files,
   GCUBA_DEVICE=gpu without a usable GPU.  This file is part of gcuba. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "tap.h"
#include "suite.h"
#include "gpu.h"

static int fail;
static long long neval;
static double I[4], E[4], P[4];

static int vegas(int ndim, int ncomp, gintegrand_t f, long long nvec,
                 double epsrel, double epsabs, long long mineval,
                 long long maxeval, long long nstart, long long nincrease,
                 long long nbatch, int gridno, const char *statefile)
{
  fail = 12345;
  neval = -1;
  llgVegas(ndim, ncomp, f, NULL, nvec, epsrel, epsabs, 0, 1, mineval,
           maxeval, nstart, nincrease, nbatch, gridno, statefile, NULL,
           &neval, &fail, I, E, P);
  return fail;
}

#define CALL(ndim, ncomp, f, nvec, er, ea, mi, ma, ns, ni, nb, g) \
  vegas(ndim, ncomp, f, nvec, er, ea, mi, ma, ns, ni, nb, g, NULL)

int main(void)
{
  struct gcuba_integrand bad_abi;
  int f2;
  long long n2;
  double i2, e2, p2;
  FILE *fp;
  battery_start();
  plan(0);

  CALL(0, 1, S(f4), 1, 1e-3, 0, 0, 1000000, 1000, 500, 1000, 0);
  ok(fail ==
     GCUBA_FAIL_NDIM && neval == 0, "ndim 0: fail %d", fail);
  CALL(GCUBA_MAXDIM + 1, 1, S(f4), 1, 1e-3, 0, 0, 1000000, 1000, 500,
          1000, 0);
  ok(fail == GCUBA_FAIL_NDIM, "ndim %d: fail %d", GCUBA_MAXDIM + 1,
     fail);
  CALL(2, 0, S(f4), 1, 1e-3, 0, 0, 1000000, 1000, 500, 1000, 0);
  ok(fail ==
     GCUBA_FAIL_NCOMP, "ncomp 0: fail %d", fail);
  CALL(2, GCUBA_MAXCOMP + 1, S(f4), 1, 1e-3, 0, 0, 1000000, 1000, 500,
          1000, 0);
  ok(fail == GCUBA_FAIL_NCOMP, "ncomp too large: fail %d", fail);
  CALL(2, 1, NULL, 1, 1e-3, 0, 0, 1000000, 1000, 500, 1000, 0);
  ok(fail ==
     GCUBA_FAIL_NULL, "NULL integrand: fail %d", fail);
  CALL(2, 1, S(f4), 1, -1e-3, 0, 0, 1000000, 1000, 500, 1000, 0);
  ok(fail ==
     GCUBA_FAIL_TOLERANCE, "negative epsrel: fail %d", fail);
  CALL(2, 1, S(f4), 1, NAN, 0, 0, 1000000, 1000, 500, 1000, 0);
  ok(fail ==
     GCUBA_FAIL_TOLERANCE, "NaN epsrel: fail %d", fail);
  CALL(2, 1, S(f4), 1, 1e-3, -1, 0, 1000000, 1000, 500, 1000, 0);
  ok(fail ==
     GCUBA_FAIL_TOLERANCE, "negative epsabs: fail %d", fail);
  CALL(2, 1, S(f4), 0, 1e-3, 0, 0, 1000000, 1000, 500, 1000, 0);
  ok(fail ==
     GCUBA_FAIL_EVALS, "nvec 0: fail %d", fail);
  CALL(2, 1, S(f4), 1, 1e-3, 0, 2000000, 1000000, 1000, 500, 1000, 0);
  ok(fail ==
     GCUBA_FAIL_EVALS, "mineval > maxeval: fail %d", fail);
  CALL(2, 1, S(f4), 1, 1e-3, 0, -1, 1000000, 1000, 500, 1000, 0);
  ok(fail ==
     GCUBA_FAIL_EVALS, "negative mineval: fail %d", fail);
  CALL(2, 1, S(f4), 1, 1e-3, 0, 0, 1000000, 1, 500, 1000, 0);
  ok(fail ==
     GCUBA_FAIL_PARAM, "nstart 1: fail %d", fail);
  CALL(2, 1, S(f4), 1, 1e-3, 0, 0, 1000000, 1000, -1, 1000, 0);
  ok(fail ==
     GCUBA_FAIL_PARAM, "nincrease -1: fail %d", fail);
  CALL(2, 1, S(f4), 1, 1e-3, 0, 0, 1000000, 1000, 500, 0, 0);
  ok(fail ==
     GCUBA_FAIL_PARAM, "nbatch 0: fail %d", fail);
  CALL(2, 1, S(f4), 1, 1e-3, 0, 0, 1000000, 1000, 500, 1000, 11);
  ok(fail ==
     GCUBA_FAIL_PARAM, "gridno 11: fail %d", fail);
  CALL(2, 1, S(f4), 1, 1e-3, 0, 0, 1000000, 1000, 500, 1000, -11);
  ok(fail ==
     GCUBA_FAIL_PARAM, "gridno -11: fail %d", fail);
  bad_abi = *S(f4);
  bad_abi.abi = GCUBA_ABI_VERSION + 1;
  CALL(2, 1, &bad_abi, 1, 1e-3, 0, 0, 1000000, 1000, 500, 1000, 0);
  ok(fail ==
     GCUBA_FAIL_ABI, "descriptor of another ABI: fail %d", fail);
  llgVegas(2, 1, S(f4), NULL, 1, 1e-3, 0, 0, 1, 0, 1000000, 1000, 500, 1000,
           0, NULL, NULL, &neval, &fail, NULL, E, P);
  ok(fail == GCUBA_FAIL_NULL, "integral NULL: fail %d", fail);
  f2 = 12345;
  llgVegas(2, 1, S(f4), NULL, 1, 1e-3, 0, 0, 1, 0, 1000000, 1000, 500, 1000,
           0, NULL, NULL, NULL, &f2, I, E, P);
  ok(f2 == GCUBA_FAIL_NULL, "neval NULL: fail %d", f2);
  gVegas(2, 1, S(f4), NULL, 1, 1e-3, 0, 0, 1, 0, 1000000, 1000, 500, 1000, 0,
         NULL, NULL, NULL, &f2, I, E, P);
  ok(f2 == GCUBA_FAIL_NULL, "gVegas, neval NULL: fail %d", f2);

  /* the integrand misbehaves */
  CALL(2, 1, S(fnan), 1, 1e-3, 0, 0, 1000000, 1000, 500, 1000, 0);
  ok(fail ==
     GCUBA_FAIL_NAN, "NaN from the integrand: fail %d (%s)", fail,
     gcuba_strerror(fail));
  CALL(2, 1, S(fabort), 1, 1e-3, 0, 0, 1000000, 10000, 500, 1000, 0);
  ok(fail ==
     GCUBA_FAIL_ABORT && neval == 0,
     "-999 from the integrand: fail %d at once (neval %lld)", fail, neval);
  CALL(4, 1, S(f4), 1, 1e-9, 0, 0, 30000, 1000, 1000, 1000, 0);
  ok(fail == 1 &&
     neval <= 30000 && I[0] > 0 && E[0] > 0,
     "maxeval reached: fail %d, neval %lld <= 30000, estimate %g +- %g",
     fail, neval, I[0], E[0]);
  CALL(4, 1, S(f4), 1, 1e-3, 0, 0, 100, 1000, 1000, 1000, 0);
  ok(fail == 1 &&
     neval <= 100 && neval > 0,
     "maxeval below nstart: one iteration of maxeval samples, fail %d, "
     "neval %lld", fail, neval);

  /* environment */
  setenv("GCUBA_VEGAS_NBINS", "1", 1);
  CALL(2, 1, S(f4), 1, 1e-3, 0, 0, 1000000, 1000, 500, 1000, 0);
  ok(fail ==
     GCUBA_FAIL_ENV, "GCUBA_VEGAS_NBINS=1: fail %d", fail);
  setenv("GCUBA_VEGAS_NBINS", "12x", 1);
  CALL(2, 1, S(f4), 1, 1e-3, 0, 0, 1000000, 1000, 500, 1000, 0);
  ok(fail ==
     GCUBA_FAIL_ENV, "GCUBA_VEGAS_NBINS=12x: fail %d", fail);
  unsetenv("GCUBA_VEGAS_NBINS");
  setenv("GCUBA_VEGAS_ADAPT", "-2", 1);
  CALL(2, 1, S(f4), 1, 1e-3, 0, 0, 1000000, 1000, 500, 1000, 0);
  ok(fail ==
     GCUBA_FAIL_ENV, "GCUBA_VEGAS_ADAPT=-2: fail %d", fail);
  unsetenv("GCUBA_VEGAS_ADAPT");
  setenv("GCUBA_DEVICE", "fpga", 1);
  CALL(2, 1, S(f4), 1, 1e-3, 0, 0, 1000000, 1000, 500, 1000, 0);
  ok(fail ==
     GCUBA_FAIL_ENV, "GCUBA_DEVICE=fpga: fail %d", fail);
  setenv("GCUBA_DEVICE", "gpu", 1);
  CALL(2, 1, f4_c, 1, 1e-3, 0, 0, 1000000, 1000, 500, 1000, 0);
  ok(fail == GCUBA_FAIL_NODEVICE || fail == GCUBA_FAIL_NOTAVAIL,
     "GCUBA_DEVICE=gpu, integrand built by cc: fail %d (%s)", fail,
     gcuba_strerror(fail));
  battery_backend();

  /* state files */
  fp = fopen("test-vegas-bad.state", "wb");
  if (fp) {
    fputs("this is not a state file\n", fp);
    fclose(fp);
  }
  vegas(3, 1, S(f4), 1, 1e-3, 0, 0, 1000000, 1000, 500, 1000, 0,
           "test-vegas-bad.state");
  ok(fail == GCUBA_FAIL_STATE,
     "garbage state file: fail %d", fail);
  remove("test-vegas-bad.state");
  vegas(3, 1, S(f4), 1, 1e-3, 0, 0, 1000000, 1000, 500, 1000, 0,
           "no-such-dir/x/y.state");
  ok(fail == GCUBA_FAIL_STATEIO,
     "state file in a missing directory: fail %d", fail);
  /* a state file of another problem (ndim 3 vs 2) */
  vegas(3, 1, S(f4), 1, 1e-12, 0, 0, 5000, 1000, 500, 1000, 0,
        "test-vegas-bad2.state");
  ok(fail == 1 && vegas(2, 1, S(f4), 1, 1e-3, 0, 0, 1000000, 1000, 500, 1000,
                        0, "test-vegas-bad2.state") == GCUBA_FAIL_STATE,
     "state file of another problem: fail %d", fail);
  remove("test-vegas-bad2.state");

  /* the int entry point saturates neval */
  gVegas(2, 1, S(f4), NULL, 1, 1e-3, 0, 0, 1, 0, 100000, 1000, 500, 1000, 0,
         NULL, NULL, &f2, &fail, &i2, &e2, &p2);
  n2 = f2;
  ok(fail >= 0 && n2 > 0 && n2 <= 100000, "gVegas: fail %d, neval %lld",
     fail, n2);
  return battery_done();
}
