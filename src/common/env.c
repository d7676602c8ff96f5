/* src/common/env.c -- settings from the environment and from
   gcubacores/gcubaaccel/gcubainit/gcubaexit; the choice of backend.
     GCUBAVERBOSE   raises the verbosity of every call (as CUBAVERBOSE)
     GCUBACORES     CPU threads for the CPU backend (as CUBACORES)
     GCUBA_DEVICE   cpu | gpu | auto (default auto)
     GCUBA_DEVICES  the GPUs one call of the GPU backend uses: all, a
                    count N (the first N), or a list of device numbers
                    (0,2,3); auto or auto:SPEC (the default, auto:all):
                    the current GPU, and a call that runs long grows to
                    the GPUs of SPEC (common/coll.c)
     GCUBA_DEVICES_AFTER  milliseconds before such a call may grow
     GCUBA_MEMLIMIT, GCUBA_CUHRE_MINBATCH  checked here, read by the
                    Cuhre driver
   Every variable is checked at the start of each call (gcuba_env_check):
   a value that does not parse is fail GCUBA_FAIL_ENV with a message, never
   ignored.  This file is part of gcuba. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "common.h"
#ifdef _OPENMP
#include <omp.h>
#endif

#if defined(__GNUC__)
#define GCUBA_TLS __thread
#else
#define GCUBA_TLS
#endif

static int cores_set = -1;   /* from gcubacores, -1 = not called */
static int accel_set = -1;   /* from gcubaaccel, -1 = not called */
/* hooks, called as Cuba does: f(arg, &core) with the master's core */
typedef void (*hook_fn)(void *arg, const int *core);
#define MASTER_CORE 32768
static hook_fn init_fn, exit_fn;
static void *init_arg, *exit_arg;
static GCUBA_TLS int last_backend = GCUBA_BK_CPU;
static GCUBA_TLS int last_devices;
static GCUBA_TLS int batch_inner; /* a batch's integral on this thread */
static GCUBA_TLS size_t userdata_bytes;

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

static int env_int(const char *name, int *val)
{
  const char *s = getenv(name);
  long long v;
  if (!s || !*s) return 0;
  if (parse_ll(s, 0, 1 << 20, &v)) return -1;
  *val = (int)v;
  return 1;
}

int gcuba_env_bytes(const char *s, double *bytes)
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
  if (*end || !(b >= 1) || b > 1e18) return -1;
  *bytes = b;
  return 0;
}

/* One row per variable: its name, what it accepts (for the message) and
   a check of a non-empty value (0 good).  The tests-only
   GCUBA_TEST_REQUIRE_GPU is read by the test programs, not here. */
static int bad_verbose(const char *s)
{
  long long v;
  return parse_ll(s, 0, 3, &v);
}
static int bad_cores(const char *s)
{
  long long v;
  return parse_ll(s, 0, 1 << 20, &v);
}
static int bad_device(const char *s)
{
  return strcmp(s, "auto") && strcmp(s, "cpu") && strcmp(s, "gpu");
}
static int bad_bytes(const char *s)
{
  double b;
  return gcuba_env_bytes(s, &b);
}
static int bad_positive(const char *s)
{
  long long v;
  return parse_ll(s, 1, 1LL << 40, &v);
}
static int bad_nbins(const char *s)
{
  long long v;
  return parse_ll(s, 2, 1024, &v);
}
static int bad_01(const char *s)
{
  return strcmp(s, "0") && strcmp(s, "1");
}
static int bad_adapt(const char *s)
{
  long long v;
  return strcmp(s, "auto") && parse_ll(s, 0, 1LL << 40, &v);
}

/* GCUBA_VEGAS_BETA: a number in [0, 1] */
double gcuba_env_vegas_beta(void)
{
  const char *s = getenv("GCUBA_VEGAS_BETA");
  char *end;
  double b;
  if (!s || !*s) return 0;
  b = strtod(s, &end);
  return *end || !(b >= 0 && b <= 1) ? -1 : b;
}
static int bad_beta(const char *s)
{
  (void)s;
  return gcuba_env_vegas_beta() < 0;
}

/* GCUBA_DEVICES (see above) into dev[0..max): the number of GPUs, with
   ndev visible; -1 when s does not parse, -2 when it names more GPUs or
   a higher device number than there are */
int gcuba_env_devices(const char *s, int ndev, int *dev, int max)
{
  long long v;
  int n = 0;
  while (*s == ' ' || *s == '\t') ++s;
  if (!strncmp(s, "all", 3)) {
    for (s += 3; *s == ' ' || *s == '\t'; ++s) {}
    if (*s) return -1;
    for (; n < ndev && n < max; ++n) dev[n] = n;
    return n > 0 ? n : -2;
  }
  if (!strchr(s, ',')) {
    if (parse_ll(s, 1, 1 << 20, &v)) return -1;
    if (v > ndev || v > max) return -2;
    for (; n < v; ++n) dev[n] = n;
    return n;
  }
  for (;;) {
    char item[32];
    size_t k = strcspn(s, ",");
    if (k == 0 || k >= sizeof item) return -1;
    memcpy(item, s, k);
    item[k] = 0;
    if (parse_ll(item, 0, 1 << 20, &v)) return -1;
    if (v >= ndev || n >= max) return -2;
    dev[n++] = (int)v;
    if (!s[k]) return n;
    s += k + 1;
  }
}

/* GCUBA_DEVICES=auto or auto:SPEC: 1 and *spec = SPEC ("all" for plain
   auto); else 0 and *spec = s */
int gcuba_env_devices_auto(const char *s, const char **spec)
{
  const char *p = s;
  while (*p == ' ' || *p == '\t') ++p;
  *spec = s;
  if (strncmp(p, "auto", 4)) return 0;
  for (p += 4; *p == ' ' || *p == '\t'; ++p) {}
  if (!*p) {
    *spec = "all";
    return 1;
  }
  if (*p != ':') return 0;
  *spec = p + 1;
  return 1;
}

static int bad_devices(const char *s)
{
  int dev[GCUBA_MAXDEVICES];
  gcuba_env_devices_auto(s, &s);
  return gcuba_env_devices(s, 1 << 20, dev, GCUBA_MAXDEVICES) == -1;
}
static int bad_ms(const char *s)
{
  long long v;
  return parse_ll(s, 0, 1LL << 40, &v);
}

int gcuba_env_cuts(void)
{
  const char *s = getenv("GCUBA_CUTS");
  return !(s && !strcmp(s, "0"));
}

double gcuba_env_devices_after(void)
{
  const char *s = getenv("GCUBA_DEVICES_AFTER");
  long long v;
  if (s && *s && !parse_ll(s, 0, 1LL << 40, &v)) return (double)v;
  return -1;
}

static const struct {
  const char *name, *expect;
  int (*bad)(const char *);
} env_table[] = {
  {"GCUBAVERBOSE", "0, 1, 2 or 3", bad_verbose},
  {"GCUBACORES", "a number of threads >= 0", bad_cores},
  {"GCUBA_DEVICE", "auto, cpu or gpu", bad_device},
  {"GCUBA_DEVICES", "all, a number of GPUs >= 1, a list such as 0,2,3, "
   "auto, or auto: and one of those", bad_devices},
  {"GCUBA_DEVICES_AFTER", "milliseconds >= 0", bad_ms},
  {"GCUBA_MEMLIMIT", "bytes, e.g. 4000000000, 512M or 8G", bad_bytes},
  {"GCUBA_CUHRE_MINBATCH", "a number of regions >= 1", bad_positive},
  {"GCUBA_CUTS", "0 or 1", bad_01},
  {"GCUBA_VEGAS_NBINS", "2..1024", bad_nbins},
  {"GCUBA_VEGAS_ADAPT", "auto or a number of iterations >= 0", bad_adapt},
  {"GCUBA_VEGAS_BETA", "a number from 0 to 1", bad_beta},
};

int gcuba_env_check(gcuba_call *c)
{
  size_t i;
  for (i = 0; i < sizeof env_table / sizeof *env_table; ++i) {
    const char *s = getenv(env_table[i].name);
    if (s && *s && env_table[i].bad(s))
      return gcuba_fail(c, GCUBA_FAIL_ENV, "%s=\"%s\": expected %s",
                        env_table[i].name, s, env_table[i].expect);
  }
  return 0;
}

/* a bad GCUBAVERBOSE raises nothing (gcuba_env_check fails the call) */
int gcuba_env_verbose(int flags)
{
  int v = flags & 3;
  const char *s = getenv("GCUBAVERBOSE");
  long long e;
  if (s && *s && !parse_ll(s, 0, 3, &e) && e > v) v = (int)e;
  return v;
}

void gcuba_batch_inner(int on) { batch_inner = on; }

int gcuba_threads(void)
{
  int n;
  if (batch_inner) return 1;
  if (cores_set >= 0) return cores_set > 0 ? cores_set : 1;
  if (env_int("GCUBACORES", &n) > 0) return n > 0 ? n : 1;
#ifdef _OPENMP
  n = omp_get_max_threads();
  return n > 0 ? n : 1;
#else
  return 1;
#endif
}

void gcubacores(const int *n, const int *p)
{
  (void)p;
  if (n) cores_set = *n < 0 ? -1 : *n;
}

void gcubaaccel(const int *n, const int *p)
{
  (void)p;
  if (n) accel_set = *n < 0 ? -1 : *n;
}

void gcubainit(void (*f)(), void *arg)
{
  init_fn = (hook_fn)f;
  init_arg = arg;
}

void gcubaexit(void (*f)(), void *arg)
{
  exit_fn = (hook_fn)f;
  exit_arg = arg;
}

/* the routine calls running in this process (gcuba_calls_running) */
static int calls_running;

void gcuba_run_init(void)
{
  const int core = MASTER_CORE;
  __atomic_add_fetch(&calls_running, 1, __ATOMIC_SEQ_CST);
  if (init_fn) init_fn(init_arg, &core);
}

void gcuba_run_exit(void)
{
  const int core = MASTER_CORE;
  if (exit_fn) exit_fn(exit_arg, &core);
  __atomic_sub_fetch(&calls_running, 1, __ATOMIC_SEQ_CST);
}

double gcuba_now_ms(void)
{
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec * 1e3 + ts.tv_nsec * 1e-6;
}

int gcuba_calls_running(void)
{
  return __atomic_load_n(&calls_running, __ATOMIC_SEQ_CST);
}

const char *gcuba_last_backend(void)
{
  return last_backend == GCUBA_BK_GPU ? "gpu" : "cpu";
}

void gcuba_set_last_backend(int bk)
{
  last_backend = bk;
  last_devices = bk == GCUBA_BK_GPU;
}
void gcuba_set_last_devices(int n) { last_devices = n; }
int gcuba_last_devices(void) { return last_devices; }

int gcuba_device_count(void) { return gcuba_cuda_device_count(); }

int gcuba_choose_backend(gcuba_call *c, int gpu_impl)
{
  const char *s = getenv("GCUBA_DEVICE");
  int want; /* 0 cpu, 1 gpu, 2 auto */
  int has_gpu_code = c->integrand->gpu != NULL;
  char name[128];
  if (!s || !*s || !strcmp(s, "auto")) want = 2;
  else if (!strcmp(s, "cpu")) want = 0;
  else if (!strcmp(s, "gpu")) want = 1;
  else
    return gcuba_fail(c, GCUBA_FAIL_ENV,
                      "GCUBA_DEVICE=%s (expected cpu, gpu or auto)", s);
  if (want == 2 && (accel_set == 0 || batch_inner)) want = 0;
#ifndef HAVE_CUDA
  if (want == 1)
    return gcuba_fail(c, GCUBA_FAIL_NODEVICE,
                      "GCUBA_DEVICE=gpu: this gcuba was built without CUDA");
#endif
  if (want == 1 && !gpu_impl)
    return gcuba_fail(c, GCUBA_FAIL_NOTAVAIL,
                      "GCUBA_DEVICE=gpu: %s has no GPU backend yet",
                      c->routine);
  if (want == 2 && !gpu_impl) want = 0;
  if (want != 0) {
    int ndev = has_gpu_code ? gcuba_cuda_device_count() : 0;
    if (ndev > 0) {
      /* (the name costs a cudaGetDeviceProperties: only when said) */
      if (c->verbose >= 1) {
        const int dev = gcuba_cuda_current();
        gcuba_log(c, 1, "backend gpu (device %d: %s)", dev < 0 ? 0 : dev,
                  gcuba_cuda_device_name(dev < 0 ? 0 : dev, name,
                                         sizeof name));
      }
      return GCUBA_BK_GPU;
    }
    if (want == 1)
      return gcuba_fail(c, GCUBA_FAIL_NODEVICE, "%s",
                        !has_gpu_code
                            ? "the integrand was not compiled by nvcc"
                            : "no usable CUDA device");
  }
  gcuba_log(c, 1, "backend cpu (%d thread%s)", gcuba_threads(),
            gcuba_threads() > 1 ? "s" : "");
  return GCUBA_BK_CPU;
}

void gcuba_userdata_size(size_t bytes) { userdata_bytes = bytes; }

size_t gcuba_userdata_bytes(void) { return userdata_bytes; }

void gcuba_release(void) { gcuba_cuda_release(); }
