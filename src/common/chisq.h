/* src/common/chisq.h -- the chi-square probability that gcuba reports as
   `prob` (same meaning as Cuba 4.2's: the CDF P(X <= chi2) of a chi-square
   variable with ndof degrees of freedom, so values near 1 flag iterations
   that are inconsistent with each other), the regularised incomplete gamma
   functions behind it, and gcuba_vegas_combine_t, the running combination
   of Vegas iterations (inverse-variance weighted mean, its error, and the
   chi^2 of the iterations about that mean, as Cuba's Vegas computes them).
   Host C99; no global state, no output, no exit.  This file is part of
   gcuba. */
#ifndef GCUBA_CHISQ_H
#define GCUBA_CHISQ_H

/* what Cuba reports as prob when there is no degree of freedom (one
   iteration only) */
#define GCUBA_CHISQ_NODOF (-999.0)

#include "gcuba/detail/combine.h" /* gcuba_vegas_combine_t, _add */

#ifdef __cplusplus
extern "C" {
#endif

/* Cuba's prob: P(X <= chi2) for X ~ chi^2(ndof), i.e. P(ndof/2, chi2/2).
   ndof <= 0: GCUBA_CHISQ_NODOF; chi2 <= 0: 0; chi2 = +inf: 1; NaN: NaN.
   Accurate to ~1e-14 absolute (tests check 1e-10). */
double gcuba_chisq_prob(double chi2, int ndof);

/* the upper tail 1 - gcuba_chisq_prob(chi2, ndof), accurate also when it is
   tiny (ndof <= 0: GCUBA_CHISQ_NODOF; chi2 <= 0: 1) */
double gcuba_chisq_q(double chi2, int ndof);

/* the p-quantile of chi^2(ndof): x with gcuba_chisq_prob(x, ndof) = p, to
   about 1e-15 relative (bisection); 0 for p = 0, NaN for p outside [0, 1)
   or ndof <= 0 */
double gcuba_chisq_quantile(double p, int ndof);

/* regularised incomplete gamma functions P(a, x) and Q(a, x) = 1 - P(a, x),
   a > 0, x >= 0 (NaN otherwise) */
double gcuba_chisq_gammp(double a, double x);
double gcuba_chisq_gammq(double a, double x);

/* Combination of iterations.  Iteration k gives I_k with variance var_k and
   weight w_k = 1/var_k.  As in Cuba's Vegas:
     integral = sum w_k I_k / sum w_k,   error = (sum w_k)^(-1/2),
     chi2     = sum w_k (I_k - integral)^2,   ndof = (iterations) - 1,
   every iteration, the first included, counting with its full weight.
   chi2 is accumulated in Cuba's shifted form (sums of w (I - I_0) and
   w (I - I_0) I, combined with the current mean), which is algebraically
   the same and loses less to cancellation when the I_k share many digits.
   With `last` (Cuba's flags bit 2, value 4) the reported integral and error
   are those of the latest iteration alone; the sums, chi2 and ndof are
   unchanged (they still refer to the weighted mean of all iterations).
   Variance floor: Cuba floors its unnormalised variance at 2^-104, i.e.
   var_k >= 2^-104/(n_k - 1) for an iteration of n_k samples; _add applies
   the same floor with n_k = calls (calls < 2 counts as 2).  A NaN var
   propagates. */
void gcuba_vegas_combine_init(gcuba_vegas_combine_t *c);


/* current results; any output pointer may be NULL.  prob is
   gcuba_chisq_prob(chi2, ndof) (GCUBA_CHISQ_NODOF after one iteration).
   With no iteration added everything is 0 and ndof is -1. */
void gcuba_vegas_combine_result(const gcuba_vegas_combine_t *c, int last,
                                double *integral, double *error,
                                double *chi2, int *ndof, double *prob);

#ifdef __cplusplus
}
#endif

#endif /* GCUBA_CHISQ_H */
