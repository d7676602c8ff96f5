/* src/api/fortran.c -- the Fortran entry points: what gfortran calls for
   `call gcuhre(...)' and friends, with or without `use gcuba'.

   Cuba's Fortran convention, as gfortran implements it: every argument
   by reference; the character argument statefile carries a hidden length
   (size_t) appended after the last argument; external names are in lower
   case with one trailing underscore.  The routines take Cuba's arguments
   in Cuba's order and call the C interface (gCuhre, ...) with them.

   gromberg_ and llgromberg_ (gcuba's own 1-D routine) take gRomberg's
   arguments, gcuhrebatch_, gvegasbatch_ and their ll forms the batch
   routines' (userstride an integer*8); they have no character argument.
   The integrand comes in two kinds:
     gcuhre_, llgcuhre_, gvegas_, llgvegas_, gromberg_, llgromberg_: a
       Fortran function, run on CPU
       threads.  It is called as Cuba calls it, (ndim, x, ncomp, f,
       userdata, nvec, core), which is gcuba's GCUBA_DESC_NVEC descriptor
       kind; a function declaring only the first 4 or 5 of these ignores
       the others (the caller pushes and pops them; x86-64 SysV and AArch64
       both work this way, and Cuba relies on it too).
     the same names with _desc_: the address of a gintegrand_t variable,
       i.e. a GCUBA_INTEGRAND object named in Fortran by bind(c); it runs
       on the GPU when it was compiled by nvcc and a device is usable.
   The descriptor of a Fortran function lives on the caller's stack for
   the duration of the call: no table, no limit on the number of
   functions, nothing shared between concurrent calls.

   This file is part of gcuba. */
#include <stdlib.h>
#include <string.h>
#include "common/common.h"

typedef struct {
  struct gcuba_integrand desc; /* a Fortran function's descriptor */
  gintegrand_t in;             /* what the C interface gets */
  char *state;                 /* statefile as a C string, or NULL */
} fcall;

/* statefile: NULL (%VAL(0)), empty or blank means none; trailing blanks
   and anything from a NUL on are not part of the name */
static int fbegin(fcall *f, const char *s, size_t len, int *fail)
{
  size_t n = 0;
  f->state = NULL;
  if (s) {
    while (n < len && s[n]) ++n;
    while (n > 0 && s[n - 1] == ' ') --n;
  }
  if (n > 0) {
    f->state = (char *)malloc(n + 1);
    if (!f->state) {
      if (fail) *fail = GCUBA_FAIL_NOMEM;
      return -1;
    }
    memcpy(f->state, s, n);
    f->state[n] = 0;
  }
  return 0;
}

/* a Fortran function (NULL gives fail -3 from the C interface) */
static int ffunction(fcall *f, gcuba_host_fn fn, const char *s, size_t len,
                     int *fail)
{
  f->desc.abi = GCUBA_ABI_VERSION;
  f->desc.kind = GCUBA_DESC_NVEC;
  f->desc.name = "host function"; /* as gcuba_host_integrand's: the same
                                     state files serve C and Fortran */
  f->desc.fn = fn;
  f->desc.gpu = NULL;
  f->in = &f->desc;
  return fbegin(f, s, len, fail);
}

/* the address of a gintegrand_t (a NULL one gives fail -3) */
static int fdescriptor(fcall *f, const gintegrand_t *d, const char *s,
                       size_t len, int *fail)
{
  f->in = d ? *d : NULL;
  return fbegin(f, s, len, fail);
}

/* Argument lists.  FN: the integrand's C type; N: int or long long, the
   type of nvec, mineval, maxeval (and Vegas' nstart, nincrease, nbatch)
   and neval. */
#define CUHRE_ARGS(FN, N)                                                      \
  const int *ndim, const int *ncomp, FN integrand, void *userdata,             \
      const N *nvec, const double *epsrel, const double *epsabs,               \
      const int *flags, const N *mineval, const N *maxeval, const int *key,    \
      const char *statefile, void *spin, int *nregions, N *neval, int *fail,   \
      double integral[], double error[], double prob[], size_t statefilelen
#define CUHRE_CALL                                                             \
  *ndim, *ncomp, f.in, userdata, *nvec, *epsrel, *epsabs, *flags, *mineval,    \
      *maxeval, *key, f.state, spin, nregions, neval, fail, integral, error,   \
      prob

#define VEGAS_ARGS(FN, N)                                                      \
  const int *ndim, const int *ncomp, FN integrand, void *userdata,             \
      const N *nvec, const double *epsrel, const double *epsabs,               \
      const int *flags, const int *seed, const N *mineval, const N *maxeval,   \
      const N *nstart, const N *nincrease, const N *nbatch,                    \
      const int *gridno, const char *statefile, void *spin, N *neval,          \
      int *fail, double integral[], double error[], double prob[],             \
      size_t statefilelen
#define VEGAS_CALL                                                             \
  *ndim, *ncomp, f.in, userdata, *nvec, *epsrel, *epsabs, *flags, *seed,       \
      *mineval, *maxeval, *nstart, *nincrease, *nbatch, *gridno, f.state,      \
      spin, neval, fail, integral, error, prob

/* Romberg: no character argument, so no hidden length */
#define ROMBERG_ARGS(FN, N)                                                    \
  const int *ncomp, FN integrand, void *userdata, const N *nvec,               \
      const double *epsrel, const double *epsabs, const int *flags,            \
      const N *mineval, const N *maxeval, N *neval, int *fail,                 \
      double integral[], double error[], double prob[]
#define ROMBERG_CALL                                                           \
  *ncomp, f.in, userdata, *nvec, *epsrel, *epsabs, *flags, *mineval,           \
      *maxeval, neval, fail, integral, error, prob

/* batches: no character argument; userstride is an integer*8 (bytes) */
#define CUHREB_ARGS(FN, N)                                                     \
  const int *nintegrals, const int *ndim, const int *ncomp, FN integrand,      \
      void *userdata, const long long *userstride, const N *nvec,              \
      const double *epsrel, const double *epsabs, const int *flags,            \
      const N *mineval, const N *maxeval, const int *key, int *nregions,       \
      N *neval, int *fail, double integral[], double error[], double prob[]
#define CUHREB_CALL                                                            \
  *nintegrals, *ndim, *ncomp, f.in, userdata, (size_t)*userstride, *nvec,      \
      *epsrel, *epsabs, *flags, *mineval, *maxeval, *key, nregions, neval,     \
      fail, integral, error, prob
#define VEGASB_ARGS(FN, N)                                                     \
  const int *nintegrals, const int *ndim, const int *ncomp, FN integrand,      \
      void *userdata, const long long *userstride, const N *nvec,              \
      const double *epsrel, const double *epsabs, const int *flags,            \
      const int *seed, const N *mineval, const N *maxeval, const N *nstart,    \
      const N *nincrease, const N *nbatch, const int *gridno, N *neval,        \
      int *fail, double integral[], double error[], double prob[]
#define VEGASB_CALL                                                            \
  *nintegrals, *ndim, *ncomp, f.in, userdata, (size_t)*userstride, *nvec,      \
      *epsrel, *epsabs, *flags, *seed, *mineval, *maxeval, *nstart,            \
      *nincrease, *nbatch, *gridno, neval, fail, integral, error, prob

/* prototypes, for -Wmissing-prototypes; Fortran declares them itself */
void gcuhre_(CUHRE_ARGS(gcuba_host_fn, int));
void llgcuhre_(CUHRE_ARGS(gcuba_host_fn, long long));
void gvegas_(VEGAS_ARGS(gcuba_host_fn, int));
void llgvegas_(VEGAS_ARGS(gcuba_host_fn, long long));
void gcuhre_desc_(CUHRE_ARGS(const gintegrand_t *, int));
void llgcuhre_desc_(CUHRE_ARGS(const gintegrand_t *, long long));
void gvegas_desc_(VEGAS_ARGS(const gintegrand_t *, int));
void llgvegas_desc_(VEGAS_ARGS(const gintegrand_t *, long long));
void gromberg_(ROMBERG_ARGS(gcuba_host_fn, int));
void llgromberg_(ROMBERG_ARGS(gcuba_host_fn, long long));
void gromberg_desc_(ROMBERG_ARGS(const gintegrand_t *, int));
void llgromberg_desc_(ROMBERG_ARGS(const gintegrand_t *, long long));

void gcuhre_(CUHRE_ARGS(gcuba_host_fn, int))
{
  fcall f;
  if (ffunction(&f, integrand, statefile, statefilelen, fail)) return;
  gCuhre(CUHRE_CALL);
  free(f.state);
}

void llgcuhre_(CUHRE_ARGS(gcuba_host_fn, long long))
{
  fcall f;
  if (ffunction(&f, integrand, statefile, statefilelen, fail)) return;
  llgCuhre(CUHRE_CALL);
  free(f.state);
}

void gvegas_(VEGAS_ARGS(gcuba_host_fn, int))
{
  fcall f;
  if (ffunction(&f, integrand, statefile, statefilelen, fail)) return;
  gVegas(VEGAS_CALL);
  free(f.state);
}

void llgvegas_(VEGAS_ARGS(gcuba_host_fn, long long))
{
  fcall f;
  if (ffunction(&f, integrand, statefile, statefilelen, fail)) return;
  llgVegas(VEGAS_CALL);
  free(f.state);
}

void gcuhre_desc_(CUHRE_ARGS(const gintegrand_t *, int))
{
  fcall f;
  if (fdescriptor(&f, integrand, statefile, statefilelen, fail)) return;
  gCuhre(CUHRE_CALL);
  free(f.state);
}

void llgcuhre_desc_(CUHRE_ARGS(const gintegrand_t *, long long))
{
  fcall f;
  if (fdescriptor(&f, integrand, statefile, statefilelen, fail)) return;
  llgCuhre(CUHRE_CALL);
  free(f.state);
}

void gvegas_desc_(VEGAS_ARGS(const gintegrand_t *, int))
{
  fcall f;
  if (fdescriptor(&f, integrand, statefile, statefilelen, fail)) return;
  gVegas(VEGAS_CALL);
  free(f.state);
}

void llgvegas_desc_(VEGAS_ARGS(const gintegrand_t *, long long))
{
  fcall f;
  if (fdescriptor(&f, integrand, statefile, statefilelen, fail)) return;
  llgVegas(VEGAS_CALL);
  free(f.state);
}

/* gRomberg (gcuba's own): the same two kinds of integrand */
void gromberg_(ROMBERG_ARGS(gcuba_host_fn, int))
{
  fcall f;
  if (ffunction(&f, integrand, NULL, 0, fail)) return;
  gRomberg(ROMBERG_CALL);
}

void llgromberg_(ROMBERG_ARGS(gcuba_host_fn, long long))
{
  fcall f;
  if (ffunction(&f, integrand, NULL, 0, fail)) return;
  llgRomberg(ROMBERG_CALL);
}

void gromberg_desc_(ROMBERG_ARGS(const gintegrand_t *, int))
{
  fcall f;
  if (fdescriptor(&f, integrand, NULL, 0, fail)) return;
  gRomberg(ROMBERG_CALL);
}

void llgromberg_desc_(ROMBERG_ARGS(const gintegrand_t *, long long))
{
  fcall f;
  if (fdescriptor(&f, integrand, NULL, 0, fail)) return;
  llgRomberg(ROMBERG_CALL);
}

/* batches (gcuba's own): the same two kinds of integrand; a Fortran
   function is called from several threads at once (integrals in
   parallel), as gcuhre's CPU threads call it */
void gcuhrebatch_(CUHREB_ARGS(gcuba_host_fn, int));
void gcuhrebatch_desc_(CUHREB_ARGS(const gintegrand_t *, int));
void llgcuhrebatch_(CUHREB_ARGS(gcuba_host_fn, long long));
void llgcuhrebatch_desc_(CUHREB_ARGS(const gintegrand_t *, long long));
void gvegasbatch_(VEGASB_ARGS(gcuba_host_fn, int));
void gvegasbatch_desc_(VEGASB_ARGS(const gintegrand_t *, int));
void llgvegasbatch_(VEGASB_ARGS(gcuba_host_fn, long long));
void llgvegasbatch_desc_(VEGASB_ARGS(const gintegrand_t *, long long));

void gcuhrebatch_(CUHREB_ARGS(gcuba_host_fn, int))
{
  fcall f;
  if (ffunction(&f, integrand, NULL, 0, fail)) return;
  gCuhreBatch(CUHREB_CALL);
}

void gcuhrebatch_desc_(CUHREB_ARGS(const gintegrand_t *, int))
{
  fcall f;
  if (fdescriptor(&f, integrand, NULL, 0, fail)) return;
  gCuhreBatch(CUHREB_CALL);
}

void llgcuhrebatch_(CUHREB_ARGS(gcuba_host_fn, long long))
{
  fcall f;
  if (ffunction(&f, integrand, NULL, 0, fail)) return;
  llgCuhreBatch(CUHREB_CALL);
}

void llgcuhrebatch_desc_(CUHREB_ARGS(const gintegrand_t *, long long))
{
  fcall f;
  if (fdescriptor(&f, integrand, NULL, 0, fail)) return;
  llgCuhreBatch(CUHREB_CALL);
}

void gvegasbatch_(VEGASB_ARGS(gcuba_host_fn, int))
{
  fcall f;
  if (ffunction(&f, integrand, NULL, 0, fail)) return;
  gVegasBatch(VEGASB_CALL);
}

void gvegasbatch_desc_(VEGASB_ARGS(const gintegrand_t *, int))
{
  fcall f;
  if (fdescriptor(&f, integrand, NULL, 0, fail)) return;
  gVegasBatch(VEGASB_CALL);
}

void llgvegasbatch_(VEGASB_ARGS(gcuba_host_fn, long long))
{
  fcall f;
  if (ffunction(&f, integrand, NULL, 0, fail)) return;
  llgVegasBatch(VEGASB_CALL);
}

void llgvegasbatch_desc_(VEGASB_ARGS(const gintegrand_t *, long long))
{
  fcall f;
  if (fdescriptor(&f, integrand, NULL, 0, fail)) return;
  llgVegasBatch(VEGASB_CALL);
}

/* ---- Cuba's other Fortran-callable routines, and gcuba's queries ---- */

void gcubacores_(const int *n, const int *p);
void gcubaaccel_(const int *n, const int *p);
void gcubainit_(void (*f)(), void *arg);
void gcubaexit_(void (*f)(), void *arg);
void gcuba_strerror_(const int *fail, char *msg, size_t len);
void gcuba_last_backend_(char *name, size_t len);
int gcuba_device_count_(void);
int gcuba_last_devices_(void);
void gcuba_release_(void);

void gcubacores_(const int *n, const int *p) { gcubacores(n, p); }
void gcubaaccel_(const int *n, const int *p) { gcubaaccel(n, p); }

/* Cuba calls an init/exit subroutine as f(arg, core): so does gcuba,
   for C and Fortran alike (src/common/env.c) */
void gcubainit_(void (*f)(), void *arg) { gcubainit(f, arg); }
void gcubaexit_(void (*f)(), void *arg) { gcubaexit(f, arg); }

/* a C string into a Fortran character variable, blank-padded */
static void fstring(const char *s, char *out, size_t len)
{
  size_t n = strlen(s);
  if (!out) return;
  if (n > len) n = len;
  memcpy(out, s, n);
  memset(out + n, ' ', len - n);
}

void gcuba_strerror_(const int *fail, char *msg, size_t len)
{
  fstring(gcuba_strerror(fail ? *fail : 0), msg, len);
}

void gcuba_last_backend_(char *name, size_t len)
{
  fstring(gcuba_last_backend(), name, len);
}

int gcuba_device_count_(void) { return gcuba_device_count(); }
int gcuba_last_devices_(void) { return gcuba_last_devices(); }
void gcuba_release_(void) { gcuba_release(); }
