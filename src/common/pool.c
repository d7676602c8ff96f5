/* src/common/pool.c -- the CPU threads' work sharing (common/pool.h):
   persistent workers, created when a loop first asks for them, that poll
   for a new loop a moment, yield their CPU a while (as many of them as
   the last loop needed), and then sleep on a condition variable.  A
   loop is joined under the mutex while it is open; the caller closes it
   when it finds no item left and waits only for the workers that
   joined.  This file is part of gcuba. */
#include <pthread.h>
#include <sched.h>
#include "common/pool.h"

/* a worker waiting for a loop polls SPIN times, then yields its CPU up
   to YIELDS times (on a loaded machine the others run meanwhile), then
   sleeps; the caller waiting for the workers polls SPIN times, then
   sleeps.  Only as many workers yield as the last loop had threads, and
   a loop a worker is not needed in does not renew its polls and yields:
   on a 16-core host, 2000 yields renewed for every worker at every loop
   spent 6-9 times the call's wall time in CPU time on Genz's protocol
   (gVegas and gDivonne at 16 threads), for no gain in wall time.  The
   macros are there for measurements (bench/RESULTS.md). */
#ifndef GCUBA_POOL_SPIN
#define GCUBA_POOL_SPIN 200
#endif
#ifndef GCUBA_POOL_YIELDS
#define GCUBA_POOL_YIELDS 200
#endif
#define SPIN GCUBA_POOL_SPIN
#define YIELDS GCUBA_POOL_YIELDS
#define MAXWORKERS 1023

static pthread_mutex_t busy = PTHREAD_MUTEX_INITIALIZER; /* a loop runs */
static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t wake = PTHREAD_COND_INITIALIZER;  /* a loop opens */
static pthread_cond_t left = PTHREAD_COND_INITIALIZER;  /* a worker left */
static pthread_once_t once = PTHREAD_ONCE_INIT;
static unsigned long gen; /* loops opened (polled without m) */
static int nworkers, sleeping;
static int lastnt; /* the threads the last loop opened was for */
static int started; /* workers started: the next one's number */

typedef struct {
  gcuba_pool_fn fn;
  void *ctx;
  long long n, grab;
} loop;

static struct {
  loop l;
  long long next; /* the next item to take (atomic) */
  int nt, joined, active, open, st;
  int helped; /* the status bits of the items the caller took early */
} job;

static void relax(void)
{
#if defined(__x86_64__) || defined(__i386__)
  __builtin_ia32_pause();
#endif
}

/* take items until none is left; returns their status bits */
static int work(const loop *l, int tid)
{
  int st = 0;
  for (;;) {
    const long long i0 =
        __atomic_fetch_add(&job.next, l->grab, __ATOMIC_RELAXED);
    long long i, i1;
    if (i0 >= l->n) break;
    i1 = i0 + l->grab < l->n ? i0 + l->grab : l->n;
    for (i = i0; i < i1; ++i) st |= l->fn(l->ctx, i, tid);
  }
  return st;
}

static void *worker(void *arg)
{
  unsigned long seen = (unsigned long)(size_t)arg;
  const int idx = __atomic_fetch_add(&started, 1, __ATOMIC_RELAXED);
  /* polls and yields spent since this worker last took part in a loop:
     loops it is not needed in do not renew them */
  int spun = 0, yielded = 0;
  for (;;) {
    loop l;
    int tid, st;
    for (; spun < SPIN && __atomic_load_n(&gen, __ATOMIC_ACQUIRE) == seen;
         ++spun)
      relax();
    /* only as many workers yield as the last loop had: those a run of
       small loops leaves out sleep (a loop that needs them wakes them) */
    if (idx + 1 < __atomic_load_n(&lastnt, __ATOMIC_RELAXED))
      for (; yielded < YIELDS &&
             __atomic_load_n(&gen, __ATOMIC_ACQUIRE) == seen;
           ++yielded)
        sched_yield();
    pthread_mutex_lock(&m);
    while (gen == seen) {
      ++sleeping;
      pthread_cond_wait(&wake, &m);
      --sleeping;
    }
    seen = gen;
    if (!job.open || job.joined + 1 >= job.nt) {
      pthread_mutex_unlock(&m);
      continue;
    }
    spun = yielded = 0;
    tid = ++job.joined;
    __atomic_add_fetch(&job.active, 1, __ATOMIC_RELAXED);
    l = job.l;
    /* one wakes the next: the caller pays for one wake-up only */
    if (sleeping && job.joined + 1 < job.nt &&
        __atomic_load_n(&job.next, __ATOMIC_RELAXED) < l.n)
      pthread_cond_signal(&wake);
    pthread_mutex_unlock(&m);
    st = work(&l, tid);
    pthread_mutex_lock(&m);
    job.st |= st;
    if (__atomic_sub_fetch(&job.active, 1, __ATOMIC_RELEASE) == 0)
      pthread_cond_signal(&left);
    pthread_mutex_unlock(&m);
  }
  return NULL;
}

/* a forked child has none of the parent's workers */
static void child(void)
{
  pthread_mutex_t mi = PTHREAD_MUTEX_INITIALIZER;
  pthread_cond_t ci = PTHREAD_COND_INITIALIZER;
  busy = mi;
  m = mi;
  wake = ci;
  left = ci;
  nworkers = sleeping = started = 0;
  job.open = job.active = 0;
}

static void init(void) { pthread_atfork(NULL, NULL, child); }

/* at least n workers (fewer when the system refuses more); under m */
static void hire(int n)
{
  pthread_attr_t a;
  if (n > MAXWORKERS) n = MAXWORKERS;
  if (nworkers >= n || pthread_attr_init(&a)) return;
  pthread_attr_setdetachstate(&a, PTHREAD_CREATE_DETACHED);
  while (nworkers < n) {
    pthread_t t;
    if (pthread_create(&t, &a, worker, (void *)(size_t)gen)) break;
    ++nworkers;
  }
  pthread_attr_destroy(&a);
}

/* opens loop l for nthreads threads (the caller tid 0), the busy lock
   held: 0, or -1 (nothing opened) when it cannot */
static int open_loop(int nthreads, const loop *l)
{
  if (nthreads < 2 || pthread_once(&once, init) ||
      pthread_mutex_trylock(&busy))
    return -1;
  pthread_mutex_lock(&m);
  hire(nthreads - 1);
  if (!nworkers) {
    pthread_mutex_unlock(&m);
    pthread_mutex_unlock(&busy);
    return -1;
  }
  job.l = *l;
  job.next = 0;
  job.nt = nthreads;
  job.joined = job.active = job.st = job.helped = 0;
  job.open = 1;
  __atomic_store_n(&lastnt, nthreads, __ATOMIC_RELAXED);
  __atomic_store_n(&gen, gen + 1, __ATOMIC_RELEASE);
  if (sleeping) pthread_cond_signal(&wake);
  pthread_mutex_unlock(&m);
  return 0;
}

/* the open loop's items left on the caller, the loop closed, the workers
   that joined waited for, the busy lock released: the status bits */
static int close_loop(void)
{
  const loop l = job.l;
  int st = work(&l, 0), k;
  /* no item is left: close the loop and wait for those who joined */
  for (k = 0; k < SPIN && __atomic_load_n(&job.active, __ATOMIC_ACQUIRE);
       ++k)
    relax();
  pthread_mutex_lock(&m);
  job.open = 0;
  while (job.active > 0) pthread_cond_wait(&left, &m);
  st |= job.st | job.helped;
  pthread_mutex_unlock(&m);
  pthread_mutex_unlock(&busy);
  return st;
}

static loop make(long long n, long long grab, gcuba_pool_fn fn, void *ctx)
{
  loop l;
  l.fn = fn;
  l.ctx = ctx;
  l.n = n;
  l.grab = grab < 1 ? 1 : grab;
  return l;
}

int gcuba_pool_for(int nthreads, long long n, long long grab,
                   gcuba_pool_fn fn, void *ctx)
{
  const loop l = make(n, grab, fn, ctx);
  long long i;
  int st = 0;
  if ((n + l.grab - 1) / l.grab < nthreads)
    nthreads = (int)((n + l.grab - 1) / l.grab);
  if (open_loop(nthreads, &l)) {
    for (i = 0; i < n; ++i) st |= fn(ctx, i, 0);
    return st;
  }
  return close_loop();
}

int gcuba_pool_start(int nthreads, long long n, long long grab,
                     gcuba_pool_fn fn, void *ctx)
{
  const loop l = make(n, grab, fn, ctx);
  /* the workers' share: one fewer than asked, the caller being busy */
  if ((n + l.grab - 1) / l.grab + 1 < nthreads)
    nthreads = (int)((n + l.grab - 1) / l.grab) + 1;
  return n > 0 ? open_loop(nthreads, &l) : -1;
}

int gcuba_pool_finish(void) { return close_loop(); }

int gcuba_pool_help(void)
{
  const loop l = job.l;
  const long long i0 = __atomic_fetch_add(&job.next, l.grab,
                                          __ATOMIC_RELAXED);
  long long i;
  if (i0 >= l.n) return 0;
  for (i = i0; i < l.n && i < i0 + l.grab; ++i)
    job.helped |= l.fn(l.ctx, i, 0);
  return 1;
}

void gcuba_pool_relax(void) { relax(); }
