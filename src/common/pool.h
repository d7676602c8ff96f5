/* src/common/pool.h -- the CPU threads' work sharing.  A loop over items is
   shared by the calling thread and up to nthreads - 1 persistent workers
   that wait passively (a short poll, then asleep): no thread burns a CPU
   that another process needs, and the caller never waits for a worker
   that has not taken an item (a worker that wakes late finds the loop
   done and goes back to sleep).  Each thread gets a number tid, 0 the
   caller, unique within the loop and below nthreads, for its own
   buffers; items are taken `grab' at a time in increasing order.  One
   loop runs at a time: a loop started while another runs (another
   thread's call) runs on its caller alone.  A loop may also be started
   for the workers alone (gcuba_pool_start) while its caller goes on with
   other work, and finished later by that same caller (gcuba_pool_finish),
   which then takes the items left as thread 0; meanwhile the caller's own
   loops run on it alone.  This file is part of gcuba. */
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

/* fn(ctx, i, tid) for every i in [0, n) started on up to nthreads - 1
   workers (tid 1 ..), the caller going on: 0, or -1 when no loop was
   started (fewer than 2 threads, no workers, or a loop running) */
int gcuba_pool_start(int nthreads, long long n, long long grab,
                     gcuba_pool_fn fn, void *ctx);

/* the loop the calling thread started finished: the items no worker took
   run on the caller as thread 0, the workers that joined are waited for;
   returns the OR of the loop's status bits */
int gcuba_pool_finish(void);

/* while the loop the calling thread started runs: the next items (a
   grab) taken on the caller as thread 0, their status bits kept for
   gcuba_pool_finish; 1, or 0 when no item was left */
int gcuba_pool_help(void);

/* a pause in a thread's busy wait */
void gcuba_pool_relax(void);
#ifdef __cplusplus
}
#endif

#endif
