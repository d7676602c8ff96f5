/* cuda/batch.cu -- gCuhreBatch's GPU pipeline, its host side (batch.h
   says how it works): the buffers, the loop of iterations over the
   running integrals, the queue of integrals waiting to start, and each
   integral's results with its outcome for the plan (src/plan/batch.c),
   which says it as a single call would.  The integrand contributes only
   the kernels every call of it has (the rule, the search for cuts).
   Every CUDA call and launch is checked.  This file is part of gcuba. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <cub/device/device_scan.cuh>
#include "common.cuh"
#include "common/chisq.h"
#include "cuhre/backend.h"
#include "cuda/batch.h"
#include "gcuba/detail/cuhre_kernels.cuh"
#include "gcuba/detail/cut_kernels.cuh"

/* the share of free device memory the pipeline may take */
#define MEM_SHARE 0.5
/* the leaves the running integrals may hold when the queue lets another
   one in, at most (and at least what the first one needs) */
#define ADMIT_MAX (1LL << 26)

typedef struct {
  gcuba_call *c;
  cudaStream_t stream;
  int ndim, ncomp;
  size_t per;                  /* bytes of one leaf of one partition */
  gcuba_bleaves p[2];          /* the partitions */
  long long cap[2];            /* their leaves */
  double *pavg, *perr;         /* [cap/2 * ncomp] the new pairs' parents */
  long long pcap;              /* pairs they hold */
  unsigned char *cls;          /* per leaf of the current partition */
  int *cax, *sidx;
  double *cq;
  long long scap;              /* leaves they hold */
  double *slo, *sw, *scut, *sjump; /* the searches' boxes */
  int *sax, *sfound, *sown;
  long long bcap;              /* boxes they hold */
  double mem;                  /* bytes the partitions may take */
  /* verbosity 2: the time of each kind of step (each waited for) */
  int timed;
  double tm[6], last;
} bpipe;

enum { T_RULE, T_EVALUATED, T_SCAN, T_SPLIT, T_CUTS, T_NEXT };

/* verbosity 2: the time since the last mark goes to step k */
static void mark(bpipe *P, int k)
{
  double now;
  if (!P->timed) return;
  cudaStreamSynchronize(P->stream);
  now = gcuba_now_ms();
  P->tm[k] += now - P->last;
  P->last = now;
}

static void free_leaves(gcuba_bleaves *a)
{
  cudaFree(a->lo);
  cudaFree(a->w);
  cudaFree(a->avg);
  cudaFree(a->err);
  cudaFree(a->dims);
  cudaFree(a->own);
  memset(a, 0, sizeof *a);
}

#define CK(call)                              \
  do {                                        \
    int rc_ = GCUBA_CK(P->c, call);           \
    if (rc_) return rc_;                      \
  } while (0)

/* partition k holds n leaves (1.5 n when it grows; its contents are not
   kept: only the target of a scatter grows); 0 or a fail code */
static int reserve_leaves(bpipe *P, int k, long long n)
{
  gcuba_bleaves *a = &P->p[k];
  long long cap;
  if (n <= P->cap[k]) return 0;
  cap = n + n / 2 + 1024;
  if ((double)P->per * (double)(cap + P->cap[k ^ 1]) > P->mem) {
    cap = n;
    if ((double)P->per * (double)(cap + P->cap[k ^ 1]) > P->mem)
      return GCUBA_FAIL_DEVMEM; /* the pipeline's share: no message */
  }
  free_leaves(a);
  P->cap[k] = 0;
  CK(gcuba_cuda_malloc(&a->lo, sizeof(double) * cap * P->ndim));
  CK(gcuba_cuda_malloc(&a->w, sizeof(double) * cap * P->ndim));
  CK(gcuba_cuda_malloc(&a->avg, sizeof(double) * cap * P->ncomp));
  CK(gcuba_cuda_malloc(&a->err, sizeof(double) * cap * P->ncomp));
  CK(gcuba_cuda_malloc(&a->dims, sizeof(int) * cap * P->ncomp));
  CK(gcuba_cuda_malloc(&a->own, sizeof(int) * cap));
  P->cap[k] = cap;
  return 0;
}

/* the parents of n new pairs (their old contents not kept) */
static int reserve_pairs(bpipe *P, long long n)
{
  long long cap;
  if (n <= P->pcap) return 0;
  cap = n + n / 2 + 1024;
  cudaFree(P->pavg);
  cudaFree(P->perr);
  P->pavg = P->perr = NULL;
  P->pcap = 0;
  CK(gcuba_cuda_malloc(&P->pavg, sizeof(double) * cap * P->ncomp));
  CK(gcuba_cuda_malloc(&P->perr, sizeof(double) * cap * P->ncomp));
  P->pcap = cap;
  return 0;
}

/* the per-leaf scratch of a partition of n leaves (contents not kept) */
static int reserve_marks(bpipe *P, long long n)
{
  long long cap;
  if (n <= P->scap) return 0;
  cap = n + n / 2 + 1024;
  cudaFree(P->cls);
  cudaFree(P->cax);
  cudaFree(P->sidx);
  cudaFree(P->cq);
  P->cls = NULL;
  P->cax = P->sidx = NULL;
  P->cq = NULL;
  P->scap = 0;
  CK(gcuba_cuda_malloc(&P->cls, cap));
  CK(gcuba_cuda_malloc(&P->cax, sizeof(int) * cap));
  CK(gcuba_cuda_malloc(&P->sidx, sizeof(int) * cap));
  CK(gcuba_cuda_malloc(&P->cq, sizeof(double) * cap));
  P->scap = cap;
  return 0;
}

/* the searches' boxes: n of them */
static int reserve_boxes(bpipe *P, long long n)
{
  long long cap;
  if (n <= P->bcap) return 0;
  cap = n + n / 2 + 256;
  cudaFree(P->slo);
  cudaFree(P->sw);
  cudaFree(P->scut);
  cudaFree(P->sjump);
  cudaFree(P->sax);
  cudaFree(P->sfound);
  cudaFree(P->sown);
  P->slo = P->sw = P->scut = P->sjump = NULL;
  P->sax = P->sfound = P->sown = NULL;
  P->bcap = 0;
  CK(gcuba_cuda_malloc(&P->slo, sizeof(double) * cap * P->ndim));
  CK(gcuba_cuda_malloc(&P->sw, sizeof(double) * cap * P->ndim));
  CK(gcuba_cuda_malloc(&P->scut, sizeof(double) * cap));
  CK(gcuba_cuda_malloc(&P->sjump, sizeof(double) * cap));
  CK(gcuba_cuda_malloc(&P->sax, sizeof(int) * cap));
  CK(gcuba_cuda_malloc(&P->sfound, sizeof(int) * cap));
  CK(gcuba_cuda_malloc(&P->sown, sizeof(int) * cap));
  P->bcap = cap;
  return 0;
}

static void release(bpipe *P)
{
  free_leaves(&P->p[0]);
  free_leaves(&P->p[1]);
  cudaFree(P->pavg);
  cudaFree(P->perr);
  cudaFree(P->cls);
  cudaFree(P->cax);
  cudaFree(P->sidx);
  cudaFree(P->cq);
  cudaFree(P->slo);
  cudaFree(P->sw);
  cudaFree(P->scut);
  cudaFree(P->sjump);
  cudaFree(P->sax);
  cudaFree(P->sfound);
  cudaFree(P->sown);
}

/* the search kernel of the integrand over boxes [0, n) */
static int search(bpipe *P, const gcuba_bargs *g, long long n, int found,
                  void *duser, size_t stride)
{
  gcuba_cut_launch l;
  int rc;
  if (n <= 0) return 0;
  memset(&l, 0, sizeof l);
  l.ndim = P->ndim;
  l.ncomp = P->ncomp;
  l.n = n;
  l.lo = g->slo;
  l.w = g->sw;
  l.ax = g->sax;
  l.cut = g->scut;
  l.found = found ? g->sfound : NULL;
  l.jump = found ? g->sjump : NULL;
  l.nev = g->nev;
  l.userdata = duser;
  l.status = g->status;
  l.own = g->sown;
  l.ustep = stride;
  if ((rc = P->c->integrand->gpu->cuhre_cut(&l, P->stream)))
    return GCUBA_CK(P->c, (cudaError_t)rc);
  return 0;
}

extern "C" int gcuba_cuhre_batch_gpu(gcuba_call *c, int n, size_t stride,
                                     long long maxregions, long long *neval,
                                     int *nregions, gcuba_cuhre_bout *out)
{
  const struct gcuba_gpu_ops *gpu = c->integrand->gpu;
  const int nc = c->ncomp, ndim = c->ndim;
  bpipe P;
  gcuba_bargs g;
  gcuba_rule r, *drule = NULL;
  double *du = NULL, *dres = NULL, *hres = NULL;
  long long *dll = NULL, *hll = NULL, *kn = NULL, *sr = NULL, *hx = NULL;
  long long *kno = NULL, *sro = NULL; /* their scans */
  int *dint = NULL, *hint = NULL, *act[2] = {NULL, NULL};
  void *duser = NULL, *ucopy = NULL, *temp = NULL;
  size_t ucap = 0, tempbytes = 0, freeb = 0, totalb = 0;
  const size_t nres = (size_t)n * nc;
  const size_t chib = sizeof(gcuba_vegas_combine_t) * nres;
  gcuba_bint *st = NULL;
  int ustride = 0, rc = 0, np, n0, slot, cur = 0, m = 0, next = 0;
  int admitted = 0, b, comp, iters = 0;
  long long ktot = 0, ntot = 0;
  const double t0 = gcuba_now_ms();
  unsigned long long *nev = NULL;

  memset(&P, 0, sizeof P);
  P.c = c;
  P.timed = c->verbose >= 2;
  P.ndim = ndim;
  P.ncomp = nc;
  if (!gpu || !gpu->cuhre_eval || !gpu->cuhre_cut) return 1;
  if (gcuba_rule_init(&r, ndim, c->key))
    return gcuba_fail(c, GCUBA_FAIL_NDIM, "no rule for ndim = %d, key = %d",
                      ndim, c->key);
  np = gcuba_rule_nevals(&r);
  n0 = gcuba_cuhre_start(np, ndim, c->maxeval, NULL)
           ? 1
           : 1 << (ndim < 10 ? ndim : 10);
  slot = n0 + (n0 & 1);
  /* a leaf of one partition, half its pair's parents, its scratch */
  P.per = 16 * ndim + 20 * nc + 4 + 8 * nc + 17;
  gcuba_cuda_trim(); /* the waves take what is free */
  if (GCUBA_CK(c, cudaMemGetInfo(&freeb, &totalb))) return c->fail;
  P.mem = MEM_SHARE * (double)freeb;

  memset(&g, 0, sizeof g);
  g.ndim = ndim;
  g.ncomp = nc;
  g.np = np;
  g.degree = r.degree;
  g.relfinish = !(c->flags & GCUBA_NORELFINISH);
  g.cuts = c->set.cuts;
  g.epsrel = c->epsrel;
  g.epsabs = c->epsabs;
  g.mineval = c->mineval;
  g.maxeval = c->maxeval;
  g.maxregions = maxregions;
  g.minbatch = c->set.minbatch > 0 ? c->set.minbatch
                                   : GCUBA_CUHRE_CPU_MINBATCH;
  cub::DeviceScan::ExclusiveSum(NULL, tempbytes, (const long long *)NULL,
                                (long long *)NULL, n + 1);

  if (GCUBA_CK(c, cudaStreamCreateWithFlags(&P.stream,
                                            cudaStreamNonBlocking)) ||
      GCUBA_CK(c, gcuba_cuda_malloc(&drule, sizeof r)) ||
      GCUBA_CK(c, cudaMemcpy(drule, &r, sizeof r, cudaMemcpyHostToDevice)) ||
      gcuba_cuhre_points(c, &r, &du, &ustride) ||
      gcuba_device_userdata(c, c->ud.p, c->ud.bytes,
                            " (or a nonzero userstride)", &duser, &ucopy,
                            &ucap, P.stream) ||
      GCUBA_CK(c, gcuba_cuda_malloc(&st, sizeof *st * (size_t)n)) ||
      GCUBA_CK(c, gcuba_cuda_malloc(&dres, sizeof(double) *
                                               (2 * nres + BWHY * n) +
                                           chib)) ||
      GCUBA_CK(c, gcuba_cuda_malloc(&dll, sizeof(long long) * (2 * n + 1))) ||
      GCUBA_CK(c, gcuba_cuda_malloc(&dint, sizeof(int) * 3 * (size_t)n)) ||
      GCUBA_CK(c, gcuba_cuda_malloc(&nev, sizeof *nev * (size_t)n)) ||
      GCUBA_CK(c, gcuba_cuda_malloc(&act[0], sizeof(int) * (size_t)n)) ||
      GCUBA_CK(c, gcuba_cuda_malloc(&act[1], sizeof(int) * (size_t)n)) ||
      GCUBA_CK(c, gcuba_cuda_malloc(&kn, sizeof(long long) * 4 * (n + 1))) ||
      GCUBA_CK(c, gcuba_cuda_malloc(&temp, tempbytes)) ||
      GCUBA_CK(c, cudaMallocHost(&hx, sizeof(long long) * 3))) {
    rc = c->fail;
    goto done;
  }
  sr = kn + n + 1;
  kno = sr + n + 1;
  sro = kno + n + 1;
  g.st = st;
  g.status = dint;
  g.nev = nev;
  g.integral = dres;
  g.error = dres + nres;
  g.owhy = dres + 2 * nres;
  g.chi = (gcuba_vegas_combine_t *)(dres + 2 * nres + BWHY * n);
  g.oneval = dll;
  g.onregions = dll + n;
  g.nscan = (unsigned long long *)(dll + 2 * n);
  g.ocode = dint + n;
  g.oworst = dint + 2 * n;
  if (GCUBA_CK(c, cudaMemsetAsync(dint + n, 0xff, sizeof(int) * n,
                                  P.stream))) {
    rc = c->fail;
    goto done;
  }

  /* the queue: integrals start while the running ones leave room; the
     first ones now */
  {
    const long long room = (long long)(P.mem / P.per / 4) < ADMIT_MAX
                               ? (long long)(P.mem / P.per / 4)
                               : ADMIT_MAX;
    long long a = room / slot < n ? room / slot : n;
    if (a < 1) a = 1;
    if ((rc = reserve_leaves(&P, cur, a * slot)) ||
        (rc = reserve_pairs(&P, a * slot / 2 + 1)))
      goto done;
    g.a = P.p[cur];
    g.pavg = P.pavg;
    g.perr = P.perr;
    g.nbase = 0;
    if ((rc = GCUBA_CK(c, gcuba_b_admit(&g, 0, (int)a, 0, act[cur], 0,
                                        P.stream))))
      goto done;
    next = m = admitted = (int)a;
    ntot = a * slot;
    P.last = gcuba_now_ms();
    mark(&P, T_NEXT);

    while (m > 0) {
      struct gcuba_cuhre_launch la;
      const int scan = g.cuts && admitted > 0;
      const long long lines = (long long)m * GCUBA_SCAN_LINES * ndim;
      long long knext, nsplit, nsearch, adm;
      int mnext, k;
      if ((rc = reserve_marks(&P, ktot + ntot))) break;
      g.a = P.p[cur];
      g.act = act[cur];
      g.nbase = ktot;
      g.pavg = P.pavg;
      g.perr = P.perr;
      g.cls = P.cls;
      g.cax = P.cax;
      g.sidx = P.sidx;
      g.cq = P.cq;
      /* the integrand's rule kernel over the new leaves, one warp each */
      memset(&la, 0, sizeof la);
      la.ndim = ndim;
      la.ncomp = nc;
      la.first = ktot;
      la.n = ntot;
      la.lo = g.a.lo;
      la.w = g.a.w;
      la.avg = g.a.avg;
      la.err = g.a.err;
      la.dims = g.a.dims;
      la.rule = drule;
      la.u = du;
      la.ustride = ustride;
      la.nsets = r.nsets;
      la.npoints = r.npoints;
      la.nprobe = r.nprobe;
      la.wpr = 1; /* the order of a region's sums: one warp, always */
      la.userdata = duser;
      la.status = dint;
      la.perr = P.perr;
      la.pfirst = ktot;
      la.own = g.a.own;
      la.ustep = stride;
      if ((rc = gpu->cuhre_eval(&la, P.stream))) {
        rc = GCUBA_CK(c, (cudaError_t)rc);
        break;
      }
      mark(&P, T_RULE);
      if (scan && (rc = reserve_boxes(&P, lines))) break;
      g.slo = P.slo;
      g.sw = P.sw;
      g.scut = P.scut;
      g.sjump = P.sjump;
      g.sax = P.sax;
      g.sfound = P.sfound;
      g.sown = P.sown;
      if ((rc = GCUBA_CK(c, gcuba_b_evaluated(&g, m, scan, P.stream))))
        break;
      mark(&P, T_EVALUATED);
      /* the scan of the cube's lines at the new integrals' first split,
         round after round while one of them has lines left */
      for (k = 0; scan && !rc && k < gcuba_cutmap_rounds(ndim); ++k) {
        if ((rc = GCUBA_CK(c, cudaMemsetAsync(g.nscan, 0, sizeof *g.nscan,
                                              P.stream))) ||
            (rc = search(&P, &g, lines, 1, duser, stride)) ||
            (rc = GCUBA_CK(c, gcuba_b_scan_next(&g, m, P.stream))) ||
            (rc = GCUBA_CK(c, cudaMemcpyAsync(hx + 2, g.nscan, sizeof *hx,
                                              cudaMemcpyDeviceToHost,
                                              P.stream))) ||
            (rc = GCUBA_CK(c, cudaStreamSynchronize(P.stream))) || !hx[2])
          break;
      }
      if (rc) break;
      mark(&P, T_SCAN);
      /* the split, the next partition's offsets, its size to the host */
      if ((rc = GCUBA_CK(c, gcuba_b_split(&g, m, P.stream))) ||
          (rc = GCUBA_CK(c, gcuba_b_counts(&g, m, kn, sr, P.stream))) ||
          (rc = GCUBA_CK(c, cub::DeviceScan::ExclusiveSum(
                                temp, tempbytes, kn, kno, m + 1,
                                P.stream))) ||
          (rc = GCUBA_CK(c, cub::DeviceScan::ExclusiveSum(
                                temp, tempbytes, sr, sro, m + 1,
                                P.stream))) ||
          (rc = GCUBA_CK(c, cudaMemcpyAsync(hx, kno + m, sizeof *hx,
                                            cudaMemcpyDeviceToHost,
                                            P.stream))) ||
          (rc = GCUBA_CK(c, cudaMemcpyAsync(hx + 1, sro + m, sizeof *hx,
                                            cudaMemcpyDeviceToHost,
                                            P.stream))) ||
          (rc = GCUBA_CK(c, cudaStreamSynchronize(P.stream))))
        break;
      mark(&P, T_SPLIT);
      knext = BLO(hx[0]);
      nsplit = BHI(hx[0]);
      nsearch = BHI(hx[1]);
      mnext = (int)BLO(hx[1]);
      if (nsearch > 0) {
        /* where the split leaves of integrals with features are cut */
        if ((rc = reserve_boxes(&P, nsearch))) break;
        g.slo = P.slo;
        g.sw = P.sw;
        g.scut = P.scut;
        g.sjump = P.sjump;
        g.sax = P.sax;
        g.sfound = P.sfound;
        g.sown = P.sown;
        if ((rc = GCUBA_CK(c, gcuba_b_cutlist(&g, m, sro, P.stream))) ||
            (rc = search(&P, &g, nsearch, 0, duser, stride)))
          break;
        mark(&P, T_CUTS);
      }
      /* the next integrals of the queue, while there is room */
      adm = (room - knext - 2 * nsplit) / slot;
      if (adm > n - next) adm = n - next;
      if (adm < 0) adm = 0;
      if (mnext == 0 && adm == 0 && next < n) adm = 1;
      k = cur ^ 1;
      if ((rc = reserve_leaves(&P, k, knext + 2 * nsplit + adm * slot))) {
        if (rc != GCUBA_FAIL_DEVMEM) break;
        /* no room for the next partition: the integrals still to finish
           run alone */
        c->fail = 0;
        rc = 0;
        gcuba_log(c, 2, "GPU pipeline: no memory for %lld leaves, %d "
                  "integrals left to single calls", knext + 2 * nsplit,
                  mnext + (n - next));
        break;
      }
      if ((rc = reserve_pairs(&P, nsplit + adm * slot / 2 + 1))) break;
      g.pavg = P.pavg;
      g.perr = P.perr;
      if ((rc = GCUBA_CK(c, gcuba_b_scatter(&g, m, kno, sro, knext, P.p[k],
                                            act[k], P.stream))))
        break;
      if (adm > 0) {
        g.a = P.p[k];
        g.nbase = knext;
        if ((rc = GCUBA_CK(c, gcuba_b_admit(&g, next, (int)adm,
                                            knext + 2 * nsplit, act[k],
                                            mnext, P.stream))))
          break;
      }
      mark(&P, T_NEXT);
      ++iters;
      cur = k;
      ktot = knext;
      ntot = 2 * nsplit + adm * slot;
      m = mnext + (int)adm;
      next += (int)adm;
      admitted = (int)adm;
    }
  }
  if (rc) goto done;

  /* the results, the integrals not finished deferred */
  hres = (double *)malloc(sizeof(double) * (2 * nres + BWHY * n) + chib);
  hll = (long long *)malloc(sizeof(long long) * 2 * n);
  hint = (int *)malloc(sizeof(int) * 2 * (size_t)n);
  if (!hres || !hll || !hint) {
    rc = gcuba_fail(c, GCUBA_FAIL_NOMEM, "batch results");
    goto done;
  }
  if (GCUBA_CK(c, cudaMemcpyAsync(hres, dres, sizeof(double) *
                                                  (2 * nres + BWHY * n) + chib,
                                  cudaMemcpyDeviceToHost, P.stream)) ||
      GCUBA_CK(c, cudaMemcpyAsync(hll, dll, sizeof(long long) * 2 * n,
                                  cudaMemcpyDeviceToHost, P.stream)) ||
      GCUBA_CK(c, cudaMemcpyAsync(hint, dint + n, sizeof(int) * 2 * n,
                                  cudaMemcpyDeviceToHost, P.stream)) ||
      GCUBA_CK(c, cudaStreamSynchronize(P.stream))) {
    rc = c->fail;
    goto done;
  }
  {
    const gcuba_vegas_combine_t *chi =
        (const gcuba_vegas_combine_t *)(hres + 2 * nres + BWHY * n);
    long long nv = 0, ndefer = 0;
    for (b = 0; b < n; ++b) {
      gcuba_cuhre_bout *o = &out[b];
      o->code = hint[b] < 0 ? GCUBA_CUHRE_DEFER : hint[b];
      if (o->code == GCUBA_CUHRE_DEFER) {
        ++ndefer;
        continue;
      }
      o->worst = hint[n + b];
      o->finerr = hres[2 * nres + BWHY * b];
      o->budget = hres[2 * nres + BWHY * b + 1];
      o->stall_r = hres[2 * nres + BWHY * b + 2];
      o->stall_neval = (long long)hres[2 * nres + BWHY * b + 3];
      o->units = hres[2 * nres + BWHY * b + 4];
      o->below = hres[2 * nres + BWHY * b + 5] != 0;
      neval[b] = hll[b];
      nv += hll[b];
      nregions[b] = hll[n + b] > 0x7fffffff ? 0x7fffffff : (int)hll[n + b];
      for (comp = 0; comp < nc; ++comp) {
        const size_t k = (size_t)b * nc + comp;
        double prob;
        gcuba_vegas_combine_result(&chi[k], 0, NULL, NULL, NULL, NULL, &prob);
        c->integral[k] = hres[k];
        c->error[k] = hres[nres + k];
        c->prob[k] = prob == GCUBA_CHISQ_NODOF ? 0 : prob;
      }
    }
    gcuba_log(c, 2, "GPU pipeline: %d integrals, %lld evaluations in %.3f "
              "ms, %d iterations; %lld left to single calls", n, nv,
              gcuba_now_ms() - t0, iters, ndefer);
    if (P.timed)
      gcuba_log(c, 2, "GPU pipeline ms: rule kernel %.3f, evaluated %.3f, "
                "scans %.3f, split %.3f, cuts %.3f, next partition %.3f",
                P.tm[T_RULE], P.tm[T_EVALUATED], P.tm[T_SCAN], P.tm[T_SPLIT],
                P.tm[T_CUTS], P.tm[T_NEXT]);
  }
done:
  if (rc == GCUBA_FAIL_DEVMEM) {
    /* no room for the pipeline: the integrals run as single calls */
    gcuba_log(c, 1, "GPU pipeline: out of device memory, single calls");
    c->fail = 0;
    rc = 1;
  }
  if (P.stream) cudaStreamSynchronize(P.stream);
  release(&P);
  cudaFree(temp);
  cudaFree(kn);
  cudaFree(act[0]);
  cudaFree(act[1]);
  cudaFree(nev);
  cudaFree(dint);
  cudaFree(dll);
  cudaFree(dres);
  cudaFree(st);
  cudaFree(ucopy);
  cudaFree(du);
  cudaFree(drule);
  if (hx) cudaFreeHost(hx);
  if (P.stream) cudaStreamDestroy(P.stream);
  free(hres);
  free(hll);
  free(hint);
  return rc;
}
