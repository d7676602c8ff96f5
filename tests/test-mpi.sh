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
for np in 1 2 3 4; do
  cores=1
  [ "$np" = 1 ] && cores=2
  out=$(GCUBACORES=$cores "$MPIRUN" $opts -np "$np" "$prog" \
        "test-mpi-$np.digest" 2>&1)
  rc=$?
  echo "$out" | grep -E "^(not )?ok " 
  echo "$out" | grep -vE "^(not )?ok " | sed 's/^/# /'
  n=$((n + $(echo "$out" | grep -cE "^(not )?ok ")))
  if [ $rc -ne 0 ] && ! echo "$out" | grep -q "^not ok "; then
    echo "not ok - np=$np: mpirun exited with $rc"
    n=$((n + 1))
  fi
done
for np in 2 3 4; do
  if cmp -s test-mpi-1.digest "test-mpi-$np.digest"; then
    echo "ok - np=$np: every collective result the bits of np=1's"
  else
    echo "not ok - np=$np: the results differ from np=1's"
    diff test-mpi-1.digest "test-mpi-$np.digest" | sed 's/^/# /' | head -20
  fi
  n=$((n + 1))
done
# the GPU backend (a CUDA build): 1, 2 and 3 processes on the one device
if [ -x tests/test-mpi-gpu ]; then
  for np in 1 2 3; do
    out=$("$MPIRUN" $opts -np "$np" tests/test-mpi-gpu \
          "test-mpi-gpu-$np.digest" 2>&1)
    rc=$?
    echo "$out" | grep -E "^(not )?ok " | sed 's/^\(\(not \)\{0,1\}ok - \)/\1gpu: /'
    echo "$out" | grep -vE "^(not )?ok " | sed 's/^/# /'
    n=$((n + $(echo "$out" | grep -cE "^(not )?ok ")))
    if [ $rc -ne 0 ] && ! echo "$out" | grep -q "^not ok "; then
      echo "not ok - gpu: np=$np: mpirun exited with $rc"
      n=$((n + 1))
    fi
  done
  if [ -f test-mpi-gpu-1.digest ]; then
    for np in 2 3; do
      if cmp -s test-mpi-gpu-1.digest "test-mpi-gpu-$np.digest"; then
        echo "ok - gpu: np=$np: every collective result the bits of np=1's"
      else
        echo "not ok - gpu: np=$np: the results differ from np=1's"
      fi
      n=$((n + 1))
    done
  fi
fi
# Fortran (a build with gfortran and MPI's Fortran module): the legacy
# symbol and the module's gcuba_mpi_comm, 1, 2 and 3 processes
if [ -x tests/test-mpi-fortran ]; then
  for np in 1 2 3; do
    out=$(GCUBACORES=1 "$MPIRUN" $opts -np "$np" tests/test-mpi-fortran \
          "test-mpi-fortran-$np.digest" 2>&1)
    rc=$?
    echo "$out" | grep -E "^(not )?ok " | sed "s/^\(\(not \)\{0,1\}ok - \)/\1np=$np: /"
    echo "$out" | grep -vE "^(not )?ok " | sed 's/^/# /'
    n=$((n + $(echo "$out" | grep -cE "^(not )?ok ")))
    if [ $rc -ne 0 ] && ! echo "$out" | grep -q "^not ok "; then
      echo "not ok - fortran: np=$np: mpirun exited with $rc"
      n=$((n + 1))
    fi
  done
  for np in 2 3; do
    if [ -s test-mpi-fortran-1.digest ] &&
       cmp -s test-mpi-fortran-1.digest "test-mpi-fortran-$np.digest"; then
      echo "ok - fortran: np=$np: the collective results the bits of np=1's"
    else
      echo "not ok - fortran: np=$np: the results differ from np=1's"
    fi
    n=$((n + 1))
  done
fi
rm -f test-mpi-[1-4].digest test-mpi-gpu-[1-3].digest \
  test-mpi-fortran-[1-3].digest
echo "1..$n"
