/* src/common/coll.h -- calls made collective over several processes.
   libgcuba never links MPI: libgcuba_mpi (src/mpi/) installs a table of
   the few collective operations the drivers need, and every gCuhre and
   gVegas call made while it is installed runs on every process of the
   group at once.  The drivers stay replicated: every process keeps the
   call's state and takes every decision itself, on the same data; the
   integrand evaluations of an iteration are divided, and their results
   exchanged, so that every process holds the bits a single process would
   have computed.  (gCuhre's GPU backend divides its regions too once they
   outgrow one GPU, cuda/cuhre.cu: its decisions then use global counts and
   exact sums.)  Two layers install such a collective: libgcuba_mpi
   (src/mpi/) over MPI processes, and a team of GPUs (src/team/) over
   threads of this process.  The result is therefore identical, bit for bit, whatever
   the number of processes (and of threads).
   This file is part of gcuba. */
#ifndef GCUBA_COLL_H
#define GCUBA_COLL_H
#ifdef __cplusplus
extern "C" {
#endif

enum { GCUBA_COLL_DOUBLE = 0, GCUBA_COLL_LL = 1, GCUBA_COLL_BYTE = 2 };
enum { GCUBA_COLL_MIN = 0, GCUBA_COLL_MAX = 1, GCUBA_COLL_SUM = 2,
       GCUBA_COLL_BOR = 3 };

typedef struct gcuba_collective {
  int rank, size;
  int local_rank, local_size; /* among the processes of this node */
  int device; /* the GPU of this member, or -1: local_rank's (MPI) */
  void *ctx;
  /* In place: buf holds every process's block in rank order, counts[r]
     elements of type (GCUBA_COLL_*) from process r; this process's block
     is filled, the others are received.  0, or nonzero on an error. */
  int (*allgatherv)(void *ctx, void *buf, const long long *counts, int type);
  /* v[0..n) combined elementwise over the processes with op
     (GCUBA_COLL_SUM and BOR for GCUBA_COLL_LL only) */
  int (*allreduce)(void *ctx, void *v, int n, int type, int op);
  /* optional (NULL: none): allgatherv on memory of this member's GPU,
     the copies made on stream (a cudaStream_t) and done on return; 0, or
     nonzero on every member when any copy failed (a team's GPUs) */
  int (*allgatherv_dev)(void *ctx, void *buf, const long long *counts,
                        int type, void *stream);
  /* Bytes to and from every member: scnt[r] bytes from send + soff[r]
     go to member r, which receives them at its recv + its roff[me]
     (rcnt[me] bytes); every member knows every count (the plans are
     computed alike everywhere), so the counts must agree.  0, or nonzero
     on every member when any part failed. */
  int (*alltoallv)(void *ctx, const void *send, const long long *scnt,
                   const long long *soff, void *recv, const long long *rcnt,
                   const long long *roff);
  /* optional (NULL: none): the same between the members' GPUs, on
     stream, done on return */
  int (*alltoallv_dev)(void *ctx, const void *send, const long long *scnt,
                       const long long *soff, void *recv,
                       const long long *rcnt, const long long *roff,
                       void *stream);
} gcuba_collective;

/* Install (or, with NULL, remove) the collective for later calls; the
   table is copied.  For libgcuba_mpi. */
void gcuba_collective_set(const gcuba_collective *coll);

struct gcuba_call;
/* The collective a call starting now runs over, or NULL: local (so
   also when the group is one process, whose result is the same).  One
   call at a time is collective: a call made while another runs (an
   integrand that integrates, another thread) is local.  A non-NULL
   result must be given back with gcuba_coll_end, which says (verbosity
   2) the time of call c, started at t0 (gcuba_now_ms), in its collective
   operations. */
const gcuba_collective *gcuba_coll_begin(void);
void gcuba_coll_end(const struct gcuba_call *c, double t0);
/* Every process passes n values (names[i] says what v[i] is, for the
   message); 0 when all agree, else every process gets
   GCUBA_FAIL_COLLECTIVE (GCUBA_FAIL_MPI when the exchange failed). */
int gcuba_coll_agree(struct gcuba_call *c, const long long *v, int n,
                     const char *const *names);
/* rc (0 or a fail code) of every process: the lowest, on all of them
   (so that one process's failure ends the call on every one); without a
   collective, rc */
int gcuba_coll_status(struct gcuba_call *c, int rc);
/* v[0..n) reduced with op over the processes; 0 or GCUBA_FAIL_MPI */
int gcuba_coll_reduce_ll(struct gcuba_call *c, long long *v, int n, int op);
int gcuba_coll_reduce_d(struct gcuba_call *c, double *v, int n, int op);
/* in-place all-gather of blocks of counts[r] elements; counts has size
   entries; 0 or GCUBA_FAIL_MPI */
int gcuba_coll_gather(struct gcuba_call *c, void *buf, const long long *counts,
                      int type);
/* allgatherv_dev when the collective has it: 0 done, 1 not available
   (gather through the host instead), or GCUBA_FAIL_CUDA on every
   member */
int gcuba_coll_gather_dev(struct gcuba_call *c, void *buf,
                          const long long *counts, int type, void *stream);

/* alltoallv (bytes) over the collective; 0 or GCUBA_FAIL_MPI */
int gcuba_coll_alltoallv(struct gcuba_call *c, const void *send,
                         const long long *scnt, const long long *soff,
                         void *recv, const long long *rcnt,
                         const long long *roff);

/* this process's share [*a, *b) of n items, and every share's count into
   counts[size] (counts may be NULL); items go to processes in rank order,
   contiguous, as evenly as possible */
void gcuba_coll_share(const gcuba_collective *coll, long long n,
                      long long *a, long long *b, long long *counts);

#ifdef __cplusplus
}
#endif
#endif
