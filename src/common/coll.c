/* src/common/coll.c -- the collective table libgcuba_mpi installs, and
   the helpers the drivers use over it (see coll.h).  This file is part
   of gcuba. */
#define _GNU_SOURCE /* sched_getaffinity, CPU_COUNT */
#include <limits.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
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
  /* (a group of one process computes what a local call does: local) */
  if (have && !busy && installed.size > 1) {
    busy = 1;
    r = &installed;
  }
  pthread_mutex_unlock(&lock);
  return r;
}

void gcuba_coll_end(const gcuba_call *c, double t0)
{
  gcuba_log(c, 2, "process %d of %d: %.1f ms of %.1f ms in %lld collective "
            "operations (waiting for the others, exchanging)", c->coll->rank,
            c->coll->size, c->coll_ms, gcuba_now_ms() - t0, c->coll_ops);
  pthread_mutex_lock(&lock);
  busy = 0;
  pthread_mutex_unlock(&lock);
}

/* the collective operation op (nonzero on an error), its time added to
   the call's (said at verbosity 2: src/api): the start is subtracted
   before op runs (the comma orders them), the end added after */
static void timed_start(gcuba_call *c) { c->coll_ms -= gcuba_now_ms(); }
static int timed_end(gcuba_call *c, int rc)
{
  c->coll_ms += gcuba_now_ms();
  ++c->coll_ops;
  return rc;
}
#define TIMED(c, op) (timed_start(c), timed_end((c), (op)))

int gcuba_coll_status(gcuba_call *c, int rc)
{
  long long v = rc;
  if (!c->coll) return rc;
  if (TIMED(c, c->coll->allreduce(c->coll->ctx, &v, 1, GCUBA_COLL_LL,
                                   GCUBA_COLL_MIN)))
    return gcuba_fail(c, GCUBA_FAIL_MPI, "exchanging the status over %d "
                      "processes", c->coll->size);
  if (v != rc && v < 0) {
    gcuba_log(c, 1, "another %s of the collective call failed (%lld: %s)",
              c->coll->device >= 0 ? "GPU" : "process", v,
              gcuba_fail_message((int)v));
    c->fail = (int)v;
  }
  return (int)v;
}

int gcuba_coll_reduce_ll(gcuba_call *c, long long *v, int n, int op)
{
  if (!c->coll || n <= 0) return 0;
  if (TIMED(c, c->coll->allreduce(c->coll->ctx, v, n, GCUBA_COLL_LL, op)))
    return gcuba_fail(c, GCUBA_FAIL_MPI, "reduction over %d processes",
                      c->coll->size);
  return 0;
}

int gcuba_coll_reduce_d(gcuba_call *c, double *v, int n, int op)
{
  if (!c->coll || n <= 0) return 0;
  if (TIMED(c, c->coll->allreduce(c->coll->ctx, v, n, GCUBA_COLL_DOUBLE, op)))
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
  if (TIMED(c, c->coll->allgatherv(c->coll->ctx, buf, counts, type)))
    return gcuba_fail(c, GCUBA_FAIL_MPI, "exchange over %d processes",
                      c->coll->size);
  return 0;
}

int gcuba_coll_gather_dev(gcuba_call *c, void *buf, const long long *counts,
                          int type, void *stream)
{
  if (!c->coll || !c->coll->allgatherv_dev) return 1;
  if (TIMED(c, c->coll->allgatherv_dev(c->coll->ctx, buf, counts, type,
                                        stream)))
    return gcuba_fail(c, GCUBA_FAIL_CUDA, "copies between the %d GPUs",
                      c->coll->size);
  return 0;
}

int gcuba_coll_alltoallv(gcuba_call *c, const void *send,
                         const long long *scnt, const long long *soff,
                         void *recv, const long long *rcnt,
                         const long long *roff)
{
  if (!c->coll) return 0;
  if (!c->coll->alltoallv ||
      TIMED(c, c->coll->alltoallv(c->coll->ctx, send, scnt, soff, recv,
                                  rcnt, roff)))
    return gcuba_fail(c, GCUBA_FAIL_MPI, "exchange of regions over %d "
                      "processes", c->coll->size);
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
  if (TIMED(c, c->coll->allreduce(c->coll->ctx, mm, 2 * n, GCUBA_COLL_LL,
                                   GCUBA_COLL_MIN)))
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
