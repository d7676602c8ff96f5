/* cuda/batch_steps.cu -- the steps of gCuhreBatch's GPU pipeline
   (batch.h): one thread block per integral, which runs the policy of
   detail/cuhre_policy.h on its integral's leaves.  Sums over an integral's
   leaves are taken in a fixed order (each thread over a contiguous run of
   them, then the threads in order), so that an integral's answer depends
   on its own leaves alone.  Integrand-independent: compiled once into
   libgcuba.  This file is part of gcuba. */
#include <cuda_runtime.h>
#include <math.h>
#include "cuda/batch.h"

/* an integral's leaf j (kept ones first, then the new ones) */
__device__ static inline long long leaf(const gcuba_bint *s, long long j)
{
  return j < s->kcnt ? s->koff + j : s->noff + (j - s->kcnt);
}

/* the policy's view of an integral's state */
__device__ static inline gcuba_cuhre_state view(gcuba_bint *s, int ncomp)
{
  gcuba_cuhre_state v;
  v.iter = s->iter;
  v.small = s->small;
  v.nfull = s->nfull;
  v.relfrac = s->relfrac;
  v.ncomp = ncomp;
  v.finavg = s->finavg;
  v.finerr = s->finerr;
  v.tot = s->tot;
  v.err = s->err;
  v.budget = s->budget;
  v.prev = s->prev;
  v.pconv = s->pconv;
  v.chi = s->chi;
  v.stall_r = s->stall_r;
  v.stall_neval = s->stall_neval;
  return v;
}

/* integral b ends with code: its results (units, below: the rounding
   floor's, gcuba_cuhre_roundoff) */
__device__ static void finish(const gcuba_bargs &g, gcuba_bint *s, int b,
                              int code, double units = -1, int below = 0)
{
  const int nc = g.ncomp;
  s->code = code;
  for (int c = 0; c < nc; ++c) {
    g.integral[(long long)b * nc + c] = s->tot[c];
    g.error[(long long)b * nc + c] = s->err[c];
    g.chi[(long long)b * nc + c] = s->chi[c];
  }
  g.oneval[b] = s->neval;
  g.onregions[b] = s->nregions;
  g.ocode[b] = code;
  g.oworst[b] = s->worst;
  g.owhy[BWHY * b] = s->finerr[s->worst];
  g.owhy[BWHY * b + 1] = s->budget[s->worst];
  g.owhy[BWHY * b + 2] = s->stall_r;
  g.owhy[BWHY * b + 3] = (double)s->stall_neval;
  g.owhy[BWHY * b + 4] = units;
  g.owhy[BWHY * b + 5] = below;
}

/* this thread's run [*j0, *j1) of n leaves */
__device__ static inline void run_of(long long n, long long *j0,
                                     long long *j1)
{
  const long long chunk = (n + BBLOCK - 1) / BBLOCK;
  const long long t = threadIdx.x;
  *j0 = t * chunk < n ? t * chunk : n;
  *j1 = *j0 + chunk < n ? *j0 + chunk : n;
}

/* exclusive prefix sums of v[0 .. BBLOCK) in place, by one thread; the
   total */
__device__ static long long scan_block(long long *v)
{
  long long s = 0;
  for (int t = 0; t < BBLOCK; ++t) {
    const long long x = v[t];
    v[t] = s;
    s += x;
  }
  return s;
}

/* ---- admission: integrals first .. first + count - 1 start ---------------
   Their initial leaves (gcuba_cuhre_start) from leaf base on, slot leaves
   each (the count rounded up to even, so that every integral's new leaves
   start at an even place: pairs of children); a leaf beyond the count is
   a hole. */
__global__ void k_admit(gcuba_bargs g, int first, int count, long long base,
                        int slot, int n0, int *act, int m)
{
  const long long j = (long long)blockIdx.x * blockDim.x + threadIdx.x;
  const int ndim = g.ndim;
  if (j < count) {
    const int b = first + (int)j;
    gcuba_bint *s = &g.st[b];
    s->iter = s->neval = s->nfinished = s->nregions = 0;
    s->koff = s->kcnt = 0;
    s->noff = base + j * slot;
    s->ncnt = n0;
    s->nkeep = s->nsplit = s->nsearch = 0;
    s->small = gcuba_cuhre_start(g.np, ndim, g.maxeval, NULL);
    s->nfull = gcuba_cuhre_nfull(s->small);
    s->code = BRUN;
    s->worst = 0;
    s->haveparents = 0;
    s->scan = 0;
    s->kind = 0;
    s->relfrac = gcuba_cuhre_relfrac0(g.degree);
    s->excess = 0;
    s->stall_r = HUGE_VAL;
    s->stall_neval = 0;
    for (int c = 0; c < BNC; ++c) {
      s->finavg[c] = s->finerr[c] = s->tot[c] = s->err[c] = 0;
      s->budget[c] = 1;
      s->prev[c] = s->pconv[c] = 0;
      s->chi[c].n = 0;
      s->chi[c].wsum = s->chi[c].wisum = s->chi[c].ref = 0;
      s->chi[c].csum = s->chi[c].cisum = s->chi[c].last = 0;
      s->chi[c].lastw = 0;
    }
    gcuba_cutmap_init(&s->cm);
    g.status[b] = 0;
    g.nev[b] = 0;
    act[m + j] = b;
  }
  /* the leaves: slot per integral; in the uniform start leaf k has 2
     parts along each of the first 10 axes (the CPU backend's order) */
  if (j < (long long)count * slot) {
    const int b = first + (int)(j / slot), k = (int)(j % slot);
    const int small = gcuba_cuhre_start(g.np, ndim, g.maxeval, NULL);
    const long long i = base + j;
    g.a.own[i] = k < n0 ? b : -1;
    /* no parent: not trusted (gcuba_rule_trusted of +0) */
    if (!((i - g.nbase) & 1))
      for (int c = 0; c < g.ncomp; ++c)
        g.pavg[(i - g.nbase) / 2 * g.ncomp + c] =
            g.perr[(i - g.nbase) / 2 * g.ncomp + c] = 0;
    for (int d = 0; d < ndim; ++d) {
      const int two = !small && d < 10;
      g.a.lo[i * ndim + d] = two ? 0.5 * (double)((k >> d) & 1) : 0.0;
      g.a.w[i * ndim + d] = two ? 0.5 : 1.0;
    }
  }
}

/* ---- after the rule kernel ------------------------------------------------
   The two-level error of the integral's new pairs, the error floor at known
   features, the sums, the totals and the stop; at its first iteration
   (scan) the boxes of the scan of the cube's central lines. */
/* the scan's boxes of integral a of the running ones: the lines of the
   next round of its scan (gcuba_cutmap_lines, component 0) when on, else
   none; the slots of lines it does not use are not searched (cut 0.5).
   Returns the lines.  One thread. */
__device__ static int scan_boxes(const gcuba_bargs &g, int a, int b, int on)
{
  const int ndim = g.ndim;
  const long long j0 = (long long)a * GCUBA_SCAN_LINES * ndim;
  int n = 0;
  if (on) {
    gcuba_bint *s = &g.st[b];
    n = gcuba_cutmap_lines(
        &s->cm, ndim,
        gcuba_cuhre_scan_room(s->neval + (long long)g.nev[b], g.maxeval,
                              g.np),
        g.slo + j0 * ndim, g.sw + j0 * ndim, g.sax + j0);
  }
  for (int k = 0; k < GCUBA_SCAN_LINES * ndim; ++k) {
    const long long j = j0 + k;
    if (k >= n) {
      for (int d = 0; d < ndim; ++d) {
        g.slo[j * ndim + d] = 0;
        g.sw[j * ndim + d] = 1;
      }
      g.sax[j] = 0;
    }
    g.scut[j] = k < n ? -1.0 : 0.5;
    g.sjump[j] = 0;
    g.sfound[j] = 0;
    g.sown[j] = b < 0 ? 0 : b;
  }
  return n;
}

__global__ void __launch_bounds__(BBLOCK)
    k_evaluated(gcuba_bargs g, int scan)
{
  extern __shared__ double red[]; /* [2 * ncomp * BBLOCK] */
  __shared__ int code;
  const int b = g.act[blockIdx.x], tid = threadIdx.x, nc = g.ncomp;
  const int ndim = g.ndim;
  const long long nbase = g.nbase;
  if (b < 0) {
    if (scan && tid == 0) scan_boxes(g, blockIdx.x, b, 0);
    return;
  }
  gcuba_bint *s = &g.st[b];
  const long long nl = s->kcnt + s->ncnt;
  if (tid == 0) {
    const int st = g.status[b];
    code = st & GCUBA_ST_ABORT ? BABORT : st & GCUBA_ST_NONFINITE ? BNAN
                                                                  : BRUN;
    if (code != BRUN) finish(g, s, b, code);
  }
  __syncthreads();
  if (code != BRUN) {
    if (scan && tid == 0) scan_boxes(g, blockIdx.x, b, 0);
    return;
  }
  if (s->haveparents)
    for (long long p = tid; p < s->ncnt / 2; p += BBLOCK) {
      const long long i = s->noff + 2 * p, q = (s->noff - nbase) / 2 + p;
      for (int c = 0; c < nc; ++c)
        gcuba_twolevel(g.pavg[q * nc + c], g.perr[q * nc + c],
                       &g.a.avg[i * nc + c], &g.a.err[i * nc + c],
                       &g.a.dims[i * nc + c], &g.a.avg[(i + 1) * nc + c],
                       &g.a.err[(i + 1) * nc + c],
                       &g.a.dims[(i + 1) * nc + c]);
    }
  if (g.cuts && s->cm.nfeat)
    for (long long j = tid; j < s->ncnt; j += BBLOCK) {
      const long long i = s->noff + j;
      gcuba_cuhre_floor(&s->cm, ndim, g.a.lo + i * ndim, g.a.w + i * ndim,
                        g.a.avg + i * nc, g.a.err + i * nc, nc);
    }
  __syncthreads();
  {
    long long j0, j1;
    run_of(nl, &j0, &j1);
    for (int c = 0; c < nc; ++c) {
      double sa = 0, se = 0;
      for (long long j = j0; j < j1; ++j) {
        const long long i = leaf(s, j);
        sa += g.a.avg[i * nc + c];
        se += g.a.err[i * nc + c];
      }
      red[c * BBLOCK + tid] = sa;
      red[(nc + c) * BBLOCK + tid] = se;
    }
  }
  __syncthreads();
  if (tid == 0) {
    double sa[BNC], se[BNC];
    gcuba_cuhre_state v = view(s, nc);
    int conv, o;
    for (int c = 0; c < nc; ++c) {
      double k = 0; /* the threads' sums compensated (gcuba_ksum) */
      sa[c] = se[c] = 0;
      for (int t = 0; t < BBLOCK; ++t) {
        gcuba_ksum(&sa[c], &k, red[c * BBLOCK + t]);
        se[c] += red[(nc + c) * BBLOCK + t];
      }
      sa[c] += k;
    }
    s->neval += s->ncnt * g.np;
    s->nregions = s->nfinished + nl;
    conv = gcuba_cuhre_totals(&v, sa, se, g.epsrel, g.epsabs, 1, &s->excess,
                              &s->worst);
    o = gcuba_cuhre_stop(&v, conv, nl, s->neval, g.mineval, s->worst);
    double units = -1;
    int below = 0;
    if (o == GCUBA_CUHRE_GOON) {
      /* the driver's order: the stop, the rounding floor, the split */
      o = gcuba_cuhre_roundoff(&v, s->neval, g.mineval, 4, GCUBA_FLOOR_ULPS,
                               NULL, &units, &below);
      s->stall_r = v.stall_r;
      s->stall_neval = v.stall_neval;
    }
    if (o != GCUBA_CUHRE_GOON)
      finish(g, s, b, o, units, below);
    else if (g.cuts && !s->cm.ready) {
      /* the cut map, before the first split (the driver's scan_cube) */
      if (!gcuba_cuhre_scan_fits(s->neval, g.maxeval, ndim, g.np))
        s->cm.ready = 1;
      else
        s->scan = 1;
    }
  }
  if (!scan) return;
  __syncthreads();
  if (tid == 0 &&
      !scan_boxes(g, blockIdx.x, b, s->code == BRUN && s->scan == 1) &&
      s->scan == 1) {
    s->scan = 0; /* (no round fits: the map is ready) */
    s->neval += (long long)g.nev[b];
    g.nev[b] = 0;
  }
}

/* ---- the scan's next round, one thread per integral ----------------------
   The features the last round's searches found (gcuba_cutmap_found), and
   the lines of the next round; when there are none, the map is ready and
   the searches' evaluations count. */
__global__ void k_scan_next(gcuba_bargs g, int m)
{
  const int a = blockIdx.x * blockDim.x + threadIdx.x, ndim = g.ndim;
  if (a >= m) return;
  const int b = g.act[a];
  if (b < 0) return;
  gcuba_bint *s = &g.st[b];
  const long long j0 = (long long)a * GCUBA_SCAN_LINES * ndim;
  if (s->code != BRUN || !s->scan) return;
  if (g.status[b] & GCUBA_ST_ABORT) {
    s->scan = 0;
    finish(g, s, b, BABORT);
    return;
  }
  gcuba_cutmap_found(&s->cm, ndim, g.slo + j0 * ndim, g.sw + j0 * ndim,
                     g.sax + j0, g.scut + j0, g.sfound + j0,
                     g.sjump + j0);
  if (!scan_boxes(g, a, b, 1)) {
    s->scan = 0;
    s->neval += (long long)g.nev[b];
    g.nev[b] = 0;
  } else
    atomicAdd(g.nscan, 1ULL);
}

/* ---- the split: kind, histogram, plan, classes, cuts ----------------------
   As the driver's run() and choose_thresholds() with the CPU backend's
   hist and apply: the classes of the integral's leaves in cls, the cut of
   each split one in cax and cq (the fraction, or -1 - its component when
   a search is to find it), the counts of its next partition. */
__global__ void __launch_bounds__(BBLOCK) k_split(gcuba_bargs g)
{
  __shared__ gcuba_hist h;
  extern __shared__ double red[]; /* [2 * ncomp * BBLOCK] */
  __shared__ long long c1[BBLOCK], c2[BBLOCK];
  __shared__ int kind, again, searching;
  const int b = g.act[blockIdx.x], tid = threadIdx.x, nc = g.ncomp;
  const int ndim = g.ndim;
  if (b < 0) return;
  gcuba_bint *s = &g.st[b];
  const gcuba_cutmap *cm = g.cuts ? &s->cm : NULL;
  const long long nl = s->kcnt + s->ncnt;
  long long j0, j1;
  run_of(nl, &j0, &j1);
  if (tid == 0) {
    gcuba_cuhre_state v = view(s, nc);
    kind = s->code != BRUN ? GCUBA_CUHRE_CONVERGED
                           : gcuba_cuhre_split_kind(
                                 &v, nl, s->neval, g.mineval, g.maxeval, g.np,
                                 gcuba_cuhre_split_nevals(g.np, cm),
                                 g.maxregions);
    s->nkeep = s->nsplit = s->nsearch = 0;
    if (kind == GCUBA_CUHRE_SPLITALL) gcuba_cuhre_split_all(&s->cl);
    else if (kind == GCUBA_CUHRE_PLAN)
      gcuba_cuhre_relative(&v, !g.relfinish, g.degree, g.epsrel, g.epsabs,
                           &s->cl);
    else if (s->code == BRUN)
      finish(g, s, b, kind);
    s->cl.budget = s->budget;
  }
  __syncthreads();
  if (kind != GCUBA_CUHRE_SPLITALL && kind != GCUBA_CUHRE_PLAN) return;
  while (kind == GCUBA_CUHRE_PLAN) {
    /* the histogram of the keys the relative-error part leaves */
    gcuba_classify rel = s->cl;
    double re[BNC];
    long long nrel = 0;
    rel.fin_thresh = -1;
    rel.split_thresh = HUGE_VAL;
    rel.split_max = -1;
    for (int j = tid; j < GCUBA_HIST_BINS; j += BBLOCK) h.count[j] = 0;
    for (int c = 0; c < nc; ++c) re[c] = 0;
    __syncthreads();
    for (long long j = j0; j < j1; ++j) {
      const long long i = leaf(s, j);
      double key = 0;
      int comp;
      if (gcuba_cuhre_leaf(g.a.avg + i * nc, g.a.err + i * nc, nc,
                           gcuba_leaf_vol(g.a.w + i * ndim, ndim), &rel,
                           s->budget, &key, &comp) == GCUBA_LEAF_FIN) {
        ++nrel;
        for (int c = 0; c < nc; ++c) re[c] += g.a.err[i * nc + c];
      } else
        atomicAdd((unsigned long long *)&h.count[gcuba_hist_bin(key)], 1ULL);
    }
    for (int c = 0; c < nc; ++c) red[c * BBLOCK + tid] = re[c];
    c1[tid] = nrel;
    __syncthreads();
    if (tid == 0) {
      gcuba_cuhre_state v = view(s, nc);
      double e[BNC];
      h.nrel = 0;
      for (int t = 0; t < BBLOCK; ++t) h.nrel += c1[t];
      for (int c = 0; c < nc; ++c) {
        e[c] = 0;
        for (int t = 0; t < BBLOCK; ++t) e[c] += red[c * BBLOCK + t];
      }
      again = 0;
      if (s->cl.relfinish &&
          gcuba_cuhre_relfinish_lower(&v, e) < nc) {
        s->relfrac = v.relfrac;
        gcuba_cuhre_relative(&v, !g.relfinish, g.degree, g.epsrel,
                             g.epsabs, &s->cl);
        again = 1;
      } else {
        gcuba_cuhre_plan p;
        p.n = nl;
        p.minbatch = g.minbatch;
        p.neval = s->neval;
        p.maxeval = g.maxeval;
        p.maxregions = g.maxregions;
        p.small = s->small;
        p.target = GCUBA_CUHRE_GAMMA * s->excess;
        if (gcuba_cuhre_choose(&h, &p, &s->cl, cm, g.np)) {
          kind = GCUBA_CUHRE_NOMEM;
          finish(g, s, b, kind);
        }
      }
      s->cl.budget = s->budget;
    }
    __syncthreads();
    if (!again) break;
  }
  if (kind != GCUBA_CUHRE_SPLITALL && kind != GCUBA_CUHRE_PLAN) return;
  /* the classes, the split ones capped at split_max in leaf order */
  {
    long long ns = 0;
    for (long long j = j0; j < j1; ++j) {
      const long long i = leaf(s, j);
      double key = 0;
      int comp;
      const int k = gcuba_cuhre_leaf(
          g.a.avg + i * nc, g.a.err + i * nc, nc,
          gcuba_leaf_vol(g.a.w + i * ndim, ndim), &s->cl, s->budget, &key,
          &comp);
      g.cls[i] = (unsigned char)k;
      ns += k == GCUBA_LEAF_SPLIT;
    }
    c1[tid] = ns;
  }
  __syncthreads();
  if (tid == 0) scan_block(c1);
  __syncthreads();
  {
    long long rank = c1[tid], ns = 0, nk = 0;
    double fa[BNC], fe[BNC];
    for (int c = 0; c < nc; ++c) fa[c] = fe[c] = 0;
    for (long long j = j0; j < j1; ++j) {
      const long long i = leaf(s, j);
      int k = g.cls[i];
      if (k == GCUBA_LEAF_SPLIT && s->cl.split_max >= 0 &&
          rank++ >= s->cl.split_max)
        g.cls[i] = (unsigned char)(k = GCUBA_LEAF_KEEP);
      if (k == GCUBA_LEAF_FIN)
        for (int c = 0; c < nc; ++c) {
          fa[c] += g.a.avg[i * nc + c];
          fe[c] += g.a.err[i * nc + c];
        }
      else if (k == GCUBA_LEAF_SPLIT)
        ++ns;
      else
        ++nk;
    }
    __syncthreads(); /* every rank read from c1 */
    c1[tid] = ns;
    c2[tid] = nk;
    for (int c = 0; c < nc; ++c) {
      red[c * BBLOCK + tid] = fa[c];
      red[(nc + c) * BBLOCK + tid] = fe[c];
    }
  }
  __syncthreads();
  if (tid == 0) {
    long long ns = 0, nk = 0;
    for (int t = 0; t < BBLOCK; ++t) {
      ns += c1[t];
      nk += c2[t];
    }
    for (int c = 0; c < nc; ++c) {
      /* the threads' sums (a run of leaves each: a 128th of the total,
         whose rounding is a 128th of the total's) compensated, as the CPU
         backend's leaves (gcuba_ksum) */
      double a = s->finavg[c], k = 0;
      for (int t = 0; t < BBLOCK; ++t) {
        gcuba_ksum(&a, &k, red[c * BBLOCK + t]);
        s->finerr[c] += red[(nc + c) * BBLOCK + t];
      }
      s->finavg[c] = a + k;
    }
    s->nfinished += nl - nk - ns;
    s->nkeep = nk;
    s->nsplit = ns;
    searching = cm && !s->cl.nocut && gcuba_cut_searching(cm, ns);
  }
  __syncthreads();
  /* where each split leaf is cut (the CPU backend's cut_region) */
  {
    long long nsr = 0;
    for (long long j = j0; j < j1; ++j) {
      const long long i = leaf(s, j);
      int comp, ax;
      double q;
      if (g.cls[i] != GCUBA_LEAF_SPLIT) continue;
      gcuba_cuhre_key(g.a.err + i * nc, nc, s->budget, &comp);
      if (gcuba_cuhre_cut_leaf(cm, ndim, g.a.lo + i * ndim, g.a.w + i * ndim,
                               gcuba_rule_axis(g.a.dims[i * nc + comp]),
                               searching, &ax, &q)) {
        q = -1.0 - comp;
        ++nsr;
      }
      g.cax[i] = ax;
      g.cq[i] = q;
    }
    c1[tid] = nsr;
  }
  __syncthreads();
  if (tid == 0) {
    long long nsr = 0;
    for (int t = 0; t < BBLOCK; ++t) nsr += c1[t];
    s->nsearch = nsr;
  }
}

/* the scans' entries: [m] of each, a zero at m (the totals) */
__global__ void k_counts(gcuba_bargs g, int m, long long *kn, long long *sr)
{
  const int a = blockIdx.x * blockDim.x + threadIdx.x;
  if (a > m) return;
  if (a == m) {
    kn[a] = sr[a] = 0;
    return;
  }
  const int b = g.act[a];
  const gcuba_bint *s = b >= 0 ? &g.st[b] : NULL;
  const int run = s && s->code == BRUN;
  kn[a] = run ? (long long)((unsigned long long)s->nsplit << 32) + s->nkeep
              : 0;
  sr[a] = run ? (long long)((unsigned long long)s->nsearch << 32) + 1 : 0;
}

/* the split leaves that search for their cut, into the search's boxes (at
   the integral's offset in sr's scan), in leaf order */
__global__ void __launch_bounds__(BBLOCK)
    k_cutlist(gcuba_bargs g, const long long *sr)
{
  __shared__ long long c1[BBLOCK];
  const int b = g.act[blockIdx.x], tid = threadIdx.x, ndim = g.ndim;
  if (b < 0) return;
  const gcuba_bint *s = &g.st[b];
  if (s->code != BRUN || !s->nsearch) return;
  const long long nl = s->kcnt + s->ncnt;
  long long j0, j1, n = 0;
  run_of(nl, &j0, &j1);
  for (long long j = j0; j < j1; ++j) {
    const long long i = leaf(s, j);
    n += g.cls[i] == GCUBA_LEAF_SPLIT && g.cq[i] < 0;
  }
  c1[tid] = n;
  __syncthreads();
  if (tid == 0) scan_block(c1);
  __syncthreads();
  {
    long long k = BHI(sr[blockIdx.x]) + c1[tid];
    for (long long j = j0; j < j1; ++j) {
      const long long i = leaf(s, j);
      if (g.cls[i] != GCUBA_LEAF_SPLIT || !(g.cq[i] < 0)) continue;
      for (int d = 0; d < ndim; ++d) {
        g.slo[k * ndim + d] = g.a.lo[i * ndim + d];
        g.sw[k * ndim + d] = g.a.w[i * ndim + d];
      }
      g.sax[k] = g.cax[i];
      g.scut[k] = g.cq[i];
      g.sown[k] = b;
      g.sidx[i] = (int)k;
      ++k;
    }
  }
}

/* ---- the next partition (the CPU backend's apply and move1) ---------------
   Kept leaves to their integral's place among the kept ones, the children
   of the split ones to its place among the new pairs (from leaf knext on),
   with their parents' records; the integral's state; the running ones
   into actnext. */
__global__ void __launch_bounds__(BBLOCK)
    k_scatter(gcuba_bargs g, const long long *kn, const long long *sr,
              long long knext, gcuba_bleaves o, int *actnext)
{
  __shared__ long long c1[BBLOCK], c2[BBLOCK];
  __shared__ int dead;
  const int b = g.act[blockIdx.x], tid = threadIdx.x, nc = g.ncomp;
  const int ndim = g.ndim;
  if (b < 0) return;
  gcuba_bint *s = &g.st[b];
  if (s->code != BRUN) return;
  const long long nl = s->kcnt + s->ncnt, kofs = BLO(kn[blockIdx.x]);
  const long long pofs = BHI(kn[blockIdx.x]);
  long long j0, j1, nk = 0, ns = 0;
  if (tid == 0) dead = (g.status[b] & GCUBA_ST_ABORT) != 0;
  run_of(nl, &j0, &j1);
  for (long long j = j0; j < j1; ++j) {
    const int k = g.cls[leaf(s, j)];
    nk += k == GCUBA_LEAF_KEEP;
    ns += k == GCUBA_LEAF_SPLIT;
  }
  c1[tid] = nk;
  c2[tid] = ns;
  __syncthreads();
  if (tid == 0) {
    scan_block(c1);
    scan_block(c2);
  }
  __syncthreads();
  {
    long long rk = kofs + c1[tid], rs = pofs + c2[tid];
    const int own = dead ? -1 : b;
    for (long long j = j0; j < j1; ++j) {
      const long long i = leaf(s, j);
      const int k = g.cls[i];
      if (k == GCUBA_LEAF_KEEP) {
        const long long q = rk++;
        for (int d = 0; d < ndim; ++d) {
          o.lo[q * ndim + d] = g.a.lo[i * ndim + d];
          o.w[q * ndim + d] = g.a.w[i * ndim + d];
        }
        for (int c = 0; c < nc; ++c) {
          o.avg[q * nc + c] = g.a.avg[i * nc + c];
          o.err[q * nc + c] = g.a.err[i * nc + c];
          o.dims[q * nc + c] = g.a.dims[i * nc + c];
        }
        o.own[q] = own;
      } else if (k == GCUBA_LEAF_SPLIT) {
        const long long p = rs++, q = knext + 2 * p;
        const int ax = g.cax[i];
        const double f = g.cq[i] < 0 ? g.scut[g.sidx[i]] : g.cq[i];
        for (int d = 0; d < ndim; ++d) {
          const double l = g.a.lo[i * ndim + d], w = g.a.w[i * ndim + d];
          o.lo[q * ndim + d] = o.lo[(q + 1) * ndim + d] = l;
          o.w[q * ndim + d] = o.w[(q + 1) * ndim + d] = w;
        }
        {
          const double w = g.a.w[i * ndim + ax], w1 = f * w;
          o.w[q * ndim + ax] = w1;
          o.w[(q + 1) * ndim + ax] = w - w1;
          o.lo[(q + 1) * ndim + ax] = g.a.lo[i * ndim + ax] + w1;
        }
        for (int c = 0; c < nc; ++c) {
          g.pavg[p * nc + c] = g.a.avg[i * nc + c];
          g.perr[p * nc + c] =
              gcuba_rule_parent_err(g.a.err[i * nc + c], g.a.dims[i * nc + c]);
        }
        o.own[q] = o.own[q + 1] = own;
      }
    }
  }
  __syncthreads(); /* every thread has read where the leaves were */
  if (tid == 0) {
    const long long run = BLO(sr[blockIdx.x]);
    s->koff = kofs;
    s->kcnt = s->nkeep;
    s->noff = knext + 2 * pofs;
    s->ncnt = 2 * s->nsplit;
    s->haveparents = 1;
    ++s->iter;
    s->neval += (long long)g.nev[b];
    g.nev[b] = 0;
    if (dead) {
      finish(g, s, b, BABORT);
      actnext[run] = -1;
    } else
      actnext[run] = b;
  }
}

/* ---- the launches ------------------------------------------------------- */

static unsigned nblk(long long n, int threads)
{
  const long long b = (n + threads - 1) / threads;
  return (unsigned)(b < 1 ? 1 : b);
}

extern "C" int gcuba_b_admit(const gcuba_bargs *g, int first, int count,
                             long long base, int *act, int m, void *stream)
{
  const int small = gcuba_cuhre_start(g->np, g->ndim, g->maxeval, NULL);
  const int n0 = small ? 1 : 1 << (g->ndim < 10 ? g->ndim : 10);
  const int slot = n0 + (n0 & 1);
  if (count <= 0) return 0;
  k_admit<<<nblk((long long)count * slot, 256), 256, 0,
            (cudaStream_t)stream>>>(*g, first, count, base, slot, n0, act, m);
  return (int)cudaPeekAtLastError();
}

extern "C" int gcuba_b_evaluated(const gcuba_bargs *g, int m, int scan,
                                 void *stream)
{
  if (m <= 0) return 0;
  k_evaluated<<<(unsigned)m, BBLOCK,
                sizeof(double) * 2 * g->ncomp * BBLOCK,
                (cudaStream_t)stream>>>(*g, scan);
  return (int)cudaPeekAtLastError();
}

extern "C" int gcuba_b_scan_next(const gcuba_bargs *g, int m,
                                 void *stream)
{
  if (m <= 0) return 0;
  k_scan_next<<<nblk(m, 128), 128, 0, (cudaStream_t)stream>>>(*g, m);
  return (int)cudaPeekAtLastError();
}

extern "C" int gcuba_b_split(const gcuba_bargs *g, int m, void *stream)
{
  if (m <= 0) return 0;
  k_split<<<(unsigned)m, BBLOCK, sizeof(double) * 2 * g->ncomp * BBLOCK,
            (cudaStream_t)stream>>>(*g);
  return (int)cudaPeekAtLastError();
}

extern "C" int gcuba_b_counts(const gcuba_bargs *g, int m, long long *kn,
                              long long *sr, void *stream)
{
  k_counts<<<nblk(m + 1, 256), 256, 0, (cudaStream_t)stream>>>(*g, m, kn,
                                                                 sr);
  return (int)cudaPeekAtLastError();
}

extern "C" int gcuba_b_cutlist(const gcuba_bargs *g, int m,
                               const long long *sr, void *stream)
{
  if (m <= 0) return 0;
  k_cutlist<<<(unsigned)m, BBLOCK, 0, (cudaStream_t)stream>>>(*g, sr);
  return (int)cudaPeekAtLastError();
}

extern "C" int gcuba_b_scatter(const gcuba_bargs *g, int m,
                               const long long *kn, const long long *sr,
                               long long knext, gcuba_bleaves b,
                               int *actnext, void *stream)
{
  if (m <= 0) return 0;
  k_scatter<<<(unsigned)m, BBLOCK, 0, (cudaStream_t)stream>>>(
      *g, kn, sr, knext, b, actnext);
  return (int)cudaPeekAtLastError();
}
