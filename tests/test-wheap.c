/* tests/test-wheap.c -- the indexed heap of gDivonne's top-up
   (src/common/wheap.h): after every change of a key (up, down, to 0 or
   below or NaN, which take the item out, and back in) its top is the
   item a pass in order would pick (the first of the largest positive
   keys), its places and positions agree and the heap order holds.  Keys
   drawn from a few values, so that ties are common.
   This file is part of gcuba. */
#include <math.h>
#include <stdlib.h>
#include "tap.h"
#include "common/wheap.h"

#define N 2000
#define STEPS 20000

static long long h[N], pos[N];
static double key[N];

/* the first of the largest positive keys, -1 when none */
static long long pass(int n)
{
  long long i, best = -1;
  double worst = 0;
  for (i = 0; i < n; ++i)
    if (key[i] > worst) {
      worst = key[i];
      best = i;
    }
  return best;
}

/* places and positions agree, and every parent is above its children */
static int valid(const gcuba_wheap *q, int n)
{
  long long i, in = 0;
  for (i = 0; i < n; ++i)
    if (pos[i] >= 0) {
      if (pos[i] >= q->n || h[pos[i]] != i || !(key[i] > 0)) return 0;
      ++in;
    } else if (key[i] > 0)
      return 0;
  if (in != q->n) return 0;
  for (i = 1; i < q->n; ++i)
    if (gcuba_wheap_above(q, h[i], h[(i - 1) / 2])) return 0;
  return 1;
}

static double draw(unsigned *s)
{
  const int v = (int)(rand_r(s) % 12);
  return v == 11 ? NAN : v - 3; /* -3..7, NaN: a third not positive */
}

int main(void)
{
  static const int sizes[] = {1, 2, 7, 100, N};
  gcuba_wheap q;
  unsigned seed = 12345;
  int k;
  plan(3 * 5);
  q.h = h;
  q.pos = pos;
  q.key = key;
  for (k = 0; k < 5; ++k) {
    const int n = sizes[k];
    int step, tops = 1, heaps = 1, i;
    for (i = 0; i < n; ++i) key[i] = draw(&seed);
    gcuba_wheap_build(&q, n);
    ok(valid(&q, n) && gcuba_wheap_top(&q) == pass(n),
       "%d items: built, top %lld", n, gcuba_wheap_top(&q));
    for (step = 0; step < STEPS; ++step) {
      const long long j = rand_r(&seed) % n;
      /* mostly small moves of the top, as the top-up makes them */
      const long long t = gcuba_wheap_top(&q);
      const long long at = t >= 0 && step % 3 == 0 ? t : j;
      const double w = step % 3 == 0 && t >= 0
                           ? key[at] - (rand_r(&seed) % 3)
                           : draw(&seed);
      gcuba_wheap_rekey(&q, at, w);
      if (gcuba_wheap_top(&q) != pass(n)) tops = 0;
      if (step % 97 == 0 && !valid(&q, n)) heaps = 0;
    }
    ok(tops, "%d items: the top after each of %d changes is a pass's pick",
       n, STEPS);
    ok(heaps && valid(&q, n), "%d items: places and heap order hold", n);
  }
  return done();
}
