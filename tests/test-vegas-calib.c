/* tests/test-vegas-calib.c -- gVegas's error is a one-sigma error: over 100
   seeds, on cheap integrands, |I - true| <= error in 60-76% of the runs
   (68% expected), every run converged and none 4 errors off.
   This file is part of gcuba. */
#include <math.h>
#include <stdio.h>
#include "tap.h"
#include "suite.h"
#include "gpu.h"

static void calib(int family, int d, double truth, double epsrel,
                  long long nstart, long long nincrease)
{
  int seed, fail, within = 0, conv = 0, far = 0;
  long long neval, total = 0;
  double integral, error, prob, pull, worst = 0;
  for (seed = 1; seed <= 100; ++seed) {
    llgVegas(d, 1, suite_family(family, SUITE_BACKEND), NULL, 1, epsrel, 1e-20, 0, seed,
             0, 50000000, nstart, nincrease, 1000, 0, NULL, NULL, &neval,
             &fail, &integral, &error, &prob);
    pull = fabs(integral - truth) / error;
    conv += fail == 0;
    within += fail == 0 && pull <= 1;
    far += fail == 0 && pull > 4;
    if (pull > worst) worst = pull;
    total += neval;
  }
  ok(conv == 100 && far == 0 && within >= 60 && within <= 76,
     "f%d %dD epsrel %.0e, 100 seeds: %d converged, |I - true| <= error in "
     "%d, worst %.2f errors, %.3g evaluations on average", family, d, epsrel,
     conv, within, worst, total / 100.0);
}

int main(void)
{
  battery_start();
  plan(2);
  calib(3, 3, 1.0846560846560847e-02, 1e-2, 1000, 500);
  calib(4, 5, 1.791326036748786e-06, 1e-2, 1000, 1000);
  return battery_done();
}
