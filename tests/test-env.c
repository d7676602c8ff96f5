/* tests/test-env.c -- every GCUBA* environment variable is validated:
   a value that does not parse is fail -16 with a message naming the
   variable (never silently ignored), a good one is accepted; messages
   carry the routine's own name (gCuhre, llgCuhre, gVegas, llgVegas); a
   plain function passed where a GCUBA_INTEGRAND object belongs says how
   to fix it.  Messages are read back from stderr, redirected to a file.
   This file is part of gcuba. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <gcuba.h>
#include "tap.h"

GCUBA_INTEGRAND(Plane)(const int *ndim, const double x[], const int *ncomp,
                       double f[], void *userdata)
{
  (void)ndim; (void)ncomp; (void)userdata;
  f[0] = x[0] + x[1];
  return 0;
}

static int plain(const int *ndim, const double x[], const int *ncomp,
                 double f[], void *userdata)
{
  (void)ndim; (void)ncomp; (void)userdata;
  f[0] = x[0];
  return 0;
}

static char errfile[64];
static int saved_fd = -1;

/* stderr to errfile from here until capture_end */
static void capture_begin(void)
{
  fflush(stderr);
  saved_fd = dup(2);
  if (!freopen(errfile, "w", stderr)) saved_fd = -1;
}

/* stderr back; returns what was written (static buffer) */
static const char *capture_end(void)
{
  static char buf[4096];
  size_t n;
  FILE *f;
  fflush(stderr);
  if (saved_fd >= 0) {
    dup2(saved_fd, 2);
    close(saved_fd);
    saved_fd = -1;
  }
  buf[0] = 0;
  f = fopen(errfile, "r");
  if (f) {
    n = fread(buf, 1, sizeof buf - 1, f);
    buf[n] = 0;
    fclose(f);
  }
  return buf;
}

enum { CUHRE, LLCUHRE, VEGAS, LLVEGAS };
static const char *names[] = {"gCuhre", "llgCuhre", "gVegas", "llgVegas"};

/* one call of routine r at verbosity `verbose' with integrand f */
static int call(int r, gintegrand_t f, int verbose)
{
  int nregions, neval = 0, fail = 777;
  long long llneval = 0;
  double integral[1], error[1], prob[1];
  switch (r) {
  case CUHRE:
    gCuhre(2, 1, f, NULL, 1, 1e-3, 0, verbose, 0, 20000, 0, NULL, NULL,
           &nregions, &neval, &fail, integral, error, prob);
    break;
  case LLCUHRE:
    llgCuhre(2, 1, f, NULL, 1, 1e-3, 0, verbose, 0, 20000, 0, NULL, NULL,
             &nregions, &llneval, &fail, integral, error, prob);
    break;
  case VEGAS:
    gVegas(2, 1, f, NULL, 1, 1e-2, 0, verbose, 1, 0, 50000, 1000, 500, 1000,
           0, NULL, NULL, &neval, &fail, integral, error, prob);
    break;
  default:
    llgVegas(2, 1, f, NULL, 1, 1e-2, 0, verbose, 1, 0, 50000, 1000, 500,
             1000, 0, NULL, NULL, &llneval, &fail, integral, error, prob);
  }
  return fail;
}

static const struct {
  const char *name, *bad, *good;
} vars[] = {
  {"GCUBACORES", "abc", "1"},
  {"GCUBACORES", "-2", "2"},
  {"GCUBAVERBOSE", "loud", "0"},
  {"GCUBAVERBOSE", "7", "0"},
  {"GCUBA_DEVICE", "gpu0", "cpu"},
  {"GCUBA_DEVICES", "0,", "all"},
  {"GCUBA_DEVICES", "0", "3"},
  {"GCUBA_DEVICES", "gpu1", "0,1"},
  {"GCUBA_DEVICES", "auto:", "auto"},
  {"GCUBA_DEVICES", "auto:x", "auto:0,1"},
  {"GCUBA_DEVICES", "autox", "auto:all"},
  {"GCUBA_DEVICES_AFTER", "-1", "0"},
  {"GCUBA_DEVICES_AFTER", "soon", "250"},
  {"GCUBA_MEMLIMIT", "12X", "64M"},
  {"GCUBA_MEMLIMIT", "-5", "1G"},
  {"GCUBA_CUHRE_MINBATCH", "0", "16"},
  {"GCUBA_CUHRE_MINBATCH", "many", "16"},
  {"GCUBA_CUTS", "no", "0"},
  {"GCUBA_CUTS", "2", "1"},
  {"GCUBA_VEGAS_NBINS", "1", "64"},
  {"GCUBA_VEGAS_ADAPT", "sometimes", "auto"},
  {"GCUBA_VEGAS_BETA", "1.5", "0.75"},
  {"GCUBA_VEGAS_BETA", "plus", "0"},
};

int main(void)
{
  size_t i;
  int r, fail;
  const char *msg;
  plan(0);
  snprintf(errfile, sizeof errfile, "test-env-%ld.err", (long)getpid());
  setenv("GCUBA_DEVICE", "cpu", 1);

  for (i = 0; i < sizeof vars / sizeof *vars; ++i) {
    for (r = CUHRE; r <= VEGAS; r += 2) {
      setenv(vars[i].name, vars[i].bad, 1);
      capture_begin();
      fail = call(r, Plane, 1);
      msg = capture_end();
      ok(fail == GCUBA_FAIL_ENV && strstr(msg, vars[i].name) &&
             strstr(msg, vars[i].bad) && strstr(msg, "expected"),
         "%s %s=%s: fail %d, message \"%.*s\"", names[r], vars[i].name,
         vars[i].bad, fail, (int)strcspn(msg, "\n"), msg);
      capture_begin();
      fail = call(r, Plane, 0);
      msg = capture_end();
      ok(fail == GCUBA_FAIL_ENV && !*msg,
         "%s %s=%s at verbosity 0: fail %d, nothing printed", names[r],
         vars[i].name, vars[i].bad, fail);
      setenv(vars[i].name, vars[i].good, 1);
      fail = call(r, Plane, 0);
      ok(fail == 0, "%s %s=%s accepted: fail %d", names[r], vars[i].name,
         vars[i].good, fail);
    }
    unsetenv(vars[i].name);
    setenv("GCUBA_DEVICE", "cpu", 1);
  }

  /* the routine's own name in its messages */
  setenv("GCUBACORES", "x", 1);
  for (r = CUHRE; r <= LLVEGAS; ++r) {
    char want[32];
    capture_begin();
    call(r, Plane, 1);
    msg = capture_end();
    snprintf(want, sizeof want, "%s: ", names[r]);
    ok(!strncmp(msg, want, strlen(want)), "%s's messages start with \"%s\"",
       names[r], want);
  }
  unsetenv("GCUBACORES");

  /* a forgotten GCUBA_INTEGRAND: a plain function where the object goes */
  for (r = CUHRE; r <= VEGAS; r += 2) {
    capture_begin();
    fail = call(r, (gintegrand_t)(void *)plain, 1);
    msg = capture_end();
    ok(fail == GCUBA_FAIL_ABI && strstr(msg, "GCUBA_INTEGRAND(") &&
           strstr(msg, "gcuba_host_integrand"),
       "%s with a plain function: fail %d, the message says what to do",
       names[r], fail);
  }
  remove(errfile);
  return done();
}
