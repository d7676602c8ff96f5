/* demo/demo-c.c -- gcuba's version of Cuba's demo: a few test functions
   through gCuhre and gVegas, printing what each returns.  A routine that
   is not available in this build says so.  This file is part of gcuba. */
#include <math.h>
#include <stdio.h>
#include <gcuba.h>

GCUBA_DECLARE_INTEGRAND(Integrand);
GCUBA_DECLARE_INTEGRAND(Gauss5);
GCUBA_DECLARE_INTEGRAND(Corner3);

#define NCOMP 1
#define USERDATA NULL
#define NVEC 1
#define EPSREL 1e-3
#define EPSABS 1e-12
#define VERBOSE 0
#define LAST 4
#define MINEVAL 0
#define MAXEVAL 50000000
#define KEY 0
#define SEED 1
#define NSTART 10000
#define NINCREASE 10000
#define NBATCH 1000
#define GRIDNO 0
#define STATEFILE NULL
#define SPIN NULL

static void report(const char *what, int fail, long long neval,
                   int nregions, double integral, double error, double prob,
                   double truth)
{
  printf("%-22s ", what);
  if (fail < 0) {
    printf("fail = %d: %s\n", fail, gcuba_strerror(fail));
    return;
  }
  printf("nregions %d  neval %lld  fail %d  [%s]\n", nregions, neval, fail,
         gcuba_last_backend());
  printf("%22s %.15g +- %.3g  p = %.3f  (true %.15g, rel. error %.1e)\n",
         "", integral, error, prob, truth, fabs(integral - truth) / truth);
}

static void run(const char *name, int ndim, gintegrand_t f, double truth)
{
  int nregions, neval, fail;
  double integral[NCOMP], error[NCOMP], prob[NCOMP];
  char what[64];

  snprintf(what, sizeof what, "gCuhre %s", name);
  gCuhre(ndim, NCOMP, f, USERDATA, NVEC, EPSREL, EPSABS, VERBOSE | LAST,
         MINEVAL, MAXEVAL, KEY, STATEFILE, SPIN, &nregions, &neval, &fail,
         integral, error, prob);
  report(what, fail, neval, nregions, integral[0], error[0], prob[0], truth);

  snprintf(what, sizeof what, "gVegas %s", name);
  gVegas(ndim, NCOMP, f, USERDATA, NVEC, EPSREL, EPSABS, VERBOSE, SEED,
         MINEVAL, MAXEVAL, NSTART, NINCREASE, NBATCH, GRIDNO, STATEFILE, SPIN,
         &neval, &fail, integral, error, prob);
  report(what, fail, neval, 0, integral[0], error[0], prob[0], truth);
}

int main(void)
{
  double g = sqrt(M_PI) / 25 * erf(12.5);
  run("sin*cos*exp 3D", 3, Integrand, (1 - cos(1.0)) * sin(1.0) * (M_E - 1));
  run("Gaussian 5D", 5, Gauss5, g * g * g * g * g);
  run("corner peak 3D", 3, Corner3, 1.0846560846560847e-02);
  return 0;
}
