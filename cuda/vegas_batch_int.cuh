/* cuda/vegas_batch_int.cuh -- gVegasBatch's GPU pipeline's own types,
   shared by its files: cuda/vegas_batch.cu (the lanes, their waves and
   the drivers' steps) and cuda/vegas_batch_refine.cu (the refinements
   the drivers ask for).  This file is part of gcuba. */
#ifndef GCUBA_VEGAS_BATCH_INT_CUH
#define GCUBA_VEGAS_BATCH_INT_CUH
#include <cuda_runtime.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "cuda/vegas_int.cuh"
#include "vegas/vegas.h"
#include "vegas/sobol.h"
#include "vegas/refine.h"
#include "plan/tables.h"
#include "common/pool.h"
#include "gcuba/detail/gpu_ops.h"

#define WAVE_SAMPLES (1LL << 26) /* samples whose q a wave stores */
#define WAVE_CHUNKS (1LL << 26)  /* chunks of a wave */
#define WAVE_MEM 0.25            /* and at most this share of the free
                                    device memory in its buffers */
#define BIN_CUBES 4096           /* cubes per block of the bin sums */
#define ADMIT (1 << 16)          /* integrals in the pipeline at once */
#define LANES 4                  /* lanes of a batch, at most */
#define LANE_MIN 32              /* integrals per lane, at least */

struct pipe_s;
struct lane_s;
typedef struct {
  struct pipe_s *P;
  struct lane_s *L; /* the lane it runs in */
  gcuba_call *c;
  gcuba_vegas_run *v;
  const gcuba_vegas_iter *it;
  double *sums, *d;
  int b;      /* its index in the batch */
  int solo;   /* its iteration goes to the single-call backend */
  int refine; /* its driver asked for a refinement (GCUBA_VEGAS_REFINE) */
  double *dg; /* its grid on the device (between iterations too), or NULL */
  int gslot;  /* dg's slot in the pipeline's store, or -1: its own */
  int gnb;    /* the bins per axis of the grid at dg */
  int flat;   /* its driver's grid (not remote) is the uniform one */
  /* its iteration in brief, written by gcuba_vb_next in the pool thread
     that has the driver in its cache: what the lanes' rounds and the
     waves' layouts read (one pass over the members, no driver's memory) */
  int nb, bins, hostd, remote; /* it's */
  int ag;          /* axes per block of its bin sums */
  long long nch;   /* it->plan.nchunks */
  long long calls; /* the samples whose q a wave stores (bins), or 0 */
  long long bx;    /* blocks of its bin sums (bins) */
  size_t bin, bscr, bout; /* its bytes in a wave's buffers: in (grid when
                             sent, qw, edge powers), scratch (chunk sums,
                             tree, q), out (ds, and d when hostd) */
  double bytes;    /* the device memory its iteration takes in a wave */
} member;

/* member m's next iteration asked of its driver (or its end)
   (cuda/vegas_batch.cu) */
void gcuba_vb_next(member *m);

/* where a member's data lie in a wave's buffers (byte offsets) */
typedef struct {
  size_t grid, qw, epow;   /* in (grid: when the driver's is sent) */
  size_t head, ds, d;      /* out (d beyond the part copied back, but
                              for an iteration that says hostd) */
  size_t part, t, fj, hl;  /* scratch */
  long long nch, cells;
  int ib, ag;              /* its bin arguments' index (-1: none), axes
                              per block */
  long long c0, b0;        /* its first chunk and bin-sum block */
  int gi;                  /* its grid's entry (gcuba_vk_gridin), or -1 */
  int r0;                  /* its first refinement (gcuba_vk_refine) */
  size_t so;               /* its refinements' scratch (doubles) */
} place;

/* a wave: its members, where their data lie, the buffers' layout */
typedef struct {
  struct pipe_s *P;
  struct lane_s *L;
  member **w;
  int n;
  size_t o_L, o_cbeg, o_seg, o_B, o_bbeg, o_R, o_G, in, o_left, o_edge;
  size_t o_ins, o_heads, o_dx, o_hl; /* where the members' own data start
                                        (their places are laid out
                                        relative to these, pack_item
                                        makes them absolute) */
  int ngin;                 /* grids sent or set to the uniform one */
} wavej;

/* a lane: a share of the batch's integrals with its own streams and
   buffers, stepped by the host while the device samples another lane's
   wave */
typedef struct lane_s {
  cudaStream_t st, rst; /* its stream, and its urgent one (refinements,
                           grids back) */
  char *din, *dout, *dscr;
  size_t incap, outcap, scrcap;
  gcuba_pinned hin, hout; /* (page-locked) */
  place *pl;
  long long plcap;
  member **act; /* its integrals running */
  int nact;
  int next;     /* the next of its integrals to enter (batch index) */
  int j0;       /* act[j0 ..] are still to be sampled this round */
  int busy;     /* 1: W's sampling is in flight, 2: its refinements */
  int done;     /* the lane has nothing left */
  long long seq; /* when its work in flight was queued (P->seq) */
  wavej W;
} lane;

typedef struct pipe_s {
  gcuba_call *c;
  const struct gcuba_gpu_ops *g;
  int ndim, ncomp, ngrids, shared, nsm, broken, threads;
  /* verbosity 2: where the time goes (ms), rounds and waves */
  double t_start, t_pack, t_gpu, t_took, t_ref, t_refw, t_grow;
  double t_lay, t_round; /* the waves' layouts (but their buffers'
                            growth), the rounds' and waves' choice (but
                            the drivers' set-up) */
  int rounds, waves, ngrow;
  long long seq; /* work queued in the lanes, in order */
  double memcap; /* bytes of the buffers of one wave, at most (more for
                    one member alone) */
  double memfree; /* free device memory at the start */
  ull *sobol;          /* device Sobol direction numbers (seed 0), or NULL */
  void *ud, *ucopy;    /* userdata on the device; the copy made */
  size_t ucap, stride;
  member *ms;          /* the batch's integrals */
  int n, nlanes;
  lane lanes[LANES];
  /* the members' grids on the device: nslots slots of gsize doubles (the
     grids of the first member's bins per axis), the free ones in gfree;
     a grid of more bins has its own allocation */
  double *gstore;
  size_t gsize;
  int nslots, ngfree, *gfree;
} pipe;

/* the refinements the drivers of wave W asked for, queued on the device
   (1 when some are), and, once done, each driver on with them
   (cuda/vegas_batch_refine.cu) */
int gcuba_vb_refine(pipe *P, wavej *W);
void gcuba_vb_refined_all(pipe *P, wavej *W);

#endif
