/* src/vegas/sobol.c -- direction numbers of the Sobol sequence for
   gVegas's seed 0 (Cuba's choice of Sobol for seed 0), from the
   primitive polynomials and initial direction numbers of S. Joe and
   F. Y. Kuo (2008) in sobol_data.inc, which holds them with their
   licence.  This file is part of gcuba. */
#include <pthread.h>
#include <stddef.h>
#include <stdint.h>
#include "vegas/sobol.h"

#include "vegas/sobol_data.inc"

int gcuba_sobol_dirs(int ndim, uint64_t *v)
{
  const uint16_t *e = jk;
  int j, k, i;
  if (ndim < 1 || ndim > GCUBA_SOBOL_MAXDIM) return -1;
  /* dimension 1: m_k = 1 */
  for (k = 1; k <= GCUBA_SOBOL_BITS; ++k)
    v[k - 1] = (uint64_t)1 << (GCUBA_SOBOL_BITS - k);
  for (j = 1; j < ndim; ++j) {
    uint64_t m[GCUBA_SOBOL_BITS + 1];
    const int s = e[0];
    const unsigned a = e[1];
    for (k = 1; k <= s; ++k) m[k] = e[1 + k];
    /* m_k = 2^s m_{k-s} ^ m_{k-s} ^ sum_{i=1}^{s-1} 2^i a_i m_{k-i},
       with a_i the i-th of the s-1 bits of a, highest first; m_k < 2^k */
    for (k = s + 1; k <= GCUBA_SOBOL_BITS; ++k) {
      uint64_t x = m[k - s] ^ (m[k - s] << s);
      for (i = 1; i < s; ++i)
        if ((a >> (s - 1 - i)) & 1u) x ^= m[k - i] << i;
      m[k] = x;
    }
    for (k = 1; k <= GCUBA_SOBOL_BITS; ++k)
      v[(size_t)j * GCUBA_SOBOL_BITS + k - 1] = m[k] << (GCUBA_SOBOL_BITS - k);
    e += 2 + s;
  }
  return 0;
}

/* the direction numbers of every axis, made once (512 KiB) */
static uint64_t table[GCUBA_SOBOL_MAXDIM * GCUBA_SOBOL_BITS];
static pthread_once_t table_once = PTHREAD_ONCE_INIT;
static void make_table(void) { gcuba_sobol_dirs(GCUBA_SOBOL_MAXDIM, table); }

const uint64_t *gcuba_sobol_table(int ndim)
{
  if (ndim < 1 || ndim > GCUBA_SOBOL_MAXDIM) return NULL;
  pthread_once(&table_once, make_table);
  return table;
}
