/* tests/test-cuhre-suite.c -- gCuhre on the test suite (CPU backend, or
   whatever GCUBA_DEVICE selects): for each case and tolerance, fail = 0,
   the reported error within the tolerance and the TRUE relative error
   within epsrel.  Also every rule key.  This file is part of gcuba. */
#include <math.h>
#include <stdio.h>
#include "tap.h"
#include "suite.h"
#include "gpu.h"


static void one(int family, int d, double truth, double epsrel, int key)
{
  int nregions, fail;
  long long neval;
  double integral, error, prob, rel, tol;
  llgCuhre(d, 1, suite_family(family, SUITE_BACKEND), NULL, 1, epsrel, 1e-20, 0, 0,
           2000000000LL, key, NULL, NULL, &nregions, &neval, &fail,
           &integral, &error, &prob);
  rel = fabs(integral - truth) / fabs(truth);
  tol = epsrel * fabs(integral);
  ok(fail == 0 && error <= tol && rel <= epsrel && prob >= 0 && prob <= 1,
     "f%d %dD epsrel %.0e key %d: fail %d, %.15g +- %.2e, true rel. error "
     "%.2e, neval %lld, nregions %d, prob %.3f", family, d, epsrel, key,
     fail, integral, error, rel, neval, nregions, prob);
}

int main(void)
{
  /* (family, d, truth, deepest epsrel that runs in about a second) */
  static const struct {
    int family, d;
    double truth, deepest;
  } cases[] = {
    {3, 3, 1.0846560846560847e-02, 1e-9},
    {4, 5, 1.791326036748786e-06, 1e-5},
    {4, 6, 1.2700170928250806e-07, 1e-4},
    {6, 5, 1.9102946875697125e+05, 1e-6},
    {6, 6, 1.5477367885091207e+08, 1e-4},
    {7, 8, 1.4953692837579778e+06, 1e-5},
    {8, 8, 8.8798511754142762e+03, 1e-6},
    {3, 8, 2.2751965817917756e-10, 1e-3},
  };
  double g = sqrt(M_PI) / 25 * erf(12.5);
  int i;
  battery_start();
  plan(0);
  for (i = 0; i < (int)(sizeof cases / sizeof cases[0]); ++i) {
    double eps;
    for (eps = 1e-3; eps >= cases[i].deepest * 0.99; eps /= 10)
      one(cases[i].family, cases[i].d, cases[i].truth, eps, 0);
  }
  /* the other rules: key 7 and 9 in 3D, key 7 in 5D; key 13 (2D), 11
     (3D) are the defaults there */
  one(3, 3, 1.0846560846560847e-02, 1e-6, 7);
  one(3, 3, 1.0846560846560847e-02, 1e-6, 9);
  one(3, 3, 1.0846560846560847e-02, 1e-6, 11);
  one(4, 5, 1.791326036748786e-06, 1e-4, 7);
  one(4, 2, g * g, 1e-8, 13);
  one(4, 2, g * g, 1e-6, 9);
  one(4, 3, g * g * g, 1e-6, 0);
#ifdef SUITE_GPU
  /* the GPU and the CPU backends agree within their errors */
  {
    static const int fam[] = {3, 4, 6, 8}, dim[] = {3, 5, 5, 8};
    int k;
    for (k = 0; k < 4; ++k) {
      int nr, fl[2];
      long long ne;
      double in[2], er[2], pr;
      llgCuhre(dim[k], 1, suite_family(fam[k], 1), NULL, 1, 1e-5, 1e-20, 0,
               0, 2000000000LL, 0, NULL, NULL, &nr, &ne, &fl[0], &in[0],
               &er[0], &pr);
      setenv("GCUBA_DEVICE", "cpu", 1);
      llgCuhre(dim[k], 1, suite_family(fam[k], 0), NULL, 1, 1e-5, 1e-20, 0,
               0, 2000000000LL, 0, NULL, NULL, &nr, &ne, &fl[1], &in[1],
               &er[1], &pr);
      battery_backend();
      ok(fl[0] == 0 && fl[1] == 0 && fabs(in[0] - in[1]) <= er[0] + er[1],
         "f%d %dD: GPU %.15g +- %.2e, CPU %.15g +- %.2e", fam[k], dim[k],
         in[0], er[0], in[1], er[1]);
    }
  }
#endif
  return battery_done();
}
