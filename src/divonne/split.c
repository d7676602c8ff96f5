/* src/divonne/split.c -- gDivonne's partition: a region's exploration
   (its sampling, its extrema, its spread = half its volume times the
   difference of the extrema), where to cut it, and the recursion over
   its pieces.

   The cuts centre on the region's major extremum (the one further from
   the region's average value): on each axis, on each side with room,
   a plane at the distance where the integrand has fallen to a level L,
   so that the box around the extremum keeps the part of the range that
   its volume is entitled to: with gamma the box's share of the region's
   volume, L = fmajor - (1 - gamma) (fmajor - fminor).  Sides whose value
   at half the distance to the face is still beyond L are not cut.  The
   distances come from a few secant steps on each axis, gamma and L
   following them.  The region becomes the central box and one slab per
   cut, each slab spanning the axes cut before it.  A region without any
   such side is bisected on the axis with the largest second difference
   through its centre.  A cut that lands far past the level is at a jump:
   bisection finds it, and the cut moves there when the jump is a plane.

   After the pieces are explored, each region that was cut compares its
   own estimate with the sum of its pieces' and spreads the difference
   over them, enlarging their spreads and errors (Cuba does the same).
   This file is part of gcuba. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "divonne/divonne_int.h"

#define BNDTOL .05  /* a side is cut only with 5% of the width of room */
#define GAMMATOL .1 /* the secant steps stop when gamma moves less */
#define NSWEEP 4
/* a cut whose value is nearer the minor extremum than JUMPFRAC of the
   way to the level is taken for a jump: NJUMP bisection steps */
#define JUMPFRAC .5
#define NJUMP 6

/* a region outside the list, zeroed; longjmps on no memory */
static dreg *region_alloc(divonne *d)
{
  const int nd = d->ndim, nc = d->ncomp;
  const size_t nbytes = sizeof(dreg) +
      sizeof(double) * (2 * (size_t)nd + 8 * (size_t)nc +
                        2 * (size_t)nc * nd);
  dreg *r = (dreg *)calloc(1, nbytes);
  double *p;
  if (!r) {
    if (!d->worker)
      d->fail = gcuba_fail(d->c, GCUBA_FAIL_NOMEM, "gDivonne's regions");
    longjmp(d->abort, 1);
  }
  p = (double *)(r + 1);
  r->lo = p;
  r->hi = p += nd;
  r->avg = p += nd;
  r->err = p += nc;
  r->spread = p += nc;
  r->fmin = p += nc;
  r->fmax = p += nc;
  r->chisq = p += nc;
  r->csum = p += nc;
  r->csq = p += nc;
  r->xext = p + nc;
  return r;
}

/* room in the list for n more regions; longjmps on no memory */
static void room(divonne *d, long long n)
{
  long long cap = d->cap ? d->cap : 128;
  dreg **v;
  if (d->nreg + n <= d->cap) return;
  while (cap < d->nreg + n) cap *= 2;
  v = (dreg **)realloc(d->reg, (size_t)cap * sizeof *v);
  if (!v) {
    d->fail = gcuba_fail(d->c, GCUBA_FAIL_NOMEM, "gDivonne's regions");
    longjmp(d->abort, 1);
  }
  d->reg = v;
  d->cap = cap;
}

/* region r (not in the list) appended to it (room made), its serial
   number the next */
static dreg *append(divonne *d, dreg *r)
{
  r->serial = d->nserial++;
  d->reg[d->nreg++] = r;
  return r;
}

dreg *gcuba_divonne_region_new(divonne *d)
{
  room(d, 1);
  return append(d, region_alloc(d));
}

/* the extrema of the points x[n] (values f) inside r, into fmn, xmn, fmx,
   xmx
   per component */
static void extrema(const divonne *d, const dreg *r, const double *x,
                    const double *f, long long n, int stride, double *fmn,
                    double *fmx, const double **xmn, const double **xmx)
{
  const int nd = d->ndim, nc = d->ncomp;
  long long i;
  int j, cc;
  for (i = 0; i < n; ++i, x += stride, f += nc) {
    for (j = 0; j < nd; ++j)
      if (x[j] < r->lo[j] || x[j] > r->hi[j]) break;
    if (j < nd) continue;
    for (cc = 0; cc < nc; ++cc) {
      if (f[cc] < fmn[cc]) fmn[cc] = f[cc], xmn[cc] = x;
      if (f[cc] > fmx[cc]) fmx[cc] = f[cc], xmx[cc] = x;
    }
  }
}

static void split(divonne *d, long long i);

/* explore's first part: region r's sampling (unless sampled), extrema,
   spread and cut component */
static void look(divonne *d, dreg *r, int sampled)
{
  const int nd = d->ndim, nc = d->ncomp;
  double fmn[GCUBA_MAXCOMP], fmx[GCUBA_MAXCOMP], halfvol, worst = -1;
  const double *xmn[GCUBA_MAXCOMP], *xmx[GCUBA_MAXCOMP];
  double xt[GCUBA_MAXDIM];
  int cc, j;
  for (cc = 0; cc < nc; ++cc) {
    fmn[cc] = INFINITY;
    fmx[cc] = -INFINITY;
    xmn[cc] = xmx[cc] = NULL;
  }
  if (!sampled) {
    double vol = 1;
    for (j = 0; j < nd; ++j) vol *= r->hi[j] - r->lo[j];
    r->vol = vol;
    for (cc = 0; cc < nc; ++cc) {
      r->fmin[cc] = INFINITY;
      r->fmax[cc] = -INFINITY;
    }
    if (d->ngiven)
      extrema(d, r, d->xgiven, d->fgiven, d->ngiven, nd, fmn, fmx, xmn,
              xmx);
    if (d->c->nextra && d->c->peakfinder) {
      /* the peak finder's points in this region */
      double b[2 * GCUBA_MAXDIM];
      int m = (int)d->c->nextra;
      for (j = 0; j < nd; ++j) {
        b[2 * j] = r->lo[j];
        b[2 * j + 1] = r->hi[j];
      }
      d->c->peakfinder(&d->ndim, b, &m, d->xextra, d->c->ud.p);
      if (m > d->c->nextra) m = (int)d->c->nextra;
      if (m > 0) {
        const int ph = d->phase;
        d->phase = 0;
        gcuba_divonne_eval(d, m, d->xextra, d->fextra);
        d->phase = ph;
        extrema(d, r, d->xextra, d->fextra, m, nd, fmn, fmx, xmn, xmx);
      }
    }
    gcuba_divonne_sample(d, r, r->isamp);
  }
  if (d->ext)
    /* the executor made the copies: their extrema */
    for (cc = 0; cc < nc; ++cc) {
      xmn[cc] = d->sx + (size_t)2 * cc * nd;
      xmx[cc] = xmn[cc] + nd;
      fmn[cc] = DIV_CEXT(d)[2 * cc];
      fmx[cc] = DIV_CEXT(d)[2 * cc + 1];
    }
  else
    extrema(d, r, d->sx, d->sf, d->samp[r->isamp].n, nd, fmn, fmx, xmn,
            xmx);
  halfvol = .5 * r->vol;
  r->cutcomp = 0;
  for (cc = 0; cc < nc; ++cc) {
    double e;
    if (xmn[cc]) {
      d->selcomp = cc;
      d->selsign = 1;
      memcpy(xt, xmn[cc], (size_t)nd * sizeof(double));
      e = gcuba_divonne_minimum(d, r->lo, r->hi, xt, fmn[cc]);
      if (e < r->fmin[cc]) {
        r->fmin[cc] = e;
        memcpy(r->xext + (size_t)2 * cc * nd, xt, (size_t)nd * sizeof(double));
      }
      d->selsign = -1;
      memcpy(xt, xmx[cc], (size_t)nd * sizeof(double));
      e = -gcuba_divonne_minimum(d, r->lo, r->hi, xt, -fmx[cc]);
      if (e > r->fmax[cc]) {
        r->fmax[cc] = e;
        memcpy(r->xext + (size_t)(2 * cc + 1) * nd, xt,
               (size_t)nd * sizeof(double));
      }
    }
    r->spread[cc] = halfvol * (r->fmax[cc] - r->fmin[cc]);
    e = r->spread[cc] / fmax(fabs(r->avg[cc]), 0x1p-104);
    if (e > worst) {
      worst = e;
      r->cutcomp = cc;
    }
  }
  cc = r->cutcomp;
  if (halfvol * (r->fmin[cc] + r->fmax[cc]) > r->avg[cc]) {
    r->fminor = r->fmin[cc];
    r->fmajor = r->fmax[cc];
    r->major = 2 * cc + 1;
  } else {
    r->fminor = r->fmax[cc];
    r->fmajor = r->fmin[cc];
    r->major = 2 * cc;
  }
}

void gcuba_divonne_look(divonne *d, dreg *r)
{
  look(d, r, 0);
}

int gcuba_divonne_explore(divonne *d, long long i, int sampled)
{
  dreg *r = d->reg[i];
  const int nc = d->ncomp;
  long long made;
  int cc, j;
  gcuba_divonne_spec_free(r); /* (its extrema change) */
  if (!sampled && r->pre) {
    /* explored ahead (look.c) */
    made = r->pre - 1;
    r->pre = 0;
    d->neval += made;
  } else {
    const long long n0 = d->neval;
    look(d, r, sampled);
    made = d->neval - n0;
  }
  d->neval_opt += made - (sampled ? 0 : d->samp[r->isamp].n);
  cc = r->cutcomp;
  if (!sampled) {
    if ((r->depth < DIV_INIDEPTH &&
         r->spread[cc] < (double)d->samp[r->isamp].neff * r->err[cc]) ||
        r->spread[cc] < d->tot[cc].secondspread)
      r->depth = 0;
    if (r->depth == 0)
      for (j = 0; j < nc; ++j)
        if (r->spread[j] > d->tot[j].secondspread)
          d->tot[j].secondspread = r->spread[j];
  }
  if (r->depth > 0) split(d, i);
  return 0;
}

/* ---- the cuts */

typedef struct cut {
  int dim, up;        /* axis, and whether on the upper side */
  double room;        /* from the extremum to the face */
  double delta, f;    /* the cut's distance and the value there */
} cut;

static double cut_value(divonne *d, double *x, const cut *k, double delta)
{
  const double save = x[k->dim];
  double v;
  x[k->dim] = save + (k->up ? delta : -delta);
  v = gcuba_divonne_point(d, x);
  x[k->dim] = save;
  return v;
}

/* the central box's share of r's volume, the cuts at their distances */
static double gamma_of(const divonne *d, const dreg *r, const double *x,
                       const cut *k, int nk)
{
  double lo[GCUBA_MAXDIM], hi[GCUBA_MAXDIM], g = 1;
  int j;
  memcpy(lo, r->lo, (size_t)d->ndim * sizeof(double));
  memcpy(hi, r->hi, (size_t)d->ndim * sizeof(double));
  for (j = 0; j < nk; ++j)
    if (k[j].up) hi[k[j].dim] = x[k[j].dim] + k[j].delta;
    else lo[k[j].dim] = x[k[j].dim] - k[j].delta;
  for (j = 0; j < d->ndim; ++j) g *= (hi[j] - lo[j]) / (r->hi[j] - r->lo[j]);
  return g;
}

/* bisection on the axis with the largest second difference through the
   centre (round robin when the integrand is flat there) */
static int bisect(divonne *d, dreg *r, cut *k)
{
  double xm[GCUBA_MAXDIM], ym, best = 0;
  int j, dim = -1;
  for (j = 0; j < d->ndim; ++j) xm[j] = .5 * (r->lo[j] + r->hi[j]);
  ym = gcuba_divonne_point(d, xm);
  for (j = 0; j < d->ndim; ++j) {
    const double save = xm[j];
    double a, b, dev;
    xm[j] = r->lo[j];
    a = gcuba_divonne_point(d, xm);
    xm[j] = r->hi[j];
    b = gcuba_divonne_point(d, xm);
    xm[j] = save;
    dev = fabs(ym - .5 * (a + b));
    if (dev >= best && dev > 0) {
      best = dev;
      dim = j;
    }
  }
  if (dim < 0) {
    /* (the call's counter: a cut worked out ahead cannot know it) */
    if (d->worker) longjmp(d->abort, 1);
    dim = d->rr++ % d->ndim;
  }
  k->dim = dim;
  k->up = 1;
  k->room = r->hi[dim] - xm[dim];
  k->delta = 0;
  k->f = 0;
  /* the cut as a central box [lo, mid] and one slab */
  return -1 - dim;
}

/* whether the value's jump between distances a and b of cut c from xc
   is there too a quarter of the region's width away along the other
   axes, tried on the two widest: a plane (Genz's discontinuous family),
   not a curved edge */
static int planar(divonne *d, const dreg *r, const double *xc,
                  const cut *c, double a, double b)
{
  double y[GCUBA_MAXDIM];
  int tried[2] = {-1, -1}, t, i;
  for (t = 0; t < 2; ++t) {
    double wbest = 0;
    for (i = 0; i < d->ndim; ++i) {
      const double w = r->hi[i] - r->lo[i];
      if (i != c->dim && i != tried[0] && w > wbest) {
        wbest = w;
        tried[t] = i;
      }
    }
    if (tried[t] < 0) break;
    i = tried[t];
    memcpy(y, xc, (size_t)d->ndim * sizeof(double));
    y[i] += (r->hi[i] - xc[i] > xc[i] - r->lo[i] ? .25 : -.25) * wbest;
    if (cut_value(d, y, c, a) != cut_value(d, y, c, b)) return 1;
  }
  return 0;
}

/* the cuts of region r around its major extremum into k; returns their
   number, or -1 - axis for a bisection */
static int find_cuts(divonne *d, dreg *r, cut *k)
{
  const int nd = d->ndim;
  double *x = r->xext + (size_t)r->major * nd;
  const double fmajor = r->fmajor, fdiff = r->fmajor - r->fminor;
  const double sign = fdiff < 0 ? -1 : 1;
  double xc[GCUBA_MAXDIM], gamma, level;
  int nk = 0, j, side, sweep;
  memcpy(xc, x, (size_t)nd * sizeof(double));
  for (side = 1; side >= 0; --side)
    for (j = 0; j < nd; ++j) {
      const double room = side ? r->hi[j] - xc[j] : xc[j] - r->lo[j];
      if (room >= BNDTOL * (r->hi[j] - r->lo[j])) {
        cut *c = &k[nk++];
        c->dim = j;
        c->up = side;
        c->room = room;
        c->delta = .5 * room;
        c->f = cut_value(d, xc, c, c->delta);
      }
    }
  /* drop the sides that have not fallen to the level yet (the one
     closest to fmajor first) */
  for (;;) {
    int m = -1;
    double best = INFINITY;
    if (nk == 0) return bisect(d, r, k);
    for (j = 0; j < nk; ++j)
      if (fabs(fmajor - k[j].f) <= best) {
        best = fabs(fmajor - k[j].f);
        m = j;
      }
    gamma = gamma_of(d, r, xc, k, nk);
    level = fmajor + (gamma - 1) * fdiff;
    if (sign * (k[m].f - level) < 0) break;
    memmove(&k[m], &k[m + 1], (size_t)(nk - m - 1) * sizeof *k);
    --nk;
  }
  /* secant steps: each cut to where the value meets the level */
  for (sweep = 0; sweep < NSWEEP; ++sweep) {
    double gnew;
    for (j = 0; j < nk; ++j) {
      cut *c = &k[j];
      const double den = fmajor - c->f;
      double t;
      if (den == 0) continue;
      t = c->delta * (fmajor - level) / den;
      if (t < .25 * c->delta) t = .25 * c->delta;
      if (t > c->delta + .5 * (c->room - c->delta))
        t = c->delta + .5 * (c->room - c->delta);
      if (t == c->delta) continue;
      c->delta = t;
      c->f = cut_value(d, xc, c, t);
    }
    gnew = gamma_of(d, r, xc, k, nk);
    level = fmajor + (gnew - 1) * fdiff;
    if (fabs(gnew - gamma) < GAMMATOL * gamma) break;
    gamma = gnew;
  }
  /* a cut whose value has fallen far past the level is at or beyond a
     jump, which the secant steps approach only slowly: bisection for
     where the value crosses the level, kept when the jump is a plane
     (planar: Genz's discontinuous family, 5, 8, 10 dimensions: 13, 5, 1
     claims of 20 without, one 4 errors off, 17, 12, 10 with, none); a
     curved edge, Cuba's demo's ball, is better left to the secant's cut
     (the ball's 23 regions became 50, and converged for 0 seeds of 20
     at maxeval 50,000 against 20 of 20) */
  for (j = 0; j < nk; ++j) {
    cut *c = &k[j];
    double a = 0, b = c->delta, fb = c->f;
    int step;
    if (!(sign * (c->f - r->fminor) < JUMPFRAC * sign * (level - r->fminor)))
      continue;
    for (step = 0; step < NJUMP; ++step) {
      const double m = .5 * (a + b), fm = cut_value(d, xc, c, m);
      if (sign * (fm - level) > 0) a = m;
      else {
        b = m;
        fb = fm;
      }
    }
    if (!planar(d, r, xc, c, a, b)) continue;
    c->delta = b;
    c->f = fb;
  }
  return nk;
}

/* the pieces of region r by its cuts k (nk of them, < 0 a bisection):
   their boxes into lo, hi ([nk + 1][ndim]); returns their number, the
   central box first, then one slab beyond each cut, spanning the axes
   cut before it */
static int boxes(const divonne *d, const dreg *r, int nk, const cut *k,
                 double *plo, double *phi)
{
  const int nd = d->ndim;
  const size_t row = (size_t)nd * sizeof(double);
  double lo[GCUBA_MAXDIM], hi[GCUBA_MAXDIM];
  int j, a;
  memcpy(lo, r->lo, row);
  memcpy(hi, r->hi, row);
  if (nk < 0) {
    /* a bisection: [lo, mid] and [mid, hi] on the axis */
    a = -1 - nk;
    hi[a] = .5 * (r->lo[a] + r->hi[a]);
    memcpy(plo, lo, row);
    memcpy(phi, hi, row);
    memcpy(plo + nd, lo, row);
    memcpy(phi + nd, hi, row);
    plo[nd + a] = hi[a];
    phi[nd + a] = r->hi[a];
    return 2;
  }
  for (j = 0; j < nk; ++j)
    if (k[j].up) hi[k[j].dim] = r->xext[(size_t)r->major * nd + k[j].dim] +
                                k[j].delta;
    else lo[k[j].dim] = r->xext[(size_t)r->major * nd + k[j].dim] -
                        k[j].delta;
  memcpy(plo, lo, row);
  memcpy(phi, hi, row);
  for (j = 0; j < nk; ++j) {
    double *l = plo + (size_t)(j + 1) * nd, *h = phi + (size_t)(j + 1) * nd;
    a = k[j].dim;
    memcpy(l, lo, row);
    memcpy(h, hi, row);
    if (k[j].up) {
      l[a] = hi[a];
      h[a] = r->hi[a];
      hi[a] = r->hi[a]; /* the next slabs span this axis whole */
    } else {
      h[a] = lo[a];
      l[a] = r->lo[a];
      lo[a] = r->lo[a];
    }
  }
  return nk + 1;
}

/* a region's cut worked out ahead (gcuba_divonne_speculate): its pieces,
   explored (pre set), and the evaluations its cuts took */
struct dspec {
  int np;
  long long ncut;
  dreg *piece[]; /* [2 ndim + 1] */
};

/* the pieces' boxes' scratch: lo and hi of 2 ndim + 1 pieces (kept for
   the call); longjmps on no memory */
static double *box_room(divonne *d)
{
  if (!d->pbox) {
    d->pbox = (double *)malloc(sizeof(double) * 2 *
                               (2 * (size_t)d->ndim + 1) * d->ndim);
    if (!d->pbox) {
      if (!d->worker)
        d->fail = gcuba_fail(d->c, GCUBA_FAIL_NOMEM, "gDivonne's pieces");
      longjmp(d->abort, 1);
    }
  }
  return d->pbox;
}

void gcuba_divonne_spec_free(dreg *r)
{
  dspec *sp = r->spec;
  int j;
  if (!sp) return;
  for (j = 0; j < sp->np; ++j) free(sp->piece[j]);
  free(sp);
  r->spec = NULL;
}

void gcuba_divonne_speculate(divonne *d, dreg *r)
{
  cut k[2 * GCUBA_MAXDIM];
  const int nd = d->ndim;
  double *lo = box_room(d), *hi = lo + (2 * (size_t)nd + 1) * nd;
  dspec *sp = (dspec *)calloc(1, sizeof *sp + (2 * (size_t)nd + 1) *
                                                  sizeof(dreg *));
  int nk, n, j;
  if (!sp) return;
  r->spec = sp; /* (freed by the caller if this longjmps) */
  d->neval = 0;
  d->selcomp = r->cutcomp;
  d->selsign = 1;
  nk = find_cuts(d, r, k);
  sp->ncut = d->neval;
  n = boxes(d, r, nk, k, lo, hi);
  for (j = 0; j < n; ++j) {
    dreg *p = region_alloc(d);
    sp->piece[sp->np++] = p;
    memcpy(p->lo, lo + (size_t)j * nd, (size_t)nd * sizeof(double));
    memcpy(p->hi, hi + (size_t)j * nd, (size_t)nd * sizeof(double));
    d->neval = 0;
    look(d, p, 0);
    p->pre = 1 + d->neval;
  }
}

/* cuts region i into pieces appended to the list; i becomes their
   parent (depth -npieces, child the first piece) */
static void split(divonne *d, long long i)
{
  const int nd = d->ndim;
  cut k[2 * GCUBA_MAXDIM];
  double *lo = box_room(d), *hi = lo + (2 * (size_t)nd + 1) * nd;
  dreg *r = d->reg[i];
  dspec *sp = r->spec;
  int n = 0, j, depth;
  long long first;
  if (sp) {
    /* worked out ahead (look.c): its pieces are taken as they are */
    r->spec = NULL;
    ++d->nspec_taken;
    n = sp->np;
    d->neval += sp->ncut;
    d->neval_cut += sp->ncut;
  } else {
    const long long n0 = d->neval;
    d->selcomp = r->cutcomp;
    d->selsign = 1;
    n = boxes(d, r, find_cuts(d, r, k), k, lo, hi);
    d->neval_cut += d->neval - n0;
  }
  room(d, n);
  depth = r->depth - (n - 1);
  first = d->nreg;
  for (j = 0; j < n; ++j) {
    dreg *p;
    if (sp) p = append(d, sp->piece[j]);
    else {
      p = append(d, region_alloc(d));
      memcpy(p->lo, lo + (size_t)j * nd, (size_t)nd * sizeof(double));
      memcpy(p->hi, hi + (size_t)j * nd, (size_t)nd * sizeof(double));
    }
    /* the central box and the first slab alike, each further slab one
       more */
    p->depth = (depth > 0 ? depth : 0) + 1;
    if (j > 0) ++depth;
  }
  free(sp);
  r = d->reg[i];
  r->depth = -n;
  r->child = first;
}

/* ---- the recursion */

/* the leaves below parent q: their count, and sums into the arrays */
static long long leaves(divonne *d, long long q, double *avg, double *err,
                        double *ssq)
{
  const dreg *r = d->reg[q];
  long long n = 0, j;
  int cc;
  for (j = r->child; j < r->child - r->depth; ++j) {
    const dreg *s = d->reg[j];
    if (s->depth < 0) n += leaves(d, j, avg, err, ssq);
    else {
      ++n;
      for (cc = 0; cc < d->ncomp; ++cc) {
        avg[cc] += s->avg[cc];
        err[cc] += s->err[cc];
        ssq[cc] += s->spread[cc] * s->spread[cc];
      }
    }
  }
  return n;
}

static void correct(divonne *d, long long q, const double *cavg,
                    const double *ferr, const double *fspr, double *ssq)
{
  const dreg *r = d->reg[q];
  long long j;
  int cc;
  for (j = r->child; j < r->child - r->depth; ++j) {
    dreg *s = d->reg[j];
    if (s->depth < 0) correct(d, j, cavg, ferr, fspr, ssq);
    else {
      const double neff = (double)d->samp[s->isamp].neff;
      for (cc = 0; cc < d->ncomp; ++cc) {
        if (s->err[cc] > 0) s->err[cc] = s->err[cc] * ferr[cc] + cavg[cc];
        s->spread[cc] = s->spread[cc] * fspr[cc] + cavg[cc] * neff;
        ssq[cc] += s->spread[cc] * s->spread[cc];
      }
    }
  }
}

void gcuba_divonne_iterate(divonne *d, long long i, int depth, int isamp,
                           dtot *tot)
{
  const int nc = d->ncomp;
  double avg[GCUBA_MAXCOMP], err[GCUBA_MAXCOMP], ssq[GCUBA_MAXCOMP];
  double ferr[GCUBA_MAXCOMP], fspr[GCUBA_MAXCOMP];
  const long long first = d->nreg;
  long long j, k;
  int cc;
  d->reg[i]->depth = depth;
  if (isamp < 0) split(d, i);
  else {
    d->reg[i]->isamp = isamp;
    gcuba_divonne_explore(d, i, isamp != 0);
  }
  /* the pieces, and theirs, in the order made */
  for (j = first; j < d->nreg; ++j) {
    dreg *r = d->reg[j];
    r->isamp = 0;
    if (r->depth > 0) {
      --r->depth;
      if (d->neval >= d->limit && r->depth > 0) {
        r->depth = 0;
        ++d->nlimited;
      }
      if (!r->pre) gcuba_divonne_look_ahead(d, j);
      gcuba_divonne_explore(d, j, 0);
    }
  }
  /* each parent, the last made first, corrects its leaves */
  for (cc = 0; cc < nc; ++cc) ssq[cc] = 0;
  for (j = d->nreg - 1; j >= first - 1; --j) {
    const long long q = j == first - 1 ? i : j;
    long long n;
    if (d->reg[q]->depth >= 0) continue;
    for (cc = 0; cc < nc; ++cc) avg[cc] = err[cc] = ssq[cc] = 0;
    n = leaves(d, q, avg, err, ssq);
    for (cc = 0; cc < nc; ++cc) {
      const double diff = fabs(d->reg[q]->avg[cc] - avg[cc]) / (double)n;
      const double c = diff * (double)(n - 1) / (double)n;
      ferr[cc] = err[cc] == 0 ? 1 : 1 + diff / err[cc];
      fspr[cc] = ssq[cc] == 0 ? 1 : 1 + diff / sqrt(ssq[cc]);
      avg[cc] = c;
      ssq[cc] = 0;
    }
    correct(d, q, avg, ferr, fspr, ssq);
  }
  if (tot)
    for (cc = 0; cc < nc; ++cc) tot[cc].spreadsq += ssq[cc];
  /* the parents leave the list (region i: a hole while lazy) */
  if (d->lazy && i < first) {
    if (d->reg[i]->depth < 0) {
      free(d->reg[i]);
      d->reg[i] = NULL;
      ++d->dead;
    }
    j = k = first;
  } else
    j = k = i < first ? i : first;
  for (; j < d->nreg; ++j) {
    if (j < first && j != i) {
      d->reg[k++] = d->reg[j];
      continue;
    }
    if (d->reg[j]->depth < 0) free(d->reg[j]);
    else d->reg[k++] = d->reg[j];
  }
  d->nreg = k;
}

void gcuba_divonne_compact(divonne *d, double *mir)
{
  const size_t w = 2 * (size_t)d->ncomp;
  long long i, k;
  if (!d->dead) return;
  for (i = k = 0; i < d->nreg; ++i)
    if (d->reg[i]) {
      if (mir && k < i) memcpy(mir + k * w, mir + i * w, sizeof *mir * w);
      d->reg[k++] = d->reg[i];
    }
  d->nreg = k;
  d->dead = 0;
}
