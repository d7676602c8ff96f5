/* gcuba/detail/gk.h -- one dimension: the Gauss-Kronrod pairs that stand in for
   a cubature rule when ndim = 1, their error estimate, their boundary
   probes and the check of a bisection against its parent.
   This file is part of gcuba.

   Included by rule.h (after struct gcuba_rule and gcuba_rule_select);
   not meant to be included on its own. */
#ifndef GCUBA_GK_H
#define GCUBA_GK_H
/* One dimension (ndim = 1): a Gauss-Kronrod pair instead of a cubature
   rule (gcuba_rule_init: key 15 gives G7-K15, any other key G10-K21).
   Set 0 is the centre, set s >= 1 the two nodes +-a_s; w[0] is the
   Kronrod weight and w[1] the Gauss weight (0 at Kronrod-only nodes),
   both halved so that they sum to 1 like every rule here.  The error is
   QUADPACK's (R. Piessens et al., QUADPACK, Springer 1983):
     e = |K - G| vol,  asc = vol sum_p wK_p |f_p - K|,  abs = vol sum wK |f|
     e <- asc min(1, (200 e / asc)^1.5)          (asc > 0 and e > 0)
     e <- max(e, GCUBA_GK_ROUND eps abs)          (rounding floor)
   QUADPACK takes 50 eps as the floor, which puts relative tolerances
   below about 1.1e-14 out of reach; the sums of a K21 rule carry a
   rounding error of a few eps abs, so 10 eps still bounds it. */
#define GCUBA_GK_ROUND 10
#define GCUBA_GK_PROBE_LOG2 20

/* The nodes reach 0.9957 (K21) or 0.9915 (K15) of the half-width: a kink
   or a jump in the last 0.2% (0.4%) of an interval is seen by no node, and
   the rules agree on a wrong value (|x - 0.999658| at 1e-9: a true error
   2e-7 claimed as 2e-15).  As in more dimensions (gcuba_rule_probe_err)
   two probes, at +-pu = +-(1 - 2^-20) half-widths, are compared with the
   quartic P4 through the five outermost nodes on their side.  A smooth
   integrand departs from it by much less than P4 departs from the cubic
   P3 through the four outermost (the Newton term that P4 adds) and by
   much less than the five values' spread; a probe beyond either, by
   GCUBA_PROBE_KAPPA4 or GCUBA_PROBE_KAPPA (below), shows a feature, and
   the interval's error is at least vol * strip * departure.  (With the
   probes at 1 - 2^-10, a jump that close to an end was still missed at
   1e-12: 2 false claims in 4000 adversarial calls; none at 2^-20.)
   fv[p * stride] is f at point p (probes after the rule's points). */
GCUBA_RULE_FN double gcuba_rule_gk_probe(const gcuba_rule *r,
  const double *fv, int stride, double vol)
{
  double worst = 0;
  int j, k;
  for (j = 0; j < 2; ++j) {
    double v[5], pred = 0, nt = 0, lo, hi, big, fp, dev;
    for (k = 0; k < 5; ++k) {
      /* node k from the outside: +a at first, -a at first + 1 */
      v[k] = fv[(long)(r->set[r->nsets - 1 - k].first + j) * stride];
      pred += r->pw[k] * v[k];
      nt += r->pd[k] * v[k];
    }
    fp = fv[(long)(r->npoints + j) * stride];
    lo = hi = fp;
    big = fabs(fp);
    for (k = 0; k < 5; ++k) {
      if (v[k] < lo) lo = v[k];
      if (v[k] > hi) hi = v[k];
      if (fabs(v[k]) > big) big = fabs(v[k]);
    }
    dev = fabs(fp - pred);
    if (dev > 1e-12 * big && dev > worst &&
        (dev > 0.25 * (hi - lo) || dev > 16 * fabs(nt)))
      worst = dev;
  }
  return vol * r->strip * worst;
}
GCUBA_RULE_FN void gcuba_rule_gk(const gcuba_rule *r, int ncomp,
  const double *f, double vol, double *avg, double *err)
{
  int c, s;
  for (c = 0; c < ncomp; ++c) {
    double k = 0, g = 0, sabs = 0, asc = 0, e, q;
    for (s = 0; s < r->nsets; ++s) {
      const gcuba_rule_set *t = &r->set[s];
      long p, end = (long)t->first + t->npts;
      for (p = t->first; p < end; ++p) {
        const double v = f[p * ncomp + c];
        k += t->w[0] * v;
        g += t->w[1] * v;
        sabs += t->w[0] * fabs(v);
      }
    }
    for (s = 0; s < r->nsets; ++s) {
      const gcuba_rule_set *t = &r->set[s];
      long p, end = (long)t->first + t->npts;
      for (p = t->first; p < end; ++p)
        asc += t->w[0] * fabs(f[p * ncomp + c] - k);
    }
    e = fabs(k - g) * vol;
    asc *= vol;
    if (asc > 0 && e > 0) {
      q = 200 * e / asc;
      e = q < 1 ? asc * q * sqrt(q) : asc;
    }
    q = GCUBA_GK_ROUND * 2.220446049250313e-16 * sabs * vol;
    avg[c] = vol * k;
    err[c] = e > q ? e : q;
    if (r->nprobe) {
      q = gcuba_rule_gk_probe(r, f + c, ncomp, vol);
      if (q > err[c]) err[c] = q;
    }
  }
}

/* One dimension: the check of a bisection against its parent.  The
   Gauss-Kronrod estimate is pessimistic for smooth integrands, and then
   the children's sum differs from the parent's estimate by less than the
   parent's error, and by less than the children's errors.  When it
   differs by more than either, the rule has been fooled (an interior log
   singularity or a kink between the nodes: log|x - 0.346| at 1e-3 was
   claimed with 1e-4 and missed by 2e-3, log|x - 0.4378| at 1e-4 claimed
   with 7e-6 and missed by 2e-4), and the children's own estimates, made
   by the same rule, are not trusted: each takes at least the difference
   as its error, and is split again rather than finished.  (Cuba's
   two-level correction, which always adds the difference, costs 15-30%
   more evaluations on the 4000-call adversarial sweep (bench/bench-adversarial);
   this check 2%.) */
GCUBA_HD static inline void gcuba_gk_twolevel(double parent_avg,
  double parent_err, double avg1, double *err1, double avg2, double *err2)
{
  double d = fabs(avg1 + avg2 - parent_avg);
  if (d > parent_err || d > *err1 + *err2) {
    if (*err1 < d) *err1 = d;
    if (*err2 < d) *err2 = d;
  }
}

/* construction (host only) */

/* The Gauss-Kronrod pairs for ndim = 1 (see gcuba_rule_gk): nodes in
   [0, 1), Kronrod and Gauss weights on [-1, 1], centre first.  The values
   are the published QUADPACK ones (computed by L. W. Fullerton to 80
   digits); tests/test-rules.c checks that each rule is exact to its
   degree (K15: 23, G7: 13, K21: 31, G10: 19). */
static inline int gcuba_rule_init_gk(gcuba_rule *r, int key)
{
  static const double x15[8] = {0, 0.207784955007898467600689403773245,
    0.405845151377397166906606412076961, 0.586087235467691130294144845693013,
    0.741531185599394439863864773280788, 0.864864423359769072789712788640926,
    0.949107912342758524526189684047851, 0.991455371120812639206854697526329};
  static const double k15[8] = {0.209482141084727828012999174891714,
    0.204432940075298892414161999234649, 0.190350578064785409913256402421014,
    0.169004726639267902826583426598550, 0.140653259715525918745189590510238,
    0.104790010322250183839876322541518, 0.063092092629978553290700663189204,
    0.022935322010529224963732008058970};
  static const double g15[8] = {0.417959183673469387755102040816327, 0,
    0.381830050505118944950369775488975, 0,
    0.279705391489276667901467771423780, 0,
    0.129484966168869693270611432679082, 0};
  static const double x21[11] = {0, 0.148874338981631210884826001129720,
    0.294392862701460198131126603103866, 0.433395394129247190799265943165784,
    0.562757134668604683339000099272694, 0.679409568299024406234327365114874,
    0.780817726586416897063717578345042, 0.865063366688984510732096688423493,
    0.930157491355708226001207180059508, 0.973906528517171720077964012084452,
    0.995657163025808080735527280689003};
  static const double k21[11] = {0.149445554002916905664936468389821,
    0.147739104901338491374841515972068, 0.142775938577060080797094273138717,
    0.134709217311473325928054001771707, 0.123491976262065851077958109831074,
    0.109387158802297641899210590325805, 0.093125454583697605535065465083366,
    0.075039674810919952767043140916190, 0.054755896574351996031381300244580,
    0.032558162307964727478818972459390, 0.011694638867371874278064396062192};
  static const double g21[11] = {0, 0.295524224714752870173892994651338, 0,
    0.269266719309996355091226921569469, 0,
    0.219086362515982043995534934228163, 0,
    0.149451349150580593145776339657697, 0,
    0.066671344308688137593568809893332, 0};
  const int sel = gcuba_rule_select(1, key), n = sel == 15 ? 8 : 11;
  const double *x = sel == 15 ? x15 : x21, *wk = sel == 15 ? k15 : k21;
  const double *wg = sel == 15 ? g15 : g21;
  int s, total = 0;
  r->ndim = 1;
  r->key = sel;
  r->degree = sel == 15 ? 23 : 31;
  r->nsets = n;
  for (s = 0; s < n; ++s) {
    gcuba_rule_set *t = &r->set[s];
    t->w[0] = 0.5 * wk[s];
    t->w[1] = 0.5 * wg[s];
    t->a = x[s];
    t->ma = s > 0;
    t->first = total;
    t->npts = s > 0 ? 2 : 1;
    total += t->npts;
  }
  r->npoints = total;
  r->ratio = (x[2] / x[1]) * (x[2] / x[1]);
  r->strip = 1 - x[n - 1];
  /* probes at +-pu (gcuba_rule_gk_probe): Lagrange weights of the five
     outermost nodes z_0 > ... > z_4 at pu (P4), and of the Newton term
     f[z_0..z_4] prod_{i<4} (pu - z_i) = P4(pu) - P3(pu) */
  r->nprobe = 2;
  r->pu = 1 - ldexp(1, -GCUBA_GK_PROBE_LOG2);
  {
    double z[5];
    int k, m;
    for (k = 0; k < 5; ++k) z[k] = x[n - 1 - k];
    for (k = 0; k < 5; ++k) {
      double w = 1, d = 1;
      for (m = 0; m < 5; ++m)
        if (m != k) {
          w *= (r->pu - z[m]) / (z[k] - z[m]);
          d /= z[k] - z[m];
        }
      for (m = 0; m < 4; ++m) d *= r->pu - z[m];
      r->pw[k] = w;
      r->pd[k] = d;
    }
  }
  return 0;
}

#endif /* GCUBA_GK_H */
