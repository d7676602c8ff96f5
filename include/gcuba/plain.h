/* gcuba/plain.h -- a plain Cuba integrand (a host function of Cuba's
   integrand_t type) passed straight to any g routine, without a cast or a
   wrapper: included by gcuba.h.  It becomes gcuba_host_integrand(f, 1),
   a descriptor that runs on CPU threads and is called as Cuba calls it,
   with Cuba's extra arguments (nvec, core; gVegas and gSuave also weight
   and iter, gDivonne phase), so that nvec > 1 works as under Cuba.  To
   run on the GPU, define the integrand with GCUBA_INTEGRAND and compile
   it with nvcc.
   C11 and later: each routine is also a macro whose _Generic passes a
   gintegrand_t on unchanged; C++: overloads.  C99 has neither: wrap the
   function with gcuba_host_integrand.  Define GCUBA_NO_PLAIN_INTEGRANDS
   before including gcuba.h to leave the routines plain.
   This file is part of gcuba. */
#ifndef GCUBA_PLAIN_H
#define GCUBA_PLAIN_H

#if !defined(GCUBA_NO_PLAIN_INTEGRANDS)
#if defined(__cplusplus)
extern "C++" {
inline void gCuhre(const int ndim, const int ncomp,
                   gcuba_integrand_fn integrand, void *userdata,
                   const int nvec, const gcubareal epsrel,
                   const gcubareal epsabs, const int flags, const int mineval,
                   const int maxeval, const int key, const char *statefile,
                   void *spin, int *nregions, int *neval, int *fail,
                   gcubareal integral[], gcubareal error[],
                   gcubareal prob[]) {
  gCuhre(ndim, ncomp, gcuba_host_integrand(integrand, 1), userdata, nvec,
         epsrel, epsabs, flags, mineval, maxeval, key, statefile, spin,
         nregions, neval, fail, integral, error, prob);
}
inline void
llgCuhre(const int ndim, const int ncomp, gcuba_integrand_fn integrand,
         void *userdata, const long long int nvec, const gcubareal epsrel,
         const gcubareal epsabs, const int flags, const long long int mineval,
         const long long int maxeval, const int key, const char *statefile,
         void *spin, int *nregions, long long int *neval, int *fail,
         gcubareal integral[], gcubareal error[], gcubareal prob[]) {
  llgCuhre(ndim, ncomp, gcuba_host_integrand(integrand, 1), userdata, nvec,
           epsrel, epsabs, flags, mineval, maxeval, key, statefile, spin,
           nregions, neval, fail, integral, error, prob);
}
inline void gVegas(const int ndim, const int ncomp,
                   gcuba_integrand_fn integrand, void *userdata,
                   const int nvec, const gcubareal epsrel,
                   const gcubareal epsabs, const int flags, const int seed,
                   const int mineval, const int maxeval, const int nstart,
                   const int nincrease, const int nbatch, const int gridno,
                   const char *statefile, void *spin, int *neval, int *fail,
                   gcubareal integral[], gcubareal error[],
                   gcubareal prob[]) {
  gVegas(ndim, ncomp, gcuba_host_integrand(integrand, 1), userdata, nvec,
         epsrel, epsabs, flags, seed, mineval, maxeval, nstart, nincrease,
         nbatch, gridno, statefile, spin, neval, fail, integral, error, prob);
}
inline void
llgVegas(const int ndim, const int ncomp, gcuba_integrand_fn integrand,
         void *userdata, const long long int nvec, const gcubareal epsrel,
         const gcubareal epsabs, const int flags, const int seed,
         const long long int mineval, const long long int maxeval,
         const long long int nstart, const long long int nincrease,
         const long long int nbatch, const int gridno, const char *statefile,
         void *spin, long long int *neval, int *fail, gcubareal integral[],
         gcubareal error[], gcubareal prob[]) {
  llgVegas(ndim, ncomp, gcuba_host_integrand(integrand, 1), userdata, nvec,
           epsrel, epsabs, flags, seed, mineval, maxeval, nstart, nincrease,
           nbatch, gridno, statefile, spin, neval, fail, integral, error,
           prob);
}
inline void gSuave(const int ndim, const int ncomp,
                   gcuba_integrand_fn integrand, void *userdata,
                   const int nvec, const gcubareal epsrel,
                   const gcubareal epsabs, const int flags, const int seed,
                   const int mineval, const int maxeval, const int nnew,
                   const int nmin, const gcubareal flatness,
                   const char *statefile, void *spin, int *nregions,
                   int *neval, int *fail, gcubareal integral[],
                   gcubareal error[], gcubareal prob[]) {
  gSuave(ndim, ncomp, gcuba_host_integrand(integrand, 1), userdata, nvec,
         epsrel, epsabs, flags, seed, mineval, maxeval, nnew, nmin, flatness,
         statefile, spin, nregions, neval, fail, integral, error, prob);
}
inline void llgSuave(const int ndim, const int ncomp,
                     gcuba_integrand_fn integrand, void *userdata,
                     const long long int nvec, const gcubareal epsrel,
                     const gcubareal epsabs, const int flags, const int seed,
                     const long long int mineval, const long long int maxeval,
                     const long long int nnew, const long long int nmin,
                     const gcubareal flatness, const char *statefile,
                     void *spin, int *nregions, long long int *neval,
                     int *fail, gcubareal integral[], gcubareal error[],
                     gcubareal prob[]) {
  llgSuave(ndim, ncomp, gcuba_host_integrand(integrand, 1), userdata, nvec,
           epsrel, epsabs, flags, seed, mineval, maxeval, nnew, nmin,
           flatness, statefile, spin, nregions, neval, fail, integral, error,
           prob);
}
inline void gDivonne(const int ndim, const int ncomp,
                     gcuba_integrand_fn integrand, void *userdata,
                     const int nvec, const gcubareal epsrel,
                     const gcubareal epsabs, const int flags, const int seed,
                     const int mineval, const int maxeval, const int key1,
                     const int key2, const int key3, const int maxpass,
                     const gcubareal border, const gcubareal maxchisq,
                     const gcubareal mindeviation, const int ngiven,
                     const int ldxgiven, gcubareal xgiven[],
                     const int nextra, gcuba_peakfinder_t peakfinder,
                     const char *statefile, void *spin, int *nregions,
                     int *neval, int *fail, gcubareal integral[],
                     gcubareal error[], gcubareal prob[]) {
  gDivonne(ndim, ncomp, gcuba_host_integrand(integrand, 1), userdata, nvec,
           epsrel, epsabs, flags, seed, mineval, maxeval, key1, key2, key3,
           maxpass, border, maxchisq, mindeviation, ngiven, ldxgiven, xgiven,
           nextra, peakfinder, statefile, spin, nregions, neval, fail,
           integral, error, prob);
}
inline void
llgDivonne(const int ndim, const int ncomp, gcuba_integrand_fn integrand,
           void *userdata, const long long int nvec, const gcubareal epsrel,
           const gcubareal epsabs, const int flags, const int seed,
           const long long int mineval, const long long int maxeval,
           const int key1, const int key2, const int key3, const int maxpass,
           const gcubareal border, const gcubareal maxchisq,
           const gcubareal mindeviation, const long long int ngiven,
           const int ldxgiven, gcubareal xgiven[],
           const long long int nextra, gcuba_peakfinder_t peakfinder,
           const char *statefile, void *spin, int *nregions,
           long long int *neval, int *fail, gcubareal integral[],
           gcubareal error[], gcubareal prob[]) {
  llgDivonne(ndim, ncomp, gcuba_host_integrand(integrand, 1), userdata,
             nvec, epsrel, epsabs, flags, seed, mineval, maxeval, key1, key2,
             key3, maxpass, border, maxchisq, mindeviation, ngiven, ldxgiven,
             xgiven, nextra, peakfinder, statefile, spin, nregions, neval,
             fail, integral, error, prob);
}
inline void gRomberg(const int ncomp, gcuba_integrand_fn integrand,
                     void *userdata, const int nvec, const gcubareal epsrel,
                     const gcubareal epsabs, const int flags,
                     const int mineval, const int maxeval, int *neval,
                     int *fail, gcubareal integral[], gcubareal error[],
                     gcubareal prob[]) {
  gRomberg(ncomp, gcuba_host_integrand(integrand, 1), userdata, nvec, epsrel,
           epsabs, flags, mineval, maxeval, neval, fail, integral, error,
           prob);
}
inline void llgRomberg(const int ncomp, gcuba_integrand_fn integrand,
                       void *userdata, const long long int nvec,
                       const gcubareal epsrel, const gcubareal epsabs,
                       const int flags, const long long int mineval,
                       const long long int maxeval, long long int *neval,
                       int *fail, gcubareal integral[], gcubareal error[],
                       gcubareal prob[]) {
  llgRomberg(ncomp, gcuba_host_integrand(integrand, 1), userdata, nvec,
             epsrel, epsabs, flags, mineval, maxeval, neval, fail, integral,
             error, prob);
}
inline void gCuhreBatch(const int nintegrals, const int ndim, const int ncomp,
                        gcuba_integrand_fn integrand, void *userdata,
                        const size_t userstride, const int nvec,
                        const gcubareal epsrel, const gcubareal epsabs,
                        const int flags, const int mineval, const int maxeval,
                        const int key, int nregions[], int neval[],
                        int fail[], gcubareal integral[], gcubareal error[],
                        gcubareal prob[]) {
  gCuhreBatch(nintegrals, ndim, ncomp, gcuba_host_integrand(integrand, 1),
              userdata, userstride, nvec, epsrel, epsabs, flags, mineval,
              maxeval, key, nregions, neval, fail, integral, error, prob);
}
inline void llgCuhreBatch(
    const int nintegrals, const int ndim, const int ncomp,
    gcuba_integrand_fn integrand, void *userdata, const size_t userstride,
    const long long int nvec, const gcubareal epsrel, const gcubareal epsabs,
    const int flags, const long long int mineval, const long long int maxeval,
    const int key, int nregions[], long long int neval[], int fail[],
    gcubareal integral[], gcubareal error[], gcubareal prob[]) {
  llgCuhreBatch(nintegrals, ndim, ncomp, gcuba_host_integrand(integrand, 1),
                userdata, userstride, nvec, epsrel, epsabs, flags, mineval,
                maxeval, key, nregions, neval, fail, integral, error, prob);
}
inline void gVegasBatch(const int nintegrals, const int ndim, const int ncomp,
                        gcuba_integrand_fn integrand, void *userdata,
                        const size_t userstride, const int nvec,
                        const gcubareal epsrel, const gcubareal epsabs,
                        const int flags, const int seed, const int mineval,
                        const int maxeval, const int nstart,
                        const int nincrease, const int nbatch,
                        const int gridno, int neval[], int fail[],
                        gcubareal integral[], gcubareal error[],
                        gcubareal prob[]) {
  gVegasBatch(nintegrals, ndim, ncomp, gcuba_host_integrand(integrand, 1),
              userdata, userstride, nvec, epsrel, epsabs, flags, seed,
              mineval, maxeval, nstart, nincrease, nbatch, gridno, neval,
              fail, integral, error, prob);
}
inline void
llgVegasBatch(const int nintegrals, const int ndim, const int ncomp,
              gcuba_integrand_fn integrand, void *userdata,
              const size_t userstride, const long long int nvec,
              const gcubareal epsrel, const gcubareal epsabs, const int flags,
              const int seed, const long long int mineval,
              const long long int maxeval, const long long int nstart,
              const long long int nincrease, const long long int nbatch,
              const int gridno, long long int neval[], int fail[],
              gcubareal integral[], gcubareal error[], gcubareal prob[]) {
  llgVegasBatch(nintegrals, ndim, ncomp, gcuba_host_integrand(integrand, 1),
                userdata, userstride, nvec, epsrel, epsabs, flags, seed,
                mineval, maxeval, nstart, nincrease, nbatch, gridno, neval,
                fail, integral, error, prob);
}
}
#elif defined(__STDC_VERSION__) && __STDC_VERSION__ >= 201112L
/* f as gintegrand_t: a plain function through gcuba_host_integrand, any
   other argument as it is (the inner _Generic keeps every branch well
   typed) */
#define GCUBA_PLAIN_(f)                                                      \
  _Generic((f),                                                              \
      gcuba_integrand_fn: gcuba_host_integrand(                              \
          _Generic((f), gcuba_integrand_fn: (f),                            \
                   default: (gcuba_integrand_fn)0), 1),                      \
      default: (f))
#define gCuhre(ndim, ncomp, integrand, ...)                                  \
  gCuhre(ndim, ncomp, GCUBA_PLAIN_(integrand), __VA_ARGS__)
#define llgCuhre(ndim, ncomp, integrand, ...)                                \
  llgCuhre(ndim, ncomp, GCUBA_PLAIN_(integrand), __VA_ARGS__)
#define gVegas(ndim, ncomp, integrand, ...)                                  \
  gVegas(ndim, ncomp, GCUBA_PLAIN_(integrand), __VA_ARGS__)
#define llgVegas(ndim, ncomp, integrand, ...)                                \
  llgVegas(ndim, ncomp, GCUBA_PLAIN_(integrand), __VA_ARGS__)
#define gSuave(ndim, ncomp, integrand, ...)                                  \
  gSuave(ndim, ncomp, GCUBA_PLAIN_(integrand), __VA_ARGS__)
#define llgSuave(ndim, ncomp, integrand, ...)                                \
  llgSuave(ndim, ncomp, GCUBA_PLAIN_(integrand), __VA_ARGS__)
#define gDivonne(ndim, ncomp, integrand, ...)                                \
  gDivonne(ndim, ncomp, GCUBA_PLAIN_(integrand), __VA_ARGS__)
#define llgDivonne(ndim, ncomp, integrand, ...)                              \
  llgDivonne(ndim, ncomp, GCUBA_PLAIN_(integrand), __VA_ARGS__)
#define gRomberg(ncomp, integrand, ...)                                      \
  gRomberg(ncomp, GCUBA_PLAIN_(integrand), __VA_ARGS__)
#define llgRomberg(ncomp, integrand, ...)                                    \
  llgRomberg(ncomp, GCUBA_PLAIN_(integrand), __VA_ARGS__)
#define gCuhreBatch(nintegrals, ndim, ncomp, integrand, ...)                 \
  gCuhreBatch(nintegrals, ndim, ncomp, GCUBA_PLAIN_(integrand), __VA_ARGS__)
#define llgCuhreBatch(nintegrals, ndim, ncomp, integrand, ...)               \
  llgCuhreBatch(nintegrals, ndim, ncomp, GCUBA_PLAIN_(integrand), __VA_ARGS__)
#define gVegasBatch(nintegrals, ndim, ncomp, integrand, ...)                 \
  gVegasBatch(nintegrals, ndim, ncomp, GCUBA_PLAIN_(integrand), __VA_ARGS__)
#define llgVegasBatch(nintegrals, ndim, ncomp, integrand, ...)               \
  llgVegasBatch(nintegrals, ndim, ncomp, GCUBA_PLAIN_(integrand), __VA_ARGS__)
#endif
#endif

#endif
