/* src/common/copies.c -- the host's walk over a stretch of one of
   gDivonne's final copies (copies.h).  A copy's points cost as much as a
   cheap integrand, so with GNU C's vectors they are made two coordinates
   at a time; elsewhere one point at a time by copy_point.h.
   Either way the bits are those of copy_point.h: a lattice's
   numerators i a^j mod p are stepped by adding a^j mod p (as doubles:
   integers below 2^53, exact), a Sobol point's bits by one direction
   (the Gray codes of i and i + 1 differ in the lowest set bit of i + 1),
   and then the same operations follow in the same order.  The axes are
   padded to GCUBA_COPY_PAD(ndim) (the padding lanes are 0 throughout),
   and a point's row is stored whole: its padding lane lands on the next
   row's first slot, which that row then overwrites; the last row goes
   through a scratch row.  This file is part of gcuba. */
#include <string.h>
#include "common/copies.h"
#include "gcuba.h"

#if defined(__GNUC__)
typedef double dpair __attribute__((vector_size(16)));
typedef uint64_t upair __attribute__((vector_size(16)));

static dpair dload(const double *a)
{
  dpair v;
  memcpy(&v, a, sizeof v);
  return v;
}

static upair uload(const uint64_t *a)
{
  upair v;
  memcpy(&v, a, sizeof v);
  return v;
}

/* the box, padded with 0 to GCUBA_COPY_PAD(ndim) axes */
static void padded_box(const gcuba_copies *q, double *lo, double *w)
{
  int j;
  for (j = 0; j < GCUBA_COPY_PAD(q->ndim); ++j) {
    lo[j] = j < q->ndim ? q->lo[j] : 0;
    w[j] = j < q->ndim ? q->w[j] : 0;
  }
}

static void lattice_walk(const gcuba_copies *q, int h, long long i0,
                         long long n, double *x)
{
  const int nd = q->ndim, ne = GCUBA_COPY_PAD(nd);
  const long long p = q->p;
  const double inv = 1 / (double)p;
  const dpair one = {1, 1}, pp = {(double)p, (double)p};
  const upair nosign = {~0ULL >> 1, ~0ULL >> 1};
  double u[GCUBA_MAXDIM + 1], w[GCUBA_MAXDIM + 1], lo[GCUBA_MAXDIM + 1],
      z[GCUBA_MAXDIM + 1], c[GCUBA_MAXDIM + 1], row[GCUBA_MAXDIM + 1];
  long long i;
  int j;
  padded_box(q, lo, w);
  for (j = 0; j < ne; ++j) {
    const int in = j < nd;
    u[j] = in ? q->u[(long)h * nd + j] : 0;
    z[j] = in ? q->z[j] : 0;
    c[j] = in ? (double)(i0 % p * (long long)z[j] % p) : 0;
  }
  for (i = 0; i < n; ++i) {
    double *xo = i + 1 < n ? x + i * nd : row;
    for (j = 0; j < ne; j += 2) {
      dpair v = dload(c + j) * inv + dload(u + j), cj;
      v -= (dpair)((upair)one & (upair)(v >= one));
      v = one - (dpair)((upair)(2 * v - one) & nosign);
      v = dload(lo + j) + v * dload(w + j);
      memcpy(xo + j, &v, sizeof v);
      cj = dload(c + j) + dload(z + j);
      cj -= (dpair)((upair)pp & (upair)(cj >= pp));
      memcpy(c + j, &cj, sizeof cj);
    }
  }
  memcpy(x + (n - 1) * nd, row, (size_t)nd * sizeof(double));
}

static void sobol_walk(const gcuba_copies *q, int h, long long i0,
                       long long n, double *x)
{
  const int nd = q->ndim, ne = GCUBA_COPY_PAD(nd);
  /* (2 (b >> 12) + 1) 2^-53, exactly: the double 1 + (b >> 12) 2^-52
     less 1 - 2^-53 (Sterbenz) */
  const upair one = {0x3ff0000000000000ULL, 0x3ff0000000000000ULL};
  const dpair half = {1 - 0x1p-53, 1 - 0x1p-53};
  double w[GCUBA_MAXDIM + 1], lo[GCUBA_MAXDIM + 1], row[GCUBA_MAXDIM + 1];
  uint64_t m[GCUBA_MAXDIM + 1], b[GCUBA_MAXDIM + 1];
  long long i;
  int j;
  padded_box(q, lo, w);
  for (j = 0; j < ne; ++j) {
    const int in = j < nd;
    m[j] = in ? q->m[(long)h * nd + j] : 0;
    b[j] = in ? gcuba_copy_sobol_bits(i0, q->v, ne, j) : 0;
  }
  for (i = 0; i < n; ++i) {
    double *xo = i + 1 < n ? x + i * nd : row;
    const uint64_t *v =
        i ? q->v + (size_t)__builtin_ctzll((uint64_t)(i0 + i)) * ne : NULL;
    for (j = 0; j < ne; j += 2) {
      upair bj = uload(b + j);
      dpair y;
      if (v) {
        bj ^= uload(v + j);
        memcpy(b + j, &bj, sizeof bj);
      }
      y = (dpair)((((bj ^ uload(m + j)) >> 12)) | one) - half;
      y = dload(lo + j) + y * dload(w + j);
      memcpy(xo + j, &y, sizeof y);
    }
  }
  memcpy(x + (n - 1) * nd, row, (size_t)nd * sizeof(double));
}

void gcuba_copies_walk(const gcuba_copies *q, int h, long long i0,
                       long long n, double *x)
{
  if (n <= 0) return;
  if (q->z) lattice_walk(q, h, i0, n, x);
  else sobol_walk(q, h, i0, n, x);
}

#else
void gcuba_copies_walk(const gcuba_copies *q, int h, long long i0,
                       long long n, double *x)
{
  const int nd = q->ndim;
  const double inv = 1 / (double)q->p;
  long long i;
  int j;
  for (i = 0; i < n; ++i)
    for (j = 0; j < nd; ++j)
      x[i * nd + j] = gcuba_copies_coord(q, h, i0 + i, j, inv);
}
#endif

void gcuba_copies_part(const double *f, long long n, int ncomp,
                       long long base, double *part)
{
  const int nc = ncomp;
  long long i;
  int cc;
  for (cc = 0; cc < nc; ++cc) {
    /* (two partial sums: one would wait on each addition) */
    double sum[2] = {0, 0}, lo = f[cc], hi = f[cc];
    long long ilo = 0, ihi = 0;
    for (i = 0; i < n; ++i) {
      const double v = f[i * nc + cc];
      sum[i & 1] += v;
      if (v < lo) lo = v, ilo = i;
      if (v > hi) hi = v, ihi = i;
    }
    part[cc] = sum[0] + sum[1];
    part[nc + 2 * cc] = lo;
    part[nc + 2 * cc + 1] = hi;
    part[3 * nc + 2 * cc] = (double)(base + ilo);
    part[3 * nc + 2 * cc + 1] = (double)(base + ihi);
  }
}

void gcuba_copies_merge(const double *part, int ncomp, int first,
                        double *s, double *ext, long long *iext)
{
  const int nc = ncomp;
  int cc;
  for (cc = 0; cc < nc; ++cc) {
    const double lo = part[nc + 2 * cc], hi = part[nc + 2 * cc + 1];
    s[cc] += part[cc];
    if (first || lo < ext[2 * cc]) {
      ext[2 * cc] = lo;
      iext[2 * cc] = (long long)part[3 * nc + 2 * cc];
    }
    if (first || hi > ext[2 * cc + 1]) {
      ext[2 * cc + 1] = hi;
      iext[2 * cc + 1] = (long long)part[3 * nc + 2 * cc + 1];
    }
  }
}
