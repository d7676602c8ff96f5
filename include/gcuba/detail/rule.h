/* detail/rule.h -- fully symmetric Genz-Malik cubature rules with embedded
   null rules, as selected by Cuhre's `key`.
   This file is part of gcuba.

   Sources of the numbers (facts, not code): A. C. Genz and A. A. Malik,
   "An adaptive algorithm for numerical integration over an n-dimensional
   rectangular region", J. Comput. Appl. Math. 6 (1980) 295-302 and
   SIAM J. Numer. Anal. 20 (1983) 580-588; J. Berntsen, T. O. Espelid and
   A. Genz, "An adaptive algorithm for the approximate calculation of
   multiple integrals" / "DCUHRE", ACM TOMS 17 (1991) 437-451 and 452-456;
   and the values used by T. Hahn's Cuba 4.2.2 (Cuhre), whose results this
   header reproduces region by region.

   Overview
   --------
   A rule is a list of "sets" (orbits).  A set is every point obtained from
   one generator (ma coordinates equal to a, mb coordinates equal to b, the
   rest 0) by permuting coordinates and flipping the signs of the nonzero
   ones.  All points of a set share their weights, so a rule is evaluated
   from the per-set sums of f.  Each set carries 5 weights: index 0 is the
   cubature rule proper, 1..4 are null rules (they integrate low-degree
   polynomials to zero and measure the error).

   Coordinates: a point is given as offsets u in [-1,1]^ndim from the region
   centre in units of the half-width, x[i] = centre[i] + halfwidth[i]*u[i].
   (DCUHRE and Cuba tabulate generators in units of the full edge length; the
   values below are those numbers doubled, which is exact in binary.)

   Weights are normalised to the unit volume: sum over all points of
   weight[0] is 1, and the integral estimate is vol * sum w[0] f.

   Key selection (the same as Cuba 4.2.2's Cuhre):
     key 13 and ndim == 2  -> degree 13 rule (65 points)
     key 11 and ndim == 3  -> degree 11 rule (127 points)
     key 9, any ndim >= 2  -> degree 9 rule (Cuba does NOT fall back for
                              key 9 in 2D: it uses this rule with its
                              three-coordinate set empty)
     key 7, any ndim >= 2  -> degree 7 rule
     anything else (key 0, 13 outside 2D, 11 outside 3D, unknown keys)
                           -> 13 in 2D, 11 in 3D, 9 otherwise.
     ndim == 1 (not in Cuba)  -> Gauss-Kronrod: key 15 the G7-K15 pair,
                              any other key G10-K21 (gcuba_rule_gk)

   GCUBA_RULE_MAXDIM: the degree 7 and 9 rules contain the 2^ndim points
   (+-c, ..., +-c), and point counts/indices are ints (as in Cuba, which
   forms 2^ndim as `1 << ndim` in an int).  ndim = 30 gives about 1.07e9
   points per region, the largest count below 2^31; beyond that neither
   Cuba nor this header can represent the rule.  (In practice anything past
   ndim ~ 20 is far too expensive anyway.) */
#ifndef GCUBA_RULE_H
#define GCUBA_RULE_H

#include <math.h>
#include <string.h>
#include "gcuba/hd.h"

#define GCUBA_RULE_MAXDIM 30   /* largest ndim accepted, see above */
#define GCUBA_RULE_MAXSETS 14  /* most sets of any rule (degree 13) */
#define GCUBA_RULE_NRULES 5    /* basic rule + 4 null rules per set */

/* every per-point / per-region function: host and device, internal linkage */
#define GCUBA_RULE_FN GCUBA_HD static inline

/* one orbit of points sharing weights */
typedef struct gcuba_rule_set {
  double w[GCUBA_RULE_NRULES]; /* w[0]: rule weight, w[1..4]: null rules */
  double scale[3];  /* for null pair k (rules k+1, k+2): the factor of the
                       combination w[k+2] + scale*w[k+1] this set defines */
  double norm[3];   /* 1 / 1-norm of that combined rule over all points */
  double a, b;      /* generator values in half-width units (a > 0; b > 0
                       if mb > 0, else 0) */
  int ma, mb;       /* how many coordinates are +-a and +-b (rest are 0) */
  int first;        /* index of the first point of this set */
  int npts;         /* points in this set (0 when the orbit is empty) */
} gcuba_rule_set;

/* a complete rule for one (ndim, key): plain data, no pointers, the same
   layout on host and device, so it can be copied by value */
typedef struct gcuba_rule {
  int ndim;         /* dimension */
  int key;          /* effective key after Cuba's selection: 7, 9, 11, 13 */
  int degree;       /* polynomial degree of the basic rule (== key) */
  int nsets;        /* sets used, <= GCUBA_RULE_MAXSETS */
  int npoints;      /* total points per region */
  int reserved;     /* padding, always 0 */
  double ratio;     /* (a of set 2 / a of set 1)^2, for fourth differences */
  double errcoeff[3]; /* Cuba's error coefficients c0, c1, c2 (see combine) */
  gcuba_rule_set set[GCUBA_RULE_MAXSETS]; /* the sets, in Cuba's order */
  /* boundary probes (gcuba_rule_probe_err): nprobe points after the
     rule's, +-pu e_d for every axis d; pw[] weigh f at 0, +a1, -a1, +a2,
     -a2 (sets 1 and 2) into the quartic's value at +pu */
  int nprobe, pad;
  double pu, pw[5];
  double strip;     /* 1 - the largest generator: twice the fraction of a
                       region's width, next to each face, that no point
                       reaches (0.044 for degree 7 and 9) */
  double pd[5];     /* ndim = 1: weights of P4(pu) - P3(pu) over the five
                       outermost nodes (gcuba_rule_gk) */
  /* the axis lines (gcuba_rule_line_axis), degree 11 only: nline axis
     sets (1 .. nline) read, 0 for none; lw8[j], lw6[j]: normalised
     divided-difference weights over the nodes 0, +a1, -a1, +a2, ... (9
     and 7 of them) */
  int nline, pad2;
  double lw8[9], lw6[7];
} gcuba_rule;

/* ------------------------------------------------------------------ */
/* small combinatorics                                                   */

/* binomial coefficient C(n, k) for 0 <= n <= GCUBA_RULE_MAXDIM; 0 if k is
   out of range.  Each partial product is itself a binomial, so every
   division is exact. */
GCUBA_RULE_FN long long gcuba_rule_binom(int n, int k)
{
  long long c = 1;
  int i;
  if (k < 0 || k > n) return 0;
  if (k > n - k) k = n - k;
  for (i = 1; i <= k; ++i) c = c * (n - k + i) / i;
  return c;
}

/* Number of points of the orbit with ma coordinates +-a, mb coordinates +-b
   (a != b), in ndim dimensions: C(n,ma) C(n-ma,mb) 2^(ma+mb). */
GCUBA_RULE_FN long long gcuba_rule_orbit_size(int n, int ma, int mb)
{
  return gcuba_rule_binom(n, ma) * gcuba_rule_binom(n - ma, mb)
    * (1LL << (ma + mb));
}

/* Put value v into m of the nfree coordinates of u[0..n-1] that are still
   0, namely the idx-th m-subset of those free slots in lexicographic order
   (0 <= idx < C(nfree, m)).  Walks the slots once: c is the number of
   subsets still possible; those that take the current slot number
   c*m/nfree = C(nfree-1, m-1). */
GCUBA_RULE_FN void gcuba_rule_place(double *u, int n, int nfree, int m,
  double v, long long idx)
{
  long long c = gcuba_rule_binom(nfree, m);
  int i;
  for (i = 0; i < n && m > 0; ++i) {
    long long take;
    if (u[i] != 0) continue;
    take = c * m / nfree;
    if (idx < take) {
      u[i] = v;
      c = take;
      --m;
    }
    else {
      idx -= take;
      c -= take;
    }
    --nfree;
  }
}

/* The q-th point (0 <= q < orbit size) of the orbit of (a x ma, b x mb, 0...)
   in n dimensions, written to u[0..n-1].  Generic unranking, O(n) time:
     q = ((i_a * C(n-ma, mb)) + i_b) * 2^(ma+mb) + signs
   i_a ranks the positions of the a's among all n coordinates, i_b those of
   the b's among the remaining ones, and bit j of `signs` negates the j-th
   nonzero coordinate from the left.  So the signs vary fastest; for the
   one-coordinate orbits point 2*d is +a e_d and 2*d+1 is -a e_d. */
GCUBA_RULE_FN void gcuba_rule_orbit_point(int n, int ma, double a, int mb,
  double b, long q, double *u)
{
  int k = ma + mb, i;
  long long signs = (long long)q & ((1LL << k) - 1);
  long long rest = (long long)q >> k;
  long long nb = gcuba_rule_binom(n - ma, mb);
  for (i = 0; i < n; ++i) u[i] = 0;
  gcuba_rule_place(u, n, n, ma, a, rest / nb);
  gcuba_rule_place(u, n, n - ma, mb, b, rest % nb);
  for (i = 0; i < n; ++i)
    if (u[i] != 0) {
      if (signs & 1) u[i] = -u[i];
      signs >>= 1;
    }
}

/* ------------------------------------------------------------------ */
/* queries and points                                                    */

/* points per region */
GCUBA_RULE_FN int gcuba_rule_npoints(const gcuba_rule *r)
{
  return r->npoints;
}

/* evaluations per region: the rule's points and its boundary probes
   (gcuba_rule_probe_err), numbered 0 .. nevals - 1 by gcuba_rule_point */
GCUBA_RULE_FN int gcuba_rule_nevals(const gcuba_rule *r)
{
  return r->npoints + r->nprobe;
}

/* polynomial degree of the basic rule */
GCUBA_RULE_FN int gcuba_rule_degree(const gcuba_rule *r)
{
  return r->degree;
}

/* the set that point p belongs to; -1 if p is out of range */
GCUBA_RULE_FN int gcuba_rule_set_of_point(const gcuba_rule *r, long p)
{
  int s;
  for (s = 0; s < r->nsets; ++s)
    if (p >= r->set[s].first && p < (long)r->set[s].first + r->set[s].npts)
      return s;
  return -1;
}

/* Point p (0 <= p < npoints) as half-width offsets u[0..ndim-1] from the
   centre.  Points are numbered set by set, in Cuba's set order, and inside
   a set as in gcuba_rule_orbit_point; npoints <= p < npoints + nprobe are
   the boundary probes (gcuba_rule_probe_err).  Any other p gives the
   centre.
   Consequently point 0 is the centre, points 1 .. 2*ndim are set 1 and
   points 2*ndim+1 .. 4*ndim are set 2 (both one-coordinate orbits in every
   rule), with +a e_d at 1+2d and -a e_d at 2+2d within set 1. */
GCUBA_RULE_FN void gcuba_rule_point(const gcuba_rule *r, long p, double *u)
{
  int s = gcuba_rule_set_of_point(r, p), i;
  const gcuba_rule_set *t;
  if (s < 0 && p >= r->npoints && p < (long)r->npoints + r->nprobe) {
    /* probe j: +pu e_{j/2} for even j, -pu e_{j/2} for odd j */
    long j = p - r->npoints;
    for (i = 0; i < r->ndim; ++i) u[i] = 0;
    u[j >> 1] = j & 1 ? -r->pu : r->pu;
    return;
  }
  if (s < 0) {
    for (i = 0; i < r->ndim; ++i) u[i] = 0;
    return;
  }
  t = &r->set[s];
  gcuba_rule_orbit_point(r->ndim, t->ma, t->a, t->mb, t->b, p - t->first, u);
}

/* ------------------------------------------------------------------ */
/* evaluation                                                            */

#include "errest.h"

/* Integral and error of one component over one region from the per-set
   sums setsum[s] (sum of f over the points of set s, s < nsets); vol is
   the region's volume.
     q_k = sum_s w_k(s) setsum[s]                  (k = 0..4)
     avg = vol q_0
   Null-rule search (DCUHRE): for each pair of successive null rules
   (k, k+1), k = 1..3, the candidates are the normalised combinations
   q_{k+1} + scale_s q_k, one per set s (the combination that cancels the
   set's own weight; see gcuba_rule_init), and
     e_k = max_s |q_{k+1} + scale_s q_k| norm_s,
   err = vol gcuba_rule_nullerr(e, trusted, line), line the axis lines'
   guard (gcuba_rule_line_guard; 0 for none).  Returns
   gcuba_rule_nullerr's *flags. */
GCUBA_RULE_FN int gcuba_rule_combine(const gcuba_rule *r,
  const double *setsum, double vol, int trusted, double line, double *avg,
  double *err)
{
  double q[GCUBA_RULE_NRULES] = {0, 0, 0, 0, 0}, e[3];
  int s, k, flags;
  for (s = 0; s < r->nsets; ++s)
    for (k = 0; k < GCUBA_RULE_NRULES; ++k)
      q[k] += r->set[s].w[k] * setsum[s];
  for (k = 0; k < 3; ++k) {
    double m = 0;
    for (s = 0; s < r->nsets; ++s) {
      double v = fabs(q[k + 2] + r->set[s].scale[k] * q[k + 1])
        * r->set[s].norm[k];
      if (v > m) m = v;
    }
    e[k] = m;
  }
  *avg = vol * q[0];
  *err = vol * gcuba_rule_nullerr(r, e, trusted, line, &flags);
  return flags;
}

/* index (into the rule's point list) of axis point j = 0..3 of axis dim:
   j = 0, 1: +a1 e_dim, -a1 e_dim (set 1); j = 2, 3: +a2 e_dim, -a2 e_dim
   (set 2).  All 4*ndim axis points are the contiguous range 1 .. 4*ndim. */
GCUBA_RULE_FN int gcuba_rule_axis_point(const gcuba_rule *r, int dim, int j)
{
  return 1 + (j >> 1) * 2 * r->ndim + 2 * dim + (j & 1);
}

/* Fourth difference along axis dim (DCUHRE's criterion for the split
   axis), with a1, a2 the generators of sets 1 and 2 and
   ratio = (a2/a1)^2:
     | 2 (1 - ratio) f(0) + ratio (f(a1 e) + f(-a1 e)) - (f(a2 e) + f(-a2 e)) |
   which cancels the constant and quadratic terms along the axis.
   fcentre = f at point 0; faxis[i*stride] = f at point 1 + i for
   i = 0 .. 4*ndim-1 (every axis point; see gcuba_rule_axis_point). */
GCUBA_RULE_FN double gcuba_rule_fourthdiff_strided(const gcuba_rule *r,
  int dim, double fcentre, const double *faxis, long stride)
{
  const double *f1 = faxis + (long)(2 * dim) * stride;
  const double *f2 = f1 + (long)(2 * r->ndim) * stride;
  return fabs(fcentre * 2 * (1 - r->ratio)
    + r->ratio * (f1[0] + f1[stride]) - (f2[0] + f2[stride]));
}

/* the same for contiguous values: faxis[i] = f at point 1 + i,
   i < 4*ndim */
GCUBA_RULE_FN double gcuba_rule_fourthdiff(const gcuba_rule *r, int dim,
  double fcentre, const double *faxis)
{
  return gcuba_rule_fourthdiff_strided(r, dim, fcentre, faxis, 1);
}

/* Axis with the largest fourth difference (lowest index on ties); if no
   axis has a positive one, `fallback`.  Cuba uses as fallback the widest
   axis of the region (gcuba_rule_widest).  Arguments as in
   gcuba_rule_fourthdiff_strided. */
GCUBA_RULE_FN int gcuba_rule_splitdim(const gcuba_rule *r, double fcentre,
  const double *faxis, long stride, int fallback)
{
  double best = 0;
  int d, dim = fallback;
  for (d = 0; d < r->ndim; ++d) {
    double v = gcuba_rule_fourthdiff_strided(r, d, fcentre, faxis, stride);
    if (v > best) {
      best = v;
      dim = d;
    }
  }
  return dim;
}

/* widest axis (lowest index on ties) of a region with the given widths,
   the fallback split axis Cuba uses */
GCUBA_RULE_FN int gcuba_rule_widest(int ndim, const double *width)
{
  double best = 0;
  int d, dim = 0;
  for (d = 0; d < ndim; ++d)
    if (width[d] > best) {
      best = width[d];
      dim = d;
    }
  return dim;
}

/* Axis lines (the degree 11 rule, three dimensions).  The rule's null
   rules of degree 9 see a peak along one axis through its degree 8
   content; multiplied by a smooth factor along another axis, the
   products of the factor's curvature (its second Legendre part) with
   the peak's degree 8 part enter the same null rules with the opposite
   sign and cancel the peak's own term, while the basic rule's error (of
   degree 12) barely changes.  The null values then fall off fast and
   the rule's error is taken from the cancelled first one: a region of a
   3-D Lorentzian of width 0.054 (bench-peaks, seed 1) was given 1/1245
   of its true error, and such regions made the call claim 1e-5 with a
   true error 7.7 times that.  Along each axis the centre and the axis
   points of sets 1-4 (0, +-0.19, +-0.5, +-0.75, +-0.8 half-widths) give
   the line's normalised divided differences D8 (nine nodes) and D6 (the
   inner seven), which the other axes' factors only scale.  Where D8
   does not fall off (c0 D8 > D6) and its share of the second null
   value, GCUBA_RULE_LINE_CAL8 D8 (the ratio of e_2 to D8 for u^8 along
   an axis), exceeds e_2, the null values missed what the line shows:
   the region does not take the fast-decay estimate; and outside deep
   regions that share is the least estimate (gcuba_rule_nullerr).
   Over the 29,791 dyadic boxes of that Lorentzian (per-axis levels 0 to
   4, one rule application each), boxes underestimated more than 3 times
   64 -> 7 (worst 1245 -> 131 times); bench-peaks --dims 3, five seeds:
   false claims 3 -> 1 for 0.2-0.5 % more evaluations (bench/RESULTS.md).
   gcuba_rule_line_axis: axis d's value, GCUBA_RULE_LINE_CAL8 D8 where it
   flags, else 0; fcentre, faxis, stride as in
   gcuba_rule_fourthdiff_strided, faxis holding the axis points of sets
   1 .. nline. */
#define GCUBA_RULE_LINE_CAL8 0.335161
GCUBA_RULE_FN double gcuba_rule_line_axis(const gcuba_rule *r, int d,
  double fcentre, const double *faxis, long stride)
{
  double d8 = r->lw8[0] * fcentre, d6 = r->lw6[0] * fcentre;
  int j;
  for (j = 0; j < 4; ++j) {
    const long k = (long)(r->set[1 + j].first - 1 + 2 * d) * stride;
    d8 += r->lw8[1 + 2 * j] * faxis[k]
      + r->lw8[2 + 2 * j] * faxis[k + stride];
    if (j < 3)
      d6 += r->lw6[1 + 2 * j] * faxis[k]
        + r->lw6[2 + 2 * j] * faxis[k + stride];
  }
  d8 = fabs(d8);
  return r->nline && r->errcoeff[0] * d8 > fabs(d6)
    ? GCUBA_RULE_LINE_CAL8 * d8 : 0;
}
/* the largest over the axes (0 without axis lines) */
GCUBA_RULE_FN double gcuba_rule_line_guard(const gcuba_rule *r,
  double fcentre, const double *faxis, long stride)
{
  double g = 0;
  int d;
  if (!r->nline) return 0;
  for (d = 0; d < r->ndim; ++d) {
    const double v = gcuba_rule_line_axis(r, d, fcentre, faxis, stride);
    if (v > g) g = v;
  }
  return g;
}
/* how many points, from the centre on, a region keeps the values of for
   the fourth differences, the probes and the axis lines: the centre and
   the axis sets 1 and 2, and in three dimensions sets 3 and 4 too (the
   degree 11 rule's lines; the other rules' points there are kept and
   not used).  A function of the dimension alone, so that a kernel of
   fixed dimension knows it at compile time. */
GCUBA_RULE_FN int gcuba_rule_naxis(int ndim)
{
  return 1 + (ndim == 3 ? 8 : 4) * ndim;
}

/* Which rule Cuba's Cuhre uses for (ndim, key); see the header comment. */
static inline int gcuba_rule_select(int ndim, int key)
{
  if (ndim == 1) return key == 15 ? 15 : 21;
  if (key == 13 && ndim == 2) return 13;
  if (key == 11 && ndim == 3) return 11;
  if (key == 9 || key == 7) return key;
  return ndim == 2 ? 13 : ndim == 3 ? 11 : 9;
}

#include "gk.h"



/* Apply the rule to one region.  f[p*ncomp + c] is component c at point p
   (all npoints points, in point order; in one dimension also the probes
   after them, all gcuba_rule_nevals points); vol is the region's volume.
   Outputs avg[c], err[c] (gcuba_rule_combine) for c < ncomp and, unless
   splitdim is NULL, splitdim[c] for every component c (an array of ncomp
   ints): the axis to bisect as judged by component c alone.  Cuba decides
   per component and then bisects along the axis of the component whose
   total error is worst relative to its tolerance.  On entry splitdim[0]
   holds the fallback axis for components whose fourth differences are all
   zero (Cuba: the region's widest axis); out of range means 0.  perr:
   the parent record (gcuba_rule_parent_err) of each component, or NULL
   for a region without one; splitdim[c] carries GCUBA_RULE_DECAYS as
   gcuba_rule_combine returns it, and GCUBA_RULE_LOOSE. */
GCUBA_RULE_FN void gcuba_rule_apply(const gcuba_rule *r, int ncomp,
  const double *f, double vol, const double *perr, double *avg,
  double *err, int *splitdim)
{
  int fallback = 0, c, s;
  if (r->ndim == 1) {
    gcuba_rule_gk(r, ncomp, f, vol, avg, err);
    if (splitdim)
      for (c = 0; c < ncomp; ++c) splitdim[c] = 0;
    return;
  }
  if (splitdim && splitdim[0] >= 0 && splitdim[0] < r->ndim)
    fallback = splitdim[0];
  for (c = 0; c < ncomp; ++c) {
    double setsum[GCUBA_RULE_MAXSETS];
    for (s = 0; s < r->nsets; ++s) {
      double sum = 0;
      long p, end = (long)r->set[s].first + r->set[s].npts;
      for (p = r->set[s].first; p < end; ++p) sum += f[p * ncomp + c];
      setsum[s] = sum;
    }
    s = gcuba_rule_combine(r, setsum, vol,
      perr ? gcuba_rule_trusted(perr[c], vol, r->ndim, r->degree) : 0,
      gcuba_rule_line_guard(r, f[c], f + ncomp + c, ncomp), &avg[c],
      &err[c]);
    if (splitdim)
      splitdim[c] = gcuba_rule_splitdim(r, f[c], f + ncomp + c, ncomp,
        fallback) | s;
  }
}

/* Boundary probes.  The degree 7 and 9 rules reach only 0.956 of the
   half-width along the axes, so a jump that lies in the strip between
   their outermost points and a face is not seen by any point: the rules
   agree and the region is finished with a wrong value (a step at 0.123456
   in 4D at epsrel 1e-3: a true error 7e-3 reported as 2e-16).
   Two probes per axis, at +-pu = +-(1 - 2^-10) half-widths, are compared
   with the quartic through f at 0, +-a1, +-a2 on the same axis.  A smooth
   integrand departs from it by its fifth derivative over a short
   extrapolation: little against the spread of those five values, and
   little against their fourth difference (which measures the quartic's
   own curvature).  A probe that departs by more than GCUBA_PROBE_KAPPA
   times the spread (a jump) or GCUBA_PROBE_KAPPA4 times the fourth
   difference (a kink: the five values lie on a line, the probe does not)
   shows a feature the rule cannot see.  What the rule misses there is
   bounded by the strips' share of the region (strip = 1 - the largest
   generator, 0.044: twice one strip's width, a factor 2 for safety) times
   that departure, so the region's error becomes at least vol * strip *
   departure and it is split until the strips' share is within the
   tolerance.  (A kink exp(-|x - 0.123456| / 0.2) in 5D at 1e-5 was
   claimed with a true error of 2e-4 before the second test.)  The
   degree 11 and 13 rules reach the faces (0.995 to 1.0) and take no
   probes.
   fcentre, faxis, stride as in gcuba_rule_fourthdiff_strided; fprobe[j *
   pstride] is f at probe j < nprobe.  Returns the error floor, or 0; a
   caller whose region takes the floor as its error splits it along
   *axis, the axis of the largest departure (set when the floor is > 0):
   the feature is next to that axis' faces, and splitting another axis,
   as the fourth differences (which do not see it) would choose, leaves
   it in the strip of every child (a Genz discontinuous integrand cut at
   x2 = 0.019 in 5D was claimed with a 20% error). */
#define GCUBA_PROBE_KAPPA 0.25
#define GCUBA_PROBE_KAPPA4 16
/* axis d's part: the largest departure of its two probes that shows a
   feature (the probe at +pu first), or 0.  The GPU kernel takes the axes
   on lanes of a warp (gcuba/detail/cuhre_kernels.cuh), the largest one
   and the lowest axis among equals, as gcuba_rule_probe_err does in
   turn. */
GCUBA_RULE_FN double gcuba_rule_probe_axis(const gcuba_rule *r, int d,
  double fcentre, const double *faxis, long stride, const double *fprobe,
  long pstride)
{
  const double *f1 = faxis + (long)(2 * d) * stride;
  const double *f2 = f1 + (long)(2 * r->ndim) * stride;
  double v[5], lo, hi, big = 0, fd, worst = 0;
  int j;
  v[0] = fcentre;
  v[1] = f1[0];
  v[2] = f1[stride];
  v[3] = f2[0];
  v[4] = f2[stride];
  lo = hi = v[0];
  for (j = 0; j < 5; ++j) {
    if (v[j] < lo) lo = v[j];
    if (v[j] > hi) hi = v[j];
    if (fabs(v[j]) > big) big = fabs(v[j]);
  }
  fd = gcuba_rule_fourthdiff_strided(r, d, fcentre, faxis, stride);
  for (j = 0; j < 2; ++j) {
    /* at -pu the quartic's weights are mirrored: +a <-> -a */
    double pred = j == 0
      ? r->pw[0] * v[0] + r->pw[1] * v[1] + r->pw[2] * v[2] +
        r->pw[3] * v[3] + r->pw[4] * v[4]
      : r->pw[0] * v[0] + r->pw[1] * v[2] + r->pw[2] * v[1] +
        r->pw[3] * v[4] + r->pw[4] * v[3];
    double fp = fprobe[(long)(2 * d + j) * pstride];
    double dev = fabs(fp - pred);
    if (fabs(fp) > big) big = fabs(fp);
    if (dev > 1e-12 * big && dev > worst &&
        (dev > GCUBA_PROBE_KAPPA * (hi - lo) ||
         dev > GCUBA_PROBE_KAPPA4 * fd))
      worst = dev;
  }
  return worst;
}
GCUBA_RULE_FN double gcuba_rule_probe_err(const gcuba_rule *r,
  double fcentre, const double *faxis, long stride, const double *fprobe,
  long pstride, double vol, int *axis)
{
  double worst = 0;
  int d;
  for (d = 0; d < r->nprobe / 2; ++d) {
    const double dev = gcuba_rule_probe_axis(r, d, fcentre, faxis, stride,
                                             fprobe, pstride);
    if (dev > worst) {
      worst = dev;
      *axis = d;
    }
  }
  return vol * r->strip * worst;
}


/* ------------------------------------------------------------------ */
/* construction (host only)                                              */

/* orbit shapes: (ma, mb); ma == -1 means all ndim coordinates */
enum {
  GCUBA_RULE_CENTRE,    /* (0, ..., 0)                 1 point      */
  GCUBA_RULE_AXIS,      /* (a, 0, ...)                 2n           */
  GCUBA_RULE_PAIR,      /* (a, a, 0, ...)              2n(n-1)      */
  GCUBA_RULE_PAIR_AB,   /* (a, b, 0, ...)              4n(n-1)      */
  GCUBA_RULE_TRIPLE,    /* (a, a, a, 0, ...)           4n(n-1)(n-2)/3 */
  GCUBA_RULE_TRIPLE_ABB,/* (a, b, b, 0, ...)           4n(n-1)(n-2) */
  GCUBA_RULE_TRIPLE_AAB,/* (a, a, b, 0, ...)           4n(n-1)(n-2) */
  GCUBA_RULE_CORNER     /* (a, a, ..., a)              2^n          */
};

/* One set of a rule table: its shape, indices of a and b in the rule's
   generator list, and weights as polynomials in n = ndim,
   w_k = c[k][0] + c[k][1] n + c[k][2] n^2 + c[k][3] n^3.  For a CORNER set
   the polynomial gives the weight summed over the orbit (it is divided by
   2^n).  The fixed-dimension rules only use c[k][0]. */
typedef struct gcuba_rule_row {
  signed char shape, ga, gb;
  double c[GCUBA_RULE_NRULES][4];
} gcuba_rule_row;



/* Build the rule for (ndim, key) into *r.  Host only.  Returns 0, or -1
   (and leaves *r zeroed) if ndim < 1 or ndim > GCUBA_RULE_MAXDIM. */
static inline int gcuba_rule_init(gcuba_rule *r, int ndim, int key)
{
  /* shape -> (ma, mb) */
  static const signed char shapes[][2] = {
    {0, 0}, {1, 0}, {2, 0}, {1, 1}, {3, 0}, {1, 2}, {2, 1}, {-1, 0}
  };

  /* Degree 13, ndim 2 (DCUHRE key 1): generators and weights. */
  static const double gen13[] = {
    0.2517129343453109, 0.7013933644534266, 0.9590960631619962,
    0.9956010478552128, 0.5, 0.1594544658297559, 0.3808991135940188,
    0.6582769255267192, 0.8761473165029315, 0.998243184053198,
    0.9790222658168461, 0.6492284325645389, 0.8727421201131239,
    0.3582614645881228, 0.5666666666666667, 0.2077777777777778
  };
  static const gcuba_rule_row rule13[] = {
    {GCUBA_RULE_CENTRE, 0, 0, {{.00844923090033615}, {.3213775489050763},
      {.3372900883288987}, {-.8264123822525677}, {.6539094339575232}}},
    {GCUBA_RULE_AXIS, 0, 0, {{.023771474018994404}, {-.1767341636743844},
      {-.1644903060344491}, {.306583861409436}, {-.2041614154424632}}},
    {GCUBA_RULE_AXIS, 1, 0, {{.02940016170142405}, {.07347600537466073},
      {.07707849911634623}, {.002389292538329435}, {-.174698151579499}}},
    {GCUBA_RULE_AXIS, 2, 0, {{.006644436465817374}, {-.03638022004364754},
      {-.03804478358506311}, {-.1343024157997222}, {.03937939671417803}}},
    {GCUBA_RULE_AXIS, 3, 0, {{.0042536044255016}, {.021252979220987123},
      {.02223559940380806}, {.08833366840533902}, {.006974520545933992}}},
    {GCUBA_RULE_AXIS, 4, 0, {{0}, {.1460984204026913},
      {.1480693879765931}, {0}, {0}}},
    {GCUBA_RULE_PAIR, 5, 0, {{.0040664827465935255}, {.017476132861520992},
      {4.467143702185815e-6}, {.0009786283074168292},
      {.0066677021717782585}}},
    {GCUBA_RULE_PAIR, 6, 0, {{.03362231646315497}, {.1444954045641582},
      {.150894476707413}, {-.1319227889147519}, {.05512960621544304}}},
    {GCUBA_RULE_PAIR, 7, 0, {{.033200804136503725}, {.0001307687976001325},
      {3.6472001075162155e-5}, {.00799001220015063}, {.05443846381278608}}},
    {GCUBA_RULE_PAIR, 8, 0, {{.014093686924979677}, {.0005380992313941161},
      {.000577719899901388}, {.0033917470797606257}, {.02310903863953934}}},
    {GCUBA_RULE_PAIR, 9, 0, {{.000977069770327625}, {.0001042259576889814},
      {.0001041757313688177}, {.0022949157182832643}, {.01506937747477189}}},
    {GCUBA_RULE_PAIR_AB, 10, 11, {{.007531996943580376},
      {-.001401152865045733}, {-.001452822267047819}, {-.01358584986119197},
      {-.060570216489018905}}},
    {GCUBA_RULE_PAIR_AB, 12, 13, {{.02577183086722915},
      {.008041788181514763}, {.008338339968783704}, {.04025866859057809},
      {.04225737654686337}}},
    {GCUBA_RULE_PAIR_AB, 14, 15, {{.015625}, {-.1420416552759383},
      {-.147279632923196}, {.003760268580063992}, {.02561989142123099}}}
  };

  /* Degree 11, ndim 3 (DCUHRE key 2). */
  static const double gen11[] = {
    0.19, 0.5, 0.75, 0.8, 0.995, 0.99873449983514, 0.7793703685672423,
    0.9999698993088767, 0.7902637224771788, 0.4403396687650737,
    0.9549373822794593, 0.4378478459006862, 0.9661093133630748,
    0.4577105877763134
  };
  static const gcuba_rule_row rule11[] = {
    {GCUBA_RULE_CENTRE, 0, 0, {{.0009903847688882167}, {1.715006248224684},
      {1.936014978949526}, {.517082819560576}, {2.05440450381852}}},
    {GCUBA_RULE_AXIS, 0, 0, {{.0084964717409851}, {-.3755893815889209},
      {-.3673449403754268}, {.01445269144914044}, {.013777599884901202}}},
    {GCUBA_RULE_AXIS, 1, 0, {{.00013587331735072814}, {.1488632145140549},
      {.02929778657898176}, {-.3601489663995932}, {-.576806291790441}}},
    {GCUBA_RULE_AXIS, 2, 0, {{.022982920777660364}, {-.2497046640620823},
      {-.1151883520260315}, {.3628307003418485}, {.03726835047700328}}},
    {GCUBA_RULE_AXIS, 3, 0, {{.004202649722286289}, {.1792501419135204},
      {.05086658220872218}, {.007148802650872729}, {.0068148789397772195}}},
    {GCUBA_RULE_AXIS, 4, 0, {{.0012671889041675774}, {.0034461267589738897},
      {.04453911087786469}, {-.09222852896022966}, {.057231697338518496}}},
    {GCUBA_RULE_PAIR, 5, 0, {{.0002109560854981544}, {-.005140483185555825},
      {-.022878282571259}, {.01719339732471725}, {-.044930187438112855}}},
    {GCUBA_RULE_PAIR, 6, 0, {{.016830857056410086}, {.006536017839876424},
      {.02908926216345833}, {-.102141653746035}, {.027292365738663484}}},
    {GCUBA_RULE_TRIPLE, 7, 0, {{.00021876823557504823},
      {-.00065134549392297}, {-.002898884350669207}, {-.007504397861080493},
      {.000354747395055699}}},
    {GCUBA_RULE_TRIPLE, 8, 0, {{.009690420479796819},
      {-.006304672433547204}, {-.028059634133074954}, {.01648362537726711},
      {.01571366799739551}}},
    {GCUBA_RULE_TRIPLE, 9, 0, {{.030773311284628138}, {.01266959399788263},
      {.05638741361145884}, {.05234610158469334}, {.049900992192785674}}},
    {GCUBA_RULE_TRIPLE_ABB, 10, 11, {{.0084974310856038},
      {-.005454241018647931}, {-.02427469611942451}, {.014454323316130661},
      {.0137791555266677}}},
    {GCUBA_RULE_TRIPLE_AAB, 12, 13, {{.0017749535291258914},
      {.004826995274768427}, {.021483070341828822}, {.003019236275367777},
      {.0028782064230998723}}}
  };

  /* Degree 9, any ndim (DCUHRE key 3).  The n-dependent weights are
     DCUHRE's/Cuba's closed forms expanded into polynomials in n; each
     coefficient is the correctly rounded value of the exact combination of
     their 40-digit constants. */
  static const double gen9[] = {
    0.955907315804539, 0.4060571747382397, 0.8952547092523563, 0.25,
    0.6860757975617563
  };
  static const gcuba_rule_row rule9[] = {
    {GCUBA_RULE_CENTRE, 0, 0, {
      {0.748499885046852, -0.6383392007670239, 0.11415390023857325,
       -0.002361170967785512},
      {0.06287502873828699, -0.14225104571434244, 0.05747150786448973,
       -0.0014324017033399126},
      {-0.06287502873828699, 0.39684217896330154, -0.05747150786448973,
       0.0014324017033399126},
      {-0.25150011495314795, 0.2573344568745829, -1.093174666439663,
       -0.002361170967785512},
      {0.25150011495314795, 0.27354563090653244, -0.11415390023857325,
       0.002361170967785512}}},
    {GCUBA_RULE_AXIS, 0, 0, {
      {0.10557491625218991, -0.07260936739589367, 0.0035417564516782678},
      {0.010636783990231217, -0.03226856389295395, 0.0021486025550098687},
      {0.004052318505912273, 0.03226856389295395, -0.0021486025550098687},
      {0.5653393974602533, 0.43873771606878226, 0.0035417564516782678},
      {0.07682186867805582, 0.07260936739589367, -0.0035417564516782678}}},
    {GCUBA_RULE_AXIS, 1, 0, {
      {0.21415883524352794, -0.04508628929435784},
      {0.05494106704871123, -0.027351546526545645},
      {0.06443489497699652, 0.027351546526545645},
      {0.1474493982943446, 0.6508951939192025},
      {-0.21415883524352794, 0.04508628929435784}}},
    {GCUBA_RULE_AXIS, 2, 0, {{0.057693384490973484}, {0.034999626602143584},
      {-0.057693384490973484}, {-1.3868627719278281},
      {-0.057693384490973484}}},
    {GCUBA_RULE_AXIS, 3, 0, {{0}, {0}, {-0.23866687325750088}, {0}, {0}}},
    {GCUBA_RULE_PAIR, 0, 0, {
      {0.015532417276607053, -0.0035417564516782678},
      {0.003532809960709087, -0.0021486025550098687},
      {-0.003532809960709087, 0.0021486025550098687},
      {0.10784961715104927, -0.0035417564516782678},
      {-0.015532417276607053, 0.0035417564516782678}}},
    {GCUBA_RULE_PAIR_AB, 0, 1, {{0.02254314464717892},
      {0.013675773263272822}, {-0.013675773263272822},
      {-0.32544759695960124}, {-0.02254314464717892}}},
    {GCUBA_RULE_TRIPLE, 0, 0, {{0.0017708782258391339},
      {0.0010743012775049343}, {-0.0010743012775049343},
      {0.0017708782258391339}, {-0.0017708782258391339}}},
    {GCUBA_RULE_CORNER, 4, 0, {{0.25150011495314795},
      {-0.06287502873828699}, {0.06287502873828699}, {0.25150011495314795},
      {-0.25150011495314795}}}
  };

  /* Degree 7, any ndim (DCUHRE key 4), same conventions. */
  static const double gen7[] = {
    0.955907315804539, 0.4060571747382397, 0.75, 0.6860757975617563
  };
  static const gcuba_rule_row rule7[] = {
    {GCUBA_RULE_CENTRE, 0, 0, {
      {0.6448566876746599, -0.40385257701150185, 0.019417866674748388},
      {0.08878582808133505, -0.18041318740733608, 0.011779826907758062},
      {-0.08878582808133505, 0.23674183321562203, -0.011779826907758062},
      {0.1775716561626701, -0.9912917677958236, -0.009708933337374194},
      {0.3551433123253402, 0.40385257701150185, -0.019417866674748388}}},
    {GCUBA_RULE_AXIS, 1, 0, {{0.12359398032043234}, {0.07497814870203369},
      {-0.12359398032043234}, {0.5548914705142356},
      {-0.12359398032043234}}},
    {GCUBA_RULE_AXIS, 0, 0, {
      {0.08804124152269277, -0.019417866674748388},
      {0.021118358455513384, -0.011779826907758062},
      {-0.031048578779478718, 0.011779826907758062},
      {-0.06410005328501091, 0.009708933337374194},
      {-0.08804124152269277, 0.019417866674748388}}},
    {GCUBA_RULE_AXIS, 2, 0, {{0}, {0}, {0.03038172903822101}, {0}, {0}}},
    {GCUBA_RULE_PAIR, 0, 0, {{0.009708933337374194},
      {0.005889913453879031}, {-0.005889913453879031},
      {-0.004854466668687097}, {-0.009708933337374194}}},
    {GCUBA_RULE_CORNER, 3, 0, {{0.3551433123253402}, {-0.08878582808133505},
      {0.08878582808133505}, {-0.1775716561626701},
      {-0.3551433123253402}}}
  };

  /* per key: table, generators, number of sets, Cuba's error coefficients */
  static const struct {
    int key, nsets;
    const gcuba_rule_row *rows;
    const double *gen;
    double errcoeff[3];
  } rules[] = {
    {13, 14, rule13, gen13, {10, 1, 5}},
    {11, 13, rule11, gen11, {4, .5, 3}},
    {9, 9, rule9, gen9, {5, 1, 5}},
    {7, 6, rule7, gen7, {5, 1, 5}}
  };

  int i, s, k, x, sel, total = 0;
  double n = ndim, reach;
  unsigned char *bytes = (unsigned char *)r;

  for (i = 0; i < (int)sizeof *r; ++i) bytes[i] = 0;
  if (ndim == 1) return gcuba_rule_init_gk(r, key);
  if (ndim < 2 || ndim > GCUBA_RULE_MAXDIM) return -1;

  sel = gcuba_rule_select(ndim, key);
  for (i = 0; rules[i].key != sel; ++i) continue;

  r->ndim = ndim;
  r->key = r->degree = sel;
  r->nsets = rules[i].nsets;
  for (k = 0; k < 3; ++k) r->errcoeff[k] = rules[i].errcoeff[k];

  for (s = 0; s < r->nsets; ++s) {
    const gcuba_rule_row *row = &rules[i].rows[s];
    gcuba_rule_set *t = &r->set[s];
    int ma = shapes[(int)row->shape][0], mb = shapes[(int)row->shape][1];
    if (ma < 0) ma = ndim;
    t->ma = ma;
    t->mb = mb;
    t->a = rules[i].gen[(int)row->ga];
    t->b = mb ? rules[i].gen[(int)row->gb] : 0;
    t->first = total;
    t->npts = (int)gcuba_rule_orbit_size(ndim, ma, mb);
    total += t->npts;
    for (k = 0; k < GCUBA_RULE_NRULES; ++k) {
      const double *c = row->c[k];
      double w = ((c[3] * n + c[2]) * n + c[1]) * n + c[0];
      t->w[k] = row->shape == GCUBA_RULE_CORNER ? ldexp(w, -ndim) : w;
    }
  }
  r->npoints = total;
  r->ratio = (r->set[2].a / r->set[1].a) * (r->set[2].a / r->set[1].a);

  /* boundary probes where the axis points stay off the faces (degree 7
     and 9; see gcuba_rule_probe_err): the Lagrange weights of the nodes
     0, +a1, -a1, +a2, -a2 at pu */
  r->nprobe = r->pad = 0;
  r->pu = 1 - ldexp(1, -10);
  reach = 0;
  for (s = 1; s < r->nsets; ++s) {
    if (r->set[s].a > reach) reach = r->set[s].a;
    if (r->set[s].b > reach) reach = r->set[s].b;
  }
  r->strip = 1 - reach;
  if (reach < .99) {
    const double z[5] = {0, r->set[1].a, -r->set[1].a, r->set[2].a,
                         -r->set[2].a};
    r->nprobe = 2 * ndim;
    for (k = 0; k < 5; ++k) {
      double w = 1;
      for (x = 0; x < 5; ++x)
        if (x != k) w *= (r->pu - z[x]) / (z[k] - z[x]);
      r->pw[k] = w;
    }
  }

  /* the axis lines' weights (degree 11: sets 1-4 are axis sets) */
  if (sel == 11) {
    double z[9], n8 = 0, n6 = 0;
    r->nline = 4;
    z[0] = 0;
    for (k = 0; k < 4; ++k) {
      z[1 + 2 * k] = r->set[1 + k].a;
      z[2 + 2 * k] = -r->set[1 + k].a;
    }
    for (k = 0; k < 9; ++k) {
      double w8 = 1, w6 = 1;
      for (x = 0; x < 9; ++x)
        if (x != k) {
          w8 /= z[k] - z[x];
          if (x < 7) w6 /= z[k] - z[x];
        }
      r->lw8[k] = w8;
      n8 += fabs(w8);
      if (k < 7) {
        r->lw6[k] = w6;
        n6 += fabs(w6);
      }
    }
    for (k = 0; k < 9; ++k) r->lw8[k] /= n8;
    for (k = 0; k < 7; ++k) r->lw6[k] /= n6;
  }

  /* For null pair k (rules k+1 and k+2) each set s defines the
     combination N_s = w_{k+2} + scale_s w_{k+1} that has zero weight on
     s itself (scale 100 when w_{k+1}(s) = 0), normalised by its 1-norm
     over all points: norm_s = 1 / sum_x npts_x |N_s(x)|. */
  for (s = 0; s < r->nsets; ++s)
    for (k = 0; k < 3; ++k) {
      gcuba_rule_set *t = &r->set[s];
      double sc = t->w[k + 1] == 0 ? 100 : -t->w[k + 2] / t->w[k + 1];
      double sum = 0;
      for (x = 0; x < r->nsets; ++x)
        sum += r->set[x].npts
          * fabs(r->set[x].w[k + 2] + sc * r->set[x].w[k + 1]);
      t->scale[k] = sc;
      t->norm[k] = 1 / sum;
    }
  return 0;
}

#endif /* GCUBA_RULE_H */
