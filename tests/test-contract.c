/* tests/test-contract.c -- the C code is built without contraction of
   a*b + c into fused multiply-adds (configure adds -ffp-contract=off to
   AM_CFLAGS), so that CFLAGS which enable them (-march=native on a CPU
   with FMA) keep the bits of the default build and of the GPU: the code
   calls fma() where it wants one.  This program is built with the same
   flags as the library.  a*b = 1 - 2^-60 rounds to 1, so a*b + c is 0
   when the product is rounded and -2^-60 when it is fused.  This file is
   part of gcuba. */
#include "tap.h"

/* apart, so that the product is not shared with the reference below */
#if defined(__GNUC__)
__attribute__((noinline))
#endif
static double madd(double a, double b, double c)
{
  return a * b + c;
}

int main(void)
{
  volatile double va = 1.0 + 0x1p-30, vb = 1.0 - 0x1p-30, vc = -1.0;
  volatile double p = va * vb; /* rounded: 1 */
  const double ref = p + vc, r = madd(va, vb, vc);
  plan(1);
  ok(r == ref && r == 0.0,
     "a*b + c is rounded twice, as in the default build (%a)", r);
  return done();
}
