#!/bin/sh
# tests/check-snippets.sh -- compile and run the build lines of the
# documentation exactly as printed, against an installed gcuba.
#
#   check-snippets.sh [--examples DIR] [--keep] FILE.md ...
#
# In each markdown file:
#   <!-- file: NAME -->    the next fenced block is written to NAME
#   <!-- run: TOOLS -->    the next fenced block is run, line by line, by
#                          `sh -e'; TOOLS is a subset of "cc nvcc fc mpi": the
#                          block is skipped when one of them is missing
#   <!-- norun: WHY -->    the next fenced block is not checked
# Any other fenced block with a line that starts with a compiler (cc, gcc,
# c++, g++, nvcc, gfortran, mpicc, mpifort) is an error: a build line
# nobody compiles.
# Every markdown file gets its own scratch directory, holding a copy of the
# files of --examples DIR (if given) and then the blocks written to files;
# its run blocks execute there in order.
#
# The caller sets PKG_CONFIG_PATH (the installed gcuba.pc) and PATH (nvcc);
# nvcc counts as present when `nvcc' runs and the installed gcuba.pc says
# gcuba was built with CUDA (its cuda_libs is not empty), fc when gfortran
# runs, mpi when the installed gcuba-mpi.pc and mpirun are there (Open
# MPI: run as root is allowed, as on CI).  LD_LIBRARY_PATH is not set: a link line must make its program
# find libgcuba itself.  Prints TAP, one test per run block; exits 1 on
# any failure.  This file is part of gcuba.
set -u
examples= keep=no
while [ $# -gt 0 ]; do
  case $1 in
  --examples) examples=$2; shift 2 ;;
  --keep) keep=yes; shift ;;
  --) shift; break ;;
  -*) echo "check-snippets.sh: unknown option $1" >&2; exit 2 ;;
  *) break ;;
  esac
done
[ $# -gt 0 ] || { echo "usage: check-snippets.sh [--examples DIR] FILE.md ..." >&2; exit 2; }

have_cc=no have_nvcc=no have_fc=no have_mpi=no
command -v cc > /dev/null 2>&1 && have_cc=yes
if command -v nvcc > /dev/null 2>&1 &&
   [ -n "$(pkg-config --variable=cuda_libs gcuba 2>/dev/null)" ]; then
  have_nvcc=yes
fi
command -v gfortran > /dev/null 2>&1 && have_fc=yes
if pkg-config --exists gcuba-mpi 2>/dev/null && command -v mpirun > /dev/null 2>&1; then
  have_mpi=yes
  OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
  OMPI_MCA_rmaps_base_oversubscribe=1
  export OMPI_ALLOW_RUN_AS_ROOT OMPI_ALLOW_RUN_AS_ROOT_CONFIRM \
    OMPI_MCA_rmaps_base_oversubscribe
fi
unset LD_LIBRARY_PATH

top=$(mktemp -d "${TMPDIR:-/tmp}/gcuba-snippets.XXXXXX") || exit 2
n=0 nfail=0 nskip=0
echo "# cc: $have_cc, nvcc (and a CUDA build of gcuba): $have_nvcc, gfortran: $have_fc, MPI (gcuba-mpi.pc, mpirun): $have_mpi"
echo "# gcuba.pc: $(pkg-config --path gcuba 2>/dev/null || echo 'not found')"

for md in "$@"; do
  [ -f "$md" ] || { echo "check-snippets.sh: no file $md" >&2; exit 2; }
  base=$(echo "$md" | sed 's|.*/||; s|[^A-Za-z0-9._-]|_|g')
  dir=$top/$base
  blocks=$top/$base.blocks
  mkdir -p "$dir" "$blocks"
  if [ -n "$examples" ] && [ -d "$examples" ]; then
    for f in "$examples"/*; do
      [ -f "$f" ] && cp "$f" "$dir/"
    done
  fi
  # split the file into its fenced blocks: blocks/N holds block N's lines,
  # the manifest one line per block: N LINE KIND ARGS
  awk -v out="$blocks" '
    function flush_marker() { kind = "plain"; args = "" }
    BEGIN { n = 0; inb = 0; flush_marker() }
    inb == 0 && /^[ \t]*<!--[ \t]*(file|run|norun):/ {
      s = $0
      sub(/^[ \t]*<!--[ \t]*/, "", s); sub(/[ \t]*-->[ \t]*$/, "", s)
      kind = s; sub(/:.*/, "", kind)
      args = s; sub(/^[a-z]*:[ \t]*/, "", args)
      mline = NR
      next
    }
    inb == 0 && /^[ \t]*```/ {
      ++n; inb = 1; start = NR
      if (kind != "plain" && mline != NR - 1) { kind = "misplaced"; args = mline }
      printf "%d %d %s %s\n", n, NR, kind, args > (out "/manifest")
      printf "" > (out "/" n)
      next
    }
    inb == 1 && /^[ \t]*```[ \t]*$/ { inb = 0; close(out "/" n); flush_marker(); next }
    inb == 1 { print > (out "/" n); next }
    /^[ \t]*$/ { next }
    { flush_marker() }
  ' "$md"
  [ -f "$blocks/manifest" ] || continue
  while read -r num line kind args; do
    file=$blocks/$num
    case $kind in
    file)
      cp "$file" "$dir/$args" ;;
    run)
      n=$((n + 1))
      missing=
      for t in $args; do
        case $t in
        cc) [ $have_cc = yes ] || missing="$missing cc" ;;
        nvcc) [ $have_nvcc = yes ] || missing="$missing nvcc" ;;
        fc) [ $have_fc = yes ] || missing="$missing gfortran" ;;
        mpi) [ $have_mpi = yes ] || missing="$missing mpi" ;;
        *) missing="$missing unknown-tool-$t" ;;
        esac
      done
      case $missing in
      *unknown-tool-*)
        echo "not ok $n - $md:$line: run block names an unknown tool ($args)"
        nfail=$((nfail + 1)) ;;
      ?*)
        echo "ok $n - $md:$line # SKIP no$missing"
        nskip=$((nskip + 1)) ;;
      *)
        # (stdin from /dev/null: mpirun would read the manifest)
        if (cd "$dir" && sh -ex "$file") < /dev/null > "$blocks/$num.log" 2>&1; then
          echo "ok $n - $md:$line: $(grep -c . "$file") lines ($args)"
        else
          echo "not ok $n - $md:$line: a line failed ($args)"
          sed 's/^/# /' "$blocks/$num.log" | tail -n 30
          nfail=$((nfail + 1))
        fi ;;
      esac ;;
    norun) ;;
    misplaced)
      n=$((n + 1))
      echo "not ok $n - $md:$args: marker not on the line directly before a block"
      nfail=$((nfail + 1)) ;;
    *)
      if grep -Eq '^[ \t]*(\$ )?(cc|gcc|c\+\+|g\+\+|nvcc|gfortran|mpicc|mpifort)[ \t]' "$file"; then
        n=$((n + 1))
        echo "not ok $n - $md:$line: a build line outside a run block (mark it <!-- run: ... --> or <!-- norun: why -->)"
        nfail=$((nfail + 1))
      fi ;;
    esac
  done < "$blocks/manifest"
done

echo "1..$n"
echo "# PASS: $((n - nfail - nskip))"
echo "# SKIP: $nskip"
echo "# FAIL: $nfail"
if [ $keep = yes ]; then echo "# kept $top"; else rm -rf "$top"; fi
[ $nfail -eq 0 ]
