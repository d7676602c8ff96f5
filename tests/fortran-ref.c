/* tests/fortran-ref.c -- C side of the Fortran tests (test-fortran-*):
     - TAP output for Fortran (tapplan, tapok, tapdiag, tapdone), through
       tap.h, so that only C writes to stdout;
     - the reference calls: refcuhre, llrefcuhre, refvegas, llrefvegas,
       refsuave, llrefsuave, refdivonne, llrefdivonne take the arguments
       a Fortran test gave gcuhre & co. and call the C interface (gCuhre,
       ...) with them, written independently of
       src/api/fortran.c: the integrand through gcuba_host_integrand
       (form 0: Cuba's 5 arguments, 1: the nvec form) or as the address of
       a gintegrand_t (form 2); statefile a NUL-terminated string;
     - refconst: the Fortran constants against gcuba.h, by name;
     - two probes: whether a descriptor has GPU code; gcuhre_ given NULL
       arguments, as %VAL(0) passes them.
   Every routine is called from Fortran with an implicit interface: all
   arguments by reference, a character argument's length appended.
   This file is part of gcuba. */
#include <stdlib.h>
#include <string.h>
#include "tap.h"
#include "gcuba.h"

#define MSG(s, len) (int)fstrlen(s, len), (s)

/* length of a Fortran string without its trailing blanks */
static size_t fstrlen(const char *s, size_t len)
{
  while (len > 0 && s[len - 1] == ' ') --len;
  return len;
}

/* ---- TAP ---- */
void tapplan_(const int *n);
void tapok_(const int *cond, const char *msg, size_t len);
void tapdiag_(const char *msg, size_t len);
void tapskip_(const char *msg, size_t len);
void tapdone_(void);

void tapplan_(const int *n) { plan(*n); }
void tapok_(const int *cond, const char *msg, size_t len)
{
  ok(*cond != 0, "%.*s", MSG(msg, len));
}
void tapdiag_(const char *msg, size_t len) { diag("%.*s", MSG(msg, len)); }
void tapskip_(const char *msg, size_t len)
{
  char r[256];
  snprintf(r, sizeof r, "%.*s", MSG(msg, len));
  skip_all(r);
}
void tapdone_(void) { exit(done()); }

/* ---- reference calls through the C interface ---- */
static gintegrand_t in(int form, void *integrand)
{
  if (form == 2) return integrand ? *(const gintegrand_t *)integrand : NULL;
  return gcuba_host_integrand((gcuba_host_fn)integrand, form);
}

/* argument lists; N: int or long long */
#define CUHRE_ARGS(N)                                                          \
  const int *form, const int *ndim, const int *ncomp, void *integrand,         \
      void *userdata, const N *nvec, const double *epsrel,                     \
      const double *epsabs, const int *flags, const N *mineval,                \
      const N *maxeval, const int *key, const char *statefile, void *spin,     \
      int *nregions, N *neval, int *fail, double *integral, double *error,     \
      double *prob
#define CUHRE_PASS                                                             \
  form, ndim, ncomp, integrand, userdata, nvec, epsrel, epsabs, flags,         \
      mineval, maxeval, key, statefile, spin, nregions, neval, fail,           \
      integral, error, prob
#define VEGAS_ARGS(N)                                                          \
  const int *form, const int *ndim, const int *ncomp, void *integrand,         \
      void *userdata, const N *nvec, const double *epsrel,                     \
      const double *epsabs, const int *flags, const int *seed,                 \
      const N *mineval, const N *maxeval, const N *nstart,                     \
      const N *nincrease, const N *nbatch, const int *gridno,                  \
      const char *statefile, void *spin, N *neval, int *fail,                  \
      double *integral, double *error, double *prob
#define VEGAS_PASS                                                             \
  form, ndim, ncomp, integrand, userdata, nvec, epsrel, epsabs, flags, seed,   \
      mineval, maxeval, nstart, nincrease, nbatch, gridno, statefile, spin,    \
      neval, fail, integral, error, prob

#define SUAVE_ARGS(N)                                                          \
  const int *form, const int *ndim, const int *ncomp, void *integrand,         \
      void *userdata, const N *nvec, const double *epsrel,                     \
      const double *epsabs, const int *flags, const int *seed,                 \
      const N *mineval, const N *maxeval, const N *nnew, const N *nmin,        \
      const double *flatness, const char *statefile, void *spin,               \
      int *nregions, N *neval, int *fail, double *integral, double *error,     \
      double *prob

#define DIVONNE_ARGS(N)                                                        \
  const int *form, const int *ndim, const int *ncomp, void *integrand,         \
      void *userdata, const N *nvec, const double *epsrel,                     \
      const double *epsabs, const int *flags, const int *seed,                 \
      const N *mineval, const N *maxeval, const int *key1, const int *key2,    \
      const int *key3, const int *maxpass, const double *border,               \
      const double *maxchisq, const double *mindeviation, const N *ngiven,     \
      const int *ldxgiven, double *xgiven, const N *nextra,                    \
      gcuba_peakfinder_t peakfinder, const char *statefile, void *spin,        \
      int *nregions, N *neval, int *fail, double *integral, double *error,     \
      double *prob

/* refX_: the integrand as form says; refXd_: the same (form 2), under a
   second name for Fortran interfaces that take a type(gcuba_integrand) */
void refcuhre_(CUHRE_ARGS(int));
void llrefcuhre_(CUHRE_ARGS(long long));
void refvegas_(VEGAS_ARGS(int));
void llrefvegas_(VEGAS_ARGS(long long));
void refcuhred_(CUHRE_ARGS(int));
void llrefcuhred_(CUHRE_ARGS(long long));
void refvegasd_(VEGAS_ARGS(int));
void llrefvegasd_(VEGAS_ARGS(long long));

void refcuhre_(CUHRE_ARGS(int))
{
  gCuhre(*ndim, *ncomp, in(*form, integrand), userdata, *nvec, *epsrel,
         *epsabs, *flags, *mineval, *maxeval, *key, statefile, spin,
         nregions, neval, fail, integral, error, prob);
}

void llrefcuhre_(CUHRE_ARGS(long long))
{
  llgCuhre(*ndim, *ncomp, in(*form, integrand), userdata, *nvec, *epsrel,
           *epsabs, *flags, *mineval, *maxeval, *key, statefile, spin,
           nregions, neval, fail, integral, error, prob);
}

void refvegas_(VEGAS_ARGS(int))
{
  gVegas(*ndim, *ncomp, in(*form, integrand), userdata, *nvec, *epsrel,
         *epsabs, *flags, *seed, *mineval, *maxeval, *nstart, *nincrease,
         *nbatch, *gridno, statefile, spin, neval, fail, integral, error,
         prob);
}

void llrefvegas_(VEGAS_ARGS(long long))
{
  llgVegas(*ndim, *ncomp, in(*form, integrand), userdata, *nvec, *epsrel,
           *epsabs, *flags, *seed, *mineval, *maxeval, *nstart, *nincrease,
           *nbatch, *gridno, statefile, spin, neval, fail, integral, error,
           prob);
}

void refsuave_(SUAVE_ARGS(int));
void llrefsuave_(SUAVE_ARGS(long long));
void refsuave_(SUAVE_ARGS(int))
{
  gSuave(*ndim, *ncomp, in(*form, integrand), userdata, *nvec, *epsrel,
         *epsabs, *flags, *seed, *mineval, *maxeval, *nnew, *nmin,
         *flatness, statefile, spin, nregions, neval, fail, integral, error,
         prob);
}

void llrefsuave_(SUAVE_ARGS(long long))
{
  llgSuave(*ndim, *ncomp, in(*form, integrand), userdata, *nvec, *epsrel,
           *epsabs, *flags, *seed, *mineval, *maxeval, *nnew, *nmin,
           *flatness, statefile, spin, nregions, neval, fail, integral,
           error, prob);
}

/* xgiven and peakfinder as Fortran passed them: Cuba's 0 is the address
   of a 0, an absent optional argument NULL */
void refdivonne_(DIVONNE_ARGS(int));
void llrefdivonne_(DIVONNE_ARGS(long long));
void refdivonne_(DIVONNE_ARGS(int))
{
  gDivonne(*ndim, *ncomp, in(*form, integrand), userdata, *nvec, *epsrel,
           *epsabs, *flags, *seed, *mineval, *maxeval, *key1, *key2, *key3,
           *maxpass, *border, *maxchisq, *mindeviation, *ngiven, *ldxgiven,
           xgiven, *nextra, peakfinder, statefile, spin, nregions, neval,
           fail, integral, error, prob);
}

void llrefdivonne_(DIVONNE_ARGS(long long))
{
  llgDivonne(*ndim, *ncomp, in(*form, integrand), userdata, *nvec, *epsrel,
             *epsabs, *flags, *seed, *mineval, *maxeval, *key1, *key2,
             *key3, *maxpass, *border, *maxchisq, *mindeviation, *ngiven,
             *ldxgiven, xgiven, *nextra, peakfinder, statefile, spin,
             nregions, neval, fail, integral, error, prob);
}

void refcuhred_(CUHRE_ARGS(int)) { refcuhre_(CUHRE_PASS); }
void llrefcuhred_(CUHRE_ARGS(long long)) { llrefcuhre_(CUHRE_PASS); }
void refvegasd_(VEGAS_ARGS(int)) { refvegas_(VEGAS_PASS); }
void llrefvegasd_(VEGAS_ARGS(long long)) { llrefvegas_(VEGAS_PASS); }

/* ---- gcuba.fi against gcuba.h ---- */
static const struct {
  const char *name;
  int value;
} consts[] = {
#define CONST_(v, name, msg) {#name, v},
    GCUBA_FAIL_LIST(CONST_)
#undef CONST_
    {"GCUBA_LAST", GCUBA_LAST},
    {"GCUBA_SHARPEDGES", GCUBA_SHARPEDGES},
    {"GCUBA_KEEPSTATE", GCUBA_KEEPSTATE},
    {"GCUBA_RESETSTATE", GCUBA_RESETSTATE},
    {"GCUBA_REGIONS", GCUBA_REGIONS},
    {"GCUBA_NORELFINISH", GCUBA_NORELFINISH},
    {"GCUBA_VEGAS1D", GCUBA_VEGAS1D},
    {"GCUBA_VEGASAUTO", GCUBA_VEGASAUTO},
    {"GCUBA_VEGASPLUS", GCUBA_VEGASPLUS},
    {"GCUBA_MAXDIM", GCUBA_MAXDIM},
    {"GCUBA_CUHRE_MAXDIM", GCUBA_CUHRE_MAXDIM},
    {"GCUBA_MAXCOMP", GCUBA_MAXCOMP},
};
#define NCONSTS ((int)(sizeof consts / sizeof consts[0]))
static int seen[NCONSTS];

/* 1 when the C header has `name' with this value */
int refconst_(const char *name, const int *value, size_t len);
int refconst_(const char *name, const int *value, size_t len)
{
  int i, n = (int)fstrlen(name, len);
  for (i = 0; i < NCONSTS; ++i)
    if ((int)strlen(consts[i].name) == n && !strncmp(consts[i].name, name, n)) {
      seen[i] = 1;
      if (consts[i].value == *value) return 1;
      diag("%s is %d in Fortran, %d in gcuba.h", consts[i].name, *value,
           consts[i].value);
      return 0;
    }
  diag("%.*s is not in gcuba.h", n, name);
  return 0;
}

/* the number of gcuba.h constants refconst was not asked about */
int refconstmissing_(void);
int refconstmissing_(void)
{
  int i, m = 0;
  for (i = 0; i < NCONSTS; ++i)
    if (!seen[i]) {
      diag("%s (= %d) is missing in Fortran", consts[i].name,
           consts[i].value);
      ++m;
    }
  return m;
}

/* 1 when the message gcuba_strerror gives Fortran is the C one */
int refmsg_(const int *fail, const char *msg, size_t len);
int refmsg_(const int *fail, const char *msg, size_t len)
{
  const char *c = gcuba_strerror(*fail);
  size_t n = fstrlen(msg, len);
  return strlen(c) == n && !strncmp(c, msg, n);
}

/* ---- probes ---- */

/* 1 when the GCUBA_INTEGRAND object at d was compiled by nvcc */
int refhasgpu_(const gintegrand_t *d);
int refhasgpu_(const gintegrand_t *d)
{
  return d && *d && (*d)->gpu != NULL;
}

/* gcuhre_ as gfortran calls it for %VAL(0) in place of userdata,
   statefile and spin: NULL pointers, no meaningful hidden length.
   Returns fail; the outputs go to the arguments. */
void gcuhre_(const int *, const int *, gcuba_host_fn, void *, const int *,
             const double *, const double *, const int *, const int *,
             const int *, const int *, const char *, void *, int *, int *,
             int *, double *, double *, double *, size_t);
void refnullargs_(gcuba_host_fn f, const int *ndim, const double *epsrel,
                  int *nregions, int *neval, int *fail, double *integral,
                  double *error, double *prob);
void refnullargs_(gcuba_host_fn f, const int *ndim, const double *epsrel,
                  int *nregions, int *neval, int *fail, double *integral,
                  double *error, double *prob)
{
  int one = 1, zero = 0, maxeval = 100000000;
  double epsabs = 1e-20;
  gcuhre_(ndim, &one, f, NULL, &one, epsrel, &epsabs, &zero, &zero,
          &maxeval, &zero, NULL, NULL, nregions, neval, fail, integral,
          error, prob, (size_t)-1);
}
