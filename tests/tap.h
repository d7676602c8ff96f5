/* tests/tap.h -- a small TAP producer for the test programs.
   This file is part of gcuba.

   plan(n) prints "1..n"; ok(cond, fmt, ...) prints "ok N - ..." or "not ok N - ...";
   diag(fmt, ...) prints "# ..."; skip_all(reason) prints "1..0 # SKIP reason" and exits 0;
   done() returns the exit status (0 when every assertion passed and the plan was met).
   Use plan(0) ... done_testing() for programs whose count is computed as they go. */
#ifndef GCUBA_TESTS_TAP_H
#define GCUBA_TESTS_TAP_H

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

#if defined(__GNUC__)
#define TAP_UNUSED __attribute__((unused))
#else
#define TAP_UNUSED
#endif

static int tap_planned = -1, tap_run = 0, tap_failed = 0;

TAP_UNUSED static void plan(int n)
{
  tap_planned = n;
  if (n > 0) printf("1..%d\n", n);
  fflush(stdout);
}

TAP_UNUSED static void diag(const char *fmt, ...)
{
  va_list ap;
  va_start(ap, fmt);
  printf("# ");
  vprintf(fmt, ap);
  printf("\n");
  va_end(ap);
  fflush(stdout);
}

TAP_UNUSED static int ok(int cond, const char *fmt, ...)
{
  va_list ap;
  ++tap_run;
  if (!cond) ++tap_failed;
  printf("%sok %d - ", cond ? "" : "not ", tap_run);
  va_start(ap, fmt);
  vprintf(fmt, ap);
  va_end(ap);
  printf("\n");
  fflush(stdout);
  return cond;
}

TAP_UNUSED static void skip_all(const char *reason)
{
  printf("1..0 # SKIP %s\n", reason);
  fflush(stdout);
  exit(0);
}

TAP_UNUSED static int done(void)
{
  if (tap_planned <= 0) printf("1..%d\n", tap_run);
  else if (tap_planned != tap_run) {
    printf("# planned %d tests but ran %d\n", tap_planned, tap_run);
    return 1;
  }
  fflush(stdout);
  return tap_failed ? 1 : 0;
}

/* |a - b| <= tol * |b|, with b the reference */
TAP_UNUSED static int close_rel(double a, double b, double tol)
{
  double d = a - b;
  if (d < 0) d = -d;
  if (b < 0) b = -b;
  return d <= tol * b;
}

#endif
