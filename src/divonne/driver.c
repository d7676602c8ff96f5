/* src/divonne/driver.c -- gDivonne: Cuba's Divonne in three phases.
   1. Partitioning: the unit cube is cut, region by region, until the
      regions' spreads (half the volume times the range of the integrand)
      are about equal (split.c).  Each round cuts the region of largest
      spread; the partition stops when the evaluations the final phase
      would need (the regions times the points that make the largest
      spread's error meet the tolerance) have not fallen for maxpass
      rounds, or at maxeval.
   2. Final integration: every region is sampled again with key2, with as
      many points as the spreads ask for.  A region whose two estimates
      disagree (chi^2 above maxchisq and a difference above mindeviation
      of the tolerance) is cut again (key3 = 1) or sampled a third time
      with key3, and its spread recomputed.
   3. The regions' estimates, weighted by their variances, are summed;
      chi^2 over the regions gives prob.
   A region's variance is its sampler's error, or for the partition's
   lattices and quasi-random points (which give none) its spread over the
   points it took, as in Cuba.  gcuba's differences:
   - the final phase's lattices are DIV_COPIES randomly shifted copies
     whose scatter is the region's error (Cuba takes the spread over the
     points there too, which in 8 and 10 dimensions is often tens of
     times below the true error);
   - the partition's estimate joins the final one only when its error is
     as statistical as the final one's (a region whose extremum search
     missed a jump would give its biased estimate the weight of a good
     one);
   - the final error is widened when a few regions dominate it (below);
   - while the final error misses the tolerance, the regions of largest
     variance get more copies, within maxeval (topup.c);
   - fail = 0 only when the final error meets the tolerance (Cuba answers
     fail = 0 whenever the final phase had the points it wished for).
   This file is part of gcuba. */
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "divonne/divonne_int.h"
#include "common/chisq.h"
#include "common/state.h"
#include "gcuba/detail/rule.h"
#include "vegas/sobol.h"

#define NOTZERO 0x1p-104
#define EPSCHI 0x1p-52

static void partition(divonne *d)
{
  gcuba_call *c = d->c;
  if (d->iter == 0) {
    gcuba_divonne_iterate(d, 0, DIV_INIDEPTH, 0, NULL);
    d->iter = 1;
    d->pass = 0;
    d->nmin = LLONG_MAX;
  }
  gcuba_divonne_totals_init(d);
  /* a region cut leaves a hole, closed when the holes are an eighth of
     the list (or a state file is to be written): no O(regions) moves
     per round */
  d->lazy = 1;
  for (;; ++d->iter) {
    dtot *worst = &d->tot[0];
    double nneed;
    long long first;
    const dreg *parent;
    int cc;
    if (d->dead && (c->statefile || 8 * d->dead > d->nreg))
      gcuba_divonne_totals_compact(d);
    gcuba_divonne_checkpoint(d, 0);
    gcuba_divonne_totals(d);
    for (cc = 0; cc < d->ncomp; ++cc) {
      dtot *t = &d->tot[cc];
      if (t->spreadsq > worst->spreadsq) worst = t;
      t->spread = sqrt(t->spreadsq);
      c->integral[cc] = t->avg;
      c->error[cc] = t->spread / (double)d->samp[0].neff;
    }
    if (c->verbose >= 1) {
      gcuba_log(c, 1, "Iteration %d (pass %d): %lld regions, %lld "
                "integrand evaluations so far, %lld in optimizing regions, "
                "%lld in finding cuts", d->iter, d->pass, d->nreg - d->dead,
                d->neval,
                d->neval_opt, d->neval_cut);
      for (cc = 0; cc < d->ncomp; ++cc)
        gcuba_log(c, 1, "[%d] %.15g +- %.8g", cc + 1, c->integral[cc],
                  c->error[cc]);
    }
    if (d->neval > c->maxeval) {
      /* a larger maxeval would go on partitioning from here */
      gcuba_divonne_compact(d, d->mir);
      gcuba_divonne_checkpoint(d, 1);
      d->bound = 1;
      break;
    }
    nneed = worst->spread / gcuba_divonne_maxerr(d, worst->avg);
    if (nneed < DIV_MAXPRIME) {
      const long long n =
          d->neval + (d->nreg - d->dead) * (long long)ceil(nneed);
      if (n < d->nmin) {
        d->nmin = n;
        d->pass = 0;
      } else if (++d->pass > c->maxpass && n >= c->mineval)
        break;
    }
    first = d->nreg;
    parent = d->reg[worst->iregion];
    gcuba_divonne_spec_ahead(d, (int)(worst - d->tot));
    gcuba_divonne_iterate(d, worst->iregion, DIV_DEPTH, -1, NULL);
    gcuba_divonne_totals_round(d, worst->iregion, parent, first);
  }
  gcuba_divonne_spec_drop(d);
  gcuba_divonne_compact(d, d->mir);
  d->lazy = 0;
}

#define VAR(e, spread, neff)                                                   \
  ((e) ? (e) * (e) : ((spread) / (double)(neff)) * ((spread) / (double)(neff)))

/* whether sampler isamp's error err is a statistical one: its random
   copies' scatter (0 only where every value the region gave was the
   same: gcuba_divonne_copies_var), or pseudo-random points' standard
   error */
static int statistical(const divonne *d, int isamp, double err)
{
  const dsamp *s = &d->samp[isamp];
  return s->shifted ? err >= 0
                    : err > 0 && s->kind == DIV_RANDOM && !d->sobol;
}

/* A region sampled before the final phase's size was raised (key3 = 1
   refinements raise it) keeps its smaller copies.  Where all its values
   were the same, its error is 0 (gcuba_divonne_copies_var), and a
   pocket of other values that its few points missed goes unseen (Genz's
   3-D discontinuous family, instance 19: a region of 3 copies of 41
   points, 1% of it below the jump, missed 28% of the integral, claimed
   with an error of 4e-5).  Such a region is sampled again at the final
   size, its new copies replacing the old: whatever the new ones find,
   the old were flat, so the choice biases nothing.  One copy of the
   final size looks first, and where it is flat too the region stays as
   it is.  Where maxeval leaves no room for the copies, its error is the
   pocket it may hide: 3/N of its volume (none of its N points saw it:
   95%) times the range of all the values the call saw, or, where the
   look found the pocket, its volume times its range. */
static void flat_again(divonne *d)
{
  gcuba_call *c = d->c;
  const dsamp *s = &d->samp[1];
  const int nc = d->ncomp;
  double lo[GCUBA_MAXCOMP], hi[GCUBA_MAXCOMP], n;
  long long i;
  int cc, probed;
  if (!s->shifted) return;
  for (cc = 0; cc < nc; ++cc) {
    lo[cc] = INFINITY;
    hi[cc] = -INFINITY;
    for (i = 0; i < d->nreg; ++i) {
      lo[cc] = fmin(lo[cc], d->reg[i]->fmin[cc]);
      hi[cc] = fmax(hi[cc], d->reg[i]->fmax[cc]);
    }
  }
  d->phase = 2;
  for (i = 0; i < d->nreg; ++i) {
    dreg *r = d->reg[i];
    double old[GCUBA_MAXCOMP];
    int flat = r->ncopy >= 2 && r->cp < s->neff;
    for (cc = 0; cc < nc && flat; ++cc)
      flat = r->fmin[cc] == r->fmax[cc] && gcuba_divonne_cvar(r, cc) == 0;
    if (!flat) continue;
    gcuba_divonne_checkpoint(d, 0);
    n = (double)r->ncopy * (double)r->cp;
    probed = d->neval + s->neff <= c->maxeval;
    if (probed) {
      /* first one copy at the final size: where it is flat too, the
         region keeps its estimate, now from N + p points */
      double a[GCUBA_MAXCOMP];
      r->cp = s->neff;
      r->ca = s->a;
      gcuba_divonne_copy(d, r, a);
      for (cc = 0; cc < nc && flat; ++cc)
        flat = r->fmin[cc] == r->fmax[cc];
      if (flat) continue;
    }
    if (d->neval + s->n > c->maxeval) {
      /* no room: the pocket its N points may have missed, or, where the
         copy found one, the region's range */
      d->bound = 1;
      for (cc = 0; cc < nc; ++cc) {
        const double e = probed ? r->vol * (r->fmax[cc] - r->fmin[cc])
                                : r->vol * (hi[cc] - lo[cc]) * 3 / n;
        d->tot[cc].sigsq += e * e;
      }
      r->ncopy = 0;
      continue;
    }
    for (cc = 0; cc < nc; ++cc) old[cc] = r->avg[cc];
    gcuba_divonne_sample(d, r, 1);
    for (cc = 0; cc < nc; ++cc) {
      dtot *t = &d->tot[cc];
      const double v = gcuba_divonne_cvar(r, cc);
      t->integral += r->avg[cc] - old[cc];
      t->sigsq += v;
      t->sigw += v * v / (r->ncopy - 1);
      r->spread[cc] = sqrt(v);
    }
  }
}

/* The share of the final phase's points that sampling every region alike
   puts where the error is, when the budget falls short of the spreads'
   wish: Neyman's allocation (points in proportion to a region's spread s)
   gives a variance (sum s)^2 / N, alike sampling R regions R sum s^2 / N;
   the least ratio over the components (spreads relative to their
   tolerance).  Near 1 when the partition made the spreads about equal,
   as it aims to; far below when regions where the integrand is flat (an
   indicator's inside and outside) sit beside a few that carry the
   variance. */
static double alike_share(const divonne *d)
{
  double f = 1;
  long long i;
  int cc;
  for (cc = 0; cc < d->ncomp; ++cc) {
    double s1 = 0, s2 = 0;
    for (i = 0; i < d->nreg; ++i) {
      const double s = d->reg[i]->spread[cc];
      s1 += s;
      s2 += s * s;
    }
    if (s2 > 0) {
      const double g = s1 / (double)d->nreg * (s1 / s2);
      if (g < f) f = g;
    }
  }
  return f;
}

/* phase 2's sizing: the points per region the spreads ask for, within
   maxeval; d->short_ the points the final phase is short of its wish, -2
   when it cannot run (the partition's answer stands), and -1 once the
   evaluations ran out on the way (final_loop) */
static void final_size(divonne *d)
{
  gcuba_call *c = d->c;
  const int nc = d->ncomp;
  double nneed = 2 * (double)d->samp[0].neff;
  long long short_, nmax;
  int cc;
  for (cc = 0; cc < nc; ++cc) {
    dtot *t = &d->tot[cc];
    /* random points (key2 < 0) have no top-up pass (topup.c): they
       aim at half the tolerance */
    const double me =
        (c->key2 < 0 ? .5 : 1) * gcuba_divonne_maxerr(d, t->avg);
    t->nneed = t->spread / me;
    if (t->nneed > nneed) nneed = t->nneed;
    t->maxerrsq = me * me;
    t->mindevsq = t->maxerrsq * c->mindeviation * c->mindeviation;
    t->integral = t->sigsq = t->chisq = t->sigw = 0;
  }
  d->nwant = nneed < 1e15 ? (long long)ceil(nneed) : (long long)1e15;
  d->reserve = 0;
  nmax = (c->maxeval - d->neval) / d->nreg + 1;
  short_ = gcuba_divonne_lookup(d, 1, c->key2, d->nwant, nmax,
                                d->samp[0].n + 1);
  if (short_ && !(short_ & (1LL << 62)) && c->key2 > 0 &&
      d->samp[1].kind == DIV_LATTICE) {
    /* short of the wish: every region gets the share of its points that
       sampling them alike puts where the error is, and the rest go copy
       by copy where the variance is (topup.c).  (Only below a share
       of one half, Genz's protocol made 4 claims fewer, with 2.8% more
       evaluations) */
    const double f = alike_share(d);
    const long long nmin = DIV_COPIES * d->samp[0].neff;
    if (f < 1 && (double)nmax * f > (double)nmin) {
      short_ = gcuba_divonne_lookup(d, 1, c->key2, d->nwant,
                                    (long long)((double)nmax * f), nmin);
      /* (a lattice's prime may round the points up past nmax) */
      d->reserve =
          nmax > d->samp[1].n ? (nmax - d->samp[1].n) * d->nreg : 0;
      gcuba_log(c, 2, "the regions sampled alike would put %.2g of the "
                "points where the error is: each gets that share", f);
    }
  }
  if (short_) d->bound = 1;
  d->df = 0;
  d->fi = 0;
  if (short_ & (1LL << 62)) {
    gcuba_log(c, 1, "not enough evaluations left for the final "
              "integration");
    d->short_ = -2;
    d->fi = d->nreg;
    return;
  }
  d->short_ = short_ * d->nreg;
  d->adjust = c->key3 == 1 && d->samp[1].kind != DIV_RULE &&
              (c->key2 < 0 || d->samp[1].neff < DIV_MAXPRIME);
  gcuba_log(c, 1, "Main integration on %lld regions with %lld samples per "
            "region.", d->nreg, d->samp[1].neff);
}

/* The range of component cc that region r's final points saw: a .. b.
   When it is more than DIV_SURPRISE times the one its partition knew
   (its searches' extrema before the final phase), the partition did not
   know the region: it is explored again, from the copies' extrema, and
   when the copies saw less than DIV_SEEN of the range the searches then
   find, they missed where the region's values are, and their estimate
   can be far off with a small scatter.  A 6-D Gaussian exp(-625 |x -
   1/2|^2) at epsrel 1e-4 (tests/suite.inc's f4) had regions whose
   partition saw values of 1e-23 to 1e-57, whose 3 copies of 4096 points
   saw 3e-7 and whose searches then found 8e-3 on a face, next to the
   peak: their estimates were 1/70 to 1/140 of their true integrals with
   a scatter of 1/4 of that, and 6 of 8 seeds claimed the integral 8 to
   54 errors off (2.7 to 26 times the tolerance).  Such a region is cut
   again (key3 = 1), or its error is at least the one its new spread
   gives.  Copies that saw the range (a jump both sides of which they
   sample: Cuba's demo's ball) keep their estimate. */
static void sampled_range(const divonne *d, int cc, double *a, double *b)
{
  *a = INFINITY;
  *b = -INFINITY;
  if (d->ext) {
    *a = DIV_CEXT(d)[2 * cc];
    *b = DIV_CEXT(d)[2 * cc + 1];
  } else {
    long long k;
    for (k = 0; k < d->samp[1].n; ++k) {
      const double v = d->sf[k * d->ncomp + cc];
      if (v < *a) *a = v;
      if (v > *b) *b = v;
    }
  }
}

/* phase 2 from region d->fi on, and the refinements (phase 3) */
static void final_loop(divonne *d)
{
  gcuba_call *c = d->c;
  const int nc = d->ncomp;
  /* the evaluations of this phase: maxeval less those kept for more
     copies (final_size) */
  const long long maxeval = c->maxeval - d->reserve;
  long long i;
  int cc;
  /* per component the partition's range of the region, its copies' */
  double flo[GCUBA_MAXCOMP], fhi[GCUBA_MAXCOMP];
  double clo[GCUBA_MAXCOMP], chi[GCUBA_MAXCOMP];
  int surp[GCUBA_MAXCOMP], nsurp, explored;
  for (i = d->fi; i < d->nreg;) {
    dreg *r = d->reg[i];
    int todo = 0;
    d->fi = i;
    gcuba_divonne_checkpoint(d, 0);
    if (d->neval + (d->nreg - i) * d->samp[1].n >
        maxeval + maxeval / 10) {
      /* regions cut again have taken the evaluations the others were to
         have: these get what is left, or, when that is not even the
         smallest lattices, keep the partition's estimates (fail = 1) */
      const long long left = maxeval - d->neval;
      d->bound = 1;
      if (left / (d->nreg - i) < 3 * DIV_COPIES ||
          (gcuba_divonne_lookup(d, 1, c->key2, d->nwant,
                                left / (d->nreg - i), 0) & (1LL << 62))) {
        gcuba_log(c, 1, "the evaluations ran out: %lld regions keep the "
                  "partition's estimates", d->nreg - i);
        for (; i < d->nreg; ++i)
          for (cc = 0; cc < nc; ++cc) {
            const double e = d->reg[i]->spread[cc] /
                             (double)d->samp[0].neff;
            d->tot[cc].integral += d->reg[i]->avg[cc];
            d->tot[cc].sigsq += e * e;
          }
        d->short_ = -1;
        break;
      }
      d->adjust = 0;
    }
    for (cc = 0; cc < nc; ++cc) {
      d->tot[cc].pavg[0] = r->avg[cc];
      d->tot[cc].perr[0] = r->err[cc];
      flo[cc] = r->fmin[cc];
      fhi[cc] = r->fmax[cc];
    }
    d->phase = 2;
    r->isamp = 1;
    gcuba_divonne_ahead(d, i);
    gcuba_divonne_sample(d, r, 1);
    nsurp = explored = 0;
    for (cc = 0; cc < nc; ++cc) {
      sampled_range(d, cc, &clo[cc], &chi[cc]);
      surp[cc] = chi[cc] - clo[cc] > DIV_SURPRISE * (fhi[cc] - flo[cc]);
      nsurp += surp[cc];
      d->tot[cc].pavg[1] = r->avg[cc];
      d->tot[cc].perr[1] = r->err[cc];
      if (d->adjust) d->tot[cc].spreadsq -= r->spread[cc] * r->spread[cc];
    }
    if (nsurp) {
      /* the partition did not know the region: where are its extrema
         (sampled_range) */
      gcuba_divonne_explore(d, i, 1);
      explored = 1;
      for (cc = 0; cc < nc; ++cc)
        surp[cc] = surp[cc] &&
                   chi[cc] - clo[cc] < DIV_SEEN * (r->fmax[cc] - r->fmin[cc]);
    }
    for (cc = 0; cc < nc; ++cc) {
      dtot *t = &d->tot[cc];
      const double v0 = VAR(t->perr[0], r->spread[cc], d->samp[0].neff);
      const double v1 = VAR(t->perr[1], r->spread[cc], d->samp[1].neff);
      const double a2 = t->pavg[1], diffsq = (a2 - t->pavg[0]) *
                                              (a2 - t->pavg[0]);
      /* refine only while every region left keeps its points within
         maxeval */
      if (d->neval + (d->nreg - i) * d->samp[1].n >= maxeval) {
        d->bound = 1;
        if (surp[cc]) todo |= 1;
        continue;
      }
      if (surp[cc] || r->err[cc] * t->nneed > r->spread[cc] ||
          diffsq > fmax(c->maxchisq * (v0 + v1), EPSCHI * a2 * a2)) {
        if (c->key3 && (surp[cc] || diffsq > t->mindevsq)) {
          if (c->key3 == 1) {
            /* cut the region again; its first piece takes its place */
            /* (within what the regions after it leave) */
            const long long nlimited = d->nlimited;
            d->phase = 1;
            d->limit = maxeval - (d->nreg - i - 1) * d->samp[1].n;
            gcuba_divonne_iterate(d, i, DIV_POSTDEPTH, 1, d->tot);
            d->limit = LLONG_MAX;
            if (d->nlimited != nlimited) d->bound = 1;
            if (d->adjust) {
              const double need = sqrt(t->spreadsq / t->maxerrsq);
              const long long nnew = need > 1e15 ? (long long)1e15
                                                 : (long long)ceil(need);
              if (nnew > d->nwant + d->nwant / 64) {
                const long long more = gcuba_divonne_lookup(
                    d, 1, c->key2, nnew,
                    (maxeval - d->neval) / d->nreg + 1, d->samp[1].n);
                if (more) d->bound = 1;
                d->short_ += d->nreg * (more & ~(1LL << 62));
                d->nwant = nnew;
                if (c->key2 > 0 && d->samp[1].neff >= DIV_MAXPRIME)
                  d->adjust = 0;
                gcuba_log(c, 3, "sampling the remaining %lld regions with "
                          "%lld points per region", d->nreg,
                          d->samp[1].neff);
              }
            }
            todo = -1;
            break;
          }
          todo |= 3;
        }
        todo |= 1;
      }
    }
    if (todo < 0) {
      /* the region was cut: the pieces are at the end of the list */
      continue;
    }
    if (d->adjust)
      for (cc = 0; cc < nc; ++cc) {
        const double e = r->spread[cc] / (double)d->samp[1].neff;
        d->tot[cc].maxerrsq -= e * e;
      }
    if (todo == 1) {
      /* the spread again, from the new samples */
      if (!explored) gcuba_divonne_explore(d, i, 1);
    } else if (todo == 3) {
      if (!d->samp[2].kind)
        gcuba_divonne_lookup(d, 2, c->key3, d->nwant, LLONG_MAX / 4, 0);
      d->phase = 3;
      r->isamp = 2;
      gcuba_divonne_sample(d, r, 2);
      gcuba_divonne_explore(d, i, 1);
      ++r->df;
      ++d->df;
    }
    for (cc = 0; cc < nc; ++cc) {
      dtot *t = &d->tot[cc];
      const double x1 = t->pavg[0], x2 = t->pavg[1];
      const double v1 = VAR(t->perr[0], r->spread[cc], d->samp[0].neff);
      const double v2 =
          statistical(d, 1, t->perr[1])
              ? t->perr[1] * t->perr[1]
              : VAR(t->perr[1], r->spread[cc], d->samp[1].neff);
      /* the partition's estimate joins the final one only when both
         errors are of one kind: a spread-based variance can be far too
         small (an extremum the search missed), and would give a biased
         estimate the weight of a good one */
      const double r2 =
          statistical(d, 1, t->perr[1]) && !statistical(d, 0, t->perr[0])
              ? 0
          : v1 ? v2 / v1
               : ((double)d->samp[1].neff / d->samp[0].neff) *
                     ((double)d->samp[1].neff / d->samp[0].neff);
      double norm = 1 + r2, avg = x2 + r2 * x1,
             /* a surprised region explored again: at least the error
                its new spread gives */
          sigsq = surp[cc] && todo == 1
                      ? fmax(v2, VAR(0, r->spread[cc], d->samp[1].neff))
                      : v2;
      double chisq = (x2 - x1) * (x2 - x1), chiden = v1 + v2;
      if (todo == 3) {
        const double x3 = r->avg[cc];
        const double v3 = VAR(r->err[cc], r->spread[cc], d->samp[2].neff);
        const double r3 = v2 ? v3 / v2
                             : ((double)d->samp[2].neff / d->samp[1].neff) *
                                   ((double)d->samp[2].neff /
                                    d->samp[1].neff);
        norm = 1 + r3 * norm;
        avg = x3 + r3 * avg;
        sigsq = v3;
        chisq = v1 * (x3 - x2) * (x3 - x2) + v2 * (x3 - x1) * (x3 - x1) +
                v3 * chisq;
        chiden = v1 * v2 + v3 * chiden;
      }
      if (c->flags & GCUBA_LAST) avg = r->avg[cc];
      else {
        norm = 1 / norm;
        sigsq *= norm;
        avg *= norm;
      }
      if (chisq > EPSCHI) chisq /= fmax(chiden, NOTZERO);
      t->integral += avg;
      t->sigsq += sigsq;
      /* K shifted copies: K - 1 degrees of freedom */
      if (d->samp[todo == 3 ? 2 : 1].shifted &&
          (todo == 3 ? r->err[cc] : t->perr[1]) > 0)
        t->sigw += sigsq * sigsq / (d->samp[todo == 3 ? 2 : 1].shifted - 1);
      t->chisq += chisq;
      r->avg[cc] = avg;
      r->spread[cc] = sqrt(sigsq);
      r->chisq[cc] = chisq;
      /* more copies can refine it only when it is theirs alone */
      if (todo == 3 || r2 != 0 || !statistical(d, 1, t->perr[1]) ||
          (surp[cc] && todo == 1))
        r->ncopy = 0;
    }
    ++i;
  }
  gcuba_divonne_ahead_settle(d);
  d->fi = d->nreg;
}

/* the answer from the totals; prob per component */
static void answer(divonne *d, double *prob)
{
  gcuba_call *c = d->c;
  const long long df = d->df + d->nreg;
  int cc;
  for (cc = 0; cc < d->ncomp; ++cc) {
    const double k = gcuba_divonne_inflate(d, &d->tot[cc]);
    if (d->short_ == -2) {
      /* no final phase: the partition's answer */
      c->integral[cc] = d->tot[cc].avg;
      c->error[cc] = d->tot[cc].spread / (double)d->samp[0].neff;
      prob[cc] = -999;
      continue;
    }
    c->integral[cc] = d->tot[cc].integral;
    c->error[cc] = sqrt(d->tot[cc].sigsq * k);
    gcuba_log(c, 2, "[%d] final error %.6g: the regions' %.6g times %.3g "
              "(%.3g degrees of freedom)", cc + 1, c->error[cc],
              sqrt(d->tot[cc].sigsq), sqrt(k),
              d->tot[cc].sigw > 0 ? d->tot[cc].sigsq * d->tot[cc].sigsq /
                                        d->tot[cc].sigw
                                  : INFINITY);
    prob[cc] = d->short_ < 0
                   ? -999
                   : gcuba_chisq_prob(d->tot[cc].chisq,
                                      (int)(df < INT_MAX ? df : INT_MAX));
  }
}

/* the run from where it stands (d->stage) to its answer */
static void run(divonne *d, double *prob)
{
  gcuba_call *c = d->c;
  double t0 = gcuba_now_ms(), t1 = t0, t2 = t0;
  if (d->stage == 1) {
    d->phase = 1;
    partition(d);
    d->stage = 2;
    d->fi = -1;
  }
  t1 = gcuba_now_ms();
  if (d->stage == 2) {
    if (d->fi < 0) {
      gcuba_divonne_checkpoint(d, 1);
      final_size(d);
    }
    final_loop(d);
    d->stage = 3;
  }
  t2 = gcuba_now_ms();
  if (d->short_ >= 0) {
    flat_again(d);
    gcuba_divonne_more_copies(d);
  }
  gcuba_divonne_checkpoint(d, 1);
  answer(d, prob);
  gcuba_log(c, 2, "time: partition %.3f s, final phase %.3f s, its top-up "
            "%.3f s", (t1 - t0) / 1e3, (t2 - t1) / 1e3,
            (gcuba_now_ms() - t2) / 1e3);
  if (d->ahead.nbatch)
    gcuba_log(c, 2, "the final phase's copies in %lld batches, %lld of "
              "them made while the regions before them were taken; %lld "
              "evaluations made ahead were not taken", d->ahead.nbatch,
              d->ahead.npend,
              d->ahead.wasted + (d->ahead.cur.n - d->ahead.next) *
                                    d->ahead.cur.k * d->ahead.cur.p);
  if (d->nwork)
    gcuba_log(c, 2, "on %d threads: %lld cuts worked out ahead, %lld of "
              "them taken; %lld more pieces explored ahead; %lld loops, "
              "%.3f s; %lld loops while the rounds went on, waited for "
              "%.3f s", d->nwork, d->nspec, d->nspec_taken, d->nlook,
              d->nloops, d->tahead / 1e3, d->nfly, d->tfly / 1e3);
}

static void teardown(divonne *d)
{
  long long i;
  gcuba_divonne_spec_drop(d);
  if (d->ctx) gcuba_divonne_ahead_settle(d);
  for (i = 0; i < d->nreg; ++i) free(d->reg[i]);
  free(d->reg);
  if (d->ctx) d->ops->destroy(d->ctx);
  free(d->sx);
  free(d->tot);
  free(d->xgiven);
  free(d->wx);
  free(d->mir);
  free(d->bfirst);
  free(d->bsum);
  free(d->btop);
  free(d->cbuf);
  free(d->cext);
  free(d->cq);
  free(d->cm);
  free(d->bx);
  free(d->hpos);
  free(d->hkey);
  gcuba_divonne_ahead_free(d);
  gcuba_divonne_look_free(d);
  free(d->xmem);
  free(d->pbox);
  free(d->rules);
  free((void *)d->sobol);
  free((void *)d->csobol);
}

static int setup(divonne *d)
{
  gcuba_call *c = d->c;
  const int nd = c->ndim, nc = c->ncomp;
  long long i;
  d->ndim = nd;
  d->ncomp = nc;
  d->limit = LLONG_MAX;
  d->ahead.max = c->set.divonne_ahead > 0 ? c->set.divonne_ahead
                                          : DIV_AHEAD_MAX;
  d->epsrel = c->epsrel;
  d->epsabs = c->epsabs > NOTZERO ? c->epsabs : NOTZERO;
  d->blo = c->border;
  d->bhi = 1 - c->border;
  d->seed = (uint64_t)(uint32_t)c->seed;
  d->next = d->seed == 0; /* Sobol: the origin is skipped */
  d->tot = (dtot *)calloc((size_t)nc, sizeof(dtot));
  d->wx = (double *)malloc(sizeof(double) * 2 * ((size_t)nd + nc));
  d->rules = (gcuba_rule *)calloc(3, sizeof(gcuba_rule));
  d->cbuf = (double *)malloc(sizeof(double) * (2 * DIV_COPIES + 2) * nc);
  d->cext = (long long *)malloc(sizeof(long long) * 2 * nc);
  d->cq = (double *)malloc(sizeof(double) * (2 + DIV_COPIES) * nd);
  d->cm = (uint64_t *)malloc(sizeof(uint64_t) * DIV_COPIES * nd);
  if (!d->tot || !d->wx || !d->rules || !d->cbuf || !d->cext || !d->cq ||
      !d->cm)
    return gcuba_fail(c, GCUBA_FAIL_NOMEM, "gDivonne's scratch");
  d->wf = d->wx + 2 * nd;
  {
    const int key[3] = {c->key1, c->key2, c->key3};
    for (i = 0; i < 3; ++i)
      if (key[i] == 7 || key[i] == 9 || (nd == 3 && key[i] == 11) ||
          (nd == 2 && key[i] == 13))
        gcuba_rule_init(&d->rules[i], nd, key[i]);
  }
  if (nd >= DIV_SOBOLDIM) {
    /* the final phase's copies (sample.c): bit-major, [bit][axis], the
       axes padded to GCUBA_COPY_PAD(nd) with 0 */
    const size_t nv = (size_t)GCUBA_SOBOL_BITS * GCUBA_COPY_PAD(nd);
    uint64_t *v = (uint64_t *)calloc(2 * nv, sizeof(uint64_t));
    int b;
    if (!v) return gcuba_fail(c, GCUBA_FAIL_NOMEM, "Sobol directions");
    gcuba_sobol_dirs(nd, v + nv);
    for (b = 0; b < GCUBA_SOBOL_BITS; ++b)
      for (i = 0; i < nd; ++i)
        v[(size_t)b * GCUBA_COPY_PAD(nd) + i] =
            v[nv + (size_t)i * GCUBA_SOBOL_BITS + b];
    d->csobol = v;
  }
  if (d->seed == 0 && (c->key1 < 0 || c->key2 < 0 || c->key3 < 0)) {
    uint64_t *v = (uint64_t *)malloc(sizeof(uint64_t) * 64 * (size_t)nd);
    if (!v) return gcuba_fail(c, GCUBA_FAIL_NOMEM, "Sobol directions");
    gcuba_sobol_dirs(nd, v);
    d->sobol = v;
  }
  d->ctx = d->ops->create(c, &c->fail);
  if (!d->ctx) return c->fail;
  if (c->ngiven > 0 || c->nextra > 0) {
    const long long ng = c->ngiven, ne = c->nextra;
    d->xgiven = (double *)malloc(sizeof(double) *
                                 (size_t)(ng + ne) * (nd + nc));
    if (!d->xgiven) return gcuba_fail(c, GCUBA_FAIL_NOMEM, "given points");
    d->fgiven = d->xgiven + (size_t)ng * nd;
    d->xextra = d->fgiven + (size_t)ng * nc;
    d->fextra = d->xextra + (size_t)ne * nd;
    for (i = 0; i < ng; ++i)
      memcpy(d->xgiven + i * nd, c->xgiven + i * c->ldxgiven,
             (size_t)nd * sizeof(double));
    d->ngiven = ng;
  }
  return 0;
}

/* a fresh run: the given points, the unit cube as the first region */
static void start(divonne *d)
{
  gcuba_call *c = d->c;
  dreg *r;
  int j;
  if (d->ngiven) {
    d->phase = 0;
    gcuba_divonne_eval(d, d->ngiven, d->xgiven, d->fgiven);
  }
  gcuba_divonne_lookup(d, 0, c->key1, 47, INT_MAX, 0);
  r = gcuba_divonne_region_new(d);
  for (j = 0; j < d->ndim; ++j) {
    r->lo[j] = 0;
    r->hi[j] = 1;
  }
  d->phase = 1;
  d->stage = 1;
  d->iter = 0;
  gcuba_log(c, 1, "Partitioning phase:");
}

/* forgets a resumed state (flags bit 5) */
static void restart(divonne *d)
{
  long long i;
  for (i = 0; i < d->nreg; ++i) free(d->reg[i]);
  d->nreg = 0;
  d->nserial = 0;
  d->neval = d->neval_opt = d->neval_cut = 0;
  d->nshift = 0;
  d->next = d->seed == 0;
  d->rr = 0;
  d->lastsave = 0;
  d->laststage = 0;
  memset(d->samp, 0, sizeof d->samp);
}

void gcuba_divonne_drive(gcuba_call *c, const gcuba_points_ops *ops)
{
  divonne *d = (divonne *)calloc(1, sizeof(divonne));
  double prob[GCUBA_MAXCOMP];
  int cc;
  c->neval = 0;
  c->nregions = 0;
  if (!d) {
    gcuba_fail(c, GCUBA_FAIL_NOMEM, "gDivonne");
    return;
  }
  d->c = c;
  d->ops = ops;
  if (c->verbose >= 2)
    gcuba_log(c, 2, "%s input parameters:\n  ndim %d\n  ncomp %d\n  nvec "
              "%lld\n  epsrel %g\n  epsabs %g\n  flags %d\n  seed %d\n  "
              "mineval %lld\n  maxeval %lld\n  key1 %d\n  key2 %d\n  key3 "
              "%d\n  maxpass %d\n  border %g\n  maxchisq %g\n  mindeviation "
              "%g\n  ngiven %lld\n  nextra %lld\n  statefile \"%s\"",
              c->routine, c->ndim, c->ncomp, c->nvec, c->epsrel, c->epsabs,
              c->flags, c->seed, c->mineval, c->maxeval, c->key1, c->key2,
              c->key3, c->maxpass, c->border, c->maxchisq, c->mindeviation,
              c->ngiven, c->nextra, c->statefile ? c->statefile : "");
  for (cc = 0; cc < c->ncomp; ++cc) {
    c->integral[cc] = c->error[cc] = 0;
    c->prob[cc] = prob[cc] = 0;
  }
  if (!setup(d)) {
    if (setjmp(d->abort) == 0) {
      int resumed = c->statefile ? gcuba_divonne_load_state(d) : 0;
      if (resumed > 0 && (c->flags & GCUBA_RESETSTATE)) {
        gcuba_log(c, 1, "flags bit 5: state reset");
        restart(d);
        resumed = 0;
      }
      if (resumed < 0) {
        d->fail = resumed;
      } else {
        if (!resumed) start(d);
        run(d, prob);
        c->fail = 0;
      }
    }
    if (d->fail) c->fail = d->fail;
  }
  /* (a partition cut short leaves holes) */
  gcuba_divonne_compact(d, NULL);
  d->lazy = 0;
  c->neval = d->neval;
  c->nregions = d->nreg;
  if (!c->fail) {
    /* fail = 0 only when the final error meets the tolerance */
    for (cc = 0; cc < c->ncomp; ++cc) {
      c->prob[cc] = prob[cc];
      if (d->short_ < 0 ||
          !(c->error[cc] <= gcuba_divonne_maxerr(d, c->integral[cc])))
        c->fail = GCUBA_FAIL_ACCURACY;
    }
    if (!c->fail && c->statefile) gcuba_state_remove(c);
  }
  teardown(d);
  free(d);
}
