/* tests/test-copies.c -- gDivonne's final copies: the host's walk over a
   stretch of a copy (src/common/copies.c, two coordinates at a time)
   gives the bits of common/copy_point.h's point-by-point definition,
   which the device uses (cuda/points.cu), for lattices and Sobol points,
   odd and even dimensions, stretches that start anywhere; and every point
   lies in its box.  This file is part of gcuba. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "tap.h"
#include "common/copies.h"
#include "vegas/sobol.h"

#define MAXD 12

/* the points i0 .. i0 + n - 1 of copy h by copy_point.h: 0 where the
   walk's differ (the first difference diagnosed) */
static int same(const gcuba_copies *q, int h, long long i0, long long n,
                const double *x)
{
  const int nd = q->ndim;
  const double inv = 1 / (double)q->p;
  long long i;
  int j;
  for (i = 0; i < n; ++i)
    for (j = 0; j < nd; ++j) {
      const double want = gcuba_copies_coord(q, h, i0 + i, j, inv);
      if (memcmp(&want, &x[i * nd + j], sizeof want) ||
          !(x[i * nd + j] >= q->lo[j] &&
            x[i * nd + j] <= q->lo[j] + q->w[j] * (1 + 1e-15))) {
        diag("point %lld axis %d: walk %.17g, point by point %.17g",
             i0 + i, j, x[i * nd + j], want);
        return 0;
      }
    }
  return 1;
}

int main(void)
{
  static const int dims[] = {2, 3, 5, 6, 7, 10};
  static const long long primes[] = {47, 1009, 4099};
  uint64_t *v = NULL, m[2 * MAXD];
  double lo[MAXD], w[MAXD], z[MAXD], u[2 * MAXD], *x;
  unsigned di, pi;
  plan(0);
  srand(4711);
  x = (double *)malloc(sizeof(double) * 5000 * MAXD);
  for (di = 0; di < sizeof dims / sizeof dims[0]; ++di) {
    const int nd = dims[di], pad = GCUBA_COPY_PAD(nd);
    uint64_t dirs[64 * MAXD];
    int j, b;
    free(v);
    v = (uint64_t *)calloc((size_t)64 * pad, sizeof(uint64_t));
    gcuba_sobol_dirs(nd, dirs);
    for (b = 0; b < 64; ++b)
      for (j = 0; j < nd; ++j) v[b * pad + j] = dirs[j * 64 + b];
    for (j = 0; j < nd; ++j) {
      lo[j] = rand() / (RAND_MAX + 1.);
      w[j] = (1 - lo[j]) * (rand() / (RAND_MAX + 1.));
    }
    for (j = 0; j < 2 * nd; ++j) {
      u[j] = rand() / (RAND_MAX + 1.);
      m[j] = ((uint64_t)rand() << 42) ^ ((uint64_t)rand() << 21) ^
             (uint64_t)rand();
    }
    for (pi = 0; pi < sizeof primes / sizeof primes[0]; ++pi) {
      const long long p = primes[pi], a = 2 + p / 3;
      static const long long starts[][2] = {{0, 1}, {0, 47}, {13, 30}};
      gcuba_copies q;
      long long zj = 1;
      int s, ok_l = 1, ok_s = 1;
      for (j = 0; j < nd; ++j, zj = zj * a % p) z[j] = (double)zj;
      q.ndim = nd;
      q.k = 2;
      q.lo = lo;
      q.w = w;
      q.u = u;
      q.m = m;
      q.v = v;
      for (s = 0; s < 4; ++s) {
        const long long i0 = s < 3 ? starts[s][0] : p / 3,
                        n = s < 3 ? starts[s][1] : p - p / 3;
        q.p = p;
        q.z = z;
        gcuba_copies_walk(&q, 1, i0, n, x);
        ok_l &= same(&q, 1, i0, n, x);
        /* Sobol: 2^m points, or any count */
        q.p = s == 3 ? 4096 : p;
        q.z = NULL;
        gcuba_copies_walk(&q, 1, s == 3 ? 1000 : i0, s == 3 ? 3096 : n, x);
        ok_s &= same(&q, 1, s == 3 ? 1000 : i0, s == 3 ? 3096 : n, x);
      }
      ok(ok_l, "%d-D lattice of %lld points: the walk is copy_point.h's",
         nd, p);
      ok(ok_s, "%d-D Sobol points (%lld): the walk is copy_point.h's", nd,
         p);
    }
  }
  free(v);
  free(x);
  return done();
}
