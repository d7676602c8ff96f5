/* tests/test-pool.c -- the CPU threads' work sharing (src/common/pool.c):
   every item once, thread numbers below the count asked and never held by
   two threads in one loop, status bits OR-ed, thousands of short loops in
   a row, two callers at once (the second alone on its thread), a
   forked child that still completes its loops, and loops started for the
   workers while the caller goes on (its own loops then on it alone,
   items of the started one taken early) and finished by it.
   This file is part of gcuba. */
#include <pthread.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include "tap.h"
#include "common/pool.h"

#define N 100000
#define MAXT 8

typedef struct {
  int count[N];
  pthread_t owner[MAXT];
  int bad_tid, conflict, nt;
  pthread_mutex_t lock;
} probe;

static int item(void *ctx, long long i, int tid)
{
  probe *p = (probe *)ctx;
  volatile double w = 0;
  int k;
  if (tid < 0 || tid >= p->nt) {
    p->bad_tid = 1;
    return 0;
  }
  pthread_mutex_lock(&p->lock);
  if (!p->owner[tid]) p->owner[tid] = pthread_self();
  else if (!pthread_equal(p->owner[tid], pthread_self())) p->conflict = 1;
  pthread_mutex_unlock(&p->lock);
  __atomic_fetch_add(&p->count[i], 1, __ATOMIC_RELAXED);
  for (k = 0; k < 50; ++k) w += k;
  return i == 77777 ? 4 : i == 3 ? 1 : 0;
}

static probe P, Q;

/* one loop over n items on nt threads: 1 when every item ran once */
static int loop(probe *p, int nt, long long n, long long grab, int *st)
{
  long long i;
  memset(p->count, 0, sizeof p->count);
  memset(p->owner, 0, sizeof p->owner);
  p->nt = nt;
  *st = gcuba_pool_for(nt, n, grab, item, p);
  for (i = 0; i < n; ++i)
    if (p->count[i] != 1) return 0;
  return 1;
}

/* a loop started on the workers, the caller's own loop meanwhile, then
   finished: 1 when every item of both ran once, the caller's on it */
static int started(probe *p, probe *q, int nt, long long n, int *st,
                   int *st2)
{
  long long i;
  int again;
  memset(p->count, 0, sizeof p->count);
  memset(p->owner, 0, sizeof p->owner);
  memset(q->count, 0, sizeof q->count);
  memset(q->owner, 0, sizeof q->owner);
  p->nt = q->nt = nt;
  if (gcuba_pool_start(nt, n, 3, item, p)) return 0;
  again = gcuba_pool_start(nt, n, 3, item, q);
  *st2 = gcuba_pool_for(nt, 1000, 1, item, q);
  /* the caller takes a few of the loop's items early */
  for (i = 0; i < n % 5 && gcuba_pool_help(); ++i)
    ;
  *st = gcuba_pool_finish();
  if (again != -1) return 0;
  for (i = 0; i < n; ++i)
    if (p->count[i] != 1) return 0;
  for (i = 0; i < 1000; ++i)
    if (q->count[i] != 1) return 0;
  for (i = 1; i < MAXT; ++i)
    if (q->owner[i]) return 0;
  return pthread_equal(q->owner[0], pthread_self());
}

static void *other(void *arg)
{
  int k, st, *ok1 = (int *)arg;
  for (k = 0; k < 200; ++k) *ok1 &= loop(&Q, 3, 5000, 3, &st);
  return NULL;
}

int main(void)
{
  int st, k, ok1 = 1, ok2 = 1;
  pthread_t th;
  plan(0);
  pthread_mutex_init(&P.lock, NULL);
  pthread_mutex_init(&Q.lock, NULL);

  ok1 = loop(&P, 4, N, 7, &st);
  ok(ok1 && !P.bad_tid && !P.conflict && st == 5,
     "4 threads, 100000 items, grabs of 7: each item once, thread numbers "
     "below 4 and one thread each, status bits OR-ed (%d)", st);
  ok1 = loop(&P, 1, 1000, 1, &st);
  ok(ok1 && st == 1 && pthread_equal(P.owner[0], pthread_self()),
     "one thread: on the caller");
  ok1 = loop(&P, 8, 4, 1, &st);
  ok(ok1 && !P.bad_tid && st == 1, "more threads than items");
  ok1 = loop(&P, 4, 0, 1, &st);
  ok(ok1 && st == 0, "no items");
  ok1 = 1;
  for (k = 0; k < 3000 && ok1; ++k) ok1 = loop(&P, 3, 40, 1, &st);
  ok(ok1 && !P.bad_tid && !P.conflict, "3000 short loops in a row");

  ok1 = 1;
  if (pthread_create(&th, NULL, other, &ok2) == 0) {
    for (k = 0; k < 200; ++k) ok1 &= loop(&P, 4, 5000, 3, &st);
    pthread_join(th, NULL);
    ok(ok1 && ok2 && !P.conflict && !Q.conflict && !P.bad_tid && !Q.bad_tid,
       "two callers at once: both complete every loop");
  } else
    ok(0, "pthread_create");

  {
    int st2 = 0;
    ok1 = started(&P, &Q, 4, N, &st, &st2);
    ok(ok1 && !P.bad_tid && !P.conflict && st == 5 && st2 == 1,
       "a loop started on the workers: every item once, thread numbers "
       "below 4, the caller's own loop meanwhile on it alone, a second "
       "start refused, status bits (%d, %d)", st, st2);
    ok1 = 1;
    for (k = 0; k < 2000 && ok1; ++k)
      ok1 = started(&P, &Q, 3, 1 + k % 50, &st, &st2);
    ok(ok1 && !P.bad_tid && !P.conflict, "2000 short started loops");
    ok(gcuba_pool_start(1, 100, 1, item, &P) == -1 &&
           gcuba_pool_start(4, 0, 1, item, &P) == -1,
       "no loop started for one thread or no items");
  }

  {
    pid_t pid = fork();
    if (pid == 0) {
      int good = 1;
      for (k = 0; k < 50; ++k) good &= loop(&P, 4, 20000, 5, &st);
      _exit(good ? 0 : 1);
    }
    if (pid > 0) {
      int ws = 0;
      waitpid(pid, &ws, 0);
      ok(WIFEXITED(ws) && WEXITSTATUS(ws) == 0,
         "a forked child completes its loops");
    } else
      ok(0, "fork");
  }
  return done();
}
