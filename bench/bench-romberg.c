/* bench/bench-romberg.c -- gRomberg measured: the I1 and I2 study
   (bench/RESULTS.md).

     bench-romberg [--maxeval N] [--threads N]

   1. gRomberg at epsrel 1e-8 .. 1e-15 on I1 = int e^{cos x} and
      I2 = int sqrt(exp(cos(x^x^x))): fail, evaluations, claimed and true
      errors, seconds.
   2. Plain Romberg on I2 level by level up to maxeval (default 1e9): one
      gRomberg call with mineval = maxeval and verbosity 1, its per-level
      lines (stderr, captured) parsed: trapezoid T_k, diagonal D_k, the
      claimed error, against the true error.
   3. Removing the known singular terms.  Near 0, x^(x^x) = x (1 +
      x ln^2 x + ...), so f(x) = e^{1/2} (1 - x^2/4 - x^3 ln^2 x / 2 + ...)
      and the trapezoid error has, beyond c h^2, terms h^4 (a L^2 + b L +
      c), h^5 (L^3, L^2, L, 1), ... (L = ln h; Navot's expansion of x^b
      ln^j x).  (a) generalised Richardson: I and the coefficients of the
      first n of these terms solved from the last n + 1 trapezoid sums (in
      long double); (b) subtraction: gRomberg on f(x) + (e^{1/2}/2) x^3
      ln^2 x, plus the integral of the subtracted term, -e^{1/2}/64.
   This file is part of gcuba. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include "romberg-cases.h"

/* f minus its leading singular term s(x) = -(e^{1/2}/2) x^3 ln^2 x */
GCUBA_INTEGRAND(romb_i2sub)(const int *ndim, const double x[],
                            const int *ncomp, double f[], void *userdata)
{
  const double t = x[0], l = t > 0 ? log(t) : 0;
  f[0] = sqrt(exp(cos(pow(t, pow(t, t))))) +
         0.82436063535006407 * t * t * t * l * l;
  return 0;
}
/* int_0^1 s = -(e^{1/2}/2) / 32 */
#define SUB_INTEGRAL (-0.82436063535006407 / 32)

static double now(void)
{
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec + ts.tv_nsec * 1e-9;
}

#define MAXL 60
typedef struct {
  int n;
  long long neval[MAXL];
  double D[MAXL], err[MAXL], T[MAXL];
} levels;

/* one gRomberg call to maxeval with its per-level lines parsed */
static void level_run(gintegrand_t f, long long maxeval, levels *lv,
                      double *secs)
{
  char name[] = "/tmp/bench-romberg-XXXXXX", line[512];
  int fd = mkstemp(name), saved = dup(2), fail;
  long long neval;
  double I, E, P, t0;
  FILE *in;
  memset(lv, 0, sizeof *lv);
  fflush(stderr);
  dup2(fd, 2);
  t0 = now();
  llgRomberg(1, f, NULL, 1, 0, 0, 1, maxeval, maxeval, &neval, &fail, &I,
             &E, &P);
  *secs = now() - t0;
  fflush(stderr);
  dup2(saved, 2);
  close(saved);
  in = fdopen(fd, "r");
  rewind(in);
  while (fgets(line, sizeof line, in)) {
    int k;
    long long n;
    double d, e, t;
    if (sscanf(line, "llgRomberg: level %d: %lld evaluations, %lf +- %lf "
               "(trapezoid %lf", &k, &n, &d, &e, &t) == 5 && k < MAXL) {
      lv->neval[k] = n;
      lv->D[k] = d;
      lv->err[k] = e;
      lv->T[k] = t;
      if (k + 1 > lv->n) lv->n = k + 1;
    }
  }
  fclose(in);
  unlink(name);
}

/* basis function j at level k (h = 2^-k, L = ln h) */
static long double phi(int j, int k)
{
  const long double h = ldexpl(1, -k), L = logl(h);
  switch (j) {
  case 0: return h * h;
  case 1: return h * h * h * h * L * L;
  case 2: return h * h * h * h * L;
  case 3: return h * h * h * h;
  case 4: return powl(h, 5) * L * L * L;
  case 5: return powl(h, 5) * L * L;
  case 6: return powl(h, 5) * L;
  case 7: return powl(h, 5);
  case 8: return powl(h, 6) * L * L * L * L;
  case 9: return powl(h, 6) * L * L * L;
  case 10: return powl(h, 6) * L * L;
  case 11: return powl(h, 6) * L;
  default: return powl(h, 6);
  }
}

/* I from T_{k-n} .. T_k with the first n basis functions */
static double genrich(const double *T, int k, int n)
{
  long double a[16][17];
  int i, j, r;
  for (i = 0; i <= n; ++i) {
    int lev = k - n + i;
    a[i][0] = 1;
    for (j = 0; j < n; ++j) a[i][j + 1] = phi(j, lev) / phi(j, k - n);
    a[i][n + 1] = T[lev];
  }
  for (j = 0; j <= n; ++j) { /* Gauss with partial pivoting */
    int p = j;
    for (i = j + 1; i <= n; ++i)
      if (fabsl(a[i][j]) > fabsl(a[p][j])) p = i;
    for (r = 0; r <= n + 1; ++r) {
      long double t = a[j][r];
      a[j][r] = a[p][r];
      a[p][r] = t;
    }
    for (i = j + 1; i <= n; ++i) {
      long double m = a[i][j] / a[j][j];
      for (r = j; r <= n + 1; ++r) a[i][r] -= m * a[j][r];
    }
  }
  for (j = n; j >= 0; --j) {
    long double s = a[j][n + 1];
    for (r = j + 1; r <= n; ++r) s -= a[j][r] * a[r][n + 1];
    a[j][n + 1] = s / a[j][j];
  }
  return (double)a[0][n + 1];
}

int main(int argc, char **argv)
{
  long long maxeval = 1000000000;
  const double eps[] = {1e-8, 1e-10, 1e-12, 1e-13, 1e-14, 1e-15};
  const int ns[] = {1, 4, 8, 13};
  levels lv, ls;
  double secs, secs2;
  int i, k;
  for (i = 1; i < argc; ++i) {
    if (!strcmp(argv[i], "--maxeval") && i + 1 < argc)
      maxeval = atoll(argv[++i]);
    else if (!strcmp(argv[i], "--threads") && i + 1 < argc) {
      int n = atoi(argv[++i]);
      gcubacores(&n, NULL);
    } else {
      fprintf(stderr, "usage: bench-romberg [--maxeval N] [--threads N]\n");
      return 2;
    }
  }
  printf("# 1. gRomberg, maxeval %lld\n", maxeval);
  printf("%-3s %8s %5s %12s %10s %10s %9s\n", "", "epsrel", "fail", "neval",
         "claimed", "true", "seconds");
  for (i = 0; i < 2; ++i) {
    size_t e;
    for (e = 0; e < sizeof eps / sizeof *eps; ++e) {
      double I, E, P, t0 = now(), tr = i ? ROMB_I2 : ROMB_I1;
      long long neval;
      int fail;
      llgRomberg(1, i ? romb_i2 : romb_i1, NULL, 1, eps[e], 0, 0, 0,
                 maxeval, &neval, &fail, &I, &E, &P);
      printf("%-3s %8.0e %5d %12lld %10.2e %10.2e %9.3f%s\n",
             i ? "I2" : "I1", eps[e], fail, neval, E / fabs(tr),
             fabs(I - tr) / fabs(tr), now() - t0,
             fail == 0 && fabs(I - tr) > eps[e] * fabs(tr) ? " FALSE CLAIM"
                                                           : "");
    }
  }
  level_run(romb_i2, maxeval, &lv, &secs);
  level_run(romb_i2sub, maxeval, &ls, &secs2);
  printf("\n# 2./3. I2 level by level (relative errors; %s %.1f s, "
         "subtracted %.1f s)\n", gcuba_last_backend(), secs, secs2);
  printf("# true(T): the trapezoid; D: plain Romberg's diagonal, claimed "
         "and true; G n: generalised Richardson with n terms; S: Romberg "
         "on f - s + int s\n");
  printf("%3s %11s %9s %9s %9s", "k", "neval", "true(T)", "claim(D)",
         "true(D)");
  for (i = 0; i < 4; ++i) printf("   G%-2d   ", ns[i]);
  printf(" %9s %9s\n", "claim(S)", "true(S)");
  for (k = 0; k < lv.n; ++k) {
    printf("%3d %11lld %9.2e %9.2e %9.2e", k, lv.neval[k],
           fabs(lv.T[k] - ROMB_I2) / ROMB_I2, lv.err[k] / ROMB_I2,
           fabs(lv.D[k] - ROMB_I2) / ROMB_I2);
    for (i = 0; i < 4; ++i)
      if (k >= ns[i] + 1)
        printf(" %9.2e", fabs(genrich(lv.T, k, ns[i]) - ROMB_I2) / ROMB_I2);
      else
        printf(" %9s", "-");
    if (k < ls.n)
      printf(" %9.2e %9.2e", ls.err[k] / ROMB_I2,
             fabs(ls.D[k] + SUB_INTEGRAL - ROMB_I2) / ROMB_I2);
    printf("\n");
  }
  return 0;
}
