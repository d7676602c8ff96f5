/* gcuba/cut_kernels.cuh -- gCuhre's search for where to cut a region
   (gcuba/cut.h) on the GPU, instantiated per integrand by kernels.cuh:
   one thread per region runs the search's rounds, evaluating the
   integrand itself.  The library's CUDA backend (cuda/cuhre.cu) chooses
   the regions, their axes and components.  This file is part of gcuba. */
#ifndef GCUBA_CUT_KERNELS_CUH
#define GCUBA_CUT_KERNELS_CUH

#include "gcuba/cut.h"
#include "gcuba/cuhre_kernels.cuh"

struct gcuba_cut_launch {
  int ndim, ncomp;
  long long n;                /* regions [0, n) */
  const double *lo, *w;       /* [i*ndim + d] lower corner, width */
  const int *ax;              /* [i] the axis to search along */
  double *cut;                /* [i] in: -1 - comp to search region i on
                                 component comp, >= 0 to leave it; out:
                                 the fraction of the width to cut at */
  int *found;                 /* NULL, or [i]: 1 when cut[i] is at a jump
                                 or a kink */
  unsigned long long *nev;    /* evaluations, added */
  void *userdata;             /* device-accessible */
  int *status;                /* GCUBA_ST_ABORT, OR-ed */
};

template <class F>
__global__ void gcuba_k_cut(const gcuba_cut_launch a)
{
  const long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= a.n) return;
  const double c0 = a.cut[i];
  if (!(c0 < 0)) return;
  const int ndim = a.ndim, ncomp = a.ncomp, ax = a.ax[i];
  const int comp = -1 - (int)c0;
  const double *lo = a.lo + i * ndim, *w = a.w + i * ndim;
  double x[GCUBA_RULE_MAXDIM], f[GCUBA_CUHRE_GPU_MAXCOMP];
  double s[GCUBA_CUT_MAXPTS], g[GCUBA_CUT_MAXPTS];
  gcuba_cut cs;
  unsigned long long nev = 0;
  int n, p, d, nd = ndim, nc = ncomp;
  double res = 0.5;
  /* the points as the host forms them, without a fused multiply-add */
  for (d = 0; d < ndim; ++d) x[d] = __dadd_rn(lo[d], __dmul_rn(w[d], 0.5));
  gcuba_cut_init(&cs);
  while ((n = gcuba_cut_points(&cs, s)) > 0) {
    int bad = 0;
    for (p = 0; p < n; ++p) {
      x[ax] = __dadd_rn(lo[ax], __dmul_rn(w[ax], s[p]));
      if (F::call(&nd, x, &nc, f, a.userdata) == -999) {
        atomicOr(a.status, GCUBA_ST_ABORT);
        return;
      }
      g[p] = f[comp];
      /* not finite off the rule's points: the rule's values tell */
      if (!isfinite(g[p])) bad = 1;
    }
    nev += n;
    if (bad) break;
    gcuba_cut_take(&cs, g);
  }
  if (cs.phase == GCUBA_CUT_DONE) res = cs.cut;
  a.cut[i] = res;
  if (a.found) a.found[i] = cs.phase == GCUBA_CUT_DONE && cs.found;
  atomicAdd(a.nev, nev);
}

template <class F>
static int gcuba_cut_launch_search(const gcuba_cut_launch *a, void *stream)
{
  if (a->n <= 0) return 0;
  const int threads = 64;
  gcuba_k_cut<F><<<(unsigned)((a->n + threads - 1) / threads), threads, 0,
                   (cudaStream_t)stream>>>(*a);
  return (int)cudaPeekAtLastError();
}

#endif /* GCUBA_CUT_KERNELS_CUH */
