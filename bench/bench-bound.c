/* bench/bench-bound.c -- what an error estimate that bounds each region's
   error can claim on the 4-D key 9 calls of issue 52 (bench/floor.h:
   floor_prod, w = 1, 3, 5, 7, 9, epsrel = epsabs = 1e-12), beside what
   gCuhre claims.  Each call runs on the CPU backend at verbosity 3, its
   stderr in a temporary file; the listing of the regions it evaluated
   (doc/gcuba.md, flags) gives the partition after every iteration, and
   the closed form of each region's integral (floor_prod_box, long
   double) its true error e_i.  Per iteration:
     true    |sum_i e_i|, the error of the total;
     bound   sum_i |e_i|, the least error that an estimate bounding every
             region's error can claim (an exact bound per region);
     gcuba   the error gCuhre reports.
   Per call: the evaluations of the first iteration at which each is
   within the tolerance ('-': none up to maxeval), and the three at the
   last iteration.  The partition is checked against the call: its
   regions must be nregions and add up to the integral.
   Usage: bench-bound [--maxeval N] [--threads N] (default maxeval 3e7).
   Exits 1 when the listing does not match the call.  This file is part
   of gcuba. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "gcuba.h"
#include "floor.h"

#define NDIM 4
#define HBITS 20
#define HSIZE (1L << HBITS)

/* the partition: regions by their bounds (open addressing, tombstones) */
typedef struct {
  double b[2 * NDIM]; /* lo[NDIM], hi[NDIM] */
  long double e;      /* avg - exact integral */
  char state;         /* 0 empty, 1 live, 2 removed */
} slot;

static slot *tab;
static long live;

static unsigned long hash(const double *b)
{
  unsigned long h = 1469598103934665603UL;
  const unsigned char *p = (const unsigned char *)b;
  size_t i;
  for (i = 0; i < sizeof(double) * 2 * NDIM; ++i) {
    h ^= p[i];
    h *= 1099511628211UL;
  }
  return h;
}

static slot *find(const double *b, int insert)
{
  unsigned long i = hash(b) & (HSIZE - 1), n;
  slot *tomb = NULL;
  for (n = 0; n < (unsigned long)HSIZE; ++n, i = (i + 1) & (HSIZE - 1)) {
    slot *s = tab + i;
    if (s->state == 0) return insert ? (tomb ? tomb : s) : NULL;
    if (s->state == 2) {
      if (!tomb) tomb = s;
    } else if (!memcmp(s->b, b, sizeof s->b))
      return s;
  }
  return insert ? tomb : NULL;
}

typedef struct {
  long long neval;
  double err;
  long double sum, sumabs; /* sum_i e_i, sum_i |e_i| */
} iter;

typedef struct {
  long long first[3]; /* first evaluations within the tolerance: true,
                         bound, gcuba */
  iter last;
  long nregions;
  int bad;
} scan;

static void within(scan *s, const iter *it, double tol)
{
  const double v[3] = {(double)fabsl(it->sum), (double)it->sumabs, it->err};
  int k;
  for (k = 0; k < 3; ++k)
    if (s->first[k] < 0 && v[k] <= tol) s->first[k] = it->neval;
}

/* read the listing of one call */
static int read_listing(FILE *fp, double w, double tol, scan *s)
{
  char line[512];
  iter it;
  int have = 0, axis = -1, wanttotal = 0, niter = 0;
  double lo[NDIM], hi[NDIM], pend[2][2 * NDIM];
  long double pe[2];
  int npend = 0;
  memset(&it, 0, sizeof it);
  s->first[0] = s->first[1] = s->first[2] = -1;
  while (fgets(line, sizeof line, fp)) {
    long long n;
    double a, b;
    if (sscanf(line, "Iteration %*d: %lld integrand", &n) == 1) {
      if (have) within(s, &it, tol);
      it.neval = n;
      have = 1;
      wanttotal = 1;
      npend = 0;
      ++niter;
    } else if (wanttotal && sscanf(line, "[1] %lf +- %lf", &a, &b) == 2) {
      it.err = b;
      wanttotal = 0;
    } else if (sscanf(line, "Region (%lf) - (%lf)", &a, &b) == 2) {
      lo[0] = a;
      hi[0] = b;
      axis = 1;
    } else if (axis > 0 && axis < NDIM &&
               sscanf(line, " (%lf) - (%lf)", &a, &b) == 2) {
      lo[axis] = a;
      hi[axis] = b;
      ++axis;
    } else if (axis == NDIM && sscanf(line, "[1] %lf +- %lf", &a, &b) == 2) {
      slot *q;
      long double e = (long double)a - floor_prod_box(NDIM, w, lo, hi);
      axis = -1;
      memcpy(pend[npend], lo, sizeof lo);
      memcpy(pend[npend] + NDIM, hi, sizeof hi);
      pe[npend++] = e;
      if (niter > 1 && npend < 2) continue;
      if (niter > 1) {
        /* a pair of children: their parent leaves the partition */
        double par[2 * NDIM];
        int d;
        for (d = 0; d < NDIM; ++d) {
          par[d] = pend[0][d];
          par[NDIM + d] = pend[1][NDIM + d];
        }
        if (!(q = find(par, 0))) return -1;
        it.sum -= q->e;
        it.sumabs -= fabsl(q->e);
        q->state = 2;
        --live;
      }
      while (npend) {
        --npend;
        if (!(q = find(pend[npend], 1)) || q->state == 1) return -1;
        memcpy(q->b, pend[npend], sizeof q->b);
        q->e = pe[npend];
        q->state = 1;
        ++live;
        it.sum += pe[npend];
        it.sumabs += fabsl(pe[npend]);
      }
    }
  }
  if (!have) return -1;
  within(s, &it, tol);
  s->last = it;
  s->nregions = live;
  return 0;
}

static void show(long long n)
{
  if (n < 0) printf(" %11s", "-");
  else printf(" %11lld", n);
}

int main(int argc, char **argv)
{
  long long maxeval = 30000000;
  const double tol = 1e-12;
  int i, k, bad = 0;
  char path[] = "/tmp/bench-bound.XXXXXX";
  for (i = 1; i < argc; ++i)
    if (!strcmp(argv[i], "--maxeval") && i + 1 < argc)
      maxeval = atoll(argv[++i]);
    else if (!strcmp(argv[i], "--threads") && i + 1 < argc) {
      const int n = atoi(argv[++i]), p = 10000;
      gcubacores(&n, &p);
    } else {
      fprintf(stderr, "usage: bench-bound [--maxeval N] [--threads N]\n");
      return 2;
    }
  tab = (slot *)malloc(sizeof *tab * HSIZE);
  if (!tab) return 2;
  setenv("GCUBA_DEVICE", "cpu", 1);
  printf("4-D floor_prod, key 9, epsrel = epsabs = %g, maxeval %lld\n", tol,
         maxeval);
  printf("%-9s %4s %11s %-29s | %s\n", "", "", "",
         "errors at the last iteration", "evaluations when first within");
  printf("%-9s %4s %11s %9s %9s %9s | %11s %11s %11s\n", "call", "fail",
         "neval", "true", "bound", "gcuba", "true", "bound", "gcuba");
  for (k = 0; k < 5; ++k) {
    double w = 1 + 2 * k, I, E, P;
    long long neval;
    int nregions, fail, fd = mkstemp(path), save;
    FILE *fp;
    scan s;
    long double truth = floor_prod_truth(NDIM, w);
    if (fd < 0) return 2;
    fflush(stderr);
    save = dup(2);
    dup2(fd, 2);
    llgCuhre(NDIM, 1, gcuba_host_integrand(floor_prod, 0), &w, 1, tol, tol,
             3, 0, maxeval, 9, NULL, NULL, &nregions, &neval, &fail, &I, &E,
             &P);
    fflush(stderr);
    dup2(save, 2);
    close(save);
    fp = fdopen(fd, "r");
    if (!fp) return 2;
    rewind(fp);
    memset(tab, 0, sizeof *tab * HSIZE);
    live = 0;
    memset(&s, 0, sizeof s);
    s.bad = read_listing(fp, w, tol, &s) != 0;
    fclose(fp);
    remove(path);
    strcpy(path, "/tmp/bench-bound.XXXXXX");
    /* the listing is the call's partition */
    if (!s.bad && (s.nregions != nregions || s.last.neval != neval ||
                   fabs(s.last.err - E) > 1e-5 * E ||
                   fabsl(s.last.sum - ((long double)I - truth)) >
                       1e-15L + 1e-3L * fabsl(s.last.sum)))
      s.bad = 1;
    printf("4D w %-4g %4d %11lld %9.2e %9.2e %9.2e |", w, fail, neval,
           (double)fabsl(s.last.sum), (double)s.last.sumabs, s.last.err);
    show(s.first[0]);
    show(s.first[1]);
    show(s.first[2]);
    printf("%s\n", s.bad ? "  LISTING DOES NOT MATCH THE CALL" : "");
    if (s.bad)
      fprintf(stderr, "bench-bound: w = %g: the listing has %ld regions, "
              "%lld evaluations, a total off by %Lg; the call %d, %lld, "
              "%Lg\n", w, s.nregions, s.last.neval, s.last.sum, nregions,
              neval, (long double)I - truth);
    bad |= s.bad;
  }
  free(tab);
  return bad;
}
