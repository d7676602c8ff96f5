/* src/common/status.c -- fail codes and their messages, one table
   (GCUBA_FAIL_LIST in gcuba.h); logging to stderr under the verbosity
   bits.  This file is part of gcuba. */
#include <stdarg.h>
#include <stdio.h>
#include "common.h"

const char *gcuba_fail_message(int fail)
{
#define GCUBA_FAIL_CASE_(v, name, msg) \
  case v:                              \
    return msg;
  switch (fail) {
    GCUBA_FAIL_LIST(GCUBA_FAIL_CASE_)
  }
#undef GCUBA_FAIL_CASE_
  if (fail > 0) return "accuracy not reached within maxeval or the memory available";
  return "unknown fail code";
}

static void vlog(const gcuba_call *c, const char *fmt, va_list ap)
{
  fprintf(stderr, "%s: ", c && c->routine ? c->routine : "gcuba");
  vfprintf(stderr, fmt, ap);
  fputc('\n', stderr);
  fflush(stderr);
}

void gcuba_log(const gcuba_call *c, int level, const char *fmt, ...)
{
  va_list ap;
  if (!c || c->verbose < level) return;
  va_start(ap, fmt);
  vlog(c, fmt, ap);
  va_end(ap);
}

int gcuba_fail(gcuba_call *c, int fail, const char *fmt, ...)
{
  va_list ap;
  c->fail = fail;
  if (c->verbose >= 1) {
    fprintf(stderr, "%s: fail = %d (%s)%s", c->routine ? c->routine : "gcuba",
            fail, gcuba_fail_message(fail), fmt && *fmt ? ": " : "");
    if (fmt && *fmt) {
      va_start(ap, fmt);
      vfprintf(stderr, fmt, ap);
      va_end(ap);
    }
    fputc('\n', stderr);
    fflush(stderr);
  }
  return fail;
}
