/* tests/test-cut.c -- where gCuhre cuts a region (include/gcuba/detail/cut.h),
   on functions of the line's fraction t in [0, 1]: jumps and kinks at
   points off any dyadic grid are found to within 1e-9 (jumps) and 1e-5
   (kinks), a jump beside a steep slope too; smooth functions, steep
   exponentials, narrow peaks, a log singularity and a jump before the
   first point of the scan are cut in the middle; no search takes more
   than GCUBA_CUT_MAXEVALS evaluations or more rounds than it may.  The
   cut map's scan (gcuba_cutmap_lines, gcuba_cutmap_found) on integrands
   of the cube: a box that vanishes on every central line, one hidden by
   a step at 0.031, a kink on a sphere about a corner and a smooth peak.
   This file is part of gcuba. */
#include <math.h>
#include <stdio.h>
#include "tap.h"
#include "gcuba/detail/cut.h"

enum { JUMP, JUMPSLOPE, KINK, EXPKINK, SMOOTH, STEEP, PEAK, CONST, LORENTZ,
       LOG };
static const char *const names[] = {"jump",   "jump beside a slope", "kink",
                                    "exp(-2 |t - u|)", "cosine", "exp(40 t)",
                                    "Gaussian peak", "constant",
                                    "Lorentzian (w 0.02)"};

static double fn(int kind, double u, double t)
{
  switch (kind) {
  case JUMP: return t < u ? 1 + t : 0.3 - t;
  case JUMPSLOPE: return t < u ? exp(7 * (0.5 + 0.5 * t)) : 0; /* f6's */
  case KINK: return fabs(t - u) + 0.1 * t * t;
  case EXPKINK: return exp(-2 * fabs(t - u));
  case SMOOTH: return cos(3 * t + u);
  case STEEP: return exp(40 * t);
  case PEAK: return exp(-((t - u) / 0.05) * ((t - u) / 0.05));
  case CONST: return 2.5;
  case LORENTZ: return 0.02 / ((t - u) * (t - u) + 0.0004);
  default: return log(fabs(t - u));
  }
}

/* the cut for kind at u; *nev evaluations in *nround rounds */
static double search(int kind, double u, int *nev, int *nround)
{
  gcuba_cut s;
  double x[GCUBA_CUT_MAXPTS], g[GCUBA_CUT_MAXPTS];
  int n, k;
  gcuba_cut_init(&s);
  *nev = *nround = 0;
  while ((n = gcuba_cut_points(&s, x)) > 0 && *nround < 1000) {
    for (k = 0; k < n; ++k) g[k] = fn(kind, u, x[k]);
    gcuba_cut_take(&s, g);
    *nev += n;
    ++*nround;
  }
  return s.cut;
}

/* ---- the cut map's scan, in 6D */
#define SD 6
enum { BOX, INNER, MIXED, SIDED, SPHERE, GAUSS };
static double cube_fn(int kind, const double *c, const double *x)
{
  double v = 1, r = 0;
  int d;
  for (d = 0; d < SD; ++d) {
    if (kind == BOX && !(x[d] < c[d])) v = 0;
    if (kind == INNER && !(x[d] > c[d] && x[d] < c[SD + d])) v = 0;
    if (kind == MIXED && !(d & 1 ? x[d] > c[d] : x[d] < c[d])) v = 0;
    if (kind == SIDED && !(c[SD + d] > 0 ? x[d] > c[d] : x[d] < c[d]))
      v = 0;
    r += (x[d] - c[d]) * (x[d] - c[d]);
  }
  return kind <= SIDED ? v
         : kind == SPHERE              ? fabs(r - 0.125)
                                       : exp(-r);
}

/* the scan's rounds as a backend runs them; the map, *nlines lines in
   scan_rounds rounds */
static int scan_rounds;
static gcuba_cutmap scan_map(int kind, const double *c, int *nlines)
{
  double lo[GCUBA_SCAN_LINES * SD * SD], w[GCUBA_SCAN_LINES * SD * SD];
  double cut[GCUBA_SCAN_LINES * SD], jump[GCUBA_SCAN_LINES * SD];
  int ax[GCUBA_SCAN_LINES * SD], found[GCUBA_SCAN_LINES * SD], n, j, d, k;
  gcuba_cutmap m;
  gcuba_cutmap_init(&m);
  *nlines = scan_rounds = 0;
  while ((n = gcuba_cutmap_lines(&m, SD, 1LL << 40, lo, w, ax)) > 0) {
    *nlines += n;
    ++scan_rounds;
    for (j = 0; j < n; ++j) {
      gcuba_cut s;
      double t[GCUBA_CUT_MAXPTS], g[GCUBA_CUT_MAXPTS], x[SD];
      int np;
      gcuba_cut_init(&s);
      while ((np = gcuba_cut_points(&s, t)) > 0) {
        for (k = 0; k < np; ++k) {
          for (d = 0; d < SD; ++d)
            x[d] = lo[j * SD + d] + w[j * SD + d] * (d == ax[j] ? t[k] : 0.5);
          g[k] = cube_fn(kind, c, x);
        }
        gcuba_cut_take(&s, g);
      }
      cut[j] = s.cut;
      found[j] = s.found;
      jump[j] = gcuba_cut_jump(&s);
    }
    gcuba_cutmap_found(&m, SD, lo, w, ax, cut, found, jump);
  }
  return m;
}

/* the axes whose one feature is c[d], a jump of height 1 (a diag line
   for each other) */
static int faces_found(const gcuba_cutmap *m, const double *c)
{
  int d, good = 0;
  for (d = 0; d < SD; ++d) {
    const int g = fabs(m->feat[d] - c[d]) <= 1e-9 &&
                  fabs(m->jump[d] - 1) <= 1e-12;
    if (!g)
      diag("x%d: feature %.12g, jump %g", d + 1, m->feat[d], m->jump[d]);
    good += g;
  }
  return good;
}

static void check_scan(void)
{
  static const double hid[SD] = {0.948408544, 0.507537901, 0.985339522,
                                 0.723091066, 0.030910313, 0.714427412};
  static const double low[SD] = {0.077902, 0.429731, 0.260398, 0.084422,
                                 0.126886, 0.315291};
  static const double mid[SD] = {0.5, 0.5, 0.5, 0.5, 0.5, 0.5};
  const double *boxes[2] = {hid, low};
  gcuba_cutmap m;
  int b, d, n, good;
  for (b = 0; b < 2; ++b) {
    m = scan_map(BOX, boxes[b], &n);
    good = faces_found(&m, boxes[b]);
    ok(m.ready && m.nfeat == SD && good == SD,
       "scan: every face of a 6D box %s found, jumps 1 (%d of %d, %d "
       "lines)", b ? "with c below 1/2" : "hidden by a step at 0.031",
       good, SD, n);
  }
  {
    /* a < x < b: the central line along x3 crosses two faces, the
       others see 0 (x1 = 1/2 lies beyond b); a line of a later round
       crosses two faces of every other axis */
    static const double inner[2 * SD] = {
        0.02, 0.39420767946, 0.12869883983, 0.43032412905, 0.02,
        0.18867382401, 0.62466982316, 0.79180290971, 0.37185521629,
        0.69015042705, 0.60574187807, 0.50021270061};
    m = scan_map(INNER, inner, &n);
    for (good = 0, d = 0; d < SD; ++d) {
      const double a = m.feat[d] < m.feat2[d] ? m.feat[d] : m.feat2[d],
                   b = m.feat[d] < m.feat2[d] ? m.feat2[d] : m.feat[d];
      const int g = fabs(a - inner[d]) <= 1e-9 &&
                    fabs(b - inner[SD + d]) <= 1e-9 &&
                    fabs(m.jump[d] - 1) <= 1e-12 &&
                    fabs(m.jump2[d] - 1) <= 1e-12;
      if (!g)
        diag("x%d: features %.12g, %.12g", d + 1, m.feat[d], m.feat2[d]);
      good += g;
    }
    ok(m.ready && good == SD,
       "scan: both faces of a 6D box a < x < b on every axis (%d of %d, "
       "%d lines)", good, SD, n);
  }
  {
    /* x_i < c_i on even axes, x_i > c_i on odd ones: no central or
       diagonal corner line meets it; the lines through the other
       corners' points find one (the anchor), and every face from there */
    static const double mixed[SD] = {0.3064, 0.9177, 0.0825,
                                     0.3755, 0.5771, 0.7123};
    m = scan_map(MIXED, mixed, &n);
    good = faces_found(&m, mixed);
    ok(m.ready && good == SD && scan_rounds <= gcuba_cutmap_rounds(SD),
       "scan: every face of a 6D box at a mixed corner (%d of %d, %d "
       "lines, %d rounds of at most %d)", good, SD, n, scan_rounds,
       gcuba_cutmap_rounds(SD));
  }
  {
    /* x_i > c_i on x1 .. x5, x6 < c6: of the lines near the two
       diagonal corners only the one along x6 through (1 - e, ..) sees
       it; the other axes' lines go through that point (before they
       did, x6's face alone was found, and a call claimed it 9% off) */
    static const double sided[2 * SD] = {
        0.53627593223539272, 0.92236890513527048, 0.45204648294938926,
        0.77220739865245458, 0.9229222153499852, 0.42649101034234144,
        1, 1, 1, 1, 1, 0};
    m = scan_map(SIDED, sided, &n);
    good = faces_found(&m, sided);
    ok(m.ready && good == SD && scan_rounds <= gcuba_cutmap_rounds(SD),
       "scan: every face of a 6D box that one corner line crosses (%d of "
       "%d, %d lines, %d rounds)", good, SD, n, scan_rounds);
  }
  m = scan_map(SPHERE, mid, &n);
  ok(m.ready && n == SD, "scan: a kink on a sphere about the centre, the "
     "central lines alone (%d lines, %d features)", n, m.nfeat);
  {
    static const double corner[SD] = {0, 0, 0, 0, 0, 0};
    m = scan_map(SPHERE, corner, &n);
    ok(m.ready && n == SD && m.nfeat == 0,
       "scan: a kink on a sphere about a corner is not looked for (%d "
       "lines, %d features)", n, m.nfeat);
  }
  m = scan_map(GAUSS, low, &n);
  ok(m.ready && n == SD && m.nfeat == 0,
     "scan: a smooth peak costs the central lines (%d lines)", n);
}

int main(void)
{
  static const double us[] = {0.2724, 0.123456, 0.7071, 1.0 / 3, 0.91};
  const int nu = (int)(sizeof us / sizeof *us);
  int kind, i, nev, nr, maxev = 0, maxr = 0;
  for (kind = JUMP; kind <= LORENTZ; ++kind) {
    int good = 0;
    double worst = 0, c = 0;
    for (i = 0; i < nu; ++i) {
      double u = us[i], want, tol;
      c = search(kind, u, &nev, &nr);
      if (nev > maxev) maxev = nev;
      if (nr > maxr) maxr = nr;
      want = kind <= EXPKINK ? u : 0.5;
      tol = kind <= JUMPSLOPE ? 1e-9 : kind <= EXPKINK ? 1e-5 : 0;
      good += fabs(c - want) <= tol;
      if (fabs(c - want) > worst) worst = fabs(c - want);
    }
    ok(good == nu, "%s: cut %s in %d of %d (worst distance %.2g)",
       names[kind], kind <= EXPKINK ? "at the feature" : "in the middle",
       good, nu, worst);
  }
  ok(maxev <= GCUBA_CUT_MAXEVALS && maxr <= 2 + GCUBA_CUT_ZOOM +
         GCUBA_CUT_BISECT, "at most %d evaluations (%d) in %d rounds",
     GCUBA_CUT_MAXEVALS, maxev, maxr);
  {
    /* a jump before the first point of the scan (1/50): the middle */
    double c = search(JUMP, 0.0002, &nev, &nr);
    ok(c == 0.5, "a jump at 0.0002: cut at %g (the middle)", c);
    /* log |t - u|: a singularity is not cut next to (rule points would
       come within rounding of it) */
    c = search(LOG, 0.2724, &nev, &nr);
    ok(c == 0.5, "log |t - 0.2724|: cut at %g (the middle)", c);
  }
  check_scan();
  return done();
}
