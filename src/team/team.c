/* src/team/team.c -- several GPUs of this process (GCUBA_DEVICES): one
   thread per GPU runs the whole call as a member of a collective
   (common/coll.h) whose operations are copies between the members'
   buffers, so that the drivers need no other change than for MPI and the
   result is the bits of one GPU.  The plan (src/plan/) decides which GPUs
   and when; this layer runs them.  This file is part of gcuba. */
#define _GNU_SOURCE /* sched_getaffinity, CPU_COUNT */
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "common/common.h"
#include "common/coll.h"
#include "cuda/device.h"
#include "team/team.h"

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;

/* ---- the team ------------------------------------------------------------
   One thread per GPU runs the whole call as a member of a collective whose
   operations are memory copies between the members' buffers, ordered by a
   barrier: the drivers need no other change than for MPI, and the result is
   the same bits as on one GPU.  Each operation publishes this member's
   buffer, waits for every member to have done so, reads the others', and
   waits again before the buffers may change. */
typedef struct team {
  int size;
  int count, gen; /* the barrier (team_wait) */
  void *buf[GCUBA_MAXDEVICES];
  const long long *off[GCUBA_MAXDEVICES]; /* alltoallv: soff */
  int dev[GCUBA_MAXDEVICES];
  int rc[GCUBA_MAXDEVICES];
  /* start gate: 1 run, -1 a thread could not be started: return */
  pthread_mutex_t lock;
  pthread_cond_t cv;
  int go;
} team;

typedef struct member {
  team *t;
  gcuba_collective coll;
  gcuba_call c;
  void (*run)(gcuba_call *);
  pthread_t th;
  double wait_ms; /* at the barrier: waiting for the other members */
  long long nwait;
} member;

/* every member here before any goes on: a spinning barrier (the waits
   are short and many, a few per exchange), yielding after a while.  The
   time m spends waiting is its idle time (said at verbosity 2). */
static void team_wait(member *m)
{
  team *t = m->t;
  const int gen = __atomic_load_n(&t->gen, __ATOMIC_ACQUIRE);
  ++m->nwait;
  if (__atomic_add_fetch(&t->count, 1, __ATOMIC_ACQ_REL) == t->size) {
    __atomic_store_n(&t->count, 0, __ATOMIC_RELAXED);
    __atomic_store_n(&t->gen, gen + 1, __ATOMIC_RELEASE);
  } else {
    const double t0 = gcuba_now_ms();
    int spins = 0;
    while (__atomic_load_n(&t->gen, __ATOMIC_ACQUIRE) == gen)
      if (++spins > 4000) sched_yield();
    m->wait_ms += gcuba_now_ms() - t0;
  }
}

static size_t elsize(int type)
{
  return type == GCUBA_COLL_DOUBLE ? sizeof(double)
         : type == GCUBA_COLL_LL   ? sizeof(long long)
                                   : 1;
}

static int team_gather(void *ctx, void *buf, const long long *counts,
                       int type)
{
  member *m = (member *)ctx;
  team *t = m->t;
  const size_t el = elsize(type);
  size_t off = 0;
  int r;
  t->buf[m->coll.rank] = buf;
  team_wait(m);
  for (r = 0; r < t->size; ++r) {
    const size_t n = (size_t)counts[r] * el;
    if (r != m->coll.rank && n)
      memcpy((char *)buf + off, (const char *)t->buf[r] + off, n);
    off += n;
  }
  team_wait(m);
  return 0;
}

/* the same between the members' GPUs, copied directly */
static int team_gather_dev(void *ctx, void *buf, const long long *counts,
                           int type, void *stream)
{
  member *m = (member *)ctx;
  team *t = m->t;
  const size_t el = elsize(type);
  const int me = m->coll.rank;
  size_t off = 0;
  int r, rc = 0;
  t->buf[me] = buf;
  team_wait(m);
  for (r = 0; r < t->size; ++r) {
    const size_t n = (size_t)counts[r] * el;
    if (r != me && n && !rc)
      rc = gcuba_cuda_copy_peer((char *)buf + off, t->dev[me],
                                (const char *)t->buf[r] + off, t->dev[r], n,
                                stream);
    off += n;
  }
  if (!rc) rc = gcuba_cuda_wait(stream);
  t->rc[me] = rc != 0;
  team_wait(m);
  /* every member's outcome (read before anyone can pass the next op's
     first wait) */
  for (r = 0; r < t->size; ++r) rc |= t->rc[r];
  return rc;
}

/* alltoallv: every member publishes its send buffer and offsets, then
   pulls its part of every other member's (host memory: memcpy; GPUs:
   peer copies on this member's stream) */
static int team_a2a(member *m, const void *send, const long long *soff,
                    void *recv, const long long *rcnt, const long long *roff,
                    void *stream)
{
  team *t = m->t;
  const int me = m->coll.rank;
  int r, rc = 0;
  t->buf[me] = (void *)send;
  t->off[me] = soff;
  team_wait(m);
  for (r = 0; r < t->size; ++r) {
    const char *src = (const char *)t->buf[r] + t->off[r][me];
    char *dst = (char *)recv + roff[r];
    if (!rcnt[r] || rc) continue;
    if (!stream)
      memcpy(dst, src, (size_t)rcnt[r]);
    else
      rc = gcuba_cuda_copy_peer(dst, t->dev[me], src, t->dev[r],
                                (size_t)rcnt[r], stream);
  }
  if (stream && !rc) rc = gcuba_cuda_wait(stream);
  t->rc[me] = rc != 0;
  team_wait(m);
  for (r = 0; r < t->size; ++r) rc |= t->rc[r];
  return rc;
}

static int team_alltoallv(void *ctx, const void *send, const long long *scnt,
                          const long long *soff, void *recv,
                          const long long *rcnt, const long long *roff)
{
  (void)scnt;
  return team_a2a((member *)ctx, send, soff, recv, rcnt, roff, NULL);
}

static int team_alltoallv_dev(void *ctx, const void *send,
                              const long long *scnt, const long long *soff,
                              void *recv, const long long *rcnt,
                              const long long *roff, void *stream)
{
  (void)scnt;
  return team_a2a((member *)ctx, send, soff, recv, rcnt, roff, stream);
}

#define REDUCE_CHUNK 256
static int team_reduce(void *ctx, void *v, int n, int type, int op)
{
  member *m = (member *)ctx;
  team *t = m->t;
  int i0, i, r;
  t->buf[m->coll.rank] = v;
  team_wait(m);
  /* in chunks: read every member's chunk, wait, write this member's */
  for (i0 = 0; i0 < n; i0 += REDUCE_CHUNK) {
    const int k = n - i0 < REDUCE_CHUNK ? n - i0 : REDUCE_CHUNK;
    if (type == GCUBA_COLL_DOUBLE) {
      double acc[REDUCE_CHUNK];
      for (i = 0; i < k; ++i) {
        acc[i] = ((const double *)t->buf[0])[i0 + i];
        for (r = 1; r < t->size; ++r) {
          const double x = ((const double *)t->buf[r])[i0 + i];
          acc[i] = op == GCUBA_COLL_MIN   ? (x < acc[i] ? x : acc[i])
                   : op == GCUBA_COLL_MAX ? (x > acc[i] ? x : acc[i])
                                          : acc[i] + x;
        }
      }
      team_wait(m);
      memcpy((double *)v + i0, acc, sizeof(double) * (size_t)k);
    } else {
      long long acc[REDUCE_CHUNK];
      for (i = 0; i < k; ++i) {
        acc[i] = ((const long long *)t->buf[0])[i0 + i];
        for (r = 1; r < t->size; ++r) {
          const long long x = ((const long long *)t->buf[r])[i0 + i];
          acc[i] = op == GCUBA_COLL_MIN   ? (x < acc[i] ? x : acc[i])
                   : op == GCUBA_COLL_MAX ? (x > acc[i] ? x : acc[i])
                   : op == GCUBA_COLL_SUM ? acc[i] + x
                                          : acc[i] | x;
        }
      }
      team_wait(m);
      memcpy((long long *)v + i0, acc, sizeof(long long) * (size_t)k);
    }
  }
  team_wait(m);
  return 0;
}

static void *member_main(void *arg)
{
  member *m = (member *)arg;
  team *t = m->t;
  int go;
  pthread_mutex_lock(&t->lock);
  while (t->go == 0) pthread_cond_wait(&t->cv, &t->lock);
  go = t->go;
  pthread_mutex_unlock(&t->lock);
  if (go > 0) m->run(&m->c);
  return NULL;
}

/* the GPUs on which a team member of this process has run: their CUDA
   contexts exist */
#define USED_MAX 64
static unsigned char dev_used[USED_MAX];

int gcuba_team_used(int dev)
{
  int used;
  if (dev < 0 || dev >= USED_MAX) return 0;
  pthread_mutex_lock(&lock);
  used = dev_used[dev];
  pthread_mutex_unlock(&lock);
  return used;
}

int gcuba_team_cpus(void)
{
#if defined(__linux__) && defined(CPU_COUNT)
  cpu_set_t set;
  if (sched_getaffinity(0, sizeof set, &set) == 0) return CPU_COUNT(&set);
#endif
  return 0;
}

int gcuba_team_grow(gcuba_call *c, void (*run)(gcuba_call *),
                    const int *dev, int n, const void *state, size_t bytes,
                    const void *set)
{
  const long long neval = c->neval;
  const double t0 = gcuba_now_ms();
  int back = 0;
  gcuba_log(c, 1, "continuing on %d GPUs (GCUBA_DEVICES=auto; "
            "GCUBA_DEVICES=1 keeps a call on one)", n);
  c->resume = state;
  c->resume_n = bytes;
  c->resume_set = set;
  gcuba_team_run_on(c, run, dev, n);
  gcuba_log(c, 2, "%d GPUs: %.1f ms", n, gcuba_now_ms() - t0);
  if (c->fail == GCUBA_FAIL_NOMEM || c->fail == GCUBA_FAIL_DEVMEM ||
      c->fail == GCUBA_FAIL_CUDA || c->fail == GCUBA_FAIL_NODEVICE) {
    gcuba_log(c, 1, "%d GPUs failed (fail %d): going on on one", n,
              c->fail);
    c->fail = 0;
    c->neval = neval;
    back = 1;
  }
  c->resume = NULL;
  c->resume_n = 0;
  c->resume_set = NULL;
  return back;
}

void gcuba_team_run_on(gcuba_call *c, void (*run)(gcuba_call *),
                       const int *dev, int n)
{
  const int ncomp = c->ncomp, prev = gcuba_cuda_current();
  team *t;
  member *m;
  double *out, t0;
  int i, started = 1;
  if (n < 1 || n > GCUBA_MAXDEVICES) {
    gcuba_fail(c, GCUBA_FAIL_PARAM, "a team of %d members", n);
    return;
  }
  t = (team *)calloc(1, sizeof *t);
  m = (member *)calloc((size_t)n, sizeof *m);
  out = (double *)malloc(sizeof(double) * 3 * (size_t)ncomp * (size_t)n);
  if (!t || !m || !out) {
    free(t);
    free(m);
    free(out);
    gcuba_fail(c, GCUBA_FAIL_NOMEM, "the threads of %d GPUs", n);
    return;
  }
  pthread_mutex_init(&t->lock, NULL);
  pthread_cond_init(&t->cv, NULL);
  t->size = n;
  for (i = 0; i < n; ++i) t->dev[i] = dev[i];
  for (i = 0; i < n; ++i) {
    member *k = &m[i];
    k->t = t;
    k->run = run;
    k->coll.rank = k->coll.local_rank = i;
    k->coll.size = k->coll.local_size = n;
    k->coll.device = dev[i];
    k->coll.ctx = k;
    k->coll.allgatherv = team_gather;
    k->coll.allreduce = team_reduce;
    k->coll.allgatherv_dev = team_gather_dev;
    k->coll.alltoallv = team_alltoallv;
    k->coll.alltoallv_dev = dev[i] >= 0 ? team_alltoallv_dev : NULL;
    k->c = *c;
    k->c.coll = &k->coll;
    k->c.grow = NULL; /* a member goes on where it is */
    if (i > 0) {
      /* the others say nothing and keep their results to themselves */
      k->c.verbose = 0;
      k->c.integral = out + 3 * (size_t)ncomp * (size_t)i;
      k->c.error = k->c.integral + ncomp;
      k->c.prob = k->c.error + ncomp;
    }
  }
  for (i = 1; i < n; ++i)
    if (pthread_create(&m[i].th, NULL, member_main, &m[i])) break;
  started = i;
  pthread_mutex_lock(&t->lock);
  t->go = started == n ? 1 : -1;
  pthread_cond_broadcast(&t->cv);
  pthread_mutex_unlock(&t->lock);
  t0 = gcuba_now_ms();
  if (started == n) run(&m[0].c);
  for (i = 1; i < started; ++i) pthread_join(m[i].th, NULL);
  if (started == n) {
    const double ms = gcuba_now_ms() - t0;
    for (i = 0; i < n; ++i) {
      char where[24] = "CPU";
      if (dev[i] >= 0) snprintf(where, sizeof where, "GPU %d", dev[i]);
      gcuba_log(c, 2, "member %d (%s): waited %.1f ms of %.1f ms for the "
                "others, at %lld barriers (%.1f ms in %lld collective "
                "operations)", i, where, m[i].wait_ms, ms, m[i].nwait,
                m[i].c.coll_ms, m[i].c.coll_ops);
    }
  }
  pthread_mutex_lock(&lock);
  for (i = 0; i < started; ++i)
    if (dev[i] >= 0 && dev[i] < USED_MAX) dev_used[dev[i]] = 1;
  pthread_mutex_unlock(&lock);
  if (started == n) {
    c->nregions = m[0].c.nregions;
    c->neval = m[0].c.neval;
    c->fail = m[0].c.fail;
  } else
    gcuba_fail(c, GCUBA_FAIL_NOMEM, "starting the thread of GPU %d (%d GPUs "
               "asked for by GCUBA_DEVICES)", dev[started], n);
  pthread_mutex_destroy(&t->lock);
  pthread_cond_destroy(&t->cv);
  free(t);
  free(m);
  free(out);
  gcuba_cuda_restore(prev);
}
