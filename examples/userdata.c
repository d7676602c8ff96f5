/* userdata.c -- parameters for the integrand through userdata, on the GPU
   as on CPU threads.  gcuba_userdata_size(sizeof p) tells gcuba how many
   bytes userdata points to, so that it can copy the struct to the GPU
   before each call of this thread (the CPU backend passes the pointer
   unchanged).  Two parameter sets, two calls; each answer is checked
   against the closed form
     prod_i sqrt(pi)/(2 a_i) (erf(a_i (1 - u_i)) + erf(a_i u_i)).
   Integrand: userdata-integrand.cu.  Exits 1 if a run fails or is off. */
#include <math.h>
#include <stdio.h>
#include <gcuba.h>
#include "params.h"

GCUBA_DECLARE_INTEGRAND(Genz);

#define PI 3.14159265358979323846

static double exact(const struct params *p)
{
  double v = 1;
  int i;
  for (i = 0; i < p->ndim; ++i)
    v *= sqrt(PI) / (2 * p->a[i]) *
         (erf(p->a[i] * (1 - p->u[i])) + erf(p->a[i] * p->u[i]));
  return v;
}

static int run(const struct params *p)
{
  const double epsrel = 1e-6, truth = exact(p);
  int nregions, neval, fail;
  double integral[1], error[1], prob[1];
  /* userdata is a non-const void *, as in Cuba */
  gCuhre(p->ndim, 1, Genz, (void *)p, 1, epsrel, 1e-30, 0, 0, 100000000,
         0, NULL, NULL, &nregions, &neval, &fail, integral, error, prob);
  printf("%dD: %.15g +- %.3g  neval %d  fail %d  [%s]  true %.15g\n",
         p->ndim, integral[0], error[0], neval, fail, gcuba_last_backend(),
         truth);
  if (fail != 0) {
    printf("  fail %d: %s\n", fail, gcuba_strerror(fail));
    return 1;
  }
  return fabs(integral[0] - truth) <= epsrel * truth ? 0 : 1;
}

int main(void)
{
  struct params p = {3, {5, 10, 15}, {0.5, 0.3, 0.7}};
  int bad = 0;
  /* for the following calls of this thread: copy sizeof p bytes at
     userdata to the GPU (ignored on CPU threads) */
  gcuba_userdata_size(sizeof p);
  bad |= run(&p);
  /* new parameters: the next call copies the struct again */
  p.ndim = 4;
  p.a[0] = 2; p.a[1] = 3; p.a[2] = 4; p.a[3] = 5;
  p.u[0] = 0.2; p.u[1] = 0.4; p.u[2] = 0.6; p.u[3] = 0.8;
  bad |= run(&p);
  /* back to Cuba's behaviour: userdata passed as it is (NULL, or device
     or managed memory) */
  gcuba_userdata_size(0);
  return bad;
}
