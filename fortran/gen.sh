#!/bin/sh
# fortran/gen.sh -- gcuba's Fortran interface from its one table,
# fortran/routines.def (the way FFTW generates fftw3.f03):
#   sh fortran/gen.sh SRCDIR OUTDIR
#     checks the table against SRCDIR/include/gcuba.h (and the other
#     headers it names), then writes OUTDIR/fortran/gcuba.fi,
#     OUTDIR/fortran/gcuba.f90 and OUTDIR/src/api/fortran.inc, each only
#     where its text changes (`make fortran-gen': OUTDIR = SRCDIR)
#   sh fortran/gen.sh -c SRCDIR
#     the check only
# The generated files are committed: a build never runs this script.
# tests/test-fortran-gen.sh runs it into a temporary directory and fails
# on any difference.  Needs only sh and a POSIX awk (fortran/gen.awk).
# This file is part of gcuba.
prog=$(dirname "$0")/gen.awk
mode=write
if [ "$1" = -c ]; then
  mode=check
  shift
fi
src=$1
out=$2
if [ -z "$src" ] || { [ $mode = write ] && [ -z "$out" ]; } || [ $# -gt 2 ]
then
  echo "usage: $0 SRCDIR OUTDIR | $0 -c SRCDIR" >&2
  exit 2
fi
: "${AWK:=awk}"
if [ $mode = check ]; then
  exec $AWK -v srcdir="$src" -v mode=check -f "$prog"
fi
mkdir -p "$out/fortran" "$out/src/api" || exit 1
tmp=$out/fortran/gen.$$
mkdir "$tmp" || exit 1
trap 'rm -rf "$tmp"' EXIT
$AWK -v srcdir="$src" -v outdir="$tmp" -v mode=write -f "$prog" || exit 1
for f in fortran/gcuba.fi fortran/gcuba.f90 src/api/fortran.inc; do
  new=$tmp/${f##*/}
  if cmp -s "$new" "$out/$f"; then
    echo "gen.sh: $f unchanged"
  else
    cp "$new" "$out/$f" || exit 1
    echo "gen.sh: wrote $f"
  fi
done
