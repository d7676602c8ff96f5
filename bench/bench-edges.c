/* bench/bench-edges.c -- gVegas on integrable power singularities at the
   boundary: prod_i x_i^-p_i over the unit cube, at a corner (x_i) or on
   faces (1 - x_i on the odd axes), Cuba's nstart 1000 and nincrease 500,
   pseudo-random seeds 1..N.  For each case and tolerance: the claims
   (fail = 0), those more than 4 and 6 errors from the truth
   prod 1/(1 - p_i) and those further from it than the tolerance, and the
   mean evaluations; then the totals.  Rule 6
   of doc/vegas.md is what keeps these claims honest.  The integrand
   (bench/edges.h, shared with tests/test-vegas-corner) is compiled by
   the C compiler: CPU threads.

   usage: bench-edges [--seeds N] [--maxeval N] [--epsrel LIST]
                      [--cases LIST]
   (LIST: comma-separated; cases by number, see the table printed).
   This file is part of gcuba. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "gcuba.h"
#include "edges.h"

static const struct edges cases[] = {
  {2, 0, {0.9, 0.5}},
  {3, 0, {0.9, 0.5, 0.5}},
  {2, 0, {0.95, 0.95}},
  {2, 0, {0.7, 0.2}},
  {2, 0, {0.6, 0.6}},
  {2, 0, {0.5, 0.5}},
  {3, 0, {0.5, 0.5, 0.5}},
  {4, 0, {0.5, 0.3, 0.3, 0.3}},
  {4, 0, {0.8, 0.2, 0.2, 0.2}},
  {6, 0, {0.5, 0.2, 0.2, 0.2, 0.2, 0.2}},
  {6, 0, {0.9, 0.1, 0.1, 0.1, 0.1, 0.1}},
  {3, 0, {0.3, 0.3, 0.3}},
};
#define NCASES (int)(sizeof cases / sizeof cases[0])

static int parse_list(const char *s, double *v, int max)
{
  int n = 0;
  while (s && *s && n < max) {
    v[n++] = atof(s);
    s = strchr(s, ',');
    if (s) ++s;
  }
  return n;
}

int main(int argc, char **argv)
{
  double eps[8] = {1e-2, 1e-3}, sel[64];
  int neps = 2, nsel = 0, nseed = 20, i, k, face;
  long long maxeval = 1000000;
  long long claims = 0, far4 = 0, far6 = 0, beyond = 0, calls = 0;
  for (i = 1; i < argc; ++i) {
    if (!strcmp(argv[i], "--seeds") && i + 1 < argc)
      nseed = atoi(argv[++i]);
    else if (!strcmp(argv[i], "--maxeval") && i + 1 < argc)
      maxeval = atoll(argv[++i]);
    else if (!strcmp(argv[i], "--epsrel") && i + 1 < argc)
      neps = parse_list(argv[++i], eps, 8);
    else if (!strcmp(argv[i], "--cases") && i + 1 < argc)
      nsel = parse_list(argv[++i], sel, 64);
    else {
      fprintf(stderr, "usage: bench-edges [--seeds N] [--maxeval N] "
              "[--epsrel LIST] [--cases LIST]\n");
      return 2;
    }
  }
  printf("# bench-edges: gVegas, prod x_i^-p_i at a corner / on faces, "
         "nstart 1000, nincrease 500, seeds 1-%d, maxeval %lld\n", nseed,
         maxeval);
  printf("# case d  p                          where   epsrel  claims "
         ">4err >6err  >tol  worst  mean_neval\n");
  for (k = 0; k < NCASES; ++k) {
    int use = nsel == 0;
    for (i = 0; i < nsel; ++i) use |= (int)sel[i] == k;
    if (!use) continue;
    for (face = 0; face < 2; ++face)
      for (i = 0; i < neps; ++i) {
        struct edges e = cases[k];
        double T = edges_truth(&e), worst = 0;
        char ps[64];
        int seed, d, n = 0, b4 = 0, b6 = 0, bt = 0, len = 0;
        long long tot = 0;
        e.face = face;
        for (d = 0; d < e.ndim; ++d)
          len += snprintf(ps + len, sizeof ps - (size_t)len, "%s%g",
                          d ? "," : "", e.p[d]);
        for (seed = 1; seed <= nseed; ++seed) {
          long long neval;
          int fail;
          double I, E, P, z;
          llgVegas(e.ndim, 1, edges_f, &e, 1,
                   eps[i], 1e-30, 0, seed, 0, maxeval, 1000, 500, 1000, 0,
                   NULL, NULL, &neval, &fail, &I, &E, &P);
          tot += neval;
          if (fail) continue;
          ++n;
          z = fabs(I - T) / E;
          if (!(z <= worst)) worst = z;
          b4 += !(z <= 4);
          b6 += !(z <= 6);
          bt += !(fabs(I - T) <= eps[i] * T);
        }
        printf("%6d %d  %-26s %-6s %8.0e %6d %5d %5d %5d %6.1f %11.0f\n",
               k, e.ndim, ps, face ? "faces" : "corner", eps[i], n, b4, b6,
               bt, worst, (double)tot / nseed);
        fflush(stdout);
        claims += n;
        far4 += b4;
        far6 += b6;
        beyond += bt;
        calls += nseed;
      }
  }
  printf("# %lld calls, %lld claims, %lld more than 4 errors off (%.1f%%), "
         "%lld more than 6, %lld beyond the tolerance\n", calls, claims,
         far4, claims ? 100.0 * (double)far4 / (double)claims : 0.0, far6,
         beyond);
  return 0;
}
