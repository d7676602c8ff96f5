/* cuda/vegas_int.cuh -- what the files of gVegas's CUDA backend share
   (vegas.cu, vegas_sample.cu, vegas_reduce.cu, vegas_bins.cu,
   vegas_strat.cu, vegas_refine.cu, vegas_batch.cu): the sampler's context (vctx) with its buffers, and
   the kernels (gcuba_vk_) and host functions (gcuba_vc_) that one file
   calls in another.  This file is part of gcuba. */
#ifndef GCUBA_CUDA_VEGAS_INT_CUH
#define GCUBA_CUDA_VEGAS_INT_CUH
#include <cuda_runtime.h>
#include <stdint.h>
#include "common.cuh"
#include "vegas/backend.h"

#define TREE_THREADS GCUBA_VEGAS_GROUP
#define BIN_THREADS 256
#define BIN_SMEM 32768 /* bytes of 128-bit cells per block */
/* the general sampling kernel's per-thread scratch, at most */
#define SCRATCH_BYTES ((long long)64 << 20)

typedef unsigned long long ull;

struct vctx {
  gcuba_call *c;
  int dev, ndim, ncomp, nb, shared, nsm, ag;
  int nbcap;              /* the bins per axis the bin buffers hold (nb
                             and up to the setup's nbmax: growing bins
                             reuse the context) */
  cudaStream_t stream;
  void *ud;               /* userdata as the device sees it */
  void *udcopy;           /* device copy of a host struct (capacity udcap) */
  size_t udcap;
  /* One device block io and its pinned host mirror h_io hold, in this
     order, the grid (its last ngridvals of ngvcap values), qw, the edge
     powers (2*ndim ints, gcuba_vegas_map), fext, tot,
     qmax, status and d, so that an iteration's set-up is one copy to the
     device (from the grid when it changed, else from qw, through status)
     and its results one copy back (fext through status, and d while the
     grid adapts); then a counter of the tree kernel's blocks */
  char *io, *h_io;
  long long ngvcap;       /* ngrids * (nbcap + 1) */
  size_t o_qw, o_epow, o_fext, o_tot, o_qmax, o_status, o_d, o_cnt, io_bytes;
  unsigned int *cnt;      /* gcuba_vk_tree_all's blocks done (0 between
                             launches) */
  double *grid;           /* in io: the current grid, ngridvals values */
  int ngridvals;          /* ngrids * (nb + 1): the current grid */
  ull *sobol;             /* [ndim*64] Sobol direction numbers (seed 0) */
  double *part;           /* [2*ncomp][spc] chunk sums */
  long long partcap;      /* chunks */
  double *t1, *t2;        /* tree levels */
  long long t1cap, t2cap; /* groups */
  double *tot;            /* [2*ncomp] */
  double *fj;             /* [slice samples] q of each sample */
  double *qw;             /* [ncomp] weights of q */
  int *epow;              /* [2*ndim] edge powers (in io) */
  long long fjcap;
  ull *qmax;
  int *status;
  ull *hi, *lo;           /* [ndim*nbcap] exact bin sums of a slice */
  double *d;              /* [ndim*nbcap] bin contributions */
  double *scratch;
  int *iscratch;
  long long sthreads;
  double *h_tot, *h_d;    /* pinned host copies */
  int *h_status;
  ull *fext;              /* [2*ncomp] order keys: largest, smallest F */
  ull *h_fext;            /* pinned host copy */
  /* a collective call (common/coll.h): the exchange's host buffers */
  double *xg;             /* [groups][2*ncomp] first-level tree results */
  long long xgcap;
  ull *xhl;               /* [processes][2][ndim*nbcap]: exact bin sums */
  long long *xcnt;        /* [2*processes] shares */
  int xcap;               /* processes xhl and xcnt hold */
  /* adaptive stratification (it->nreal > 0; the units op): the current
     iteration's units R and variance sums cvar, the previous iteration's
     Rp and cvp (fresh: the current ones are a finished iteration's, not
     yet moved there), a slice's unit variances uv, the allocation's
     weights w, counts n, tree and scan scratch (grown on demand) */
  long long *R, *Rp, *n;
  double *uv, *cvar, *cvp, *w, *tsc;
  void *scan;
  long long rcap, rpcap, ncap, uvcap, ccap, cpcap, wcap, tcap, scancap;
  int fresh;
};

static inline long long lmin(long long a, long long b)
{
  return a < b ? a : b;
}

/* ---- vegas.cu: the context ------------------------------------------- */
int gcuba_vc_dgrow(struct vctx *t, void **p, long long *cap, long long n,
                   size_t sz);

/* ---- vegas_reduce.cu: the canonical tree of gcuba/detail/vegas.h ----- */
__global__ void gcuba_vk_tree(const double *src, long long n, double *dst,
                              long long m);
__global__ void gcuba_vk_accum(double *tot, const double *src, int ncol);
__global__ void gcuba_vk_tree_all(const double *src, long long n,
                                  double *dst, long long m, double *tot,
                                  unsigned int *cnt);
/* the pipeline's (cuda/vegas_batch.cu): member blockIdx.x's tree of
   column blockIdx.y */
struct gcuba_vk_seg {
  const double *part; /* [ncol][n] chunk sums */
  long long n;
  double *t;          /* [ncol][tree_next(n)] scratch */
  double *tot;        /* [ncol] += the tree's result */
};
__global__ void gcuba_vk_tree_members(const struct gcuba_vk_seg *sg);

/* ---- vegas_bins.cu: the exact bin sums ------------------------------- */
struct gcuba_vk_bins_args {
  gcuba_vegas_strat_t s;
  unsigned long long seed;
  unsigned int iter;
  const ull *sobol; /* quasi-random points (gcuba_vegas_y), or NULL */
  unsigned long long qoff;
  int nb, ag;
  long long cube0, ncubes; /* the slice's cubes */
  long long s0, ns;        /* its first sample, its samples */
  const double *fj;
  const ull *qmax;
  ull *hi, *lo;
  const long long *R; /* adaptive stratification: the cubes' units */
  long long nreal;
  double *d;          /* the pipeline's: the bin contributions */
  double *ds;         /* ... and their gcuba_vegas_bin_sums per axis */
};
__global__ void gcuba_vk_bins_finish_members(
    const struct gcuba_vk_bins_args *B);
__global__ void gcuba_vk_bins_members(const struct gcuba_vk_bins_args *B,
                                      const long long *bbeg, int n);
int gcuba_vc_launch_bins(struct vctx *t, const gcuba_vegas_iter *it,
                         long long cube0, long long ncubes, long long s0,
                         long long ns);
__global__ void gcuba_vk_bins_finish(ull *hi, ull *lo, double *d, int ncell,
                                     const ull *qmax, long long ns,
                                     int first);

/* ---- vegas_refine.cu: the pipeline's refinements of its members' grids */
struct gcuba_vk_refine {
  double *e;        /* the grid, nb + 1 edges, refined in place */
  const double *d;  /* nrows x nb bin contributions */
  double *scratch;  /* GCUBA_VEGAS_GRID_SCRATCH_WARP(nb) doubles */
  int *left;        /* 1: left unchanged (no information) */
  double *edge;     /* the first and the last bin's widths after */
  int nb, nrows, mode;
};
/* r[0 .. n-1] refined, one warp each (blocks of whole warps) */
__global__ void gcuba_vk_refine(const struct gcuba_vk_refine *r, int n);
/* block i: grids G[i].dst (n values) from G[i].src, or, src NULL, the
   uniform grids of nb bins (gcuba_vegas_grid_init's values) */
struct gcuba_vk_gridin {
  double *dst;
  const double *src;
  int n, nb;
};
__global__ void gcuba_vk_grid_in(const struct gcuba_vk_gridin *G);

/* ---- vegas_sample.cu: an iteration (the ops' iterate) ----------------- */
int gcuba_vc_iterate(void *ctx, const gcuba_vegas_iter *it, double *sums,
                     double *d);

/* ---- vegas_strat.cu: adaptive stratification (the ops' units) --------- */
__global__ void gcuba_vk_cvar(const long long *R, long long nreal,
                              const double *uv, double *cvar, long long u0,
                              long long u1);
int gcuba_vc_units(void *ctx, const struct gcuba_vegas_units *u,
                   int64_t *nunits);
int gcuba_vc_units_get(void *ctx, int64_t nrp, int64_t *R, double *cvar);

#endif
