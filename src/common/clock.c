/* src/common/clock.c -- the clock of messages and timing decisions, and
   the count of routine calls running in this process.  This file is part
   of gcuba. */
#include <time.h>
#include "common/common.h"

static int calls_running;

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

void gcuba_calls_add(int k)
{
  __atomic_add_fetch(&calls_running, k, __ATOMIC_SEQ_CST);
}
