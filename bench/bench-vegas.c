/* bench/bench-vegas.c -- gVegas over the test suite and the papers'
   precision sweep (epsrel 1e-3, then divided by 5 after each success, down
   to 1.024e-10; an integrand's sweep ends at its first fail != 0 or when a
   level takes longer than the time limit): a table (integrand, d, epsrel,
   ms, neval, true relative error, error, chi^2/df, prob, fail, a flag) on
   stdout and the same as CSV; then the sampling rate on f4 8D in
   frozen-grid iterations of 2^27 samples.  After the suite, fdiag 4D: two
   Gaussians on the diagonal, the case of adaptive stratification (--beta
   sets GCUBA_VEGAS_BETA; `make bench-vegas' runs fdiag once more with
   beta 0.75).  The papers count a level as
   reached only if the routine says so AND the true relative error is at
   most epsrel: the flag says "(rel > eps)" when gVegas's claim is honest
   (true value within 4 errors) but that criterion fails (about a third of
   honest one-sigma claims whose error is just below the tolerance), and
   "FALSE" for a claim with the true value more than 4 errors away.  Every
   call is made twice and the second (warm) one is timed.
   --seeds N sweeps with N seeds (--seed, then the next ones) and ends with
   a table over the seeds: per level, the calls within epsrel and the
   median time to an answer within epsrel (the level's own call, else the
   first deeper call of the same seed within it); --ref FILE sets each
   level against a reference time (lines "case d epsrel ms", e.g.
   bench/ref-vegas-h200.txt) and counts the seeds on which gVegas is
   faster.

   Build (not part of `make'; from a configured build directory, after
   make):
     CUDA:   nvcc -O2 -std=c++17 -x cu -I../include -I../tests -c \
               ../tests/suite-cu.cu -o suite-cu.o
             cc -O2 -DSUITE_HAVE_CU -I../include -I../tests \
               ../bench/bench-vegas.c ../tests/suite-c.c suite-cu.o \
               .libs/libgcuba.a -fopenmp -lm \
               -L/usr/local/cuda/lib64 -lcudart -lstdc++ -o bench-vegas
     no CUDA: cc -O2 -I../include -I../tests ../bench/bench-vegas.c \
               ../tests/suite-c.c .libs/libgcuba.a -fopenmp -lm \
               -o bench-vegas
   Run: ./bench-vegas [--cases f4_8,f3] [--limit s] [--nstart K]
                      [--backend cpu|gpu] [--csv file] [--evalrate] ...
   (--help lists them); `make bench' builds and runs it.  nstart =
   nincrease = K / epsrel^P (default K = 1e5, P = 0) with flags
   GCUBA_VEGASAUTO (gVegas sizes the iterations once the grid is frozen;
   --flags 0 gives Cuba's schedule), maxeval from the rate of the previous
   level and the limit.
   This file is part of gcuba. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include "suite.h"

#ifdef SUITE_HAVE_CU
#define GPU 1
#else
#define GPU 0
#endif

static double now_ms(void)
{
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec * 1e3 + t.tv_nsec / 1e6;
}

static struct {
  const char *cases, *backend, *csv;
  double maxeps, mineps, limit, k, power;
  int evalrate, flags, seed, nseeds;
  const char *beta, *ref;
} opt = {NULL, NULL, "bench-vegas.csv", 1e-3, 1.024e-10, 10, 1e5, 0, 0,
         GCUBA_VEGASAUTO, 1, 1, NULL, NULL};

/* the calls of a sweep over seeds: case, level and seed; ms < 0 when the
   call was not made (the case ended before it) */
#define MAXLEV 40
#define MAXSEEDS 100
typedef struct {
  double ms, rel;
  int fail;
} outcome;
static outcome *runs; /* [case][level][seed] */
static double lev_eps[MAXLEV]; /* the sweep's epsrel */
static int nlev;
static struct suite_case cases[SUITE_NCASES + 1]; /* the selected, in order */
static int ncases;
#define RUN(c, l, s) runs[((size_t)(c) * MAXLEV + (l)) * opt.nseeds + (s)]

/* reference times ("case d epsrel ms" lines, # comments) */
static struct refrow {
  char name[16];
  int d;
  double eps, ms;
} *refs;
static int nrefs;

typedef struct {
  double I, E, P, chi2, ms;
  long long neval;
  int fail, df;
} result;

/* one call at verbosity 1 with stderr captured: the last "chisq X (n df)"
   of component 1 gives chi^2 and its degrees of freedom */
static void call(gintegrand_t f, int d, double epsrel, int seed,
                 long long nstart, long long maxeval, result *r)
{
  char tmpl[] = "/tmp/bench-vegas-XXXXXX", line[512];
  int fd = mkstemp(tmpl), save = dup(2);
  FILE *fp;
  double t0;
  fflush(stderr);
  if (fd >= 0) dup2(fd, 2);
  t0 = now_ms();
  llgVegas(d, 1, f, NULL, 1, epsrel, 1e-20, (opt.flags & ~3) | 1, seed,
           0, maxeval, nstart,
           nstart, 1000, 0, NULL, NULL, &r->neval, &r->fail, &r->I, &r->E,
           &r->P);
  r->ms = now_ms() - t0;
  fflush(stderr);
  dup2(save, 2);
  close(save);
  r->chi2 = NAN;
  r->df = 0;
  if (fd >= 0) {
    close(fd);
    fp = fopen(tmpl, "r");
    while (fp && fgets(line, sizeof line, fp)) {
      const char *s = strstr(line, "chisq ");
      if (!strncmp(line, "[1] ", 4) && s) sscanf(s, "chisq %lf (%d df)",
                                                 &r->chi2, &r->df);
    }
    if (fp) fclose(fp);
    remove(tmpl);
  }
}

static void usage(void)
{
  fprintf(stderr,
    "usage: bench-vegas [options]\n"
    "  --cases LIST     only these cases, e.g. f4_8,f3_3 (family_d; f4 = all f4)\n"
    "  --max-eps E      first epsrel of the sweep (default 1e-3)\n"
    "  --min-eps E      last epsrel of the sweep (default 1.024e-10)\n"
    "  --limit S        seconds per level (default 10): maxeval is set from\n"
    "                   the previous level's rate, a case ends past it\n"
    "  --nstart K       nstart = nincrease = K / epsrel^P (default 1e5)\n"
    "  --power P        (default 0)\n"
    "  --backend B      cpu | gpu | auto: sets GCUBA_DEVICE (default: as set)\n"
    "  --csv FILE       CSV output (default bench-vegas.csv; - = none)\n"
    "  --flags F        flags (default GCUBA_VEGASAUTO = 67108864; verbosity\n"
    "                   is added internally)\n"
    "  --seed S         seed (default 1)\n"
    "  --seeds N        sweep with N seeds, S .. S+N-1 (default 1), then a\n"
    "                   table over the seeds (median time to within eps)\n"
    "  --ref FILE       reference times per level (\"case d epsrel ms\"\n"
    "                   lines): the table counts the seeds that beat them\n"
    "  --beta B         GCUBA_VEGAS_BETA (adaptive stratification)\n"
    "  --evalrate       only the frozen-grid sampling rate on f4 8D\n");
}

static int selected(const struct suite_case *sc)
{
  char item[32];
  const char *p = opt.cases;
  size_t n;
  if (!p) return 1;
  while (*p) {
    n = strcspn(p, ",");
    if (n < sizeof item) {
      memcpy(item, p, n);
      item[n] = 0;
      if (!strcmp(item, sc->name)) return 1;
      if (!strncmp(item, sc->name, strlen(sc->name)) &&
          item[strlen(sc->name)] == '_' &&
          atoi(item + strlen(sc->name) + 1) == sc->d)
        return 1;
    }
    p += n;
    if (*p) ++p;
  }
  return 0;
}

/* frozen-grid rate: adapt on f4 8D into slot 1, then sample on it */
static void evalrate(int gpu)
{
  gintegrand_t f = suite_family(4, gpu);
  long long n = gpu ? (1LL << 27) : (1LL << 22), neval;
  int fail;
  double I, E, P, t0, ms;
  llgVegas(8, 1, f, NULL, 1, 1e-4, 1e-20, 0, 1, 0, 4000000000LL, 1000000,
           1000000, 1000, 1, NULL, NULL, &neval, &fail, &I, &E, &P);
  setenv("GCUBA_VEGAS_ADAPT", "0", 1);
  llgVegas(8, 1, f, NULL, 1, 1e-12, 1e-20, 0, 2, 0, n, n, 0, 1000, 1, NULL,
           NULL, &neval, &fail, &I, &E, &P); /* warm-up */
  t0 = now_ms();
  llgVegas(8, 1, f, NULL, 1, 1e-12, 1e-20, 0, 3, 0, 4 * n, n, 0, 1000, 1,
           NULL, NULL, &neval, &fail, &I, &E, &P);
  ms = now_ms() - t0;
  unsetenv("GCUBA_VEGAS_ADAPT");
  printf("f4 8D, frozen grid (adapted first), %lld samples in %.1f ms: "
         "%.3f G samples/s (%s); estimate %.10g +- %.2g\n", neval, ms,
         neval / ms / 1e6, gcuba_last_backend(), I, E);
}

/* 0, or -1 with a message */
static int read_refs(const char *path)
{
  char line[256];
  FILE *fp = fopen(path, "r");
  int cap = 0;
  if (!fp) {
    fprintf(stderr, "bench-vegas: cannot read %s\n", path);
    return -1;
  }
  while (fgets(line, sizeof line, fp)) {
    struct refrow r;
    if (line[0] == '#' || strspn(line, " \t\r\n") == strlen(line)) continue;
    if (sscanf(line, "%15s %d %lf %lf", r.name, &r.d, &r.eps, &r.ms) != 4 ||
        !(r.eps > 0) || !(r.ms > 0)) {
      fprintf(stderr, "bench-vegas: %s: not \"case d epsrel ms\": %s", path,
              line);
      fclose(fp);
      return -1;
    }
    if (nrefs == cap) {
      struct refrow *q;
      cap = cap ? 2 * cap : 64;
      q = (struct refrow *)realloc(refs, sizeof *refs * cap);
      if (!q) {
        fclose(fp);
        return -1;
      }
      refs = q;
    }
    refs[nrefs++] = r;
  }
  fclose(fp);
  return 0;
}

/* the reference time of a level, or 0 */
static double ref_ms(const struct suite_case *sc, double eps)
{
  int k;
  for (k = 0; k < nrefs; ++k)
    if (!strcmp(refs[k].name, sc->name) && refs[k].d == sc->d &&
        fabs(refs[k].eps - eps) <= 1e-6 * eps)
      return refs[k].ms;
  return 0;
}

static int cmp_double(const void *a, const void *b)
{
  const double x = *(const double *)a, y = *(const double *)b;
  return x < y ? -1 : x > y;
}

/* seed s's time to an answer within level l's epsrel: its own call, else
   the first deeper call within it; HUGE_VAL when none */
static double time_within(int c, int l, int s, double eps)
{
  int m;
  for (m = l; m < nlev; ++m) {
    const outcome *o = &RUN(c, m, s);
    if (o->ms < 0) break;
    if (o->fail == 0 && o->rel <= eps) return o->ms;
  }
  return HUGE_VAL;
}

/* the table over the seeds: per level that a seed ran, the calls within
   epsrel and the median time to within it; with references, the seeds
   faster than each, and the seeds faster on every level */
static void seeds_table(void)
{
  const int n = opt.nseeds;
  int c, l, s, nref = 0, slow = 0, all = 0;
  int *lost = (int *)calloc((size_t)n, sizeof *lost);
  double *t = (double *)malloc(sizeof *t * n);
  if (!lost || !t) {
    free(lost);
    free(t);
    return;
  }
  printf("\nseeds %d-%d: calls within epsrel; median ms to an answer within "
         "epsrel (the level's call or a deeper one; - none)%s\n", opt.seed,
         opt.seed + n - 1, nrefs ? "; reference ms; seeds faster" : "");
  printf("%-5s %2s %9s %7s %10s", "f", "d", "epsrel", "within", "median");
  if (nrefs) printf(" %10s %7s", "ref", "faster");
  printf("\n");
  for (c = 0; c < ncases; ++c)
    for (l = 0; l < nlev; ++l) {
      const double eps = lev_eps[l], ref = ref_ms(&cases[c], eps);
      int within = 0, faster = 0, ran = 0;
      double med;
      for (s = 0; s < n; ++s) {
        const outcome *o = &RUN(c, l, s);
        ran += o->ms >= 0;
        within += o->ms >= 0 && o->fail == 0 && o->rel <= eps;
        t[s] = time_within(c, l, s, eps);
      }
      if (!ran) continue;
      if (ref > 0)
        for (s = 0; s < n; ++s) {
          if (t[s] < ref) ++faster;
          else ++lost[s];
        }
      qsort(t, (size_t)n, sizeof *t, cmp_double);
      med = n % 2 ? t[n / 2] : (t[n / 2 - 1] + t[n / 2]) / 2;
      printf("%-5s %2d %9.3g %3d/%-3d", cases[c].name, cases[c].d, eps,
             within, n);
      if (med < HUGE_VAL) printf(" %10.1f", med);
      else printf(" %10s", "-");
      if (ref > 0) {
        printf(" %10.1f %3d/%-3d%s", ref, faster, n,
               med < ref ? "" : "  slower at the median");
        ++nref;
        slow += !(med < ref);
      }
      printf("\n");
    }
  if (nref) {
    for (s = 0; s < n; ++s) all += lost[s] == 0;
    printf("%d levels with a reference time: %d slower at the median; "
           "seeds faster on all of them: %d of %d", nref, slow, all, n);
    for (s = 0; s < n; ++s)
      if (!lost[s]) printf(" (%d)", opt.seed + s);
    printf("\n");
  }
  free(lost);
  free(t);
}

/* one sweep of the selected cases with seed opt.seed + si (the si-th of
   the seeds): the table's rows, the CSV's, and the outcomes in runs */
static void sweep(int gpu, int si, FILE *out)
{
  const int seed = opt.seed + si;
  int c;
  printf("%-5s %2s %9s %10s %13s %9s %9s %9s %6s %4s %s\n", "f", "d",
         "epsrel", "ms", "neval", "true err", "rel err", "chi2/df", "prob",
         "fail", "");
  for (c = 0; c < ncases; ++c) {
    const struct suite_case *sc = &cases[c];
    /* (fdiag: family 0) */
    gintegrand_t f = sc->family ? suite_family(sc->family, gpu)
#ifdef SUITE_HAVE_CU
                     : gpu ? fdiag_cu
#endif
                           : fdiag_c;
    double rate = 0;
    int lev;
    for (lev = 0; lev < nlev; ++lev) {
      const double eps = lev_eps[lev];
      outcome *o = &RUN(c, lev, si);
      result r;
      double ns = opt.k / pow(eps, opt.power);
      long long nstart = ns > 4e12 ? 4000000000000LL : (long long)ns, maxeval;
      double rel, pull;
      int bad;
      if (nstart < 1000) nstart = 1000;
      if (rate > 0) {
        double m = rate * opt.limit * 1e3;
        maxeval = m < 1e6 ? 1000000 : m > 4e12 ? 4000000000000LL
                                                : (long long)m;
      } else
        maxeval = gpu ? 20000000000LL : 20000000LL;
      call(f, sc->d, eps, seed, nstart, maxeval, &r); /* warm-up */
      call(f, sc->d, eps, seed, nstart, maxeval, &r);
      rel = fabs(r.I - sc->truth) / fabs(sc->truth);
      pull = fabs(r.I - sc->truth) / r.E;
      bad = r.fail == 0 && pull > 4;
      {
        /* chi^2/df needs two iterations: "-" at df = 0 */
        char chi[16] = "-";
        if (r.df > 0) snprintf(chi, sizeof chi, "%.3g", r.chi2 / r.df);
        printf("%-5s %2d %9.3g %10.1f %13lld %9.2e %9.2e %9s %6.3f %4d %s\n",
               sc->name, sc->d, eps, r.ms, r.neval, rel, r.E / fabs(r.I),
               chi, r.P, r.fail,
               bad ? "FALSE" : r.fail == 0 && rel > eps ? "(rel > eps)" : "");
      }
      fflush(stdout);
      if (out)
        fprintf(out, "%s,%d,%.6g,%.3f,%lld,%.6e,%.6e,%.6g,%d,%.6f,%d,%d,%d,"
                "%d\n", sc->name, sc->d, eps, r.ms, r.neval, rel, r.E,
                r.chi2, r.df, r.P, r.fail, bad, r.fail == 0 && rel <= eps,
                seed);
      o->ms = r.ms;
      o->rel = rel;
      o->fail = r.fail;
      if (r.fail != 0 || r.ms > opt.limit * 1e3) break;
      rate = r.neval / (r.ms > 1 ? r.ms : 1);
    }
  }
}

int main(int argc, char **argv)
{
  int i, gpu;
  double eps;
  FILE *out = NULL;
  for (i = 1; i < argc; ++i) {
    const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
    int val = 1;
    if (!strcmp(a, "--evalrate")) opt.evalrate = 1, val = 0;
    else if (!v) val = -1;
    else if (!strcmp(a, "--cases")) opt.cases = v;
    else if (!strcmp(a, "--max-eps")) opt.maxeps = atof(v);
    else if (!strcmp(a, "--min-eps")) opt.mineps = atof(v);
    else if (!strcmp(a, "--limit")) opt.limit = atof(v);
    else if (!strcmp(a, "--nstart")) opt.k = atof(v);
    else if (!strcmp(a, "--power")) opt.power = atof(v);
    else if (!strcmp(a, "--backend")) opt.backend = v;
    else if (!strcmp(a, "--csv")) opt.csv = v;
    else if (!strcmp(a, "--flags")) opt.flags = atoi(v);
    else if (!strcmp(a, "--seed")) opt.seed = atoi(v);
    else if (!strcmp(a, "--seeds")) opt.nseeds = atoi(v);
    else if (!strcmp(a, "--ref")) opt.ref = v;
    else if (!strcmp(a, "--beta")) opt.beta = v;
    else val = -1;
    if (val < 0 || !(opt.power >= 0) || opt.nseeds < 1 ||
        opt.nseeds > MAXSEEDS) {
      usage();
      return 2;
    }
    i += val;
  }
  if (opt.backend) setenv("GCUBA_DEVICE", opt.backend, 1);
  if (opt.beta) setenv("GCUBA_VEGAS_BETA", opt.beta, 1);
  gpu = GPU && !(opt.backend && !strcmp(opt.backend, "cpu"));
  if (opt.evalrate) {
    evalrate(gpu);
    return 0;
  }
  if (opt.ref && read_refs(opt.ref)) return 2;
  /* the selected cases: the suite, then fdiag 4D */
  for (i = 0; i <= SUITE_NCASES; ++i) {
    const struct suite_case diag = {"fdiag", 0, 4, suite_diag_truth(4)};
    const struct suite_case *sc = i < SUITE_NCASES ? &suite_cases[i] : &diag;
    if (selected(sc)) cases[ncases++] = *sc;
  }
  for (eps = opt.maxeps; eps >= opt.mineps * 0.999 && nlev < MAXLEV;
       eps /= 5)
    lev_eps[nlev++] = eps;
  runs = (outcome *)malloc(sizeof *runs * (SUITE_NCASES + 1) * MAXLEV *
                           opt.nseeds);
  if (!runs) return 1;
  for (i = 0; i < (SUITE_NCASES + 1) * MAXLEV * opt.nseeds; ++i)
    runs[i].ms = -1;
  if (strcmp(opt.csv, "-")) out = fopen(opt.csv, "w");
  if (out)
    fprintf(out, "integrand,d,epsrel,ms,neval,true_rel_error,error,chi2,df,"
            "prob,fail,false_claim,converged,seed\n");
  for (i = 0; i < opt.nseeds; ++i) {
    if (opt.nseeds > 1) printf("%sseed %d\n", i ? "\n" : "", opt.seed + i);
    sweep(gpu, i, out);
  }
  if (out) fclose(out);
  if (opt.nseeds > 1 || nrefs) seeds_table();
  free(runs);
  free(refs);
  printf("\n");
  if (!opt.beta) evalrate(gpu); /* (the rate without stratification) */
  return 0;
}
