/* src/common/coll.c -- the collective table libgcuba_mpi installs, and
   the helpers the drivers use over it (see coll.h).  This file is part
   of gcuba. */
#include <limits.h>
#include <pthread.h>
#include "common/common.h"
#include "common/coll.h"

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static gcuba_collective installed;
static int have, busy;

void gcuba_collective_set(const gcuba_collective *coll)
{
  pthread_mutex_lock(&lock);
  have = coll != NULL;
  if (coll) installed = *coll;
  pthread_mutex_unlock(&lock);
}

const gcuba_collective *gcuba_coll_begin(void)
{
  const gcuba_collective *r = NULL;
  pthread_mutex_lock(&lock);
  if (have && !busy) {
    busy = 1;
    r = &installed;
  }
  pthread_mutex_unlock(&lock);
  return r;
}

void gcuba_coll_end(void)
{
  pthread_mutex_lock(&lock);
  busy = 0;
  pthread_mutex_unlock(&lock);
}

int gcuba_coll_status(gcuba_call *c, int rc)
{
  long long v = rc;
  if (!c->coll) return rc;
  if (c->coll->allreduce(c->coll->ctx, &v, 1, GCUBA_COLL_LL, GCUBA_COLL_MIN))
    return gcuba_fail(c, GCUBA_FAIL_MPI, "exchanging the status over %d "
                      "processes", c->coll->size);
  if (v != rc && v < 0) {
    gcuba_log(c, 1, "%s: another process of the collective call failed "
              "(%lld: %s)", c->routine, v, gcuba_strerror((int)v));
    c->fail = (int)v;
  }
  return (int)v;
}

int gcuba_coll_reduce_ll(gcuba_call *c, long long *v, int n, int op)
{
  if (!c->coll || n <= 0) return 0;
  if (c->coll->allreduce(c->coll->ctx, v, n, GCUBA_COLL_LL, op))
    return gcuba_fail(c, GCUBA_FAIL_MPI, "reduction over %d processes",
                      c->coll->size);
  return 0;
}

int gcuba_coll_reduce_d(gcuba_call *c, double *v, int n, int op)
{
  if (!c->coll || n <= 0) return 0;
  if (c->coll->allreduce(c->coll->ctx, v, n, GCUBA_COLL_DOUBLE, op))
    return gcuba_fail(c, GCUBA_FAIL_MPI, "reduction over %d processes",
                      c->coll->size);
  return 0;
}

int gcuba_coll_gather(gcuba_call *c, void *buf, const long long *counts,
                      int type)
{
  int r;
  if (!c->coll) return 0;
  for (r = 0; r < c->coll->size; ++r)
    if (counts[r] < 0 || counts[r] > INT_MAX)
      return gcuba_fail(c, GCUBA_FAIL_MPI, "a block of %lld elements is "
                        "more than one MPI message holds", counts[r]);
  if (c->coll->allgatherv(c->coll->ctx, buf, counts, type))
    return gcuba_fail(c, GCUBA_FAIL_MPI, "exchange over %d processes",
                      c->coll->size);
  return 0;
}

void gcuba_coll_share(const gcuba_collective *coll, long long n,
                      long long *a, long long *b, long long *counts)
{
  int r, size = coll ? coll->size : 1, rank = coll ? coll->rank : 0;
  long long q = n / size, m = n % size;
  /* the first m processes take q + 1 items */
  if (counts)
    for (r = 0; r < size; ++r) counts[r] = q + (r < m);
  *a = rank * q + (rank < m ? rank : m);
  *b = *a + q + (rank < m);
}

#define MAXAGREE 64
int gcuba_coll_agree(gcuba_call *c, const long long *v, int n,
                     const char *const *names)
{
  long long mm[2 * MAXAGREE];
  int i;
  if (!c->coll) return 0;
  if (n > MAXAGREE) n = MAXAGREE;
  /* the minimum and minus the maximum in one reduction */
  for (i = 0; i < n; ++i) {
    mm[i] = v[i];
    mm[n + i] = v[i] == LLONG_MIN ? LLONG_MAX : -v[i];
  }
  if (c->coll->allreduce(c->coll->ctx, mm, 2 * n, GCUBA_COLL_LL,
                         GCUBA_COLL_MIN))
    return gcuba_fail(c, GCUBA_FAIL_MPI, "comparing the arguments of the "
                      "%d processes", c->coll->size);
  for (i = 0; i < n; ++i)
    if (mm[i] != -mm[n + i])
      return gcuba_fail(c, GCUBA_FAIL_COLLECTIVE, "the %d processes of a "
                        "collective call disagree on %s (from %lld to %lld; "
                        "this process: %lld)", c->coll->size, names[i],
                        mm[i], -mm[n + i], v[i]);
  return 0;
}
