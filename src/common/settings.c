/* src/common/settings.c -- the one parser of the GCUBA* environment:
     GCUBAVERBOSE   0..3, raises the verbosity of every call (as CUBAVERBOSE)
     GCUBACORES     CPU threads of the CPU backend (as CUBACORES)
     GCUBA_DEVICE   cpu | gpu | auto (default auto)
     GCUBA_DEVICES  the GPUs one call of the GPU backend uses: all, a
                    count N (the first N), or a list of device numbers
                    (0,2,3); auto or auto:SPEC (the default, auto:all):
                    the current GPU, and a call that runs long grows to
                    the GPUs of SPEC
     GCUBA_DEVICES_AFTER  milliseconds before such a call may grow
     GCUBA_MEMLIMIT bytes of the region store, suffix K, M, G or T
     GCUBA_CUHRE_MINBATCH  gCuhre: the fewest regions split per iteration
     GCUBA_CUTS     gCuhre: 0 bisects as Cuba
     GCUBA_DIVONNE_AHEAD  gDivonne: the most regions whose final copies
                    one call of the executor makes (1: one at a time)
     GCUBA_VEGAS_NBINS, GCUBA_VEGAS_ADAPT, GCUBA_VEGAS_BETA  gVegas's grid
   One table row per variable: its name, what it accepts (for the
   message) and the function that parses a value into the typed struct.
   A call reads the struct (gcuba_settings_get); the environment is parsed
   again only when a value changed, and a value that does not parse fails
   the call with GCUBA_FAIL_ENV and a message, never ignored.  This file
   is part of gcuba. */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
/* (the library defines the routines: no plain-integrand macros) */
#ifndef GCUBA_NO_PLAIN_INTEGRANDS
#define GCUBA_NO_PLAIN_INTEGRANDS
#endif
#include "gcuba.h"
#include "common/settings.h"

#define NBINS_MAX 1024

/* a decimal integer in [lo, hi] (surrounding blanks allowed) */
static int parse_ll(const char *s, long long lo, long long hi, long long *v)
{
  char *end;
  long long x;
  errno = 0;
  x = strtoll(s, &end, 10);
  if (end == s || errno) return -1;
  while (*end == ' ' || *end == '\t') ++end;
  if (*end || x < lo || x > hi) return -1;
  *v = x;
  return 0;
}

int gcuba_settings_bytes(const char *s, double *bytes)
{
  char *end;
  double b = strtod(s, &end);
  if (end == s) return -1;
  switch (*end) {
  case 'k': case 'K': b *= 1024; ++end; break;
  case 'm': case 'M': b *= 1048576; ++end; break;
  case 'g': case 'G': b *= 1073741824; ++end; break;
  case 't': case 'T': b *= 1099511627776.0; ++end; break;
  }
  while (*end == ' ' || *end == '\t') ++end;
  if (*end || !(b >= 1) || b > 1e18) return -1;
  *bytes = b;
  return 0;
}

static const char *skip_blanks(const char *s)
{
  while (*s == ' ' || *s == '\t') ++s;
  return s;
}

/* SPEC of GCUBA_DEVICES: all, a count >= 1, or a list of device
   numbers; 0 or -1 */
static int parse_devs(gcuba_settings *s, const char *v)
{
  long long x;
  v = skip_blanks(v);
  if (!strncmp(v, "all", 3)) {
    if (*skip_blanks(v + 3)) return -1;
    s->devs_form = GCUBA_DEVS_ALL;
    s->devs_n = 0;
    return 0;
  }
  if (!strchr(v, ',')) {
    if (parse_ll(v, 1, GCUBA_MAXDEVICES, &x)) return -1;
    s->devs_form = GCUBA_DEVS_COUNT;
    s->devs_n = (int)x;
    return 0;
  }
  s->devs_form = GCUBA_DEVS_LIST;
  s->devs_n = 0;
  for (;;) {
    char item[32];
    size_t k = strcspn(v, ",");
    if (k == 0 || k >= sizeof item || s->devs_n >= GCUBA_MAXDEVICES)
      return -1;
    memcpy(item, v, k);
    item[k] = 0;
    if (parse_ll(item, 0, 1 << 20, &x)) return -1;
    s->devs[s->devs_n++] = (int)x;
    if (!v[k]) return 0;
    v += k + 1;
  }
}

/* ---- one function per variable: the value (non-empty) into s; 0 or -1 */
static int p_verbose(gcuba_settings *s, const char *v)
{
  long long x;
  if (parse_ll(v, 0, 3, &x)) return -1;
  s->verbose = (int)x;
  return 0;
}
static int p_cores(gcuba_settings *s, const char *v)
{
  long long x;
  if (parse_ll(v, 0, 1 << 20, &x)) return -1;
  s->cores = (int)x;
  return 0;
}
static int p_device(gcuba_settings *s, const char *v)
{
  if (!strcmp(v, "auto")) s->device = GCUBA_WANT_AUTO;
  else if (!strcmp(v, "cpu")) s->device = GCUBA_WANT_CPU;
  else if (!strcmp(v, "gpu")) s->device = GCUBA_WANT_GPU;
  else return -1;
  return 0;
}
static int p_devices(gcuba_settings *s, const char *v)
{
  const char *p = skip_blanks(v);
  snprintf(s->devs_text, sizeof s->devs_text, "%s", v);
  s->devs_set = 1;
  s->devs_auto = 0;
  if (!strncmp(p, "auto", 4)) {
    p = skip_blanks(p + 4);
    s->devs_auto = 1;
    if (!*p) {
      s->devs_form = GCUBA_DEVS_ALL;
      s->devs_n = 0;
      return 0;
    }
    if (*p != ':') return -1;
    return parse_devs(s, p + 1);
  }
  return parse_devs(s, p);
}
static int p_after(gcuba_settings *s, const char *v)
{
  long long x;
  if (parse_ll(v, 0, 1LL << 40, &x)) return -1;
  s->devs_after = (double)x;
  return 0;
}
static int p_memlimit(gcuba_settings *s, const char *v)
{
  return gcuba_settings_bytes(v, &s->memlimit);
}
static int p_minbatch(gcuba_settings *s, const char *v)
{
  return parse_ll(v, 1, 1LL << 40, &s->minbatch);
}
static int p_cuts(gcuba_settings *s, const char *v)
{
  if (strcmp(v, "0") && strcmp(v, "1")) return -1;
  s->cuts = v[0] == '1';
  return 0;
}
static int p_ahead(gcuba_settings *s, const char *v)
{
  return parse_ll(v, 1, 1LL << 30, &s->divonne_ahead);
}
static int p_nbins(gcuba_settings *s, const char *v)
{
  long long x;
  if (parse_ll(v, 2, NBINS_MAX, &x)) return -1;
  s->vegas_nbins = (int)x;
  return 0;
}
static int p_adapt(gcuba_settings *s, const char *v)
{
  if (!strcmp(v, "auto")) {
    s->vegas_adapt = -1;
    return 0;
  }
  return parse_ll(v, 0, 1LL << 40, &s->vegas_adapt);
}
static int p_beta(gcuba_settings *s, const char *v)
{
  char *end;
  double b = strtod(v, &end);
  if (end == v || *skip_blanks(end) || !(b >= 0 && b <= 1)) return -1;
  s->vegas_beta = b;
  return 0;
}
/* the launchers' counts: informational, never an error */
static int p_node(gcuba_settings *s, const char *v)
{
  const int k = atoi(v);
  if (k > s->node_processes) s->node_processes = k;
  return 0;
}

static const struct {
  const char *name, *expect;
  int (*parse)(gcuba_settings *, const char *);
} table[] = {
  {"GCUBAVERBOSE", "0, 1, 2 or 3", p_verbose},
  {"GCUBACORES", "a number of threads >= 0", p_cores},
  {"GCUBA_DEVICE", "auto, cpu or gpu", p_device},
  {"GCUBA_DEVICES", "all, a number of GPUs >= 1, a list such as 0,2,3, "
   "auto, or auto: and one of those", p_devices},
  {"GCUBA_DEVICES_AFTER", "milliseconds >= 0", p_after},
  {"GCUBA_MEMLIMIT", "bytes, e.g. 4000000000, 512M, 8G or 1T", p_memlimit},
  {"GCUBA_CUHRE_MINBATCH", "a number of regions >= 1", p_minbatch},
  {"GCUBA_CUTS", "0 or 1", p_cuts},
  {"GCUBA_DIVONNE_AHEAD", "a number of regions >= 1", p_ahead},
  {"GCUBA_VEGAS_NBINS", "2..1024", p_nbins},
  {"GCUBA_VEGAS_ADAPT", "auto or a number of iterations >= 0", p_adapt},
  {"GCUBA_VEGAS_BETA", "a number from 0 to 1", p_beta},
  {"OMPI_COMM_WORLD_LOCAL_SIZE", NULL, p_node},
  {"MPI_LOCALNRANKS", NULL, p_node},
  {"SLURM_STEP_TASKS_PER_NODE", NULL, p_node},
};
#define NVARS ((int)(sizeof table / sizeof *table))

void gcuba_settings_defaults(gcuba_settings *s)
{
  memset(s, 0, sizeof *s);
  s->cores = -1;
  s->device = GCUBA_WANT_AUTO;
  s->devs_auto = 1;
  s->devs_form = GCUBA_DEVS_ALL;
  s->devs_after = -1;
  s->cuts = 1;
  s->vegas_adapt = -1;
  s->node_processes = 1;
}

int gcuba_settings_parse(gcuba_settings *s, const char *name,
                         const char *value, char *why, int n)
{
  int i;
  for (i = 0; i < NVARS; ++i)
    if (!strcmp(table[i].name, name)) break;
  if (i == NVARS) {
    if (why) snprintf(why, (size_t)n, "%s: not a gcuba setting", name);
    return -1;
  }
  if (!value || !*value) return 0;
  if (table[i].parse(s, value) == 0) return 0;
  if (why)
    snprintf(why, (size_t)n, "%s=\"%s\": expected %s", name, value,
             table[i].expect);
  return -1;
}

/* The last values seen (a copy, truncated to VALMAX, with a flag for
   longer ones, which are parsed every time) and what they gave. */
#define VALMAX 128
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static struct {
  int valid;
  char val[NVARS][VALMAX];
  int set[NVARS], longer[NVARS];
  gcuba_settings s;
  int rc;
  char why[200];
} cache;

int gcuba_settings_get(gcuba_settings *s, char *why, int n)
{
  const char *v[NVARS];
  int i, same, rc = 0;
  char w[200];
  for (i = 0; i < NVARS; ++i) v[i] = getenv(table[i].name);
  pthread_mutex_lock(&lock);
  same = cache.valid;
  for (i = 0; i < NVARS && same; ++i) {
    const int set = v[i] != NULL;
    same = set == cache.set[i] && !cache.longer[i] &&
           (!set || !strcmp(v[i], cache.val[i]));
  }
  if (!same) {
    gcuba_settings t;
    gcuba_settings_defaults(&t);
    w[0] = 0;
    for (i = 0; i < NVARS; ++i) {
      cache.set[i] = v[i] != NULL;
      cache.longer[i] = v[i] && strlen(v[i]) >= VALMAX;
      if (v[i]) snprintf(cache.val[i], VALMAX, "%s", v[i]);
      /* every variable is parsed; the first that does not parse is
         the one reported */
      if (gcuba_settings_parse(&t, table[i].name, v[i], rc ? NULL : w,
                               sizeof w))
        rc = GCUBA_FAIL_ENV;
    }
    cache.s = t;
    cache.rc = rc;
    snprintf(cache.why, sizeof cache.why, "%s", w);
    cache.valid = 1;
  }
  *s = cache.s;
  rc = cache.rc;
  if (rc && why) snprintf(why, (size_t)n, "%s", cache.why);
  pthread_mutex_unlock(&lock);
  return rc;
}
