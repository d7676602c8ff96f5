/* gcuba/detail/cut.h -- where gCuhre cuts a region it splits.  Bisection at the
   middle never puts a face on a jump or a kink at a point such as 0.2724,
   so the regions that straddle it keep errors the rule cannot bound.
   Instead, the integrand is sampled on the line through the region's
   centre along the split axis, and the region is cut where a jump or a
   kink lies on that line, else in the middle:

   1. Scan: GCUBA_CUT_M + 1 equally spaced points (k + 1/2) / (M + 1),
      inside the region (the rules never evaluate on its faces, where an
      integrand may be singular).
   2. Jump: the largest difference of neighbours exceeds GCUBA_CUT_R times
      every other (its neighbours excepted): bisect its interval, keeping
      the half whose ends differ more, GCUBA_CUT_BISECT times.  Two jumps
      (the faces of a box a < x < b on a line through it): when the two
      largest differences exceed GCUBA_CUT_R times every other, the larger
      is bisected and the search reports found = 2 (a second jump on the
      line beyond it) or 3 (before it).  After 8
      halvings the difference must still be a quarter of the first, or it
      was a steep slope: the middle; if it grows past 64 times the first,
      a singularity (log |x - c|): the middle too, so that no rule point
      comes within rounding of it.
   3. Kink: else, the largest second difference exceeds GCUBA_CUT_R times
      every other (two on each side excepted): zoom GCUBA_CUT_ZOOM times
      onto the interval of the largest second difference among 6 points
      (0.4 of the interval each time).  A kink's second difference shrinks
      as the spacing, a smooth function's as its square: unless the last
      is above 0.25 x 0.4^(GCUBA_CUT_ZOOM - 1) of the first, the middle.
      A kink's values converge: if the range of the last 6 is within 5%
      of the first 6's, cut where the line through the two leftmost
      points meets the line through the two rightmost.  Else, if one
      difference of the last 6 carries 80% of their change, it is a jump
      after all (a steep slope beside it hid it in step 2): bisect it
      GCUBA_CUT_KBISECT times.  Else a singularity: the middle.
   Cuts are kept within [GCUBA_CUT_MIN, 1 - GCUBA_CUT_MIN] of the width.

   A search is a sequence of rounds: gcuba_cut_points gives the points
   (fractions of the width) to evaluate now, gcuba_cut_take their values,
   until gcuba_cut_points gives none; then cut is the fraction.  The
   decisions depend on the values alone, so every backend, thread count
   and process count cuts where one thread would.  Host and device code.
   This file is part of gcuba. */
#ifndef GCUBA_CUT_H
#define GCUBA_CUT_H

#include <math.h>
#include "gcuba/hd.h"
#include "gcuba/detail/rule.h"

#define GCUBA_CUT_M 24
#define GCUBA_CUT_R 10.0
#define GCUBA_CUT_BISECT 44
#define GCUBA_CUT_ZOOM 7
#define GCUBA_CUT_KBISECT 30
#define GCUBA_CUT_MIN (1.0 / 1024)
/* points of one round at most, and evaluations of one search at most
   (the kink path: scan, zoom, bisection; the jump path takes 69) */
#define GCUBA_CUT_MAXPTS (GCUBA_CUT_M + 1)
#define GCUBA_CUT_MAXEVALS \
  (GCUBA_CUT_M + 1 + 6 * GCUBA_CUT_ZOOM + GCUBA_CUT_KBISECT)

enum { GCUBA_CUT_SCAN = 0, GCUBA_CUT_BISECTING, GCUBA_CUT_ZOOMING,
       GCUBA_CUT_DONE };

typedef struct gcuba_cut {
  int phase, step, kink, np; /* np: points of the round asked for */
  double a, b, ga, gb, j0;   /* bisection: [a, b], f there, first |gb-ga| */
  double A, B, bm0, r0;      /* zoom: interval, first largest second
                                difference and range of values */
  double p[6];               /* the zoom's points */
  double cut;                /* the result, once done */
  int found;                 /* cut is at a jump or a kink: 1; 2 or 3
                                when the scan saw a second jump beyond
                                the cut or before it */
  int pair;                  /* the scan saw two jumps: 1 the second
                                beyond the larger, 2 before it */
  double jump;               /* at a jump: its height, else 0 */
  int zero;                  /* the scan's values were all 0 */
} gcuba_cut;

/* What a call knows of its integrand's features: feat[d] is where a jump
   or a kink lies on a line along d, or -1.  Once, before the first split,
   lines across the cube are searched as a region is (gcuba_cut_init ..
   gcuba_cut_take), in rounds (gcuba_cutmap_lines, gcuba_cutmap_found):
   1. the cube's central lines, one along each axis;
   2. after any round in which a line crossed two jumps (found 2 or 3),
      the part of that line beyond the one it found, on the side of the
      other: that is feat2[d] (the faces of a box a < x < b);
   3. if they found nothing and the integrand vanished on one of them,
      the lines near two corners: along d through the point whose other
      coordinates are all e = 1/(2(M+1)) (the scan's first point), and
      through the one where they are all 1 - e: a support confined to a
      corner (a product of steps x_i < c_i with every c_i < 1/2: zero on
      every central line) crosses them; the first of them that finds a
      jump sets the anchor (its point's other coordinates);
   4. if they found nothing either, in 3 to 8 dimensions, the
      lines along x1 through the other corners' points (coordinates j > 1
      at e or 1 - e, all 2^(ndim-1) - 2 patterns, GCUBA_SCAN_LINES ndim
      a round) until one finds a jump or sees the integrand: that point
      is the anchor (a support at a corner with x_i < c_i on some axes
      and x_i > c_i on others);
   5. while the last round found a feature (twice at most), the lines
      along each axis without one through the centres of the cells the
      known features make: coordinate j at feat[j] / 2, or at
      (1 + feat[j]) / 2 (with two features, between them or above both),
      the anchor's (1/2 unless round 3 or 4 set it) where axis j has no
      feature (a step at 0.03
      along x5 hides every other step from the central lines when the
      integrand vanishes beyond it);
   6. where a feature is known, the ends (1/(M+1) of the line each,
      beyond the scan's first and last points) of the lines of the axes
      without one: through the anchor, or through the cells' centres on
      the side of the features whose lines in round 5 saw fewer that
      vanish everywhere.
   Only an integrand with features (nfeat > 0) has its split regions
   searched; a smooth one costs the central lines and nothing more.  A
   region that straddles feat[d] or feat2[d] (more than GCUBA_CUT_MIN of
   its width on either side) is split there, along d, without a search, and
   until then its error is at least |its integral|: a rule need not see a
   kink inside a region (one near a face hides from its points), and the
   null rules of a region it passes for smooth underestimate the error.
   At a jump of height jump[d] it is also at least GCUBA_CUT_JSAFE times
   jump[d] times the volume of its smaller part: a region whose points
   all lie beyond the jump has |its integral| = 0 (a sliver of a box
   [0, c) straddling two of its faces, its centre outside). */
#define GCUBA_CUT_JSAFE 2.0
typedef struct gcuba_cutmap {
  int ready, nfeat; /* the scan is done; features found */
  int round, ncell, nlines; /* the scan's round (GCUBA_SCAN_*), the cell
                               rounds done, the lines of the round out */
  int side;         /* where the ends' lines cross: 0 the centre, 1 and 2
                       the cells below and above the features */
  double feat[GCUBA_RULE_MAXDIM];
  double jump[GCUBA_RULE_MAXDIM]; /* a jump's height there, 0: a kink */
  double feat2[GCUBA_RULE_MAXDIM]; /* a second feature along d (round 2),
                                      -1, or -2 while it is looked for */
  double jump2[GCUBA_RULE_MAXDIM];
  int after;        /* the round after GCUBA_SCAN_PAIRS (and after the
                       round before, when it leaves no pairs) */
  int orth;         /* the corner patterns round 4 searched */
  double anchor[GCUBA_RULE_MAXDIM]; /* where lines without a feature
                                       cross (round 4; else 1/2) */
} gcuba_cutmap;

enum { GCUBA_SCAN_CENTRAL = 0, GCUBA_SCAN_PAIRS, GCUBA_SCAN_CORNERS,
       GCUBA_SCAN_CELLS, GCUBA_SCAN_ENDS, GCUBA_SCAN_DONE,
       GCUBA_SCAN_ORTHANTS };
/* the most rounds of a scan, and lines of one round (per dimension) */
#define GCUBA_SCAN_NCELL 2
#define GCUBA_SCAN_LINES 2
/* round 4 runs where its lines take at most GCUBA_SCAN_NORTH rounds
   (ndim 3 .. 8) */
#define GCUBA_SCAN_NORTH 8

/* the lines of round 4 (corner patterns), 0 where it does not run */
GCUBA_HDI int gcuba_cutmap_north(int ndim)
{
  const int n = ndim >= 3 && ndim < 31 ? (1 << (ndim - 1)) - 2 : 0;
  return n <= GCUBA_SCAN_NORTH * GCUBA_SCAN_LINES * ndim ? n : 0;
}

/* the most rounds of a scan in ndim dimensions: the central lines, the
   corners', round 4's, the cells' and the ends', where the round that
   found the first feature and each after it may be followed by its
   pairs */
GCUBA_HDI int gcuba_cutmap_rounds(int ndim)
{
  const int per = GCUBA_SCAN_LINES * ndim;
  return 5 + 2 * GCUBA_SCAN_NCELL +
         (gcuba_cutmap_north(ndim) + per - 1) / per;
}

GCUBA_HDI void gcuba_cutmap_init(gcuba_cutmap *m)
{
  int d;
  m->ready = m->nfeat = 0;
  m->round = GCUBA_SCAN_CENTRAL;
  m->ncell = m->nlines = m->side = 0;
  m->after = GCUBA_SCAN_DONE;
  m->orth = 0;
  for (d = 0; d < GCUBA_RULE_MAXDIM; ++d) {
    m->feat[d] = m->feat2[d] = -1, m->jump[d] = m->jump2[d] = 0;
    m->anchor[d] = 0.5;
  }
}

/* line n of a round: along ax through the point p (box lo, w: [0, 1]
   along ax, centred on p across) */
GCUBA_HDI void gcuba_cutmap_line_(int ndim, int n, int ax, const double *p,
                                  double *lo, double *w, int *axes)
{
  int j;
  for (j = 0; j < ndim; ++j) {
    const double h = j == ax ? 0.5 : p[j] < 0.5 ? p[j] : 1 - p[j];
    lo[(long)n * ndim + j] = j == ax ? 0 : p[j] - h;
    w[(long)n * ndim + j] = 2 * h;
  }
  axes[n] = ax;
}

/* The lines of the scan's next round (at most GCUBA_SCAN_LINES ndim):
   line n along ax[n] through the centre of the box (lo, w)[n * ndim ..];
   their number, or 0 when the map is ready.  room: the evaluations the
   scan may still spend; a round that might spend more ends it. */
GCUBA_HDI int gcuba_cutmap_lines(gcuba_cutmap *m, int ndim, long long room,
                                 double *lo, double *w, int *ax)
{
  const double e = 0.5 / (GCUBA_CUT_M + 1);
  double p[GCUBA_RULE_MAXDIM];
  int d, j, k, n = 0;
  while (!n && m->round != GCUBA_SCAN_DONE) {
    switch (m->round) {
    case GCUBA_SCAN_CENTRAL:
      for (j = 0; j < ndim; ++j) p[j] = 0.5;
      for (d = 0; d < ndim; ++d) gcuba_cutmap_line_(ndim, n++, d, p, lo, w, ax);
      break;
    case GCUBA_SCAN_PAIRS:
      /* gcuba_cutmap_found left their lines in lo, w, ax */
      n = m->nlines;
      if (!n) m->round = m->after;
      break;
    case GCUBA_SCAN_CORNERS:
      for (d = 0; d < ndim; ++d)
        for (k = 0; k < 2; ++k) {
          for (j = 0; j < ndim; ++j) p[j] = k ? 1 - e : e;
          gcuba_cutmap_line_(ndim, n++, d, p, lo, w, ax);
        }
      break;
    case GCUBA_SCAN_ORTHANTS:
      /* x1 through (., e or 1 - e, ...): pattern k + 1's bits */
      for (; m->orth < gcuba_cutmap_north(ndim) &&
             n < GCUBA_SCAN_LINES * ndim;
           ++m->orth) {
        p[0] = 0.5;
        for (j = 1; j < ndim; ++j)
          p[j] = (m->orth + 1) >> (j - 1) & 1 ? 1 - e : e;
        gcuba_cutmap_line_(ndim, n++, 0, p, lo, w, ax);
      }
      if (!n) m->round = GCUBA_SCAN_DONE;
      break;
    case GCUBA_SCAN_CELLS:
      for (d = 0; d < ndim; ++d)
        if (m->feat[d] < 0)
          for (k = 0; k < (m->nfeat ? 2 : 1); ++k) {
            for (j = 0; j < ndim; ++j) {
              const double a = m->feat[j], b = m->feat2[j];
              p[j] = a < 0    ? m->anchor[j]
                     : b >= 0 ? (k ? 0.5 * (1 + (a > b ? a : b))
                                   : 0.5 * (a + b))
                     : k ? 0.5 * (1 + a) : 0.5 * a;
            }
            gcuba_cutmap_line_(ndim, n++, d, p, lo, w, ax);
          }
      if (!n) m->round = GCUBA_SCAN_ENDS;
      break;
    default: /* GCUBA_SCAN_ENDS */
      /* the scan's points keep 1/(2(M+1)) from the faces: the ends,
         1/(M+1) of the line each, of the lines without a feature */
      for (j = 0; j < ndim; ++j)
        p[j] = m->feat[j] < 0 ? m->anchor[j]
               : !m->side     ? 0.5
               : m->side == 2 ? 0.5 * (1 + m->feat[j])
                              : 0.5 * m->feat[j];
      for (d = 0; d < ndim; ++d)
        if (m->feat[d] < 0)
          for (k = 0; k < 2; ++k, ++n) {
            gcuba_cutmap_line_(ndim, n, d, p, lo, w, ax);
            w[(long)n * ndim + d] = 2 * e;
            lo[(long)n * ndim + d] = k ? 1 - 2 * e : 0;
          }
      if (!n) m->round = GCUBA_SCAN_DONE;
      break;
    }
    if (n && (long long)n * GCUBA_CUT_MAXEVALS > room) {
      n = 0;
      m->round = GCUBA_SCAN_DONE;
    }
  }
  m->nlines = n;
  m->ready = !n;
  return n;
}

/* The results of the round gcuba_cutmap_lines gave (cut[n], found[n],
   jump[n] of the searches along its lines, the same lo, w, ax): the
   features, the next round.  The corner lines take jumps alone: a kink
   away from the central lines (|x|^2 - r^2 on a sphere about a corner)
   costs more cuts than its error estimate gains. */
GCUBA_HDI void gcuba_cutmap_found(gcuba_cutmap *m, int ndim, double *lo,
                                  double *w, int *ax, const double *cut,
                                  const int *found, const double *jump)
{
  int j, d, fresh = 0, zero = 0, pairs = 0, zside[2] = {0, 0}, next;
  int anchored = 0;
  for (j = 0; j < m->nlines; ++j) {
    const double x =
        lo[(long)j * ndim + ax[j]] + w[(long)j * ndim + ax[j]] * cut[j];
    d = ax[j];
    if (jump[j] < 0) zero = 1, ++zside[j & 1];
    if (m->round == GCUBA_SCAN_ORTHANTS) {
      /* the first line that saw the integrand: its point is the anchor,
         its jump (if any) the feature along x1 */
      int i;
      if (anchored || jump[j] < 0) continue;
      anchored = 1;
      for (i = 1; i < ndim; ++i)
        m->anchor[i] = lo[(long)j * ndim + i] + 0.5 * w[(long)j * ndim + i];
      if (!found[j] || !(jump[j] > 0)) continue;
    }
    if (m->round == GCUBA_SCAN_PAIRS) {
      if (found[j] && m->feat2[d] == -2) {
        m->feat2[d] = x;
        m->jump2[d] = jump[j] > 0 ? jump[j] : 0;
      }
      continue;
    }
    if (found[j] && m->feat[d] < 0 &&
        (m->round != GCUBA_SCAN_CORNERS || jump[j] > 0)) {
      /* (round 4 comes here with its anchor's line alone) */
      if (m->round == GCUBA_SCAN_CORNERS && !anchored) {
        /* the first corner line that found a jump saw the integrand: the
           other axes' lines cross where it does (a support at a corner,
           x_i < c_i with every c_i < 1/2: no line through 1/2 sees it) */
        int i;
        anchored = 1;
        for (i = 0; i < ndim; ++i)
          if (i != d)
            m->anchor[i] =
                lo[(long)j * ndim + i] + 0.5 * w[(long)j * ndim + i];
      }
      m->feat[d] = x;
      m->jump[d] = jump[j] > 0 ? jump[j] : 0;
      ++m->nfeat;
      ++fresh;
      if (found[j] >= 2) {
        /* the next round's line pairs: the part of this one beyond x on
           the side of the other jump, in place (pairs <= j) */
        const long o = (long)pairs * ndim, q = (long)j * ndim;
        int i;
        for (i = 0; i < ndim; ++i) lo[o + i] = lo[q + i], w[o + i] = w[q + i];
        if (found[j] == 2) {
          w[o + d] = lo[q + d] + w[q + d] - x;
          lo[o + d] = x;
        } else
          w[o + d] = x - lo[q + d];
        ax[pairs++] = d;
        m->feat2[d] = -2;
      }
    }
  }
  m->nlines = pairs;
  switch (m->round) {
  case GCUBA_SCAN_PAIRS:
    for (d = 0; d < ndim; ++d)
      if (m->feat2[d] == -2) m->feat2[d] = -1;
    m->nlines = 0;
    m->round = m->after;
    return;
  case GCUBA_SCAN_CENTRAL:
    next = m->nfeat ? GCUBA_SCAN_CELLS
           : zero   ? GCUBA_SCAN_CORNERS
                    : GCUBA_SCAN_DONE;
    break;
  case GCUBA_SCAN_CORNERS:
    next = m->nfeat                 ? GCUBA_SCAN_CELLS
           : gcuba_cutmap_north(ndim) ? GCUBA_SCAN_ORTHANTS
                                      : GCUBA_SCAN_DONE;
    break;
  case GCUBA_SCAN_ORTHANTS:
    next = m->nfeat || anchored                 ? GCUBA_SCAN_CELLS
           : m->orth < gcuba_cutmap_north(ndim) ? GCUBA_SCAN_ORTHANTS
                                                : GCUBA_SCAN_DONE;
    break;
  case GCUBA_SCAN_CELLS:
    /* (the lines alternate below and above the features) */
    m->side = zside[0] < zside[1] ? 1 : zside[1] < zside[0] ? 2 : 0;
    next = !fresh || ++m->ncell >= GCUBA_SCAN_NCELL ? GCUBA_SCAN_ENDS
                                                    : GCUBA_SCAN_CELLS;
    break;
  default:
    next = GCUBA_SCAN_DONE;
  }
  m->after = next;
  m->round = pairs ? GCUBA_SCAN_PAIRS : next;
}

/* the most regions an iteration searches: one that splits more halves
   them (at a known feature, cuts them there) */
#define GCUBA_CUT_MAXSEARCH 4096

/* the nsplit regions an iteration splits are searched */
GCUBA_HDI int gcuba_cut_searching(const gcuba_cutmap *m, long long nsplit)
{
  return m->nfeat > 0 && nsplit <= GCUBA_CUT_MAXSEARCH;
}

/* 1 when the interval [lo, lo + w] straddles x >= 0 (more than
   GCUBA_CUT_MIN of its width on either side), with the fraction of the
   width there in *q */
GCUBA_HDI int gcuba_cut_at(double x, double lo, double w, double *q)
{
  if (!(x >= 0)) return 0;
  *q = (x - lo) / w;
  return *q > GCUBA_CUT_MIN && *q < 1 - GCUBA_CUT_MIN;
}

/* the known feature along d that the box (lo, w) straddles: 1 (feat[d]),
   2 (feat2[d]) or 0, with the fraction of the width there in *q */
GCUBA_HDI int gcuba_cut_straddles(const gcuba_cutmap *m, int d,
                                  const double *lo, const double *w,
                                  double *q)
{
  return gcuba_cut_at(m->feat[d], lo[d], w[d], q)    ? 1
         : gcuba_cut_at(m->feat2[d], lo[d], w[d], q) ? 2
                                                     : 0;
}

/* A jump within GCUBA_CUT_MIN of a face of the box (lo, w), more than
   GCUBA_CUT_SLIVER of its width inside: no cut is made there, and the
   rule's points may all lie on one side.  The height times the fraction
   of the width on its smaller side, 0 if none along d; *q the fraction. */
#define GCUBA_CUT_SLIVER 1e-9
GCUBA_HDI double gcuba_cut_sliver(const gcuba_cutmap *m, int d,
                                  const double *lo, const double *w,
                                  double *q)
{
  double best = 0;
  int k;
  for (k = 0; k < 2; ++k) {
    const double x = k ? m->feat2[d] : m->feat[d],
                 j = k ? m->jump2[d] : m->jump[d];
    const double f = (x - lo[d]) / w[d], g = f < 0.5 ? f : 1 - f;
    if (x >= 0 && j > 0 && g > GCUBA_CUT_SLIVER && g <= GCUBA_CUT_MIN &&
        g * j > best)
      best = g * j, *q = f;
  }
  return best;
}

/* the first axis along which the box (lo, w) straddles a known feature,
   and the fraction of the width there in *q; -1 if none */
GCUBA_HDI int gcuba_cut_known(const gcuba_cutmap *m, int ndim,
                              const double *lo, const double *w, double *q)
{
  int d;
  if (!m->nfeat) return -1;
  for (d = 0; d < ndim; ++d)
    if (gcuba_cut_straddles(m, d, lo, w, q)) return d;
  return -1;
}

GCUBA_HDI void gcuba_cut_init(gcuba_cut *s)
{
  s->phase = GCUBA_CUT_SCAN;
  s->step = s->kink = s->np = s->found = s->pair = 0;
  s->a = s->b = s->ga = s->gb = s->j0 = s->A = s->B = s->bm0 = s->r0 = 0;
  s->cut = 0.5;
  s->jump = 0;
  s->zero = 0;
}

GCUBA_HDI void gcuba_cut_done_(gcuba_cut *s, double c)
{
  s->found = 0;
  s->jump = 0;
  if (!(c > GCUBA_CUT_MIN)) c = GCUBA_CUT_MIN; /* also NaN */
  if (!(c < 1 - GCUBA_CUT_MIN)) c = 1 - GCUBA_CUT_MIN;
  s->cut = c;
  s->phase = GCUBA_CUT_DONE;
  s->np = 0;
}

/* the points to evaluate now, as fractions of the width, into x (at most
   GCUBA_CUT_MAXPTS); their number, 0 when the search is done */
GCUBA_HDI int gcuba_cut_points(gcuba_cut *s, double *x)
{
  int k;
  switch (s->phase) {
  case GCUBA_CUT_SCAN:
    for (k = 0; k <= GCUBA_CUT_M; ++k)
      x[k] = (k + 0.5) / (GCUBA_CUT_M + 1);
    return s->np = GCUBA_CUT_M + 1;
  case GCUBA_CUT_BISECTING:
    x[0] = 0.5 * (s->a + s->b);
    return s->np = 1;
  case GCUBA_CUT_ZOOMING:
    for (k = 0; k < 6; ++k) x[k] = s->p[k] = s->A + (s->B - s->A) * k / 5;
    return s->np = 6;
  default:
    return s->np = 0;
  }
}

GCUBA_HDI void gcuba_cut_bisect_(gcuba_cut *s, double a, double b,
                                 double ga, double gb, int kink)
{
  s->phase = GCUBA_CUT_BISECTING;
  s->step = 0;
  s->kink = kink;
  s->a = a;
  s->b = b;
  s->ga = ga;
  s->gb = gb;
  s->j0 = fabs(gb - ga);
}

/* the values at the points of the last gcuba_cut_points, in order */
GCUBA_HDI void gcuba_cut_take(gcuba_cut *s, const double *g)
{
  const int M = GCUBA_CUT_M;
  int k, j, km = -1;
  double best = 0, second = 0;
  switch (s->phase) {
  case GCUBA_CUT_SCAN:
    for (k = 0, s->zero = 1; k <= M; ++k)
      if (g[k] != 0) s->zero = 0;
    /* a jump: one difference of neighbours above all others */
    for (k = 0; k < M; ++k)
      if (fabs(g[k + 1] - g[k]) > best) best = fabs(g[k + 1] - g[k]), km = k;
    for (k = 0; k < M; ++k)
      if ((k < km - 1 || k > km + 1) && fabs(g[k + 1] - g[k]) > second)
        second = fabs(g[k + 1] - g[k]);
    if (km >= 0 && best > GCUBA_CUT_R * second) {
      gcuba_cut_bisect_(s, (km + 0.5) / (M + 1), (km + 1.5) / (M + 1),
                        g[km], g[km + 1], 0);
      return;
    }
    if (km >= 0 && second > 0) {
      /* two jumps: the second largest difference km2 and the largest
         of the others (neither's neighbours) */
      int km2 = -1;
      double third = 0;
      for (k = 0; k < M; ++k)
        if ((k < km - 1 || k > km + 1) && fabs(g[k + 1] - g[k]) == second) {
          km2 = k;
          break;
        }
      for (k = 0; k < M; ++k)
        if ((k < km - 1 || k > km + 1) && (k < km2 - 1 || k > km2 + 1) &&
            fabs(g[k + 1] - g[k]) > third)
          third = fabs(g[k + 1] - g[k]);
      if (second > GCUBA_CUT_R * third) {
        gcuba_cut_bisect_(s, (km + 0.5) / (M + 1), (km + 1.5) / (M + 1),
                          g[km], g[km + 1], 0);
        s->pair = km2 > km ? 1 : 2;
        return;
      }
    }
    /* a kink: one second difference above all others */
    best = second = 0;
    km = -1;
    for (k = 1; k < M; ++k) {
      const double v = fabs(g[k + 1] - 2 * g[k] + g[k - 1]);
      if (v > best) best = v, km = k;
    }
    for (k = 1; k < M; ++k) {
      const double v = fabs(g[k + 1] - 2 * g[k] + g[k - 1]);
      if ((k < km - 2 || k > km + 2) && v > second) second = v;
    }
    if (km >= 0 && best > GCUBA_CUT_R * second) {
      s->phase = GCUBA_CUT_ZOOMING;
      s->step = 0;
      s->A = (km - 0.5) / (M + 1);
      s->B = (km + 1.5) / (M + 1);
      return;
    }
    gcuba_cut_done_(s, 0.5);
    return;
  case GCUBA_CUT_BISECTING: {
    const double m = 0.5 * (s->a + s->b), gm = g[0];
    if (fabs(gm - s->ga) <= fabs(s->gb - gm))
      s->a = m, s->ga = gm;
    else
      s->b = m, s->gb = gm;
    ++s->step;
    /* a singularity grows as the interval shrinks: cutting next to it
       would put rule points within rounding of it; the middle */
    if (!(fabs(s->gb - s->ga) <= 64 * s->j0)) {
      gcuba_cut_done_(s, 0.5);
      return;
    }
    /* a jump keeps its size as the interval shrinks, a slope does not */
    if (!s->kink && s->step == 8 && !(fabs(s->gb - s->ga) >= 0.25 * s->j0)) {
      gcuba_cut_done_(s, 0.5);
      return;
    }
    if (s->step >= (s->kink ? GCUBA_CUT_KBISECT : GCUBA_CUT_BISECT)) {
      gcuba_cut_done_(s, 0.5 * (s->a + s->b));
      s->found = 1 + s->pair;
      s->jump = fabs(s->gb - s->ga);
    }
    return;
  }
  case GCUBA_CUT_ZOOMING: {
    int jm = 1;
    double bm = -1;
    for (j = 1; j < 5; ++j) {
      const double v = fabs(g[j + 1] - 2 * g[j] + g[j - 1]);
      if (v > bm) bm = v, jm = j;
    }
    if (s->step == 0) {
      double lo = g[0], hi = g[0];
      for (j = 1; j < 6; ++j) {
        if (g[j] < lo) lo = g[j];
        if (g[j] > hi) hi = g[j];
      }
      s->bm0 = bm;
      s->r0 = hi - lo;
    }
    if (s->step < GCUBA_CUT_ZOOM - 1) {
      s->A = s->p[jm - 1];
      s->B = s->p[jm + 1];
      ++s->step;
      return;
    }
    /* a kink's second difference shrinks as the spacing (0.4 a round),
       a smooth function's faster */
    if (!(bm > 0.25 * pow(0.4, GCUBA_CUT_ZOOM - 1) * s->bm0)) {
      gcuba_cut_done_(s, 0.5);
      return;
    }
    {
      /* a kink's values converge as the interval shrinks; a jump's or a
         singularity's keep their range */
      double lo = g[0], hi = g[0];
      for (j = 1; j < 6; ++j) {
        if (g[j] < lo) lo = g[j];
        if (g[j] > hi) hi = g[j];
      }
      if (hi - lo <= 0.05 * s->r0) {
        /* the lines through the two leftmost and the two rightmost
           points */
        const double *p = s->p;
        const double sl = (g[1] - g[0]) / (p[1] - p[0]);
        const double sr = (g[5] - g[4]) / (p[5] - p[4]);
        double c = 0.5 * (s->A + s->B);
        if (sl != sr) {
          const double x = (g[4] - sr * p[4] - g[0] + sl * p[0]) / (sl - sr);
          if (x > p[0] && x < p[5]) c = x;
        }
        gcuba_cut_done_(s, c);
        s->found = 1;
        return;
      }
    }
    {
      /* a jump beside a steep slope: one difference carries the change */
      double sd = 0, dm = 0;
      int jd = 0;
      for (j = 0; j < 5; ++j) {
        const double v = fabs(g[j + 1] - g[j]);
        sd += v;
        if (v > dm) dm = v, jd = j;
      }
      if (dm > 0.8 * sd && dm > 0) {
        gcuba_cut_bisect_(s, s->p[jd], s->p[jd + 1], g[jd], g[jd + 1], 1);
        return;
      }
    }
    /* a singularity (log |x - c|): the middle, so that no rule point
       comes within rounding of it */
    gcuba_cut_done_(s, 0.5);
    return;
  }
  default:
    return;
  }
}

/* what a finished search reports besides the cut: a jump's height, 0
   for a kink or nothing found, -1 when nothing was found and the
   integrand vanished at every point of the scan */
GCUBA_HDI double gcuba_cut_jump(const gcuba_cut *s)
{
  return s->found ? s->jump : s->zero ? -1.0 : 0.0;
}

#endif /* GCUBA_CUT_H */
