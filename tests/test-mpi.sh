#!/bin/sh
# tests/test-mpi.sh -- tests/test-mpi under mpirun with 1, 2, 3 and 4
# processes (one CPU thread each; 2 threads for one process): every run
# checks its collective results against local ones, and the results of
# all runs must be the same bits; then tests/test-mpi-fortran (when
# built) with 1, 2 and 3.  TAP.  This file is part of gcuba.
: "${MPIRUN:=mpirun}"
prog=tests/test-mpi
if ! command -v "$MPIRUN" > /dev/null 2>&1; then
  echo "1..0 # SKIP no mpirun"
  exit 0
fi
# Open MPI: more processes than cores, and (as CI does) as root
opts=
if "$MPIRUN" --version 2>&1 | grep -q "Open MPI"; then
  opts=--oversubscribe
  OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
  OMPI_MCA_rmaps_base_oversubscribe=1
  export OMPI_ALLOW_RUN_AS_ROOT OMPI_ALLOW_RUN_AS_ROOT_CONFIRM \
    OMPI_MCA_rmaps_base_oversubscribe
fi
n=0
# mpiruns PROG BASE PREFIX CORES NP...: PROG under mpirun with each NP
# processes (GCUBACORES=CORES threads each when CORES is set; 2 for one
# process), writing BASE-NP.digest; its TAP lines get PREFIX
mpiruns() {
  prog=$1 base=$2 prefix=$3 cores=$4
  shift 4
  for np in "$@"; do
    c=$cores
    [ -n "$c" ] && [ "$np" = 1 ] && c=2
    out=$(env ${c:+GCUBACORES=$c} "$MPIRUN" $opts -np "$np" "$prog" \
          "$base-$np.digest" 2>&1)
    rc=$?
    echo "$out" | grep -E "^(not )?ok " |
      sed "s/^\(\(not \)\{0,1\}ok - \)/\1$prefix/"
    echo "$out" | grep -vE "^(not )?ok " | sed 's/^/# /'
    n=$((n + $(echo "$out" | grep -cE "^(not )?ok ")))
    if [ $rc -ne 0 ] && ! echo "$out" | grep -q "^not ok "; then
      echo "not ok - ${prefix}np=$np: mpirun exited with $rc"
      n=$((n + 1))
    fi
  done
}
# same BASE PREFIX NP...: BASE-NP.digest equals BASE-1.digest
same() {
  base=$1 prefix=$2
  shift 2
  for np in "$@"; do
    if [ -s "$base-1.digest" ] && cmp -s "$base-1.digest" "$base-$np.digest"
    then
      echo "ok - ${prefix}np=$np: every collective result the bits of np=1's"
    else
      echo "not ok - ${prefix}np=$np: the results differ from np=1's"
      diff "$base-1.digest" "$base-$np.digest" 2>&1 | sed 's/^/# /' |
        head -20
    fi
    n=$((n + 1))
  done
}
mpiruns "$prog" test-mpi "" 1 1 2 3 4
same test-mpi "" 2 3 4
# the GPU backend (a CUDA build): 1, 2 and 3 processes on the one device
if [ -x tests/test-mpi-gpu ]; then
  mpiruns tests/test-mpi-gpu test-mpi-gpu "gpu: " "" 1 2 3
  [ -f test-mpi-gpu-1.digest ] && same test-mpi-gpu "gpu: " 2 3
fi
# Fortran (a build with gfortran and MPI's Fortran module): the legacy
# symbol and the module's gcuba_mpi_comm, 1, 2 and 3 processes
if [ -x tests/test-mpi-fortran ]; then
  mpiruns tests/test-mpi-fortran test-mpi-fortran "" 1 1 2 3
  same test-mpi-fortran "fortran: " 2 3
fi
rm -f test-mpi-[1-4].digest test-mpi-gpu-[1-3].digest \
  test-mpi-fortran-[1-3].digest
echo "1..$n"
