/* tests/test-args.c -- argument checking of the entry points: every bad
   argument gives its documented fail code before anything is evaluated;
   the message table covers every code.  This file is part of gcuba. */
#include <math.h>
#include <string.h>
#include "tap.h"
#include "suite.h"

static int calls;
static int count_calls(const int *ndim, const double x[], const int *ncomp,
                       double f[], void *userdata)
{
  (void)ndim; (void)x; (void)userdata;
  ++calls;
  f[0] = 1;
  if (*ncomp > 1) f[1] = 1;
  return 0;
}

/* a gcubainit/gcubaexit hook: counts its calls, keeps the core it got */
static void hook(void *arg, const int *core)
{
  int *h = (int *)arg;
  ++h[0];
  h[1] = core ? *core : -1;
}

static int cuhre(int ndim, int ncomp, gintegrand_t f, int nvec, double epsrel,
                 double epsabs, int mineval, int maxeval, double *integral)
{
  int nregions = -1, neval = -1, fail = 12345;
  double error[4], prob[4];
  gCuhre(ndim, ncomp, f, NULL, nvec, epsrel, epsabs, 0, mineval, maxeval, 0,
         NULL, NULL, &nregions, &neval, &fail, integral, error, prob);
  return fail;
}

static int vegas(int ndim, int ncomp, gintegrand_t f, long long nstart,
                 long long nincrease, long long nbatch, int gridno)
{
  long long neval = -1;
  int fail = 12345;
  double integral[4], error[4], prob[4];
  llgVegas(ndim, ncomp, f, NULL, 1, 1e-3, 0, 0, 1, 0, 1000, nstart, nincrease,
           nbatch, gridno, NULL, NULL, &neval, &fail, integral, error, prob);
  return fail;
}

int main(void)
{
  gintegrand_t h = gcuba_host_integrand(count_calls, 0);
  struct gcuba_integrand bad;
  double integral[4];
  int fail, nregions, i, codes[] = {0, 1, -1, -2, -3, -4, -5, -6, -7, -8,
                                    -9, -10, -11, -12, -13, -14, -15, -16,
                                    -17, -18,
                                    -99};
  long long neval;
  plan(0);

  ok(h != NULL && h == gcuba_host_integrand(count_calls, 0),
     "gcuba_host_integrand gives one descriptor per function");
  ok(gcuba_host_integrand(NULL, 0) == NULL, "gcuba_host_integrand(NULL)");

  calls = 0;
  ok(cuhre(0, 1, h, 1, 1e-3, 0, 0, 1000, integral) == GCUBA_FAIL_NDIM,
     "gCuhre ndim = 0 -> fail -1");
  ok(cuhre(GCUBA_CUHRE_MAXDIM + 1, 1, h, 1, 1e-3, 0, 0, 1000, integral) ==
         GCUBA_FAIL_NDIM, "gCuhre ndim above the maximum -> fail -1");
  ok(cuhre(3, 0, h, 1, 1e-3, 0, 0, 1000, integral) == GCUBA_FAIL_NCOMP,
     "gCuhre ncomp = 0 -> fail -2");
  ok(cuhre(3, GCUBA_MAXCOMP + 1, h, 1, 1e-3, 0, 0, 1000, integral) ==
         GCUBA_FAIL_NCOMP, "gCuhre ncomp above the maximum -> fail -2");
  ok(cuhre(3, 1, NULL, 1, 1e-3, 0, 0, 1000, integral) == GCUBA_FAIL_NULL,
     "gCuhre NULL integrand -> fail -3");
  ok(cuhre(3, 1, h, 1, 1e-3, 0, 0, 1000, NULL) == GCUBA_FAIL_NULL,
     "gCuhre NULL integral -> fail -3");
  ok(cuhre(3, 1, h, 1, -1e-3, 0, 0, 1000, integral) == GCUBA_FAIL_TOLERANCE,
     "gCuhre epsrel < 0 -> fail -4");
  ok(cuhre(3, 1, h, 1, 1e-3, -1, 0, 1000, integral) == GCUBA_FAIL_TOLERANCE,
     "gCuhre epsabs < 0 -> fail -4");
  ok(cuhre(3, 1, h, 1, NAN, 0, 0, 1000, integral) == GCUBA_FAIL_TOLERANCE,
     "gCuhre epsrel NaN -> fail -4");
  ok(cuhre(3, 1, h, 1, 1e-3, 0, 2000, 1000, integral) == GCUBA_FAIL_EVALS,
     "gCuhre maxeval < mineval -> fail -5");
  ok(cuhre(3, 1, h, 1, 1e-3, 0, -1, 1000, integral) == GCUBA_FAIL_EVALS,
     "gCuhre mineval < 0 -> fail -5");
  ok(cuhre(3, 1, h, 0, 1e-3, 0, 0, 1000, integral) == GCUBA_FAIL_EVALS,
     "gCuhre nvec = 0 -> fail -5");
  bad = *h;
  bad.abi = GCUBA_ABI_VERSION + 1;
  ok(cuhre(3, 1, &bad, 1, 1e-3, 0, 0, 1000, integral) == GCUBA_FAIL_ABI,
     "gCuhre descriptor of another ABI -> fail -7");
  ok(calls == 0, "no integrand call for bad arguments (%d)", calls);
  fail = 777;
  gCuhre(3, 1, h, NULL, 1, 1e-3, 0, 0, 0, 1000, 0, NULL, NULL, &nregions,
         NULL, &fail, integral, integral + 1, integral + 2);
  ok(fail == GCUBA_FAIL_NULL, "gCuhre NULL neval -> fail -3");

  ok(vegas(0, 1, h, 1000, 500, 1000, 0) == GCUBA_FAIL_NDIM,
     "gVegas ndim = 0 -> fail -1");
  ok(vegas(GCUBA_MAXDIM + 1, 1, h, 1000, 500, 1000, 0) == GCUBA_FAIL_NDIM,
     "gVegas ndim above the maximum -> fail -1");
  ok(vegas(2, 0, h, 1000, 500, 1000, 0) == GCUBA_FAIL_NCOMP,
     "gVegas ncomp = 0 -> fail -2");
  ok(vegas(2, 1, h, 1, 500, 1000, 0) == GCUBA_FAIL_PARAM,
     "gVegas nstart = 1 -> fail -6");
  ok(vegas(2, 1, h, 1000, -1, 1000, 0) == GCUBA_FAIL_PARAM,
     "gVegas nincrease < 0 -> fail -6");
  ok(vegas(2, 1, h, 1000, 500, 0, 0) == GCUBA_FAIL_PARAM,
     "gVegas nbatch = 0 -> fail -6");
  ok(vegas(2, 1, h, 1000, 500, 1000, 11) == GCUBA_FAIL_PARAM,
     "gVegas gridno = 11 -> fail -6");
  fail = 777;
  llgVegas(2, 1, h, NULL, 1, 1e-3, 0, 0, 0, 0, 1000, 1000, 500, 1000, 0,
           NULL, NULL, &neval, &fail, NULL, integral, integral);
  ok(fail == GCUBA_FAIL_NULL, "gVegas NULL integral -> fail -3");
  ok(calls == 0, "no integrand call for bad arguments (%d)", calls);

  for (i = 0; i < (int)(sizeof codes / sizeof codes[0]); ++i) {
    const char *m = gcuba_strerror(codes[i]);
    if (!ok(m && strlen(m) >= 8 && strcmp(m, "unknown fail code"),
            "gcuba_strerror(%d) = \"%s\"", codes[i], m))
      break;
  }
  {
    int hin[2] = {0, 0}, hout[2] = {0, 0};
    gcubainit((void (*)())hook, hin);
    gcubaexit((void (*)())hook, hout);
    cuhre(3, 1, h, 1, 1e-3, 0, 0, 100000, integral);
    gcubainit(NULL, NULL);
    gcubaexit(NULL, NULL);
    cuhre(3, 1, h, 1, 1e-3, 0, 0, 100000, integral);
    ok(hin[0] == 1 && hout[0] == 1 && hin[1] == 32768 && hout[1] == 32768,
       "gcubainit/gcubaexit hooks called once each as f(arg, &core), core "
       "%d and %d (Cuba's master: 32768)", hin[1], hout[1]);
  }
  ok(!strcmp(gcuba_strerror(-12345), "unknown fail code"),
     "gcuba_strerror of an unknown code");
  ok(gcuba_device_count() >= 0, "gcuba_device_count() = %d",
     gcuba_device_count());
  return done();
}
