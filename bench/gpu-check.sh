#!/bin/bash
# bench/gpu-check.sh -- the GPU machine's checks, for a developer with a
# lent GPU: run from the source root, logs under $OUT (default ./_gpu/out).
#
#   bash bench/gpu-check.sh build    configure (CUDA, --with-cuda-arch from
#                                    GPU_ARCH, default 90) and make, in _gpu/
#   bash bench/gpu-check.sh check    make check with GCUBA_TEST_REQUIRE_GPU=1
#                                    (a GPU test that skips fails)
#   bash bench/gpu-check.sh sanitize compute-sanitizer (memcheck, leaks;
#                                    racecheck on the Cuhre battery) over the
#                                    GPU test programs (SAN_TESTS: only these)
#   bash bench/gpu-check.sh mpi      tests/test-mpi-gpu under mpirun -np 2,
#                                    each process under compute-sanitizer
#                                    (memcheck, leaks), on the one GPU
#   bash bench/gpu-check.sh mpibench bench/bench-mpi on the GPU backend
#                                    with 1, 2, 4, ... processes (up to the
#                                    GPUs there are), one GPU each (MPI_REPS,
#                                    MPI_CASES: its --reps and --cases)
#   bash bench/gpu-check.sh devbench the same, one process on 1, 2, 4, ...
#                                    GPUs (GCUBA_DEVICES, bench-mpi --local)
#   bash bench/gpu-check.sh bench    bench-1d, bench-cuhre and bench-genz on the GPU
#                                    (BENCH_LIMIT seconds per level, default
#                                    2), then the reference PAGANI when
#                                    .refgpu/run.sh is there
#   bash bench/gpu-check.sh batch    bench-batch (BATCH_N integrals, default
#                                    100000; BATCH_LOOP in the loops)
#   bash bench/gpu-check.sh vegasbatch  gVegasBatch's two cases of
#                                    bench/RESULTS.md (10,000 5-D and
#                                    100,000 3-D peaks), VB_RUNS times
#                                    each (default 3) with the pipeline's
#                                    timings (--verbose), then, where ncu
#                                    is, the 5-D batch's device time per
#                                    kernel (bench/ncu-sum.py)
#   bash bench/gpu-check.sh fortran-build   (on a machine with gfortran and
#                                    nvcc, no GPU needed) the Fortran test
#                                    programs, linked statically to a CUDA
#                                    build of libgcuba, into _gpu/fortran-bin
#   bash bench/gpu-check.sh fortran  runs those (carry _gpu/fortran-bin to a
#                                    GPU machine without gfortran)
# Several steps in one call: bash bench/gpu-check.sh build check sanitize
# Random123's headers may travel in .devdeps/usr/include (see README's
# developer notes); they are used when present.  This file is part of gcuba.
set -u
src=$(pwd)
out=${OUT:-$src/_gpu/out}
bdir=$src/_gpu/build
mkdir -p "$out" "$bdir"
status=0
J=${J:-16}
say() { echo "=== $* ($(date +%T))"; }

build() {
  say build
  local cpp=
  [ -d "$src/.devdeps/usr/include" ] && cpp="-I$src/.devdeps/usr/include"
  nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader \
    > "$out/gpu.txt" 2>&1
  cat "$out/gpu.txt"
  ( cd "$bdir" &&
    { [ -f Makefile ] || "$src/configure" --with-cuda-arch="${GPU_ARCH:-90}" \
        CPPFLAGS="$cpp" > "$out/configure.log" 2>&1; } &&
    make -j"$J" > "$out/build.log" 2>&1 &&
    make -j"$J" check TESTS= > "$out/build-tests.log" 2>&1 &&
    make -j"$J" bench/bench-cuhre bench/bench-vegas bench/bench-genz \
      bench/bench-1d bench/bench-batch >> "$out/build-tests.log" 2>&1 ) \
    || { status=1; tail -30 "$out/configure.log" "$out/build.log" \
           "$out/build-tests.log" 2>/dev/null; }
  grep -E "^  (CUDA|Fortran|OpenMP|Random123|MPI)" "$out/configure.log"
}

check() {
  say "make check, GPU tests required"
  ( cd "$bdir" && GCUBA_TEST_REQUIRE_GPU=1 make -j"$J" check ) \
    > "$out/check.log" 2>&1 || status=1
  grep -E "^(FAIL|ERROR|SKIP|XPASS)|^# (TOTAL|PASS|SKIP|FAIL|ERROR)" "$out/check.log"
  cp "$bdir/test-suite.log" "$out/" 2>/dev/null
}

sanitize() {
  say compute-sanitizer
  local t tool log
  cd "$bdir" || return
  for t in ${SAN_TESTS:-tests/test-gpu tests/test-cuhre-gpu \
           tests/test-cuhre-suite-gpu \
           tests/test-cuhre-bad-gpu tests/test-cuhre-state-gpu \
           tests/test-cuhre-demo-gpu tests/test-cuhre-1d-gpu \
           tests/test-romberg-gpu tests/test-batch-gpu \
           tests/test-vegas-gpu tests/test-vegas-bad-gpu \
           tests/test-devices-gpu}; do
    [ -x "$t" ] || continue
    for tool in memcheck racecheck; do
      # racecheck is slow: the Cuhre kernels' shared-memory reductions only
      [ $tool = racecheck ] && [ "$t" != tests/test-gpu ] && continue
      log=$out/sanitize.log
      echo "--- $tool $t" >> "$log"
      if GCUBA_TEST_REQUIRE_GPU=1 ./libtool --mode=execute compute-sanitizer \
           --tool $tool $( [ $tool = memcheck ] && echo --leak-check full ) \
           --error-exitcode 99 "$t" > "$out/san.tmp" 2>&1; then
        echo "clean: $tool $t ($(grep -c '^ok' "$out/san.tmp") ok)"
      else
        echo "NOT CLEAN: $tool $t (exit $?)"; status=1
        grep -E "^=========|^not ok" "$out/san.tmp" | head -20
      fi
      grep -E "ERROR SUMMARY|LEAK SUMMARY|not ok" "$out/san.tmp" >> "$log"
    done
  done
  rm -f "$out/san.tmp"
  cd "$src" || return
}

mpi() {
  say "compute-sanitizer under mpirun -np 2 (libgcuba_mpi)"
  cd "$bdir" || return
  if [ -x tests/test-mpi-gpu ]; then
    if OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 \
       GCUBA_TEST_REQUIRE_GPU=1 mpirun --oversubscribe -np 2 \
         ./libtool --mode=execute compute-sanitizer --tool memcheck \
         --leak-check full --error-exitcode 99 tests/test-mpi-gpu \
         > "$out/sanitize-mpi.log" 2>&1; then
      echo "clean: memcheck, 2 processes, tests/test-mpi-gpu" \
        "($(grep -c '^ok' "$out/sanitize-mpi.log") ok)"
    else
      echo "NOT CLEAN: memcheck, 2 processes, tests/test-mpi-gpu"; status=1
      grep -E "^=========|^not ok" "$out/sanitize-mpi.log" | head -20
    fi
    grep -E "ERROR SUMMARY|LEAK SUMMARY" "$out/sanitize-mpi.log"
  else
    echo "no tests/test-mpi-gpu (configure found no MPI?)"; status=1
  fi
  cd "$src" || return
}

# bench-mpi over 1, 2, 4, ... GPUs: one process per GPU (mpi), or one
# process using them all through GCUBA_DEVICES (local)
gpus_bench() {
  local mode=$1 ngpu n=1 log
  cd "$bdir" || return
  ngpu=$(nvidia-smi -L 2>/dev/null | grep -c "^GPU")
  make -j"$J" bench/bench-mpi > "$out/bench-mpi-build.log" 2>&1 \
    || { status=1; tail -20 "$out/bench-mpi-build.log"; cd "$src"; return; }
  log=$out/bench-$([ "$mode" = local ] && echo devices || echo mpi).txt
  : > "$log"
  while [ $n -le "${ngpu:-1}" ]; do
    if [ "$mode" = local ]; then
      # --bind-to none: Open MPI binds one process to one core, where the
      # GPUs' threads would wait for each other
      GCUBA_DEVICES=$n OMPI_ALLOW_RUN_AS_ROOT=1 \
        OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 mpirun --bind-to none -np 1 \
        ./bench/bench-mpi \
        --local --backend gpu --reps "${MPI_REPS:-3}" \
        ${MPI_CASES:+--cases "$MPI_CASES"} >> "$log" 2>&1 || status=1
    else
      OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 \
        mpirun --oversubscribe -np $n ./bench/bench-mpi --backend gpu \
        --reps "${MPI_REPS:-3}" ${MPI_CASES:+--cases "$MPI_CASES"} \
        >> "$log" 2>&1 || status=1
    fi
    n=$((n * 2))
  done
  cat "$log"
  cd "$src" || return
}

mpibench() {
  say "bench-mpi: gCuhre over 1, 2, 4, ... processes and GPUs"
  gpus_bench mpi
}

devbench() {
  say "bench-mpi --local: gCuhre and gVegas on 1, 2, 4, ... GPUs of one process"
  gpus_bench local
}

bench() {
  say bench
  cd "$bdir" || return
  GCUBA_DEVICE=gpu ./bench/bench-1d --n "${BENCH_1D_N:-20}" \
    > "$out/bench-1d-gpu.txt" 2>&1 || status=1
  tail -4 "$out/bench-1d-gpu.txt"
  GCUBA_DEVICE=gpu ./bench/bench-cuhre --backend gpu --limit "${BENCH_LIMIT:-2}" \
    --csv "$out/bench-cuhre.csv" > "$out/bench-cuhre.txt" 2>&1 || status=1
  tail -5 "$out/bench-cuhre.txt"
  GCUBA_DEVICE=gpu ./bench/bench-genz --backend gpu --routines cuhre \
    > "$out/bench-genz-gpu.txt" 2>&1 || status=1
  grep -E "^cuhre +\* |^# cuhre" "$out/bench-genz-gpu.txt"
  cd "$src" || return
  if [ -f .refgpu/run.sh ] && [ "${REF:-1}" = 1 ]; then
    say "reference PAGANI"
    REF_ALGS=pagani REF_TOTAL_S=${REF_TOTAL_S:-240} OUT=$out bash .refgpu/run.sh \
      > "$out/ref-run.txt" 2>&1
    tail -3 "$out/ref-run.txt"
  fi
}

batch() {
  say "bench-batch (gCuhreBatch: CPU threads, GPU pipeline, loops)"
  cd "$bdir" || return
  ./bench/bench-batch --n "${BATCH_N:-100000}" --loop "${BATCH_LOOP:-2000}" \
    --oned "${BATCH_1D:-10000}" --vegas "${BATCH_VEGAS:-10000}" \
    > "$out/bench-batch.txt" 2>&1 || status=1
  cat "$out/bench-batch.txt"
  cd "$src" || return
}

vegasbatch() {
  say "gVegasBatch's GPU pipeline (bench-batch --only-vegas)"
  local r log=$out/bench-vegasbatch.txt
  cd "$bdir" || return
  make -j"$J" bench/bench-batch > "$out/bench-batch-build.log" 2>&1 \
    || { status=1; tail -20 "$out/bench-batch-build.log"; cd "$src"; return; }
  : > "$log"
  for r in $(seq "${VB_RUNS:-3}"); do
    ./bench/bench-batch --n 10000 --vegas 10000 --loop 0 --only-vegas \
      --verbose >> "$log" 2>&1 || status=1
    ./bench/bench-batch --n 100000 --vegas 100000 --vegas-dim 3 --loop 0 \
      --only-vegas --verbose >> "$log" 2>&1 || status=1
  done
  grep -E "GPU pipeline|integrals in" "$log"
  if command -v ncu > /dev/null; then
    ncu --metrics gpu__time_duration.sum --csv ./bench/bench-batch --n 10000 \
      --vegas 10000 --loop 0 --only-vegas > "$out/ncu-vegasbatch.csv" \
      2> "$out/ncu-vegasbatch.err" &&
      python3 "$src/bench/ncu-sum.py" "$out/ncu-vegasbatch.csv" \
      || { status=1; tail -5 "$out/ncu-vegasbatch.err"; }
  fi
  cd "$src" || return
}

fortran_build() {
  say "Fortran test programs (static libgcuba, CUDA)"
  local fb=$src/_gpu/fbuild bin=$src/_gpu/fortran-bin
  mkdir -p "$fb" "$bin"
  ( cd "$fb" &&
    { [ -f Makefile ] || "$src/configure" --disable-shared \
        --with-cuda-arch="${GPU_ARCH:-90}" > configure.log 2>&1; } &&
    make -j"$J" > build.log 2>&1 &&
    make -j"$J" tests/test-fortran-legacy tests/test-fortran-module \
      tests/test-romberg-fortran demo/demo-fortran >> build.log 2>&1 ) \
    || { status=1; tail -20 "$fb/configure.log" "$fb/build.log"; return; }
  cp "$fb/tests/test-fortran-legacy" "$fb/tests/test-fortran-module" \
     "$fb/tests/test-romberg-fortran" "$fb/demo/demo-fortran" "$bin/"
  ls -l "$bin"
}

fortran() {
  say "Fortran test programs, GPU tests required"
  local t bin=$src/_gpu/fortran-bin
  for t in test-fortran-legacy test-fortran-module test-romberg-fortran; do
    if [ ! -x "$bin/$t" ]; then echo "no $bin/$t"; status=1; continue; fi
    GCUBA_TEST_REQUIRE_GPU=1 "$bin/$t" > "$out/$t.log" 2>&1
    local st=$? nok nnot
    nok=$(grep -c '^ok' "$out/$t.log") nnot=$(grep -c '^not ok' "$out/$t.log")
    echo "$t: exit $st, $nok ok, $nnot not ok"
    grep -E '^not ok|# SKIP|devices' "$out/$t.log" | head
    [ $st = 0 ] && [ "$nnot" = 0 ] && [ "$nok" -gt 0 ] || status=1
  done
  ( cd "$out" && "$bin/demo-fortran" > demo-fortran.log 2>&1 ) \
    || { echo "demo-fortran failed"; status=1; }
  grep -c "gpu" "$out/demo-fortran.log" | sed 's/^/demo-fortran lines on the gpu: /'
}

[ $# -gt 0 ] || set -- build check
for step in "$@"; do
  case $step in
  build|check|sanitize|mpi|mpibench|devbench|bench|batch|vegasbatch|fortran)
    $step ;;
  fortran-build) fortran_build ;;
  *) echo "gpu-check.sh: unknown step $step"; exit 2 ;;
  esac
done
say "done, status $status"
exit $status
