/* src/romberg/romberg.c -- gRomberg: the driver (levels, the Romberg table,
   the error estimate, the stopping rules) over an executor's ops
   (src/cpu/romberg_cpu.c, cuda/romberg.cu).

   Level k has step h = 2^-k.  T_0 = (f(0) + f(1))/2; each further level
   evaluates only its 2^(k-1) new midpoints M_k and T_k = T_{k-1}/2 +
   h M_k (exact scalings: only the sum M_k rounds).  The Romberg table in
   double, row k: R_k,0 = T_k, R_k,m = R_k,m-1 + (R_k,m-1 - R_k-1,m-1) /
   (4^m - 1), m = 1 .. k; the diagonal D_k = R_k,k is the estimate.

   Error and acceptance, per component:
     E_k   = |D_k - D_k-1|, the difference of the last two diagonal
             entries;
     F_k   = FLOORC eps A_k, the rounding floor, A_k the trapezoid sum of
             |f| at level k (what double arithmetic supports);
     err_k = max(E_k, F_k) (with romberg_error's tail factor), and at
             least the trapezoid's own tail when its differences fall by
             less than SIGMIN per level (Richardson's premise fails:
             a log singularity, kink or jump between the points),
             reported with D_k;
     accepted when k >= MINLEVEL, err_k <= tol_k and also
             max(E_k-1, F_k) <= tol_k and the last level's trapezoid tail
             <= tol_k: two consecutive differences within
             the tolerance (one small difference can be chance: a jump at
             1/3 makes D_k - D_k-1 nearly vanish at some levels), and the
             integrand was not zero at every point so far (no evidence:
             accepted only from ZEROLEVEL on).
   tol_k = max(epsabs, epsrel |D_k|), Cuba's test.  A run stops with
   fail = 1 when the next level would pass maxeval (maxeval is a budget:
   neval never exceeds it), and early, with fail = 2
   (GCUBA_FAIL_ROUNDOFF), when the tolerance is below the rounding floor
   and the differences have sat at the floor for NOISE levels (more
   levels cannot help).

   The executors' sums follow the fixed tree of romberg.h; the block sums
   of a level are combined here by a binary counter (stack) that builds
   the same perfect tree, so the results do not depend on the number of
   threads, the block size or the backend.  This file is part of gcuba. */
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "romberg/romberg.h"

/* the earliest level that may be accepted: 2^7 + 1 = 129 points.  With
   33 points cos(1000 x) is the same samples as cos(5.3 x) on levels 0-5
   (1000 is near 2 pi 160) and was accepted 30 times off; with 65 a peak
   of width 0.001 at 1/pi fell between the points (bench/bench-romberg) */
#define MINLEVEL 7
/* an integrand zero at every point is accepted as zero from this level
   on (1025 points) */
#define ZEROLEVEL 10
/* rounding floor in units of eps times the trapezoid sum of |f| */
#define FLOORC 8.0
/* levels at the floor before giving up on a tolerance below it */
#define NOISE 3
#define NOISEC 4.0

/* ---------------------------------------------------------------------
   the driver */

typedef struct {
  gcuba_call *c;
  const gcuba_romberg_ops *ops;
  void *ctx;
  int ncomp;
  double *row, *prev;   /* Romberg rows [ncomp][MAXLEVEL + 1] */
  double *T, *A;        /* trapezoid of f and |f| [ncomp] */
  double *D, *E;        /* last diagonal entry, last difference [ncomp] */
  double *S, *X;        /* last trapezoid difference |T_k - T_k-1|, and the
                           smoothness error of the last level [ncomp] */
  double *stack;        /* binary counter [64][2*ncomp] */
  double *sums;         /* [2*ncomp] */
  int *noise;           /* levels at the floor [ncomp] */
} romberg;

/* M_k and its |f| twin for level k into t->sums */
static int level_sum(romberg *t, int k)
{
  const int w = 2 * t->ncomp;
  long long npts = gcuba_romberg_npts(k), blk = t->ops->block(t->ctx);
  long long j0, size[64];
  int top = 0, rc, c;
  if (blk > npts) blk = npts;
  for (j0 = 0; j0 < npts; j0 += blk) {
    double *s = t->stack + (size_t)top * w;
    if ((rc = t->ops->sum(t->ctx, k, j0, blk, s))) return rc;
    size[top] = blk;
    /* merge equal neighbours: the perfect tree over the level */
    while (top > 0 && size[top - 1] == size[top]) {
      double *l = t->stack + (size_t)(top - 1) * w;
      for (c = 0; c < w; ++c) l[c] = l[c] + s[c];
      size[top - 1] *= 2;
      s = l;
      --top;
    }
    ++top;
  }
  memcpy(t->sums, t->stack, sizeof(double) * w);
  return 0;
}

/* the error of D_k from the differences E = |D_k - D_k-1|, E1 = |D_k-1 -
   D_k-2| and the floor F: at the floor (E <= NOISEC F) the differences
   are rounding noise and the error is max(E, F); above it, E times the
   tail of a geometric sequence of ratio rho = E/E1, 2 rho/(1 - rho) (at
   least 1: the sum of the remaining differences, doubled because the
   ratio of a slowly converging sequence wanders: a jump at 1/pi has rho
   near 1/2 and differences that underestimate its error by 1.5), and
   GROWC E when the differences do not decrease (rho >= RHOMAX) */
#define RHOMAX 0.8
#define GROWC 8.0
/* the trapezoid's differences must fall by at least this much per level
   for the diagonal to be trusted beyond them (4 for a smooth integrand) */
#define SIGMIN 3.0
static double romberg_error(double E, double E1, double F)
{
  double rho, g;
  if (E <= NOISEC * F) return E > F ? E : F;
  if (!(E1 > 0)) return GROWC * E;
  rho = E / E1;
  g = rho < RHOMAX ? 2 * rho / (1 - rho) : GROWC;
  return g > 1 ? g * E : E;
}

static void run(romberg *t)
{
  gcuba_call *c = t->c;
  const int nc = t->ncomp, L = GCUBA_ROMBERG_MAXLEVEL + 1;
  int k, m, comp, rc;
  for (k = 0;; ++k) {
    long long npts = gcuba_romberg_npts(k);
    int converged = 1, stalled = 1;
    double h = ldexp(1.0, -k), t0;
    if (k > GCUBA_ROMBERG_MAXLEVEL) {
      c->fail = 1;
      gcuba_log(c, 1, "level %d reached: the points would no longer be "
                "exact in double", GCUBA_ROMBERG_MAXLEVEL);
      break;
    }
    if (c->neval + npts > c->maxeval) {
      c->fail = 1;
      gcuba_log(c, 1, "maxeval %lld reached: level %d would need %lld more "
                "evaluations (%lld made)", c->maxeval, k, npts, c->neval);
      break;
    }
    t0 = gcuba_now_ms();
    if ((rc = level_sum(t, k))) {
      if (rc == GCUBA_FAIL_NAN && k == 0)
        gcuba_fail(c, rc, "f(0) or f(1) is not finite: Romberg evaluates "
                   "the endpoints; for an integrable endpoint singularity "
                   "use gCuhre (the estimate of the last level is "
                   "returned)");
      else if (rc == GCUBA_FAIL_NAN)
        gcuba_fail(c, rc, "at a point of level %d (h = 2^-%d); the "
                   "estimate of the last level is returned", k, k);
      else if (rc == GCUBA_FAIL_ABORT)
        gcuba_fail(c, rc, "at level %d", k);
      else
        gcuba_fail(c, rc, "at level %d (the estimate of the last level is "
                   "returned)", k);
      break;
    }
    c->neval += npts;
    { /* the new row */
      double *tmp = t->prev;
      t->prev = t->row;
      t->row = tmp;
    }
    for (comp = 0; comp < nc; ++comp) {
      double *r = t->row + (size_t)comp * L, *p = t->prev + (size_t)comp * L;
      double M = t->sums[comp], Ma = t->sums[nc + comp], D, E, F, err, tol, q;
      if (k == 0) {
        t->T[comp] = 0.5 * M;
        t->A[comp] = 0.5 * Ma;
      } else {
        t->T[comp] = 0.5 * t->T[comp] + h * M;
        t->A[comp] = 0.5 * t->A[comp] + h * Ma;
      }
      r[0] = t->T[comp];
      for (m = 1, q = 4; m <= k; ++m, q *= 4)
        r[m] = r[m - 1] + (r[m - 1] - p[m - 1]) / (q - 1);
      D = r[k];
      F = FLOORC * DBL_EPSILON * t->A[comp];
      E = k > 0 ? fabs(D - t->D[comp]) : INFINITY;
      err = romberg_error(E, t->E[comp], F);
      {
        /* Richardson's premise: the trapezoid's error falls as h^2 (its
           differences by 4 per level, or faster).  Where they fall
           slower (a log singularity, a kink or a jump between the
           points: h log h, h^1.5, h), the extrapolated diagonal is no
           better than the trapezoid, and the error is at least the
           trapezoid's tail, 2 S / (sigma - 1) for differences falling
           by sigma (log|x - 0.9355| at 1e-4 was claimed with 7e-5 and
           missed by 1.4e-4) */
        const double S = k > 0 ? fabs(t->T[comp] - p[0]) : INFINITY;
        double x = 0;
        if (k > 1 && S > NOISEC * F) {
          const double sigma = t->S[comp] / S;
          if (!(sigma >= SIGMIN))
            x = sigma > 1.5 ? 2 * S / (sigma - 1) : GROWC * S;
        }
        if (x > err) err = x;
        t->S[comp] = S;
        tol = fabs(D) * c->epsrel;
        if (c->epsabs > tol) tol = c->epsabs;
        if (!(k >= MINLEVEL && err <= tol &&
              (t->E[comp] > F ? t->E[comp] : F) <= tol && t->X[comp] <= tol &&
              (t->A[comp] > 0 || k >= ZEROLEVEL)))
          converged = 0;
        t->X[comp] = x;
      }
      /* tolerance below the floor, differences at it */
      if (k >= 1 && E <= NOISEC * F) ++t->noise[comp];
      else t->noise[comp] = 0;
      if (!(tol < F && t->noise[comp] >= NOISE)) stalled = 0;
      t->D[comp] = D;
      t->E[comp] = E;
      c->integral[comp] = D;
      c->error[comp] = k > 0 ? err : fabs(D);
      if (comp == 0 || c->verbose >= 2)
        gcuba_log(c, 1, "level %d%s%.0d: %lld evaluations, %.17g +- %.3g "
                  "(trapezoid %.17g, floor %.3g)", k,
                  nc > 1 ? ", component " : "", nc > 1 ? comp + 1 : 0,
                  c->neval, D, c->error[comp], t->T[comp], F);
    }
    gcuba_log(c, 2, "level %d took %.3f ms", k, gcuba_now_ms() - t0);
    if (converged && c->neval >= c->mineval) break;
    if (stalled && c->neval >= c->mineval) {
      c->fail = GCUBA_FAIL_ROUNDOFF;
      gcuba_log(c, 1, "the tolerance is below the rounding floor %.3g "
                "(%g eps times the integral of |f|): more levels cannot "
                "reach it", c->error[0], FLOORC);
      break;
    }
  }
}

void gcuba_romberg_drive(gcuba_call *c, const gcuba_romberg_ops *ops)
{
  romberg t;
  int fail = 0, nc = c->ncomp, L = GCUBA_ROMBERG_MAXLEVEL + 1;
  double *mem;
  memset(&t, 0, sizeof t);
  t.c = c;
  t.ncomp = nc;
  t.ops = ops;
  gcuba_log(c, 2, "ncomp %d, epsrel %g, epsabs %g, flags %d, mineval %lld, "
            "maxeval %lld", nc, c->epsrel, c->epsabs, c->flags, c->mineval,
            c->maxeval);
  mem = (double *)calloc((size_t)nc * (2 * L + 6 + 64 * 2 + 2),
                         sizeof(double));
  t.noise = (int *)calloc((size_t)nc, sizeof(int));
  if (!mem || !t.noise) {
    free(mem);
    free(t.noise);
    gcuba_fail(c, GCUBA_FAIL_NOMEM, "driver state");
    return;
  }
  t.row = mem;
  t.prev = t.row + (size_t)nc * L;
  t.T = t.prev + (size_t)nc * L;
  t.A = t.T + nc;
  t.D = t.A + nc;
  t.E = t.D + nc;
  t.S = t.E + nc;
  t.X = t.S + nc;
  t.stack = t.X + nc;
  t.sums = t.stack + (size_t)64 * 2 * nc;
  t.ctx = t.ops->create(c, &fail);
  if (t.ctx) {
    run(&t);
    t.ops->destroy(t.ctx);
  }
  free(mem);
  free(t.noise);
}
