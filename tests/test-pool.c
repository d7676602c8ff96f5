/* tests/test-pool.c -- the CPU threads' work sharing (src/common/pool.c):
   every item once, thread numbers below the count asked and never held by
   two threads in one loop, status bits OR-ed, thousands of short loops in
   a row, two callers at once (the second alone on its thread), and a
   forked child that still completes its loops.
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
