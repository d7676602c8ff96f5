/* gcuba.h -- public interface of gcuba, GPU numerical integration with
   the calling convention of the Cuba library (T. Hahn, cuba.h 4.2).

   Every Cuba routine keeps its argument list with a `g' in front of its
   name: gCuhre, llgCuhre, gVegas, llgVegas, gcubacores, gcubaaccel,
   gcubainit, gcubaexit; gRomberg, llgRomberg (1-D) are gcuba's own.  The
   integrand argument is a gintegrand_t: the object that
   GCUBA_INTEGRAND(name) defines (see below), or one made from a plain
   Cuba-style host function by gcuba_host_integrand().

   Plain C99; compiles as C++; includes no CUDA header when compiled by a
   C or C++ compiler.  Under nvcc, GCUBA_INTEGRAND also instantiates the
   integrand-dependent GPU kernels (include/gcuba/kernels.cuh).

   This file is part of gcuba.  See COPYING for the licence. */
#ifndef GCUBA_H
#define GCUBA_H

#define GCUBA_VERSION_MAJOR 0
#define GCUBA_VERSION_MINOR 1
#define GCUBA_VERSION_STRING "0.1.0"

/* Version of the integrand descriptor layout (struct gcuba_integrand).
   The library refuses a descriptor with another version (fail =
   GCUBA_FAIL_ABI): recompile the integrand file against this header.
   2: the GPU Cuhre kernel's launch block changed (gcuba 0.2).
   3: the GPU table gained gCuhreBatch's pipeline.
   4: the GPU Vegas launch block grew (Sobol points, largest sample).
   5: the GPU Cuhre launch block carries the parent records.
   6: the GPU Cuhre launch block carries widths as doubles, and the GPU
      table gained the search for where to cut a region.
   7: the GPU Vegas launch block carries the adaptive stratification's
      units.
   8: the GPU Cuhre and cut launch blocks carry the integral of each
      region (gCuhreBatch's pipeline runs on the rule kernel of single
      calls), and the GPU table has no batch kernel.
   9: the GPU Vegas launch block carries the map's edge powers.
  10: the GPU Vegas launch block carries a table of launches (gVegasBatch's
      pipeline samples many integrals' iterations in one launch). */
#define GCUBA_ABI_VERSION 10

#include <stddef.h>

typedef double gcubareal;

/* The integrand function, as in Cuba: x[ndim] in the unit hypercube in,
   f[ncomp] out; return 0, or -999 to abort the integration (fail = -99). */
typedef int (*gcuba_integrand_fn)(const int *ndim, const gcubareal x[],
                                  const int *ncomp, gcubareal f[],
                                  void *userdata);

/* Cuba's integrand_t, the same type under gcuba's name. */
typedef gcuba_integrand_fn gcuba_host_fn;

/* gDivonne's peak finder, as Cuba's peakfinder_t: given the region
   b[2 ndim] (lower and upper bound of each axis in turn), put at most *n
   points into x[*n ndim] and set *n to their number. */
typedef void (*gcuba_peakfinder_t)(const int *ndim, const gcubareal b[],
                                   int *n, gcubareal x[], void *userdata);

/* Integrand-dependent GPU entry points: host launchers of kernels that
   nvcc instantiated for one integrand (include/gcuba/kernels.cuh).
   Opaque to C code; NULL in a descriptor compiled by a C compiler. */
struct gcuba_gpu_ops;

/* Descriptor flags (struct gcuba_integrand.kind). */
#define GCUBA_DESC_POINT 0 /* fn evaluates one point: Cuba's 5 arguments */
#define GCUBA_DESC_NVEC 1  /* fn is a Cuba host function called with
                              (ndim, x, ncomp, f, userdata, nvec, core):
                              x[nvec*ndim], f[nvec*ncomp] */

/* An integrand: what GCUBA_INTEGRAND defines and gCuhre/gVegas take. */
struct gcuba_integrand {
  int abi;                          /* GCUBA_ABI_VERSION */
  int kind;                         /* GCUBA_DESC_POINT or GCUBA_DESC_NVEC */
  const char *name;                 /* the name given to GCUBA_INTEGRAND */
  gcuba_integrand_fn fn;            /* host function */
  const struct gcuba_gpu_ops *gpu;  /* GPU launchers, or NULL */
};

typedef const struct gcuba_integrand *gintegrand_t;

/* Flag bits.  Bits 0-31 have Cuba's meaning:
     bits 0-1  verbosity 0..3 (GCUBAVERBOSE may raise it, as CUBAVERBOSE);
               at 3 gCuhre also lists each region it evaluates, as Cuba
     bit 2     Cuba: use only the last set of samples.  gcuba's Cuhre
               always returns the final total with its honest error, so
               for gCuhre this bit changes nothing (doc/gcuba.md);
               gVegas: only the last iteration's result
     bit 3     Vegas: no smoothing of the importance function
     bit 4     keep the state file after a successful run
     bit 5     Vegas: reset the state from the state file, keep the grid
     bit 7     Cuba's Mathematica interface: return the regions;
               accepted, no effect
     bits 8-23 Cuba's random-number-generator level: accepted and ignored
               (gcuba draws from Philox, see doc/gcuba.md)
   gcuba's own bits sit above them, at 24-30. */
#define GCUBA_VERBOSE(n) ((n) & 3)
#define GCUBA_LAST 4
#define GCUBA_SHARPEDGES 8
#define GCUBA_KEEPSTATE 16
#define GCUBA_RESETSTATE 32
#define GCUBA_REGIONS 128
/* Cuhre: do not finish regions early on their relative error (for
   integrands that change sign, where region errors can cancel). */
#define GCUBA_NORELFINISH (1 << 24)
/* Vegas: one importance map shared by all axes (m-Cubes1D). */
#define GCUBA_VEGAS1D (1 << 25)
/* Vegas: once the grid is frozen, size the iterations from the measured
   variance so that three of them meet the tolerance (never fewer samples
   than nstart + k nincrease; maxeval still bounds the run). */
#define GCUBA_VEGASAUTO (1 << 26)
/* Vegas: adaptive stratification (VEGAS+): the samples of an iteration go
   to the cubes in proportion to their standard deviation to the power
   beta, 0.75 or GCUBA_VEGAS_BETA's (doc/vegas.md). */
#define GCUBA_VEGASPLUS (1 << 27)

/* fail codes.  0 and > 0 and -1, -2, -99 are Cuba's. */
#define GCUBA_FAIL_LIST(X)                                                     \
  X(0, GCUBA_OK, "converged: the error estimate meets the tolerance")          \
  X(1, GCUBA_FAIL_ACCURACY,                                                    \
    "accuracy not reached within maxeval or the memory available")           \
  X(2, GCUBA_FAIL_ROUNDOFF,                                                    \
    "the tolerance lies below the rounding floor: the best estimate kept")    \
  X(-1, GCUBA_FAIL_NDIM, "number of dimensions out of range")                  \
  X(-2, GCUBA_FAIL_NCOMP, "number of components out of range")                 \
  X(-3, GCUBA_FAIL_NULL, "NULL integrand, output pointer or descriptor")      \
  X(-4, GCUBA_FAIL_TOLERANCE, "negative or NaN tolerance (epsrel, epsabs)")    \
  X(-5, GCUBA_FAIL_EVALS, "bad evaluation limits (mineval, maxeval, nvec)")    \
  X(-6, GCUBA_FAIL_PARAM,                                                      \
    "bad routine parameter (nstart, nnew, ...) or GPU userdata without size") \
  X(-7, GCUBA_FAIL_ABI,                                                        \
    "not a gcuba integrand, or one compiled against another gcuba.h")         \
  X(-8, GCUBA_FAIL_NOTAVAIL, "routine not available in this build")           \
  X(-9, GCUBA_FAIL_NAN, "the integrand returned NaN or Inf")                   \
  X(-10, GCUBA_FAIL_NOMEM, "out of host memory")                               \
  X(-11, GCUBA_FAIL_STATE,                                                     \
    "state file unreadable, corrupt or from another problem")                  \
  X(-12, GCUBA_FAIL_STATEIO, "state file could not be written")               \
  X(-13, GCUBA_FAIL_NODEVICE,                                                  \
    "GCUBA_DEVICE=gpu but no usable GPU (or integrand built without nvcc)")    \
  X(-14, GCUBA_FAIL_CUDA, "CUDA error")                                        \
  X(-15, GCUBA_FAIL_DEVMEM, "device out of memory before any estimate")        \
  X(-16, GCUBA_FAIL_ENV, "bad value in a GCUBA_* environment variable")        \
  X(-17, GCUBA_FAIL_MPI, "MPI error in a collective call (gcuba_mpi_comm)")   \
  X(-18, GCUBA_FAIL_COLLECTIVE,                                                \
    "the processes of a collective call passed different arguments")          \
  X(-99, GCUBA_FAIL_ABORT, "the integrand returned -999 (abort)")

#define GCUBA_FAIL_ENUM_(v, name, msg) name = v,
enum gcuba_fail { GCUBA_FAIL_LIST(GCUBA_FAIL_ENUM_) GCUBA_FAIL_END_ = -1000 };
#undef GCUBA_FAIL_ENUM_

/* Limits.  gCuhre takes ndim >= 1 (1: adaptive Gauss-Kronrod, which
   Cuba's Cuhre does not offer); its degree-7/9 rules have 2^ndim points
   per region, hence the smaller bound. */
#define GCUBA_MAXDIM 1024
#define GCUBA_CUHRE_MAXDIM 20
#define GCUBA_MAXCOMP 1024

#ifdef __cplusplus
extern "C" {
#endif

void gCuhre(const int ndim, const int ncomp, gintegrand_t integrand,
            void *userdata, const int nvec, const gcubareal epsrel,
            const gcubareal epsabs, const int flags, const int mineval,
            const int maxeval, const int key, const char *statefile,
            void *spin, int *nregions, int *neval, int *fail,
            gcubareal integral[], gcubareal error[], gcubareal prob[]);

void llgCuhre(const int ndim, const int ncomp, gintegrand_t integrand,
              void *userdata, const long long int nvec,
              const gcubareal epsrel, const gcubareal epsabs,
              const int flags, const long long int mineval,
              const long long int maxeval, const int key,
              const char *statefile, void *spin, int *nregions,
              long long int *neval, int *fail, gcubareal integral[],
              gcubareal error[], gcubareal prob[]);

void gVegas(const int ndim, const int ncomp, gintegrand_t integrand,
            void *userdata, const int nvec, const gcubareal epsrel,
            const gcubareal epsabs, const int flags, const int seed,
            const int mineval, const int maxeval, const int nstart,
            const int nincrease, const int nbatch, const int gridno,
            const char *statefile, void *spin, int *neval, int *fail,
            gcubareal integral[], gcubareal error[], gcubareal prob[]);

void llgVegas(const int ndim, const int ncomp, gintegrand_t integrand,
              void *userdata, const long long int nvec,
              const gcubareal epsrel, const gcubareal epsabs,
              const int flags, const int seed, const long long int mineval,
              const long long int maxeval, const long long int nstart,
              const long long int nincrease, const long long int nbatch,
              const int gridno, const char *statefile, void *spin,
              long long int *neval, int *fail, gcubareal integral[],
              gcubareal error[], gcubareal prob[]);

/* gSuave, llgSuave: Cuba's Suave (subregion-adaptive Vegas), Cuba's
   arguments (doc/suave.md). */
void gSuave(const int ndim, const int ncomp, gintegrand_t integrand,
            void *userdata, const int nvec, const gcubareal epsrel,
            const gcubareal epsabs, const int flags, const int seed,
            const int mineval, const int maxeval, const int nnew,
            const int nmin, const gcubareal flatness, const char *statefile,
            void *spin, int *nregions, int *neval, int *fail,
            gcubareal integral[], gcubareal error[], gcubareal prob[]);

void llgSuave(const int ndim, const int ncomp, gintegrand_t integrand,
              void *userdata, const long long int nvec,
              const gcubareal epsrel, const gcubareal epsabs,
              const int flags, const int seed, const long long int mineval,
              const long long int maxeval, const long long int nnew,
              const long long int nmin, const gcubareal flatness,
              const char *statefile, void *spin, int *nregions,
              long long int *neval, int *fail, gcubareal integral[],
              gcubareal error[], gcubareal prob[]);

/* gDivonne, llgDivonne: Cuba's Divonne (partitioning by stratified
   sampling, then final integration, then refinement), Cuba's arguments
   (doc/divonne.md). */
void gDivonne(const int ndim, const int ncomp, gintegrand_t integrand,
              void *userdata, const int nvec, const gcubareal epsrel,
              const gcubareal epsabs, const int flags, const int seed,
              const int mineval, const int maxeval, const int key1,
              const int key2, const int key3, const int maxpass,
              const gcubareal border, const gcubareal maxchisq,
              const gcubareal mindeviation, const int ngiven,
              const int ldxgiven, gcubareal xgiven[], const int nextra,
              gcuba_peakfinder_t peakfinder, const char *statefile,
              void *spin, int *nregions, int *neval, int *fail,
              gcubareal integral[], gcubareal error[], gcubareal prob[]);

void llgDivonne(const int ndim, const int ncomp, gintegrand_t integrand,
                void *userdata, const long long int nvec,
                const gcubareal epsrel, const gcubareal epsabs,
                const int flags, const int seed,
                const long long int mineval, const long long int maxeval,
                const int key1, const int key2, const int key3,
                const int maxpass, const gcubareal border,
                const gcubareal maxchisq, const gcubareal mindeviation,
                const long long int ngiven, const int ldxgiven,
                gcubareal xgiven[], const long long int nextra,
                gcuba_peakfinder_t peakfinder, const char *statefile,
                void *spin, int *nregions, long long int *neval, int *fail,
                gcubareal integral[], gcubareal error[], gcubareal prob[]);

/* gRomberg, llgRomberg: Romberg integration over [0, 1] (gcuba's own, not
   in Cuba; doc/romberg.md).  The integrand is called with ndim = 1.  The
   trapezoid sums of levels h = 2^-k, each new level evaluating only the new
   midpoints, are extrapolated by the full Romberg table; the error is the
   difference of the last two diagonal entries (never below the rounding
   floor).  For smooth or periodic integrands; endpoint singularities belong
   to gCuhre.  prob is 0. */
void gRomberg(const int ncomp, gintegrand_t integrand, void *userdata,
              const int nvec, const gcubareal epsrel,
              const gcubareal epsabs, const int flags, const int mineval,
              const int maxeval, int *neval, int *fail,
              gcubareal integral[], gcubareal error[], gcubareal prob[]);

void llgRomberg(const int ncomp, gintegrand_t integrand, void *userdata,
                const long long int nvec, const gcubareal epsrel,
                const gcubareal epsabs, const int flags,
                const long long int mineval, const long long int maxeval,
                long long int *neval, int *fail, gcubareal integral[],
                gcubareal error[], gcubareal prob[]);

/* Many integrals of one integrand in one call (gcuba's own; doc/gcuba.md
   section 4.2b).  Integral b (0 <= b < nintegrals) gets userdata
   (char *)userdata + b * userstride (userstride 0: all the same block);
   its results are nregions[b], neval[b], fail[b] and integral, error,
   prob [b * ncomp + c].  Every other argument is as in gCuhre / gVegas
   and applies to each integral (maxeval too); there is no state file.
   Each integral's answer is the one a single call with its arguments
   gives, bit for bit: on CPU threads the integrals run in parallel, one
   thread each.  nintegrals = 0 is a no-op; a bad argument sets every
   fail[b] (and fail[0] for nintegrals < 0). */
void gCuhreBatch(const int nintegrals, const int ndim, const int ncomp,
                 gintegrand_t integrand, void *userdata,
                 const size_t userstride, const int nvec,
                 const gcubareal epsrel, const gcubareal epsabs,
                 const int flags, const int mineval, const int maxeval,
                 const int key, int nregions[], int neval[], int fail[],
                 gcubareal integral[], gcubareal error[], gcubareal prob[]);

void llgCuhreBatch(const int nintegrals, const int ndim, const int ncomp,
                   gintegrand_t integrand, void *userdata,
                   const size_t userstride, const long long int nvec,
                   const gcubareal epsrel, const gcubareal epsabs,
                   const int flags, const long long int mineval,
                   const long long int maxeval, const int key,
                   int nregions[], long long int neval[], int fail[],
                   gcubareal integral[], gcubareal error[],
                   gcubareal prob[]);

void gVegasBatch(const int nintegrals, const int ndim, const int ncomp,
                 gintegrand_t integrand, void *userdata,
                 const size_t userstride, const int nvec,
                 const gcubareal epsrel, const gcubareal epsabs,
                 const int flags, const int seed, const int mineval,
                 const int maxeval, const int nstart, const int nincrease,
                 const int nbatch, const int gridno, int neval[], int fail[],
                 gcubareal integral[], gcubareal error[], gcubareal prob[]);

void llgVegasBatch(const int nintegrals, const int ndim, const int ncomp,
                   gintegrand_t integrand, void *userdata,
                   const size_t userstride, const long long int nvec,
                   const gcubareal epsrel, const gcubareal epsabs,
                   const int flags, const int seed,
                   const long long int mineval, const long long int maxeval,
                   const long long int nstart, const long long int nincrease,
                   const long long int nbatch, const int gridno,
                   long long int neval[], int fail[], gcubareal integral[],
                   gcubareal error[], gcubareal prob[]);

/* As in Cuba 4.2.  gcubacores(n, p): at most *n CPU threads for the CPU
   backend (*n = 0: the calling thread only); *p (Cuba's pcores) is
   accepted and ignored.  gcubaaccel(n, p): *n = 0 keeps gcuba off the
   GPU (like GCUBA_DEVICE=cpu), *n > 0 allows it; *p ignored.
   gcubainit/gcubaexit: f(arg, &core) is called on the thread that
   integrates before/after each integration, as Cuba calls it in its
   master (core = 32768: gcuba forks no worker processes). */
void gcubacores(const int *n, const int *p);
void gcubaaccel(const int *n, const int *p);
void gcubainit(void (*f)(), void *arg);
void gcubaexit(void (*f)(), void *arg);

/* The message for a fail code ("unknown fail code" for others). */
const char *gcuba_strerror(int fail);

/* Backend of the last call made by this thread: "cpu" or "gpu". */
const char *gcuba_last_backend(void);

/* GPUs the last call made by this thread ended on: 0 on the CPU backend,
   more than 1 when it used several (GCUBA_DEVICES). */
int gcuba_last_devices(void);

/* Number of usable CUDA devices (0 without CUDA, driver or device). */
int gcuba_device_count(void);

/* Frees the device memory gcuba keeps between calls (up to three idle
   gCuhre region stores and three idle gVegas samplers per device, reused
   by later calls of the same shape so that short calls do not pay for
   cudaMalloc).  Safe to call at any time. */
void gcuba_release(void);

/* userdata on the GPU.  The GPU integrand receives a device pointer.
   gcuba_userdata_size(n): for the following calls made by this thread,
   copy n bytes at `userdata' to device memory before integrating and pass
   the copy (a plain parameter struct: pointers inside it are not
   followed and must themselves point to device memory).  0 (the default)
   passes userdata unchanged, which is right for NULL, for pointers to
   device, managed or page-locked memory, and for host memory on systems
   whose GPU reads pageable memory; elsewhere a call with a host pointer
   and no size runs on CPU threads (GCUBA_DEVICE=gpu: fail
   GCUBA_FAIL_PARAM).  The CPU backend always passes userdata unchanged. */
void gcuba_userdata_size(size_t bytes);

/* An integrand made from a plain Cuba host function (integrand_t),
   evaluated on CPU threads.  nvec_form != 0: f is called with Cuba's
   extra (nvec, core) arguments, x[nvec*ndim], f[nvec*ncomp].  The returned
   descriptor is static storage owned by the library (up to 64 distinct
   functions; NULL beyond that). */
gintegrand_t gcuba_host_integrand(gcuba_host_fn f, int nvec_form);

#ifdef __cplusplus
}
#endif

/* ------------------------------------------------------------------ */
/* GCUBA_INTEGRAND(name)(const int *ndim, const double x[],
                         const int *ncomp, double f[], void *userdata)
   { ... return 0; }
   defines the integrand function (host and, under nvcc, device) and the
   external object `gintegrand_t name' to pass to gCuhre/gVegas.  Declare
   it elsewhere with GCUBA_DECLARE_INTEGRAND(name);                       */

#define GCUBA_DECLARE_INTEGRAND(name) GCUBA_EXTERN_C_ gintegrand_t name

#ifdef __cplusplus
#define GCUBA_EXTERN_C_ extern "C"
#define GCUBA_DEFINE_OBJ_(name)                                                \
  extern "C" {                                                                 \
  gintegrand_t name = &name##_gcuba_desc_;                                     \
  }
#else
#define GCUBA_EXTERN_C_ extern
#define GCUBA_DEFINE_OBJ_(name) gintegrand_t name = &name##_gcuba_desc_;
#endif

#if defined(__CUDACC__)
#include "gcuba/kernels.cuh"
#define GCUBA_INTEGRAND(name)                                                  \
  static __host__ __device__ int name##_gcuba_fn_(                            \
      const int *, const double *, const int *, double *, void *);             \
  struct name##_gcuba_f_ {                                                     \
    static __host__ __device__ __forceinline__ int                             \
    call(const int *nd, const double *x, const int *nc, double *f, void *u)    \
    {                                                                          \
      return name##_gcuba_fn_(nd, x, nc, f, u);                                \
    }                                                                          \
  };                                                                           \
  static const struct gcuba_integrand name##_gcuba_desc_ = {                   \
      GCUBA_ABI_VERSION, GCUBA_DESC_POINT, #name, name##_gcuba_fn_,            \
      &gcuba_gpu_table<name##_gcuba_f_>::ops};                                 \
  GCUBA_DEFINE_OBJ_(name)                                                      \
  static __host__ __device__ int name##_gcuba_fn_
#else
#define GCUBA_INTEGRAND(name)                                                  \
  static int name##_gcuba_fn_(const int *, const double *, const int *,        \
                              double *, void *);                               \
  static const struct gcuba_integrand name##_gcuba_desc_ = {                   \
      GCUBA_ABI_VERSION, GCUBA_DESC_POINT, #name, name##_gcuba_fn_, 0};        \
  GCUBA_DEFINE_OBJ_(name)                                                      \
  static int name##_gcuba_fn_
#endif

/* a plain Cuba integrand passed to any g routine (C11, C++) */
#include "gcuba/plain.h"

#endif /* GCUBA_H */
