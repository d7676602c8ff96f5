/* src/common/env.c -- settings from the environment and from
   gcubacores/gcubaaccel/gcubainit/gcubaexit; the choice of backend.
     GCUBAVERBOSE   raises the verbosity of every call (as CUBAVERBOSE)
     GCUBACORES     CPU threads for the CPU backend (as CUBACORES)
     GCUBA_DEVICE   cpu | gpu | auto (default auto)
   This file is part of gcuba. */
#include <stdlib.h>
#include <string.h>
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
static void (*init_fn)(void *), (*exit_fn)(void *);
static void *init_arg, *exit_arg;
static GCUBA_TLS int last_backend = GCUBA_BK_CPU;
static GCUBA_TLS size_t userdata_bytes;

static int env_int(const char *name, int *val)
{
  const char *s = getenv(name);
  char *end;
  long v;
  if (!s || !*s) return 0;
  v = strtol(s, &end, 10);
  if (*end || v < 0 || v > 1 << 20) return -1;
  *val = (int)v;
  return 1;
}

int gcuba_env_verbose(int flags)
{
  int v = flags & 3, e = 0;
  if (env_int("GCUBAVERBOSE", &e) > 0 && e > v) v = e;
  return v > 3 ? 3 : v;
}

int gcuba_threads(void)
{
  int n;
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
  init_fn = (void (*)(void *))f;
  init_arg = arg;
}

void gcubaexit(void (*f)(), void *arg)
{
  exit_fn = (void (*)(void *))f;
  exit_arg = arg;
}

void gcuba_run_init(void)
{
  if (init_fn) init_fn(init_arg);
}

void gcuba_run_exit(void)
{
  if (exit_fn) exit_fn(exit_arg);
}

const char *gcuba_last_backend(void)
{
  return last_backend == GCUBA_BK_GPU ? "gpu" : "cpu";
}

void gcuba_set_last_backend(int bk) { last_backend = bk; }

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
  if (want == 2 && accel_set == 0) want = 0;
  if (want == 1 && !gpu_impl)
    return gcuba_fail(c, GCUBA_FAIL_NOTAVAIL,
                      "GCUBA_DEVICE=gpu: %s has no GPU backend yet",
                      c->routine);
  if (want == 2 && !gpu_impl) want = 0;
  if (want != 0) {
    int ndev = has_gpu_code ? gcuba_cuda_device_count() : 0;
    if (ndev > 0) {
      gcuba_log(c, 1, "backend gpu (device 0: %s)",
                gcuba_cuda_device_name(0, name, sizeof name));
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
