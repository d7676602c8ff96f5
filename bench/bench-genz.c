/* bench/bench-genz.c -- `make bench-genz`: gCuhre and gVegas over Genz's
   test protocol as run in Cuba's manual (bench/genz.h): d = 5, 8, 10, the
   six families, 20 random instances each, epsrel 1e-3, maxeval 150000,
   flags 0.  Per (routine, d, family): mean and sd of neval, how many
   calls said fail = 0 (conv), how many of those are right (honest: true
   relative error <= epsrel) and wrong (false claims), like the manual's
   table; then totals and wall times.  --per-instance writes one line per
   call (routine d family inst fail neval estimate error truth relerr), in
   the format of the Cuba driver that runs the same instances, so the two
   can be diffed.  gVegas runs with Cuba's defaults (demo-c.c,
   Mathematica's Vegas): nstart 1000, nincrease 500, nbatch 1000, gridno
   0, seed 0.  Exit status 1 if a call returned fail < 0 (an error), 2
   for bad options.  --help lists the options; bench/README says more.

   This file is part of gcuba. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "gcuba.h"
#include "genz.h"
#include "genz-report.h"

/* the integrand built by cc (host only) and, in a CUDA build, by nvcc
   (bench/genz-cu.cu: host, device and the kernels) */
GENZ_GCUBA_INTEGRAND(genz_c)
#ifdef GENZ_HAVE_CU
GCUBA_DECLARE_INTEGRAND(genz_cu);
#endif

#define MAXLIST 32

static struct {
  int routines, dims[MAXLIST], ndims, fams[MAXLIST], nfams, n, flags, key;
  int threads, check_truth, nvec, vary_seed, warmup;
  long long maxeval, mineval, nstart, nincrease, nbatch;
  int gridno, vseed;
  long long nnew, nmin;
  double flatness;
  unsigned long long seed;
  double epsrel, epsabs;
  const char *backend, *csv, *per_instance;
} opt = {3,  {5, 8, 10}, 3, {1, 2, 3, 4, 5, 6}, 6, 20, 0, 0,
         -1, 0, 1, 0, 0, 150000, 0, 1000, 500, 1000, 0, 0, 1000, 2, 25, GENZ_SEED,
         1e-3, 1e-20,
         NULL, NULL, NULL};

static double now_ms(void)
{
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec * 1e3 + ts.tv_nsec * 1e-6;
}

static void usage(FILE *out)
{
  fprintf(out,
    "usage: bench-genz [options]\n"
    "  --routines LIST  cuhre,vegas,suave,divonne (default cuhre,vegas)\n"
    "  --dims LIST      dimensions (default 5,8,10)\n"
    "  --families LIST  1..6 or names: oscillatory, productpeak, cornerpeak,\n"
    "                   gaussian, c0, discontinuous, or a prefix of 3+\n"
    "                   letters (default all six)\n"
    "  --n N            instances per (d, family) (default 20)\n"
    "  --seed S         the instances' seed (default 4711)\n"
    "  --epsrel E       (default 1e-3)\n"
    "  --epsabs E       (default 1e-20: epsrel decides)\n"
    "  --maxeval N      (default 150000)\n"
    "  --mineval N      (default 0)\n"
    "  --flags F        flags of both routines (default 0)\n"
    "  --key K          Cuhre key (default 0)\n"
    "  --nstart N --nincrease N --nbatch N --gridno G --vegas-seed S\n"
    "                   (the seed is gSuave's too)\n"
    "  --nnew N --nmin N --flatness F   gSuave (default 1000, 2, 25)\n"
    "                   Vegas (defaults 1000, 500, 1000, 0, 0: Cuba's)\n"
    "  --vary-seed      Vegas seed --vegas-seed + k for instance k (default:\n"
    "                   the same seed, so the same points, for every call)\n"
    "  --backend B      cpu | gpu | auto: sets GCUBA_DEVICE (default: as set)\n"
    "  --threads N      gcubacores(N) for the CPU backend (0: the calling\n"
    "                   thread only; default GCUBACORES or OpenMP's)\n"
    "  --csv FILE       the summary table as CSV\n"
    "  --per-instance FILE  one line per call (- = stdout)\n"
    "  --warmup         one untimed call first (maxeval 2000), so that the\n"
    "                   first timed one does not pay the GPU's start-up\n"
    "  --check-truth    also compare every analytic value with its check by\n"
    "                   one-dimensional quadratures (genz_truth_1d)\n"
    "  --help\n");
}

/* a count given as 150000 or 1.5e5 */
static long long ll(const char *v) { return (long long)atof(v); }

static int parse(int argc, char **argv)
{
  int i;
  for (i = 1; i < argc; ++i) {
    const char *a = argv[i];
    const char *v = i + 1 < argc ? argv[i + 1] : NULL;
#define NEEDV                                                                \
  do {                                                                       \
    if (!v) {                                                                \
      fprintf(stderr, "bench-genz: %s needs a value\n", a);                \
      return -1;                                                             \
    }                                                                        \
    ++i;                                                                     \
  } while (0)
    if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
      usage(stdout);
      exit(0);
    } else if (!strcmp(a, "--routines")) {
      NEEDV;
      if (!(opt.routines = genz_parse_routines(v))) {
        fprintf(stderr, "bench-genz: --routines cuhre,vegas,suave,divonne\n");
        return -1;
      }
    } else if (!strcmp(a, "--dims")) {
      NEEDV;
      if ((opt.ndims = genz_parse_ints(v, opt.dims, MAXLIST, 2,
                                       GCUBA_CUHRE_MAXDIM)) <= 0) {
        fprintf(stderr, "bench-genz: --dims: dimensions 2..%d\n",
                GCUBA_CUHRE_MAXDIM);
        return -1;
      }
    } else if (!strcmp(a, "--families")) {
      NEEDV;
      if ((opt.nfams = genz_parse_families(v, opt.fams, MAXLIST)) <= 0) {
        fprintf(stderr, "bench-genz: --families: bad list %s\n", v);
        return -1;
      }
    } else if (!strcmp(a, "--n")) { NEEDV; opt.n = atoi(v); }
    else if (!strcmp(a, "--seed")) { NEEDV; opt.seed = strtoull(v, NULL, 0); }
    else if (!strcmp(a, "--epsrel")) { NEEDV; opt.epsrel = atof(v); }
    else if (!strcmp(a, "--epsabs")) { NEEDV; opt.epsabs = atof(v); }
    else if (!strcmp(a, "--maxeval")) { NEEDV; opt.maxeval = ll(v); }
    else if (!strcmp(a, "--mineval")) { NEEDV; opt.mineval = ll(v); }
    else if (!strcmp(a, "--flags")) { NEEDV; opt.flags = (int)strtol(v, 0, 0); }
    else if (!strcmp(a, "--key")) { NEEDV; opt.key = atoi(v); }
    else if (!strcmp(a, "--nstart")) { NEEDV; opt.nstart = ll(v); }
    else if (!strcmp(a, "--nincrease")) { NEEDV; opt.nincrease = ll(v); }
    else if (!strcmp(a, "--nbatch")) { NEEDV; opt.nbatch = ll(v); }
    else if (!strcmp(a, "--gridno")) { NEEDV; opt.gridno = atoi(v); }
    else if (!strcmp(a, "--vegas-seed")) { NEEDV; opt.vseed = atoi(v); }
    else if (!strcmp(a, "--nnew")) { NEEDV; opt.nnew = atoll(v); }
    else if (!strcmp(a, "--nmin")) { NEEDV; opt.nmin = atoll(v); }
    else if (!strcmp(a, "--flatness")) { NEEDV; opt.flatness = atof(v); }
    else if (!strcmp(a, "--backend")) { NEEDV; opt.backend = v; }
    else if (!strcmp(a, "--threads")) { NEEDV; opt.threads = atoi(v); }
    else if (!strcmp(a, "--csv")) { NEEDV; opt.csv = v; }
    else if (!strcmp(a, "--per-instance")) { NEEDV; opt.per_instance = v; }
    else if (!strcmp(a, "--check-truth")) opt.check_truth = 1;
    else if (!strcmp(a, "--warmup")) opt.warmup = 1;
    else if (!strcmp(a, "--vary-seed")) opt.vary_seed = 1;
    else {
      fprintf(stderr, "bench-genz: unknown option %s\n", a);
      usage(stderr);
      return -1;
    }
#undef NEEDV
  }
  if (opt.n < 1 || !(opt.epsrel >= 0) || !(opt.epsabs >= 0) ||
      opt.maxeval < 1) {
    fprintf(stderr, "bench-genz: bad --n, --epsrel, --epsabs or --maxeval\n");
    return -1;
  }
  if (opt.backend && strcmp(opt.backend, "cpu") &&
      strcmp(opt.backend, "gpu") && strcmp(opt.backend, "auto")) {
    fprintf(stderr, "bench-genz: --backend cpu|gpu|auto\n");
    return -1;
  }
  return 0;
}

static struct genz_result run(int routine, gintegrand_t f,
                              struct genz_instance *g, int k)
{
  struct genz_result r;
  int nregions;
  double t0 = now_ms();
  if (routine == 1)
    llgCuhre(g->d, 1, f, g, opt.nvec, opt.epsrel, opt.epsabs, opt.flags,
             opt.mineval, opt.maxeval, opt.key, NULL, NULL, &nregions,
             &r.neval, &r.fail, &r.integral, &r.error, &r.prob);
  else if (routine == 8)
    /* Cuba's demo-c.c: key1 47, key2 1, key3 1, maxpass 5, border 0,
       maxchisq 10, mindeviation 0.25 */
    llgDivonne(g->d, 1, f, g, opt.nvec, opt.epsrel, opt.epsabs, opt.flags,
               opt.vseed + (opt.vary_seed ? k : 0), opt.mineval,
               opt.maxeval, 47, 1, 1, 5, 0, 10, .25, 0, g->d, NULL, 0, NULL,
               NULL, NULL, &nregions, &r.neval, &r.fail, &r.integral,
               &r.error, &r.prob);
  else if (routine == 4)
    llgSuave(g->d, 1, f, g, opt.nvec, opt.epsrel, opt.epsabs, opt.flags,
             opt.vseed + (opt.vary_seed ? k : 0), opt.mineval, opt.maxeval,
             opt.nnew, opt.nmin, opt.flatness, NULL, NULL, &nregions,
             &r.neval, &r.fail, &r.integral, &r.error, &r.prob);
  else
    llgVegas(g->d, 1, f, g, opt.nvec, opt.epsrel, opt.epsabs, opt.flags,
             opt.vseed + (opt.vary_seed ? k : 0), opt.mineval, opt.maxeval,
             opt.nstart, opt.nincrease, opt.nbatch, opt.gridno, NULL, NULL,
             &r.neval, &r.fail, &r.integral, &r.error, &r.prob);
  r.ms = now_ms() - t0;
  return r;
}

static const char *threads_str(void)
{
  static char s[32];
  if (opt.threads >= 0) snprintf(s, sizeof s, "%d", opt.threads);
  else if (getenv("GCUBACORES"))
    snprintf(s, sizeof s, "GCUBACORES=%s", getenv("GCUBACORES"));
  else snprintf(s, sizeof s, "default");
  return s;
}

/* the analytic values against genz_truth_1d over the selected
   instances: the largest relative difference per family */
static void check_truth(void)
{
  int di, fi, k;
  printf("# analytic values vs. one-dimensional quadratures, largest "
         "relative difference:\n");
  for (fi = 0; fi < opt.nfams; ++fi) {
    double worst = 0;
    for (di = 0; di < opt.ndims; ++di)
      for (k = 0; k < opt.n; ++k) {
        struct genz_instance g;
        double t, q, r;
        genz_make(&g, opt.seed, opt.dims[di], opt.fams[fi], k);
        t = genz_truth(&g);
        q = genz_truth_1d(&g);
        r = genz_relerr(t, q);
        if (!(r <= worst)) worst = r;
      }
    printf("#   %-13s %.2e\n", genz_names[opt.fams[fi] - 1], worst);
  }
}

int main(int argc, char **argv)
{
  FILE *csv = NULL, *pi = NULL;
  gintegrand_t f = genz_c;
  int rt, di, fi, k, nfalse = 0, nerrors = 0;
  double t_all = now_ms();
  const char *integrands_by = "cc";

  if (parse(argc, argv)) return 2;
  if (opt.backend) setenv("GCUBA_DEVICE", opt.backend, 1);
  if (opt.threads >= 0) gcubacores(&opt.threads, &opt.threads);
#ifdef GENZ_HAVE_CU
  if (!(opt.backend && !strcmp(opt.backend, "cpu"))) {
    f = genz_cu;
    integrands_by = "nvcc";
  }
#endif
  /* the GPU backend copies the instance to the device for each call */
  gcuba_userdata_size(sizeof(struct genz_instance));

  printf("# bench-genz: gcuba %s, Genz's protocol as in Cuba's manual "
         "(bench/genz.h): seed %llu, %d instance%s per (d, family)\n",
         GCUBA_VERSION_STRING, opt.seed, opt.n, opt.n == 1 ? "" : "s");
  printf("# epsrel %g, epsabs %g, mineval %lld, maxeval %lld, flags %d; "
         "llgCuhre key %d; llgVegas nstart %lld nincrease %lld nbatch %lld "
         "gridno %d seed %d%s\n", opt.epsrel, opt.epsabs, opt.mineval,
         opt.maxeval, opt.flags, opt.key, opt.nstart, opt.nincrease,
         opt.nbatch, opt.gridno, opt.vseed,
         opt.vary_seed ? " + instance" : "");
  printf("# GCUBA_DEVICE=%s, threads %s, integrand built by %s\n",
         getenv("GCUBA_DEVICE") ? getenv("GCUBA_DEVICE") : "(unset: auto)",
         threads_str(), integrands_by);
  printf("# conv: fail = 0; honest: fail = 0 and true relerr <= epsrel; "
         "false: fail = 0 and true relerr > epsrel; right: true relerr <= "
         "epsrel; ms: time in the calls\n");
  if (opt.check_truth) check_truth();

  if (opt.csv) {
    if (!(csv = fopen(opt.csv, "w"))) {
      perror(opt.csv);
      return 2;
    }
    genz_csv_header(csv);
  }
  if (opt.per_instance) {
    pi = strcmp(opt.per_instance, "-") ? fopen(opt.per_instance, "w") : stdout;
    if (!pi) {
      perror(opt.per_instance);
      return 2;
    }
    genz_instance_header(pi);
  }

  if (opt.warmup)
    for (rt = 1; rt <= 8; rt *= 2)
      if (opt.routines & rt) {
        /* the first routine's first call, short and untimed */
        struct genz_instance g;
        const long long maxeval = opt.maxeval, mineval = opt.mineval;
        genz_make(&g, opt.seed, opt.dims[0], opt.fams[0], 0);
        opt.maxeval = 2000;
        opt.mineval = 0;
        run(rt, f, &g, 0);
        opt.maxeval = maxeval;
        opt.mineval = mineval;
        printf("# warm-up: one untimed call first\n");
        break;
      }
  genz_group_header(stdout);
  for (rt = 1; rt <= 8; rt *= 2) {
    const char *name = rt == 1   ? "cuhre"
                       : rt == 2 ? "vegas"
                       : rt == 4 ? "suave"
                                 : "divonne";
    struct genz_stats tot;
    double t0 = now_ms();
    if (!(opt.routines & rt)) continue;
    memset(&tot, 0, sizeof tot);
    for (di = 0; di < opt.ndims; ++di)
      for (fi = 0; fi < opt.nfams; ++fi) {
        struct genz_stats st;
        int errors = 0;
        memset(&st, 0, sizeof st);
        for (k = 0; k < opt.n; ++k) {
          struct genz_instance g;
          struct genz_result r;
          double truth;
          genz_make(&g, opt.seed, opt.dims[di], opt.fams[fi], k);
          truth = genz_truth(&g);
          r = run(rt, f, &g, k);
          if (r.fail < 0 && !errors++)
            fprintf(stderr, "bench-genz: %s d %d %s instance %d: fail %d: "
                    "%s\n", name, g.d, genz_names[g.family - 1], k, r.fail,
                    gcuba_strerror(r.fail));
          nerrors += r.fail < 0;
          genz_stats_add(&st, &r, truth, opt.epsrel);
          if (pi) genz_instance_line(pi, name, &g, k, &r, truth);
        }
        genz_group_line(stdout, name, opt.dims[di],
                        genz_names[opt.fams[fi] - 1], &st);
        if (csv)
          genz_csv_line(csv, name, opt.dims[di], genz_names[opt.fams[fi] - 1],
                        &st);
        genz_stats_merge(&tot, &st);
        fflush(stdout);
      }
    genz_group_line(stdout, name, 0, "all", &tot);
    if (csv) genz_csv_line(csv, name, 0, "all", &tot);
    printf("# %s: %d calls, %d converged, %d honest, %d false claims, "
           "%d right; neval mean %.0f, max %lld (maxeval %lld); wall %.2f s "
           "(backend %s)\n", name, tot.n, tot.conv, tot.honest, tot.nfalse,
           tot.right, genz_stats_mean(&tot), tot.max_neval, opt.maxeval,
           (now_ms() - t0) * 1e-3, gcuba_last_backend());
    nfalse += tot.nfalse;
  }
  printf("# total wall %.2f s\n", (now_ms() - t_all) * 1e-3);
  if (nfalse)
    printf("# WARNING: %d false claim%s (fail = 0, true relerr > epsrel)\n",
           nfalse, nfalse == 1 ? "" : "s");
  if (nerrors)
    printf("# ERROR: %d call%s returned fail < 0\n", nerrors,
           nerrors == 1 ? "" : "s");
  if (csv) fclose(csv);
  if (pi && pi != stdout) fclose(pi);
  gcuba_release(); /* the device memory kept between calls */
  return nerrors ? 1 : 0;
}
