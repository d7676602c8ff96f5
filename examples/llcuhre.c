/* llcuhre.c -- llgCuhre: Cuba's llCuhre with a g in front, whose counts
   (nvec, mineval, maxeval, neval) are long long.  An int maxeval stops at
   2^31 - 1 evaluations, which a GPU spends in a fraction of a second;
   here maxeval is 3e9.  maxeval is a limit, not a target: this run
   converges long before it (a few million evaluations).
   Integrand: llcuhre-integrand.cu, exp(-625 |x - 1/2|^2) in 5D, whose
   integral is (sqrt(pi)/25 erf(12.5))^5.  Exits 1 if the run fails or
   is off by more than epsrel. */
#include <math.h>
#include <stdio.h>
#include <gcuba.h>

GCUBA_DECLARE_INTEGRAND(Gauss);

#define PI 3.14159265358979323846

int main(void)
{
  const int ndim = 5;
  const double epsrel = 1e-5;
  const long long maxeval = 3000000000LL; /* more than 2^31 */
  const double g = sqrt(PI) / 25 * erf(12.5);
  const double truth = g * g * g * g * g;
  long long neval;
  int nregions, fail;
  double integral[1], error[1], prob[1];

  llgCuhre(ndim, 1, Gauss, NULL, 1 /* nvec */, epsrel, 1e-30 /* epsabs */,
           0 /* flags */, 0 /* mineval */, maxeval, 0 /* key */,
           NULL /* statefile */, NULL /* spin */, &nregions, &neval, &fail,
           integral, error, prob);
  printf("%.15g +- %.3g  neval %lld of at most %lld  nregions %d  fail %d"
         "  [%s]\n", integral[0], error[0], neval, maxeval, nregions, fail,
         gcuba_last_backend());
  printf("true value %.15g, relative error %.2g (epsrel %g)\n", truth,
         fabs(integral[0] - truth) / truth, epsrel);
  if (fail != 0) {
    printf("fail %d: %s\n", fail, gcuba_strerror(fail));
    return 1;
  }
  return fabs(integral[0] - truth) <= epsrel * truth ? 0 : 1;
}
