/* src/api/host.c -- gcuba_host_integrand: a descriptor for a plain Cuba
   host function, so code written for Cuba's integrand_t runs unchanged on
   the CPU backend.  Descriptors live in a fixed table (no allocation, no
   leak); the same function gets the same descriptor.  This file is part
   of gcuba. */
#include <pthread.h>
#include "common/common.h"

#define NHOST 64
static struct gcuba_integrand table[NHOST];
static int ntable;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;

gintegrand_t gcuba_host_integrand(gcuba_host_fn f, int nvec_form)
{
  int i, kind = nvec_form ? GCUBA_DESC_NVEC : GCUBA_DESC_POINT;
  gintegrand_t d = NULL;
  if (!f) return NULL;
  pthread_mutex_lock(&lock);
  for (i = 0; i < ntable; ++i)
    if (table[i].fn == f && table[i].kind == kind) d = &table[i];
  if (!d && ntable < NHOST) {
    struct gcuba_integrand *t = &table[ntable++];
    t->abi = GCUBA_ABI_VERSION;
    t->kind = kind;
    t->name = "host function";
    t->fn = f;
    t->gpu = NULL;
    d = t;
  }
  pthread_mutex_unlock(&lock);
  return d;
}
