/* keys.c -- choices a gCuhre user makes: the cubature rule (key), the flags
   that matter (GCUBA_NORELFINISH for integrands that change sign), and a
   state file that lets a run cut short by maxeval go on later.
   Integrands: keys-integrand.cu.  Every answer is checked against its
   closed form; exits 1 if any run fails or is off by more than epsrel.
   Run it with GCUBAVERBOSE=1 to see each iteration on stderr. */
#include <math.h>
#include <stdio.h>
#include <gcuba.h>

GCUBA_DECLARE_INTEGRAND(Corner);
GCUBA_DECLARE_INTEGRAND(Wave);

#define STATEFILE "keys.state"

/* integral of (1 + sum_i i x_i)^-(d+1) over [0,1]^d, by inclusion-exclusion
   over the corners: sum_S (-1)^|S| / (1 + sum_{i in S} i) / (d! d!) */
static double corner_exact(int d)
{
  double sum = 0, fact = 1;
  int s, i;
  for (s = 0; s < 1 << d; ++s) {
    int bits = 0, w = 1;
    for (i = 0; i < d; ++i)
      if (s >> i & 1) {
        ++bits;
        w += i + 1;
      }
    sum += (bits & 1 ? -1.0 : 1.0) / w;
  }
  for (i = 2; i <= d; ++i) fact *= i;
  return sum / (fact * fact);
}

/* one gCuhre call; 0 if it converged to within epsrel of truth */
static int run(const char *what, int ndim, gintegrand_t f, int key,
               int flags, int maxeval, const char *statefile, double epsrel,
               double truth, int want_fail)
{
  int nregions, neval, fail;
  double integral[1], error[1], prob[1];
  gCuhre(ndim, 1, f, NULL, 1, epsrel, 1e-30, flags, 0, maxeval, key,
         statefile, NULL, &nregions, &neval, &fail, integral, error, prob);
  printf("%-28s %.15g +- %.2g  neval %8d  fail %d\n", what, integral[0],
         error[0], neval, fail);
  if (fail != want_fail) {
    printf("  expected fail %d, got %d: %s\n", want_fail, fail,
           gcuba_strerror(fail));
    return 1;
  }
  return want_fail == 0 && !(fabs(integral[0] - truth) <= epsrel * truth);
}

int main(void)
{
  const double c3 = corner_exact(3), c5 = corner_exact(5);
  int bad = 0;
  FILE *fp;

  /* key: 0 picks Cuba's default (degree 13 in 2D, 11 in 3D, 9 above);
     7 and 9 work in any dimension, 11 only in 3D, 13 only in 2D (else
     the default is used).  Higher degree: more points per region, fewer
     regions. */
  bad |= run("corner 3D, key 0 (11 here)", 3, Corner, 0, 0, 10000000, NULL,
             1e-9, c3, 0);
  bad |= run("corner 3D, key 7", 3, Corner, 7, 0, 10000000, NULL, 1e-9, c3,
             0);
  bad |= run("corner 3D, key 9", 3, Corner, 9, 0, 10000000, NULL, 1e-9, c3,
             0);

  /* an integrand that changes sign: regions are not finished on their
     own relative error (errors of opposite signs could cancel) */
  bad |= run("wave 2D, GCUBA_NORELFINISH", 2, Wave, 0, GCUBA_NORELFINISH,
             10000000, NULL, 1e-8, 0.25, 0);

  /* a state file: the first call stops at maxeval (fail = 1) and leaves
     its state in STATEFILE; the second call, with a larger maxeval, goes
     on from there and removes the file once it converges (flags bit 4,
     GCUBA_KEEPSTATE, would keep it) */
  remove(STATEFILE);
  bad |= run("corner 5D, maxeval 30000", 5, Corner, 0, 0, 30000, STATEFILE,
             1e-8, c5, 1);
  bad |= run("corner 5D, resumed", 5, Corner, 0, 0, 100000000, STATEFILE,
             1e-8, c5, 0);
  if ((fp = fopen(STATEFILE, "r")) != NULL) {
    fclose(fp);
    printf("%s still there after success\n", STATEFILE);
    bad = 1;
  }
  return bad;
}
