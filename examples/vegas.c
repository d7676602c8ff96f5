/* vegas.c -- gVegas in C: Cuba's Vegas call with a g in front.
   The integrand is in vegas-integrand.cu.  Integrates exp(-100 |x - 1/2|^2)
   over the 4D unit cube twice, with Cuba's iteration schedule and with
   GCUBA_VEGASAUTO, and checks both answers against the closed form
   (sqrt(pi)/10 erf(5))^4.  Exits 1 if a run fails or is off. */
#include <math.h>
#include <stdio.h>
#include <gcuba.h>

GCUBA_DECLARE_INTEGRAND(Peak);

#define NDIM 4
#define PI 3.14159265358979323846

static int run(const char *what, int flags, int nstart, int nincrease,
               double truth)
{
  int neval, fail;
  double integral[1], error[1], prob[1];
  gVegas(NDIM, 1, Peak, NULL, 1 /* nvec */, 1e-3 /* epsrel */,
         1e-12 /* epsabs */, flags, 1 /* seed */, 0 /* mineval */,
         50000000 /* maxeval */, nstart, nincrease, 1000 /* nbatch */,
         0 /* gridno */, NULL /* statefile */, NULL /* spin */, &neval,
         &fail, integral, error, prob);
  printf("%-18s %.10g +- %.3g  neval %d  fail %d  prob %.3f  [%s]\n", what,
         integral[0], error[0], neval, fail, prob[0], gcuba_last_backend());
  /* fail = 0 claims error <= epsrel |integral|; the true value should lie
     within a few errors */
  if (fail != 0) {
    printf("  fail %d: %s\n", fail, gcuba_strerror(fail));
    return 1;
  }
  if (!(fabs(integral[0] - truth) <= 4 * error[0])) {
    printf("  off by %.3g (true value %.10g)\n", integral[0] - truth, truth);
    return 1;
  }
  return 0;
}

int main(void)
{
  const double g = sqrt(PI) / 10 * erf(5.0), truth = g * g * g * g;
  int bad = 0;
  /* Cuba's schedule: iteration k takes nstart + k nincrease samples */
  bad |= run("Cuba's schedule", 0, 10000, 10000, truth);
  /* gcuba's flag: the grid adapts on iterations of nstart samples, then
     gVegas sizes the iterations from the variance (good on a GPU) */
  bad |= run("GCUBA_VEGASAUTO", GCUBA_VEGASAUTO, 100000, 0, truth);
  return bad;
}
