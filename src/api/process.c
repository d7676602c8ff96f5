/* src/api/process.c -- the public functions that set or report state of
   the process rather than integrate: Cuba's gcubacores, gcubaaccel,
   gcubainit, gcubaexit, and gcuba's own gcuba_userdata_size,
   gcuba_last_backend, gcuba_last_devices, gcuba_device_count,
   gcuba_release, gcuba_strerror.  What they set is read by the plan
   (src/plan/).  This file is part of gcuba. */
#include "common/common.h"
#include "plan/plan.h"
#include "cuda/device.h"

void gcubacores(const int *n, const int *p)
{
  (void)p;
  if (n) gcuba_plan_set_cores(*n);
}

void gcubaaccel(const int *n, const int *p)
{
  (void)p;
  if (n) gcuba_plan_set_accel(*n);
}

void gcubainit(void (*f)(), void *arg) { gcuba_plan_set_hooks(0, f, arg); }

void gcubaexit(void (*f)(), void *arg) { gcuba_plan_set_hooks(1, f, arg); }

void gcuba_userdata_size(size_t bytes) { gcuba_plan_set_userdata_size(bytes); }

const char *gcuba_last_backend(void) { return gcuba_plan_last_backend(); }

int gcuba_last_devices(void) { return gcuba_plan_last_devices(); }

int gcuba_device_count(void) { return gcuba_cuda_device_count(); }

void gcuba_release(void) { gcuba_cuda_release(); }

const char *gcuba_strerror(int fail) { return gcuba_fail_message(fail); }
