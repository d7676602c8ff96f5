/* gcuba/cuhre_batch.cuh -- gCuhreBatch's GPU pipeline: the whole adaptive
   loop of many integrals in one kernel launch, instantiated per integrand
   by GCUBA_INTEGRAND (the integrand is inlined).

   A thread block (four warps) takes one integral at a time from a shared
   counter and runs gCuhre's loop for it to the end: the same rule and
   error estimate (gcuba_cuhre_region, two-level correction, boundary
   probes), the same region policy (gcuba/cuhre_policy.h: start, full
   splits, relative-error finishing, histogram thresholds, budget), with
   the CPU backend's region order (kept leaves first, then the children
   of the split ones) and its minimum batch of 32.  The regions live in
   the block's slab of device memory, two partitions of `maxregions'
   leaves.  An integral whose partition would outgrow its slab stops with
   status GCUBA_BATCH_DEFER and the library runs it as a single call.

   Every sum is taken in a fixed order (per thread over a contiguous run
   of leaves, then over the threads in order), so an integral's answer
   depends only on its own arguments, not on the block that takes it or
   the integrals beside it.  It is not the bits of a single call: the
   single call's backends sum in another order.  This file is part of
   gcuba. */
#ifndef GCUBA_CUHRE_BATCH_CUH
#define GCUBA_CUHRE_BATCH_CUH

#include <cuda_runtime.h>
#include "gcuba/cuhre_kernels.cuh"
#include "gcuba/cuhre_policy.h"
#include "gcuba/combine.h"

#define GCUBA_BATCH_BLOCK 128
#define GCUBA_BATCH_WARPS (GCUBA_BATCH_BLOCK / 32)
/* the CPU backend's fewest regions per split (cuhre_cpu.c) */
#define GCUBA_BATCH_MINBATCH 32

/* per-integral outcome (status[]) */
enum {
  GCUBA_BATCH_OK = 0,       /* converged */
  GCUBA_BATCH_MAXEVAL = 1,  /* fail 1: maxeval reached */
  GCUBA_BATCH_FINERR = 2,   /* fail 1: finished errors above tolerance */
  GCUBA_BATCH_DEFER = 3,    /* the slab is too small: run it alone */
  GCUBA_BATCH_ABORT = 4,    /* the integrand returned -999 */
  GCUBA_BATCH_NAN = 5       /* the integrand gave NaN or Inf */
};

struct gcuba_cuhre_batch_launch {
  int ndim, ncomp, nint;       /* integrals [0, nint) */
  const gcuba_rule *rule;      /* device copy */
  const double *u;             /* rule points, as gcuba_cuhre_launch's */
  int ustride, nsets, npoints, nprobe;
  char *userdata;              /* integral b's: userdata + b * stride */
  unsigned long long stride;
  double epsrel, epsabs;
  int relfinish;               /* 0: GCUBA_NORELFINISH */
  long long mineval, maxeval;
  long long maxregions;        /* leaves one slab holds */
  char *slab;                  /* nblocks slabs of slabbytes */
  unsigned long long slabbytes;
  int nblocks;                 /* slabs: the grid is at most this */
  unsigned int *next;          /* work counter, 0 at launch */
  /* results, [b * ncomp + c] and [b] */
  double *integral, *error;
  gcuba_vegas_combine_t *chi;  /* the iteration totals' combination */
  long long *neval, *nregions, *iters;
  int *status;
  /* query: when nonzero, the launcher only stores the most blocks the
     card holds at once in *query and launches nothing */
  int *query;
};

/* the slab of one block: two partitions (lo, avg, err, dims, wk), the
   parents of the new leaves (avg, err), a class per leaf, and the key
   histogram; offsets aligned to 16 bytes */
struct gcuba_batch_slab {
  double *lo[2], *avg[2], *err[2], *pavg, *perr;
  int *dims[2];
  unsigned short *wk[2];
  unsigned char *cls;
  gcuba_hist *hist;
};

GCUBA_HD static inline unsigned long long gcuba_batch_slab_layout(
    char *base, int ndim, int ncomp, long long m, struct gcuba_batch_slab *s)
{
  unsigned long long off = 0;
  int k;
#define GCUBA_BATCH_TAKE_(ptr, type, count)                                \
  do {                                                                    \
    if (s) ptr = (type *)(base + off);                                    \
    off += ((unsigned long long)(count) * sizeof(type) + 15) / 16 * 16;   \
  } while (0)
  for (k = 0; k < 2; ++k) {
    GCUBA_BATCH_TAKE_(s->lo[k], double, m * ndim);
    GCUBA_BATCH_TAKE_(s->avg[k], double, m * ncomp);
    GCUBA_BATCH_TAKE_(s->err[k], double, m * ncomp);
    GCUBA_BATCH_TAKE_(s->dims[k], int, m * ncomp);
    GCUBA_BATCH_TAKE_(s->wk[k], unsigned short, m * ndim);
  }
  GCUBA_BATCH_TAKE_(s->pavg, double, (m / 2 + 1) * ncomp);
  GCUBA_BATCH_TAKE_(s->perr, double, (m / 2 + 1) * ncomp);
  GCUBA_BATCH_TAKE_(s->cls, unsigned char, m);
  GCUBA_BATCH_TAKE_(s->hist, gcuba_hist, 1);
#undef GCUBA_BATCH_TAKE_
  return off;
}

#ifdef __CUDACC__

/* the block's scalar state (shared memory) */
template <int NC> struct gcuba_batch_state {
  long long n, nold, iter, neval, nfinished, nregions;
  int b, small, nfull, haveparents, code, again, phase;
  double relfrac, excess;
  gcuba_classify cl;
  double finavg[NC], finerr[NC], sumavg[NC], sumerr[NC], tot[NC], err[NC],
      budget[NC], prev[NC], e[NC];
  int pconv[NC];
  gcuba_vegas_combine_t chi[NC];
};

enum { GCUBA_BATCH_FIN = 0, GCUBA_BATCH_KEEP = 1, GCUBA_BATCH_SPLIT = 2 };

/* key of leaf i (max_c err_c / budget_c) and the component that sets it */
__device__ static inline double gcuba_batch_key(const double *err, int nc,
                                                long long i,
                                                const double *budget,
                                                int *comp)
{
  double k = -1;
  for (int c = 0; c < nc; ++c) {
    const double r = err[i * nc + c] / budget[c];
    if (r > k) {
      k = r;
      *comp = c;
    }
  }
  return k;
}

/* finished by relative error (cl's relfinish part) */
__device__ static inline bool gcuba_batch_relfin(const double *avg,
                                                 const double *err, int nc,
                                                 long long i,
                                                 const gcuba_classify *cl)
{
  if (!cl->relfinish) return false;
  for (int c = 0; c < nc; ++c) {
    const double a = fabs(avg[i * nc + c]) * cl->epsrel;
    if (err[i * nc + c] > (a > cl->epsabs ? a : cl->epsabs)) return false;
  }
  return true;
}

/* exclusive prefix sums of v[0 .. GCUBA_BATCH_BLOCK), in place, by one
   thread; returns the total */
__device__ static inline long long gcuba_batch_scan(long long *v)
{
  long long s = 0;
  for (int t = 0; t < GCUBA_BATCH_BLOCK; ++t) {
    const long long x = v[t];
    v[t] = s;
    s += x;
  }
  return s;
}

template <class F, int NC, int NDIM>
__global__ void __launch_bounds__(GCUBA_BATCH_BLOCK)
    gcuba_k_cuhre_batch(const struct gcuba_cuhre_batch_launch a)
{
  extern __shared__ double gcuba_smem_[];
  __shared__ gcuba_batch_state<NC> S;
  __shared__ unsigned int hcount[GCUBA_HIST_BINS];
  __shared__ double red[2 * NC * GCUBA_BATCH_BLOCK];
  __shared__ long long cnt1[GCUBA_BATCH_BLOCK], cnt2[GCUBA_BATCH_BLOCK];
  const int tid = threadIdx.x, warp = tid >> 5;
  const int ndim = NDIM > 0 ? NDIM : a.ndim, nc = NC == 1 ? 1 : a.ncomp;
  const int np = a.npoints + a.nprobe; /* gcuba_rule_nevals */
  const long long M = a.maxregions;
  struct gcuba_batch_slab sl;
  gcuba_batch_slab_layout(a.slab + (unsigned long long)blockIdx.x *
                                       a.slabbytes,
                          ndim, nc, M, &sl);
  gcuba_hist *h = sl.hist;

  for (;;) {
    if (tid == 0) S.b = (int)atomicAdd(a.next, 1u);
    __syncthreads();
    const int b = S.b;
    if (b >= a.nint) break;
    int cur = 0; /* the partition in use: sl.*[cur] */
    /* ---- start: as the driver's run() ---- */
    if (tid == 0) {
      const double nuni = (double)np * (1 << (ndim < 10 ? ndim : 10));
      S.small = !(a.maxeval >= GCUBA_CUHRE_LARGE * nuni);
      S.nfull = S.small ? 1 : GCUBA_CUHRE_NFULL;
      S.n = S.small ? 1 : 1LL << (ndim < 10 ? ndim : 10);
      S.nold = 0;
      S.iter = S.neval = S.nfinished = S.nregions = 0;
      S.haveparents = 0;
      S.code = -1;
      S.relfrac = gcuba_cuhre_relfrac0(a.rule->degree);
      for (int c = 0; c < nc; ++c) {
        S.finavg[c] = S.finerr[c] = S.tot[c] = S.err[c] = 0;
        S.prev[c] = 0;
        S.pconv[c] = 0;
        S.chi[c].n = 0;
        S.chi[c].wsum = S.chi[c].wisum = S.chi[c].ref = 0;
        S.chi[c].csum = S.chi[c].cisum = S.chi[c].last = S.chi[c].lastw = 0;
      }
      if (S.n > M / 2) S.code = GCUBA_BATCH_DEFER;
    }
    __syncthreads();
    if (S.code < 0)
      for (long long i = tid; i < S.n; i += GCUBA_BATCH_BLOCK)
        for (int d = 0; d < ndim; ++d) {
          const int two = !S.small && d < 10;
          sl.lo[0][i * ndim + d] = two ? 0.5 * (double)((i >> d) & 1) : 0.0;
          sl.wk[0][i * ndim + d] = (unsigned short)two;
        }
    __syncthreads();

    struct gcuba_cuhre_launch la;
    la.ndim = ndim;
    la.ncomp = nc;
    la.first = 0;
    la.rule = a.rule;
    la.u = a.u;
    la.ustride = a.ustride;
    la.nsets = a.nsets;
    la.npoints = a.npoints;
    la.nprobe = a.nprobe;
    la.wpr = 1;
    la.w = NULL; /* widths as exponents (wk) */
    la.userdata = a.userdata ? a.userdata + (unsigned long long)b * a.stride
                             : NULL;
    la.status = NULL;
    la.perr = NULL;
    la.pfirst = 0;

    while (S.code < 0) {
      const long long n = S.n, nold = S.nold;
      double *lo = sl.lo[cur], *avg = sl.avg[cur], *err = sl.err[cur];
      int *dims = sl.dims[cur];
      unsigned short *wk = sl.wk[cur];
      /* ---- evaluate the new leaves, one warp each ---- */
      la.lo = lo;
      la.wk = wk;
      la.avg = avg;
      la.err = err;
      la.dims = dims;
      la.n = n;
      la.perr = S.haveparents ? sl.perr : NULL;
      la.pfirst = nold;
      int st = 0;
      for (long long i = nold + warp; i < n; i += GCUBA_BATCH_WARPS) {
        st |= gcuba_cuhre_region<F, NC, NDIM>(la, i, true, 1, warp, warp,
                                              gcuba_smem_);
        /* the warp's lanes leave the region's last steps at different
           times: none may write the next region's centre and sums into
           the shared area while another still reads them */
        __syncwarp();
      }
      {
        /* __syncthreads_or gives a truth value, not the bits */
        const int ab = __syncthreads_or(st & GCUBA_ST_ABORT);
        const int nf = __syncthreads_or(st & GCUBA_ST_NONFINITE);
        if (ab || nf) {
          if (tid == 0) S.code = ab ? GCUBA_BATCH_ABORT : GCUBA_BATCH_NAN;
          __syncthreads();
          break;
        }
      }
      /* two-level error of each pair of children */
      if (S.haveparents)
        for (long long k = tid; k < (n - nold) / 2; k += GCUBA_BATCH_BLOCK)
          for (int c = 0; c < nc; ++c) {
            const long long i1 = (nold + 2 * k) * nc + c, i2 = i1 + nc;
            gcuba_twolevel(sl.pavg[k * nc + c], sl.perr[k * nc + c],
                           &avg[i1], &err[i1], &avg[i2], &err[i2]);
          }
      __syncthreads();
      /* sums over the leaves: each thread over its run, then in order */
      const long long chunk = (n + GCUBA_BATCH_BLOCK - 1) / GCUBA_BATCH_BLOCK;
      const long long i0 = tid * chunk < n ? tid * chunk : n;
      const long long i1 = i0 + chunk < n ? i0 + chunk : n;
      for (int c = 0; c < nc; ++c) {
        double sa = 0, se = 0;
        for (long long i = i0; i < i1; ++i) {
          sa += avg[i * nc + c];
          se += err[i * nc + c];
        }
        red[c * GCUBA_BATCH_BLOCK + tid] = sa;
        red[(NC + c) * GCUBA_BATCH_BLOCK + tid] = se;
      }
      __syncthreads();
      if (tid == 0) {
        int converged = 1, worst = 0;
        double excess = 0;
        S.neval += (n - nold) * np;
        S.nold = n;
        S.nregions = S.nfinished + n;
        for (int c = 0; c < nc; ++c) {
          double sa = 0, se = 0, r;
          for (int t = 0; t < GCUBA_BATCH_BLOCK; ++t) {
            sa += red[c * GCUBA_BATCH_BLOCK + t];
            se += red[(NC + c) * GCUBA_BATCH_BLOCK + t];
          }
          S.tot[c] = S.finavg[c] + sa;
          S.err[c] = S.finerr[c] + se;
          S.budget[c] = gcuba_budget(S.tot[c], a.epsrel, a.epsabs);
          r = S.err[c] / S.budget[c] - 1;
          S.pconv[c] = gcuba_cuhre_passes(S.tot[c], S.err[c], S.prev[c],
                                          S.budget[c])
                           ? S.pconv[c] + 1
                           : 0;
          if (S.pconv[c] < 1) converged = 0;
          S.prev[c] = S.tot[c];
          if (r > excess) {
            excess = r;
            worst = c;
          }
          gcuba_vegas_combine_add(&S.chi[c], S.tot[c], S.err[c] * S.err[c],
                                  2);
        }
        S.excess = excess;
        S.cl.budget = S.budget;
        S.phase = 0;
        if (converged && S.neval >= a.mineval && S.iter > 0)
          S.code = GCUBA_BATCH_OK;
        else if (n == 0 || S.finerr[worst] > S.budget[worst])
          S.code = GCUBA_BATCH_FINERR;
        else if (S.neval + 2 * np > a.maxeval)
          S.code = GCUBA_BATCH_MAXEVAL;
        else if ((S.iter < S.nfull || S.neval < a.mineval) &&
                 n <= (a.maxeval - S.neval) / (2 * np)) {
          /* split everything */
          S.cl.relfinish = 0;
          S.cl.fin_thresh = -1;
          S.cl.split_thresh = 0;
          S.cl.split_max = -1;
          if (2 * n > M) S.code = GCUBA_BATCH_DEFER;
        } else {
          S.phase = 1;
          S.cl.relfinish = a.relfinish && S.relfrac > 0;
          S.cl.epsrel = S.relfrac * a.epsrel;
          S.cl.epsabs = S.relfrac * a.epsabs;
        }
      }
      __syncthreads();
      if (S.code >= 0) break;
      if (S.phase == 1) {
        /* ---- the key histogram, lowering relative-error finishing as
           the driver's choose_thresholds does ---- */
        for (;;) {
          for (int j = tid; j < GCUBA_HIST_BINS; j += GCUBA_BATCH_BLOCK)
            hcount[j] = 0;
          __syncthreads();
          long long nrel = 0;
          double re[NC];
          for (int c = 0; c < nc; ++c) re[c] = 0;
          for (long long i = i0; i < i1; ++i) {
            int comp = 0;
            if (gcuba_batch_relfin(avg, err, nc, i, &S.cl)) {
              ++nrel;
              for (int c = 0; c < nc; ++c) re[c] += err[i * nc + c];
              continue;
            }
            atomicAdd(&hcount[gcuba_hist_bin(
                          gcuba_batch_key(err, nc, i, S.budget, &comp))],
                      1u);
          }
          for (int c = 0; c < nc; ++c) red[c * GCUBA_BATCH_BLOCK + tid] = re[c];
          cnt1[tid] = nrel;
          __syncthreads();
          for (int j = tid; j < GCUBA_HIST_BINS; j += GCUBA_BATCH_BLOCK) {
            h->count[j] = hcount[j];
            h->keysum[j] = gcuba_hist_keysum(hcount[j], j);
          }
          __syncthreads();
          if (tid == 0) {
            long long nr = 0;
            for (int t = 0; t < GCUBA_BATCH_BLOCK; ++t) nr += cnt1[t];
            h->nrel = nr;
            for (int c = 0; c < nc; ++c) {
              double s = 0;
              for (int t = 0; t < GCUBA_BATCH_BLOCK; ++t)
                s += red[c * GCUBA_BATCH_BLOCK + t];
              S.e[c] = s;
            }
            S.again = 0;
            if (S.cl.relfinish &&
                gcuba_cuhre_relfinish_over(nc, S.e, S.budget, S.finerr) <
                    nc) {
              S.relfrac /= GCUBA_CUHRE_RELSTEP;
              if (S.relfrac < GCUBA_CUHRE_RELMIN) S.relfrac = 0;
              S.cl.relfinish = a.relfinish && S.relfrac > 0;
              S.cl.epsrel = S.relfrac * a.epsrel;
              S.cl.epsabs = S.relfrac * a.epsabs;
              S.again = 1;
            }
            if (!S.again) {
              gcuba_cuhre_plan p;
              p.n = n;
              p.minbatch = GCUBA_BATCH_MINBATCH;
              p.neval = S.neval;
              p.maxeval = a.maxeval;
              p.maxregions = M;
              p.nevals = np;
              p.small = S.small;
              p.target = GCUBA_CUHRE_GAMMA * S.excess;
              if (gcuba_cuhre_plan_split(h, &p, &S.cl) || p.squeezed ||
                  p.evicted)
                S.code = GCUBA_BATCH_DEFER; /* memory: run it alone */
            }
          }
          __syncthreads();
          if (!S.again) break;
        }
        if (S.code >= 0) break;
      }
      /* ---- apply: classify, cap the split at split_max in leaf order,
         then kept leaves first and the children of the split ones ---- */
      long long ns = 0;
      for (long long i = i0; i < i1; ++i) {
        int comp = 0, k;
        if (gcuba_batch_relfin(avg, err, nc, i, &S.cl)) k = GCUBA_BATCH_FIN;
        else {
          const double key = gcuba_batch_key(err, nc, i, S.budget, &comp);
          k = key <= S.cl.fin_thresh ? GCUBA_BATCH_FIN
              : key >= S.cl.split_thresh ? GCUBA_BATCH_SPLIT
                                         : GCUBA_BATCH_KEEP;
        }
        sl.cls[i] = (unsigned char)k;
        ns += k == GCUBA_BATCH_SPLIT;
      }
      cnt1[tid] = ns;
      __syncthreads();
      if (tid == 0) gcuba_batch_scan(cnt1);
      __syncthreads();
      {
        long long rank = cnt1[tid], nk = 0;
        double fa[NC], fe[NC];
        ns = 0;
        for (int c = 0; c < nc; ++c) fa[c] = fe[c] = 0;
        for (long long i = i0; i < i1; ++i) {
          int k = sl.cls[i];
          if (k == GCUBA_BATCH_SPLIT && S.cl.split_max >= 0 &&
              rank++ >= S.cl.split_max)
            sl.cls[i] = (unsigned char)(k = GCUBA_BATCH_KEEP);
          if (k == GCUBA_BATCH_FIN)
            for (int c = 0; c < nc; ++c) {
              fa[c] += avg[i * nc + c];
              fe[c] += err[i * nc + c];
            }
          else if (k == GCUBA_BATCH_SPLIT) ++ns;
          else ++nk;
        }
        __syncthreads(); /* every rank read from cnt1 */
        cnt1[tid] = ns;
        cnt2[tid] = nk;
        for (int c = 0; c < nc; ++c) {
          red[c * GCUBA_BATCH_BLOCK + tid] = fa[c];
          red[(NC + c) * GCUBA_BATCH_BLOCK + tid] = fe[c];
        }
      }
      __syncthreads();
      if (tid == 0) {
        const long long nsplit = gcuba_batch_scan(cnt1);
        const long long nkeep = gcuba_batch_scan(cnt2);
        for (int c = 0; c < nc; ++c)
          for (int t = 0; t < GCUBA_BATCH_BLOCK; ++t) {
            S.finavg[c] += red[c * GCUBA_BATCH_BLOCK + t];
            S.finerr[c] += red[(NC + c) * GCUBA_BATCH_BLOCK + t];
          }
        S.nfinished += n - nkeep - nsplit;
        S.n = nkeep + 2 * nsplit;
        S.nold = nkeep;
        S.haveparents = 1;
        ++S.iter;
      }
      __syncthreads();
      {
        const int nxt = cur ^ 1;
        const long long nkeep = S.nold;
        long long kp = cnt2[tid], sp = cnt1[tid];
        for (long long i = i0; i < i1; ++i) {
          const int k = sl.cls[i];
          if (k == GCUBA_BATCH_KEEP) {
            for (int d = 0; d < ndim; ++d) {
              sl.lo[nxt][kp * ndim + d] = lo[i * ndim + d];
              sl.wk[nxt][kp * ndim + d] = wk[i * ndim + d];
            }
            for (int c = 0; c < nc; ++c) {
              sl.avg[nxt][kp * nc + c] = avg[i * nc + c];
              sl.err[nxt][kp * nc + c] = err[i * nc + c];
              sl.dims[nxt][kp * nc + c] = dims[i * nc + c];
            }
            ++kp;
          } else if (k == GCUBA_BATCH_SPLIT) {
            const long long q = nkeep + 2 * sp;
            int comp = 0;
            gcuba_batch_key(err, nc, i, S.budget, &comp);
            const int ax = gcuba_rule_axis(dims[i * nc + comp]);
            for (int d = 0; d < ndim; ++d) {
              const unsigned short w = wk[i * ndim + d] + (d == ax);
              const double l = lo[i * ndim + d];
              sl.lo[nxt][q * ndim + d] = l;
              sl.wk[nxt][q * ndim + d] = w;
              sl.lo[nxt][(q + 1) * ndim + d] =
                  d == ax ? l + ldexp(1.0, -(int)w) : l;
              sl.wk[nxt][(q + 1) * ndim + d] = w;
            }
            for (int c = 0; c < nc; ++c) {
              sl.pavg[sp * nc + c] = avg[i * nc + c];
              sl.perr[sp * nc + c] =
                  gcuba_rule_parent_err(err[i * nc + c], dims[i * nc + c]);
            }
            ++sp;
          }
        }
        cur = nxt;
      }
      __syncthreads();
    }
    /* ---- the integral's results ---- */
    if (tid == 0) {
      for (int c = 0; c < nc; ++c) {
        a.integral[(long long)b * nc + c] = S.tot[c];
        a.error[(long long)b * nc + c] = S.err[c];
        a.chi[(long long)b * nc + c] = S.chi[c];
      }
      a.neval[b] = S.neval;
      a.nregions[b] = S.nregions;
      a.iters[b] = S.iter + 1;
      a.status[b] = S.code;
    }
    __syncthreads();
  }
}

template <class F, int NC, int NDIM>
static int gcuba_cuhre_batch_launch1(const struct gcuba_cuhre_batch_launch *a,
                                     void *stream)
{
  const size_t smem = sizeof(double) * GCUBA_BATCH_WARPS *
                      gcuba_cuhre_warp_doubles(a->ndim, a->ncomp, a->nsets);
  int per = 0, dev = 0, nsm = 0;
  cudaError_t e;
  if (smem > 48 * 1024 &&
      (e = cudaFuncSetAttribute(gcuba_k_cuhre_batch<F, NC, NDIM>,
                                cudaFuncAttributeMaxDynamicSharedMemorySize,
                                (int)smem)) != cudaSuccess)
    return (int)e;
  if (a->query) {
    if ((e = cudaGetDevice(&dev)) != cudaSuccess ||
        (e = cudaDeviceGetAttribute(&nsm, cudaDevAttrMultiProcessorCount,
                                    dev)) != cudaSuccess ||
        (e = cudaOccupancyMaxActiveBlocksPerMultiprocessor(
             &per, gcuba_k_cuhre_batch<F, NC, NDIM>, GCUBA_BATCH_BLOCK,
             smem)) != cudaSuccess)
      return (int)e;
    *a->query = per * nsm;
    return 0;
  }
  gcuba_k_cuhre_batch<F, NC, NDIM>
      <<<(unsigned)a->nblocks, GCUBA_BATCH_BLOCK, smem,
         (cudaStream_t)stream>>>(*a);
  return (int)cudaPeekAtLastError();
}

template <class F>
static int gcuba_cuhre_batch_launch(const struct gcuba_cuhre_batch_launch *a,
                                    void *stream)
{
  if (a->ncomp > GCUBA_CUHRE_GPU_MAXCOMP || a->ndim < 2)
    return (int)cudaErrorInvalidValue;
  if (a->ncomp > 1)
    return gcuba_cuhre_batch_launch1<F, GCUBA_CUHRE_GPU_MAXCOMP, 0>(a,
                                                                     stream);
#if GCUBA_CUHRE_NDIMS
  if (a->ustride == GCUBA_CUHRE_USTRIDE(a->ndim)) switch (a->ndim) {
  case 2: return gcuba_cuhre_batch_launch1<F, 1, 2>(a, stream);
  case 3: return gcuba_cuhre_batch_launch1<F, 1, 3>(a, stream);
  case 4: return gcuba_cuhre_batch_launch1<F, 1, 4>(a, stream);
  case 5: return gcuba_cuhre_batch_launch1<F, 1, 5>(a, stream);
  case 6: return gcuba_cuhre_batch_launch1<F, 1, 6>(a, stream);
  case 7: return gcuba_cuhre_batch_launch1<F, 1, 7>(a, stream);
  case 8: return gcuba_cuhre_batch_launch1<F, 1, 8>(a, stream);
  }
#endif
  return gcuba_cuhre_batch_launch1<F, 1, 0>(a, stream);
}

#endif /* __CUDACC__ */
#endif /* GCUBA_CUHRE_BATCH_CUH */
