/* src/compat/cuba.c -- libgcuba-cuba: Cuba 4.2.2's symbols (C: Vegas,
   llVegas, Suave, llSuave, Divonne, llDivonne, Cuhre, llCuhre, cubacores,
   ...; Fortran: vegas_, llvegas_, suave_, divonne_, ...) handed to
   libgcuba's g routines, so that a Cuba program moves to gcuba by
   relinking (include/cuba/cuba.h is Cuba's header).

   The integrand is Cuba's plain function: it gets a descriptor of the
   nvec kind on the stack (called as Cuba calls it: ndim, x, ncomp, f,
   userdata, nvec, core, for Vegas and Suave weight and iter, for Divonne
   phase), and runs on CPU threads; Divonne's peakfinder is passed on as
   it is.  Cuba's workers are processes, each with its own
   globals and its own copy of userdata; gcuba's are threads, which would
   share an integrand's scratch.  So through Cuba's names gcuba uses one
   thread unless the program asks for more: GCUBACORES, gcubacores, or
   Cuba's cubacores called by the program (CUBACORES, Cuba's count of
   worker processes, is not such a request).  One thread gives the bits
   of any thread count (gcuba's results do not depend on it).
   CUBAVERBOSE raises the verbosity as under Cuba.  This file is part of
   gcuba. */
#include <stdlib.h>
#include <string.h>
#include "gcuba.h"
#include "cuba/cuba.h"

/* the thread rule above, applied before every call */
static int asked;
static void threads(void)
{
  static int done;
  if (done || asked || getenv("GCUBACORES")) return;
  {
    const int one = 1, zero = 0;
    gcubacores(&one, &zero);
  }
  done = 1;
}

/* flags with CUBAVERBOSE's level, when higher */
static int flags_of(int flags)
{
  const char *v = getenv("CUBAVERBOSE");
  int level = v ? atoi(v) : 0;
  if (level > 3) level = 3;
  return (flags & 3) >= level ? flags : (flags & ~3) | level;
}

/* a Cuba function's descriptor, on the caller's stack */
static gintegrand_t describe(struct gcuba_integrand *d, integrand_t f)
{
  if (!f) return NULL;
  d->abi = GCUBA_ABI_VERSION;
  d->kind = GCUBA_DESC_NVEC;
  d->name = "host function";
  d->fn = (gcuba_integrand_fn)f;
  d->gpu = NULL;
  return d;
}

void Vegas(const int ndim, const int ncomp, integrand_t integrand,
           void *userdata, const int nvec, const cubareal epsrel,
           const cubareal epsabs, const int flags, const int seed,
           const int mineval, const int maxeval, const int nstart,
           const int nincrease, const int nbatch, const int gridno,
           const char *statefile, void *spin, int *neval, int *fail,
           cubareal integral[], cubareal error[], cubareal prob[])
{
  struct gcuba_integrand d;
  threads();
  (gVegas)(ndim, ncomp, describe(&d, integrand), userdata, nvec, epsrel,
           epsabs, flags_of(flags), seed, mineval, maxeval, nstart,
           nincrease, nbatch, gridno, statefile, spin, neval, fail,
           integral, error, prob);
}

void llVegas(const int ndim, const int ncomp, integrand_t integrand,
             void *userdata, const long long int nvec,
             const cubareal epsrel, const cubareal epsabs, const int flags,
             const int seed, const long long int mineval,
             const long long int maxeval, const long long int nstart,
             const long long int nincrease, const long long int nbatch,
             const int gridno, const char *statefile, void *spin,
             long long int *neval, int *fail, cubareal integral[],
             cubareal error[], cubareal prob[])
{
  struct gcuba_integrand d;
  threads();
  (llgVegas)(ndim, ncomp, describe(&d, integrand), userdata, nvec, epsrel,
             epsabs, flags_of(flags), seed, mineval, maxeval, nstart,
             nincrease, nbatch, gridno, statefile, spin, neval, fail,
             integral, error, prob);
}

void Suave(const int ndim, const int ncomp, integrand_t integrand,
           void *userdata, const int nvec, const cubareal epsrel,
           const cubareal epsabs, const int flags, const int seed,
           const int mineval, const int maxeval, const int nnew,
           const int nmin, const cubareal flatness, const char *statefile,
           void *spin, int *nregions, int *neval, int *fail,
           cubareal integral[], cubareal error[], cubareal prob[])
{
  struct gcuba_integrand d;
  threads();
  (gSuave)(ndim, ncomp, describe(&d, integrand), userdata, nvec, epsrel,
           epsabs, flags_of(flags), seed, mineval, maxeval, nnew, nmin,
           flatness, statefile, spin, nregions, neval, fail, integral,
           error, prob);
}

void llSuave(const int ndim, const int ncomp, integrand_t integrand,
             void *userdata, const long long int nvec,
             const cubareal epsrel, const cubareal epsabs, const int flags,
             const int seed, const long long int mineval,
             const long long int maxeval, const long long int nnew,
             const long long int nmin, const cubareal flatness,
             const char *statefile, void *spin, int *nregions,
             long long int *neval, int *fail, cubareal integral[],
             cubareal error[], cubareal prob[])
{
  struct gcuba_integrand d;
  threads();
  (llgSuave)(ndim, ncomp, describe(&d, integrand), userdata, nvec, epsrel,
             epsabs, flags_of(flags), seed, mineval, maxeval, nnew, nmin,
             flatness, statefile, spin, nregions, neval, fail, integral,
             error, prob);
}

void Divonne(const int ndim, const int ncomp, integrand_t integrand,
             void *userdata, const int nvec, const cubareal epsrel,
             const cubareal epsabs, const int flags, const int seed,
             const int mineval, const int maxeval, const int key1,
             const int key2, const int key3, const int maxpass,
             const cubareal border, const cubareal maxchisq,
             const cubareal mindeviation, const int ngiven,
             const int ldxgiven, cubareal xgiven[], const int nextra,
             peakfinder_t peakfinder, const char *statefile, void *spin,
             int *nregions, int *neval, int *fail, cubareal integral[],
             cubareal error[], cubareal prob[])
{
  struct gcuba_integrand d;
  threads();
  (gDivonne)(ndim, ncomp, describe(&d, integrand), userdata, nvec, epsrel,
             epsabs, flags_of(flags), seed, mineval, maxeval, key1, key2,
             key3, maxpass, border, maxchisq, mindeviation, ngiven,
             ldxgiven, xgiven, nextra, peakfinder, statefile, spin,
             nregions, neval, fail, integral, error, prob);
}

void llDivonne(const int ndim, const int ncomp, integrand_t integrand,
               void *userdata, const long long int nvec,
               const cubareal epsrel, const cubareal epsabs,
               const int flags, const int seed,
               const long long int mineval, const long long int maxeval,
               const int key1, const int key2, const int key3,
               const int maxpass, const cubareal border,
               const cubareal maxchisq, const cubareal mindeviation,
               const long long int ngiven, const int ldxgiven,
               cubareal xgiven[], const long long int nextra,
               peakfinder_t peakfinder, const char *statefile, void *spin,
               int *nregions, long long int *neval, int *fail,
               cubareal integral[], cubareal error[], cubareal prob[])
{
  struct gcuba_integrand d;
  threads();
  (llgDivonne)(ndim, ncomp, describe(&d, integrand), userdata, nvec,
               epsrel, epsabs, flags_of(flags), seed, mineval, maxeval,
               key1, key2, key3, maxpass, border, maxchisq, mindeviation,
               ngiven, ldxgiven, xgiven, nextra, peakfinder, statefile,
               spin, nregions, neval, fail, integral, error, prob);
}

void Cuhre(const int ndim, const int ncomp, integrand_t integrand,
           void *userdata, const int nvec, const cubareal epsrel,
           const cubareal epsabs, const int flags, const int mineval,
           const int maxeval, const int key, const char *statefile,
           void *spin, int *nregions, int *neval, int *fail,
           cubareal integral[], cubareal error[], cubareal prob[])
{
  struct gcuba_integrand d;
  threads();
  (gCuhre)(ndim, ncomp, describe(&d, integrand), userdata, nvec, epsrel,
           epsabs, flags_of(flags), mineval, maxeval, key, statefile, spin,
           nregions, neval, fail, integral, error, prob);
}

void llCuhre(const int ndim, const int ncomp, integrand_t integrand,
             void *userdata, const long long int nvec,
             const cubareal epsrel, const cubareal epsabs, const int flags,
             const long long int mineval, const long long int maxeval,
             const int key, const char *statefile, void *spin,
             int *nregions, long long int *neval, int *fail,
             cubareal integral[], cubareal error[], cubareal prob[])
{
  struct gcuba_integrand d;
  threads();
  (llgCuhre)(ndim, ncomp, describe(&d, integrand), userdata, nvec, epsrel,
             epsabs, flags_of(flags), mineval, maxeval, key, statefile, spin,
             nregions, neval, fail, integral, error, prob);
}

void cubafork(void *pspin) { (void)pspin; }
void cubawait(void *pspin) { (void)pspin; }

void cubacores(const int *n, const int *p)
{
  asked = 1;
  gcubacores(n, p);
}

void cubaaccel(const int *n, const int *p) { gcubaaccel(n, p); }
void cubainit(void (*f)(), void *arg) { gcubainit(f, arg); }
void cubaexit(void (*f)(), void *arg) { gcubaexit(f, arg); }

/* ---- Fortran: Cuba's names, the g routines' entry points (libgcuba's
   src/api/fortran.inc), the thread rule first.  Every argument by
   reference, the statefile's length last. */
typedef int (*ffn)();
void gvegas_(const int *, const int *, ffn, void *, const int *,
             const double *, const double *, const int *, const int *,
             const int *, const int *, const int *, const int *, const int *,
             const int *, const char *, void *, int *, int *, double *,
             double *, double *, size_t);
void llgvegas_(const int *, const int *, ffn, void *, const long long *,
               const double *, const double *, const int *, const int *,
               const long long *, const long long *, const long long *,
               const long long *, const long long *, const int *,
               const char *, void *, long long *, int *, double *, double *,
               double *, size_t);
void gsuave_(const int *, const int *, ffn, void *, const int *,
             const double *, const double *, const int *, const int *,
             const int *, const int *, const int *, const int *,
             const double *, const char *, void *, int *, int *, int *,
             double *, double *, double *, size_t);
void llgsuave_(const int *, const int *, ffn, void *, const long long *,
               const double *, const double *, const int *, const int *,
               const long long *, const long long *, const long long *,
               const long long *, const double *, const char *, void *,
               int *, long long *, int *, double *, double *, double *,
               size_t);
void gdivonne_(const int *, const int *, ffn, void *, const int *,
               const double *, const double *, const int *, const int *,
               const int *, const int *, const int *, const int *,
               const int *, const int *, const double *, const double *,
               const double *, const int *, const int *, double *,
               const int *, peakfinder_t, const char *, void *, int *,
               int *, int *, double *, double *, double *, size_t);
void llgdivonne_(const int *, const int *, ffn, void *, const long long *,
                 const double *, const double *, const int *, const int *,
                 const long long *, const long long *, const int *,
                 const int *, const int *, const int *, const double *,
                 const double *, const double *, const long long *,
                 const int *, double *, const long long *, peakfinder_t,
                 const char *, void *, int *, long long *, int *, double *,
                 double *, double *, size_t);
void gcuhre_(const int *, const int *, ffn, void *, const int *,
             const double *, const double *, const int *, const int *,
             const int *, const int *, const char *, void *, int *, int *,
             int *, double *, double *, double *, size_t);
void llgcuhre_(const int *, const int *, ffn, void *, const long long *,
               const double *, const double *, const int *,
               const long long *, const long long *, const int *,
               const char *, void *, int *, long long *, int *, double *,
               double *, double *, size_t);

void vegas_(const int *ndim, const int *ncomp, ffn integrand, void *userdata,
            const int *nvec, const double *epsrel, const double *epsabs,
            const int *flags, const int *seed, const int *mineval,
            const int *maxeval, const int *nstart, const int *nincrease,
            const int *nbatch, const int *gridno, const char *statefile,
            void *spin, int *neval, int *fail, double *integral,
            double *error, double *prob, size_t len);
void vegas_(const int *ndim, const int *ncomp, ffn integrand, void *userdata,
            const int *nvec, const double *epsrel, const double *epsabs,
            const int *flags, const int *seed, const int *mineval,
            const int *maxeval, const int *nstart, const int *nincrease,
            const int *nbatch, const int *gridno, const char *statefile,
            void *spin, int *neval, int *fail, double *integral,
            double *error, double *prob, size_t len)
{
  const int fl = flags_of(*flags);
  threads();
  gvegas_(ndim, ncomp, integrand, userdata, nvec, epsrel, epsabs, &fl, seed,
          mineval, maxeval, nstart, nincrease, nbatch, gridno, statefile,
          spin, neval, fail, integral, error, prob, len);
}

void llvegas_(const int *ndim, const int *ncomp, ffn integrand,
              void *userdata, const long long *nvec, const double *epsrel,
              const double *epsabs, const int *flags, const int *seed,
              const long long *mineval, const long long *maxeval,
              const long long *nstart, const long long *nincrease,
              const long long *nbatch, const int *gridno,
              const char *statefile, void *spin, long long *neval, int *fail,
              double *integral, double *error, double *prob, size_t len);
void llvegas_(const int *ndim, const int *ncomp, ffn integrand,
              void *userdata, const long long *nvec, const double *epsrel,
              const double *epsabs, const int *flags, const int *seed,
              const long long *mineval, const long long *maxeval,
              const long long *nstart, const long long *nincrease,
              const long long *nbatch, const int *gridno,
              const char *statefile, void *spin, long long *neval, int *fail,
              double *integral, double *error, double *prob, size_t len)
{
  const int fl = flags_of(*flags);
  threads();
  llgvegas_(ndim, ncomp, integrand, userdata, nvec, epsrel, epsabs, &fl,
            seed, mineval, maxeval, nstart, nincrease, nbatch, gridno,
            statefile, spin, neval, fail, integral, error, prob, len);
}

void suave_(const int *ndim, const int *ncomp, ffn integrand, void *userdata,
            const int *nvec, const double *epsrel, const double *epsabs,
            const int *flags, const int *seed, const int *mineval,
            const int *maxeval, const int *nnew, const int *nmin,
            const double *flatness, const char *statefile, void *spin,
            int *nregions, int *neval, int *fail, double *integral,
            double *error, double *prob, size_t len);
void suave_(const int *ndim, const int *ncomp, ffn integrand, void *userdata,
            const int *nvec, const double *epsrel, const double *epsabs,
            const int *flags, const int *seed, const int *mineval,
            const int *maxeval, const int *nnew, const int *nmin,
            const double *flatness, const char *statefile, void *spin,
            int *nregions, int *neval, int *fail, double *integral,
            double *error, double *prob, size_t len)
{
  const int fl = flags_of(*flags);
  threads();
  gsuave_(ndim, ncomp, integrand, userdata, nvec, epsrel, epsabs, &fl, seed,
          mineval, maxeval, nnew, nmin, flatness, statefile, spin, nregions,
          neval, fail, integral, error, prob, len);
}

void llsuave_(const int *ndim, const int *ncomp, ffn integrand,
              void *userdata, const long long *nvec, const double *epsrel,
              const double *epsabs, const int *flags, const int *seed,
              const long long *mineval, const long long *maxeval,
              const long long *nnew, const long long *nmin,
              const double *flatness, const char *statefile, void *spin,
              int *nregions, long long *neval, int *fail, double *integral,
              double *error, double *prob, size_t len);
void llsuave_(const int *ndim, const int *ncomp, ffn integrand,
              void *userdata, const long long *nvec, const double *epsrel,
              const double *epsabs, const int *flags, const int *seed,
              const long long *mineval, const long long *maxeval,
              const long long *nnew, const long long *nmin,
              const double *flatness, const char *statefile, void *spin,
              int *nregions, long long *neval, int *fail, double *integral,
              double *error, double *prob, size_t len)
{
  const int fl = flags_of(*flags);
  threads();
  llgsuave_(ndim, ncomp, integrand, userdata, nvec, epsrel, epsabs, &fl,
            seed, mineval, maxeval, nnew, nmin, flatness, statefile, spin,
            nregions, neval, fail, integral, error, prob, len);
}

void divonne_(const int *ndim, const int *ncomp, ffn integrand,
              void *userdata, const int *nvec, const double *epsrel,
              const double *epsabs, const int *flags, const int *seed,
              const int *mineval, const int *maxeval, const int *key1,
              const int *key2, const int *key3, const int *maxpass,
              const double *border, const double *maxchisq,
              const double *mindeviation, const int *ngiven,
              const int *ldxgiven, double *xgiven, const int *nextra,
              peakfinder_t peakfinder, const char *statefile, void *spin,
              int *nregions, int *neval, int *fail, double *integral,
              double *error, double *prob, size_t len);
void divonne_(const int *ndim, const int *ncomp, ffn integrand,
              void *userdata, const int *nvec, const double *epsrel,
              const double *epsabs, const int *flags, const int *seed,
              const int *mineval, const int *maxeval, const int *key1,
              const int *key2, const int *key3, const int *maxpass,
              const double *border, const double *maxchisq,
              const double *mindeviation, const int *ngiven,
              const int *ldxgiven, double *xgiven, const int *nextra,
              peakfinder_t peakfinder, const char *statefile, void *spin,
              int *nregions, int *neval, int *fail, double *integral,
              double *error, double *prob, size_t len)
{
  const int fl = flags_of(*flags);
  threads();
  gdivonne_(ndim, ncomp, integrand, userdata, nvec, epsrel, epsabs, &fl,
            seed, mineval, maxeval, key1, key2, key3, maxpass, border,
            maxchisq, mindeviation, ngiven, ldxgiven, xgiven, nextra,
            peakfinder, statefile, spin, nregions, neval, fail, integral,
            error, prob, len);
}

void lldivonne_(const int *ndim, const int *ncomp, ffn integrand,
                void *userdata, const long long *nvec, const double *epsrel,
                const double *epsabs, const int *flags, const int *seed,
                const long long *mineval, const long long *maxeval,
                const int *key1, const int *key2, const int *key3,
                const int *maxpass, const double *border,
                const double *maxchisq, const double *mindeviation,
                const long long *ngiven, const int *ldxgiven,
                double *xgiven, const long long *nextra,
                peakfinder_t peakfinder, const char *statefile, void *spin,
                int *nregions, long long *neval, int *fail,
                double *integral, double *error, double *prob, size_t len);
void lldivonne_(const int *ndim, const int *ncomp, ffn integrand,
                void *userdata, const long long *nvec, const double *epsrel,
                const double *epsabs, const int *flags, const int *seed,
                const long long *mineval, const long long *maxeval,
                const int *key1, const int *key2, const int *key3,
                const int *maxpass, const double *border,
                const double *maxchisq, const double *mindeviation,
                const long long *ngiven, const int *ldxgiven,
                double *xgiven, const long long *nextra,
                peakfinder_t peakfinder, const char *statefile, void *spin,
                int *nregions, long long *neval, int *fail,
                double *integral, double *error, double *prob, size_t len)
{
  const int fl = flags_of(*flags);
  threads();
  llgdivonne_(ndim, ncomp, integrand, userdata, nvec, epsrel, epsabs, &fl,
              seed, mineval, maxeval, key1, key2, key3, maxpass, border,
              maxchisq, mindeviation, ngiven, ldxgiven, xgiven, nextra,
              peakfinder, statefile, spin, nregions, neval, fail, integral,
              error, prob, len);
}

void cuhre_(const int *ndim, const int *ncomp, ffn integrand, void *userdata,
            const int *nvec, const double *epsrel, const double *epsabs,
            const int *flags, const int *mineval, const int *maxeval,
            const int *key, const char *statefile, void *spin, int *nregions,
            int *neval, int *fail, double *integral, double *error,
            double *prob, size_t len);
void cuhre_(const int *ndim, const int *ncomp, ffn integrand, void *userdata,
            const int *nvec, const double *epsrel, const double *epsabs,
            const int *flags, const int *mineval, const int *maxeval,
            const int *key, const char *statefile, void *spin, int *nregions,
            int *neval, int *fail, double *integral, double *error,
            double *prob, size_t len)
{
  const int fl = flags_of(*flags);
  threads();
  gcuhre_(ndim, ncomp, integrand, userdata, nvec, epsrel, epsabs, &fl,
          mineval, maxeval, key, statefile, spin, nregions, neval, fail,
          integral, error, prob, len);
}

void llcuhre_(const int *ndim, const int *ncomp, ffn integrand,
              void *userdata, const long long *nvec, const double *epsrel,
              const double *epsabs, const int *flags,
              const long long *mineval, const long long *maxeval,
              const int *key, const char *statefile, void *spin,
              int *nregions, long long *neval, int *fail, double *integral,
              double *error, double *prob, size_t len);
void llcuhre_(const int *ndim, const int *ncomp, ffn integrand,
              void *userdata, const long long *nvec, const double *epsrel,
              const double *epsabs, const int *flags,
              const long long *mineval, const long long *maxeval,
              const int *key, const char *statefile, void *spin,
              int *nregions, long long *neval, int *fail, double *integral,
              double *error, double *prob, size_t len)
{
  const int fl = flags_of(*flags);
  threads();
  llgcuhre_(ndim, ncomp, integrand, userdata, nvec, epsrel, epsabs, &fl,
            mineval, maxeval, key, statefile, spin, nregions, neval, fail,
            integral, error, prob, len);
}

void cubacores_(const int *n, const int *p);
void cubacores_(const int *n, const int *p) { cubacores(n, p); }
void cubaaccel_(const int *n, const int *p);
void cubaaccel_(const int *n, const int *p) { gcubaaccel(n, p); }
void cubainit_(void (*f)(), void *arg);
void cubainit_(void (*f)(), void *arg) { gcubainit(f, arg); }
void cubaexit_(void (*f)(), void *arg);
void cubaexit_(void (*f)(), void *arg) { gcubaexit(f, arg); }
