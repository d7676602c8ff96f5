/* tests/test-vegas-calib.c -- gVegas's error is a one-sigma error: over 400
   seeds, on cheap integrands, |I - true| <= error in 60-76% of the runs
   (68% expected; with 400 runs the binomial spread is 2.3%, so the range
   is 3.4 spreads wide each side: over 100 seeds it was 1.7, and seeds
   1-100 alone gave 82% on f3 3D where 1000 seeds give 69.6%), every run
   converged and none 4 errors off.
   This file is part of gcuba. */
#include <math.h>
#include <stdio.h>
#include "tap.h"
#include "suite.h"
#include "gpu.h"

#define NSEED 400

static void calib(int family, int d, double truth, double epsrel,
                  long long nstart, long long nincrease)
{
  int seed, fail, within = 0, conv = 0, far = 0;
  long long neval, total = 0;
  double integral, error, prob, pull, worst = 0;
  for (seed = 1; seed <= NSEED; ++seed) {
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
  ok(conv == NSEED && far == 0 && within >= NSEED * 60 / 100 &&
     within <= NSEED * 76 / 100,
     "f%d %dD epsrel %.0e, %d seeds: %d converged, |I - true| <= error in "
     "%d, worst %.2f errors, %.3g evaluations on average", family, d, epsrel,
     NSEED, conv, within, worst, total / (double)NSEED);
}

int main(void)
{
  battery_start();
  plan(2);
  calib(3, 3, 1.0846560846560847e-02, 1e-2, 1000, 500);
  calib(4, 5, 1.791326036748786e-06, 1e-2, 1000, 1000);
  return battery_done();
}
