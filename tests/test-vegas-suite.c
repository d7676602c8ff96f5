/* tests/test-vegas-suite.c -- gVegas on the test suite (CPU backend: the
   integrands here are built by cc): for each case and tolerance, fail = 0,
   the true value within 4 reported errors, the reported error within the
   tolerance, 0 <= prob <= 1.  Also Cuba's demo parameters (nstart 1000,
   nincrease 500), with which Cuba's Vegas claims success 14% off on f4 8D:
   gVegas must either be right or say fail = 1.  This file is part of
   gcuba. */
#include <math.h>
#include <stdio.h>
#include "tap.h"
#include "suite.h"
#include "gpu.h"

static void one(int family, int d, double truth, double epsrel,
                long long nstart, long long nincrease, int seed)
{
  int fail;
  long long neval;
  double integral, error, prob, pull;
  llgVegas(d, 1, suite_family(family, SUITE_BACKEND), NULL, 1, epsrel, 1e-20, 0, seed,
           0, 500000000LL, nstart, nincrease, 1000, 0, NULL, NULL, &neval,
           &fail, &integral, &error, &prob);
  pull = fabs(integral - truth) / error;
  ok(fail == 0 && pull <= 4 && error <= epsrel * fabs(integral) &&
     prob >= 0 && prob <= 1,
     "f%d %dD epsrel %.0e nstart %lld nincrease %lld: fail %d, %.12g +- "
     "%.2e, |I - true| = %.2f error (true rel. error %.1e), prob %.3f, "
     "neval %lld", family, d, epsrel, nstart, nincrease, fail, integral,
     error, pull, fabs(integral - truth) / fabs(truth), prob, neval);
}

/* Cuba's demo parameters: a claim must be true */
static void demo(int family, int d, double truth, double epsrel, int seed)
{
  int fail;
  long long neval;
  double integral, error, prob, pull;
  llgVegas(d, 1, suite_family(family, SUITE_BACKEND), NULL, 1, epsrel, 1e-20, 0, seed,
           0, 20000000LL, 1000, 500, 1000, 0, NULL, NULL, &neval, &fail,
           &integral, &error, &prob);
  pull = fabs(integral - truth) / error;
  ok(fail != 0 || pull <= 4,
     "Cuba's demo parameters, f%d %dD epsrel %.0e seed %d: fail %d, %.10g "
     "+- %.2e (%.2f errors off), neval %lld", family, d, epsrel, seed, fail,
     integral, error, pull, neval);
}

int main(void)
{
  static const struct {
    int family, d;
    double truth, epsrel;
    long long nstart, nincrease;
  } cases[] = {
    {2, 6, 1.2868879901109878e+13, 1e-3, 10000, 10000},
    {3, 3, 1.0846560846560847e-02, 1e-3, 10000, 10000},
    {4, 5, 1.791326036748786e-06, 1e-3, 10000, 10000},
    {5, 8, 2.425217625641885e-06, 1e-3, 10000, 10000},
    {6, 6, 1.5477367885091207e+08, 1e-3, 100000, 100000},
    /* 1e-4 where it takes a second or two on two cores */
    {2, 6, 1.2868879901109878e+13, 1e-4, 100000, 100000},
    {3, 3, 1.0846560846560847e-02, 1e-4, 100000, 100000},
  };
  int i;
  battery_start();
  plan(0);
  for (i = 0; i < (int)(sizeof cases / sizeof cases[0]); ++i)
    one(cases[i].family, cases[i].d, cases[i].truth, cases[i].epsrel,
        cases[i].nstart, cases[i].nincrease, 1);
  demo(4, 8, 6.3838021900043837e-10, 1e-3, 1);
  demo(4, 8, 6.3838021900043837e-10, 1e-3, 2);
  demo(3, 8, 2.2751965817917756e-10, 1e-3, 1);
  demo(6, 5, 1.9102946875697125e+05, 1e-3, 1);
  return battery_done();
}
