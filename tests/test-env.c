/* tests/test-env.c -- the settings: every GCUBA* environment variable
   goes through the one parser (src/common/settings.c), and
   - each documented form of each variable gives its typed value (the
     parser itself, gcuba_settings_parse and gcuba_settings_get);
   - a value that does not parse is fail -16 with a message naming the
     variable (never silently ignored), a good one is accepted, in every
     routine that reads it: GCUBA_MEMLIMIT=1T, documented, is accepted
     by gCuhre's calls too;
   - a changed variable is seen by the next call;
   - messages carry the routine's own name (gCuhre, llgCuhre, gVegas,
     llgVegas); a plain function passed where a GCUBA_INTEGRAND object
     belongs says how to fix it.
   Messages are read back from stderr, redirected to a file.  This file
   is part of gcuba. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <gcuba.h>
#include "tap.h"
#include "common/settings.h"

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

enum { CUHRE, LLCUHRE, VEGAS, LLVEGAS, BATCH };
static const char *names[] = {"gCuhre", "llgCuhre", "gVegas", "llgVegas",
                              "gCuhreBatch"};

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
  case LLVEGAS:
    llgVegas(2, 1, f, NULL, 1, 1e-2, 0, verbose, 1, 0, 50000, 1000, 500,
             1000, 0, NULL, NULL, &llneval, &fail, integral, error, prob);
    break;
  default: {
    /* two integrals: both fail alike, or 777 */
    int nr[2], ne[2], fl[2] = {777, 777};
    double in[2], er[2], pr[2];
    gCuhreBatch(2, 2, 1, f, NULL, 0, 1, 1e-3, 0, verbose, 0, 20000, 0, nr,
                ne, fl, in, er, pr);
    fail = fl[0] == fl[1] ? fl[0] : 777;
  }
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
  {"GCUBA_MEMLIMIT", "0.5", "1T"},
  {"GCUBA_MEMLIMIT", "1TB", "2t"},
  {"GCUBA_CUHRE_MINBATCH", "0", "16"},
  {"GCUBA_CUHRE_MINBATCH", "many", "16"},
  {"GCUBA_CUTS", "no", "0"},
  {"GCUBA_CUTS", "2", "1"},
  {"GCUBA_DIVONNE_AHEAD", "0", "1"},
  {"GCUBA_DIVONNE_AHEAD", "all", "4096"},
  {"GCUBA_VEGAS_NBINS", "1", "64"},
  {"GCUBA_VEGAS_NBINS", "1025", "1024"},
  {"GCUBA_VEGAS_ADAPT", "sometimes", "auto"},
  {"GCUBA_VEGAS_BETA", "1.5", "0.75"},
  {"GCUBA_VEGAS_BETA", "plus", "0"},
};

/* what the parser makes of each documented form: the field named by
   `what', as a double */
static double field(const gcuba_settings *s, const char *what)
{
  if (!strcmp(what, "verbose")) return s->verbose;
  if (!strcmp(what, "cores")) return s->cores;
  if (!strcmp(what, "device")) return s->device;
  if (!strcmp(what, "devs")) /* auto, form, count, first, last */
    return s->devs_auto * 1e4 + s->devs_form * 1e3 + s->devs_n * 100 +
           (s->devs_n && s->devs_form == GCUBA_DEVS_LIST
                ? s->devs[0] * 10 + s->devs[s->devs_n - 1]
                : 0);
  if (!strcmp(what, "after")) return s->devs_after;
  if (!strcmp(what, "memlimit")) return s->memlimit;
  if (!strcmp(what, "minbatch")) return (double)s->minbatch;
  if (!strcmp(what, "cuts")) return s->cuts;
  if (!strcmp(what, "ahead")) return (double)s->divonne_ahead;
  if (!strcmp(what, "nbins")) return s->vegas_nbins;
  if (!strcmp(what, "adapt")) return (double)s->vegas_adapt;
  if (!strcmp(what, "beta")) return s->vegas_beta;
  if (!strcmp(what, "node")) return s->node_processes;
  return -999;
}

static const struct {
  const char *name, *value, *what;
  double want;
} forms[] = {
  {"GCUBAVERBOSE", NULL, "verbose", 0},
  {"GCUBAVERBOSE", "2", "verbose", 2},
  {"GCUBAVERBOSE", " 3 ", "verbose", 3},
  {"GCUBACORES", NULL, "cores", -1},
  {"GCUBACORES", "0", "cores", 0},
  {"GCUBACORES", "12", "cores", 12},
  {"GCUBA_DEVICE", NULL, "device", GCUBA_WANT_AUTO},
  {"GCUBA_DEVICE", "auto", "device", GCUBA_WANT_AUTO},
  {"GCUBA_DEVICE", "cpu", "device", GCUBA_WANT_CPU},
  {"GCUBA_DEVICE", "gpu", "device", GCUBA_WANT_GPU},
  {"GCUBA_DEVICES", NULL, "devs", 1e4 + GCUBA_DEVS_ALL * 1e3},
  {"GCUBA_DEVICES", "all", "devs", GCUBA_DEVS_ALL * 1e3},
  {"GCUBA_DEVICES", "3", "devs", GCUBA_DEVS_COUNT * 1e3 + 300},
  {"GCUBA_DEVICES", "0,2,3", "devs", GCUBA_DEVS_LIST * 1e3 + 300 + 3},
  {"GCUBA_DEVICES", "auto", "devs", 1e4 + GCUBA_DEVS_ALL * 1e3},
  {"GCUBA_DEVICES", "auto:all", "devs", 1e4 + GCUBA_DEVS_ALL * 1e3},
  {"GCUBA_DEVICES", "auto:2", "devs", 1e4 + GCUBA_DEVS_COUNT * 1e3 + 200},
  {"GCUBA_DEVICES", "auto:1,0", "devs",
   1e4 + GCUBA_DEVS_LIST * 1e3 + 200 + 10},
  {"GCUBA_DEVICES_AFTER", NULL, "after", -1},
  {"GCUBA_DEVICES_AFTER", "0", "after", 0},
  {"GCUBA_DEVICES_AFTER", "250", "after", 250},
  {"GCUBA_MEMLIMIT", NULL, "memlimit", 0},
  {"GCUBA_MEMLIMIT", "4000000000", "memlimit", 4e9},
  {"GCUBA_MEMLIMIT", "32K", "memlimit", 32768},
  {"GCUBA_MEMLIMIT", "32k", "memlimit", 32768},
  {"GCUBA_MEMLIMIT", "512M", "memlimit", 536870912},
  {"GCUBA_MEMLIMIT", "8G", "memlimit", 8589934592.0},
  {"GCUBA_MEMLIMIT", "1.5g", "memlimit", 1610612736.0},
  {"GCUBA_MEMLIMIT", "1T", "memlimit", 1099511627776.0},
  {"GCUBA_MEMLIMIT", "2t", "memlimit", 2199023255552.0},
  {"GCUBA_CUHRE_MINBATCH", NULL, "minbatch", 0},
  {"GCUBA_CUHRE_MINBATCH", "16", "minbatch", 16},
  {"GCUBA_CUTS", NULL, "cuts", 1},
  {"GCUBA_CUTS", "0", "cuts", 0},
  {"GCUBA_CUTS", "1", "cuts", 1},
  {"GCUBA_DIVONNE_AHEAD", NULL, "ahead", 0},
  {"GCUBA_DIVONNE_AHEAD", "1", "ahead", 1},
  {"GCUBA_DIVONNE_AHEAD", "256", "ahead", 256},
  {"GCUBA_VEGAS_NBINS", NULL, "nbins", 0},
  {"GCUBA_VEGAS_NBINS", "2", "nbins", 2},
  {"GCUBA_VEGAS_NBINS", "1024", "nbins", 1024},
  {"GCUBA_VEGAS_ADAPT", NULL, "adapt", -1},
  {"GCUBA_VEGAS_ADAPT", "auto", "adapt", -1},
  {"GCUBA_VEGAS_ADAPT", "0", "adapt", 0},
  {"GCUBA_VEGAS_ADAPT", "7", "adapt", 7},
  {"GCUBA_VEGAS_BETA", NULL, "beta", 0},
  {"GCUBA_VEGAS_BETA", "0.75", "beta", 0.75},
  {"GCUBA_VEGAS_BETA", "1", "beta", 1},
  {"OMPI_COMM_WORLD_LOCAL_SIZE", NULL, "node", 1},
  {"OMPI_COMM_WORLD_LOCAL_SIZE", "4", "node", 4},
  {"MPI_LOCALNRANKS", "2", "node", 2},
  {"SLURM_STEP_TASKS_PER_NODE", "3", "node", 3},
};

/* every documented form through the parser, and through the
   environment (gcuba_settings_get, which caches by value) */
static void check_forms(void)
{
  size_t i;
  for (i = 0; i < sizeof forms / sizeof *forms; ++i) {
    gcuba_settings s;
    char why[200] = "";
    int rc;
    double got;
    gcuba_settings_defaults(&s);
    rc = gcuba_settings_parse(&s, forms[i].name, forms[i].value, why,
                              sizeof why);
    got = field(&s, forms[i].what);
    ok(rc == 0 && got == forms[i].want, "parse %s=%s: %s %.17g (want %.17g)",
       forms[i].name, forms[i].value ? forms[i].value : "(unset)",
       forms[i].what, got, forms[i].want);
    if (forms[i].value) setenv(forms[i].name, forms[i].value, 1);
    else unsetenv(forms[i].name);
    rc = gcuba_settings_get(&s, why, sizeof why);
    got = field(&s, forms[i].what);
    ok(rc == 0 && got == forms[i].want,
       "environment %s=%s: %s %.17g (rc %d%s%s)", forms[i].name,
       forms[i].value ? forms[i].value : "(unset)", forms[i].what, got, rc,
       rc ? ", " : "", rc ? why : "");
    unsetenv(forms[i].name);
  }
}

int main(void)
{
  size_t i;
  int r, fail;
  const char *msg;
  plan(0);
  check_forms();
  snprintf(errfile, sizeof errfile, "test-env-%ld.err", (long)getpid());
  setenv("GCUBA_DEVICE", "cpu", 1);

  for (i = 0; i < sizeof vars / sizeof *vars; ++i) {
    for (r = CUHRE; r <= BATCH; r += 2) {
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
