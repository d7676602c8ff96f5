/* src/divonne/totals.c -- the partition's totals: per component the sum
   of the regions' averages and of their spreads' squares, the largest
   spread, where it is, and the second largest, at every round.
   A region's serial number (the order it was made in) puts it in a
   block of DIV_BLOCK numbers; a block keeps the partial sums and extrema
   of its regions in the list's order, and a round recomputes only the
   blocks whose regions changed (the one of the region cut, those of the
   new pieces, at the end of the list), then adds up the blocks in order:
   O(DIV_BLOCK + blocks) per round where a pass over every region made
   the partition O(regions^2) (Genz's 8-D Gaussians at 1e-6, 43,746
   regions: a third of the call).  The blocks follow the serial numbers,
   not the places in the list, so holes and their closing
   (gcuba_divonne_compact), which happen at other times with a state
   file, change no bit.  The largest and second largest spreads are
   exactly those of one pass over the list; the sums are added in
   another grouping (blocks, then their sums).
   The partition reads the regions' averages and spreads from one array
   in the list's order (d->mir, [2 ncomp] per place), not from every
   region.  This file is part of gcuba. */
#include <math.h>
#include <setjmp.h>
#include <stdlib.h>
#include <string.h>
#include "divonne/divonne_int.h"

#define DIV_BLOCK_BITS 8
/* per block and component: avg, ssq, top, second */
#define NB 4

static void nomem(divonne *d)
{
  d->fail = gcuba_fail(d->c, GCUBA_FAIL_NOMEM, "gDivonne's regions");
  longjmp(d->abort, 1);
}

/* the partition's copy of region i's averages and spreads */
static void mirror(divonne *d, long long i)
{
  const int nc = d->ncomp;
  double *m = d->mir + (size_t)i * 2 * nc;
  if (!d->reg[i]) return;
  memcpy(m, d->reg[i]->avg, sizeof(double) * nc);
  memcpy(m + nc, d->reg[i]->spread, sizeof(double) * nc);
}

/* room in d->mir for every region */
static void mirror_room(divonne *d)
{
  double *m;
  if (d->nreg <= d->mcap) return;
  m = (double *)realloc(d->mir, sizeof(double) * 2 * d->ncomp *
                                    (size_t)(2 * d->nreg));
  if (!m) nomem(d);
  d->mir = m;
  d->mcap = 2 * d->nreg;
}

/* room for n blocks (and the end of the last) */
static void block_room(divonne *d, long long n)
{
  const size_t nc = (size_t)d->ncomp;
  long long cap;
  void *p;
  if (n < d->nbcap) return;
  cap = 2 * n + 16;
  if (!(p = realloc(d->bfirst, sizeof(long long) * (size_t)(cap + 1))))
    nomem(d);
  d->bfirst = (long long *)p;
  if (!(p = realloc(d->bsum, sizeof(double) * NB * nc * (size_t)cap)))
    nomem(d);
  d->bsum = (double *)p;
  if (!(p = realloc(d->btop, sizeof(long long) * nc * (size_t)cap)))
    nomem(d);
  d->btop = (long long *)p;
  d->nbcap = cap;
}

static long long block_of(const dreg *r)
{
  return r->serial >> DIV_BLOCK_BITS;
}

/* block b's partials from its places in the list, in order */
static void block(divonne *d, long long b)
{
  const int nc = d->ncomp;
  const long long i0 = d->bfirst[b], i1 = d->bfirst[b + 1];
  int cc;
  for (cc = 0; cc < nc; ++cc) {
    const double *m = d->mir + (size_t)i0 * 2 * nc + cc;
    double avg = 0, ssq = 0, top = -INFINITY, second = -INFINITY;
    double *s = d->bsum + ((size_t)b * nc + cc) * NB;
    long long i, at = 0;
    for (i = i0; i < i1; ++i, m += 2 * nc) {
      const double spread = m[nc];
      if (!d->reg[i]) continue; /* (a hole) */
      avg += m[0];
      ssq += spread * spread;
      if (spread > top) {
        second = top;
        top = spread;
        at = i;
      } else if (spread > second)
        second = spread;
    }
    s[0] = avg;
    s[1] = ssq;
    s[2] = top;
    s[3] = second;
    d->btop[(size_t)b * nc + cc] = at;
  }
}

/* the block whose places hold slot i: bfirst[b] <= i < bfirst[b + 1] */
static long long block_at(const divonne *d, long long i)
{
  long long lo = 0, hi = d->nblk - 1;
  while (lo < hi) {
    const long long mid = lo + (hi - lo + 1) / 2;
    if (d->bfirst[mid] <= i) lo = mid;
    else hi = mid - 1;
  }
  return lo;
}

void gcuba_divonne_totals_init(divonne *d)
{
  long long i, b, n = 0;
  mirror_room(d);
  for (i = 0; i < d->nreg; ++i) mirror(d, i);
  for (i = d->nreg; i-- > 0;)
    if (d->reg[i]) {
      n = block_of(d->reg[i]) + 1;
      break;
    }
  block_room(d, n);
  d->nblk = n;
  for (i = 0, b = 0; i < d->nreg; ++i)
    if (d->reg[i])
      while (b <= block_of(d->reg[i])) d->bfirst[b++] = i;
  while (b <= n) d->bfirst[b++] = d->nreg;
  for (b = 0; b < n; ++b) block(d, b);
}

void gcuba_divonne_totals_round(divonne *d, long long i, const dreg *parent,
                                long long first)
{
  long long j, b;
  if (!(i < d->nreg && d->reg[i] == parent) && !d->lazy) {
    /* the regions after i moved up */
    gcuba_divonne_totals_init(d);
    return;
  }
  mirror_room(d);
  if (i < d->nreg) mirror(d, i);
  for (j = first; j < d->nreg; ++j) mirror(d, j);
  for (j = first; j < d->nreg; ++j) {
    b = block_of(d->reg[j]);
    if (b >= d->nblk) {
      block_room(d, b + 1);
      while (d->nblk <= b) d->bfirst[d->nblk++] = j;
    }
  }
  d->bfirst[d->nblk] = d->nreg;
  if (!d->nblk) return;
  block(d, b = block_at(d, i));
  for (j = first < d->nreg ? block_at(d, first) : d->nblk; j < d->nblk; ++j)
    if (j != b) block(d, j);
}

void gcuba_divonne_totals_compact(divonne *d)
{
  if (!d->dead) return;
  gcuba_divonne_compact(d, d->mir);
  gcuba_divonne_totals_init(d);
}

void gcuba_divonne_totals(divonne *d)
{
  const int nc = d->ncomp;
  long long b;
  int cc;
  for (cc = 0; cc < nc; ++cc) {
    double avg = 0, ssq = 0, top = -INFINITY, second = -INFINITY;
    long long at = 0;
    for (b = 0; b < d->nblk; ++b) {
      const double *s = d->bsum + ((size_t)b * nc + cc) * NB;
      avg += s[0];
      ssq += s[1];
      /* (a pass over the list: the first of the largest on top, the
         second the largest of the rest) */
      if (s[2] > top) {
        if (s[3] > top) second = s[3];
        else second = top;
        top = s[2];
        at = d->btop[(size_t)b * nc + cc];
      } else if (s[2] > second)
        second = s[2];
    }
    d->tot[cc].avg = avg;
    d->tot[cc].spreadsq = ssq;
    d->tot[cc].spread = top;
    d->tot[cc].secondspread = second;
    d->tot[cc].iregion = (int)at;
  }
}

/* the k best of a scan in a heap whose root is the worst kept: better
   is the larger key, on equal keys the earlier place (a total order, so
   the set and its order do not depend on the scan's order) */
typedef struct {
  double *key;
  long long *pos;
  int n, k;
} top;

static int worse(const top *h, int a, int b)
{
  return h->key[a] < h->key[b] ||
         (h->key[a] == h->key[b] && h->pos[a] > h->pos[b]);
}

static void swap(top *h, int a, int b)
{
  const double v = h->key[a];
  const long long p = h->pos[a];
  h->key[a] = h->key[b];
  h->pos[a] = h->pos[b];
  h->key[b] = v;
  h->pos[b] = p;
}

static void down(top *h, int j)
{
  for (;;) {
    int c = 2 * j + 1;
    if (c >= h->n) return;
    if (c + 1 < h->n && worse(h, c + 1, c)) ++c;
    if (!worse(h, c, j)) return;
    swap(h, c, j);
    j = c;
  }
}

static void offer(top *h, double v, long long at)
{
  int j;
  if (v != v) return; /* (NaN) */
  if (h->n == h->k) {
    if (v < h->key[0] || (v == h->key[0] && at > h->pos[0])) return;
    h->key[0] = v;
    h->pos[0] = at;
    down(h, 0);
    return;
  }
  j = h->n++;
  h->key[j] = v;
  h->pos[j] = at;
  while (j > 0 && worse(h, j, (j - 1) / 2)) {
    swap(h, j, (j - 1) / 2);
    j = (j - 1) / 2;
  }
}

/* the heap's places, best first, into out (not the heap's): their
   number; the heap is left empty */
static int drain(top *h, long long *out)
{
  const int n = h->n;
  while (h->n > 0) {
    out[h->n - 1] = h->pos[0];
    --h->n;
    h->key[0] = h->key[h->n];
    h->pos[0] = h->pos[h->n];
    down(h, 0);
  }
  return n;
}

int gcuba_divonne_totals_top(const divonne *d, int cc, int k,
                             long long *pos)
{
  /* the k largest lie in the k blocks of largest tops */
  const int nc = d->ncomp;
  double key[GCUBA_DIVONNE_TOPMAX];
  long long at[GCUBA_DIVONNE_TOPMAX], blk[GCUBA_DIVONNE_TOPMAX], b, i;
  top h;
  int m, j;
  if (k > GCUBA_DIVONNE_TOPMAX) k = GCUBA_DIVONNE_TOPMAX;
  if (k < 1) return 0;
  h.key = key;
  h.pos = at;
  h.n = 0;
  h.k = k;
  for (b = 0; b < d->nblk; ++b) {
    const double t = d->bsum[((size_t)b * nc + cc) * NB + 2];
    if (t > -INFINITY) offer(&h, t, b);
  }
  m = drain(&h, blk);
  for (j = 0; j < m; ++j)
    for (i = d->bfirst[blk[j]]; i < d->bfirst[blk[j] + 1]; ++i)
      if (d->reg[i]) offer(&h, d->mir[(size_t)i * 2 * nc + nc + cc], i);
  return drain(&h, pos);
}
