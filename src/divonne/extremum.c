/* src/divonne/extremum.c -- the smallest value of one component of the
   integrand in a box, searched from the best point of a sampling: the
   spread of a region (half its volume times max - min) is only as good as
   its extrema, and the cuts centre on them.

   This is gcuba's own code for the search that Cuba's Divonne makes (its
   FindMinimum), written from a description of Cuba 4.2.2's search in
   plain words and following it step by step, with the same constants and
   stopping rules, so that the partition sees the same extrema:

   - Coordinates within a relative 2^-13 of a face of the box are put on
     it and held there; the others are free.  The gradient of the free
     ones comes from forward differences of 2^-16.
   - Where that gradient is flat (norm at most 0.01), as at the top of a
     plateau or on the axis of a ridge, a local search first probes a
     diagonal and a direction across it for an appreciable change, and
     makes line searches along what it finds.
   - Then a quasi-Newton iteration over the free coordinates: the
     Hessian approximation is kept as an L D L^T factor, updated by BFGS
     and downdated when a coordinate reaches a face and is fixed.  Each
     step is a safeguarded line search (parabolas inside a bracket)
     accepted by a sufficient-decrease test.
   - When the iteration stalls or converges (a gain under 5% of 1 + |f|
     and a move under 5% of 1 + |x|), a fixed coordinate along which f
     falls into the box is released and the iteration goes on.
   - The budget, 50 ndim evaluations per search, is checked only between
     the iterations, as Cuba does.

   Where Cuba's code departs from the textbook (the rows of the factor are
   moved without their columns when a coordinate is fixed, and the local
   search's choice of direction compares a scaled with an unscaled
   length), it is followed as it is: the aim is the same partition.  Two
   things are gcuba's own: a value that is NaN counts as a very large one
   here (gcuba's partition never takes a NaN for an extremum, where Cuba
   would take it for a minimum), and a search that ends above its
   starting value (which can only happen when putting the start on a face
   made it worse) returns the starting point and value instead.  The line
   search also stops at twice the budget, against loops that only a
   pathological integrand could make (the Genz tests never come near
   either).  This file is part of gcuba. */
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "divonne/divonne_int.h"

#define QEPS 0x1p-13    /* a coordinate this close to a face is put on it */
#define RTEPS 0x1p-26   /* the line searches' relative tolerance */
#define MEPS 0x1p-52    /* the machine's epsilon */
#define DELTA 0x1p-16   /* the finite differences' step */
#define RTDELTA 0x1p-8  /* the local search's first probe (after x5) */
#define SUFTOL 0x1p-14  /* the local search: an appreciable change */
#define FTOL .05        /* the quasi-Newton iteration's convergence */
#define GTOL .01        /* a gradient this small is flat */

enum { LOW, HIGH };

/* The search's state: the box, the free coordinates (in the order in
   which the factor's rows hold them) and the fixed ones with their
   faces. */
typedef struct srch {
  divonne *d;
  const double *lo, *hi;
  int nd;
  int nfree, nfix;
  int *fr, *fix, *side;
  long long hard; /* no evaluation past this count */
} srch;

/* One value of the search: the selected component times its sign at x.
   A NaN counts as a very large value, so that it is never taken for the
   minimum and the search turns away from it. */
static double value(divonne *d, const double *x)
{
  const double f = gcuba_divonne_point(d, x);
  return isnan(f) ? .5 * DBL_MAX : f;
}

/* The point x0 + t p, p running over the free coordinates, in out, and
   its value. */
static double along(const srch *s, const double *x0, const double *p,
                    double t, double *out)
{
  int i;
  memcpy(out, x0, (size_t)s->nd * sizeof(double));
  for (i = 0; i < s->nfree; ++i) out[s->fr[i]] = x0[s->fr[i]] + t * p[i];
  return value(s->d, out);
}

/* The gradient by forward differences over the n coordinates in dims,
   f being the value at x.  The step goes inwards from an upper face, so
   that the points stay in the box.  x is changed and restored. */
static void gradient(const srch *s, const int *dims, int n, double *x,
                     double f, double *g)
{
  int i;
  for (i = 0; i < n; ++i) {
    const int k = dims[i];
    const double xk = x[k];
    const double h = s->hi[k] - xk < DELTA ? -DELTA : DELTA;
    x[k] = xk + h;
    g[i] = (value(s->d, x) - f) / h;
    x[k] = xk;
  }
}

static double norm(const double *v, int n)
{
  double sum = 0;
  int i;
  for (i = 0; i < n; ++i) sum += v[i] * v[i];
  return sqrt(sum);
}

static double dot(const double *u, const double *v, int n)
{
  double sum = 0;
  int i;
  for (i = 0; i < n; ++i) sum += u[i] * v[i];
  return sum;
}

/* ---- the factor L D L^T of the Hessian approximation: row-major with
   leading dimension ld, D on the diagonal and L (unit diagonal) in the
   strict lower triangle; only the first n rows and columns are used */

/* The Newton direction p: the solution of L D L^T p = -g.  A pivot of D
   that is not positive (which only an update cut short can leave) ends
   the back substitution there, the leading components keeping what the
   forward substitution gave them, as in Cuba. */
static void solve(const double *H, int ld, int n, const double *g,
                  double *p)
{
  int i, j;
  for (i = 0; i < n; ++i) {
    double sum = -g[i];
    for (j = 0; j < i; ++j) sum -= H[i * ld + j] * p[j];
    p[i] = sum;
  }
  for (i = n - 1; i >= 0; --i) {
    double sum;
    if (H[i * ld + i] <= 0) break;
    sum = p[i] / H[i * ld + i];
    for (j = i + 1; j < n; ++j) sum -= H[j * ld + i] * p[j];
    p[i] = sum;
  }
}

/* The rank-one update L D L^T + alpha z z^T, z being overwritten.  It
   stops short when a pivot turns negative or the ratio of the pivots
   would overflow: the rest of the factor is then left as it was. */
static void renorm(double *H, int ld, int n, double *z, double alpha)
{
  int i, j;
  for (i = 0; i < n; ++i) {
    const double dir = z[i];
    double beta = alpha * dir, gam = H[i * ld + i], gamn;
    H[i * ld + i] += beta * dir;
    gamn = H[i * ld + i];
    if (i + 1 >= n || gamn < 0 || (gamn < 1 && gam > DBL_MAX * gamn))
      return;
    gam /= gamn;
    beta /= gamn;
    alpha *= gam;
    /* Two forms of the same recurrence: the first is the stabler one
       when the pivot has grown a lot. */
    if (gam < .25)
      for (j = i + 1; j < n; ++j) {
        const double del = beta * z[j];
        z[j] -= dir * H[j * ld + i];
        H[j * ld + i] = H[j * ld + i] * gam + del;
      }
    else
      for (j = i + 1; j < n; ++j) {
        z[j] -= dir * H[j * ld + i];
        H[j * ld + i] += beta * z[j];
      }
  }
}

/* The rank-one downdate L D L^T - z z^T, p being scratch (and z
   overwritten).  The factor of what remains is found from the back, with
   the remaining fraction kept at least the machine's epsilon, so that the
   factor stays positive definite. */
static void downdate(double *H, int ld, int n, double *z, double *p)
{
  double gam = 0;
  int i, j;
  for (i = 0; i < n; ++i) {
    double sum = z[i];
    for (j = 0; j < i; ++j) sum -= H[i * ld + j] * p[j];
    p[i] = sum;
    gam += sum * sum / H[i * ld + i];
  }
  gam = fmax(fabs(1 - gam), MEPS);
  for (i = n - 1; i >= 0; --i) {
    const double dir = z[i] = p[i];
    double beta = dir / H[i * ld + i];
    const double gamn = gam + dir * beta;
    H[i * ld + i] *= gam / gamn;
    beta /= gam;
    gam = gamn;
    for (j = i + 1; j < n; ++j) {
      const double del = beta * z[j];
      z[j] += dir * H[j * ld + i];
      H[j * ld + i] -= del;
    }
  }
}

/* The BFGS update after a step dx along p, from gradient g to gnew: add
   y y^T / (dx y.p) with y = gnew - g, and remove g g^T / (-g.p), which is
   what B s s^T B / (s^T B s) becomes for s = dx p with B p = -g.  A step
   without enough curvature leaves the factor alone.  y, z and p are
   overwritten. */
static void bfgs(double *H, int ld, int n, const double *gnew,
                 const double *g, double *p, double dx, double *y,
                 double *z)
{
  double c;
  int i;
  for (i = 0; i < n; ++i) y[i] = gnew[i] - g[i];
  c = dx * dot(y, p, n);
  if (c < 1e-10) return;
  renorm(H, ld, n, y, 1 / c);
  c = dot(g, p, n);
  if (c >= 0) return;
  c = 1 / sqrt(-c);
  for (i = 0; i < n; ++i) z[i] = g[i] * c;
  downdate(H, ld, n, z, p);
}

/* ---- the line search */

typedef struct { double dx, f; } lpt;

/* Searches the line x0 + t p (over the free coordinates) for a minimum,
   t in 0..range, starting with t = step; grad is the slope at t = 0.  It
   keeps a bracket a..b and the three best points min, w, v, all with
   their distances relative to the best point so far, and steps by
   parabolas through them where these fall well inside the bracket, else
   by bisection or, while nothing brackets the minimum, by expansion.
   It stops when the bracket is narrow (ftol, relative to the distance
   travelled), when the line ends within xtol, or when the best point so
   far has a slope well below the start's (gtol: the minimum is close
   enough for a quasi-Newton step).  Then the best point must pass a test
   of sufficient decrease, else it is pulled back towards x0 (halving,
   then faster).  Returns the distance accepted (0: none) with the point
   in xout and its value in *fout. */
static double linesearch(const srch *s, const double *p, const double *x0,
                         double f0, double step, double range,
                         double grad, double ftol, double xtol,
                         double gtol, double *xout, double *fout)
{
  double tol = ftol, tol2 = 2 * ftol, e, mingrad, maxgrad;
  double end, maxstep, b1, distmin = 0;
  lpt min, v, w, a, b, cur;
  int first = 1, shift;

  if (!(step > 0 && range > 2 * ftol && grad <= 0)) {
    memcpy(xout, x0, (size_t)s->nd * sizeof(double));
    *fout = f0;
    return 0;
  }
  e = RTEPS * fabs(range) + ftol;
  mingrad = -1e-4 * grad;
  maxgrad = -gtol * grad;
  end = range + e;
  maxstep = range - e / (1 + RTEPS);
  min.dx = 0;
  min.f = f0;
  v = w = a = min;
  b.dx = end;
  b.f = 0;
  b1 = end;

  for (;;) {
    double mid, r = 0, q = 0, num = 0, a1;
    if (step >= maxstep) {
      /* At the end of the line: the limit creeps outwards, so that a
         minimum right at the end is still bracketed. */
      step = maxstep;
      maxstep = maxstep * (1 + .75 * RTEPS) + .75 * tol;
    }
    cur.dx = fabs(step) >= tol ? step : step > 0 ? tol : -tol;
    cur.f = along(s, x0, p, distmin + cur.dx, xout);
    if (cur.f <= min.f) {
      /* A new best point: everything is measured from it now. */
      v = w;
      w = min;
      min.f = cur.f;
      distmin += cur.dx;
      maxstep -= cur.dx;
      v.dx -= cur.dx;
      w.dx -= cur.dx;
      a.dx -= cur.dx;
      b.dx -= cur.dx;
      if (cur.dx < 0) b = w;
      else a = w;
      tol = RTEPS * fabs(distmin) + ftol;
      tol2 = 2 * tol;
    } else {
      if (cur.dx < 0) a = cur;
      else b = cur;
      if (cur.f <= w.f || w.dx == 0) {
        v = w;
        w = cur;
      } else if (cur.f <= v.f || v.dx == 0 || v.dx == w.dx)
        v = cur;
    }

    if (distmin + b.dx <= xtol) break;
    if (min.f < f0 && a.f - min.f <= fabs(a.dx) * maxgrad &&
        (fabs(distmin - range) > tol || maxstep < b.dx))
      break;
    mid = .5 * (a.dx + b.dx);
    if (fabs(mid) <= tol2 - .5 * (b.dx - a.dx)) break;
    if (s->d->neval > s->hard) break;

    /* The parabola through the best points (on the first pass, through
       the best point, the start's value and its slope): its minimum lies
       at num/q from the best point. */
    if (fabs(end) > tol) {
      double s1, s2;
      if (first) {
        s1 = w.dx * grad;
        s2 = w.f - min.f;
        num = (s1 - (distmin == 0 ? 0 : 2 * s2)) * w.dx;
      } else {
        s1 = w.dx * (v.f - min.f);
        s2 = v.dx * (w.f - min.f);
        num = s1 * w.dx - s2 * v.dx;
      }
      q = 2 * (s2 - s1);
      if (q > 0) num = -num;
      q = fabs(q);
      r = end;
      if (step != b1 || b.dx <= maxstep) end = step;
    }

    /* The fallback step: bisection while nothing better is known,
       expansion while the minimum is not bracketed, else a step into
       the larger part of the bracket that shrinks with its imbalance. */
    if (distmin == a.dx)
      step = mid;
    else if (b.dx > maxstep)
      step = step < b.dx ? -4 * a.dx : maxstep;
    else {
      double nu = a.dx, de = b.dx;
      if (fabs(b.dx) <= tol || (w.dx > 0 && fabs(a.dx) > tol)) {
        nu = b.dx;
        de = a.dx;
      }
      nu = -nu / de;
      step = nu < 1 ? .5 * de * sqrt(nu) : 5. / 11 * de * (.1 + 1 / nu);
    }

    /* The parabola's step is taken if it is smaller than half the step
       before last and lands between the fallback step and the far end;
       it is kept off the bracket's ends. */
    if (step > 0) {
      a1 = a.dx;
      b1 = step;
    } else {
      a1 = step;
      b1 = b.dx;
    }
    if (fabs(num) < fabs(.5 * q * r) && num > q * a1 && num < q * b1) {
      step = num / q;
      if (step - a.dx < tol2 || b.dx - step < tol2)
        step = mid > 0 ? tol : -tol;
    } else
      end = mid > 0 ? b.dx : a.dx;
    first = 0;
  }

  /* Acceptance: the point found must lower f by at least 10^-4 of what
     the start's slope promises; else try half, a quarter, a sixteenth,
     ... of the distance, until that is below ftol.  A best point at the
     line's end is put exactly on it. */
  first = 1;
  if (fabs(distmin - range) < tol) {
    distmin = range;
    if (maxstep > b.dx) first = 0;
  }
  cur.dx = distmin;
  cur.f = min.f;
  shift = -1;
  for (;;) {
    if (first) {
      int i;
      memcpy(xout, x0, (size_t)s->nd * sizeof(double));
      for (i = 0; i < s->nfree; ++i)
        xout[s->fr[i]] = x0[s->fr[i]] + cur.dx * p[i];
    } else
      cur.f = along(s, x0, p, cur.dx, xout);
    if (cur.dx + b.dx <= xtol) {
      cur.dx = 0;
      break;
    }
    if (f0 - cur.f > cur.dx * mingrad) break;
    if (cur.dx <= ftol) {
      cur.dx = 0;
      break;
    }
    first = 0;
    cur.dx = fmax(ldexp(distmin, shift), ftol);
    shift *= 2;
  }
  *fout = cur.f;
  return cur.dx;
}

/* ---- the local search of a flat start */

/* The largest distances along +p (*sp) and -p (*sn) from x that stay in
   the box, over the free coordinates with p nonzero. */
static void room(const srch *s, const double *x, const double *p,
                 double *sp, double *sn)
{
  double spmax = INFINITY, snmax = INFINITY;
  int i;
  for (i = 0; i < s->nfree; ++i) {
    const int k = s->fr[i];
    double up, dn;
    if (p[i] == 0) continue;
    up = (s->hi[k] - x[k]) / p[i];
    dn = (x[k] - s->lo[k]) / p[i];
    if (p[i] > 0) {
      spmax = fmin(spmax, up);
      snmax = fmin(snmax, dn);
    } else {
      spmax = fmin(spmax, -dn);
      snmax = fmin(snmax, -up);
    }
  }
  *sp = spmax;
  *sn = snmax;
}

/* Steps from x along p by RTDELTA, then 5 times as far each time, until
   the value changes appreciably or the distance reaches smax.  Returns
   the distance, with the point in y and its value in *fy. */
static double probe(const srch *s, const double *x, double fx,
                    const double *p, double smax, double *y, double *fy)
{
  const double ftest = SUFTOL * (1 + fabs(fx));
  double del = RTDELTA / 5;
  do {
    del = fmin(5 * del, smax);
    *fy = along(s, x, p, del, y);
  } while (!(fabs(*fy - fx) > ftest) && del != smax);
  return del;
}

/* At a start where the gradient is flat, looks around: first along the
   diagonal towards the farther faces, until the value changes; from
   there across the diagonal (signs alternating over the coordinates, so
   that the direction is orthogonal to it), with a line search along
   whichever way goes down; finally a line search along the line from x
   through the point reached, or backwards if that one goes up.  Returns
   the value at the point found, z. */
static double localsearch(const srch *s, const double *x, double fx,
                          double *p, double *y, double *z)
{
  const int nf = s->nfree;
  double smax = INFINITY, sopp, spmax, snmax, del, fy, fz, grad, range;
  double step, pe;
  int i, sign;

  for (i = 0; i < nf; ++i) {
    const int k = s->fr[i];
    double lim;
    if (s->hi[k] - x[k] < x[k] - s->lo[k]) {
      p[i] = -1;
      lim = x[k] - s->lo[k];
    } else {
      p[i] = 1;
      lim = s->hi[k] - x[k];
    }
    smax = fmin(smax, lim);
  }
  probe(s, x, fx, p, .9 * smax, y, &fy);

  /* Across the diagonal: with an odd number of coordinates the last two
     take half each, so that the components still sum to zero.  A single
     coordinate turns back if the diagonal went up. */
  sign = nf <= 1 && fy > fx ? 1 : -1;
  for (i = 0; i < nf; ++i) {
    if ((nf & 1) && nf - i <= 2) p[i] *= -.5 * sign;
    else {
      sign = -sign;
      p[i] *= sign;
    }
  }
  room(s, y, p, &spmax, &snmax);
  smax = .9 * spmax;
  sopp = .9 * snmax;
  /* Go the way with more room (the comparison is Cuba's, of a reduced
     with a full length). */
  if (nf > 1 && smax < snmax) {
    const double t = smax;
    smax = sopp;
    sopp = t;
    for (i = 0; i < nf; ++i) p[i] = -p[i];
  }
  del = probe(s, y, fy, p, smax, z, &fz);

  if (fy != fz) {
    if (fy > fz) {
      grad = (fz - fy) / del;
      range = smax / .9;
      step = fmin(2 * del, smax);
    } else {
      /* Uphill: search the other way, from the probe through y. */
      grad = (fy - fz) / del;
      range = sopp / .9 + del;
      step = fmin(2 * del, sopp);
      memcpy(y, z, (size_t)s->nd * sizeof(double));
      fy = fz;
      for (i = 0; i < nf; ++i) p[i] = -p[i];
    }
    linesearch(s, p, y, fy, step, range, grad,
               RTEPS / (norm(p, nf) + RTEPS), 0, RTEPS, z, &fz);
  }

  if (fz != fx) {
    /* Along the line from x through what was found (its slope the
       secant's), or backwards if a small step back goes down. */
    for (i = 0; i < nf; ++i) p[i] = z[s->fr[i]] - x[s->fr[i]];
    pe = norm(p, nf);
    if (!(pe > 0)) return fz;
    room(s, x, p, &spmax, &snmax);
    pe += RTEPS;
    grad = fz - fx;
    range = spmax;
    step = fmin(.9 * spmax, 2);
    if (fz > fx) {
      del = fmin(.9 * snmax, RTDELTA / pe);
      fz = along(s, x, p, -del, z);
      if (fz < fx) {
        grad = (fz - fx) / del;
        range = snmax;
        step = fmin(.9 * snmax, 2 * del);
        for (i = 0; i < nf; ++i) p[i] = -p[i];
      } else if (del < 1)
        grad = (fx - fz) / del;
    }
    linesearch(s, p, x, fx, step, range, grad, RTEPS / pe, 0, RTEPS, z,
               &fz);
  }
  return fz;
}

/* ---- the bounds */

/* Splits the coordinates into free ones and ones on a face (put exactly
   on it).  Returns whether any was put on a face. */
static int classify(srch *s, double *x)
{
  int k, moved = 0;
  s->nfree = s->nfix = 0;
  for (k = 0; k < s->nd; ++k) {
    const double l = s->lo[k], u = s->hi[k];
    if (x[k] < l + (1 + fabs(l)) * QEPS) {
      x[k] = l;
      s->fix[s->nfix] = k;
      s->side[s->nfix++] = LOW;
      moved = 1;
    } else if (x[k] > u - (1 + fabs(u)) * QEPS) {
      x[k] = u;
      s->fix[s->nfix] = k;
      s->side[s->nfix++] = HIGH;
      moved = 1;
    } else
      s->fr[s->nfree++] = k;
  }
  return moved;
}

/* Fixes the free coordinate at position m on a face: it leaves the free
   list and the factor loses its row.  The rows below move up without
   their columns moving left (as in Cuba), and the removed row's pivot
   and column come back as a rank-one update. */
static void fixbound(srch *s, double *H, double *g, double *z, int m,
                     int k, int side)
{
  const int ld = s->nd;
  int i, j;
  s->fix[s->nfix] = k;
  s->side[s->nfix++] = side;
  --s->nfree;
  if (m < s->nfree) {
    const double diag = H[m * ld + m];
    for (i = 0; i < m; ++i) z[i] = 0;
    for (i = m; i < s->nfree; ++i) z[i] = H[(i + 1) * ld + m];
    for (i = m; i < s->nfree; ++i) {
      for (j = 0; j < i; ++j) H[i * ld + j] = H[(i + 1) * ld + j];
      H[i * ld + i] = H[(i + 1) * ld + i + 1];
    }
    renorm(H, ld, s->nfree, z, diag);
    for (i = m; i < s->nfree; ++i) {
      s->fr[i] = s->fr[i + 1];
      g[i] = g[i + 1];
    }
  }
}

/* Releases the fixed coordinate whose gradient points most steeply into
   the box (if one does, by more than RTEPS): it joins the free ones with
   a unit row in the factor.  Returns whether one was released. */
static int release(srch *s, double *H, double *g, double *x, double f,
                   double *t)
{
  const int ld = s->nd;
  double best = -RTEPS;
  int i, j, ibest = -1;
  if (s->nfix == 0) return 0;
  gradient(s, s->fix, s->nfix, x, f, t);
  for (i = 0; i < s->nfix; ++i) {
    const double gi = s->side[i] == LOW ? t[i] : -t[i];
    if (gi < best) {
      best = gi;
      ibest = i;
    }
  }
  if (ibest < 0) return 0;
  i = s->nfree++;
  s->fr[i] = s->fix[ibest];
  g[i] = t[ibest];
  for (j = 0; j < i; ++j) H[i * ld + j] = 0;
  H[i * ld + i] = 1;
  for (j = ibest + 1; j < s->nfix; ++j) {
    s->fix[j - 1] = s->fix[j];
    s->side[j - 1] = s->side[j];
  }
  --s->nfix;
  return 1;
}

/* ---- the search */

double gcuba_divonne_minimum(divonne *d, const double *lo, const double *hi,
                             double *x, double fx)
{
  const int nd = d->ndim;
  const long long budget = d->neval + 50LL * nd;
  const double f0 = fx;
  double *mem, *H, *g, *gn, *p, *y, *z, *xn, *x0, *pl, *t;
  double fbest = fx, fini = fx;
  int *imem, local, skip = 0;
  srch s;
  size_t i;

  /* A start at -inf cannot be beaten, nor one at NaN searched from. */
  if (!(fabs(fx) <= DBL_MAX)) return fx;
  /* The factor needs ndim^2 numbers: heap memory, kept for the call
     (a failed evaluation longjmps out of the search); without it the
     start stands as the minimum. */
  if (!d->xmem)
    d->xmem = (double *)malloc(((size_t)nd * nd + 12 * (size_t)nd) *
                               sizeof(double));
  if (!(mem = d->xmem)) return fx;
  imem = (int *)(mem + (size_t)nd * nd + 10 * (size_t)nd);
  H = mem;
  g = H + (size_t)nd * nd;
  gn = g + nd;
  p = gn + nd;
  y = p + nd;
  z = y + nd;
  xn = z + nd;
  x0 = xn + nd;
  pl = x0 + nd;
  t = pl + nd; /* two vectors: the release's gradient and scratch */
  s.d = d;
  s.lo = lo;
  s.hi = hi;
  s.nd = nd;
  s.fr = imem;
  s.fix = imem + nd;
  s.side = imem + 2 * nd;
  s.hard = budget + 50LL * nd;
  memcpy(x0, x, (size_t)nd * sizeof(double));
  for (i = 0; i < (size_t)nd * nd; ++i) H[i] = 0;
  for (i = 0; i < (size_t)nd; ++i) H[i * nd + i] = 1;

  /* The start: coordinates on the faces are held there, and a flat
     gradient gets a local search (once) before the quasi-Newton
     iteration. */
  for (local = 0; local < 2; ++local) {
    double fz;
    if (classify(&s, x)) fini = fbest = value(d, x);
    if (s.nfree == 0) {
      skip = 1;
      break;
    }
    gradient(&s, s.fr, s.nfree, x, fbest, g);
    if (local == 1 || norm(g, s.nfree) > GTOL) break;
    fz = localsearch(&s, x, fbest, pl, y, xn);
    if (fz > fbest - (1 + fabs(fbest)) * RTEPS) {
      skip = 1;
      break;
    }
    fbest = fz;
    memcpy(x, xn, (size_t)nd * sizeof(double));
  }

  /* The quasi-Newton iteration.  skip: the start went straight to the
     release of a bound. */
  for (;;) {
    if (!skip) {
      const int nf = s.nfree;
      if (d->neval > budget) break;
      if (nf > 0) {
        double plen, pe, minstep = INFINITY, dx, fnew;
        int j, mini = -1, mink = 0, minside = LOW;
        solve(H, nd, nf, g, p);
        plen = norm(p, nf);
        pe = plen + RTEPS;
        /* The nearest face along p: the step to it, which coordinate
           meets it and on which side. */
        for (j = 0; j < nf; ++j) {
          const int k = s.fr[j];
          double st;
          if (!(fabs(p[j]) > MEPS)) continue;
          st = p[j] < 0 ? (lo[k] - x[k]) / p[j] : (hi[k] - x[k]) / p[j];
          if (st < minstep) {
            minstep = st;
            mini = j;
            mink = k;
            minside = p[j] < 0 ? LOW : HIGH;
          }
        }
        if (minstep * pe <= DELTA) {
          /* Already at that face: fix the coordinate there. */
          fixbound(&s, H, g, z, mini, mink, minside);
          continue;
        }
        dx = linesearch(&s, p, x, fbest, fmin(minstep, 1),
                        fmin(minstep, 100), dot(g, p, nf), RTEPS / pe,
                        DELTA / pe, .2, xn, &fnew);
        if (dx > 0) {
          double fdiff;
          fbest = fnew;
          memcpy(x, xn, (size_t)nd * sizeof(double));
          gradient(&s, s.fr, nf, x, fbest, gn);
          bfgs(H, nd, nf, gn, g, p, dx, y, z);
          memcpy(g, gn, (size_t)nf * sizeof(double));
          if (fabs(dx - minstep) < QEPS * minstep) {
            /* The step ended on the face. */
            fixbound(&s, H, g, z, mini, mink, minside);
            continue;
          }
          fdiff = fini - fbest;
          fini = fbest;
          if (fdiff > (1 + fabs(fbest)) * FTOL ||
              dx * plen > (1 + norm(x, nd)) * FTOL)
            continue;
        }
      }
    }
    skip = 0;
    /* Converged or stalled on the free coordinates: go on if a fixed
       one can do better inside the box. */
    if (release(&s, H, g, x, fbest, t)) continue;
    break;
  }

  if (!(fbest <= f0)) {
    memcpy(x, x0, (size_t)nd * sizeof(double));
    fbest = f0;
  }
  return fbest;
}
