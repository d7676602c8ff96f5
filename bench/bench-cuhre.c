/* bench/bench-cuhre.c -- `make bench`: llgCuhre over the test suite
   (tests/suite.h, all 12 cases) and the papers' precision sweep
   (epsrel = 1e-3, divided by 5 after each level, down to 1.024e-10;
   epsabs = 1e-20), with a time limit per level.  Prints an aligned table
   and writes CSV.  bench/BENCH.md explains the options and the columns.

   Per case and level: one warm-up call, then the median of --reps timed
   calls (one timed call when the warm-up took more than 1 s).  A case
   stops at its first level with fail != 0 or over the limit; a level
   whose predicted time (previous level's time times the previous growth
   factor, clamped to 4..25) exceeds the limit is not run and is listed
   as skipped.

   --evalrate: integrand evaluations per second for f4 8D on the backend
   in use (neval / wall time of runs deep enough to take about a second).

   This file is part of gcuba. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>
#include "suite.h"

#define SWEEP_MAX 1e-3
#define SWEEP_MIN 1.024e-10
#define GROWTH_MIN 4.0   /* predicted time growth per level: at least */
#define GROWTH_MAX 25.0  /* and at most this */
#define ONE_REP_MS 1000. /* levels slower than this get one timed call */

static struct {
  const char *cases, *backend, *csv;
  double maxeps, mineps, limit, epsabs;
  int reps, threads, evalrate, key, flags;
  long long maxeval;
  double evalrate_ms;
} opt = {NULL, NULL, "bench-cuhre.csv", SWEEP_MAX, SWEEP_MIN, 10., 1e-20,
         3, -1, 0, 0, 0, 1000000000000000LL, 1000.};

static int use_gpu_objects; /* 1: the nvcc-built _cu descriptors */

static double now_ms(void)
{
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec * 1e3 + ts.tv_nsec * 1e-6;
}

typedef struct {
  double ms, integral, error, prob;
  long long neval;
  int nregions, fail;
  const char *backend;
} result;

/* The watchdog (--limit > 0): each case runs in a child process, forked
   before this process has made any gcuba call (no OpenMP pool or CUDA
   context crosses a fork).  The child tells the parent through a pipe
   when each llgCuhre call starts and ends; the parent kills the child
   when a call runs past the limit and reports the level as "limit". */
struct wd_msg {
  int what; /* 1: a call starts, 2: it ended */
  double eps;
};
static int wd_fd = -1; /* the child's end of the pipe, or -1 */

static void wd_send(int what, double eps)
{
  struct wd_msg m;
  if (wd_fd < 0) return;
  memset(&m, 0, sizeof m);
  m.what = what;
  m.eps = eps;
  if (write(wd_fd, &m, sizeof m) != (ssize_t)sizeof m) _exit(99);
}

static result run(gintegrand_t f, int d, double epsrel, long long maxeval)
{
  result r;
  double t0;
  wd_send(1, epsrel);
  t0 = now_ms();
  llgCuhre(d, 1, f, NULL, 1, epsrel, opt.epsabs, opt.flags, 0, maxeval,
           opt.key, NULL, NULL, &r.nregions, &r.neval, &r.fail, &r.integral,
           &r.error, &r.prob);
  r.ms = now_ms() - t0;
  wd_send(2, epsrel);
  r.backend = gcuba_last_backend();
  return r;
}

static int cmp_double(const void *a, const void *b)
{
  double x = *(const double *)a, y = *(const double *)b;
  return x < y ? -1 : x > y;
}

static void usage(FILE *out)
{
  fprintf(out,
    "usage: bench-cuhre [options]\n"
    "  --cases LIST     only these cases, e.g. f4_8,f3_3 (family_d; f4 = all f4)\n"
    "  --max-eps E      first epsrel of the sweep (default 1e-3)\n"
    "  --min-eps E      last epsrel of the sweep (default 1.024e-10)\n"
    "  --limit S        time limit per level in seconds (default 10; 0 = none)\n"
    "  --reps N         timed calls per level after the warm-up, median\n"
    "                   reported (default 3; levels over 1 s: 1; 0 = time\n"
    "                   the first call, no warm-up)\n"
    "  --backend B      cpu | gpu | auto: sets GCUBA_DEVICE (default: as set)\n"
    "  --threads N      gcubacores(N) for the CPU backend (default: GCUBACORES\n"
    "                   or OpenMP's)\n"
    "  --csv FILE       CSV output (default bench-cuhre.csv; - = none)\n"
    "  --key K          Cuhre key (default 0)\n"
    "  --flags F        flags (default 0)\n"
    "  --maxeval N      maxeval (default 1e15)\n"
    "  --evalrate       integrand evaluations per second, f4 8D, instead\n"
    "                   of the sweep: maxeval doubles from 1e6 until a run\n"
    "                   takes over --evalrate-ms (default 1000)\n"
    "  --help\n");
}

static int parse(int argc, char **argv)
{
  int i;
  for (i = 1; i < argc; ++i) {
    const char *a = argv[i];
    const char *v = i + 1 < argc ? argv[i + 1] : NULL;
#define NEEDV                                                                \
  do {                                                                       \
    if (!v) {                                                                \
      fprintf(stderr, "bench-cuhre: %s needs a value\n", a);               \
      return -1;                                                             \
    }                                                                        \
    ++i;                                                                     \
  } while (0)
    if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
      usage(stdout);
      exit(0);
    } else if (!strcmp(a, "--evalrate")) opt.evalrate = 1;
    else if (!strcmp(a, "--evalrate-ms")) { NEEDV; opt.evalrate_ms = atof(v); }
    else if (!strcmp(a, "--cases")) { NEEDV; opt.cases = v; }
    else if (!strcmp(a, "--max-eps")) { NEEDV; opt.maxeps = atof(v); }
    else if (!strcmp(a, "--min-eps")) { NEEDV; opt.mineps = atof(v); }
    else if (!strcmp(a, "--limit")) { NEEDV; opt.limit = atof(v); }
    else if (!strcmp(a, "--reps")) { NEEDV; opt.reps = atoi(v); }
    else if (!strcmp(a, "--backend")) { NEEDV; opt.backend = v; }
    else if (!strcmp(a, "--threads")) { NEEDV; opt.threads = atoi(v); }
    else if (!strcmp(a, "--csv")) { NEEDV; opt.csv = v; }
    else if (!strcmp(a, "--key")) { NEEDV; opt.key = atoi(v); }
    else if (!strcmp(a, "--flags")) { NEEDV; opt.flags = atoi(v); }
    else if (!strcmp(a, "--maxeval")) { NEEDV; opt.maxeval = (long long)atof(v); }
    else {
      fprintf(stderr, "bench-cuhre: unknown option %s\n", a);
      usage(stderr);
      return -1;
    }
#undef NEEDV
  }
  if (!(opt.maxeps > 0) || !(opt.mineps > 0) || opt.mineps > opt.maxeps ||
      opt.reps < 0 || opt.limit < 0) {
    fprintf(stderr, "bench-cuhre: bad --max-eps/--min-eps/--reps/--limit\n");
    return -1;
  }
  if (opt.backend && strcmp(opt.backend, "cpu") &&
      strcmp(opt.backend, "gpu") && strcmp(opt.backend, "auto")) {
    fprintf(stderr, "bench-cuhre: --backend cpu|gpu|auto\n");
    return -1;
  }
  return 0;
}

/* is the case selected by --cases?  items "f4_8" or "f4" */
static int selected(const struct suite_case *sc)
{
  const char *p = opt.cases;
  char key[32], fam[16];
  size_t n;
  if (!p || !*p) return 1;
  snprintf(key, sizeof key, "%s_%d", sc->name, sc->d);
  snprintf(fam, sizeof fam, "%s", sc->name);
  while (*p) {
    n = strcspn(p, ",");
    if ((n == strlen(key) && !strncmp(p, key, n)) ||
        (n == strlen(fam) && !strncmp(p, fam, n)))
      return 1;
    p += n;
    if (*p == ',') ++p;
  }
  return 0;
}

static int check_cases(void)
{
  const char *p = opt.cases;
  int bad = 0;
  if (!p) return 0;
  while (*p) {
    size_t n = strcspn(p, ",");
    int i, found = 0;
    for (i = 0; i < SUITE_NCASES; ++i) {
      char key[32];
      snprintf(key, sizeof key, "%s_%d", suite_cases[i].name, suite_cases[i].d);
      if ((n == strlen(key) && !strncmp(p, key, n)) ||
          (n == strlen(suite_cases[i].name) &&
           !strncmp(p, suite_cases[i].name, n)))
        found = 1;
    }
    if (!found && n) {
      fprintf(stderr, "bench-cuhre: no case %.*s (cases are f1_8 f2_6 f3_3 "
              "f3_8 f4_5 f4_6 f4_8 f5_8 f6_5 f6_6 f7_8 f8_8)\n", (int)n, p);
      bad = 1;
    }
    p += n;
    if (*p == ',') ++p;
  }
  return bad ? -1 : 0;
}

static gintegrand_t integrand(int family)
{
  return suite_family(family, use_gpu_objects);
}

/* ---- the sweep -------------------------------------------------------- */

static FILE *csv;
static int nfalse; /* fail = 0 with true relerr > epsrel */

static const char *threads_str(void)
{
  static char s[32];
  if (opt.threads >= 0) snprintf(s, sizeof s, "%d", opt.threads);
  else if (getenv("GCUBACORES")) snprintf(s, sizeof s, "env %s", getenv("GCUBACORES"));
  else snprintf(s, sizeof s, "default");
  return s;
}

static void header(void)
{
  printf("%-4s %2s %9s %-7s %11s %13s %9s %23s %9s %9s %4s %4s %s\n", "case",
         "d", "epsrel", "status", "ms", "neval", "nregions", "estimate",
         "error", "relerr", "fail", "conv", "note");
  if (csv)
    fprintf(csv, "case,integrand,d,epsrel,status,ms,ms_min,ms_max,calls,neval,"
                 "nregions,estimate,error,true_value,true_relerr,fail,"
                 "converged,backend,threads,note\n");
}

static void row(const struct suite_case *sc, double epsrel,
                const char *status, const result *r, double msmin,
                double msmax, int reps, const char *note)
{
  char key[32];
  snprintf(key, sizeof key, "%s_%d", sc->name, sc->d);
  if (!r) { /* skipped */
    printf("%-4s %2d %9.4g %-7s %11s %13s %9s %23s %9s %9s %4s %4s %s\n",
           sc->name, sc->d, epsrel, status, "-", "-", "-", "-", "-", "-", "-",
           "-", note);
    if (csv)
      fprintf(csv, "%s,%s,%d,%.6g,%s,,,,0,,,,,%.17g,,,,,%s,\"%s\"\n", key,
              sc->name, sc->d, epsrel, status, sc->truth, threads_str(), note);
  } else {
    double rel = fabs(r->integral - sc->truth) / fabs(sc->truth);
    int conv = r->fail == 0 && rel <= epsrel;
    char fullnote[256];
    snprintf(fullnote, sizeof fullnote, "%s%s%s", note,
             *note && r->fail == 0 && !conv ? "; " : "",
             r->fail == 0 && !conv ? "FALSE CLAIM: fail 0, relerr > epsrel"
                                   : "");
    if (r->fail == 0 && !conv) ++nfalse;
    printf("%-4s %2d %9.4g %-7s %11.3f %13lld %9d %23.16e %9.2e %9.2e %4d %4s "
           "%s\n",
           sc->name, sc->d, epsrel, status, r->ms, r->neval, r->nregions,
           r->integral, r->error, rel, r->fail, conv ? "y" : "n", fullnote);
    if (csv)
      fprintf(csv, "%s,%s,%d,%.6g,%s,%.4f,%.4f,%.4f,%d,%lld,%d,%.17g,%.6e,"
                   "%.17g,%.6e,%d,%d,%s,%s,\"%s\"\n",
              key, sc->name, sc->d, epsrel, status, r->ms, msmin, msmax, reps,
              r->neval, r->nregions, r->integral, r->error, sc->truth, rel,
              r->fail, conv, r->backend, threads_str(), fullnote);
  }
  fflush(stdout);
  if (csv) fflush(csv);
}

static int same(const result *a, const result *b)
{
  return a->neval == b->neval && a->nregions == b->nregions &&
         a->fail == b->fail && a->integral == b->integral &&
         a->error == b->error;
}

static void sweep_case(const struct suite_case *sc)
{
  gintegrand_t f = integrand(sc->family);
  double limit_ms = opt.limit * 1e3;
  double prev_ms = -1, prev2_ms = -1, eps;
  int level;
  for (level = 0, eps = opt.maxeps; eps >= opt.mineps * (1 - 1e-9);
       ++level, eps /= 5) {
    result w, r, t[64];
    double ms[64], msmin, msmax;
    int reps = opt.reps > 64 ? 64 : opt.reps, i;
    char note[160] = "";
    const char *status = "ok";

    /* predicted time of this level */
    if (limit_ms > 0 && prev_ms >= 0) {
      double g = prev2_ms >= 1.0 ? prev_ms / prev2_ms : GROWTH_MIN;
      double pred;
      if (g < GROWTH_MIN) g = GROWTH_MIN;
      if (g > GROWTH_MAX) g = GROWTH_MAX;
      pred = prev_ms * g;
      if (pred > limit_ms) {
        snprintf(note, sizeof note, "predicted %.1f s (x%.1f) > limit %g s",
                 pred * 1e-3, g, opt.limit);
        row(sc, eps, "skipped", NULL, 0, 0, 0, note);
        return;
      }
    }

    w = run(f, sc->d, eps, opt.maxeval); /* warm-up (or the only call) */
    r = w;
    msmin = msmax = w.ms;
    if (limit_ms > 0 && w.ms > limit_ms) {
      status = "limit";
      snprintf(note, sizeof note, "%s call took %.1f s > limit %g s",
               reps ? "warm-up" : "the", w.ms * 1e-3, opt.limit);
      reps = 0;
    } else if (w.fail < 0) {
      reps = 0; /* an error: no point timing it */
    }
    if (reps > 0) {
      if (w.ms > ONE_REP_MS) reps = 1;
      for (i = 0; i < reps; ++i) {
        t[i] = run(f, sc->d, eps, opt.maxeval);
        ms[i] = t[i].ms;
        if (!same(&t[i], &w))
          snprintf(note, sizeof note, "results differ between calls");
      }
      qsort(ms, reps, sizeof ms[0], cmp_double);
      r = t[reps - 1];
      r.ms = reps % 2 ? ms[reps / 2] : 0.5 * (ms[reps / 2 - 1] + ms[reps / 2]);
      msmin = ms[0];
      msmax = ms[reps - 1];
      if (limit_ms > 0 && r.ms > limit_ms) {
        status = "limit";
        snprintf(note, sizeof note, "took %.1f s > limit %g s", r.ms * 1e-3,
                 opt.limit);
      }
    }
    if (r.fail != 0 && !strcmp(status, "ok")) status = "fail";
    if (r.fail != 0 && !*note) snprintf(note, sizeof note, "%s", gcuba_strerror(r.fail));
    row(sc, eps, status, &r, msmin, msmax, reps > 0 ? reps : 1, note);
    if (strcmp(status, "ok")) return;
    prev2_ms = prev_ms;
    prev_ms = r.ms;
  }
}

/* a level whose call the watchdog killed */
static void killed_row(const struct suite_case *sc, double eps, double ms,
                       const char *why)
{
  char key[32], note[160];
  snprintf(key, sizeof key, "%s_%d", sc->name, sc->d);
  snprintf(note, sizeof note, "%s", why);
  printf("%-4s %2d %9.4g %-7s %11s %13s %9s %23s %9s %9s %4s %4s %s\n",
         sc->name, sc->d, eps, "limit", ms > 0 ? ">limit" : "-", "-", "-",
         "-", "-", "-", "-", "-", note);
  if (csv)
    fprintf(csv, "%s,%s,%d,%.6g,limit,,,,0,,,,,%.17g,,,0,,%s,\"%s\"\n", key,
            sc->name, sc->d, eps, sc->truth, threads_str(), note);
  fflush(stdout);
  if (csv) fflush(csv);
}

/* sweep_case in a child process under the watchdog */
static void watch_case(const struct suite_case *sc)
{
  double limit_ms = opt.limit * 1e3, t_start = 0, eps = 0;
  int p[2], running = 0, status = 0;
  pid_t pid;
  fflush(stdout);
  if (csv) fflush(csv);
  if (pipe(p)) {
    perror("bench-cuhre: pipe");
    exit(2);
  }
  pid = fork();
  if (pid < 0) {
    perror("bench-cuhre: fork");
    exit(2);
  }
  if (pid == 0) {
    close(p[0]);
    wd_fd = p[1];
    nfalse = 0; /* the child counts its own, the parent adds them up */
    sweep_case(sc);
    fflush(stdout);
    if (csv) fflush(csv);
    _exit(nfalse > 100 ? 100 : nfalse);
  }
  close(p[1]);
  for (;;) {
    struct pollfd pf;
    struct wd_msg m;
    int timeout = -1, rc;
    ssize_t n;
    if (running) {
      double left = limit_ms - (now_ms() - t_start);
      timeout = left > 0 ? (int)left + 1 : 0;
    }
    pf.fd = p[0];
    pf.events = POLLIN;
    pf.revents = 0;
    rc = poll(&pf, 1, timeout);
    if (rc < 0 && errno == EINTR) continue;
    if (rc == 0) { /* the call is past the limit */
      char why[160];
      double ms = now_ms() - t_start;
      kill(pid, SIGKILL);
      waitpid(pid, &status, 0);
      close(p[0]);
      snprintf(why, sizeof why, "killed after %.1f s (limit %g s)", ms * 1e-3,
               opt.limit);
      killed_row(sc, eps, ms, why);
      return;
    }
    n = rc > 0 ? read(p[0], &m, sizeof m) : -1;
    if (n != (ssize_t)sizeof m) break; /* the child is done */
    running = m.what == 1;
    if (running) {
      t_start = now_ms();
      eps = m.eps;
    }
  }
  close(p[0]);
  waitpid(pid, &status, 0);
  if (WIFEXITED(status) && WEXITSTATUS(status) <= 100)
    nfalse += WEXITSTATUS(status);
  else {
    char why[160];
    if (WIFSIGNALED(status))
      snprintf(why, sizeof why, "the run died of signal %d", WTERMSIG(status));
    else
      snprintf(why, sizeof why, "the run exited with status %d",
               WEXITSTATUS(status));
    killed_row(sc, running ? eps : NAN, 0, why);
  }
}

/* ---- evaluation rate -------------------------------------------------- */

/* The evaluation kernel's own rate on the GPU: the same f4 8D run once
   more at verbosity 2, whose report gives the milliseconds the rule
   kernel ran (CUDA events around its launches, no driver work) and the
   evaluations.  1 and *evals_per_s when measured, 0 when not.  (The FP64
   rate needs the instruction mix: ncu, see bench/BENCH.md.) */
static int gpu_kernel_evalrate(gintegrand_t f, int d, long long maxeval,
                               double *evals_per_s)
{
  char tmpl[] = "/tmp/bench-cuhre-XXXXXX", line[512];
  int fd = mkstemp(tmpl), save, nregions, fail, found = 0;
  long long neval, n = 0;
  double I, E, P, ms = 0;
  FILE *fp;
  *evals_per_s = 0;
  if (fd < 0) return 0;
  fflush(stderr);
  save = dup(2);
  dup2(fd, 2);
  llgCuhre(d, 1, f, NULL, 1, 1e-14, 1e-20, 2, 0, maxeval, opt.key, NULL,
           NULL, &nregions, &neval, &fail, &I, &E, &P);
  fflush(stderr);
  dup2(save, 2);
  close(save);
  close(fd);
  fp = fopen(tmpl, "r");
  while (fp && fgets(line, sizeof line, fp)) {
    const char *k = strstr(line, "rule kernel: ");
    if (k && sscanf(k, "rule kernel: %lf ms for %lld", &ms, &n) == 2)
      found = 1;
  }
  if (fp) fclose(fp);
  remove(tmpl);
  if (!found || !(ms > 0)) return 0;
  *evals_per_s = n / (ms * 1e-3);
  return 1;
}

/* a plain loop over the host function, one thread: the ceiling of a CPU
   thread */
static double host_loop_rate(gintegrand_t f, int d)
{
  double x[64], v, sum = 0, t0, t;
  long long n = 0, i;
  unsigned long long s = 12345;
  int nc = 1, k, chunk = 100000;
  t0 = now_ms();
  do {
    for (i = 0; i < chunk; ++i) {
      for (k = 0; k < d; ++k) {
        s = s * 6364136223846793005ULL + 1442695040888963407ULL;
        x[k] = (s >> 11) * (1.0 / 9007199254740992.0);
      }
      f->fn(&d, x, &nc, &v, NULL);
      sum += v;
    }
    n += chunk;
    t = now_ms() - t0;
  } while (t < 500);
  if (sum == 12345.6789) printf(" ");
  return n / (t * 1e-3);
}

static int evalrate(void)
{
  const struct suite_case *sc = NULL;
  gintegrand_t f;
  long long maxeval;
  result r;
  double rate = 0, kr;
  int i;
  for (i = 0; i < SUITE_NCASES; ++i)
    if (suite_cases[i].family == 4 && suite_cases[i].d == 8) sc = &suite_cases[i];
  f = integrand(sc->family);
  printf("evaluation rate, f4 8D: llgCuhre with epsrel 1e-14 (never reached), "
         "stopped by maxeval\n");
  printf("%12s %13s %9s %11s %14s %s\n", "maxeval", "neval", "nregions", "ms",
         "Meval/s", "backend");
  /* warm-up, then double maxeval until a run takes over evalrate_ms */
  run(f, 8, 1e-14, 1000000);
  for (maxeval = 1000000;; maxeval *= 2) {
    r = run(f, 8, 1e-14, maxeval);
    if (r.fail < 0) {
      printf("fail %d: %s\n", r.fail, gcuba_strerror(r.fail));
      return 1;
    }
    rate = r.neval / (r.ms * 1e-3);
    printf("%12lld %13lld %9d %11.3f %14.2f %s\n", maxeval, r.neval,
           r.nregions, r.ms, rate * 1e-6, r.backend);
    fflush(stdout);
    if (r.ms > opt.evalrate_ms || maxeval > (1LL << 50)) break;
  }
  printf("end-to-end rate (neval / wall time of the last run): %.2f M "
         "evaluations/s on %s, threads %s\n", rate * 1e-6, r.backend,
         threads_str());
  if (!strcmp(r.backend, "gpu")) {
    if (gpu_kernel_evalrate(f, 8, maxeval, &kr))
      printf("evaluation kernel alone (the same run, CUDA events around the "
             "rule kernel): %.2f G evaluations/s\n", kr * 1e-9);
    else
      printf("evaluation kernel alone: the run did not report its kernel "
             "time\n");
  } else {
    double h = host_loop_rate(f, 8);
    printf("plain loop over the host function, 1 thread: %.2f M "
           "evaluations/s (ceiling per CPU thread)\n", h * 1e-6);
  }
  return 0;
}

int main(int argc, char **argv)
{
  int i, nsel = 0;
  double t0;
  if (parse(argc, argv) || check_cases()) return 2;
  if (opt.backend) setenv("GCUBA_DEVICE", opt.backend, 1);
  if (opt.threads >= 0) gcubacores(&opt.threads, &opt.threads);
#ifdef SUITE_HAVE_CU
  /* the nvcc-built integrands carry the GPU kernels; with --backend cpu
     use the cc-built ones (same source, the library's C flags) */
  use_gpu_objects = !(opt.backend && !strcmp(opt.backend, "cpu"));
#endif
  printf("# bench-cuhre: gcuba %s, llgCuhre key %d flags %d, epsabs %g, "
         "maxeval %lld; GCUBA_DEVICE=%s, threads %s, integrands built by %s\n",
         GCUBA_VERSION_STRING, opt.key, opt.flags, opt.epsabs, opt.maxeval,
         getenv("GCUBA_DEVICE") ? getenv("GCUBA_DEVICE") : "(unset: auto)",
         threads_str(), use_gpu_objects ? "nvcc" : "cc");
  if (opt.evalrate) return evalrate();

  printf("# sweep epsrel %g .. %g (/5), limit %g s per level, %d timed "
         "call%s after a warm-up (1 over %g s)\n",
         opt.maxeps, opt.mineps, opt.limit, opt.reps, opt.reps == 1 ? "" : "s",
         ONE_REP_MS * 1e-3);
  if (strcmp(opt.csv, "-")) {
    csv = fopen(opt.csv, "w");
    if (!csv) {
      perror(opt.csv);
      return 2;
    }
  }
  header();
  t0 = now_ms();
  for (i = 0; i < SUITE_NCASES; ++i)
    if (selected(&suite_cases[i])) {
      if (opt.limit > 0) watch_case(&suite_cases[i]);
      else sweep_case(&suite_cases[i]);
      ++nsel;
    }
  printf("# %d case%s in %.1f s", nsel, nsel == 1 ? "" : "s",
         (now_ms() - t0) * 1e-3);
  if (csv) printf("; CSV: %s", opt.csv);
  printf("\n");
  if (nfalse)
    printf("# WARNING: %d level%s with fail = 0 but true relative error > "
           "epsrel (FALSE CLAIM rows)\n", nfalse, nfalse == 1 ? "" : "s");
  if (csv) fclose(csv);
  return 0;
}
