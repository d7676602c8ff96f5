/* src/divonne/sample.c -- gDivonne's samplers and its single points.
   A key (Cuba's key1, key2, key3) selects how a region is sampled:
     7, 9 (11 in 3-D, 13 in 2-D)  the Genz-Malik rule of that degree
                                  (detail/rule.h), with its error;
     other positive keys          |key| points (below 40: |key| times
                                  the points needed).  In the partition
                                  a lattice of the Korobov kind, folded
                                  by the tent map, so that a lattice of
                                  p points (p prime) takes p/2 + 1
                                  evaluations; in the final phase
                                  DIV_COPIES randomly shifted copies of
                                  a lattice of p points (from
                                  DIV_SOBOLDIM dimensions on, of the
                                  first 2^m Sobol points), for an
                                  error;
     negative keys                quasi-random points (seed 0: one Sobol
                                  sequence over the whole call) or
                                  pseudo-random ones (Philox, keyed by the
                                  seed and the point's number), these
                                  with their standard error.
   The partition lattices' multipliers are gcuba's own: for each prime
   the one of the candidates that minimises the lattice's P_2 figure of
   merit (the mean squared error on the worst smooth periodic function of
   unit norm), searched when the call first needs that lattice.

   Points closer than the border to the unit cube's faces are never
   evaluated: the value there is extrapolated linearly from the nearest
   point of the inner box and one a quarter border further in.  This file
   is part of gcuba. */
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <pthread.h>
#include "divonne/divonne_int.h"
#include "gcuba/detail/rule.h"
#include "gcuba/detail/vegas.h"
#include "vegas/sobol.h"
#include "common/copies.h"

#if defined(__GNUC__)
/* two doubles or two 64-bit words side by side (GNU C's vectors) */
typedef double dpair __attribute__((vector_size(16)));
typedef uint64_t upair __attribute__((vector_size(16)));
#endif

/* ---- lattices */

static int is_prime(long long n)
{
  long long k;
  if (n < 2) return 0;
  if (n % 2 == 0) return n == 2;
  for (k = 3; k * k <= n; k += 2)
    if (n % k == 0) return 0;
  return 1;
}

/* P_2 of the tent-folded lattice {k (1, a, a^2, ...) / p}: the mean over
   its points of prod_j (1 + 2 pi^2 B_2(x_j)) - 1, B_2(x) = x^2 - x + 1/6.
   Point k's coordinates k a^j mod p are stepped by adding a^j mod p
   (kept as doubles: integers below 2^53, exact); B_2 is symmetric, so
   points k and p - k count alike.  With GNU C's vectors two points go
   side by side, each product and the sum in the same order as one at a
   time. */
static double p2(long long p, long long a, int ndim)
{
  const double inv = 1 / (double)p, k2 = 2 * M_PI * M_PI;
  double z[GCUBA_MAXDIM], sum = 0;
  long long zj = 1, k;
  int j;
  for (j = 0; j < ndim; ++j, zj = zj * a % p) z[j] = (double)zj;
#if defined(__GNUC__)
  {
    /* lanes: points k and k + 1, stepped by 2 a^j mod p */
    const dpair pp = {(double)p, (double)p}, one = {1, 1};
    dpair cv[GCUBA_MAXDIM], z2[GCUBA_MAXDIM];
    for (j = 0; j < ndim; ++j) {
      const double s = z[j] >= (double)p - z[j] ? 2 * z[j] - (double)p
                                                 : 2 * z[j];
      cv[j] = (dpair){0, z[j]};
      z2[j] = (dpair){s, s};
    }
    for (k = 0; k <= p / 2; k += 2) {
      dpair prod = one;
      for (j = 0; j < ndim; ++j) {
        const dpair x = cv[j] * inv;
        prod *= one + k2 * (x * x - x + 1. / 6);
        cv[j] += z2[j];
        cv[j] -= (dpair)((upair)pp & (upair)(cv[j] >= pp));
      }
      sum += k ? 2 * prod[0] : prod[0];
      if (k + 1 <= p / 2) sum += 2 * prod[1];
    }
  }
#else
  double c[GCUBA_MAXDIM] = {0};
  for (k = 0; k <= p / 2; ++k) {
    double prod = 1;
    for (j = 0; j < ndim; ++j) {
      const double x = c[j] * inv;
      prod *= 1 + k2 * (x * x - x + 1. / 6);
      if ((c[j] += z[j]) >= (double)p) c[j] -= (double)p;
    }
    sum += k ? 2 * prod : prod;
  }
#endif
  return sum / (double)p - 1;
}

/* the multiplier of the prime p's lattice in ndim dimensions: every a
   with 2 <= a <= p/2 while the search costs at most ~1e7 operations,
   else that many candidates spread evenly over the range */
static long long multiplier(long long p, int ndim)
{
  const long long half = p / 2;
  long long ncand = (long long)(1e7 / ((double)p * ndim)), a, best = 1;
  double step, bestv = INFINITY;
  long long i;
  if (half < 2) return 1;
  if (ncand < 16) ncand = 16;
  if (ncand > half - 1) ncand = half - 1;
  step = (double)(half - 1) / (double)ncand;
  for (i = 0; i < ncand; ++i) {
    double v;
    a = 2 + (long long)(i * step);
    v = p2(p, a, ndim);
    if (v < bestv) {
      bestv = v;
      best = a;
    }
  }
  return best;
}

static int rule_key(int key, int ndim)
{
  return key == 7 || key == 9 || (key == 11 && ndim == 3) ||
         (key == 13 && ndim == 2);
}

/* the multipliers found so far, for every call of the process */
#define NCACHE 512
static struct {
  long long p, a;
  int ndim;
} cache[NCACHE];
static int ncache;
static pthread_mutex_t cache_lock = PTHREAD_MUTEX_INITIALIZER;

static long long cached_multiplier(long long p, int ndim)
{
  long long a = 0;
  int i;
  pthread_mutex_lock(&cache_lock);
  for (i = 0; i < ncache && i < NCACHE; ++i)
    if (cache[i].p == p && cache[i].ndim == ndim) a = cache[i].a;
  pthread_mutex_unlock(&cache_lock);
  if (a) return a;
  a = multiplier(p, ndim);
  pthread_mutex_lock(&cache_lock);
  i = ncache++ % NCACHE;
  cache[i].p = p;
  cache[i].a = a;
  cache[i].ndim = ndim;
  pthread_mutex_unlock(&cache_lock);
  return a;
}

/* the prime at or above p, p first rounded up to a ladder of ratio 1.1
   from 47 on, so that calls share lattices and their multipliers */
static long long prime_from(long long p)
{
  if (p > 47) {
    double l = 47;
    while (l < (double)p) l *= 1.1;
    p = (long long)ceil(l);
  }
  if (p < 3) p = 3;
  if (p > DIV_MAXPRIME) p = DIV_MAXPRIME;
  while (!is_prime(p)) ++p;
  return p;
}

long long gcuba_divonne_lookup(divonne *d, int isamp, int key,
                               long long nwant, long long nmax,
                               long long nmin)
{
  dsamp *s = &d->samp[isamp];
  long long n;
  memset(s, 0, sizeof *s);
  s->key = key;
  if (rule_key(key, d->ndim)) {
    s->kind = DIV_RULE;
    s->rule = &d->rules[isamp];
    s->n = n = nmin = gcuba_rule_nevals(s->rule);
    s->neff = s->n;
    return (n > nmax ? n - nmax : 0) | (nmax < nmin ? 1LL << 62 : 0);
  }
  n = key < 0 ? -(long long)key : key;
  if (n < DIV_KEYMULT) n *= nwant;
  if (key < 0) {
    s->kind = DIV_RANDOM;
    s->n = n < nmax ? n : nmax;
    if (s->n < 2) s->n = 2;
    s->neff = s->n;
  } else if (isamp == 0) {
    /* the partition's lattice, folded: p >= 2n - 1 points for p/2 + 1
       evaluations */
    s->kind = DIV_LATTICE;
    n = n / 2 + 1;
    s->n = n < nmax ? n : nmax;
    s->neff = prime_from(2 * s->n - 1);
    s->n = s->neff / 2 + 1;
    s->a = cached_multiplier(s->neff, d->ndim);
  } else {
    /* the final phase's points: K = DIV_COPIES randomly shifted copies
       of p points (see shifted_points), K p evaluations in all, whose
       scatter is the error.  Below DIV_SOBOLDIM dimensions a lattice of
       p ~ n/K points, a prime: the copies together take the points
       asked for (with p ~ n/2, Genz's protocol in 5 dimensions ended
       at 0.2-0.5 of the tolerance, and took 24% more evaluations for
       one claim more).  From there on the first 2^m <= n/2 Sobol
       points, a digital net, whose points are spread far more evenly
       than those of another count (Genz's protocol in 8 and 10
       dimensions: 5 claims more and 20% fewer evaluations than with p
       ~ n/2 points) */
    const int K = DIV_COPIES;
    const long long wish = d->ndim < DIV_SOBOLDIM ? n / K + 1 : n / 2 + 1;
    long long p = wish < nmax / K ? wish : nmax / K;
    if (p < 2) p = 2;
    s->kind = DIV_LATTICE;
    s->shifted = K;
    if (d->ndim < DIV_SOBOLDIM) {
      s->neff = prime_from(p);
      s->a = cached_multiplier(s->neff, d->ndim);
    } else {
      s->neff = 1;
      while (2 * s->neff <= p) s->neff *= 2;
      s->a = 0;
    }
    s->n = K * s->neff;
    n = K * wish;
  }
  return (n > nmax ? n - nmax : 0) | (nmax < nmin ? 1LL << 62 : 0);
}

/* ---- evaluations */

/* the scratch for m points (and their extrapolation partners) */
static void reserve(divonne *d, long long m)
{
  if (m <= d->scap) return;
  m += m / 2;
  free(d->sx);
  d->sx = (double *)malloc((size_t)m * 2 * (d->ndim + d->ncomp) *
                           sizeof(double));
  if (!d->sx) {
    d->scap = 0;
    if (!d->worker)
      d->fail = gcuba_fail(d->c, GCUBA_FAIL_NOMEM, "gDivonne's samples");
    longjmp(d->abort, 1);
  }
  d->scap = m;
  d->sf = d->sx + (size_t)m * 2 * d->ndim;
}

/* the executor's failure rc: the call ends with it */
static void eval_failed(divonne *d, int rc)
{
  if (d->worker) longjmp(d->abort, 1); /* (look.c: again in its turn) */
  d->fail = gcuba_fail(d->c, rc, "%s", rc == GCUBA_FAIL_ABORT
                                           ? "the integrand returned -999"
                                           : "the integrand's evaluation "
                                             "failed");
  longjmp(d->abort, 1);
}

void gcuba_divonne_eval(divonne *d, long long n, const double *x, double *f)
{
  const int nd = d->ndim, nc = d->ncomp;
  double *xe = NULL, *fe = NULL, *dist = NULL;
  long long i, m = n;
  int j, rc;
  if (d->blo > 0) {
    /* the points in the border: their projections on the inner box, then
       a partner each, a quarter border further in */
    long long nout = 0;
    for (i = 0; i < n; ++i)
      for (j = 0; j < nd; ++j)
        if (x[i * nd + j] < d->blo || x[i * nd + j] > d->bhi) {
          ++nout;
          break;
        }
    if (nout) {
      /* (kept for the call: the searches come here point by point) */
      if (n + nout > d->bcap) {
        const long long cap = 2 * (n + nout);
        free(d->bx);
        d->bx = (double *)malloc((size_t)cap * (nd + nc + 1) *
                                 sizeof(double));
        d->bcap = d->bx ? cap : 0;
        if (!d->bx) {
          if (d->worker) longjmp(d->abort, 1);
          d->fail = gcuba_fail(d->c, GCUBA_FAIL_NOMEM, "gDivonne's border");
          longjmp(d->abort, 1);
        }
      }
      xe = d->bx;
      fe = xe + (size_t)(n + nout) * nd;
      dist = fe + (size_t)(n + nout) * nc;
      memcpy(xe, x, (size_t)n * nd * sizeof(double));
      for (i = 0; i < n; ++i) {
        double *xi = xe + i * nd, s = 0;
        for (j = 0; j < nd; ++j) {
          const double v = xi[j], b = v < d->blo ? d->blo : d->bhi;
          if (v < d->blo || v > d->bhi) s += (v - b) * (v - b);
        }
        dist[i] = 0;
        if (s > 0) {
          const double eps = .25 * d->blo, len = sqrt(s);
          double *xp = xe + m * nd;
          for (j = 0; j < nd; ++j) {
            const double v = xi[j];
            if (v < d->blo || v > d->bhi) {
              const double b = v < d->blo ? d->blo : d->bhi;
              xi[j] = b;
              xp[j] = b - (v - b) * eps / len;
            } else
              xp[j] = v;
          }
          dist[i] = len / eps;
          ++m;
        }
      }
      x = xe;
    }
  }
  rc = d->worker
           ? d->ops->eval_on(d->ctx, d->tid, m, x, d->phase, xe ? fe : f)
           : d->ops->eval(d->ctx, m, x, NULL, d->phase, xe ? fe : f);
  d->neval += m;
  if (rc) eval_failed(d, rc);
  if (xe) {
    long long k = n;
    for (i = 0; i < n; ++i) {
      int cc;
      for (cc = 0; cc < nc; ++cc) f[i * nc + cc] = fe[i * nc + cc];
      if (dist[i] > 0) {
        for (cc = 0; cc < nc; ++cc)
          f[i * nc + cc] += dist[i] * (fe[i * nc + cc] - fe[k * nc + cc]);
        ++k;
      }
    }
  }
}

double gcuba_divonne_point(divonne *d, const double *x)
{
  const int nd = d->ndim;
  double v;
  int j;
  for (j = 0; j < nd; ++j)
    d->wx[j] = x[j] < 0 ? 0 : x[j] > 1 ? 1 : x[j];
  gcuba_divonne_eval(d, 1, d->wx, d->wf);
  v = d->wf[d->selcomp];
  if (v > .5 * DBL_MAX) v = .5 * DBL_MAX;
  if (v < -.5 * DBL_MAX) v = -.5 * DBL_MAX;
  return d->selsign * v;
}

/* ---- a region's sampling */

/* one copy's estimate of component cc from its p values f (nc per
   point); the values widen the region's range (copies_var).  Two
   partial sums, of the even and the odd points (one would wait on each
   addition); with GNU C's vectors side by side */
static double copy_estimate(dreg *r, const double *f, long long p, int nc,
                            int cc)
{
  double sum[2] = {0, 0}, lo = r->fmin[cc], hi = r->fmax[cc];
  long long i = 0;
#if defined(__GNUC__)
  {
    dpair s2 = {0, 0}, lo2 = {lo, lo}, hi2 = {hi, hi};
    for (; i + 1 < p; i += 2) {
      const dpair v = {f[i * nc + cc], f[(i + 1) * nc + cc]};
      s2 += v;
      lo2 = (dpair)(((upair)v & (upair)(v < lo2)) |
                    ((upair)lo2 & ~(upair)(v < lo2)));
      hi2 = (dpair)(((upair)v & (upair)(v > hi2)) |
                    ((upair)hi2 & ~(upair)(v > hi2)));
    }
    sum[0] = s2[0];
    sum[1] = s2[1];
    lo = fmin(lo2[0], lo2[1]);
    hi = fmax(hi2[0], hi2[1]);
  }
#endif
  for (; i < p; ++i) {
    const double v = f[i * nc + cc];
    sum[i & 1] += v;
    lo = v < lo ? v : lo;
    hi = v > hi ? v : hi;
  }
  r->fmin[cc] = lo;
  r->fmax[cc] = hi;
  return r->vol / (double)p * (sum[0] + sum[1]);
}

void gcuba_divonne_copies_q(const divonne *d, const dreg *r, long long p,
                            long long ca, int K, uint64_t ctr, double *w,
                            double *z, double *u, uint64_t *m,
                            gcuba_copies *q)
{
  const int nd = d->ndim;
  long long zj = 1;
  int h, j;
  for (j = 0; j < nd; ++j) {
    w[j] = r->hi[j] - r->lo[j];
    z[j] = (double)zj;
    if (ca) zj = zj * ca % p;
  }
  for (h = 0; h < K; ++h) {
    double *uh = u + (size_t)h * nd;
    gcuba_vegas_uniforms(d->seed ^ 0x5eedd1f0, 1, ctr + (uint64_t)h, nd, uh);
    /* u < 1 has 53 bits: u 2^64 is an exact integer below 2^64 */
    if (!ca)
      for (j = 0; j < nd; ++j)
        m[(size_t)h * nd + j] = (uint64_t)(uh[j] * 0x1p64);
  }
  q->ndim = nd;
  q->k = K;
  q->p = p;
  q->lo = r->lo;
  q->w = w;
  q->z = ca ? z : NULL;
  q->u = u;
  q->m = m;
  q->v = d->csobol;
}

/* K copies of region r's final points (r->cp points each; r->ca the
   lattice's multiplier, 0: Sobol points), their shifts drawn in turn:
   their estimates a[h ncomp + cc], r's range widened.  The executor
   makes and sums them where it can (no border, whose points are
   extrapolated here), or they were made ahead (ahead.c): then d->sx
   holds only each component's least and greatest values' points, d->ext
   set (gcuba_divonne_explore's searches start there) */
static void make_copies(divonne *d, dreg *r, int K, double *a)
{
  const int nd = d->ndim, nc = d->ncomp;
  const long long p = r->cp;
  const uint64_t ctr = d->nshift;
  double *w = d->cq, *z = w + nd, *u = z + nd;
  gcuba_copies q;
  const gcuba_copies *qa;
  int h, j, cc;
  d->nshift += (uint64_t)K;
  d->ext = d->ops->copies && !(d->blo > 0);
  if (d->ext) {
    double *sum = d->cbuf, *fext = DIV_CEXT(d);
    long long *iext = d->cext;
    /* made ahead: with these parameters (the same as copies_q's here) */
    if ((qa = gcuba_divonne_ahead_take(d, r, K, ctr, sum, fext, iext)))
      q = *qa;
    else {
      int rc;
      gcuba_divonne_copies_q(d, r, p, r->ca, K, ctr, w, z, u, d->cm, &q);
      gcuba_divonne_ahead_settle(d);
      rc = d->ops->copies(d->ctx, 1, &q, d->phase, sum, fext, iext);
      if (rc) {
        d->neval += K * p;
        eval_failed(d, rc);
      }
    }
    d->neval += K * p;
    for (h = 0; h < K; ++h)
      for (cc = 0; cc < nc; ++cc)
        a[h * nc + cc] = r->vol / (double)p * sum[h * nc + cc];
    reserve(d, 2 * nc);
    for (cc = 0; cc < nc; ++cc) {
      for (j = 0; j < 2; ++j)
        gcuba_copies_walk(&q, (int)(iext[2 * cc + j] / p),
                          iext[2 * cc + j] % p, 1,
                          d->sx + (size_t)(2 * cc + j) * nd);
      if (fext[2 * cc] < r->fmin[cc]) r->fmin[cc] = fext[2 * cc];
      if (fext[2 * cc + 1] > r->fmax[cc]) r->fmax[cc] = fext[2 * cc + 1];
    }
    return;
  }
  gcuba_divonne_copies_q(d, r, p, r->ca, K, ctr, w, z, u, d->cm, &q);
  reserve(d, K * p);
  for (h = 0; h < K; ++h)
    gcuba_copies_walk(&q, h, 0, p, d->sx + (size_t)h * p * nd);
  gcuba_divonne_eval(d, K * p, d->sx, d->sf);
  for (h = 0; h < K; ++h)
    for (cc = 0; cc < nc; ++cc)
      a[h * nc + cc] =
          copy_estimate(r, d->sf + (size_t)h * p * nc, p, nc, cc);
}

double gcuba_divonne_copies_var(const dreg *r, int cc, double sq, int n)
{
  double q;
  if (sq > 0) return sq / (n - 1.) / n;
  q = r->vol * (r->fmax[cc] - r->fmin[cc]) / (double)r->cp;
  return q > 0 ? .25 * q * q / n : 0;
}

void gcuba_divonne_copy(divonne *d, dreg *r, double *a)
{
  make_copies(d, r, 1, a);
}

long long gcuba_divonne_sample(divonne *d, dreg *r, int isamp)
{
  const dsamp *s = &d->samp[isamp];
  const int nd = d->ndim, nc = d->ncomp;
  const long long n = s->n;
  double *x, *f;
  long long i;
  int j, cc;
  reserve(d, n);
  x = d->sx;
  f = d->sf;
  d->ext = 0;
  if (s->kind == DIV_LATTICE && s->shifted) {
    /* K shifted copies: their mean, and the scatter of their estimates
       a[h nc + cc] */
    const int K = s->shifted;
    double *a = d->cbuf + (DIV_COPIES + 2) * nc;
    r->ncopy = K;
    r->cp = s->neff;
    r->ca = s->a;
    make_copies(d, r, K, a);
    for (cc = 0; cc < nc; ++cc) {
      double mean = 0, sq = 0;
      int h;
      for (h = 0; h < K; ++h) mean += a[h * nc + cc];
      mean /= K;
      for (h = 0; h < K; ++h)
        sq += (a[h * nc + cc] - mean) * (a[h * nc + cc] - mean);
      r->csum[cc] = mean;
      r->csq[cc] = sq;
      r->avg[cc] = mean;
      r->err[cc] = sqrt(gcuba_divonne_copies_var(r, cc, sq, K));
    }
    return n;
  }
  if (s->kind == DIV_LATTICE) {
    /* point i: |2 (i a^j mod p) / p - 1| along axis j; i = 0 is the
       upper corner, i and p - i coincide */
    const long long p = s->neff;
    long long z[GCUBA_MAXDIM], c[GCUBA_MAXDIM];
    for (z[0] = 1, j = 1; j < nd; ++j) z[j] = z[j - 1] * s->a % p;
    for (j = 0; j < nd; ++j) c[j] = 0;
    for (i = 0; i < n; ++i)
      for (j = 0; j < nd; ++j) {
        const double u = fabs((double)(2 * c[j] - p)) / (double)p;
        x[i * nd + j] = r->lo[j] + u * (r->hi[j] - r->lo[j]);
        if ((c[j] += z[j]) >= p) c[j] -= p;
      }
  } else if (s->kind == DIV_RANDOM) {
    double u[GCUBA_MAXDIM];
    uint64_t q[GCUBA_MAXDIM]; /* Sobol: point k's bits, the next by a step */
    if (d->sobol && n > 0)
      gcuba_vegas_sobol_walk_start(d->sobol, nd, d->next, q);
    for (i = 0; i < n; ++i) {
      const uint64_t k = d->next++;
      if (d->sobol)
        gcuba_vegas_sobol_walk(d->sobol, nd, k, q, u);
      else
        gcuba_vegas_uniforms(d->seed, 0, k, nd, u);
      for (j = 0; j < nd; ++j)
        x[i * nd + j] = r->lo[j] + u[j] * (r->hi[j] - r->lo[j]);
    }
  } else {
    double u[GCUBA_MAXDIM];
    for (i = 0; i < n; ++i) {
      gcuba_rule_point(s->rule, (long)i, u);
      for (j = 0; j < nd; ++j)
        x[i * nd + j] = .5 * (r->lo[j] + r->hi[j]) +
                        .5 * u[j] * (r->hi[j] - r->lo[j]);
    }
  }
  gcuba_divonne_eval(d, n, x, f);
  if (s->kind == DIV_RULE) {
    gcuba_rule_apply(s->rule, nc, f, r->vol, NULL, r->avg, r->err, NULL);
  } else {
    for (cc = 0; cc < nc; ++cc) {
      double sum = 0;
      for (i = 1; i < n; ++i) sum += f[i * nc + cc];
      r->avg[cc] = s->kind == DIV_LATTICE
                       ? r->vol / (double)s->neff * (2 * sum + f[cc])
                       : r->vol / (double)n * (sum + f[cc]);
      r->err[cc] = 0;
      if (s->kind == DIV_RANDOM && !d->sobol) {
        /* pseudo-random points: their standard error (Cuba takes the
           spread over the points, a quasi-random rate these points do
           not have) */
        const double mean = (sum + f[cc]) / (double)n;
        double sq = 0;
        for (i = 0; i < n; ++i)
          sq += (f[i * nc + cc] - mean) * (f[i * nc + cc] - mean);
        r->err[cc] = r->vol * sqrt(sq / ((double)n * (double)(n - 1)));
        if (!(r->err[cc] > 0)) r->err[cc] = r->vol * 0x1p-52 * fabs(mean);
      }
    }
  }
  return n;
}
