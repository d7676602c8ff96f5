/* tests/test-vegas-refine-gpu.cu -- the warp form of the grid's
   refinement (gcuba_vegas_refine_axis_warp, src/vegas/refine.h), which
   gVegasBatch's GPU pipeline runs one warp per grid, gives the bits and
   the return value of gcuba_vegas_refine_axis run by one device thread,
   for bins 2 .. 512, one and several rows, every mode, Cuba's alpha and
   another, smooth and spiky contributions, zero runs at the ends and
   inside, nothing to refine (all zero) and bad input (NaN, negative,
   infinite); and the host's refinement agrees up to the rounding of the
   device's log1p.  This file is part of gcuba. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cuda_runtime.h>
#include "tap.h"
#include "gpu.h"
#include "vegas/refine.h"

struct job {
  double *e, *d, *scratch;
  int nb, nrows, mode;
  double alpha;
  int *ret;
};

__global__ void one_thread(const struct job *J, int n)
{
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    const struct job j = J[i];
    *j.ret = gcuba_vegas_refine_axis(j.e, j.nb, j.d, j.nrows, j.alpha, j.mode,
                                     j.scratch);
  }
}

__global__ void one_warp(const struct job *J, int n)
{
  const int i = (blockIdx.x * blockDim.x + threadIdx.x) / 32;
  if (i < n) {
    const struct job j = J[i];
    const int r = gcuba_vegas_refine_axis_warp(j.e, j.nb, j.d, j.nrows,
                                               j.alpha, j.mode, j.scratch);
    if ((threadIdx.x & 31) == 0) *j.ret = r;
  }
}

/* the refinements J[0 .. n-1] (their copy dj on the device) on the
   edges de, scratch ds, return values dr: one thread or one warp each;
   1 when the kernel ran */
static int run(struct job *J, struct job *dj, int n, const size_t *oe,
               double *de, double *ds, int *dr, int warp)
{
  for (int j = 0; j < n; ++j) {
    J[j].e = de + oe[j];
    J[j].scratch = ds + 3 * oe[j];
    J[j].ret = dr + j;
  }
  cudaMemcpy(dj, J, sizeof *J * n, cudaMemcpyHostToDevice);
  if (warp) one_warp<<<(n + 3) / 4, 128>>>(dj, n);
  else one_thread<<<(n + 63) / 64, 64>>>(dj, n);
  return cudaDeviceSynchronize() == cudaSuccess;
}

static unsigned long long rng = 2027;
static double rnd(void)
{
  rng = rng * 6364136223846793005ULL + 1442695040888963407ULL;
  return (double)(rng >> 11) * 0x1.0p-53;
}

enum { SMOOTH_D, SPIKE, ENDS, HOLES, ZERO, NAN_D, NEG, INF_D, NKIND };
static const char *kname[NKIND] = {"smooth", "spike", "zero ends", "holes",
                                   "all zero", "NaN", "negative", "inf"};

/* contributions of kind k into d (nrows x nb) */
static void fill(double *d, int nb, int nrows, int k)
{
  for (int r = 0; r < nrows; ++r)
    for (int i = 0; i < nb; ++i) {
      const double x = (i + 0.5) / nb;
      double v = exp(-40 * (x - 0.3) * (x - 0.3)) * (0.5 + rnd());
      if (k == SPIKE) v = (i == nb / 3 ? 1e6 : 1e-3) * rnd();
      if (k == ENDS && (i < nb / 4 || i >= nb - nb / 5)) v = 0;
      if (k == HOLES && (i % 3 == 1 || (i > 0 && rnd() < 0.2))) v = 0;
      if (k == ZERO) v = 0;
      d[(size_t)r * nb + i] = v;
    }
  if (k == NAN_D) d[nb / 2] = NAN;
  if (k == NEG)
    for (int r = 0; r < nrows; ++r) d[(size_t)r * nb + nb - 1] = -1e-300;
  if (k == INF_D) d[0] = INFINITY;
}

/* a grid of nb bins that a refinement had moved: sorted random edges */
static void grid(double *e, int nb)
{
  double s = 0;
  e[0] = 0;
  for (int i = 1; i <= nb; ++i) e[i] = s += 0.2 + rnd();
  for (int i = 1; i < nb; ++i) e[i] /= s;
  e[nb] = 1;
}

int main(void)
{
  static const int nbs[] = {2, 3, 17, 32, 33, 100, 128, 512};
  const int nnb = (int)(sizeof nbs / sizeof nbs[0]);
  const int n = nnb * 2 * 4 * 2 * NKIND;
  struct job *J = (struct job *)malloc(sizeof *J * n);
  size_t *oe = (size_t *)malloc(sizeof *oe * n), ne = 0, nd = 0;
  int j = 0;
  gpu_required_or_skip();
  /* the cases, and where their arrays go */
  for (int a = 0; a < nnb; ++a)
    for (int rows = 1; rows <= 3; rows += 2)
      for (int mode = 0; mode < 4; ++mode)
        for (int al = 0; al < 2; ++al)
          for (int k = 0; k < NKIND; ++k, ++j) {
            J[j].nb = nbs[a];
            J[j].nrows = rows;
            J[j].mode = mode;
            J[j].alpha = al ? 0.7 : GCUBA_VEGAS_ALPHA;
            oe[j] = ne;
            ne += (size_t)nbs[a] + 1;
            nd += (size_t)rows * nbs[a];
          }
  double *he = (double *)malloc(sizeof(double) * ne);
  double *hd = (double *)malloc(sizeof(double) * nd);
  double *ht = (double *)malloc(sizeof(double) * ne);
  double *hw = (double *)malloc(sizeof(double) * ne);
  double *hh = (double *)malloc(sizeof(double) * ne);
  double *hs = (double *)malloc(sizeof(double) * 2 * ne);
  int *rt = (int *)malloc(sizeof(int) * n);
  int *rw = (int *)malloc(sizeof(int) * n);
  double *de1, *de2, *dd, *ds1, *ds2;
  int *dr1, *dr2;
  struct job *dj;
  size_t od = 0;
  if (cudaMalloc(&de1, sizeof(double) * ne) ||
      cudaMalloc(&de2, sizeof(double) * ne) ||
      cudaMalloc(&dd, sizeof(double) * nd) ||
      cudaMalloc(&ds1, sizeof(double) * 3 * ne) ||
      cudaMalloc(&ds2, sizeof(double) * 3 * ne) ||
      cudaMalloc(&dr1, sizeof(int) * n) || cudaMalloc(&dr2, sizeof(int) * n) ||
      cudaMalloc(&dj, sizeof *J * n)) {
    printf("1..0 # SKIP device memory\n");
    return 0;
  }
  for (j = 0; j < n; ++j) {
    grid(he + oe[j], J[j].nb);
    fill(hd + od, J[j].nb, J[j].nrows, j % NKIND);
    J[j].d = dd + od;
    od += (size_t)J[j].nrows * J[j].nb;
  }
  memcpy(hh, he, sizeof(double) * ne);
  cudaMemcpy(dd, hd, sizeof(double) * nd, cudaMemcpyHostToDevice);
  cudaMemcpy(de1, he, sizeof(double) * ne, cudaMemcpyHostToDevice);
  cudaMemcpy(de2, he, sizeof(double) * ne, cudaMemcpyHostToDevice);
  ok(run(J, dj, n, oe, de1, ds1, dr1, 0), "one thread per grid ran");
  ok(run(J, dj, n, oe, de2, ds2, dr2, 1), "one warp per grid ran");
  cudaMemcpy(ht, de1, sizeof(double) * ne, cudaMemcpyDeviceToHost);
  cudaMemcpy(hw, de2, sizeof(double) * ne, cudaMemcpyDeviceToHost);
  cudaMemcpy(rt, dr1, sizeof(int) * n, cudaMemcpyDeviceToHost);
  cudaMemcpy(rw, dr2, sizeof(int) * n, cudaMemcpyDeviceToHost);

  /* per kind: the warp's bits are the thread's; the host agrees */
  od = 0;
  {
    int same[NKIND] = {0}, host[NKIND] = {0}, cnt[NKIND] = {0},
        rets[NKIND][3] = {{0}};
    double worst = 0;
    for (j = 0; j < n; ++j) {
      const int k = j % NKIND, nb = J[j].nb;
      double *eh = hh + oe[j];
      int r;
      ++cnt[k];
      same[k] += rt[j] == rw[j] &&
                 !memcmp(ht + oe[j], hw + oe[j], sizeof(double) * (nb + 1));
      r = gcuba_vegas_refine_axis(eh, nb, hd + od, J[j].nrows, J[j].alpha,
                                  J[j].mode, hs);
      od += (size_t)J[j].nrows * nb;
      if (r == rt[j]) {
        double dmax = 0;
        for (int i = 0; i <= nb; ++i) {
          const double dv = fabs(eh[i] - ht[oe[j] + i]);
          if (dv > dmax) dmax = dv;
        }
        if (dmax > worst) worst = dmax;
        host[k] += dmax <= 1e-12;
      }
      ++rets[k][rt[j] + 1];
    }
    for (int k = 0; k < NKIND; ++k) {
      ok(same[k] == cnt[k], "%s: the warp's edges and return value are the "
         "thread's bits in %d of %d", kname[k], same[k], cnt[k]);
      ok(host[k] == cnt[k], "%s: the host's refinement agrees (1e-12) in %d "
         "of %d", kname[k], host[k], cnt[k]);
    }
    diag("largest host/device edge difference %.3g", worst);
    for (int k = 0; k < NKIND; ++k)
      diag("%s: %d bad input, %d refined, %d left", kname[k], rets[k][0],
           rets[k][1], rets[k][2]);
    ok(rets[SMOOTH_D][1] == cnt[SMOOTH_D] && rets[HOLES][1] == cnt[HOLES] &&
           rets[ENDS][1] == cnt[ENDS],
       "smooth, holes and zero ends are refined (return 0)");
    ok(rets[ZERO][2] == cnt[ZERO], "all zero: left as it is (return 1)");
    ok(rets[NAN_D][0] == cnt[NAN_D] && rets[NEG][0] == cnt[NEG] &&
           rets[INF_D][0] == cnt[INF_D],
       "NaN, negative and infinite contributions: -1");
  }
  cudaFree(de1);
  cudaFree(de2);
  cudaFree(dd);
  cudaFree(ds1);
  cudaFree(ds2);
  cudaFree(dr1);
  cudaFree(dr2);
  cudaFree(dj);
  free(J);
  free(oe);
  free(he);
  free(hd);
  free(ht);
  free(hw);
  free(hh);
  free(hs);
  free(rt);
  free(rw);
  return done();
}
