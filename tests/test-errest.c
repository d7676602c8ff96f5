/* tests/test-errest.c -- checks of the pieces of gCuhre's error
   estimate in gcuba/detail/errest.h: the null-rule error
   (gcuba_rule_nullerr: Cuba's branches, the bridge, deep regions and
   their flags, the parent records and trust levels), the two-level
   correction and the cap of loose children (gcuba_twolevel), the
   boundary probes (gcuba_rule_probe_err) and the degree 11 rule's axis
   lines (gcuba_rule_line_axis, and the least estimate they give).
   This file is part of gcuba. */
#include <stdio.h>
#include <stdlib.h>
#include <math.h>
#include "gcuba/detail/rule.h"
#include "tap.h"

static void check_twolevel(void)
{
  double a1, e1, a2, e2;
  /* children agree with parent: nothing changes */
  a1 = 0.3, e1 = 1e-3, a2 = 0.7, e2 = 3e-3;
  gcuba_twolevel(1.0, 5e-3, &a1, &e1, NULL, &a2, &e2, NULL);
  ok(a1 == 0.3 && a2 == 0.7 && e1 == 1e-3 && e2 == 3e-3,
    "twolevel: consistent children keep their errors");
  /* disagreement D: total grows by |D|, the excess over D/4 keeps the
     proportion, averages untouched, sign of D irrelevant */
  {
    double D = 0.02, b1, f1, b2, f2, d = D / 4;
    a1 = 0.3, e1 = 1e-3, a2 = 0.7 + D, e2 = 3e-3;
    gcuba_twolevel(1.0, 5e-3, &a1, &e1, NULL, &a2, &e2, NULL);
    b1 = 0.3, f1 = 1e-3, b2 = 0.7 - D, f2 = 3e-3;
    gcuba_twolevel(1.0, 5e-3, &b1, &f1, NULL, &b2, &f2, NULL);
    ok(close_rel(e1 + e2, 4e-3 + D, 1e-14)
      && close_rel((e1 - d) / (e2 - d), 1.0 / 3, 1e-13)
      && close_rel(e1, 1e-3 * (1 + 2 * d / 4e-3) + d, 1e-15)
      && a1 == 0.3 && a2 == 0.7 + D && e1 == f1 && e2 == f2,
      "twolevel: e_i -> e_i (1 + 2d/(e1+e2)) + d with d = |a1+a2-parent|/4 "
      "(%.6g %.6g)", e1, e2);
  }
  /* no rule error: each child gets d */
  a1 = 0.5, e1 = 0, a2 = 0.5, e2 = 0;
  gcuba_twolevel(0.96, 0, &a1, &e1, NULL, &a2, &e2, NULL);
  ok(close_rel(e1, 0.01, 1e-14) && close_rel(e2, 0.01, 1e-14),
    "twolevel: zero rule errors become |diff|/4 each");
  /* the cap of loose children (parent record -4e-3: its null values fell
     off; children 0.3 + 0.7 against a parent of 1 + D) */
  {
    const int L = 3 | GCUBA_RULE_LOOSE, F = 5 | GCUBA_RULE_DECAYS;
    const double cap = 4e-3;
    int j, d1, d2, ok_cap = 1, ok_not = 1;
    /* confirmed (|D| < 4e-3): the loose child's 0.5 becomes the cap and
       decays; the other child is untouched; then the usual two-level */
    for (j = -3; j <= 3; ++j) {
      const double D = j * 1e-3, d = fabs(.25 * (0.3 + 0.7 - (1 + D)));
      const double e = cap + 1e-4;
      a1 = 0.3, e1 = 0.5, d1 = L, a2 = 0.7, e2 = 1e-4, d2 = F;
      gcuba_twolevel(1 + D, -4e-3, &a1, &e1, &d1, &a2, &e2, &d2);
      ok_cap &= close_rel(e1, cap * (1 + 2 * d / e) + d, 1e-14) &&
                close_rel(e2, 1e-4 * (1 + 2 * d / e) + d, 1e-14) &&
                d1 == (L | GCUBA_RULE_DECAYS | (j ? 0 : GCUBA_RULE_SLACK)) &&
                d2 == (F | (j ? 0 : GCUBA_RULE_SLACK)) && a1 == 0.3;
      /* either child; a loose error below the cap stays */
      a1 = 0.3, e1 = 1e-4, d1 = F, a2 = 0.7, e2 = 0.5, d2 = L;
      gcuba_twolevel(1 + D, -4e-3, &a1, &e1, &d1, &a2, &e2, &d2);
      ok_cap &= close_rel(e2, cap * (1 + 2 * d / e) + d, 1e-14) &&
                (d2 & ~GCUBA_RULE_SLACK) == (L | GCUBA_RULE_DECAYS);
      a1 = 0.3, e1 = 1e-3, d1 = L, a2 = 0.7, e2 = 1e-4, d2 = F;
      gcuba_twolevel(1 + D, -4e-3, &a1, &e1, &d1, &a2, &e2, &d2);
      ok_cap &= close_rel(e1, 1e-3 * (1 + 2 * d / 1.1e-3) + d, 1e-14) &&
                (d1 & ~GCUBA_RULE_SLACK) == L;
    }
    /* confirmed within GCUBA_RULE_CONFIRM times the parent's error
       (|parent err| < |D| <= 16 |parent err|): the cap is |D| = 4 d */
    for (j = -3; j <= 3; ++j) {
      const double D = (j < 0 ? -1 : 1) * (6 * j * j + 4) * 1e-3;
      const double d = fabs(.25 * (0.3 + 0.7 - (1 + D))), e = 4 * d + 1e-4;
      if (j == 0) continue;
      a1 = 0.3, e1 = 0.5, d1 = L, a2 = 0.7, e2 = 1e-4, d2 = F;
      gcuba_twolevel(1 + D, -4e-3, &a1, &e1, &d1, &a2, &e2, &d2);
      ok_cap &= close_rel(e1, 4 * d * (1 + 2 * d / e) + d, 1e-14) &&
                d1 == (L | GCUBA_RULE_DECAYS) && d2 == F;
    }
    /* not capped: the children disagree with the parent beyond
       GCUBA_RULE_CONFIRM times its error (a feature the parent missed),
       the parent's null values did not
       fall off (a positive record), no dims, a child that is not loose */
    a1 = 0.3, e1 = 0.5, d1 = L, a2 = 0.7, e2 = 1e-4, d2 = F;
    gcuba_twolevel(1 - 64.1e-3, -4e-3, &a1, &e1, &d1, &a2, &e2, &d2);
    ok_not &= e1 > 0.5 && d1 == L;
    a1 = 0.3, e1 = 0.5, d1 = L, a2 = 0.7, e2 = 1e-4, d2 = F;
    gcuba_twolevel(1, 4e-3, &a1, &e1, &d1, &a2, &e2, &d2);
    ok_not &= e1 == 0.5 && d1 == L;
    a1 = 0.3, e1 = 0.5, a2 = 0.7, e2 = 1e-4;
    gcuba_twolevel(1, -4e-3, &a1, &e1, NULL, &a2, &e2, NULL);
    ok_not &= e1 == 0.5;
    a1 = 0.3, e1 = 0.5, d1 = 3, a2 = 0.7, e2 = 1e-4, d2 = F;
    gcuba_twolevel(1, -4e-3, &a1, &e1, &d1, &a2, &e2, &d2);
    ok_not &= e1 == 0.5 && (d1 & ~GCUBA_RULE_SLACK) == 3;
    ok(ok_cap, "twolevel: a loose child of a confirmed parent gets at most "
       "max(|parent err|, 4d) and decays");
    ok(ok_not, "twolevel: no cap past 16x the parent's error, under an "
       "untrusted parent, without dims, or for a child that is not loose");
  }
  /* slack: both children marked when a decaying parent's error is at
     least GCUBA_RULE_SLACK_RATIO (40) times 4 d, their estimates kept
     (4 d = 1e-4 against 4e-3: marked; 1.01e-4, or a parent that did
     not decay: not) */
  {
    const int F = 5 | GCUBA_RULE_DECAYS;
    int d1, d2, okm = 1;
    a1 = 0.3, e1 = 1e-5, d1 = F, a2 = 0.7, e2 = 1e-5, d2 = 2;
    gcuba_twolevel(1 - 1e-4, -4e-3, &a1, &e1, &d1, &a2, &e2, &d2);
    okm &= d1 == (F | GCUBA_RULE_SLACK) && d2 == (2 | GCUBA_RULE_SLACK) &&
           close_rel(e1, 1e-5 * (1 + 2 * 2.5e-5 / 2e-5) + 2.5e-5, 1e-12);
    a1 = 0.3, e1 = 1e-5, d1 = F, a2 = 0.7, e2 = 1e-5, d2 = F;
    gcuba_twolevel(1 - 1.01e-4, -4e-3, &a1, &e1, &d1, &a2, &e2, &d2);
    okm &= d1 == F && d2 == F;
    a1 = 0.3, e1 = 1e-5, d1 = F, a2 = 0.7, e2 = 1e-5, d2 = F;
    gcuba_twolevel(1, 4e-3, &a1, &e1, &d1, &a2, &e2, &d2);
    okm &= d1 == F && d2 == F;
    ok(okm, "twolevel: children of a decaying parent whose error is >= 40 "
       "times 4d are slack, not at 1.01x that or under a positive record");
  }
}

/* gcuba_rule_nullerr: Cuba's two branches for an untrusted region; for
   a trusted one the bridge from Cuba's c1 e1 at r = 1/c0 up to r = 1/2
   (r^3 times Cuba's for the degree 7 and 9 rules), Cuba's above; the
   decay flag; the degree 13 rule unbridged; deep regions; the parent
   record's sign and the volume condition. */
static void check_nullerr(void)
{
  static const int ndims[] = {5, 3, 2};
  unsigned k;
  for (k = 0; k < sizeof ndims / sizeof ndims[0]; ++k) {
    gcuba_rule r;
    const double *c;
    double e[3], lo, cuba, got, want, prev = 0;
    int dec, ok_cuba = 1, ok_bridge = 1, ok_mono = 1, ok_deep = 1, j;
    int ok_slack = 1;
    gcuba_rule_init(&r, ndims[k], 0);
    c = r.errcoeff;
    lo = 1 / c[0];
    /* fast decay (r = lo / 2): c1 e1, trusted or not */
    e[0] = 1e-6, e[1] = e[0] * 2 * c[0], e[2] = e[1] * 2 * c[0];
    ok_cuba &= gcuba_rule_nullerr(&r, e, 0, 0, &dec) == c[1] * e[0] &&
               dec == GCUBA_RULE_DECAYS;
    ok_cuba &= gcuba_rule_nullerr(&r, e, 1, 0, &dec) == c[1] * e[0] &&
               dec == GCUBA_RULE_DECAYS;
    /* no decay (e_1 > e_2): c2 max, trusted or not, not decaying;
       marked loose when trusted (gcuba_twolevel may cap it) */
    e[0] = 3e-6, e[1] = 2e-6, e[2] = 5e-6;
    ok_cuba &= gcuba_rule_nullerr(&r, e, 0, 0, &dec) == c[2] * 5e-6 && !dec;
    ok_cuba &= gcuba_rule_nullerr(&r, e, 1, 0, &dec) == c[2] * 5e-6 &&
               dec == GCUBA_RULE_LOOSE;
    /* deep: the same */
    ok_deep &= gcuba_rule_nullerr(&r, e, 2, 0, &dec) == c[2] * 5e-6 &&
               dec == GCUBA_RULE_LOOSE;
    /* the range between: ratio q from lo to 1 */
    for (j = 1; j < 20; ++j) {
      const double q = lo + (1 - lo) * j / 20.0;
      e[2] = 1e-3, e[1] = q * e[2], e[0] = q * e[1];
      cuba = gcuba_rule_nullerr(&r, e, 0, 0, &dec);
      ok_cuba &= cuba == c[2] * e[2] && dec == GCUBA_RULE_DECAYS;
      got = gcuba_rule_nullerr(&r, e, 1, 0, &dec);
      const int bridged = r.degree <= 11 && q <= GCUBA_RULE_BRIDGE_MAX;
      ok_bridge &= dec == (GCUBA_RULE_DECAYS | GCUBA_RULE_LOOSE);
      /* deep: the same values and flags */
      ok_deep &= gcuba_rule_nullerr(&r, e, 2, 0, &dec) == got &&
                 dec == (GCUBA_RULE_DECAYS | GCUBA_RULE_LOOSE);
      want = !bridged ? cuba
           : (c[1] + (c[2] - c[1]) * (q - lo) / (1 - lo)) * q * q * e[2];
      ok_bridge &= close_rel(got, want, 1e-14) && got <= cuba;
      if (bridged && r.degree <= 9)
        ok_bridge &= close_rel(got, q * q * q * cuba, 1e-13);
      ok_mono &= !bridged || got > prev;
      if (bridged) prev = got;
    }
    /* the lower end: Cuba's c1 e1 at r = lo (e_1 = lo^2 e_3) */
    e[2] = 1, e[1] = lo * 1.000001, e[0] = lo * e[1];
    if (r.degree <= 11)
      ok_bridge &= close_rel(gcuba_rule_nullerr(&r, e, 1, 0, &dec),
                             c[1] * e[0], 1e-5);
    /* deep, fast decay: e1 max(c1 f^2, r), f = max(c0 r, 1/20), for
       the degree 9 and up; Cuba's for the degree 7 rule */
    for (j = 1; j <= 40; ++j) {
      const double q = lo * j / 40.0, f = c[0] * q > GCUBA_RULE_FAST_MIN
                                            ? c[0] * q : GCUBA_RULE_FAST_MIN;
      e[2] = 1e-3, e[1] = q * e[2], e[0] = 0.5 * q * e[1];
      want = r.degree < 9 ? c[1] * e[0]
           : c[1] * f * f > q ? c[1] * f * f * e[0] : q * e[0];
      got = gcuba_rule_nullerr(&r, e, 2, 0, &dec);
      ok_deep &= close_rel(got, want, 1e-14) && dec == GCUBA_RULE_DECAYS &&
                 got <= c[1] * e[0] && (r.degree < 9 || got >= q * e[0]);
      /* slack: e1 max(c1 f, r) */
      want = r.degree < 9 ? c[1] * e[0]
           : c[1] * f > q ? c[1] * f * e[0] : q * e[0];
      got = gcuba_rule_nullerr(&r, e, GCUBA_TRUST | GCUBA_TRUST_SLACK, 0,
                               &dec);
      ok_slack &= close_rel(got, want, 1e-14) && dec == GCUBA_RULE_DECAYS &&
                  got <= c[1] * e[0] &&
                  got >= gcuba_rule_nullerr(&r, e, 2, 0, &dec);
    }
    /* slack, outside fast decay: as trusted */
    e[0] = 3e-6, e[1] = 2e-6, e[2] = 5e-6;
    ok_slack &= gcuba_rule_nullerr(&r, e, GCUBA_TRUST | GCUBA_TRUST_SLACK,
                                   0, &dec) == c[2] * 5e-6 &&
                dec == GCUBA_RULE_LOOSE;
    ok(ok_cuba, "nullerr %dD (degree %d): Cuba's c1 e1 and c2 max when "
       "untrusted or outside (1/c0, 1), loose when trusted", ndims[k],
       r.degree);
    ok(ok_deep, "nullerr %dD (degree %d): deep: fast decay e1 max(c1 "
       "max(c0 r, 1/20)^2, r), the bridge and c2 max loose",
       ndims[k], r.degree);
    ok(ok_slack, "nullerr %dD (degree %d): slack: fast decay e1 max(c1 "
       "max(c0 r, 1/20), r), between deep and Cuba's", ndims[k], r.degree);
    ok(ok_bridge && ok_mono, "nullerr %dD (degree %d): %s (%d), increasing "
       "in r (%d)", ndims[k], r.degree, r.degree == 13
       ? "no bridge for the degree 13 rule"
       : "trusted: the bridge g(r) r^2 e3 from Cuba's c1 e1, up to r = 1/2",
       ok_bridge,
       ok_mono);
  }
  {
    /* a zero null value below a positive one: no ratio, Cuba's, no decay
       flag (loose when trusted) */
    gcuba_rule r;
    double e[3] = {1e-6, 0, 1e-5};
    int dec;
    gcuba_rule_init(&r, 5, 0);
    ok(gcuba_rule_nullerr(&r, e, 0, 0, &dec) == r.errcoeff[2] * 1e-5 &&
       !dec && gcuba_rule_nullerr(&r, e, 1, 0, &dec) == r.errcoeff[2] * 1e-5 &&
       dec == GCUBA_RULE_LOOSE &&
       gcuba_rule_nullerr(&r, e, 2, 0, &dec) == r.errcoeff[2] * 1e-5 &&
       dec == GCUBA_RULE_LOOSE,
       "nullerr: e2 = 0 under e1 > 0 is no decay (loose when trusted)");
  }
  {
    const int ax = 7, flagged = ax | GCUBA_RULE_DECAYS;
    const int DEEP = GCUBA_TRUST | GCUBA_TRUST_DEEP;
    ok(gcuba_rule_axis(flagged) == ax && gcuba_rule_axis(ax) == ax &&
       gcuba_rule_parent_err(2e-3, flagged) == -2e-3 &&
       gcuba_rule_parent_err(2e-3, ax) == 2e-3 &&
       gcuba_rule_trusted(gcuba_rule_parent_err(2e-3, flagged), 0.25, 5, 9) &&
       gcuba_rule_trusted(gcuba_rule_parent_err(0, flagged), 0.125, 5, 9) &&
       !gcuba_rule_trusted(gcuba_rule_parent_err(0, ax), 0.125, 5, 9) &&
       !gcuba_rule_trusted(gcuba_rule_parent_err(2e-3, ax), 0.125, 5, 9) &&
       !gcuba_rule_trusted(gcuba_rule_parent_err(2e-3, flagged), 0.5, 5, 9) &&
       /* -1e-3: the lowest bit clear, not slack */
       gcuba_rule_trusted(-1e-3, 0.125, 1, 9) == DEEP &&
       gcuba_rule_trusted(-1e-3, 0.25, 1, 9) == GCUBA_TRUST &&
       gcuba_rule_trusted(-1e-3, 0.015625, 2, 9) == DEEP &&
       gcuba_rule_trusted(-1e-3, 0.015625 * 1.0001, 2, 9) == GCUBA_TRUST &&
       gcuba_rule_trusted(-1e-3, ldexp(1, -15), 5, 9) == DEEP &&
       gcuba_rule_trusted(-1e-3, ldexp(1, -14), 5, 9) == GCUBA_TRUST &&
       gcuba_rule_trusted(1e-3, ldexp(1, -10), 5, 9) == 0 &&
       /* the degree 11 rule: deep at 16^-3 */
       gcuba_rule_trusted(-1e-3, ldexp(1, -9), 3, 9) == DEEP &&
       gcuba_rule_trusted(-1e-3, ldexp(1, -9), 3, 11) == GCUBA_TRUST &&
       gcuba_rule_trusted(-1e-3, ldexp(1, -12), 3, 11) == DEEP,
       "parent records: the flag rides on the axis and the error's sign "
       "(0 too); trusted only two bisections deep (vol <= 1/4), deep "
       "at vol <= 8^-ndim (16^-3 for the degree 11 rule)");
  }
  {
    /* the slack mark rides on the record's lowest bit: one unit in the
       last place; slack trust only at 4^-ndim and above deep */
    const int sl = 7 | GCUBA_RULE_DECAYS | GCUBA_RULE_SLACK;
    const double rs = gcuba_rule_parent_err(5e-3, sl);
    const double rn = gcuba_rule_parent_err(5e-3, 7 | GCUBA_RULE_DECAYS);
    ok(rs < 0 && fabs(rs + 5e-3) <= 1e-18 && rn < 0 &&
       fabs(rn + 5e-3) <= 1e-18 && rs != rn &&
       gcuba_rule_parent_err(5e-3, 7 | GCUBA_RULE_SLACK) > 0 &&
       gcuba_rule_trusted(rs, ldexp(1, -10), 5, 9) ==
         (GCUBA_TRUST | GCUBA_TRUST_SLACK) &&
       gcuba_rule_trusted(rs, ldexp(1, -10) * 1.0001, 5, 9) == GCUBA_TRUST &&
       gcuba_rule_trusted(rs, ldexp(1, -15), 5, 9) ==
         (GCUBA_TRUST | GCUBA_TRUST_DEEP) &&
       gcuba_rule_trusted(rn, ldexp(1, -10), 5, 9) == GCUBA_TRUST &&
       gcuba_rule_trusted(gcuba_rule_parent_err(0, sl), ldexp(1, -12), 5,
                          9) == (GCUBA_TRUST | GCUBA_TRUST_SLACK),
       "parent records: the slack mark in the lowest bit (one ulp), slack "
       "trust at vol <= 4^-ndim above 8^-ndim, not without the mark");
  }
}

/* ------------------------------------------------------------------ */

/* boundary probes: f evaluated at every point and probe of a rule on
   [-1,1]^n, then gcuba_rule_probe_err.  A quartic along each axis is
   predicted exactly (no floor); a smooth non-polynomial (exp) is within
   kappa of the spread; a step at 0.97 half-widths, seen by no point of
   the rule, is seen by a probe; the degree 11 and 13 rules take none. */
static double probe_floor(const gcuba_rule *r, int which)
{
  double f[4096], u[GCUBA_RULE_MAXDIM];
  long p, np = r->npoints + r->nprobe;
  int i;
  for (p = 0; p < np; ++p) {
    double v = 0;
    gcuba_rule_point(r, p, u);
    for (i = 0; i < r->ndim; ++i) {
      double x = u[i];
      /* the step along axis 0 only, the kink along the last only */
      v += which == 0 ? 1 + x - 3 * x * x + 2 * x * x * x * x
         : which == 1 ? exp(0.7 * x)
         : which == 2 ? (i == 0 && x > 0.97 ? 1 : 0)
         : i == r->ndim - 1 ? fabs(x - 0.97) : 0;
    }
    f[p] = v;
  }
  {
    int axis = -1;
    double fl = gcuba_rule_probe_err(r, f[0], f + 1, 1, f + r->npoints, 1,
                                     2.0, &axis);
    /* the floor names the axis of the feature */
    if (fl > 0 && axis != (which == 2 ? 0 : r->ndim - 1)) return -1;
    if (fl == 0 && axis != -1) return -1;
    return fl;
  }
}

/* The GPU kernel takes the probes one axis per lane
   (gcuba_rule_probe_axis) and keeps the largest departure, the lowest
   axis among equals: the same floor and axis as gcuba_rule_probe_err's
   loop, checked here on steps at 0.97 half-widths along axes a and b of
   heights ha and hb (equal heights: the lower axis), whose axis is
   expect (-1: no floor). */
static int probe_lanes_agree(const gcuba_rule *r, int a, double ha, int b,
                             double hb, int expect)
{
  double f[4096], u[GCUBA_RULE_MAXDIM], best = -1, fl, pl;
  long p, np = r->npoints + r->nprobe;
  int d, axis = -1, kbest = -1;
  for (p = 0; p < np; ++p) {
    gcuba_rule_point(r, p, u);
    f[p] = 1 + (u[a] > 0.97 ? ha : 0) + (u[b] > 0.97 ? hb : 0);
  }
  fl = gcuba_rule_probe_err(r, f[0], f + 1, 1, f + r->npoints, 1, 2.0,
                            &axis);
  for (d = 0; d < r->nprobe / 2; ++d) {
    const double v =
        gcuba_rule_probe_axis(r, d, f[0], f + 1, 1, f + r->npoints, 1);
    if (v > best || (v == best && d < kbest)) {
      best = v;
      kbest = d;
    }
  }
  pl = best > 0 ? 2.0 * r->strip * best : 0;
  if (pl != fl || (fl > 0 && kbest != axis) || (fl > 0) != (expect >= 0) ||
      (fl > 0 && axis != expect)) {
    diag("ndim %d steps on %d (%g), %d (%g): loop %g axis %d, lanes %g "
         "axis %d", r->ndim, a, ha, b, hb, fl, axis, pl, kbest);
    return 0;
  }
  return 1;
}

static void check_probes(void)
{
  static const int cfg[][2] = {{7, 2}, {7, 5}, {9, 4}, {9, 8}};
  gcuba_rule r;
  unsigned i;
  int good = 1;
  for (i = 0; i < sizeof cfg / sizeof cfg[0]; ++i) {
    double q, e, st, k;
    gcuba_rule_init(&r, cfg[i][1], cfg[i][0]);
    q = probe_floor(&r, 0);
    e = probe_floor(&r, 1);
    st = probe_floor(&r, 2);
    k = probe_floor(&r, 3);
    /* the kink's departure at +pu: 2 (pu - 0.97) */
    if (!(r.nprobe == 2 * r.ndim && q == 0 && e == 0 && r.strip > .04 &&
          fabs(st - 2 * r.strip) <= 1e-12 &&
          fabs(k - 2 * r.strip * 2 * (r.pu - .97)) <= 1e-12)) {
      good = 0;
      diag("key %d ndim %d: nprobe %d, quartic %g, exp %g, step %g, "
           "kink %g", cfg[i][0], cfg[i][1], r.nprobe, q, e, st, k);
    }
  }
  ok(good, "probes: no floor for a quartic or exp along the axes; a step "
     "or a kink at 0.97 half-widths (beyond every rule point) gets vol x "
     "strip x departure and names its axis");
  good = 1;
  for (i = 0; i < sizeof cfg / sizeof cfg[0]; ++i) {
    const int n = cfg[i][1];
    gcuba_rule_init(&r, n, cfg[i][0]);
    good &= probe_lanes_agree(&r, n - 1, 1, 0, 1, 0); /* equal: axis 0 */
    good &= probe_lanes_agree(&r, 0, 0.5, n - 1, 2, n - 1); /* larger */
    good &= probe_lanes_agree(&r, n - 1, 3, n - 1, 0, n - 1);
    good &= probe_lanes_agree(&r, 0, 0, 0, 0, -1); /* no step */
  }
  ok(good, "probes one axis per lane (the GPU kernel's reduction) give "
     "the loop's floor and axis, the lowest axis among equal steps");
  gcuba_rule_init(&r, 3, 11);
  good = r.nprobe == 0;
  gcuba_rule_init(&r, 2, 13);
  good &= r.nprobe == 0;
  ok(good, "probes: none for the degree 11 and 13 rules");
}

/* The axis lines (gcuba_rule_line_axis) of the degree 11 rule: on the
   3-D Lorentzian's box where its null values cancel, the guard keeps the
   region's error above its true error (without it the estimate is more
   than 100 times below); on smooth integrands (exp, a Gaussian of width
   0.5) it does not act, and the other rules have no lines.  (A
   Lorentzian of width 0.5 across the whole cube is not smooth at that
   scale: its Taylor terms along the axis do not fall off, and the line
   flags it.) */
static double lz(const double *x, const double *c, double w, int kind)
{
  double v = 1, g = 0;
  int i;
  for (i = 0; i < 3; ++i) {
    const double t = (x[i] - c[i]) / w;
    v *= 1 + t * t;
    g += t * t;
  }
  return kind == 1 ? 1 / v : kind == 2 ? exp(-g) : exp(x[0] + x[1] + x[2]);
}
/* The line as the least estimate of a region that is not deep: a box of
   bench-peaks' 3-D Lorentzian #128 (seed 2), its peak 0.07 from the
   box's face y = 1, where the null values fall off fast (e_1 cancels)
   and only the y line shows the error; deep regions keep the null
   values' estimate. */
static void check_line_floor(const gcuba_rule *r)
{
  static const double lo[3] = {0.625, 0.5, 0.75}, hi[3] = {0.75, 1, 1};
  static const double c[3] = {0.74563541242475373, 0.93132928671778448,
                              0.66209630194311153};
  const double w = 0.11075077748262677;
  double f[256], u[3], x[3], vol = 1, truth = 1, avg, err, e[3], line;
  double setsum[GCUBA_RULE_MAXSETS];
  int p, i, s, fl, fl0, fl1;
  for (i = 0; i < 3; ++i) {
    vol *= hi[i] - lo[i];
    truth *= w * (atan((hi[i] - c[i]) / w) - atan((lo[i] - c[i]) / w));
  }
  for (p = 0; p < r->npoints; ++p) {
    gcuba_rule_point(r, p, u);
    for (i = 0; i < 3; ++i)
      x[i] = 0.5 * (lo[i] + hi[i]) + 0.5 * (hi[i] - lo[i]) * u[i];
    f[p] = lz(x, c, w, 1);
  }
  for (s = 0; s < r->nsets; ++s) {
    setsum[s] = 0;
    for (p = r->set[s].first; p < r->set[s].first + r->set[s].npts; ++p)
      setsum[s] += f[p];
  }
  line = gcuba_rule_line_guard(r, f[0], f + 1, 1);
  gcuba_rule_apply(r, 1, f, vol, NULL, &avg, &err, NULL);
  ok(line > 0 && err == vol * line && 2 * err >= fabs(avg - truth),
     "axis lines: a box of a 3-D Lorentzian by its face, true error %.3g, "
     "estimate %.3g (the y line's)", fabs(avg - truth), err);
  /* the null values alone, and a deep region */
  e[0] = 1e-6;
  e[1] = 1e-4;
  e[2] = 6e-4;
  ok(gcuba_rule_nullerr(r, e, 0, 8e-5, &fl) == 8e-5 && fl == 0 &&
         gcuba_rule_nullerr(r, e, GCUBA_TRUST, 8e-5, &fl1) == 8e-5 &&
         fl1 == 0 &&
         gcuba_rule_nullerr(r, e, GCUBA_TRUST | GCUBA_TRUST_DEEP, 8e-5,
                            &fl0) < 8e-5 &&
         (fl0 & GCUBA_RULE_DECAYS),
     "axis lines: the line is the least estimate, except in deep regions");
}

static void check_lines(void)
{
  static const double lo[3] = {0.625, 0.125, 0.25}, hi[3] = {0.75, 0.25, 0.5};
  static const double c[3] = {0.833, 0.336, 0.285}, cb[3] = {.4, .6, .5};
  gcuba_rule r, r9;
  double f[256], u[3], x[3], vol = 1, truth = 1, avg, err, err0, line;
  double setsum[GCUBA_RULE_MAXSETS];
  int p, i, s, quiet = 1;
  gcuba_rule_init(&r, 3, 11);
  gcuba_rule_init(&r9, 3, 9);
  for (i = 0; i < 3; ++i) {
    const double w = 0.0536;
    vol *= hi[i] - lo[i];
    truth *= w * (atan((hi[i] - c[i]) / w) - atan((lo[i] - c[i]) / w));
  }
  for (p = 0; p < r.npoints; ++p) {
    gcuba_rule_point(&r, p, u);
    for (i = 0; i < 3; ++i) x[i] = 0.5 * (lo[i] + hi[i]) + 0.5 * (hi[i] - lo[i]) * u[i];
    f[p] = lz(x, c, 0.0536, 1);
  }
  for (s = 0; s < r.nsets; ++s) {
    setsum[s] = 0;
    for (p = r.set[s].first; p < r.set[s].first + r.set[s].npts; ++p)
      setsum[s] += f[p];
  }
  line = gcuba_rule_line_guard(&r, f[0], f + 1, 1);
  gcuba_rule_combine(&r, setsum, vol, 0, 0, &avg, &err0);
  gcuba_rule_apply(&r, 1, f, vol, NULL, &avg, &err, NULL);
  ok(r.nline == 4 && gcuba_rule_naxis(3) == 25 && line > 0 &&
     err >= fabs(avg - truth) && 100 * err0 < fabs(avg - truth),
     "axis lines: a 3-D Lorentzian's box, true error %.3g, estimate %.3g "
     "(%.3g without the lines)", fabs(avg - truth), err, err0);
  /* smooth integrands over boxes of the unit cube: no line acts */
  for (i = 0; i < 2; ++i) {
    int lev;
    for (lev = 0; lev < 3; ++lev) {
      const double h = ldexp(1, -lev);
      for (p = 0; p < r.npoints; ++p) {
        gcuba_rule_point(&r, p, u);
        for (s = 0; s < 3; ++s) x[s] = 0.5 * h + 0.5 * h * u[s];
        f[p] = lz(x, cb, 0.5, i ? 2 : 0);
      }
      quiet &= gcuba_rule_line_guard(&r, f[0], f + 1, 1) == 0;
    }
  }
  ok(quiet && r9.nline == 0 && gcuba_rule_naxis(4) == 17 &&
     gcuba_rule_line_guard(&r9, f[0], f + 1, 1) == 0,
     "axis lines: none act on exp(x1 + x2 + x3) or a Gaussian of width "
     "0.5 (boxes 1, 1/2, 1/4 wide); the degree 9 rule has none");
  check_line_floor(&r);
}

int main(void)
{
  (void)skip_all;       /* tap.h helper this program has no use for */
  plan(0);
  check_twolevel();
  check_nullerr();
  check_probes();
  check_lines();
  return done();
}
