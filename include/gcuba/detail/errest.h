/* detail/errest.h -- the error of a Genz-Malik rule on one region: the
   null values' decay regimes, the trust a region inherits from its
   parent record, and the two-level correction after a bisection.
   Included by rule.h after the rule's types (it needs gcuba_rule's
   error coefficients and degree); not a header of its own.
   This file is part of gcuba. */
#ifndef GCUBA_ERREST_H
#define GCUBA_ERREST_H

/* regime bits of a region's dims word (see gcuba_rule_axis) */
#define GCUBA_RULE_DECAYS 0x40000000
#define GCUBA_RULE_LOOSE 0x20000000
#define GCUBA_RULE_SLACK 0x10000000
/* `trusted' (gcuba_rule_trusted, gcuba_rule_nullerr): bits */
#define GCUBA_TRUST 1       /* the parent's null values fell off */
#define GCUBA_TRUST_DEEP 2  /* and the region is at most 8^-ndim
                               (gcuba_rule_deepvol) */
#define GCUBA_TRUST_SLACK 4 /* or at most 4^-ndim under a slack parent */

/* The error of the basic rule from its null values e[0..2] (e_1, e_2,
   e_3 below, without the volume).  Cuba's coefficients c0, c1, c2 and
   the decay ratio r = max(e_1 / e_2, e_2 / e_3):
     c1 e_1                  r <= 1/c0 (the null values fall off fast:
                             the asymptotic regime, trust e_1)
     c2 max(e_1, e_2, e_3)   otherwise (Cuba, DCUHRE).
   Cuba's estimate jumps by a factor c2 c0^2 / c1 (125 for the degree 7
   and 9 rules) where r crosses 1/c0, and for 1/c0 < r < 1, where the
   null values do fall off but more slowly, it is 10-1000x the true error
   of the Genz product peaks and Gaussians at Cuba's budgets (so gCuhre
   stopped on maxeval with right answers it could not claim).  When
   `trusted' (the region's parent fell off too: one ratio below 1 can be
   chance, two generations in a row are a regime), 1/c0 < r <=
   GCUBA_RULE_BRIDGE_MAX takes
     g(r) r^2 e_3,   g(r) = c1 + (c2 - c1) (r - 1/c0) / (1 - 1/c0),
   e_3 extrapolated by the worst ratio twice, times a factor that runs
   linearly from Cuba's c1 at r = 1/c0 towards its c2 at r = 1: the
   estimate meets Cuba's at r = 1/c0 and is r^3 times Cuba's above it for
   the degree 7 and 9 rules (g = c2 r).  Genz's protocol
   (bench/bench-genz): 198 -> 236 honest answers, no false claim added.
   A region whose parent did not fall off keeps Cuba's estimate (without
   that condition three Genz Gaussians in 10D were claimed 10x off: a
   parent at r = 1.2 had children at r = 0.3 that agreed with it).
   Above r = 1/2 the null values barely fall off and Cuba's estimate
   stays: bridged up to r = 1, f4 5D at epsrel 1.024e-10 was still at
   3.6x the tolerance after 3e10 evaluations, where Cuba's estimate
   converges in 8.5e9 and the bridge to 1/2 in 6.2e9.  Not for the
   degree 13 rule (two dimensions): there it claimed five steps of the
   adversarial sweep (bench/bench-adversarial) up to 7x off, where the degree 7, 9
   and 11 rules added no false claim.
   Deep regions (trusted == 2, gcuba_rule_trusted: volume at most
   8^-ndim, every axis halved three times on average; 16^-3 for the
   degree 11 rule, gcuba_rule_deepvol) are in the
   asymptotic regime for a smooth integrand, and there two things change
   for the rules of degree 9 and up:
   - fast decay (r <= 1/c0): e_1 max(c1 f^2, r), f = max(c0 r,
     1/20).  e_1 is the null rule two degrees below the basic rule; the
     basic rule's own error lies about one more step r below it, so
     Cuba's c1 e_1 is 1/r times too large where r is small (10^2-10^3 on
     a smooth 4D oscillatory product at 1e-12).  c1 f^2 meets Cuba's
     at r = 1/c0; the estimate never goes below r e_1.  (f^(3/2) until
     2026-12-03: f^2 took the 4D products at 1e-12 3-7 % fewer
     evaluations and one more adversarial answer, Genz's protocol at
     epsrel 1e-3..1e-6 unchanged in false claims over twelve sets.)
   Only deep regions: with the fast-decay factor for every trusted region
   a Gaussian of Genz's protocol in 10D (epsrel 1e-5), whose estimate
   was only 1.2x its true error without it, was claimed 1.4x off.  With
   c1 f, or c1 f^(1/2), at 4^-ndim (also only under a parent that fell
   off fast), 2 and 3 of 100,000 3-D Gaussians of width 0.11 at epsrel
   1e-6 (bench-batch) were claimed 1.6-1.7x off (2026-12-03).
   Slack regions (trusted & GCUBA_TRUST_SLACK: at most 4^-ndim, and the
   grandparent's estimate was at least GCUBA_RULE_SLACK_RATIO times what
   its halves, the parent and its sibling, showed its error to be, see
   gcuba_twolevel) take e_1 max(c1 f, r) on fast decay: the estimate
   two levels up was measured to be loose, so the rule is in its
   asymptotic regime there, whatever the depth.  (The halves measure
   the part of the grandparent's error along the axis it was split on,
   the one of the largest fourth difference.)  A smooth 4D oscillatory
   product at 1e-12 (w = 1) took 460,238 -> 274,444 evaluations (Cuba
   168,147); Genz's protocol and the adversarial sweep kept their
   counts, 100,000 3-D Gaussians their one bad integral.  At ratio 10,
   or with c1 f^2 at 40, 1-2 more of the Gaussians (widths 0.11) were
   claimed 1.6-2.2x off; 20 kept the count.
   In every trusted region (deep or not) the bridge and Cuba's
   c2 max(e_k) are marked GCUBA_RULE_LOOSE, and gcuba_twolevel caps them
   by the parent's error when the children confirm the parent.  Deep
   regions only, as first built, left a 4-D oscillatory product at
   epsrel = epsabs = 1e-12 (key 9) with 1-3 % of its new regions at
   10^3-10^5 times their neighbours' errors in every iteration: most of
   its regions are trusted but shallower than 8^-4.  Every trusted
   region (2026-12-03): that product 6.1 M -> 4.9 M evaluations (w = 5),
   Genz's protocol at epsrel 1e-3..1e-6 (seeds 4711, 1, 2) 0-6 more
   honest answers per set, the same false claims, 3-7 % fewer
   evaluations; 100,000 3-D Gaussians at 1e-6 (bench-batch) 31,161 ->
   28,234 evaluations each, the same one 1.2x off; the adversarial
   sweep unchanged (797 of 960, none false).  In 5-10D few regions
   of Genz's protocol are that deep: its counts do not change (14 of its
   360 calls change in the last digits of their error).  At 4^-ndim (two
   halvings on average) 5 of 100,000 3-D Gaussians of widths 0.05-0.5 at
   epsrel 1e-6 (bench-batch) were claimed 1.1-3.2x the tolerance off: a
   region 1/4 wide is not asymptotic for a peak 0.06 wide.  At 8^-ndim
   one is, 1.2x off, with 8% more evaluations; at 16^-ndim none, but a
   4-D oscillatory product at 1e-12 runs to maxeval 1e7 (so 16^-ndim
   only for the degree 11 rule, since 2026-12-08).
   line: the axis lines' guard (gcuba_rule_line_guard, 0 for none): the
   share of e_2 that an axis line whose degree 8 content does not fall
   off shows.  When it exceeds e_2 the line shows content the null values
   missed, and the fast-decay branch is not taken (the bridge or Cuba's
   c2 max(e_k) instead); and in a region that is not deep the estimate is
   at least the line itself (gcuba_rule_nullerr).
   *flags gets GCUBA_RULE_DECAYS when r < 1 (unset when an e_k is 0 with
   a larger one below it: no ratio), and GCUBA_RULE_LOOSE as above. */
#define GCUBA_RULE_BRIDGE_MAX 0.5
#define GCUBA_RULE_FAST_MIN 0.05
GCUBA_RULE_FN double gcuba_rule_nullerr_e(const gcuba_rule *r,
  const double *e, int trusted, double line, int *flags)
{
  const double *c = r->errcoeff;
  const int deep = (trusted & GCUBA_TRUST_DEEP) != 0,
            slack = (trusted & GCUBA_TRUST_SLACK) != 0;
  double m = e[0] > e[1] ? e[0] : e[1];
  if (e[2] > m) m = e[2];
  *flags = trusted ? GCUBA_RULE_LOOSE : 0;
  if (c[0] * e[0] <= e[1] && c[0] * e[1] <= e[2] && !(line > e[1])) {
    *flags = GCUBA_RULE_DECAYS;
    if ((deep || slack) && r->degree >= 9 && e[1] > 0 && e[2] > 0) {
      const double q0 = e[0] / e[1], q1 = e[1] / e[2];
      const double rr = q0 > q1 ? q0 : q1;
      double f = c[0] * rr, g;
      if (f < GCUBA_RULE_FAST_MIN) f = GCUBA_RULE_FAST_MIN;
      g = deep ? c[1] * f * f : c[1] * f;
      return e[0] * (g > rr ? g : rr);
    }
    return c[1] * e[0];
  }
  if (e[0] < e[1] && e[1] < e[2]) {
    const double q0 = e[0] / e[1], q1 = e[1] / e[2];
    const double rr = q0 > q1 ? q0 : q1, lo = 1 / c[0];
    *flags |= GCUBA_RULE_DECAYS;
    if (trusted && rr > lo && rr <= GCUBA_RULE_BRIDGE_MAX && r->degree <= 11)
      return (c[1] + (c[2] - c[1]) * (rr - lo) / (1 - lo)) * rr * rr * e[2];
  }
  return c[2] * m;
}
/* The error from the null values (gcuba_rule_nullerr_e), at least the
   axis lines' guard in a region that is not deep: a line whose degree 8
   content does not fall off measures the integrand along its axis
   directly, whatever the null values, which the other axes' factors can
   cancel or leave falling off as a smooth integrand's do.  The estimate
   then has neither regime bit, so that no cap of gcuba_twolevel lowers
   it and its children are not trusted.  On bench-peaks' 3-D Lorentzian
   of seed 2, #128 (width 0.11, its peak 0.07 from the face y = 1 of a
   slab 0.5 <= y <= 1 that was never split along y), the regions of the
   slab took the fast-decay or the bridge estimate, 8-130 times under
   their true errors, while their y lines showed 0.6-0.7 of them: 6 of
   31 tolerances 1e-3..1e-6 were claimed up to 2.16 times off, none now.
   3-D peaks take 1-7 % more evaluations (seeds 1-5, bench/RESULTS.md);
   with deep regions too, 8-13 % more for the Lorentzians at 1e-7 and
   1e-8, where the regions near the peak are far below its width. */
GCUBA_RULE_FN double gcuba_rule_nullerr(const gcuba_rule *r,
  const double *e, int trusted, double line, int *flags)
{
  const double est = gcuba_rule_nullerr_e(r, e, trusted, line, flags);
  if (line > est && !(trusted & GCUBA_TRUST_DEEP)) {
    *flags = 0;
    return line;
  }
  return est;
}

/* A region's split axis and its regime share one int per component (the
   dims arrays of the backends): bits 0-15 the axis, GCUBA_RULE_DECAYS set
   when the rule's null values fell off (gcuba_rule_nullerr) and no probe
   raised the error.  When the region is split, its error goes to its
   children's parent record negated when the flag is set
   (gcuba_rule_parent_err), and a child evaluates with `trusted' =
   gcuba_rule_trusted(parent record, its volume, the rule's ndim and
   degree): the sign bit (0 errors
   keep it; GCUBA_RULE_SLACK, set by gcuba_twolevel, rides on the
   lowest bit of the record's mantissa, a change of one unit in the
   last place of an estimate; state files of the older layout are
   refused, see the Cuhre driver's signature), and only for regions two
   bisections deep or more (vol <=
   1/4 of the unit cube: the domain's halves are not an asymptotic
   regime; this removed one of 18 false claims over nine sets of Genz
   instances and no honest answer).  It returns 0 or GCUBA_TRUST, with
   GCUBA_TRUST_DEEP when the volume is also at most gcuba_rule_deepvol,
   or else GCUBA_TRUST_SLACK when it is at most 4^-ndim and the parent
   was slack (see gcuba_rule_nullerr).
   gcuba_rule_deepvol: 8^-ndim, every axis halved three times on
   average; 16^-ndim for the degree 11 rule (key 0 in 3-D).  A cube 1/8
   wide is not asymptotic for a 3-D Gaussian 0.064 wide (1.9 widths): in
   the one bad integral of 100,000 3-D peaks at epsrel 1e-6
   (bench/bench-batch) such a cube by the peak's centre took the deep
   fast-decay estimate, 10 times under its true error, and finished with
   30 % of the integral (1.22 times the tolerance off).  At 16^-3 none
   of the 100,000 is bad, for 1.7 % more evaluations; the 3-D peaks of
   bench-peaks (seeds 1-5) take 1-5 % more.  The other rules keep 8^-ndim,
   where a 4-D oscillatory product at epsrel = epsabs = 1e-12 (key 9)
   needs the deep estimate. */
GCUBA_RULE_FN int gcuba_rule_axis(int dims) { return dims & 0xffff; }
GCUBA_RULE_FN double gcuba_rule_parent_err(double err, int dims)
{
  double v = fabs(err);
  unsigned long long b;
  memcpy(&b, &v, sizeof b);
  b &= ~1ull;
  if ((dims & GCUBA_RULE_DECAYS) && (dims & GCUBA_RULE_SLACK)) b |= 1ull;
  memcpy(&v, &b, sizeof b);
  return (dims & GCUBA_RULE_DECAYS) ? -v : v;
}
GCUBA_RULE_FN double gcuba_rule_deepvol(int ndim, int degree)
{
  return ldexp(1.0, -(degree == 11 ? 4 : 3) * ndim);
}
GCUBA_RULE_FN int gcuba_rule_trusted(double parent_err, double vol,
  int ndim, int degree)
{
  unsigned long long b;
  if (!signbit(parent_err) || vol > 0.25) return 0;
  if (vol <= gcuba_rule_deepvol(ndim, degree))
    return GCUBA_TRUST | GCUBA_TRUST_DEEP;
  memcpy(&b, &parent_err, sizeof b);
  return (b & 1ull) && vol <= ldexp(1.0, -2 * ndim)
           ? GCUBA_TRUST | GCUBA_TRUST_SLACK : GCUBA_TRUST;
}

/* Two-level error correction after a bisection (Cuba's Cuhre, following
   DCUHRE's idea of comparing two levels of subdivision).  A parent region
   with estimate parent_avg was split into children with estimates avg1,
   avg2 and rule errors err1, err2.  With
     d = |avg1 + avg2 - parent_avg| / 4   and   e = err1 + err2,
   each child's error becomes
     err_i <- err_i (1 + 2 d / e) + d     (the product only when e > 0),
   so the children's errors grow in proportion to their share plus an
   equal part of the disagreement; in total
     err1' + err2' = err1 + err2 + |avg1 + avg2 - parent_avg|.
   The averages are not changed.
   Before that, a loose child (GCUBA_RULE_LOOSE in *dims_i: a trusted
   region whose estimate is the bridge or Cuba's c2 max(e_k), see
   gcuba_rule_nullerr) of a confirmed parent, one whose null values fell
   off (parent_err < 0, gcuba_rule_parent_err) and whose children agree
   with it within GCUBA_RULE_CONFIRM times its error (4 d <=
   GCUBA_RULE_CONFIRM |parent_err|), gets at most max(|parent_err|, 4 d)
   and counts as decaying.  (Within its error only, until 2026-12-03:
   1.0-5x was common in a 4D oscillatory product at 1e-12, and the
   loose child kept an estimate 10^5-10^6 times its sibling's, so that
   its total jumped from 1e-12 to 1e-9 in one iteration out of two late
   in the run.  GCUBA_RULE_CONFIRM 4 left one at 4.8x in the last
   iteration of one call, which then reported 2e-9 for a true error of
   6e-14; 16 and no limit at all gave the same Genz, adversarial and
   batch counts.)  Such a child is part of a region
   whose rule was in its asymptotic regime and was right, so its error
   is not expected above its parent's; null values that fall off slowly
   or not at all there are chance (an oscillating integrand's fourth
   derivative passing near zero: 1-3 % of the new regions of a smooth 4D
   oscillatory product), and the estimate is then 10^2-10^5 times the
   true error.  Without the cap, splitting regions whose estimates were
   right raised the total (the region count grew, the estimate did not
   fall) and the product ran to maxeval.  A feature that the parent
   missed and a child sees shows in d: the children then disagree with
   the parent beyond GCUBA_RULE_CONFIRM times its error and nothing is
   capped.
   Tried and withdrawn (2026-12-03): two halves of a confirmed parent
   that both took the deep fast-decay estimate kept their own errors
   plus d each, without the proportional term.  4D oscillatory products
   at 1e-12 took 3-24 % fewer evaluations and the CPU batteries kept
   their counts, but on the H200 (bench-cuhre) f7 in 8D at epsrel
   1.024e-10 was claimed 1.1x off (15.7 million regions, most of them
   deep).  With neither term the adversarial sweep had 4 false claims.
   Both children are marked GCUBA_RULE_SLACK when the parent decayed and
   its error is at least GCUBA_RULE_SLACK_RATIO times 4 d (its estimate
   was that loose), for their own children's estimates
   (gcuba_rule_nullerr).
   dims1, dims2 may be NULL (no cap, no mark). */
GCUBA_HD static inline void gcuba_rule_cap_loose(double *err, int *dims,
  double cap)
{
  if ((*dims & GCUBA_RULE_LOOSE) && *err > cap) {
    *err = cap;
    *dims |= GCUBA_RULE_DECAYS;
  }
}
/* how far children may disagree with a confirmed parent for a loose
   child to be capped (gcuba_twolevel) */
#define GCUBA_RULE_CONFIRM 16
/* how far a decaying parent's error must exceed its children's
   disagreement with it for them to be slack (gcuba_twolevel) */
#define GCUBA_RULE_SLACK_RATIO 40
GCUBA_HD static inline void gcuba_twolevel(double parent_avg,
  double parent_err, double *avg1, double *err1, int *dims1, double *avg2,
  double *err2, int *dims2)
{
  double d = fabs(.25 * (*avg1 + *avg2 - parent_avg));
  double e;
  if (dims1 && parent_err < 0 &&
      GCUBA_RULE_SLACK_RATIO * 4 * d <= -parent_err) {
    *dims1 |= GCUBA_RULE_SLACK;
    *dims2 |= GCUBA_RULE_SLACK;
  }
  if (dims1 && parent_err < 0 && 4 * d <= GCUBA_RULE_CONFIRM * -parent_err) {
    const double cap = 4 * d > -parent_err ? 4 * d : -parent_err;
    gcuba_rule_cap_loose(err1, dims1, cap);
    gcuba_rule_cap_loose(err2, dims2, cap);
  }
  e = *err1 + *err2;
  if (e > 0) {
    double g = 1 + 2 * d / e;
    *err1 *= g;
    *err2 *= g;
  }
  *err1 += d;
  *err2 += d;
}

#endif /* GCUBA_ERREST_H */
