#!/bin/sh
# tests/check-cmake.sh PREFIX -- make installcheck: a small CMake project
# finds the gcuba installed under PREFIX with find_package(gcuba), builds
# a C program against gcuba::gcuba (and, when the install has the Fortran
# module and a Fortran compiler is there, one against gcuba::fortran) and
# runs it.  Skipped (exit 0, a line saying so) without cmake.  This file
# is part of gcuba.
prefix=$1
command -v cmake > /dev/null 2>&1 || { echo "check-cmake: no cmake, skipped"; exit 0; }
tmp=${TMPDIR:-/tmp}/gcuba-cmake.$$
mkdir -p "$tmp/src" || exit 1
trap 'rm -rf "$tmp"' EXIT
fortran=OFF
if [ -f "$prefix/lib/gcuba/finclude/gcuba.mod" ] ||
   ls "$prefix"/lib*/gcuba/finclude/gcuba.mod > /dev/null 2>&1; then
  command -v "${FC:-gfortran}" > /dev/null 2>&1 && fortran=ON
fi
cat > "$tmp/src/CMakeLists.txt" <<X
cmake_minimum_required(VERSION 3.12)
project(gcuba_consumer C)
find_package(gcuba 0.1 REQUIRED)
add_executable(consumer consumer.c)
target_link_libraries(consumer gcuba::gcuba)
if($fortran)
  enable_language(Fortran)
  add_executable(fconsumer fconsumer.f90)
  target_link_libraries(fconsumer gcuba::fortran)
endif()
X
cat > "$tmp/src/consumer.c" <<'X'
#include <math.h>
#include <stdio.h>
#include <gcuba.h>
static int product(const int *ndim, const double x[], const int *ncomp,
                   double f[], void *userdata)
{
  (void)ndim; (void)ncomp; (void)userdata;
  f[0] = x[0] * x[1];
  return 0;
}
int main(void)
{
  int nregions, neval, fail;
  double I, E, P;
  gCuhre(2, 1, gcuba_host_integrand(product, 0), NULL, 1, 1e-9, 0, 0, 0,
         100000, 0, NULL, NULL, &nregions, &neval, &fail, &I, &E, &P);
  printf("consumer: %.15g +- %.1e, fail %d\n", I, E, fail);
  return fail != 0 || fabs(I - 0.25) > 1e-9;
}
X
cat > "$tmp/src/fconsumer.f90" <<'X'
program fconsumer
  use gcuba
  implicit none
  external :: product
  integer :: nregions, neval, fail
  double precision :: integral(1), error(1), prob(1)
  call gcuhre(2, 1, product, 0d0, 1, 1d-9, 0d0, 0, 0, 100000, 0, "", -1, &
              nregions, neval, fail, integral, error, prob)
  print '(a,es22.15,a,i0)', 'fconsumer: ', integral(1), ', fail ', fail
  if (fail /= 0 .or. abs(integral(1) - 0.25d0) > 1d-9) stop 1
end program fconsumer

integer function product(ndim, x, ncomp, f)
  implicit none
  integer, intent(in) :: ndim, ncomp
  double precision, intent(in) :: x(ndim)
  double precision, intent(out) :: f(ncomp)
  f(1) = x(1) * x(2)
  product = 0
end function product
X
set -e
cmake -S "$tmp/src" -B "$tmp/build" -DCMAKE_PREFIX_PATH="$prefix" > "$tmp/log" 2>&1 ||
  { cat "$tmp/log"; echo "check-cmake: configuring the consumer failed"; exit 1; }
cmake --build "$tmp/build" >> "$tmp/log" 2>&1 ||
  { cat "$tmp/log"; echo "check-cmake: building the consumer failed"; exit 1; }
"$tmp/build/consumer"
if [ $fortran = ON ]; then "$tmp/build/fconsumer"; fi
echo "check-cmake: find_package(gcuba) works (Fortran: $fortran)"
