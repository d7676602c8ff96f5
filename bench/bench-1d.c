/* bench/bench-1d.c -- `make bench-1d`: one-dimensional integrals.
   gCuhre with ndim = 1 (adaptive Gauss-Kronrod with extrapolation) and
   gRomberg on the backend in use, against QUADPACK as GSL ships it (QAG
   with the 21-point rule, and QAGS) on one CPU core, when configure
   found GSL.
   Two parts:
   1. Issue 22's integrals (I1 = int e^{cos x}, I2 = int sqrt(exp(cos(
      x^{x^x})))) and x^-0.9 at 1e-14 and 1e-10: value, true error,
      evaluations, time.
   2. The adversarial family of tests/test-cuhre-1d.c (x^a, log x,
      peaks, cos(wx), jumps, kinks, interior log singularities, x^a log x)
      at random parameters, epsrel 1e-4, 1e-7, 1e-10, 1e-12, maxeval
      --maxeval (QUADPACK: maxeval / 21 subintervals): per kind and
      method the calls converged, the false claims (fail = 0 / ier = 0
      with a true error above the tolerance), mean evaluations, and the
      time per call.
   Options: --n N (instances per kind, default 100), --maxeval M
   (default 1000000), --reps R (timed repetitions of part 1, default 5),
   --show (print each false claim), --deep N (part 3: gRomberg on I2
   with mineval = maxeval = N, every level up to what N pays for; 0, the
   default, skips it).
   This file is part of gcuba. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "suite.h"
#ifdef HAVE_GSL
#include <gsl/gsl_errno.h>
#include <gsl/gsl_integration.h>
#endif

static struct {
  int n, reps, show;
  long long maxeval, deep;
} opt = {100, 5, 0, 1000000, 0};

static gintegrand_t integrand;

static double now_ms(void)
{
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec * 1e3 + ts.tv_nsec * 1e-6;
}

typedef struct {
  int fail;
  long long neval;
  double integral, error;
} result;

enum { M_CUHRE, M_ROMBERG, M_QAG, M_QAGS, NMETHODS };
static const char *mname[NMETHODS] = {"gCuhre", "gRomberg", "GSL QAG21",
                                      "GSL QAGS"};

#ifdef HAVE_GSL
static long long gsl_calls;
static double gsl_f(double x, void *p)
{
  const int one = 1;
  double f;
  ++gsl_calls;
  integrand->fn(&one, &x, &one, &f, p);
  return f;
}
#endif

/* one call of method m on p; 0 when the method is not available */
static int call(int m, struct suite_1d *p, double epsrel, result *r)
{
  memset(r, 0, sizeof *r);
  if (m == M_CUHRE) {
    int nregions;
    double prob;
    gcuba_userdata_size(sizeof *p);
    llgCuhre(1, 1, integrand, p, 1, epsrel, 0, 0, 0, opt.maxeval, 0, NULL,
             NULL, &nregions, &r->neval, &r->fail, &r->integral, &r->error,
             &prob);
    gcuba_userdata_size(0);
    return 1;
  }
  if (m == M_ROMBERG) {
    double prob;
    gcuba_userdata_size(sizeof *p);
    llgRomberg(1, integrand, p, 1, epsrel, 0, 0, 0, opt.maxeval, &r->neval,
               &r->fail, &r->integral, &r->error, &prob);
    gcuba_userdata_size(0);
    /* an integrand infinite at 0 or 1 is gRomberg's fail -9: not a
       claim, counted as not converged */
    if (r->fail < 0) r->fail = 1;
    return 1;
  }
#ifdef HAVE_GSL
  {
    static gsl_integration_workspace *w;
    static size_t limit;
    gsl_function F;
    int ier;
    if (!w) {
      gsl_set_error_handler_off();
      limit = (size_t)(opt.maxeval / 21);
      if (limit < 1) limit = 1;
      w = gsl_integration_workspace_alloc(limit);
    }
    F.function = gsl_f;
    F.params = p;
    gsl_calls = 0;
    ier = m == M_QAG ? gsl_integration_qag(&F, 0, 1, 0, epsrel, limit,
                                           GSL_INTEG_GAUSS21, w,
                                           &r->integral, &r->error)
                     : gsl_integration_qags(&F, 0, 1, 0, epsrel, limit, w,
                                            &r->integral, &r->error);
    r->fail = ier == 0 ? 0 : 1;
    r->neval = gsl_calls;
    return 1;
  }
#else
  return 0;
#endif
}

static void part1(void)
{
  static const struct {
    const char *name;
    int kind;
    double c, epsrel;
  } cases[] = {{"I1", SUITE_1D_I1, 0, 1e-14}, {"I2", SUITE_1D_I2, 0, 1e-14},
               {"x^-0.9", SUITE_1D_POW, -0.9, 1e-10},
               {"x^-0.9", SUITE_1D_POW, -0.9, 1e-14},
               {"log x", SUITE_1D_LOG, 0, 1e-12}};
  unsigned i;
  int m, k;
  printf("%-8s %-7s %-10s %4s %-22s %9s %9s %8s %10s\n", "integral",
         "epsrel", "method", "fail", "value", "true err", "reported",
         "neval", "ms/call");
  for (i = 0; i < sizeof cases / sizeof cases[0]; ++i)
    for (m = 0; m < NMETHODS; ++m) {
      struct suite_1d p;
      result r;
      double t0, ms, truth;
      memset(&p, 0, sizeof p);
      p.kind[0] = cases[i].kind;
      p.c[0] = cases[i].c;
      truth = suite_1d_truth(&p, 0);
      if (!call(m, &p, cases[i].epsrel, &r)) continue;
      t0 = now_ms();
      for (k = 0; k < opt.reps; ++k) call(m, &p, cases[i].epsrel, &r);
      ms = (now_ms() - t0) / opt.reps;
      printf("%-8s %-7.0e %-10s %4d %-22.17g %9.2e %9.2e %8lld %10.4f\n",
             cases[i].name, cases[i].epsrel, mname[m], r.fail, r.integral,
             fabs(r.integral - truth) / fabs(truth),
             r.error / fabs(truth), r.neval, ms);
    }
}

static unsigned long long rng;
static double rnd(void)
{
  rng = rng * 6364136223846793005ULL + 1442695040888963407ULL;
  return (double)(rng >> 11) * 0x1.0p-53;
}

static void part2(void)
{
  static const char *names[SUITE_1D_KINDS] = {"", "", "x^a", "log x",
    "peak", "cos(wx)", "jump", "kink", "log|x-c|", "x^a log x"};
  static const double eps[4] = {1e-4, 1e-7, 1e-10, 1e-12};
  long long tconv[NMETHODS] = {0}, tfalse[NMETHODS] = {0};
  long long tev[NMETHODS] = {0}, tcalls = 0;
  double tms[NMETHODS] = {0};
  int kind, m;
  printf("\n%-10s %-10s %9s %6s %10s %10s\n", "kind", "method",
         "converged", "false", "mean neval", "us/call");
  for (kind = SUITE_1D_POW; kind < SUITE_1D_KINDS; ++kind)
    for (m = 0; m < NMETHODS; ++m) {
      long long conv = 0, fls = 0, ev = 0, calls = 0;
      double ms = 0;
      int i, e;
      rng = 0x9e3779b97f4a7c15ULL + (unsigned long long)kind;
      for (i = 0; i < opt.n; ++i) {
        struct suite_1d p;
        double c = rnd(), w = 0;
        if (kind == SUITE_1D_POW) c = -0.95 + 2.95 * c;
        if (kind == SUITE_1D_POWLOG) c = -0.9 + 2 * c;
        if (kind == SUITE_1D_PEAK) w = pow(10, -1 - 3 * rnd());
        if (kind == SUITE_1D_COS) w = pow(10, 3 * rnd());
        memset(&p, 0, sizeof p);
        p.kind[0] = kind;
        p.c[0] = c;
        p.w[0] = w;
        for (e = 0; e < 4; ++e) {
          result r;
          double t0 = now_ms(), t = suite_1d_truth(&p, 0);
          if (!call(m, &p, eps[e], &r)) goto next;
          ms += now_ms() - t0;
          ++calls;
          ev += r.neval;
          if (r.fail == 0) {
            ++conv;
            if (!(fabs(r.integral - t) <= eps[e] * fabs(t))) {
              ++fls;
              if (opt.show)
                printf("  false claim: %s %s c %.17g w %.17g epsrel %g: "
                       "%.17g +- %.3g, true %.17g, neval %lld\n",
                       mname[m], names[kind], c, w, eps[e], r.integral,
                       r.error, t, r.neval);
            }
          }
        }
      }
      printf("%-10s %-10s %4lld/%-4lld %6lld %10lld %10.1f\n", names[kind],
             mname[m], conv, calls, fls, ev / calls, 1e3 * ms / calls);
      tconv[m] += conv;
      tfalse[m] += fls;
      tev[m] += ev;
      tms[m] += ms;
      if (m == 0) tcalls += calls;
    next:;
    }
  for (m = 0; m < NMETHODS; ++m)
    if (tev[m])
      printf("%-10s %-10s %4lld/%-4lld %6lld %10lld %10.1f\n", "all",
             mname[m], tconv[m], tcalls, tfalse[m], tev[m] / tcalls,
             1e3 * tms[m] / tcalls);
}

/* gRomberg on I2 down every level that opt.deep evaluations pay for */
static void part3(void)
{
  struct suite_1d p;
  long long neval;
  int fail;
  double I, E, prob, t0, ms, truth;
  memset(&p, 0, sizeof p);
  p.kind[0] = SUITE_1D_I2;
  truth = suite_1d_truth(&p, 0);
  gcuba_userdata_size(sizeof p);
  t0 = now_ms();
  llgRomberg(1, integrand, &p, 1, 1e-15, 0, 0, opt.deep, opt.deep, &neval,
             &fail, &I, &E, &prob);
  ms = now_ms() - t0;
  gcuba_userdata_size(0);
  /* (fail 1: mineval = maxeval forces the run to its budget) */
  printf("\ngRomberg on I2, mineval = maxeval = %lld: fail %d, %.17g, true "
         "error %.2e, reported %.2e, neval %lld, %.1f ms (%.3g G "
         "evaluations/s)\n", opt.deep, fail, I, fabs(I - truth) / truth,
         E / truth, neval, ms, neval / ms * 1e-6);
}

int main(int argc, char **argv)
{
  int i;
  const char *dev = getenv("GCUBA_DEVICE");
  for (i = 1; i < argc; ++i) {
    if (!strcmp(argv[i], "--n") && i + 1 < argc) opt.n = atoi(argv[++i]);
    else if (!strcmp(argv[i], "--maxeval") && i + 1 < argc)
      opt.maxeval = atoll(argv[++i]);
    else if (!strcmp(argv[i], "--reps") && i + 1 < argc)
      opt.reps = atoi(argv[++i]);
    else if (!strcmp(argv[i], "--show"))
      opt.show = 1;
    else if (!strcmp(argv[i], "--deep") && i + 1 < argc)
      opt.deep = atoll(argv[++i]);
    else {
      fprintf(stderr, "usage: %s [--n N] [--maxeval M] [--reps R] "
              "[--show] [--deep N]\n",
              argv[0]);
      return 2;
    }
  }
  integrand = f1d_c;
  (void)dev;
#ifdef SUITE_HAVE_CU
  if (!(dev && !strcmp(dev, "cpu")) && gcuba_device_count() > 0)
    integrand = f1d_cu;
#endif
  {
    /* the backend gCuhre uses */
    struct suite_1d p;
    result r;
    memset(&p, 0, sizeof p);
    call(M_CUHRE, &p, 1e-3, &r);
    printf("bench-1d: gCuhre on the %s backend; QUADPACK: %s; maxeval "
           "%lld, %d instances per kind\n\n", gcuba_last_backend(),
#ifdef HAVE_GSL
           "GSL, one core",
#else
           "not built (no GSL)",
#endif
           opt.maxeval, opt.n);
  }
  part1();
  part2();
  if (opt.deep > 0) part3();
  gcuba_release();
  return 0;
}
