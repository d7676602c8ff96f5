/* src/cpu/work.h -- how many CPU threads a loop of n points gets: one per
   GCUBA_CPU_MINWORK points, or more, one per GCUBA_CPU_MINNS nanoseconds
   of measured work when the integrand is costly (ns: its measured cost
   per point, <= 0 when not known), never more than nthreads or `units'
   (the pieces the loop can be cut into), at least 1.  The one rule of the
   CPU executors that share small loops (vegas_cpu.c, suave_cpu.c).  This
   file is part of gcuba. */
#ifndef GCUBA_CPU_WORK_H
#define GCUBA_CPU_WORK_H

#define GCUBA_CPU_MINWORK 16384
#define GCUBA_CPU_MINNS 1e6

static inline int gcuba_cpu_threads(long long n, double ns, int nthreads,
                                    long long units)
{
  double work = 1 + (double)n / GCUBA_CPU_MINWORK;
  int nt;
  if (ns > 0 && (double)n * ns / GCUBA_CPU_MINNS > work)
    work = (double)n * ns / GCUBA_CPU_MINNS;
  nt = work < nthreads ? (int)work : nthreads;
  if (nt > units) nt = (int)units;
  return nt < 1 ? 1 : nt;
}

#endif
