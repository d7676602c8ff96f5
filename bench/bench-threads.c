/* bench/bench-threads.c -- what CPU threads buy on the workloads of Cuba
   programs as they are (issue 52), on the CPU backend:
     costly:  gVegas on a 6-D integrand costing about --cost ms a point
              (a busy loop, calibrated at the start), Cuba's nstart 1000,
              nincrease 500, nbatch 1000, seed 0, epsrel 5e-2: time and
              evaluations on 1, 2 and 4 threads (--threads LIST), the
              speed-up over 1 thread;
     short:   --calls 2-D gCuhre calls (key 13, epsrel 1e-10, a smooth
              product of oscillator-like factors, a parameter per call)
              on 1, 2 and all threads, on an idle machine and with one
              busy process per core beside them: calls per second, and
              the CPU seconds the process spent per second (cpu/wall:
              what its waiting threads cost the machine).
   Host integrands only (the CPU backend, whatever the build).
   Usage: bench-threads [--cost MS] [--calls N] [--threads LIST]
                        [--only costly|short]
   This file is part of gcuba. */
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include "gcuba.h"

static double now(void)
{
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec + 1e-9 * t.tv_nsec;
}

static long spin_per_ms = 1;
static volatile double sink;

static void burn(long n, double seed)
{
  double s = seed;
  long i;
  for (i = 0; i < n; ++i) s = s * 0.999999 + 1e-9 * (double)i;
  sink = s;
}

/* a smooth 6-D peak; each point costs spin_per_ms * cost ms; the time
   spent in it, all threads together (ns) */
static double cost_ms = 5;
static long long in_fn_ns;
static int costly_fn(const int *ndim, const double x[], const int *ncomp,
                     double f[], void *userdata)
{
  double s = 0, t0 = now();
  int d;
  (void)ncomp;
  (void)userdata;
  burn((long)(spin_per_ms * cost_ms), x[0]);
  __atomic_fetch_add(&in_fn_ns, (long long)((now() - t0) * 1e9),
                     __ATOMIC_RELAXED);
  for (d = 0; d < *ndim; ++d) s += (x[d] - 0.5) * (x[d] - 0.5);
  f[0] = exp(-4 * s);
  return 0;
}

/* 2-D: a product of damped oscillators, a frequency per call */
static int osc_fn(const int *ndim, const double x[], const int *ncomp,
                  double f[], void *userdata)
{
  const double w = *(const double *)userdata;
  (void)ndim;
  (void)ncomp;
  f[0] = exp(-x[0]) * cos(w * x[0]) * exp(-2 * x[1]) * cos(0.5 * w * x[1]);
  return 0;
}

static void cores(int n)
{
  gcubacores(&n, &n);
}

static void calibrate(void)
{
  long n = 1000;
  double t;
  for (;;) {
    t = now();
    burn(n, 0.5);
    t = now() - t;
    if (t > 0.05) break;
    n *= 2;
  }
  spin_per_ms = (long)(n / (t * 1e3));
}

static void costly(const int *th, int nth)
{
  double t1 = 0;
  int k;
  printf("# costly: gVegas, 6-D, %.2f ms a point, nstart 1000, nincrease "
         "500, nbatch 1000, seed 0, epsrel 5e-2, maxeval 1e6\n", cost_ms);
  printf("threads      seconds   neval fail   speed-up  ms/point  "
         "in integrand  estimate +- error\n");
  for (k = 0; k < nth; ++k) {
    long long neval;
    int fail;
    double I, E, P, t;
    cores(th[k]);
    in_fn_ns = 0;
    t = now();
    llgVegas(6, 1, gcuba_host_integrand(costly_fn, 0), NULL, 1, 5e-2, 1e-20,
             0, 0, 0, 1000000, 1000, 500, 1000, 0, NULL, NULL, &neval, &fail,
             &I, &E, &P);
    t = now() - t;
    if (k == 0) t1 = t;
    /* ms/point: the integrand's own time per call during the run (a
       machine that slows its cores under load raises it); in integrand:
       that time over threads x seconds, the share of the threads' time
       spent in the integrand */
    printf("%7d %12.2f %7lld %4d %10.2f  %8.2f  %11.0f%%  %.6g +- %.2g\n",
           th[k], t, neval, fail, t1 / t, 1e-6 * in_fn_ns / neval,
           100 * 1e-9 * in_fn_ns / (th[k] * t), I, E);
    fflush(stdout);
  }
  cores(-1);
}

/* this process's CPU time (all its threads, user and system; not its
   children's) in seconds */
static double cpu_s(void)
{
  struct rusage u;
  if (getrusage(RUSAGE_SELF, &u)) return 0;
  return u.ru_utime.tv_sec + 1e-6 * u.ru_utime.tv_usec + u.ru_stime.tv_sec +
         1e-6 * u.ru_stime.tv_usec;
}

/* n calls on t threads: calls per second; fails counted, and in *cpu the
   CPU seconds the process spent per second of the calls (its threads'
   polls, yields and work; 1 when one thread did everything) */
static double short_calls(int n, int t, int *nfail, double *cpu)
{
  double t0 = now(), c0 = cpu_s(), wall;
  int i;
  cores(t);
  *nfail = 0;
  for (i = 0; i < n; ++i) {
    double w = 40 + 0.1 * i, I, E, P;
    long long neval;
    int nregions, fail;
    llgCuhre(2, 1, gcuba_host_integrand(osc_fn, 0), &w, 1, 1e-10, 1e-12, 4,
             0, 50000000, 13, NULL, NULL, &nregions, &neval, &fail, &I, &E,
             &P);
    *nfail += fail != 0;
  }
  wall = now() - t0;
  *cpu = (cpu_s() - c0) / wall;
  cores(-1);
  return n / wall;
}

static void shorts(int ncalls)
{
  const long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
  int th[3], k, busy;
  th[0] = 1;
  th[1] = 2;
  th[2] = ncpu > 2 ? (int)ncpu : 0;
  printf("# short calls: %d gCuhre calls, 2-D, key 13, epsrel 1e-10, "
         "epsabs 1e-12, LAST; %ld CPUs\n", ncalls, ncpu);
  printf("load        threads  calls/s  fails  cpu/wall\n");
  for (busy = 0; busy <= 1; ++busy) {
    pid_t pids[1024];
    long np = 0, p;
    if (busy)
      for (p = 0; p < ncpu && p < 1024; ++p) {
        pid_t pid = fork();
        if (pid == 0) {
          for (;;) burn(1000000, 0.25);
        }
        if (pid > 0) pids[np++] = pid;
      }
    for (k = 0; k < 3; ++k) {
      int nfail;
      double r, cpu;
      if (!th[k]) continue;
      r = short_calls(ncalls, th[k], &nfail, &cpu);
      printf("%-12s %7d %8.1f %6d %9.2f\n", busy ? "busy" : "idle", th[k],
             r, nfail, cpu);
      fflush(stdout);
    }
    for (p = 0; p < np; ++p) {
      kill(pids[p], SIGKILL);
      waitpid(pids[p], NULL, 0);
    }
  }
}

int main(int argc, char **argv)
{
  int th[16] = {1, 2, 4}, nth = 3, ncalls = 200, i;
  const char *only = "";
  for (i = 1; i < argc; ++i) {
    const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
    if (!strcmp(a, "--cost") && v) cost_ms = atof(argv[++i]);
    else if (!strcmp(a, "--calls") && v) ncalls = atoi(argv[++i]);
    else if (!strcmp(a, "--only") && v) only = argv[++i];
    else if (!strcmp(a, "--threads") && v) {
      char *s = argv[++i], *e;
      nth = 0;
      while (*s && nth < 16) {
        th[nth++] = (int)strtol(s, &e, 10);
        s = *e ? e + 1 : e;
      }
    } else {
      fprintf(stderr, "usage: bench-threads [--cost MS] [--calls N] "
              "[--threads LIST] [--only costly|short]\n");
      return 2;
    }
  }
  if (!(cost_ms >= 0) || ncalls < 1 || nth < 1) {
    fprintf(stderr, "bench-threads: bad --cost, --calls or --threads\n");
    return 2;
  }
  setenv("GCUBA_DEVICE", "cpu", 1);
  calibrate();
  if (strcmp(only, "short")) costly(th, nth);
  if (strcmp(only, "costly")) shorts(ncalls);
  return 0;
}
