#!/bin/sh
# tests/test-fortran-demo.sh -- demo/demo-fortran runs, and every result
# it prints lies within its reported error of the true value it prints
# (gCuhre: the error estimate; gVegas: 4 standard errors).  A routine
# that says "not available" (fail -8) is skipped.  Skipped as a whole in
# a build without Fortran.  This file is part of gcuba.
if [ "${HAVE_FORTRAN:-0}" != 1 ]; then
  echo "1..0 # SKIP no Fortran compiler (none found, or --disable-fortran)"
  exit 0
fi
demo=./demo/demo-fortran
out=${TMPDIR:-/tmp}/gcuba-fdemo.$$
trap 'rm -f "$out"' EXIT
"$demo" > "$out" 2>&1
status=$?
if [ $status -ne 0 ]; then
  echo "1..1"
  echo "not ok 1 - $demo exited with status $status"
  sed 's/^/# /' "$out"
  exit 1
fi
# the demo's output, into the log (not TAP: lines start with a blank)
sed 's/^/  /' "$out"
awk '
  function check(ok, msg) {
    printf "%sok %d - %s\n", ok ? "" : "not ", ++n, msg
    if (!ok) bad = 1
  }
  /---- gcuhre: / || /---- gvegas: / {
    what = $0; sub(/^ *---- /, "", what)
    vegas = what ~ /^gvegas/; fail = ""; val = ""
  }
  $1 == "fail" {
    fail = $3
    if (fail == -8) printf "ok %d - %s: not available # SKIP\n", ++n, what
    else if (fail < 0) check(0, what ": fail " fail)
  }
  $2 == "+-" { val = $1; err = $3 }
  /true value/ {
    d = val - $1; if (d < 0) d = -d
    tol = (vegas ? 4 : 1) * err + 1e-12
    check(fail == 0 && d <= tol, sprintf("%s: %s +- %s, true %s, fail %s",
                                         what, val, err, $1, fail))
  }
  END {
    if (n == 0) { print "not ok 1 - no results found"; n = 1; bad = 1 }
    printf "1..%d\n", n
    exit bad
  }
' "$out"
