/* tests/test-vegas-hard.c -- gVegas on integrands of the kinds that made
   it claim falsely (CPU backend, epsrel 1e-3, Cuba's nstart 1000 and
   nincrease 500, seeds 0 to 10): a Gaussian in a corner, a product of
   steps at non-dyadic points, a product of narrow Lorentzians off the
   centre, an x^-1/2 singularity on one face and x^-0.9 y^-0.9 at a
   corner.  Asserts, for every call, that fail = 0 puts the true value
   within 4 errors, and within epsrel for seed 0 (Sobol points, whose
   error is conservative); that the four integrable-with-finite-variance
   kinds converge for every seed; that x^-0.9 y^-0.9, whose variance the
   map cannot make finite, is never claimed (before the single-sample
   rule, 8 of 21 seeds claimed it, every one more than 4 errors off).
   This file is part of gcuba. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include "tap.h"
#include "gcuba.h"

#define EPSREL 1e-3
#define MAXEVAL 1000000
#define NSEED 11

struct hard {
  int kind;
};

static const double cut[6] = {0.3, 0.61, 0.123, 0.77, 0.45, 0.2};

GCUBA_INTEGRAND(hardf)(const int *ndim, const double x[], const int *ncomp,
                       double f[], void *userdata)
{
  const struct hard *h = (const struct hard *)userdata;
  double v = 1, t;
  int i;
  (void)ncomp;
  for (i = 0; i < *ndim; ++i) switch (h->kind) {
    case 0: /* Gaussian at 0.02, width 0.05 */
      t = (x[i] - 0.02) / 0.05;
      v *= exp(-t * t);
      break;
    case 1: /* steps */
      v *= x[i] < cut[i] ? 1.0 : 0.25;
      break;
    case 2: /* Lorentzian at 0.3, half-width 0.01 */
      t = x[i] - 0.3;
      v *= 0.01 / (t * t + 1e-4);
      break;
    case 3: /* x^-1/2 on the first axis */
      if (i == 0) v /= sqrt(x[i]);
      break;
    default: /* x^-0.9 y^-0.9 */
      if (i < 2) v *= pow(x[i], -0.9);
      break;
    }
  f[0] = v;
  return 0;
}

static double truth(int kind, int d)
{
  double T = 1;
  int i;
  for (i = 0; i < d; ++i) switch (kind) {
    case 0:
      T *= 0.05 * sqrt(M_PI) / 2 * (erf(0.98 / 0.05) + erf(0.02 / 0.05));
      break;
    case 1:
      T *= cut[i] + 0.25 * (1 - cut[i]);
      break;
    case 2:
      T *= atan(0.7 / 0.01) + atan(0.3 / 0.01);
      break;
    case 3:
      T *= i == 0 ? 2 : 1;
      break;
    default:
      T *= i < 2 ? 10 : 1;
      break;
    }
  return T;
}

static void battery(int kind, int d, const char *name)
{
  struct hard h;
  const double T = truth(kind, d);
  int seed, conv = 0, far = 0, bad0 = 0, neg = 0;
  long long total = 0;
  h.kind = kind;
  for (seed = 0; seed < NSEED; ++seed) {
    long long neval;
    int fail;
    double I, E, P;
    llgVegas(d, 1, hardf, &h, 1, EPSREL, 1e-20, 0, seed, 0, MAXEVAL, 1000,
             500, 1000, 0, NULL, NULL, &neval, &fail, &I, &E, &P);
    total += neval;
    neg += fail < 0;
    if (fail) continue;
    ++conv;
    far += !(fabs(I - T) <= 4 * E);
    bad0 += seed == 0 && !(fabs(I - T) <= EPSREL * fabs(T));
  }
  ok(!neg && !far && !bad0 && (kind == 4 ? conv == 0 : conv == NSEED),
     "%s %dD, seeds 0-%d: %d claims, %d of them more than 4 errors off, "
     "seed 0 %s; %.0f evaluations on average", name, d, NSEED - 1, conv,
     far, bad0 ? "off by more than epsrel" : "within epsrel or not claimed",
     (double)total / NSEED);
}

int main(void)
{
  setenv("GCUBA_DEVICE", "cpu", 1);
  plan(6);
  battery(0, 3, "Gaussian in a corner");
  battery(1, 4, "steps at 0.3, 0.61, 0.123, 0.77");
  battery(2, 3, "Lorentzians at 0.3, half-width 0.01");
  battery(3, 3, "x^-1/2 on a face");
  battery(4, 2, "x^-0.9 y^-0.9 at a corner");
  battery(4, 3, "x^-0.9 y^-0.9 at a corner");
  return done();
}
