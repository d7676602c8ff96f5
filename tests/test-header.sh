#!/bin/sh
# tests/test-header.sh -- include/gcuba.h is a contract: it compiles as
# strict C99 and as C++, alone and with an integrand defined by
# GCUBA_INTEGRAND, with warnings as errors.  This file is part of gcuba.
: "${CC:=cc}"
: "${top_srcdir:=.}"
inc="-I$top_srcdir/include"
tmp=${TMPDIR:-/tmp}/gcuba-hdr.$$
mkdir -p "$tmp" || exit 1
trap 'rm -rf "$tmp"' EXIT
cat > "$tmp/a.c" <<'X'
#include <gcuba.h>
#include <gcuba.h>
int main(void)
{
  int nregions, neval, fail;
  double integral[1], error[1], prob[1];
  gintegrand_t f = 0;
  gCuhre(2, 1, f, 0, 1, 1e-3, 0, 0, 0, 1000, 0, 0, 0, &nregions, &neval,
         &fail, integral, error, prob);
  return fail == GCUBA_FAIL_NULL && gcuba_strerror(fail) ? 0 : 1;
}
X
cat > "$tmp/b.c" <<'X'
#include <math.h>
#include <gcuba.h>
GCUBA_INTEGRAND(Integrand)(const int *ndim, const double x[], const int *ncomp,
                           double f[], void *userdata)
{
  (void)ndim; (void)ncomp; (void)userdata;
  f[0] = exp(-625.0 * ((x[0] - .5) * (x[0] - .5) + (x[1] - .5) * (x[1] - .5)));
  return 0;
}
GCUBA_DECLARE_INTEGRAND(Integrand);
X
# a plain Cuba integrand, no cast, no wrapper (C11 and C++)
cat > "$tmp/p.c" <<'X'
#include <gcuba.h>
static int Integrand(const int *ndim, const double x[], const int *ncomp,
                     double f[], void *userdata)
{
  (void)ndim; (void)ncomp; (void)userdata;
  f[0] = x[0] * x[1];
  return 0;
}
int main(void)
{
  int nregions, neval, fail;
  double integral[1], error[1], prob[1];
  gCuhre(2, 1, Integrand, 0, 1, 1e-3, 0, 0, 0, 1000, 0, 0, 0, &nregions,
         &neval, &fail, integral, error, prob);
  gVegas(2, 1, Integrand, 0, 1, 1e-3, 0, 0, 0, 0, 1000, 100, 100, 100, 0,
         0, 0, &neval, &fail, integral, error, prob);
  gSuave(2, 1, Integrand, 0, 1, 1e-3, 0, 0, 0, 0, 1000, 100, 2, 25, 0, 0,
         &nregions, &neval, &fail, integral, error, prob);
  gDivonne(2, 1, Integrand, 0, 1, 1e-3, 0, 0, 0, 0, 1000, 47, 1, 1, 5, 0,
           10, .25, 0, 2, 0, 0, 0, 0, 0, &nregions, &neval, &fail, integral,
           error, prob);
  gRomberg(1, Integrand, 0, 1, 1e-3, 0, 0, 0, 1000, &neval, &fail,
           integral, error, prob);
  return 0;
}
X
. "$top_srcdir/tests/tap.sh"
echo "1..8"
t "gcuba.h compiles with $CC -std=c99 -pedantic -Wall -Wextra -Werror" \
  $CC -std=c99 -pedantic -Wall -Wextra -Werror $inc -c "$tmp/a.c" -o "$tmp/a.o"
t "an integrand file compiles as strict C99" \
  $CC -std=c99 -pedantic -Wall -Wextra -Werror $inc -c "$tmp/b.c" -o "$tmp/b.o"
t "the integrand object has external C linkage" \
  sh -c "nm '$tmp/b.o' | grep -q ' [DdRr] Integrand\$'"
if [ -n "$CXX" ] && command -v "${CXX%% *}" > /dev/null 2>&1; then
  t "gcuba.h compiles as C++ ($CXX -Wall -Wextra -pedantic -Werror)" \
    $CXX -x c++ -Wall -Wextra -pedantic -Werror $inc -c "$tmp/a.c" -o "$tmp/ac.o"
  t "an integrand file compiles as C++" \
    $CXX -x c++ -Wall -Wextra -pedantic -Werror $inc -c "$tmp/b.c" -o "$tmp/bc.o"
  t "C++ integrand object has unmangled external linkage" \
    sh -c "nm '$tmp/bc.o' | grep -q ' [DdRr] Integrand\$'"
  t "a plain Cuba integrand goes to every routine without a cast in C++" \
    $CXX -x c++ -Wall -Wextra -pedantic -Werror $inc -c "$tmp/p.c" \
    -o "$tmp/pc.o"
else
  n=$((n + 4))
  echo "ok 4 # SKIP no C++ compiler"
  echo "ok 5 # SKIP no C++ compiler"
  echo "ok 6 # SKIP no C++ compiler"
  echo "ok 7 # SKIP no C++ compiler"
fi
t "a plain Cuba integrand goes to every routine without a cast in C11" \
  $CC -std=c11 -pedantic -Wall -Wextra -Werror $inc -c "$tmp/p.c" \
  -o "$tmp/p.o"
