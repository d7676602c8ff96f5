/* gcuba/detail/cut_kernels.cuh -- gCuhre's search for where to cut a region
   (gcuba/detail/cut.h) on the GPU, instantiated per integrand by kernels.cuh:
   one warp per region runs the search's rounds, its lanes evaluating a
   round's points at once.  The library's CUDA backend (cuda/cuhre.cu) chooses
   the regions, their axes and components.  This file is part of gcuba. */
#ifndef GCUBA_CUT_KERNELS_CUH
#define GCUBA_CUT_KERNELS_CUH

#include "gcuba/detail/cut.h"
#include "gcuba/detail/cuhre_kernels.cuh"

struct gcuba_cut_launch {
  int ndim, ncomp;
  long long n;                /* regions [0, n) */
  const double *lo, *w;       /* [i*ndim + d] lower corner, width */
  const int *ax;              /* [i] the axis to search along */
  double *cut;                /* [i] in: -1 - comp to search region i on
                                 component comp, >= 0 to leave it; out:
                                 the fraction of the width to cut at */
  int *found;                 /* NULL, or [i]: 1 when cut[i] is at a jump
                                 or a kink, 2 at a jump with a second
                                 one on the line */
  unsigned long long *nev;    /* evaluations, added */
  void *userdata;             /* device-accessible */
  int *status;                /* GCUBA_ST_ABORT, OR-ed */
  /* NULL for one call.  Many integrals (gCuhreBatch): region i belongs
     to integral own[i], whose userdata is userdata + own[i] * ustep, and
     whose evaluations and status go to nev[own[i]] and status[own[i]] */
  const int *own;
  unsigned long long ustep;
  double *jump;               /* NULL, or [i]: gcuba_cut_jump */
};

/* warps per block of the search kernel, one region each */
#define GCUBA_CUT_WARPS 2

template <class F>
__global__ void __launch_bounds__(32 * GCUBA_CUT_WARPS)
    gcuba_k_cut(const gcuba_cut_launch a)
{
  /* a round's points are evaluated by the warp's lanes at once; lane 0
     takes their values and asks for the next round */
  __shared__ double sx[GCUBA_CUT_WARPS][GCUBA_CUT_MAXPTS];
  __shared__ double sg[GCUBA_CUT_WARPS][GCUBA_CUT_MAXPTS];
  __shared__ int sn[GCUBA_CUT_WARPS], sbad[GCUBA_CUT_WARPS];
  const int wp = threadIdx.x >> 5, lane = threadIdx.x & 31;
  const long long i = (long long)blockIdx.x * GCUBA_CUT_WARPS + wp;
  if (i >= a.n) return;
  const double c0 = a.cut[i];
  if (!(c0 < 0)) return;
  const int ndim = a.ndim, ax = a.ax[i], comp = -1 - (int)c0;
  const int b = a.own ? a.own[i] : 0;
  const double *lo = a.lo + i * ndim, *w = a.w + i * ndim;
  void *ud = a.own ? (char *)a.userdata + (unsigned long long)b * a.ustep
                   : a.userdata;
  double x[GCUBA_RULE_MAXDIM], f[GCUBA_CUHRE_GPU_MAXCOMP];
  gcuba_cut cs;
  unsigned long long nev = 0;
  int nd = ndim, nc = a.ncomp, d;
  /* the points as the host forms them, without a fused multiply-add */
  for (d = 0; d < ndim; ++d) x[d] = __dadd_rn(lo[d], __dmul_rn(w[d], 0.5));
  gcuba_cut_init(&cs);
  if (lane == 0) {
    sn[wp] = gcuba_cut_points(&cs, sx[wp]);
    sbad[wp] = 0;
  }
  __syncwarp();
  while (sn[wp] > 0) {
    const int n = sn[wp];
    if (lane < n) {
      x[ax] = __dadd_rn(lo[ax], __dmul_rn(w[ax], sx[wp][lane]));
      if (F::call(&nd, x, &nc, f, ud) == -999)
        atomicOr(&sbad[wp], 2);
      sg[wp][lane] = f[comp];
      /* not finite off the rule's points: the rule's values tell */
      if (!isfinite(f[comp])) atomicOr(&sbad[wp], 1);
    }
    __syncwarp();
    if (lane == 0) {
      nev += n;
      if (sbad[wp])
        sn[wp] = 0;
      else {
        gcuba_cut_take(&cs, sg[wp]);
        sn[wp] = gcuba_cut_points(&cs, sx[wp]);
      }
    }
    __syncwarp();
  }
  if (lane != 0) return;
  if (sbad[wp] & 2) {
    atomicOr(&a.status[b], GCUBA_ST_ABORT);
    return;
  }
  {
    const int done = !sbad[wp] && cs.phase == GCUBA_CUT_DONE;
    a.cut[i] = done ? cs.cut : 0.5;
    if (a.found) a.found[i] = done ? cs.found : 0;
    if (a.jump) a.jump[i] = done ? gcuba_cut_jump(&cs) : 0;
  }
  atomicAdd(&a.nev[b], nev);
}

template <class F>
static int gcuba_cut_launch_search(const gcuba_cut_launch *a, void *stream)
{
  if (a->n <= 0) return 0;
  gcuba_k_cut<F><<<(unsigned)((a->n + GCUBA_CUT_WARPS - 1) /
                              GCUBA_CUT_WARPS),
                   32 * GCUBA_CUT_WARPS, 0, (cudaStream_t)stream>>>(*a);
  return (int)cudaPeekAtLastError();
}

#endif /* GCUBA_CUT_KERNELS_CUH */
