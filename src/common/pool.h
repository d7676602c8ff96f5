/* src/common/pool.h -- the CPU threads' work sharing.  A loop over items is
   shared by the calling thread and up to nthreads - 1 persistent workers
   that wait passively (a short poll, then asleep): no thread burns a CPU
   that another process needs, and the caller never waits for a worker
   that has not taken an item (a worker that wakes late finds the loop
   done and goes back to sleep).  Each thread gets a number tid, 0 the
   caller, unique within the loop and below nthreads, for its own
   buffers; items are taken `grab' at a time in increasing order.  One
   loop runs at a time: a loop started while another runs (another
   thread's call) runs on its caller alone.  This file is part of
   gcuba. */
#ifndef GCUBA_COMMON_POOL_H
#define GCUBA_COMMON_POOL_H

/* item i on thread tid; returns status bits (GCUBA_ST_*), OR-ed over the
   loop */
#ifdef __cplusplus
extern "C" {
#endif
typedef int (*gcuba_pool_fn)(void *ctx, long long i, int tid);

/* fn(ctx, i, tid) for every i in [0, n) on at most nthreads threads;
   returns the OR of the status bits */
int gcuba_pool_for(int nthreads, long long n, long long grab,
                   gcuba_pool_fn fn, void *ctx);
#ifdef __cplusplus
}
#endif

#endif
