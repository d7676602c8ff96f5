/* src/common/wheap.h -- an indexed binary max-heap of the items 0..N-1
   by a key each: the largest key on top and, among equal keys, the
   lowest item (the one a pass over the items in order, keeping the
   first of the largest, would pick).  Items with a key that is not
   positive stay out of it.  gDivonne's top-up keeps the region of most
   weight in one (src/divonne/topup.c); tests/test-wheap checks it
   against that pass.  The caller owns the arrays: h[N] the items in heap
   order, pos[N] each item's place in h (-1: not in), key[N].
   This file is part of gcuba. */
#ifndef GCUBA_WHEAP_H
#define GCUBA_WHEAP_H

typedef struct {
  long long n, *h, *pos;
  double *key;
} gcuba_wheap;

static inline int gcuba_wheap_above(const gcuba_wheap *q, long long a,
                                    long long b)
{
  return q->key[a] > q->key[b] || (q->key[a] == q->key[b] && a < b);
}

static inline void gcuba_wheap_place(gcuba_wheap *q, long long k,
                                     long long i)
{
  q->h[k] = i;
  q->pos[i] = k;
}

/* the item at place k moved down to where it belongs */
static inline void gcuba_wheap_down(gcuba_wheap *q, long long k)
{
  const long long i = q->h[k];
  for (;;) {
    long long m = 2 * k + 1;
    if (m >= q->n) break;
    if (m + 1 < q->n && gcuba_wheap_above(q, q->h[m + 1], q->h[m])) ++m;
    if (!gcuba_wheap_above(q, q->h[m], i)) break;
    gcuba_wheap_place(q, k, q->h[m]);
    k = m;
  }
  gcuba_wheap_place(q, k, i);
}

/* the items 0..n-1 with positive keys (key[] set), in heap order */
static inline void gcuba_wheap_build(gcuba_wheap *q, long long n)
{
  long long i;
  q->n = 0;
  for (i = 0; i < n; ++i) {
    q->pos[i] = -1;
    if (q->key[i] > 0) gcuba_wheap_place(q, q->n++, i);
  }
  for (i = q->n / 2; i-- > 0;) gcuba_wheap_down(q, i);
}

/* item i's key is now w: in, out or moved */
static inline void gcuba_wheap_rekey(gcuba_wheap *q, long long i, double w)
{
  long long k = q->pos[i];
  long long j;
  q->key[i] = w;
  if (k < 0) {
    if (!(w > 0)) return;
    k = q->n++;
  } else if (!(w > 0)) {
    const long long last = q->h[--q->n];
    q->pos[i] = -1;
    if (k == q->n) return;
    i = last;
  }
  /* up while above the parent, then down */
  while (k > 0 && gcuba_wheap_above(q, i, j = q->h[(k - 1) / 2])) {
    gcuba_wheap_place(q, k, j);
    k = (k - 1) / 2;
  }
  gcuba_wheap_place(q, k, i);
  gcuba_wheap_down(q, k);
}

/* the top item, -1 when none */
static inline long long gcuba_wheap_top(const gcuba_wheap *q)
{
  return q->n ? q->h[0] : -1;
}

#endif
