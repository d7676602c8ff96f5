/* cuda/cuhre_int.cuh -- what the files of the CUDA backend of the Cuhre
   driver share (cuhre.cu, cuhre_eval.cu, cuhre_apply.cu, cuhre_dist.cu,
   cuhre_state.cu): the exact sums, the store's layout, the
   classification's parameters, the device helpers, and the host
   functions one file calls in another.  This file is part of gcuba. */
#ifndef GCUBA_CUDA_CUHRE_INT_CUH
#define GCUBA_CUDA_CUHRE_INT_CUH

#include <limits.h>
#include <math.h>
#include "common.cuh"
#include "common/coll.h"
#include "cuhre/backend.h"
#include "gcuba/detail/cuhre_kernels.cuh"
#include "gcuba/detail/cut_kernels.cuh"

/* blocks of the reductions and fused passes: a fixed grid, so that every
   sum is taken in the same order on every run */
#define RED_BLOCKS 1024
/* regions split per iteration at least, per multiprocessor: a batch
   evaluated in one launch costs about the same as a smaller one
   (GCUBA_GPU_BATCH overrides, for experiments) */
#ifndef GCUBA_GPU_BATCH_PER_SM
#define GCUBA_GPU_BATCH_PER_SM 64
#endif
#define RED_THREADS 256
/* one dimension: regions evaluated per round (k_gk_points) */
#define GK_CHUNK (1LL << 16)

/* ---- exact sums ------------------------------------------------------------
   Each summed quantity q (avg or err of a component) has a scale from the
   largest |value| M_q among the leaves, taken in eval: every value is
   rounded to an integer number of units 2^s, s = e - 93 with M_q < 2^e,
   and the integers are added as 128-bit two's complement numbers.  With
   fewer than 2^31 terms below 2^93 units each the sum stays below 2^125;
   the rounding, at most half a unit per term, is at most 2^-63 M_q in all,
   far below a double's own rounding of a sum.  Integer addition does not
   depend on the order of the terms: the sums are the same bits whatever
   the grid, and however the leaves are divided among GPUs. */
typedef struct {
  unsigned long long lo, hi;
} x128;
#define X_NONFINITE INT_MIN /* a scale when some value is not finite */

GCUBA_HD static inline void x_add(x128 *a, x128 b)
{
  const unsigned long long l = a->lo + b.lo;
  a->hi += b.hi + (l < a->lo);
  a->lo = l;
}

GCUBA_HD static inline x128 x_neg(x128 a)
{
  x128 r;
  r.lo = ~a.lo + 1;
  r.hi = ~a.hi + (r.lo == 0);
  return r;
}

GCUBA_HD static inline double bits_double(unsigned long long b)
{
  union {
    unsigned long long u;
    double d;
  } v;
  v.u = b;
  return v.d;
}

GCUBA_HD static inline unsigned long long double_bits(double d)
{
  union {
    unsigned long long u;
    double d;
  } v;
  v.d = d;
  return v.u;
}

/* the scale of a quantity whose largest |value| has the bits maxbits
   (non-negative doubles order as their bits) */
GCUBA_HD static inline int x_scale(unsigned long long maxbits)
{
  const double m = bits_double(maxbits);
  int e;
  if (!(m <= 1.7976931348623157e308)) return X_NONFINITE;
  if (m == 0) return 0;
  frexp(m, &e);
  return e - 93;
}

/* a scale as two factors f1 f2 = 2^-s (each a double even where 2^-s is
   not), for the conversions of a kernel */
typedef struct {
  double f1, f2;
  int ok;
} xscale;

GCUBA_HD static inline xscale x_prep(unsigned long long maxbits)
{
  const int s = x_scale(maxbits), k = s == X_NONFINITE ? 0 : -s;
  xscale p;
  p.ok = s != X_NONFINITE;
  p.f1 = ldexp(1.0, k / 2);
  p.f2 = ldexp(1.0, k - k / 2);
  return p;
}

/* x in units 2^s, rounded to the nearest integer (the scalings are exact
   but in the subnormal range, the same on every GPU) */
GCUBA_HD static inline x128 x_from(double x, xscale p)
{
  x128 r;
  double y, h;
  r.lo = r.hi = 0;
  if (!p.ok) return r;
  y = fabs(x) * p.f1 * p.f2; /* < 2^93 */
  h = floor(y * 0x1p-64);
  r.hi = (unsigned long long)h;
  r.lo = (unsigned long long)rint(y - h * 0x1p64); /* exact difference */
  return x < 0 ? x_neg(r) : r;
}

GCUBA_HD static inline double x_double(x128 v, int s)
{
  const int neg = (long long)v.hi < 0;
  double d;
  if (s == X_NONFINITE) return NAN;
  if (neg) v = x_neg(v);
  d = ldexp((double)v.hi, 64) + (double)v.lo;
  d = ldexp(d, s);
  return neg ? -d : d;
}

/* host staging of the exchanges through MPI: pinned memory where CUDA
   gives it (its copies run at full speed and asynchronously), else
   malloc'ed; it grows by half again, never shrinks, keeps no contents */
typedef struct {
  unsigned char *p;
  size_t cap;
  int pinned;
} hostbuf;

/* Leaves, structure of arrays: lower corners, widths, results.  Widths
   are powers of two while every split is a bisection: wk holds the
   exponent, w = 2^-wk, which takes a quarter of the memory of a double
   and is exact.  A call whose regions are cut off the middle (detail/cut.h:
   its scan found a feature) holds them as doubles, w, from its first
   split on (gpu.wd); the other pointer is NULL. */
typedef struct {
  double *lo, *avg, *err;
  double *w;
  unsigned short *wk;
  int *dims;
} darrays;

typedef struct {
  gcuba_call *c;
  gcuba_rule rule;
  int ndim, ncomp, np, nsm, ustride;
  long long n, nold, cap, maxregions;
  int haveparents;
  long long minbatch_;
  int dev;
  cudaStream_t stream;
  darrays a, b;
  double *pavg, *perr;      /* [cap/2*ncomp] */
  unsigned char *cls;       /* [cap] */
  long long *mark, *pos;    /* [cap]: (split << 32 | keep) per leaf,
                               and its exclusive scan */
  gcuba_rule *drule;
  double *du;               /* [ndim*ustride] the rule's points */
  double *dx, *df;          /* ndim = 1: [GK_CHUNK*nevals] points and
                               [GK_CHUNK*nevals*ncomp] values */
  double *dsum;             /* [DSUM_DOUBLES] then the histogram: */
  long long *dhcount;       /* [GCUBA_HIST_BINS], in the same block */
  unsigned int *dticket;    /* blocks done, for the last block's merge */
  int *dstatus;
  void *dtemp;              /* CUB temporary storage */
  size_t tempbytes;
  void *duser;              /* userdata as the kernels see it */
  void *udcopy;             /* our copy of host userdata (kept with the
                               context), udcap bytes */
  size_t udcap;
  double *hbuf;             /* pinned host staging: HBUF_DOUBLES */
  cudaEvent_t ev[2];        /* around the rule kernel (verbosity >= 2) */
  double kms;               /* the rule kernel's milliseconds, this call */
  /* the histogram computed with the last eval, for the classification
     the driver announced (hint): used by hist when it asks for that one */
  int spec;                 /* 1: queued with the next eval; 2: ready */
  gcuba_classify spec_cl;   /* relfinish, epsrel, epsabs of the hint */
  double spec_fin[GCUBA_CUHRE_GPU_MAXCOMP];
  double spec_budget[GCUBA_CUHRE_GPU_MAXCOMP];
  /* exact sums: the largest |avg_c|, |err_c| (bits) [2*MAXCOMP], the
     sums (XS_*), both after dsum's histogram; the blocks' parts
     [RED_BLOCKS*2*MAXCOMP]; hx mirrors dmax and dxs in hbuf (HX_*); hmax:
     the scales' maxima of this iteration on the host */
  unsigned long long *dmax, *hx;
  x128 *dxs, *dxpart;
  unsigned long long hmax[2 * GCUBA_CUHRE_GPU_MAXCOMP];
  /* the distributed store (collective calls): global leaves gn, of which
     gnold are evaluated; this member's leaves [0, seg) are its share of
     the kept ones, [seg, n) of the new ones, gfirst the place of its first
     new leaf in the one-GPU order; xs, xr the records sent and received
     (xcap records of rbytes), hs, hr their host copies (MPI) */
  int dist;
  long long gn, gnold, seg, gfirst;
  int kbytes, pbytes, rbytes;
  unsigned char *xs, *xr;
  long long xscap, xrcap;
  hostbuf hs, hr;
  long long *hg;            /* [size * HG_REC] gathered records */
  long long *plan;          /* [PLAN_PER * size] */
  int hgsize;               /* the members hg and plan have room for */
  /* the replicated store of a collective call (before its regions outgrow
     one GPU): the new regions' results of every member, staged on the
     host (MPI), and the shares */
  hostbuf xh;
  long long *xcnt;          /* [2 * members] */
  int xcntcap;
  long long repmax;         /* the fewest regions a member holds: a
                               replicated store beyond it is distributed
                               (-1: not agreed yet) */
  /* the search for where to cut (gcuba/detail/cut.h), one block allocated at
     its first use (sbuf): up to GCUBA_CUT_MAXSEARCH regions' corners and
     widths [j*ndim + d], cuts and axes, and the search's evaluations and
     status (stail[0], stail[1]); the cube's scan lays out its few boxes
     in the same block (search); sh: its pinned host copy */
  void *sbuf;
  double *slo, *sw, *scut;
  int *sax;
  unsigned long long *stail;
  hostbuf sh;
  int wd; /* widths as doubles (darrays) */
  double *pw[2];          /* the other form's widths of a and b, [cap * */
  unsigned short *pwk[2]; /* ndim], parked for the next switch (NULL:
                             none): a sweep of calls of which some cut
                             allocates nothing (gcuba_cz_set_widths) */
} gpu;

/* hx: the maxima at HX_MAX, the sums of eval, hist and apply after */
#define XS_SUM 0
#define XS_REL (2 * GCUBA_CUHRE_GPU_MAXCOMP)
#define XS_FIN (3 * GCUBA_CUHRE_GPU_MAXCOMP)
#define XS_N (5 * GCUBA_CUHRE_GPU_MAXCOMP + 2) /* XS_FIN: then the split
                                                  and kept counts */
#define HX_MAX 0
#define HX_XS (2 * GCUBA_CUHRE_GPU_MAXCOMP)
#define HG_REC (GCUBA_HIST_BINS + 4 * GCUBA_CUHRE_GPU_MAXCOMP + 4)
#define PLAN_PER 20

enum { KEEP = GCUBA_LEAF_KEEP, FIN = GCUBA_LEAF_FIN, SPLIT = GCUBA_LEAF_SPLIT };
/* dsum (device) and its host mirror hbuf: the sums of eval as doubles
   [2*ncomp] at 0 (what the hint's histogram forms its budget from), the
   status at DS_MISC; then the histogram [BINS] */
#define DSUM_DOUBLES 64
#define DS_MISC (2 * GCUBA_CUHRE_GPU_MAXCOMP)
#define HBUF_DOUBLES (DSUM_DOUBLES + GCUBA_HIST_BINS)
#define HBUF_HIST DSUM_DOUBLES
/* after them the maxima and the exact sums (hx and dmax, dxs below): one
   block, so that one copy brings back what a step needs */
#define RES_BYTES                                                      \
  (sizeof(double) * HBUF_DOUBLES +                                     \
   sizeof(unsigned long long) * (2 * GCUBA_CUHRE_GPU_MAXCOMP) +         \
   sizeof(x128) * XS_N)
#define MARK_SPLIT (1LL << 32)
#define MARK_KEEP 1LL

#define CK(call)                              \
  do {                                        \
    int rc_ = GCUBA_CK(t->c, call);           \
    if (rc_) return rc_;                      \
  } while (0)
#define CKL(what)                             \
  do {                                        \
    int rc_ = GCUBA_CK_LAUNCH(t->c, what);    \
    if (rc_) return rc_;                      \
  } while (0)

/* the sum of the block's threads' v (sl, sh: shared scratch), in thread
   0's result */
__device__ static x128 block_xsum(x128 v, unsigned long long *sl,
                                  unsigned long long *sh)
{
  x128 r;
  sl[threadIdx.x] = v.lo;
  sh[threadIdx.x] = v.hi;
  __syncthreads();
  for (int h = blockDim.x / 2; h > 0; h /= 2) {
    if (threadIdx.x < h) {
      x128 a, b;
      a.lo = sl[threadIdx.x];
      a.hi = sh[threadIdx.x];
      b.lo = sl[threadIdx.x + h];
      b.hi = sh[threadIdx.x + h];
      x_add(&a, b);
      sl[threadIdx.x] = a.lo;
      sh[threadIdx.x] = a.hi;
    }
    __syncthreads();
  }
  r.lo = sl[0];
  r.hi = sh[0];
  __syncthreads(); /* before the scratch is written again */
  return r;
}

/* The block's sums of v[0..nv) (one x128 per thread) go to
   part[blockIdx.x * nv + j]; the last block to finish adds the parts into
   out[j] (threads j < nv) and rearms the ticket.  Integer sums: the order
   does not matter. */
__device__ static int xreduce(const x128 *v, int nv, x128 *part, x128 *out,
                              unsigned int *ticket)
{
  __shared__ unsigned long long sl[RED_THREADS], sh[RED_THREADS];
  __shared__ int last;
  for (int j = 0; j < nv; ++j) {
    const x128 b = block_xsum(v[j], sl, sh);
    if (threadIdx.x == 0) part[blockIdx.x * nv + j] = b;
  }
  __threadfence();
  if (threadIdx.x == 0) last = atomicAdd(ticket, 1u) == gridDim.x - 1;
  __syncthreads();
  if (!last) return 0;
  __threadfence();
  /* the last block adds the parts, every thread some blocks' (read past
     L1: other blocks wrote them) */
  for (int j = 0; j < nv; ++j) {
    const unsigned long long *p = (const unsigned long long *)part;
    x128 acc;
    acc.lo = acc.hi = 0;
    for (unsigned b = threadIdx.x; b < gridDim.x; b += blockDim.x) {
      x128 q;
      q.lo = __ldcg(p + 2 * (b * nv + j));
      q.hi = __ldcg(p + 2 * (b * nv + j) + 1);
      x_add(&acc, q);
    }
    acc = block_xsum(acc, sl, sh);
    if (threadIdx.x == 0) out[j] = acc;
  }
  if (threadIdx.x == 0) *ticket = 0;
  return 1;
}

/* the classification's parameters, by value (budget included: no copy to
   the device per step) */
struct dclassify {
  int relfinish, ndim;
  long long split_max;
  double epsrel, epsabs, fin_thresh, split_thresh;
  double budget[GCUBA_CUHRE_GPU_MAXCOMP];
  /* spec: the budget is the driver's, computed here from the sums of
     k_sums (sums[c]) and the finished estimates fin[c], with the call's
     epsrel and epsabs (gcuba_budget, as the driver) */
  int spec;
  double fin[GCUBA_CUHRE_GPU_MAXCOMP], ceps[2];
};

/* the class of leaf i (gcuba/detail/cuhre_policy.h), and its key */
__device__ static int d_classify(const darrays a, long long i, int ncomp,
                                 const dclassify &cl, double *key)
{
  gcuba_classify k;
  double vol;
  int comp;
  k.relfinish = cl.relfinish;
  k.epsrel = cl.epsrel;
  k.epsabs = cl.epsabs;
  k.fin_thresh = cl.fin_thresh;
  k.split_thresh = cl.split_thresh;
  k.split_max = cl.split_max;
  k.budget = cl.budget;
  k.nocut = 0;
  /* the leaf's volume: the same bits as the product of its widths */
  if (a.wk) {
    int e = 0;
    for (int d = 0; d < cl.ndim; ++d) e += a.wk[i * cl.ndim + d];
    vol = ldexp(1.0, -e);
  } else
    vol = gcuba_leaf_vol(a.w + i * cl.ndim, cl.ndim);
  return gcuba_cuhre_leaf(a.avg + i * ncomp, a.err + i * ncomp, ncomp, vol,
                          &k, cl.budget, key, &comp);
}

/* where split leaf i is cut: at a known feature it straddles (*q its
   fraction), else along its split axis, in the middle, or with search,
   *q = -1 - the component that chose the axis, for the search to find
   (gcuba/detail/cut.h); the axis */
__device__ static int d_cut(const darrays &a, long long i, int ndim, int ncomp,
                     const dclassify &cl, const gcuba_cutmap *cm, int search,
                     double *q)
{
  gcuba_cutmap none;
  int comp = 0, ax;
  gcuba_cuhre_key(a.err + i * ncomp, ncomp, cl.budget, &comp);
  /* widths as exponents: no feature known yet (to_doubles) */
  if (!a.w) {
    gcuba_cutmap_init(&none);
    cm = &none;
  }
  if (gcuba_cuhre_cut_leaf(cm, ndim, a.lo + i * ndim,
                           a.w ? a.w + i * ndim : NULL,
                           gcuba_rule_axis(a.dims[i * ncomp + comp]), search,
                           &ax, q))
    *q = -1.0 - comp;
  return ax;
}

/* ---- across the files ---------------------------------------------------- */
int gcuba_cz_agree_repmax(gpu *t);
int gcuba_cz_apply(void *ctx, const gcuba_classify *cl, double *finavg,
                 double *finerr);
int gcuba_cz_apply_dist(gpu *t, const gcuba_classify *cl, double *finavg,
                      double *finerr);
int gcuba_cz_convert_dist(gpu *t);
int gcuba_cz_cut_buffers(gpu *t);
int gcuba_cz_cut_search_block(gpu *t, long long nj, unsigned long long *nev);
gcuba_cutmap gcuba_cz_cutmap(const gpu *t);
dclassify gcuba_cz_dcl(const gcuba_call *c, const gcuba_classify *cl);
int gcuba_cz_eval(void *ctx, double *sumavg, double *sumerr);
void gcuba_cz_drop_parked(gpu *t);
void gcuba_cz_free_arrays(darrays *a);
void gcuba_cz_free_store(gpu *t);
int gcuba_cz_gather_rec(gpu *t, int n);
int gcuba_cz_get_xs(gpu *t, int k, int n);
void gcuba_cz_hint(void *ctx, const gcuba_classify *cl, const double *finavg);
int gcuba_cz_hist(void *ctx, const gcuba_classify *cl, gcuba_hist *h,
                double *relerr);
int gcuba_cz_hostbuf_grow(hostbuf *b, size_t n);
int gcuba_cz_hscale(const gpu *t, int q);
x128 gcuba_cz_hxs(const gpu *t, int k);
int gcuba_cz_load(void *ctx, const gcuba_region_set *s0);
int gcuba_cz_load_dist(gpu *t, const gcuba_region_set *s,
                     gcuba_region_set *sub, double **buf);
unsigned gcuba_cz_nblocks(long long n, int threads);
long long gcuba_cz_nnew(void *ctx);
void gcuba_cz_put_x(gpu *t, int n, int k, x128 v);
x128 gcuba_cz_rec_x(const gpu *t, int r, int n, int k);
unsigned gcuba_cz_red_blocks(long long n);
int gcuba_cz_reserve(gpu *t, long long n);
int gcuba_cz_reserve_dist(gpu *t, long long n);
int gcuba_cz_reserve_xs(gpu *t);
int gcuba_cz_save(void *ctx, gcuba_region_set *s);
int gcuba_cz_save_dev(void *ctx, gcuba_region_set *s);
int gcuba_cz_save_dist(gpu *t, gcuba_region_set *s);
int gcuba_cz_save_local(gpu *t, gcuba_region_set *s);
int gcuba_cz_set_widths(gpu *t, int wd);
int gcuba_cz_to_doubles(gpu *t);
int gcuba_cz_search(void *ctx, int n, const double *lo, const double *w,
                    const int *ax, double *cut, int *found, double *jump);
/* k_mark over the leaves under d (cuhre_apply.cu); 0 or a fail code */
int gcuba_cz_mark(gpu *t, const dclassify *d);

#endif
