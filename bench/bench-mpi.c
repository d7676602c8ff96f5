/* bench/bench-mpi.c -- gCuhre and gVegas collective over MPI_COMM_WORLD: the time of
   each case with this many processes, and the bits of its result, so
   that runs with 1, 2, 4, ... processes can be compared:

     mpirun -np N bench/bench-mpi [--backend cpu|gpu] [--reps R]
                                  [--cases I,J,...] [--local]

   Cases: gCuhre on the test suite's f2 6D, f4 8D and f5 8D (cheap
   integrands, the GPU's eval is then a small part of an iteration) and
   on an expensive 6D integrand (bench/mpi-heavy.h); gVegas ("V") on f4 8D
   and the expensive one (iterations of 4 ms and, last case, of 80 ms on
   an H200); gCuhre on f2 6D at 2e-7 (a cheap integrand in
   a call of about a second).  One warm-up call, then the best of R
   (default 3) calls; --cases runs only the cases of these indices (from
   0, in the order below).  Rank 0 prints one line per case: processes, time,
   neval, fail, the true relative error, the integral in hex and the
   time of the warm-up call (the first of the process: it pays for the
   CUDA contexts; --reps 0 runs it alone).  With
   the GPU backend each process of a node takes its own GPU when there
   are several (doc/mpi.md).  With --local the calls are not collective:
   run by one process, they use the GPUs GCUBA_DEVICES names (the np
   column then shows how many the last call ended on: with
   GCUBA_DEVICES=auto, the default, a long gCuhre call grows).  This file is part of gcuba. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "gcuba_mpi.h"
#include "suite.h"
#define HEAVY_NAME heavy_c
#include "mpi-heavy.h"
#ifdef SUITE_HAVE_CU
GCUBA_DECLARE_INTEGRAND(heavy_cu);
#endif

typedef struct {
  const char *name;
  int vegas;
  int family; /* 0: heavy */
  int ndim;
  double epsrel;
  long long maxeval;
  long long nstart; /* gVegas: samples per iteration (0: 1e7) */
} bcase;

static const bcase cases[] = {
    {"f2 6D", 0, 2, 6, 1e-6, 1000000000000LL},
    {"f4 8D", 0, 4, 8, 1.6e-6, 1000000000000LL},
    {"f5 8D", 0, 5, 8, 1e-6, 1000000000000LL},
    {"heavy 6D", 0, 0, 6, 1e-9, 1000000000000LL},
    {"heavy 6D", 0, 0, 6, 1e-11, 1000000000000LL},
    {"heavy 6D", 0, 0, 6, 1e-12, 1000000000000LL},
    {"heavy 6D", 0, 0, 6, 1e-13, 1000000000000LL},
    /* gVegas, seed 1, iterations of 1e7 samples */
    {"V f4 8D", 1, 4, 8, 1e-3, 100000000000LL},
    {"V heavy 6D", 1, 0, 6, 1e-6, 100000000000LL},
    /* gCuhre, a long call of a cheap integrand */
    {"f2 6D", 0, 2, 6, 2e-7, 1000000000000LL},
    /* gVegas, 20 iterations of 2e8 samples (about 80 ms each on an H200,
       so that GCUBA_DEVICES=auto grows the call) */
    {"V heavy 6D", 1, 0, 6, 1e-9, 4000000000LL, 200000000LL},
};

static double truth(const bcase *k)
{
  int i;
  if (!k->family) return heavy_truth(k->ndim);
  for (i = 0; i < SUITE_NCASES; ++i)
    if (suite_cases[i].family == k->family && suite_cases[i].d == k->ndim)
      return suite_cases[i].truth;
  return 0;
}

int main(int argc, char **argv)
{
  int rank, size, i, j, gpu = 0, reps = 3, local = 0, np;
  const char *only = NULL, *devs = getenv("GCUBA_DEVICES");
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  for (i = 1; i < argc; ++i) {
    if (!strcmp(argv[i], "--backend") && i + 1 < argc)
      gpu = !strcmp(argv[++i], "gpu");
    else if (!strcmp(argv[i], "--reps") && i + 1 < argc)
      reps = atoi(argv[++i]);
    else if (!strcmp(argv[i], "--cases") && i + 1 < argc)
      only = argv[++i];
    else if (!strcmp(argv[i], "--local"))
      local = 1;
  }
  if (reps < 0) reps = 0;
  setenv("GCUBA_DEVICE", gpu ? "gpu" : "cpu", 1);
  np = size;
  if (!local)
    gcuba_mpi_comm(MPI_COMM_WORLD);
  else {
    /* GCUBA_DEVICES: all, a count or a list */
    const char *p;
    if (!devs || !*devs)
      np = 1;
    else if (!strcmp(devs, "all"))
      np = gcuba_device_count();
    else if (!strchr(devs, ','))
      np = atoi(devs);
    else
      for (np = 1, p = devs; *p; ++p) np += *p == ',';
  }
  if (rank == 0) {
    char how[32] = "the first call only";
    if (reps > 0) snprintf(how, sizeof how, "best of %d", reps);
    printf("# gCuhre, gVegas (V) over %d %s, %s backend; %s\n"
           "# case     epsrel    np    seconds        neval fail  true rel.err  "
           "integral  first\n", np, local ? "GPUs of one process (GCUBA_DEVICES)"
           : "processes", gpu ? "GPU" : "CPU", how);
  }
  for (i = 0; i < (int)(sizeof cases / sizeof cases[0]); ++i) {
    const bcase *k = &cases[i];
    gintegrand_t f;
    char idx[16];
    double best = 1e300, first = 0, integral[1], error[1], prob[1], t0, t1,
           exact;
    long long neval = 0;
    int nregions, fail = 0;
    if (only) {
      /* ",I," within ",LIST," */
      char list[256];
      snprintf(list, sizeof list, ",%s,", only);
      snprintf(idx, sizeof idx, ",%d,", i);
      if (!strstr(list, idx)) continue;
    }
#ifdef SUITE_HAVE_CU
    f = k->family ? suite_family(k->family, gpu) : gpu ? heavy_cu : heavy_c;
#else
    f = k->family ? suite_family(k->family, 0) : heavy_c;
    if (gpu) {
      if (rank == 0) printf("# no GPU integrands in this build\n");
      break;
    }
#endif
    for (j = 0; j <= reps; ++j) {
      MPI_Barrier(MPI_COMM_WORLD);
      t0 = MPI_Wtime();
      if (k->vegas)
        llgVegas(k->ndim, 1, f, NULL, 1, k->epsrel, 0, 0, 1, 0, k->maxeval,
                 k->nstart ? k->nstart : 10000000, 0, 1000, 0, NULL, NULL,
                 &neval, &fail, integral, error, prob);
      else
        llgCuhre(k->ndim, 1, f, NULL, 1, k->epsrel, 0, 0, 0, k->maxeval, 0,
                 NULL, NULL, &nregions, &neval, &fail, integral, error,
                 prob);
      t1 = MPI_Wtime() - t0;
      /* the slowest process's time */
      MPI_Allreduce(MPI_IN_PLACE, &t1, 1, MPI_DOUBLE, MPI_MAX,
                    MPI_COMM_WORLD);
      if (j == 0) first = t1;
      if (j > 0 && t1 < best) best = t1;
    }
    exact = truth(k);
    if (rank == 0)
      printf("%-10s %-7.2g %4d %10.4f %12lld %4d %13.2e  %a  %.4f\n",
             k->name, k->epsrel, local && gpu ? gcuba_last_devices() : np,
             reps > 0 ? best : first, neval, fail,
             fabs(integral[0] - exact) / fabs(exact), integral[0], first);
    fflush(stdout);
  }
  gcuba_release();
  MPI_Finalize();
  return 0;
}
