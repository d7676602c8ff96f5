#!/bin/sh
# tests/test-fortran-gen.sh -- the Fortran interface cannot drift from the
# C one: fortran/routines.def agrees with the prototypes and #defines of
# include/gcuba.h and include/gcuba_mpi.h, and fortran/gcuba.fi,
# fortran/gcuba.f90 and src/api/fortran.inc are what fortran/gen.sh
# writes from it (after editing either side: make fortran-gen).  Then
# the check itself is shown to bite, on copies with one thing changed.
# Needs only sh and awk.  This file is part of gcuba.
srcdir=${top_srcdir:-.}
gen=$srcdir/fortran/gen.sh
tmp=${TMPDIR:-/tmp}/gcuba-fgen.$$
mkdir -p "$tmp" || exit 1
trap 'rm -rf "$tmp"' EXIT
. "$srcdir/tests/tap.sh"
# copy SRC: the files the check reads, into $tmp/SRC
copy() {
  for f in fortran/routines.def fortran/gcuba.f90.in include/gcuba.h \
           include/gcuba_mpi.h src/mpi/gcuba_mpi.c; do
    mkdir -p "$tmp/$1/${f%/*}" && cp "$srcdir/$f" "$tmp/$1/$f" || return 1
  done
}
# bites WHAT FILE SED-SCRIPT: the check fails on a copy with FILE edited
bites() {
  c=$tmp/c$n
  copy "c$n" || return 1
  sed "$3" "$srcdir/$2" > "$c/$2"
  if cmp -s "$srcdir/$2" "$c/$2"; then
    echo "the edit ($3) changed nothing in $2"
    return 1
  fi
  if sh "$gen" -c "$c"; then
    echo "the check passed with $1"
    return 1
  fi
  return 0
}
# drifts WHAT FILE SED-SCRIPT OUT: from a copy with FILE edited,
# fortran/gen.sh writes an OUT other than the committed one
drifts() {
  c=$tmp/c$n
  copy "c$n" || return 1
  sed "$3" "$srcdir/$2" > "$c/$2"
  sh "$gen" "$c" "$c/out" || return 1
  if cmp -s "$srcdir/$4" "$c/out/$4"; then
    echo "$4 is the same with $1"
    return 1
  fi
  return 0
}
echo "1..9"
t "fortran/routines.def agrees with include/gcuba.h and gcuba_mpi.h" \
  sh "$gen" -c "$srcdir"
# same FILE: the committed FILE is what fortran/gen.sh writes
same() {
  if [ ! -f "$tmp/out/$1" ]; then
    echo "fortran/gen.sh wrote nothing:"
    cat "$tmp/gen.log"
    return 1
  fi
  diff -u "$srcdir/$1" "$tmp/out/$1"
}
sh "$gen" "$srcdir" "$tmp/out" > "$tmp/gen.log" 2>&1
for f in fortran/gcuba.fi fortran/gcuba.f90 src/api/fortran.inc; do
  t "$f is what fortran/gen.sh writes (else: make fortran-gen)" same "$f"
done
t "the check fails on a changed argument in the table" \
  bites "llgVegas's nstart an int" fortran/routines.def \
  '/^integrator gVegas/,/^end/s/^  nstart      count$/  nstart      int/'
t "the check fails on a changed argument in gcuba.h" \
  bites "gRomberg's mineval a long long" include/gcuba.h \
  '/^void gRomberg(/,/;/s/const int mineval/const long long int mineval/'
t "the check fails on a routine of gcuba.h missing from the table" \
  bites "gcuba_new in gcuba.h" include/gcuba.h \
  's/^void gcuba_release(void);/&\
int gcuba_new(int n);/'
t "the check fails on a #define of gcuba.h missing from the table" \
  bites "GCUBA_NEWFLAG in gcuba.h" include/gcuba.h \
  's/^#define GCUBA_REGIONS 128/&\
#define GCUBA_NEWFLAG 256/'
t "a new fail code in gcuba.h changes fortran/gcuba.fi" \
  drifts "GCUBA_FAIL_NEW in gcuba.h" include/gcuba.h \
  's/^  X(-99, GCUBA_FAIL_ABORT/  X(-19, GCUBA_FAIL_NEW, "new") &/' \
  fortran/gcuba.fi
