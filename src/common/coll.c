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
              gcuba_strerror((int)v));
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

/* ---- a team: several GPUs of this process (GCUBA_DEVICES) -----------------
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
  size_t ubytes; /* gcuba_userdata_size of the calling thread */
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
  if (go > 0) {
    gcuba_userdata_size(m->ubytes);
    m->run(&m->c);
  }
  return NULL;
}

/* the GPUs of this call (GCUBA_DEVICES): their number into dev, 1 for
   the current GPU alone, or -1 with c->fail set */
static int team_devices(gcuba_call *c, int *dev)
{
  const char *s = getenv("GCUBA_DEVICES"), *spec;
  int ndev, n, i, ud, grow;
  if (!s || !*s) return 1;
  grow = gcuba_env_devices_auto(s, &spec);
  if (grow && !strcmp(spec, "all")) return 1;
  ndev = gcuba_cuda_device_count();
  n = gcuba_env_devices(spec, ndev, dev, GCUBA_MAXDEVICES);
  /* auto:SPEC starts on one GPU, but SPEC must name GPUs that exist */
  if (grow && n >= 0) return 1;
  if (n == -1)
    return gcuba_fail(c, GCUBA_FAIL_ENV, "GCUBA_DEVICES=\"%s\": expected "
                      "all, a number of GPUs or a list such as 0,2,3", s),
           -1;
  if (n < 0)
    return gcuba_fail(c, GCUBA_FAIL_ENV, "GCUBA_DEVICES=\"%s\": %d GPU%s "
                      "visible (at most %d per call)", s, ndev,
                      ndev == 1 ? " is" : "s are", GCUBA_MAXDEVICES),
           -1;
  if (n < 2) return 1;
  /* userdata in one GPU's memory is readable there only */
  ud = gcuba_cuda_pointer_device(c->userdata);
  if (ud >= 0)
    for (i = 0; i < n; ++i)
      if (dev[i] != ud) {
        gcuba_log(c, 1, "userdata is memory of GPU %d: the call runs on "
                  "that GPU alone (give host memory with "
                  "gcuba_userdata_size(), or managed memory, to use %d "
                  "GPUs)", ud, n);
        return 1;
      }
  return n;
}

/* processes of an MPI job on this node, as the launchers say (Open MPI,
   MPICH's Hydra, Slurm's srun): each has its GPU to itself */
static int node_processes(void)
{
  static const char *const var[] = {"OMPI_COMM_WORLD_LOCAL_SIZE",
                                    "MPI_LOCALNRANKS",
                                    "SLURM_STEP_TASKS_PER_NODE"};
  size_t i;
  int n = 1;
  for (i = 0; i < sizeof var / sizeof *var; ++i) {
    const char *s = getenv(var[i]);
    int k = s ? atoi(s) : 0;
    if (k > n) n = k;
  }
  return n;
}

/* the GPUs on which a team member of this process has run: their CUDA
   contexts exist (gcuba_team_grow_after) */
#define USED_MAX 64
static unsigned char dev_used[USED_MAX];

double gcuba_team_grow_after(const int *dev, int n)
{
  const double after = gcuba_env_devices_after();
  const int cur = gcuba_cuda_current();
  int i, cold = 0;
  if (after >= 0) return after;
  pthread_mutex_lock(&lock);
  for (i = 0; i < n; ++i)
    if (dev[i] != cur && (dev[i] < 0 || dev[i] >= USED_MAX ||
                          !dev_used[dev[i]]))
      cold = 1;
  pthread_mutex_unlock(&lock);
  return cold ? GCUBA_DEVICES_COLD_MS : GCUBA_DEVICES_AFTER_MS;
}

/* the CPUs the calling thread may run on (its affinity, e.g. mpirun's
   binding to one core), 0 where unknown */
static int cpus_allowed(void)
{
#if defined(__linux__) && defined(CPU_COUNT)
  cpu_set_t set;
  if (sched_getaffinity(0, sizeof set, &set) == 0) return CPU_COUNT(&set);
#endif
  return 0;
}

int gcuba_team_grow_devices(gcuba_call *c, int *dev)
{
  const char *s = getenv("GCUBA_DEVICES");
  int ndev, n, i, cur, ud, ncpu;
  if (c->coll || !c->grow || gcuba_calls_running() > 1) return 0;
  if (node_processes() > 1) {
    gcuba_log(c, 2, "several processes on this node: the call stays on "
              "its GPU");
    return 0;
  }
  if (s && *s && !gcuba_env_devices_auto(s, &s)) return 0;
  if (!s || !*s) s = "all";
  ndev = gcuba_cuda_device_count();
  n = gcuba_env_devices(s, ndev, dev, GCUBA_MAXDEVICES);
  if (n < 2) return 0;
  /* plain auto: the current GPU first, the others in order */
  cur = gcuba_cuda_current();
  if (!strcmp(s, "all") && cur > 0 && cur < n) {
    for (i = cur; i > 0; --i) dev[i] = dev[i - 1];
    dev[0] = cur;
  }
  ud = gcuba_cuda_pointer_device(c->userdata);
  if (ud >= 0)
    for (i = 0; i < n; ++i)
      if (dev[i] != ud) {
        gcuba_log(c, 2, "userdata is memory of GPU %d: the call stays on "
                  "it", ud);
        return 0;
      }
  /* each member is a thread that waits for its GPU and for the others
     many times an iteration: members sharing a core wait for the
     scheduler instead, and the second GPU gains little or loses (gVegas,
     2 x H200, 80 ms iterations: 1.09 s on 2 GPUs with 2 cores, 1.81-1.85 s
     with one, 2.05 s on one GPU; on another machine 1.56 s on one GPU,
     1.61 s on two with one core, bench/NOTES.md) */
  ncpu = cpus_allowed();
  if (ncpu == 1) {
    gcuba_log(c, 2, "this thread may run on one CPU core only (its "
              "affinity): the call stays on its GPU");
    return 0;
  }
  if (ncpu > 1 && ncpu < n) {
    gcuba_log(c, 2, "this thread may run on %d CPU cores (its affinity): "
              "the call grows to %d of the %d GPUs", ncpu, ncpu, n);
    n = ncpu;
  }
  return n;
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

int gcuba_team_run(gcuba_call *c, void (*run)(gcuba_call *))
{
  int dev[GCUBA_MAXDEVICES];
  const int n = c->coll ? 1 : team_devices(c, dev);
  if (n < 0) return 1;
  if (n < 2) return 0;
  gcuba_log(c, 1, "%d GPUs (GCUBA_DEVICES=%s)", n, getenv("GCUBA_DEVICES"));
  {
    const int ncpu = cpus_allowed();
    if (ncpu > 0 && ncpu < n)
      gcuba_log(c, 1, "%d GPUs, but this thread may run on %d CPU core(s) "
                "(its affinity, e.g. mpirun's binding): their threads wait "
                "for each other (mpirun --bind-to none)", n, ncpu);
  }
  gcuba_team_run_on(c, run, dev, n);
  return 1;
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
    k->ubytes = gcuba_userdata_bytes();
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
    if (dev[0] >= 0) gcuba_set_last_devices(n);
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
