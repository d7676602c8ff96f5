/* vector.c -- a vector integrand: ncomp = 3 components in one gCuhre call
   (vector-integrand.cu).  Every component must meet the tolerance for
   fail = 0; integral[], error[] and prob[] have ncomp entries.  Closed
   forms: (e - 1)^3, (2/pi)^3 and 1.  Exits 1 if the run fails or a
   component is off by more than epsrel. */
#include <math.h>
#include <stdio.h>
#include <gcuba.h>

GCUBA_DECLARE_INTEGRAND(Vector);

#define NCOMP 3
#define PI 3.14159265358979323846

int main(void)
{
  const double e1 = exp(1.0) - 1, epsrel = 1e-7;
  const double truth[NCOMP] = {e1 * e1 * e1, 8 / (PI * PI * PI), 1};
  int nregions, neval, fail, c, bad = 0;
  double integral[NCOMP], error[NCOMP], prob[NCOMP];

  gCuhre(3, NCOMP, Vector, NULL, 1, epsrel, 1e-30, 0, 0, 100000000, 0, NULL,
         NULL, &nregions, &neval, &fail, integral, error, prob);
  printf("neval %d  nregions %d  fail %d  [%s]\n", neval, nregions, fail,
         gcuba_last_backend());
  for (c = 0; c < NCOMP; ++c) {
    const double rel = fabs(integral[c] - truth[c]) / truth[c];
    printf("[%d] %.15g +- %.3g  true %.15g  relative error %.2g\n", c + 1,
           integral[c], error[c], truth[c], rel);
    if (!(rel <= epsrel)) bad = 1;
  }
  if (fail != 0) printf("fail %d: %s\n", fail, gcuba_strerror(fail));
  return fail != 0 || bad;
}
