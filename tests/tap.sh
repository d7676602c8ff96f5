# tests/tap.sh -- the TAP helper of the shell tests (sourced; $tmp is the
# test's scratch directory): t DESCRIPTION COMMAND... runs the command,
# prints "ok N - DESCRIPTION" or "not ok N" with its output as comments;
# $n counts the tests.  This file is part of gcuba.
n=0
t() { # description, command...
  n=$((n + 1))
  d=$1
  shift
  if "$@" > "$tmp/log" 2>&1; then
    echo "ok $n - $d"
  else
    echo "not ok $n - $d"
    sed 's/^/# /' "$tmp/log"
  fi
}
