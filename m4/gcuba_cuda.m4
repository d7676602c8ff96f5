# gcuba_cuda.m4 -- find nvcc and the CUDA runtime for gcuba.
#
# GCUBA_CHECK_CUDA
#   --with-cuda[=DIR] / --without-cuda: default is to look for nvcc on PATH,
#   then in /usr/local/cuda/bin, and use CUDA when it works.
#   --with-cuda-arch=LIST: space- or comma-separated compute capabilities
#   (default "80 90 100": A100, H100/H200, B200; PTX of the newest is
#   embedded too, so later GPUs JIT-compile it).
#   --with-cuda-test-arch=LIST: the compute capabilities of the programs
#   the build compiles for itself (tests, demo, benchmarks; the library
#   keeps --with-cuda-arch).  Default "auto": the GPUs nvidia-smi lists,
#   else the first of --with-cuda-arch; PTX is embedded as well.
#   Sets have_cuda=yes|no and substitutes NVCC, NVCCFLAGS, CUDA_CPPFLAGS,
#   CUDA_LDFLAGS, CUDA_LIBS, CUDA_ARCH_LIST, CUDA_GENCODE,
#   CUDA_TEST_ARCH_LIST, CUDA_TEST_GENCODE, and
#   CUDA_THREADS: --threads 0 when nvcc compiles the architectures of one
#   file in parallel (gcuba.pc's nvccflags: an integrand file compiles in
#   about the time of one architecture on a machine with cores to spare).
# _GCUBA_GENCODE(LIST): nvcc's -gencode options for the architectures of
# LIST (SASS of each, PTX of the last, which newer GPUs JIT-compile)
m4_define([_GCUBA_GENCODE], [(g=; l=; for a in $1; do g="$g -gencode=arch=compute_$a,code=sm_$a"; l=$a; done
  test -n "$l" && g="$g -gencode=arch=compute_$l,code=compute_$l"; echo "$g")])

AC_DEFUN([GCUBA_CHECK_CUDA], [
AC_ARG_WITH([cuda],
  [AS_HELP_STRING([--with-cuda@<:@=DIR@:>@],
    [build the CUDA backend (default: when nvcc is found on PATH or in /usr/local/cuda); DIR is the toolkit root])],
  [], [with_cuda=check])
AC_ARG_WITH([cuda-arch],
  [AS_HELP_STRING([--with-cuda-arch=LIST],
    [compute capabilities to build for (default: "80 90 100")])],
  [], [with_cuda_arch="80 90 100"])
AC_ARG_WITH([cuda-test-arch],
  [AS_HELP_STRING([--with-cuda-test-arch=LIST],
    [compute capabilities of the tests, demo and benchmarks (default: auto, the GPUs nvidia-smi finds, else the first of --with-cuda-arch)])],
  [], [with_cuda_test_arch=auto])
AC_ARG_VAR([NVCC], [CUDA compiler])
AC_ARG_VAR([NVCCFLAGS], [flags for the CUDA compiler])

have_cuda=no
CUDA_HOME=
AS_CASE([$with_cuda],
  [no], [],
  [yes|check], [
    AS_IF([test -z "$NVCC"],
      [AC_PATH_PROG([NVCC], [nvcc], [], [$PATH$PATH_SEPARATOR/usr/local/cuda/bin])])],
  [
    AS_IF([test -x "$with_cuda/bin/nvcc"], [NVCC="$with_cuda/bin/nvcc"],
      [AC_MSG_ERROR([--with-cuda=$with_cuda: no $with_cuda/bin/nvcc])])
  ])

AS_IF([test "x$with_cuda" != xno && test -n "$NVCC"], [
  CUDA_HOME=`dirname "$NVCC"`
  CUDA_HOME=`cd "$CUDA_HOME/.." && pwd`
  CUDA_ARCH_LIST=`echo "$with_cuda_arch" | tr ',' ' '`
  CUDA_GENCODE=`_GCUBA_GENCODE([$CUDA_ARCH_LIST])`
  CUDA_CPPFLAGS="-I$CUDA_HOME/include"
  cuda_libdir="$CUDA_HOME/lib64"
  AS_IF([test -d "$cuda_libdir"], [], [cuda_libdir="$CUDA_HOME/lib"])
  CUDA_LDFLAGS="-L$cuda_libdir -Wl,-rpath,$cuda_libdir"
  CUDA_LIBS="$CUDA_LDFLAGS -lcudart -lstdc++"
  AS_IF([test -z "$NVCCFLAGS"], [NVCCFLAGS="-O3"])

  AC_MSG_CHECKING([whether $NVCC builds and links a kernel for $CUDA_ARCH_LIST])
  cat > conftest.cu <<_GCUBA_EOF
__global__ void k(double *x) { x[[threadIdx.x]] *= 2; }
int main(void) { k<<<1, 1>>>(0); return (int)cudaSuccess; }
_GCUBA_EOF
  AS_IF([$NVCC -std=c++17 $CUDA_GENCODE -c conftest.cu -o conftest.$OBJEXT >&AS_MESSAGE_LOG_FD 2>&1 &&
         $CC conftest.$OBJEXT -o conftest$EXEEXT $CUDA_LIBS >&AS_MESSAGE_LOG_FD 2>&1],
    [have_cuda=yes], [have_cuda=no])
  AC_MSG_RESULT([$have_cuda])
  CUDA_THREADS=
  AS_IF([test "x$have_cuda" = xyes], [
    AC_MSG_CHECKING([whether $NVCC compiles the architectures in parallel])
    AS_IF([$NVCC -std=c++17 --threads 0 $CUDA_GENCODE -c conftest.cu -o conftest.$OBJEXT >&AS_MESSAGE_LOG_FD 2>&1],
      [CUDA_THREADS="--threads 0"; AC_MSG_RESULT([yes])], [AC_MSG_RESULT([no])])])
  CUDA_TEST_ARCH_LIST=
  AS_IF([test "x$have_cuda" = xyes], [
    AC_MSG_CHECKING([the compute capabilities of the tests])
    cuda_first=`echo $CUDA_ARCH_LIST | cut -d' ' -f1`
    cuda_test_auto=no
    AS_CASE([$with_cuda_test_arch],
      [auto|yes|''], [
        cuda_test_auto=yes
        CUDA_TEST_ARCH_LIST=`(nvidia-smi --query-gpu=compute_cap --format=csv,noheader) 2>/dev/null |
          tr -d '. ' | grep '^[[0-9]][[0-9]]*$' | sort -u | tr '\n' ' ' | sed 's/ *$//'`
        AS_IF([test -z "$CUDA_TEST_ARCH_LIST"], [CUDA_TEST_ARCH_LIST=$cuda_first])],
      [CUDA_TEST_ARCH_LIST=`echo "$with_cuda_test_arch" | tr ',' ' '`])
    CUDA_TEST_GENCODE=`_GCUBA_GENCODE([$CUDA_TEST_ARCH_LIST])`
    dnl a GPU nvcc does not know: auto falls back, an explicit list is an error
    AS_IF([$NVCC -std=c++17 $CUDA_TEST_GENCODE -c conftest.cu -o conftest.$OBJEXT >&AS_MESSAGE_LOG_FD 2>&1], [],
      [test "x$CUDA_TEST_ARCH_LIST" != "x$cuda_first" && test $cuda_test_auto = yes], [
        CUDA_TEST_ARCH_LIST=$cuda_first
        CUDA_TEST_GENCODE=`_GCUBA_GENCODE([$CUDA_TEST_ARCH_LIST])`],
      [AC_MSG_ERROR([--with-cuda-test-arch=$with_cuda_test_arch: $NVCC cannot build for $CUDA_TEST_ARCH_LIST (see config.log)])])
    AC_MSG_RESULT([$CUDA_TEST_ARCH_LIST])])
  rm -f conftest.cu conftest.$OBJEXT conftest$EXEEXT
  AS_IF([test "x$have_cuda" = xno && test "x$with_cuda" != xcheck],
    [AC_MSG_ERROR([CUDA requested but $NVCC cannot build for $CUDA_ARCH_LIST (see config.log)])])
])
AS_IF([test "x$have_cuda" = xyes], [
  AC_DEFINE([HAVE_CUDA], [1], [Define to 1 when the CUDA backend is built.])
], [
  CUDA_CPPFLAGS= CUDA_LDFLAGS= CUDA_LIBS= CUDA_ARCH_LIST= CUDA_GENCODE=
  CUDA_TEST_ARCH_LIST= CUDA_TEST_GENCODE= CUDA_THREADS=
])
AC_SUBST([CUDA_HOME])
AC_SUBST([CUDA_CPPFLAGS])
AC_SUBST([CUDA_LDFLAGS])
AC_SUBST([CUDA_LIBS])
AC_SUBST([CUDA_ARCH_LIST])
AC_SUBST([CUDA_GENCODE])
AC_SUBST([CUDA_TEST_ARCH_LIST])
AC_SUBST([CUDA_TEST_GENCODE])
AC_SUBST([CUDA_THREADS])
])
