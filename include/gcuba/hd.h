/* gcuba/hd.h -- GCUBA_HD: code compiled both by a host C compiler and by nvcc.
   This file is part of gcuba. */
#ifndef GCUBA_HD_H
#define GCUBA_HD_H

#ifdef __CUDACC__
#define GCUBA_HD __host__ __device__
#define GCUBA_HDI __host__ __device__ __forceinline__
#else
#define GCUBA_HD
#if defined(__GNUC__)
#define GCUBA_HDI static inline __attribute__((always_inline))
#else
#define GCUBA_HDI static inline
#endif
#endif

#endif /* GCUBA_HD_H */
