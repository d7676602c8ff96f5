/* tests/test-integrand.c -- GCUBA_INTEGRAND under a C compiler: the
   descriptor it defines, its host function on known values, userdata,
   -999; on a CUDA build the same source compiled by nvcc (suite-cu.cu)
   gives bit-identical host values and carries GPU launchers.
   This file is part of gcuba. */
#include <math.h>
#include <string.h>
#include "tap.h"
#include "suite.h"

static double eval(gintegrand_t f, int ndim, const double *x, int ncomp,
                   double *out, void *ud, int *ret)
{
  *ret = f->fn(&ndim, x, &ncomp, out, ud);
  return out[0];
}

static int nvec_calls;
static int nvec_fn(const int *ndim, const double x[], const int *ncomp,
                   double f[], void *userdata, const int *nvec,
                   const int *core)
{
  int i;
  (void)ndim; (void)ncomp; (void)userdata; (void)core;
  ++nvec_calls;
  for (i = 0; i < *nvec; ++i) f[i] = x[2 * i] + x[2 * i + 1];
  return 0;
}

int main(void)
{
  double x8[8], f[3], half[8], one[8];
  int i, r;
  struct suite_param p = {3.0, 2};
  gintegrand_t hv;
  plan(0);
  for (i = 0; i < 8; ++i) {
    half[i] = 0.5;
    one[i] = 1;
    x8[i] = 0.1 * (i + 1);
  }
  ok(f4_c->abi == GCUBA_ABI_VERSION && f4_c->kind == GCUBA_DESC_POINT,
     "descriptor carries the ABI version and the point kind");
  ok(!strcmp(f4_c->name, "f4_c"), "descriptor name is \"%s\"", f4_c->name);
  ok(f4_c->gpu == NULL, "a C-compiled descriptor has no GPU code");
  ok(eval(f4_c, 5, half, 1, f, NULL, &r) == 1 && r == 0,
     "f4 at the centre is 1");
  ok(fabs(eval(f1_c, 8, x8, 1, f, NULL, &r) - cos(20.4)) < 1e-12,
     "f1 = cos(sum i x_i)");
  ok(fabs(eval(f3_c, 3, one, 1, f, NULL, &r) - 1 / 2401.0) < 1e-18,
     "f3 3D at (1,1,1) = 7^-4");
  ok(fabs(eval(f8_c, 8, one, 1, f, NULL, &r) - pow(8, 7.5)) <
         1e-12 * pow(8, 7.5), "f8 at (1,..,1) = 8^7.5");
  ok(eval(f6_c, 5, one, 1, f, NULL, &r) == 0, "f6 is 0 outside its box");
  eval(f43c_c, 3, half, 3, f, NULL, &r);
  ok(f[0] == 1 && fabs(f[1] - pow(4, -4)) < 1e-18 && f[2] == 2,
     "three components evaluated");
  ok(fabs(eval(fparam_c, 2, x8, 1, f, &p, &r) - 3 * 0.01 * 0.04) < 1e-16,
     "userdata reaches the integrand");
  x8[0] = 0.9;
  eval(fabort_c, 2, x8, 1, f, NULL, &r);
  ok(r == -999, "the integrand's -999 comes back");

  hv = gcuba_host_integrand((gcuba_host_fn)nvec_fn, 1);
  ok(hv && hv->kind == GCUBA_DESC_NVEC && hv->gpu == NULL,
     "gcuba_host_integrand(f, nvec form) descriptor");

#ifdef SUITE_HAVE_CU
  {
    int fam, d, same = 1, k;
    double y[8], fc[3], fg[3];
    unsigned s = 12345;
    for (fam = 1; fam <= 8; ++fam)
      for (k = 0; k < 200; ++k) {
        for (d = 0; d < 8; ++d) {
          s = s * 1103515245u + 12345u;
          y[d] = (s >> 8) / 16777216.0;
        }
        eval(suite_family(fam, 0), 8, y, 1, fc, NULL, &r);
        eval(suite_family(fam, 1), 8, y, 1, fg, NULL, &r);
        if (memcmp(fc, fg, sizeof(double))) same = 0;
      }
    ok(same, "host functions of the cc and nvcc builds agree bit for bit");
    ok(f4_cu->gpu != NULL && f4_cu->abi == GCUBA_ABI_VERSION,
       "the nvcc-built descriptor carries GPU launchers");
  }
#else
  diag("built without CUDA: the nvcc half of this test is in CUDA builds");
#endif
  return done();
}
