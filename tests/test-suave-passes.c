/* tests/test-suave-passes.c -- gSuave's passes over a region's samples
   (src/suave/passes.c), in pieces on the CPU threads, against the plain
   one-loop forms written out here: the points drawn (Sobol and Philox)
   the same bits as one point at a time from its number; the share of a
   region of several pieces, with sets that cross the pieces' borders, the
   same arrays (set ends included) on 1 and 3 threads; the halves'
   fluctuations and the sets' sums the plain loop's bits within one piece,
   the same bits on 1 and 3 threads beyond, and close to the plain sums;
   the bins' contributions likewise.  This file is part of gcuba. */
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "tap.h"
#include "suave/suave_int.h"
#include "vegas/sobol.h"
#include "gcuba/detail/vegas.h"

#define ND 3
#define NC 2

static uint64_t rng = 88172645463325252ULL;
static double uni(void)
{
  rng ^= rng << 13;
  rng ^= rng >> 7;
  rng ^= rng << 17;
  return (double)(rng >> 11) * 0x1p-53;
}

/* a region of n samples in sets of random lengths (up to maxset) */
static sreg *region(long long n, long long nown, long long maxset)
{
  sreg *r = (sreg *)calloc(1, sizeof *r);
  long long k, left = 0;
  int a;
  r->n = n;
  r->nown = nown;
  r->lo = (double *)malloc(sizeof(double) * ND);
  r->hi = (double *)malloc(sizeof(double) * ND);
  r->grid = (double *)malloc(sizeof(double) * ND * (NB + 1));
  r->w = (double *)malloc(sizeof(double) * (n > 0 ? n : 1));
  r->x = (double *)malloc(sizeof(double) * ND * (n > 0 ? n : 1));
  r->f = (double *)malloc(sizeof(double) * NC * (n > 0 ? n : 1));
  r->sn = (double *)malloc(sizeof(double) * (n > 0 ? n : 1));
  r->bin = (unsigned char *)malloc(ND * (nown > 0 ? nown : 1));
  for (a = 0; a < ND; ++a) {
    int b;
    r->lo[a] = .25 * a;
    r->hi[a] = r->lo[a] + .5;
    for (b = 0; b <= NB; ++b)
      r->grid[a * (NB + 1) + b] = pow((double)b / NB, 1 + .3 * a);
  }
  for (k = 0; k < n; ++k) {
    if (left == 0) left = 1 + (long long)(uni() * maxset);
    r->w[k] = 1e-3 * (1 + uni());
    r->sn[k] = 1000 + k / 7;
    for (a = 0; a < ND; ++a)
      r->x[k * ND + a] = r->lo[a] + (r->hi[a] - r->lo[a]) * uni();
    r->f[k * NC] = exp(-3 * r->x[k * ND]);
    r->f[k * NC + 1] = uni() - .3;
    if (--left == 0 || k == n - 1) r->w[k] = -r->w[k];
  }
  for (k = 0; k < nown; ++k)
    for (a = 0; a < ND; ++a) r->bin[k * ND + a] = (unsigned char)(uni() * NB);
  return r;
}

static void region_free(sreg *r)
{
  free(r->lo);
  free(r->hi);
  free(r->grid);
  free(r->w);
  free(r->x);
  free(r->f);
  free(r->sn);
  free(r->bin);
  free(r);
}

static gcuba_call call;
static double fl[2 * ND + NC], marg[ND * NB + NB + 1];
static long long fn[2 * ND];

static void setup(suave *s, int threads, uint64_t seed)
{
  memset(s, 0, sizeof *s);
  call.threads = threads;
  s->c = &call;
  s->ndim = ND;
  s->ncomp = NC;
  s->flatness = 25;
  s->seed = seed;
  s->sobol = seed == 0 ? gcuba_sobol_table(ND) : NULL;
  s->next = 5;
  s->fl = fl;
  s->fn = fn;
  s->marg = marg;
}

static void teardown(suave *s)
{
  free(s->pc);
  free(s->set);
}

/* ---- the plain forms */

static void draw1(const suave *s, const sreg *r, long long nnew, uint64_t i0,
                  double *x, double *w, unsigned char *bin)
{
  const double jac = 1 / ldexp((double)nnew, r->div);
  double u[ND];
  long long k;
  int a;
  for (k = 0; k < nnew; ++k) {
    if (s->sobol)
      for (a = 0; a < ND; ++a)
        u[a] = gcuba_vegas_sobol(s->sobol + a * 64, i0 + (uint64_t)k);
    else
      gcuba_vegas_uniforms(s->seed, 0, i0 + (uint64_t)k, ND, u);
    w[k] = jac * gcuba_suave_map(ND, u, r->lo, r->hi, r->grid, x + k * ND,
                                 bin + k * ND);
  }
}

/* the serial share (src/suave/region.c before the pieces) */
static void share1(const sreg *r, int dim, sreg *L, sreg *R)
{
  const double mid = .5 * (r->lo[dim] + r->hi[dim]);
  long long k, il = 0, ir = 0;
  for (k = 0; k < r->n; ++k) {
    const int fin = r->w[k] < 0;
    sreg *h, *o;
    long long *ih, *io;
    if (r->x[k * ND + dim] < mid)
      h = L, ih = &il, o = R, io = &ir;
    else
      h = R, ih = &ir, o = L, io = &il;
    if (fin && *io > 0) o->w[*io - 1] = -fabs(o->w[*io - 1]);
    h->w[*ih] = r->w[k];
    h->sn[*ih] = r->sn[k];
    memcpy(h->x + *ih * ND, r->x + k * ND, sizeof(double) * ND);
    memcpy(h->f + *ih * NC, r->f + k * NC, sizeof(double) * NC);
    ++*ih;
  }
}

static void scan1(double flatness, const sreg *r, int comp, double avg,
                  double norm, double amax, double *sum, long long *cnt)
{
  long long k;
  int a;
  for (a = 0; a < 2 * ND; ++a) {
    sum[a] = 0;
    cnt[a] = 0;
  }
  for (k = 0; k < r->n; ++k) {
    const double d = r->f[k * NC + comp] - avg;
    double arg = 1 + fabs(r->w[k]) * d * d * norm, ft;
    if (arg > amax) arg = amax;
    ft = pow(arg, flatness);
    for (a = 0; a < ND; ++a) {
      const int side = r->x[k * ND + a] >= .5 * (r->lo[a] + r->hi[a]);
      const double v = sum[2 * a + side] + ft;
      sum[2 * a + side] = v < DBL_MAX / 2 ? v : DBL_MAX / 2;
      ++cnt[2 * a + side];
    }
  }
}

/* set records as region.c's sets() made them */
static long long sets1(const sreg *r, double *out)
{
  long long k, k0 = 0, n = 0, j;
  int c;
  for (k = 0; k < r->n; ++k) {
    double *q;
    if (r->w[k] >= 0) continue;
    q = out + n++ * SETW(NC);
    q[0] = r->sn[k];
    q[1] = (double)(k + 1 - k0);
    for (c = 0; c < NC; ++c) {
      double sum = 0, sq = 0, d = 0;
      for (j = k0; j <= k; ++j) {
        const double v = fabs(r->w[j]) * r->f[j * NC + c];
        sum += v;
        sq += v * v;
      }
      for (j = k0; j <= k; ++j) {
        const double e = fabs(fabs(r->w[j]) * r->f[j * NC + c] - sum / q[0]);
        if (e > d) d = e;
      }
      q[2 + 3 * c] = sum;
      q[3 + 3 * c] = sq;
      q[4 + 3 * c] = d;
    }
    k0 = k + 1;
  }
  return n;
}

/* the bins' contributions of r's own set (region.c's loop) */
static void marg1(const sreg *r, const double *scale, double *m)
{
  const long long k0 = r->n - r->nown;
  long long k;
  int a, c;
  memset(m, 0, sizeof(double) * ND * NB);
  for (k = k0; k < r->n; ++k) {
    const double *f = r->f + k * NC;
    const unsigned char *b = r->bin + (k - k0) * ND;
    double q = 0;
    for (c = 0; c < NC; ++c) q += (f[c] * scale[c]) * (f[c] * scale[c]);
    q *= r->w[k] * r->w[k];
    if (q != 0)
      for (a = 0; a < ND; ++a) m[a * NB + b[a]] += q;
  }
}

static int close_all(const double *a, const double *b, int n)
{
  int i;
  for (i = 0; i < n; ++i)
    if (!(fabs(a[i] - b[i]) <= 1e-12 * fabs(a[i]))) return 0;
  return 1;
}

static int same_region(const sreg *a, const sreg *b, long long n)
{
  return !memcmp(a->w, b->w, sizeof(double) * n) &&
         !memcmp(a->sn, b->sn, sizeof(double) * n) &&
         !memcmp(a->x, b->x, sizeof(double) * n * ND) &&
         !memcmp(a->f, b->f, sizeof(double) * n * NC);
}

/* ---- the checks */

static void check_draw(void)
{
  const long long n = 2 * SUAVE_PIECE + 777;
  sreg *r = region(0, 0, 1);
  double *x1 = (double *)malloc(sizeof(double) * n * ND);
  double *x2 = (double *)malloc(sizeof(double) * n * ND);
  double *w1 = (double *)malloc(sizeof(double) * n);
  double *w2 = (double *)malloc(sizeof(double) * n);
  unsigned char *b1 = (unsigned char *)malloc(n * ND);
  unsigned char *b2 = (unsigned char *)malloc(n * ND);
  uint64_t seed;
  r->div = 3;
  for (seed = 0; seed < 8; seed += 7) {
    suave s;
    setup(&s, 3, seed);
    draw1(&s, r, n, s.next, x1, w1, b1);
    gcuba_suave_draw(&s, r, n, x2, w2, b2);
    ok(!memcmp(x1, x2, sizeof(double) * n * ND) &&
           !memcmp(w1, w2, sizeof(double) * n) && !memcmp(b1, b2, n * ND) &&
           s.next == 5 + (uint64_t)n,
       "seed %d: %lld points drawn in pieces on 3 threads, the bits of one "
       "point at a time", (int)seed, n);
    teardown(&s);
  }
  free(x1);
  free(x2);
  free(w1);
  free(w2);
  free(b1);
  free(b2);
  region_free(r);
}

static void check_share(long long n, long long maxset)
{
  sreg *r = region(n, 100, maxset), *L[3], *R[3];
  long long nl = 0, k;
  int i, t;
  for (k = 0; k < n; ++k) nl += r->x[k * ND + 1] < .5 * (r->lo[1] + r->hi[1]);
  for (i = 0; i < 3; ++i) {
    L[i] = region(nl, 0, 1);
    R[i] = region(n - nl, 0, 1);
  }
  share1(r, 1, L[0], R[0]);
  for (t = 1; t <= 3; t += 2) {
    suave s;
    setup(&s, t, 0);
    ok(gcuba_suave_share(&s, r, 1, L[t / 2 + 1], R[t / 2 + 1]) == 0 &&
           same_region(L[0], L[t / 2 + 1], nl) &&
           same_region(R[0], R[t / 2 + 1], n - nl),
       "share of %lld samples (sets up to %lld) on %d threads: the serial "
       "share's halves, set ends included", n, maxset, t);
    teardown(&s);
  }
  for (i = 0; i < 3; ++i) {
    region_free(L[i]);
    region_free(R[i]);
  }
  region_free(r);
}

static void check_sums(long long n, long long maxset)
{
  sreg *r = region(n, n < 3 * SUAVE_PIECE ? n : 3 * SUAVE_PIECE, maxset);
  double sum[2 * ND], fl1[2 * ND];
  double *ref = (double *)malloc(sizeof(double) * SETW(NC) * n);
  double *set1 = NULL, m0[ND * NB], m1[ND * NB];
  long long cnt[2 * ND], nset, k;
  const int one = n <= SUAVE_PIECE;
  const double scale[NC] = {1, 2};
  int t, a, good = 1, close = 1;
  scan1(25, r, 0, .4, 3e3, 1e300, sum, cnt);
  marg1(r, scale, m0);
  nset = sets1(r, ref);
  for (t = 1; t <= 3; t += 2) {
    suave s;
    int same = 1, near = 1;
    setup(&s, t, 0);
    gcuba_suave_scan(&s, r, 0, .4, 3e3, 1e300);
    for (a = 0; a < 2 * ND; ++a) {
      same &= s.fl[a] == sum[a] && s.fn[a] == cnt[a];
      near &= fabs(s.fl[a] - sum[a]) <= 1e-12 * sum[a] && s.fn[a] == cnt[a];
    }
    if (t == 1) memcpy(fl1, s.fl, sizeof fl1);
    ok(one ? same : near && !memcmp(fl1, s.fl, sizeof fl1),
       "halves' fluctuations over %lld samples on %d threads: %s", n, t,
       one ? "the plain loop's bits" : "close to the plain loop's, the "
       "same bits as on one thread");
    k = gcuba_suave_sets(&s, r);
    good = k == nset;
    close = good;
    for (k = 0; good && k < nset * (long long)SETW(NC); ++k) {
      const double u = s.set[k], v = ref[k];
      if (u != v) {
        /* only sets of more than a piece may differ, in their sums */
        const long long len = (long long)ref[(k / SETW(NC)) * SETW(NC) + 1];
        if (len <= SUAVE_PIECE) good = 0;
        if (!(fabs(u - v) <= 1e-12 * fabs(v) + 1e-300)) close = 0;
      }
    }
    if (t == 1) {
      set1 = (double *)malloc(sizeof(double) * SETW(NC) * nset);
      memcpy(set1, s.set, sizeof(double) * SETW(NC) * nset);
    }
    ok(good && close && !memcmp(set1, s.set, sizeof(double) * SETW(NC) * nset),
       "%lld sets of %lld samples on %d threads: the plain loop's records "
       "for sets within a piece, close beyond, the same bits as one thread",
       nset, n, t);
    gcuba_suave_marg(&s, r, scale);
    if (t == 1) memcpy(m1, s.marg, sizeof m1);
    ok(!memcmp(m1, s.marg, sizeof m1) &&
           (one ? !memcmp(m0, m1, sizeof m1) : close_all(m0, m1, ND * NB)),
       "bins' contributions of %lld own samples on %d threads: the same "
       "bits as on one thread, %s", r->nown, t,
       one ? "the plain loop's" : "close to the plain loop's");
    teardown(&s);
  }
  free(set1);
  free(ref);
  region_free(r);
}

int main(void)
{
  check_draw();
  check_share(1000, 300);
  check_share(3 * SUAVE_PIECE + 123, SUAVE_PIECE / 3);
  check_share(3 * SUAVE_PIECE + 5, 2 * SUAVE_PIECE);
  check_share(2 * SUAVE_PIECE + 9, 1);
  check_sums(SUAVE_PIECE - 10, 2000);
  check_sums(4 * SUAVE_PIECE + 99, 2 * SUAVE_PIECE);
  return done();
}
