/* src/vegas/sobol.h -- the direction numbers of the Sobol sequence
   (Joe and Kuo's, src/vegas/sobol.c); the points themselves are
   gcuba_vegas_sobol in include/gcuba/detail/vegas.h.  This file is part of
   gcuba. */
#ifndef GCUBA_VEGAS_SOBOL_H
#define GCUBA_VEGAS_SOBOL_H

#include <stdint.h>

#define GCUBA_SOBOL_MAXDIM 1024
#define GCUBA_SOBOL_BITS 64

/* v[a*64 + b] = direction number b (the 2^-(b+1) bit first) of axis a,
   a 64-bit binary fraction, for axes 0..ndim-1.  0, or -1 when ndim is
   outside 1..GCUBA_SOBOL_MAXDIM. */
#ifdef __cplusplus
extern "C"
#endif
int gcuba_sobol_dirs(int ndim, uint64_t *v);

/* the same numbers for every axis, made once for the process and shared
   by all calls (the first ndim*64 are gcuba_sobol_dirs(ndim)'s); NULL
   when ndim is outside 1..GCUBA_SOBOL_MAXDIM.  Thread-safe. */
#ifdef __cplusplus
extern "C"
#endif
const uint64_t *gcuba_sobol_table(int ndim);

#endif
