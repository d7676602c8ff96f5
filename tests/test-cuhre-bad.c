/* tests/test-cuhre-bad.c -- gCuhre on bad integrands and limits: NaN
   gives fail -9 at once, -999 gives -99 at once (from a point integrand
   and from an nvec host function), the memory limit gives the best
   estimate with fail 1, a bad GCUBA_MEMLIMIT gives -16.
   This file is part of gcuba. */
#include <math.h>
#include <stdlib.h>
#include "tap.h"
#include "suite.h"
#include "gpu.h"

static int abort_nvec(const int *ndim, const double x[], const int *ncomp,
                      double f[], void *userdata, const int *nvec,
                      const int *core)
{
  int i;
  (void)ndim; (void)ncomp; (void)userdata; (void)core;
  for (i = 0; i < *nvec; ++i) {
    f[i] = 1;
    if (x[i * *ndim] > 0.9) return -999;
  }
  return 0;
}

int main(void)
{
  int nregions, fail;
  long long neval;
  double integral, error, prob;
  battery_start();
  plan(0);

  llgCuhre(2, 1, S(fnan), NULL, 1, 1e-6, 0, 0, 0, 1000000000LL, 0, NULL,
           NULL, &nregions, &neval, &fail, &integral, &error, &prob);
  ok(fail == GCUBA_FAIL_NAN && neval < 10000,
     "NaN from the integrand: fail %d after %lld evaluations", fail, neval);
  llgCuhre(3, 1, S(fabort), NULL, 1, 1e-6, 0, 0, 0, 1000000000LL, 0, NULL,
           NULL, &nregions, &neval, &fail, &integral, &error, &prob);
  ok(fail == GCUBA_FAIL_ABORT && neval < 10000,
     "-999 from the integrand: fail %d after %lld evaluations", fail, neval);
  setenv("GCUBA_DEVICE", "auto", 1);
  llgCuhre(3, 1, gcuba_host_integrand((gcuba_host_fn)abort_nvec, 1), NULL,
           64, 1e-6, 0, 0, 0, 1000000000LL, 0, NULL, NULL, &nregions, &neval,
           &fail, &integral, &error, &prob);
  ok(fail == GCUBA_FAIL_ABORT, "-999 from an nvec host function: fail %d",
     fail);
  battery_backend();

  /* a region store of 2 MB cannot reach 1e-9 on f4 6D */
  setenv("GCUBA_MEMLIMIT", "2M", 1);
  llgCuhre(6, 1, S(f4), NULL, 1, 1e-9, 0, 0, 0, 1000000000LL, 0, NULL, NULL,
           &nregions, &neval, &fail, &integral, &error, &prob);
  ok(fail == 1 && fabs(integral - 1.2700170928250806e-07) <= 3 * error &&
         error > 0,
     "memory limit: fail %d, best estimate %.10g +- %.2e, %d regions", fail,
     integral, error, nregions);
  setenv("GCUBA_MEMLIMIT", "lots", 1);
  llgCuhre(3, 1, S(f3), NULL, 1, 1e-3, 0, 0, 0, 1000000000LL, 0, NULL, NULL,
           &nregions, &neval, &fail, &integral, &error, &prob);
  ok(fail == GCUBA_FAIL_ENV, "GCUBA_MEMLIMIT=lots: fail %d", fail);
  unsetenv("GCUBA_MEMLIMIT");
  return battery_done();
}
