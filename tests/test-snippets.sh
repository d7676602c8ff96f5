#!/bin/sh
# tests/test-snippets.sh -- the documentation checker (check-snippets.sh)
# fails on a broken snippet, a failing program and an unmarked build line,
# and passes good and norun ones.  Needs only cc.  This file is part of gcuba.
srcdir=${top_srcdir:-.}
chk=$srcdir/tests/check-snippets.sh
tmp=$(mktemp -d "${TMPDIR:-/tmp}/gcuba-snip-test.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT
echo "1..6"
if ! command -v cc > /dev/null 2>&1; then
  echo "# no cc"; exit 1
fi
n=0
# expect WHAT STATUS FILE: the checker's exit status on FILE
expect() {
  n=$((n + 1))
  sh "$chk" "$3" > "$tmp/out.$n" 2>&1
  st=$?
  if [ "$st" = "$2" ]; then
    echo "ok $n - $1 (exit $st)"
  else
    echo "not ok $n - $1: exit $st, expected $2"
    sed 's/^/# /' "$tmp/out.$n"
  fi
}
fence='```'
good() { # $1: program body line, $2: marker of the build block
  cat <<EOT
Some text.
<!-- file: hello.c -->
${fence}c
#include <stdio.h>
int main(void) { $1 }
${fence}
and the build:
$2
${fence}sh
cc hello.c -o hello
./hello
${fence}
EOT
}
good 'puts("hi"); return 0;' '<!-- run: cc -->' > "$tmp/good.md"
good 'puts("hi") return 0;' '<!-- run: cc -->' > "$tmp/broken.md"
good 'return 3;' '<!-- run: cc -->' > "$tmp/fails.md"
good 'return 0;' '' > "$tmp/unmarked.md"
good 'return 3;' '<!-- norun: a fragment -->' > "$tmp/norun.md"
good 'return 0;' '<!-- run: cc fortran77 -->' > "$tmp/badtool.md"
expect "a good snippet passes" 0 "$tmp/good.md"
expect "a snippet that does not compile fails" 1 "$tmp/broken.md"
expect "a program that exits non-zero fails" 1 "$tmp/fails.md"
expect "a build line outside a run block fails" 1 "$tmp/unmarked.md"
expect "a norun block is not run" 0 "$tmp/norun.md"
expect "an unknown tool is an error" 1 "$tmp/badtool.md"
