/* src/cpu/vegas_cpu.c -- the CPU backend of gVegas: one iteration's samples
   as OpenMP loops.  Threads take groups of 256 chunks (a chunk being the
   batch of cubes one GPU thread does), evaluate them in chunk order and
   reduce each group with the canonical tree of gcuba/detail/vegas.h; the
   group results are reduced the same way and the slices added in order,
   so the sums are those of the CUDA backend bit for bit, for any number of
   threads.  Bin contributions of adapting iterations go through exact
   128-bit integer sums (per thread, then merged), hence are independent of
   the order too.  Buffers grow geometrically and are reused from iteration
   to iteration.  This file is part of gcuba. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "vegas/backend.h"
#include "common/coll.h"
#include "gcuba/detail/gpu_ops.h"
#include "common/pool.h"
#include "cpu/work.h"

/* most points per call of an nvec-form integrand */
#define BATCH 1024
/* the threads a slice gets: src/cpu/work.h (the integrand's cost is
   measured on the call's first samples) */
/* the fewest nanoseconds of work one grab of chunks holds */
#define GRABNS 50000.0
/* slices of at most this many groups are shared out chunk by chunk when
   they pay for more than one thread (or the cost is not known) */
#define CHUNKWISE_GROUPS 64
/* most bytes kept for the bins of a slice's samples */
#define BINBUF ((long long)1 << 28)

/* The sampler's fma() calls (include/gcuba/detail/vegas.h: the same bits on
   every back end) are library calls on a baseline x86-64 build.  GCC on
   Linux builds the two hot loops twice, with and without the FMA
   instructions, and picks one when the library is loaded; contraction of
   other products and sums stays off, so both give the same bits. */
#if defined(__x86_64__) && defined(__linux__) && defined(__GNUC__) && \
    !defined(__clang__) && __GNUC__ >= 6
#define FMA_CLONES \
  __attribute__((target_clones("fma", "default"), optimize("fp-contract=off")))
#else
#define FMA_CLONES
#endif

typedef struct {
  double *x;         /* [batch*ndim] points */
  double *w;         /* [batch] Jacobians */
  double *wt;        /* [batch] Cuba's weights J/calls (nvec integrands) */
  double *f;         /* [batch*ncomp] values */
  double *s1, *s2;   /* [ncomp] sums of the cube being accumulated */
  double *fx;        /* [2*ncomp] largest and smallest F this iteration */
  double *col;       /* [2*ncomp][GROUP] chunk sums of the current group */
  double *cw;        /* where the chunk sums go: col, or a group's columns
                        of the shared cpu.scol */
  int *c;            /* [ndim] cube coordinates */
  int *b;            /* [batch*ndim] bins of the points */
  double *u;         /* [ndim] a sample's point y (bin pass) */
  uint64_t *sx;      /* [ndim] the current Sobol point's bits (seed 0) */
  uint64_t *hi, *lo; /* [ndim*nb] exact bin sums of this thread */
  double qmax;
  int st;
} thr;

typedef struct {
  gcuba_call *c;
  int ndim, ncomp, nb, shared, nthreads, batch;
  thr *t;
  double *grp;       /* [2*ncomp][ngroups] group results of a slice */
  long long grpcap;
  double *fj;        /* [slice samples] q of each sample (bin pass) */
  long long fjcap;
  uint16_t *bb;      /* [slice samples * ndim] their bins, when they fit
                        in BINBUF bytes (else the bin pass recomputes) */
  long long bbcap;
  int bbon;          /* bb in use this iteration */
  uint64_t *hi, *lo; /* [ndim*nb] merged bin sums of a slice */
  double *uv;        /* adaptive stratification: [slice units] each unit's
                        gcuba_vegas_unit_var, added to cvar in order */
  long long uvcap;
  double *tot;       /* [2*ncomp] */
  double *scol;      /* [groups][2*ncomp][GROUP] chunk sums of a slice
                        shared out chunk by chunk */
  double ns;         /* measured nanoseconds per sample, < 0 not yet */
  /* a collective call (c->coll): each process samples its share of every
     slice's groups; these hold the exchange */
  double *gx;        /* [ngroups][2*ncomp] group results, by group */
  long long gxcap;
  uint64_t *xhl;     /* [processes][2][ndim*nb] every process's bin sums */
  long long *cnt;    /* [2*processes] shares */
  volatile int abort;
} cpu;

static int grow(void **p, long long *cap, long long n, size_t size)
{
  void *q;
  if (n <= *cap) return 0;
  if (n < 2 * *cap) n = 2 * *cap;
  q = realloc(*p, (size_t)n * size);
  if (!q) return -1;
  *p = q;
  *cap = n;
  return 0;
}

static void destroy(void *ctx)
{
  cpu *t = (cpu *)ctx;
  int i;
  if (!t) return;
  if (t->t)
    for (i = 0; i < t->nthreads; ++i) {
      thr *h = &t->t[i];
      free(h->x);
      free(h->w);
      free(h->wt);
      free(h->f);
      free(h->s1);
      free(h->s2);
      free(h->fx);
      free(h->col);
      free(h->c);
      free(h->b);
      free(h->u);
      free(h->sx);
      free(h->hi);
      free(h->lo);
    }
  free(t->t);
  free(t->grp);
  free(t->fj);
  free(t->bb);
  free(t->hi);
  free(t->lo);
  free(t->uv);
  free(t->tot);
  free(t->scol);
  free(t->gx);
  free(t->xhl);
  free(t->cnt);
  free(t);
}

static void *create(gcuba_call *c, const gcuba_vegas_setup *s, int *fail)
{
  cpu *t = (cpu *)calloc(1, sizeof *t);
  size_t nd, nc, cells;
  int i;
  if (!t) goto nomem;
  t->c = c;
  t->ndim = s->ndim;
  t->ncomp = s->ncomp;
  t->nb = s->nb;
  t->shared = s->shared;
  t->nthreads = c->threads > 0 ? c->threads : 1;
  t->ns = -1;
  t->batch = 1;
  if (c->integrand->kind == GCUBA_DESC_NVEC) {
    long long b = c->nvec < c->nbatch ? c->nvec : c->nbatch;
    t->batch = b < BATCH ? (int)b : BATCH;
    if (t->batch < 1) t->batch = 1;
  }
  nd = (size_t)s->ndim;
  nc = (size_t)s->ncomp;
  cells = nd * (size_t)s->nb;
  t->t = (thr *)calloc((size_t)t->nthreads, sizeof *t->t);
  t->hi = (uint64_t *)malloc(cells * sizeof(uint64_t));
  t->lo = (uint64_t *)malloc(cells * sizeof(uint64_t));
  t->tot = (double *)malloc(2 * nc * sizeof(double));
  if (t->nthreads > 1)
    t->scol = (double *)malloc(CHUNKWISE_GROUPS * 2 * nc * GCUBA_VEGAS_GROUP *
                               sizeof(double));
  if (!t->t || !t->hi || !t->lo || !t->tot || (t->nthreads > 1 && !t->scol))
    goto nomem;
  if (c->coll) {
    t->xhl = (uint64_t *)malloc(2 * cells * c->coll->size * sizeof(uint64_t));
    t->cnt = (long long *)malloc(2 * c->coll->size * sizeof(long long));
    if (!t->xhl || !t->cnt) goto nomem;
  }
  for (i = 0; i < t->nthreads; ++i) {
    thr *h = &t->t[i];
    h->x = (double *)malloc((size_t)t->batch * nd * sizeof(double));
    h->w = (double *)malloc((size_t)t->batch * sizeof(double));
    h->wt = (double *)malloc((size_t)t->batch * sizeof(double));
    h->f = (double *)malloc((size_t)t->batch * nc * sizeof(double));
    h->s1 = (double *)malloc(nc * sizeof(double));
    h->s2 = (double *)malloc(nc * sizeof(double));
    h->fx = (double *)malloc(2 * nc * sizeof(double));
    h->col = (double *)malloc(2 * nc * GCUBA_VEGAS_GROUP * sizeof(double));
    h->c = (int *)malloc(nd * sizeof(int));
    h->b = (int *)malloc((size_t)t->batch * nd * sizeof(int));
    h->u = (double *)malloc(nd * sizeof(double));
    h->sx = (uint64_t *)malloc(nd * sizeof(uint64_t));
    h->hi = (uint64_t *)malloc(cells * sizeof(uint64_t));
    h->lo = (uint64_t *)malloc(cells * sizeof(uint64_t));
    if (!h->x || !h->w || !h->wt || !h->f || !h->s1 || !h->s2 || !h->fx || !h->col || !h->c || !h->b ||
        !h->u || !h->sx || !h->hi || !h->lo)
      goto nomem;
  }
  return t;
nomem:
  destroy(t);
  *fail = gcuba_fail(c, GCUBA_FAIL_NOMEM, "allocating the CPU sampler");
  return NULL;
}

/* where the evaluated samples go: the cube being accumulated and the chunk
   it belongs to (a column of the group buffer h->col) */
typedef struct {
  int64_t k;       /* sample of the cube being accumulated */
  int64_t cube;    /* that cube (a unit with it->R) */
  int64_t cend;    /* end of its chunk */
  int64_t jj;      /* its chunk's column in the group buffer */
  /* with it->R: the unit's cube h, the end of h's units, their k factors
     and rho, and where unit u's gcuba_vegas_unit_var goes (uv[u]) */
  int64_t h, hend;
  double ck[3], rho;
  double *uv;
  int64_t u0;
} acc_state;

/* a's k factors and rho for the units of cube a->h */
static void unit_set(const gcuba_vegas_iter *it, acc_state *a)
{
  const int64_t r = it->R[a->h + 1] - it->R[a->h];
  a->hend = it->R[a->h + 1];
  gcuba_vegas_unit_k(it->strat.npg, it->nreal, r, it->strat.ncubes, a->ck,
                     &a->rho);
}

/* a starts at cube (a unit with it->R) */
static void acc_start(const gcuba_vegas_iter *it, acc_state *a,
                      int64_t cube)
{
  a->k = 0;
  a->cube = cube;
  if (it->R) {
    a->h = gcuba_vegas_unit_cube(it->R, it->nreal, cube);
    unit_set(it, a);
  } else {
    a->ck[0] = it->ck[0];
    a->ck[1] = it->ck[1];
    a->ck[2] = it->ck[2];
    a->rho = 1;
  }
}

/* sample i's bins, kept for the bin pass */
static inline void keep_bins(const thr *h, uint16_t *bb, int i, int ndim)
{
  int ax;
  for (ax = 0; ax < ndim; ++ax)
    bb[(size_t)i * ndim + ax] = (uint16_t)h->b[(size_t)i * ndim + ax];
}

/* the cube being accumulated is complete: its estimate into its chunk's
   column, and on to the next cube */
static inline void cube_done(thr *h, const gcuba_vegas_iter *it,
                             acc_state *a, int ncomp)
{
  double *cI = h->cw + a->jj, *cV = cI + (size_t)ncomp * GCUBA_VEGAS_GROUP;
  int comp;
  for (comp = 0; comp < ncomp; ++comp) {
    double ci, vi;
    gcuba_vegas_cube_estimate_k(h->s1[comp], h->s2[comp], a->ck, &ci, &vi);
    cI[(size_t)comp * GCUBA_VEGAS_GROUP] += ci;
    cV[(size_t)comp * GCUBA_VEGAS_GROUP] += vi;
  }
  if (it->R) {
    double u = 0;
    for (comp = 0; comp < ncomp; ++comp)
      u = gcuba_vegas_unit_var(u, h->s1[comp], h->s2[comp], a->ck[2],
                               it->qw[comp]);
    a->uv[a->cube - a->u0] = u;
  }
  a->k = 0;
  if (it->R && a->cube + 1 == a->hend && a->cube + 1 < it->strat.ncubes) {
    ++a->h;
    unit_set(it, a);
  }
  if (++a->cube == a->cend) { /* and so is its chunk */
    ++a->jj;
    a->cend += it->plan.cpt;
    if (a->cend > it->strat.ncubes) a->cend = it->strat.ncubes;
  }
}

/* evaluate the n points in h->x and fold them into the chunk sums in
   order; the samples' bin contributions q go to fj[0..n-1] and their bins
   to bb when these are not NULL */
FMA_CLONES
static int flush(cpu *t, thr *h, const gcuba_vegas_iter *it, int n,
                 acc_state *a, double *fj, uint16_t *bb, int tid)
{
  const gcuba_call *c = t->c;
  const int ndim = t->ndim, ncomp = t->ncomp;
  const int64_t npg = it->strat.npg;
  gintegrand_t in = c->integrand;
  int i, comp;
  if (in->kind == GCUBA_DESC_NVEC) {
    const double wc = 1.0 / (double)it->strat.calls;
    int iter1 = (int)it->iter + 1;
    for (i = 0; i < n; ++i) h->wt[i] = h->w[i] * wc; /* Cuba's weights */
    if (((gcuba_vegas_nvec_fn)in->fn)(&t->ndim, h->x, &t->ncomp, h->f,
                                      gcuba_ud_thread(&c->ud, tid), &n, &tid, h->wt,
                                      &iter1) == -999)
      return GCUBA_ST_ABORT;
  } else {
    for (i = 0; i < n; ++i)
      if (in->fn(&t->ndim, h->x + (size_t)i * ndim, &t->ncomp,
                 h->f + (size_t)i * ncomp, gcuba_ud_thread(&c->ud, tid)) == -999)
        return GCUBA_ST_ABORT;
  }
  if (ncomp == 1) {
    /* the same operations in the same order, with the cube's sums and
       the extremes in registers: a chain through memory cost a third of
       this function */
    double s1 = h->s1[0], s2 = h->s2[0], fhi = h->fx[0], flo = h->fx[1];
    double qmax = h->qmax;
    const double qw = fj ? it->qw[0] : 0;
    int st = 0;
    for (i = 0; i < n; ++i) {
      const double f = h->f[i];
      double F;
      if (a->k == 0) s1 = s2 = 0;
      if (!isfinite(f)) st |= GCUBA_ST_NONFINITE;
      F = gcuba_vegas_acc(f, h->w[i], &s1, &s2);
      {
        const double Fx = F * a->rho;
        if (Fx > fhi) fhi = Fx;
        if (Fx < flo) flo = Fx;
      }
      if (fj) {
        /* (a unit's samples count in the bins by its weight rho) */
        const double q = gcuba_vegas_qfix(gcuba_vegas_q(0, F, qw)) * a->rho;
        fj[i] = q;
        if (q > qmax) qmax = q;
        if (bb) keep_bins(h, bb, i, ndim);
      }
      if (++a->k == npg) {
        h->s1[0] = s1;
        h->s2[0] = s2;
        cube_done(h, it, a, 1);
      }
    }
    h->s1[0] = s1;
    h->s2[0] = s2;
    h->fx[0] = fhi;
    h->fx[1] = flo;
    h->qmax = qmax;
    h->st |= st;
    return 0;
  }
  for (i = 0; i < n; ++i) {
    const double *f = h->f + (size_t)i * ncomp;
    const double jac = h->w[i];
    double q = 0;
    if (a->k == 0)
      for (comp = 0; comp < ncomp; ++comp) h->s1[comp] = h->s2[comp] = 0;
    for (comp = 0; comp < ncomp; ++comp) {
      double F;
      if (!isfinite(f[comp])) h->st |= GCUBA_ST_NONFINITE;
      F = gcuba_vegas_acc(f[comp], jac, &h->s1[comp], &h->s2[comp]);
      if (F * a->rho > h->fx[comp]) h->fx[comp] = F * a->rho;
      if (F * a->rho < h->fx[ncomp + comp]) h->fx[ncomp + comp] = F * a->rho;
      if (fj) q = gcuba_vegas_q(q, F, it->qw[comp]);
    }
    if (fj) {
      q = gcuba_vegas_qfix(q) * a->rho;
      fj[i] = q;
      if (q > h->qmax) h->qmax = q;
      if (bb) keep_bins(h, bb, i, ndim);
    }
    if (++a->k == npg) cube_done(h, it, a, ncomp);
  }
  return 0;
}

/* the chunks [j0, j1) of a group whose first chunk is g0: their sums into
   columns j - g0 of h->cw (zeroed before), q of their samples to fj and
   their bins to bb (positions relative to the slice's first sample s0)
   when these are not NULL.  Samples are evaluated in batches that may
   span chunks (nvec-form integrands get up to t->batch points a call) and
   folded into the sums in sample order. */
FMA_CLONES
static int chunks(cpu *t, thr *h, const gcuba_vegas_iter *it, int64_t j0,
                  int64_t j1, int64_t g0, double *fj, uint16_t *bb,
                  double *uv, int64_t u0, int tid)
{
  const gcuba_vegas_strat_t *s = &it->strat;
  const int ndim = t->ndim;
  const uint64_t *sob = it->sobol;
  int64_t cube = j0 * it->plan.cpt, end = j1 * it->plan.cpt, k;
  uint64_t q = 0; /* Sobol: the point of the next sample (gcuba_vegas_y) */
  int64_t gh = 0, ghend = 0; /* it->R: the cube of the unit sampled */
  int n = 0, rc;
  acc_state a;
  if (end > s->ncubes) end = s->ncubes;
  if (sob) {
    /* the chunks' samples are consecutive points: the first from its
       index, the others one step each */
    q = it->qoff + (uint64_t)cube * (uint64_t)s->npg + 1;
    gcuba_vegas_sobol_walk_start(sob, ndim, q, h->sx);
  }
  acc_start(it, &a, cube);
  a.cend = cube + it->plan.cpt < s->ncubes ? cube + it->plan.cpt : s->ncubes;
  a.jj = j0 - g0;
  a.uv = uv;
  a.u0 = u0;
  if (it->R) {
    gh = a.h;
    ghend = a.hend;
    gcuba_vegas_cube_coords(s, gh, h->c);
  } else
    gcuba_vegas_cube_coords(s, cube, h->c);
  for (; cube < end; ++cube) {
    for (k = 0; k < s->npg; ++k) {
      double *x = h->x + (size_t)n * ndim;
      if (sob) {
        gcuba_vegas_sobol_walk(sob, ndim, q, h->sx, x);
        ++q;
        h->w[n] = gcuba_vegas_map(it->grid, t->nb, t->shared, ndim, x, x,
                                  h->b + (size_t)n * ndim, it->epow);
      } else
        h->w[n] = gcuba_vegas_sample(it->seed, it->iter, it->sobol,
                                     it->qoff, s, cube, k, h->c, it->grid,
                                     t->nb, t->shared, it->epow, x,
                                     h->b + (size_t)n * ndim);
      if (++n == t->batch) {
        if ((rc = flush(t, h, it, n, &a, fj, bb, tid))) return rc;
        if (fj) fj += n;
        if (bb) bb += (size_t)n * ndim;
        n = 0;
        if (t->abort) return 0;
      }
    }
    if (!it->R)
      gcuba_vegas_cube_next(s, h->c);
    else if (cube + 1 == ghend && cube + 1 < s->ncubes) {
      ghend = it->R[++gh + 1];
      gcuba_vegas_cube_next(s, h->c);
    }
  }
  if (n && (rc = flush(t, h, it, n, &a, fj, bb, tid))) return rc;
  return 0;
}

/* the canonical tree over n values v[0..n-1] (n >= 1, modified) */
static double tree(double *v, int64_t n)
{
  double g[GCUBA_VEGAS_GROUP];
  while (n > 1) {
    int64_t m = gcuba_vegas_tree_next(n), j;
    for (j = 0; j < m; ++j) {
      int64_t i0 = j * GCUBA_VEGAS_GROUP, i;
      for (i = 0; i < GCUBA_VEGAS_GROUP; ++i)
        g[i] = i0 + i < n ? v[i0 + i] : 0;
      gcuba_vegas_tree_group(g);
      v[j] = g[0];
    }
    n = m;
  }
  return v[0];
}

/* bin pass over the chunks [c0, c1) of a slice whose first sample is s0:
   exact sums into h->hi, h->lo */
static void bins(cpu *t, thr *h, const gcuba_vegas_iter *it, int64_t c0,
                 int64_t c1, int64_t s0, int E)
{
  const gcuba_vegas_strat_t *s = &it->strat;
  const int ndim = t->ndim, nb = t->nb;
  /* the cubes' coordinates place the points of stratified samples only
     (gcuba_vegas_y), and are not needed when the bins were kept */
  const int coords = !t->bbon && !it->sobol;
  /* 2^E as a factor where it is a normal double (gcuba_vegas_fx_split_p) */
  const int scaled = E >= -1022 && E <= 1023;
  const double p = scaled ? ldexp(1.0, E) : 0;
  int64_t ch, cube, k, gh = 0, ghend = 0;
  int a;
  for (ch = c0; ch < c1; ++ch) {
    int64_t end = (ch + 1) * it->plan.cpt;
    if (end > s->ncubes) end = s->ncubes;
    cube = ch * it->plan.cpt;
    if (coords && it->R) {
      gh = gcuba_vegas_unit_cube(it->R, it->nreal, cube);
      ghend = it->R[gh + 1];
      gcuba_vegas_cube_coords(s, gh, h->c);
    } else if (coords)
      gcuba_vegas_cube_coords(s, cube, h->c);
    for (; cube < end; ++cube) {
      for (k = 0; k < s->npg; ++k) {
        uint64_t sample = (uint64_t)cube * (uint64_t)s->npg + (uint64_t)k;
        const double q = t->fj[(int64_t)sample - s0];
        uint64_t qh, ql;
        if (scaled)
          gcuba_vegas_fx_split_p(q, p, &qh, &ql);
        else
          gcuba_vegas_fx_split(q, E, &qh, &ql);
        if (!(qh | ql)) continue;
        if (t->bbon) {
          const uint16_t *bs = t->bb + ((int64_t)sample - s0) * ndim;
          for (a = 0; a < ndim; ++a) {
            size_t cell = (size_t)a * nb + bs[a];
            gcuba_vegas_fx_add(&h->hi[cell], &h->lo[cell], qh, ql);
          }
          continue;
        }
        gcuba_vegas_y(it->seed, it->iter, it->sobol, it->qoff, s, sample,
                      h->c, h->u);
        for (a = 0; a < ndim; ++a) {
          size_t cell = (size_t)a * nb + gcuba_vegas_bin_of(h->u[a], nb);
          gcuba_vegas_fx_add(&h->hi[cell], &h->lo[cell], qh, ql);
        }
      }
      if (coords && !it->R)
        gcuba_vegas_cube_next(s, h->c);
      else if (coords && cube + 1 == ghend && cube + 1 < s->ncubes) {
        ghend = it->R[++gh + 1];
        gcuba_vegas_cube_next(s, h->c);
      }
    }
  }
}

/* threads for n samples in `units' pieces (groups or chunks):
   gcuba_cpu_threads */
static int slice_threads(const cpu *t, int64_t n, int64_t units)
{
  return gcuba_cpu_threads(n, t->ns, t->nthreads, units);
}

/* a slice's shared loops (common/pool.h): its chunks, its groups, or
   pieces of its chunks for the bin sums */
typedef struct {
  cpu *t;
  const gcuba_vegas_iter *it;
  int64_t c0, c1, s0, ga, k0, k1, first, per, ngmax;
  int E;
} slice_loop;

/* the chunks [j0, j1) of the group whose first chunk is g0, on thread tid
   into h->cw: chunks() at the slice's positions */
static int span(const slice_loop *L, thr *h, int64_t j0, int64_t j1,
                int64_t g0, int tid)
{
  cpu *t = L->t;
  const gcuba_vegas_iter *it = L->it;
  const int64_t pos = j0 * it->plan.cpt * it->strat.npg - L->s0;
  return chunks(t, h, it, j0, j1, g0, it->bins ? t->fj + pos : NULL,
                it->bins && t->bbon ? t->bb + pos * t->ndim : NULL, t->uv,
                L->c0 * it->plan.cpt, tid);
}

/* chunk k of the slice: its sums into its group's columns of t->scol */
static int one_chunk(const slice_loop *L, int64_t k, int tid)
{
  thr *h = &L->t->t[tid];
  const int64_t g = (k - L->c0) / GCUBA_VEGAS_GROUP;
  h->cw = L->t->scol +
          (size_t)(g - L->ga) * 2 * L->t->ncomp * GCUBA_VEGAS_GROUP;
  return span(L, h, k, k + 1, L->c0 + g * GCUBA_VEGAS_GROUP, tid);
}

static int chunk_item(void *ctx, long long i, int tid)
{
  const slice_loop *L = (const slice_loop *)ctx;
  cpu *t = L->t;
  int rc;
  if (t->abort) return 0;
  if ((rc = one_chunk(L, L->first + i, tid))) {
    t->t[tid].st |= rc;
    t->abort = 1;
  }
  return 0;
}

static int group_item(void *ctx, long long i, int tid)
{
  const slice_loop *L = (const slice_loop *)ctx;
  cpu *t = L->t;
  const int nc2 = 2 * t->ncomp;
  const int64_t gi = L->ga + i, g0 = L->c0 + gi * GCUBA_VEGAS_GROUP;
  thr *h = &t->t[tid];
  int64_t j, j1 = L->c0 + (gi + 1) * GCUBA_VEGAS_GROUP;
  int rc, col;
  if (t->abort) return 0;
  if (j1 > L->c1) j1 = L->c1;
  for (j = 0; j < GCUBA_VEGAS_GROUP * (int64_t)nc2; ++j) h->col[j] = 0;
  rc = span(L, h, g0, j1, g0, tid);
  if (rc) {
    h->st |= rc;
    t->abort = 1;
    return 0;
  }
  for (col = 0; col < nc2; ++col) {
    gcuba_vegas_tree_group(h->col + (size_t)col * GCUBA_VEGAS_GROUP);
    t->grp[(size_t)col * L->ngmax + gi] =
        h->col[(size_t)col * GCUBA_VEGAS_GROUP];
  }
  return 0;
}

static int bins_item(void *ctx, long long i, int tid)
{
  const slice_loop *L = (const slice_loop *)ctx;
  const int64_t a = L->k0 + i * L->per;
  const int64_t b = a + L->per < L->k1 ? a + L->per : L->k1;
  if (a < b) bins(L->t, &L->t->t[tid], L->it, a, b, L->s0, L->E);
  return 0;
}

static int iterate(void *ctx, const gcuba_vegas_iter *it, double *sums,
                   double *d)
{
  cpu *t = (cpu *)ctx;
  const int ncomp = t->ncomp, nc2 = 2 * ncomp;
  const int64_t spc = it->plan.spc, nchunks = it->plan.nchunks;
  const int64_t cps = spc * it->plan.cpt * it->strat.npg; /* samples/slice */
  const size_t cells = (size_t)t->ndim * t->nb;
  int64_t sl, ngmax = gcuba_vegas_tree_next(spc);
  int st = 0, i, col;

  const gcuba_collective *coll = t->c->coll;
  int rc = 0;

  if (grow((void **)&t->grp, &t->grpcap, ngmax * nc2, sizeof(double)) ||
      (coll && grow((void **)&t->gx, &t->gxcap, ngmax * nc2, sizeof(double))))
    rc = GCUBA_FAIL_NOMEM;
  if (it->R && !rc) {
    const int64_t upc = spc * it->plan.cpt; /* units per slice */
    if (grow((void **)&t->uv, &t->uvcap,
             upc < it->strat.ncubes ? upc : it->strat.ncubes, sizeof(double)))
      rc = GCUBA_FAIL_NOMEM;
    int64_t hh;
    for (hh = 0; hh < it->nreal; ++hh) it->cvar[hh] = 0;
  }
  if (it->bins && !rc) {
    int64_t need = cps < it->strat.calls ? cps : it->strat.calls;
    if (grow((void **)&t->fj, &t->fjcap, need, sizeof(double)))
      rc = GCUBA_FAIL_NOMEM;
    t->bbon = need * t->ndim * 2 <= BINBUF &&
              !grow((void **)&t->bb, &t->bbcap, need * t->ndim,
                    sizeof(uint16_t));
    for (i = 0; i < (int)cells; ++i) d[i] = 0;
  }
  /* the exchanges below must not wait for a process that has left */
  if (coll && (rc = gcuba_coll_status(t->c, rc))) return rc;
  if (rc) return rc;
  for (col = 0; col < nc2; ++col) t->tot[col] = 0;
  t->abort = 0;
  for (i = 0; i < t->nthreads; ++i)
    for (col = 0; col < ncomp; ++col) {
      t->t[i].fx[col] = -HUGE_VAL;
      t->t[i].fx[ncomp + col] = HUGE_VAL;
    }

  for (sl = 0; sl < it->plan.nslices && !st; ++sl) {
    const int64_t c0 = sl * spc;
    const int64_t c1 = c0 + spc < nchunks ? c0 + spc : nchunks;
    const int64_t ng = gcuba_vegas_tree_next(c1 - c0);
    const int64_t s0 = c0 * it->plan.cpt * it->strat.npg;
    /* this process's groups [ga, gb) (all of them unless collective) and
       their chunks [k0, k1) */
    long long ga = 0, gb = ng;
    int64_t gi, k0, k1, nsmp;
    int nt, chunkwise;
    double qmax = 0, t0;
    slice_loop L;
    if (coll) gcuba_coll_share(coll, ng, &ga, &gb, t->cnt);
    k0 = c0 + ga * GCUBA_VEGAS_GROUP;
    k1 = c0 + gb * GCUBA_VEGAS_GROUP < c1 ? c0 + gb * GCUBA_VEGAS_GROUP : c1;
    nsmp = (k1 > k0 ? k1 - k0 : 0) * it->plan.cpt * it->strat.npg;
    L.t = t;
    L.it = it;
    L.c0 = c0;
    L.c1 = c1;
    L.s0 = s0;
    L.ga = ga;
    L.k0 = k0;
    L.k1 = k1;
    L.ngmax = ngmax;
    for (i = 0; i < t->nthreads; ++i) {
      t->t[i].qmax = 0;
      t->t[i].st = 0;
      t->t[i].cw = t->t[i].col;
    }
    /* a small slice is shared out chunk by chunk: when the integrand's
       cost is not known yet (its first chunk is then timed alone), or
       when it pays for more than one thread (whole groups leave threads
       idle when their count is not a multiple of the threads': 6 groups
       on 4 threads took 2 rounds, and a costly integrand spent 88% of
       the threads' time in the integrand at 4 threads); the chunks' sums
       go to the same columns, hence the same bits, as group by group */
    chunkwise = t->nthreads > 1 && gb - ga <= CHUNKWISE_GROUPS &&
                (t->ns < 0 || slice_threads(t, nsmp, k1 - k0) > 1);
    t0 = gcuba_now_ms();
    if (chunkwise) {
      int64_t k = k0, dyn;
      memset(t->scol, 0,
             (size_t)(gb - ga) * nc2 * GCUBA_VEGAS_GROUP * sizeof(double));
      if (t->ns < 0 && k < k1) {
        const int rc = one_chunk(&L, k, 0);
        const int64_t n1 = it->plan.cpt * it->strat.npg;
        if (rc) {
          t->t[0].st |= rc;
          t->abort = 1;
        }
        t->ns = (gcuba_now_ms() - t0) * 1e6 / (double)n1;
        ++k;
      }
      nt = slice_threads(t, (k1 - k) * it->plan.cpt * it->strat.npg,
                         k1 - k);
      /* grabs of at least GRABNS of work, four per thread at least */
      {
        const double cns = t->ns * (double)(it->plan.cpt * it->strat.npg);
        const int64_t cap = (k1 - k) / (4 * (int64_t)nt);
        dyn = cns > 0 ? (int64_t)(GRABNS / cns) + 1 : 1;
        if (dyn > cap) dyn = cap;
        if (dyn < 1) dyn = 1;
      }
      L.first = k;
      gcuba_pool_for(nt, k1 - k, dyn, chunk_item, &L);
      for (gi = ga; gi < gb && !t->abort; ++gi)
        for (col = 0; col < nc2; ++col) {
          double *v = t->scol + ((size_t)(gi - ga) * nc2 + col) *
                                    GCUBA_VEGAS_GROUP;
          gcuba_vegas_tree_group(v);
          t->grp[(size_t)col * ngmax + gi] = v[0];
        }
    } else {
      nt = slice_threads(t, nsmp, gb - ga);
      gcuba_pool_for(nt, gb - ga, 1, group_item, &L);
    }
    /* the integrand's cost, from this slice (thread time per sample) */
    if (nsmp > 0) {
      const double ns = (gcuba_now_ms() - t0) * 1e6 * nt / (double)nsmp;
      if (!chunkwise || nsmp > it->plan.cpt * it->strat.npg) t->ns = ns;
    }
    for (i = 0; i < t->nthreads; ++i) {
      st |= t->t[i].st;
      if (t->t[i].qmax > qmax) qmax = t->t[i].qmax;
    }
    if (coll) {
      /* every process's status, largest q and group results */
      long long v = st;
      int r;
      if ((rc = gcuba_coll_reduce_ll(t->c, &v, 1, GCUBA_COLL_BOR)) ||
          (rc = gcuba_coll_reduce_d(t->c, &qmax, 1, GCUBA_COLL_MAX)))
        return rc;
      st = (int)v;
      if (st & GCUBA_ST_ABORT) break;
      for (gi = ga; gi < gb; ++gi)
        for (col = 0; col < nc2; ++col)
          t->gx[gi * nc2 + col] = t->grp[(size_t)col * ngmax + gi];
      for (r = 0; r < coll->size; ++r) t->cnt[r] *= nc2;
      if ((rc = gcuba_coll_gather(t->c, t->gx, t->cnt, GCUBA_COLL_DOUBLE)))
        return rc;
      for (gi = 0; gi < ng; ++gi)
        for (col = 0; col < nc2; ++col)
          t->grp[(size_t)col * ngmax + gi] = t->gx[gi * nc2 + col];
    }
    if (st & GCUBA_ST_ABORT) break;
    for (col = 0; col < nc2; ++col)
      t->tot[col] += tree(t->grp + (size_t)col * ngmax, ng);
    if (it->R && !st) {
      /* the units' variances to their cubes, in unit order */
      const int64_t u0 = c0 * it->plan.cpt;
      int64_t u1 = c1 * it->plan.cpt, u, hh;
      if (u1 > it->strat.ncubes) u1 = it->strat.ncubes;
      hh = gcuba_vegas_unit_cube(it->R, it->nreal, u0);
      for (u = u0; u < u1; ++u) {
        if (u == it->R[hh + 1]) ++hh;
        it->cvar[hh] += t->uv[u - u0];
      }
    }

    if (it->bins && !st) {
      const int64_t nsl = (c1 - c0) * it->plan.cpt * it->strat.npg;
      int64_t ns = nsl;
      int E;
      /* the last slice may end in a short chunk */
      if (s0 + ns > it->strat.calls) ns = it->strat.calls - s0;
      E = gcuba_vegas_fx_exp(qmax, ns);
      if (E == GCUBA_VEGAS_FX_NONE) continue;
      /* only the nt threads of the pass below write their bins */
      for (i = 0; i < nt; ++i) {
        memset(t->t[i].hi, 0, cells * sizeof(uint64_t));
        memset(t->t[i].lo, 0, cells * sizeof(uint64_t));
      }
      /* the chunks of this process's groups, in nt pieces */
      L.per = (k1 - k0 + nt - 1) / nt;
      L.E = E;
      gcuba_pool_for(nt, nt, 1, bins_item, &L);
      {
        size_t m;
        for (m = 0; m < cells; ++m) t->hi[m] = t->lo[m] = 0;
        for (i = 0; i < nt; ++i)
          for (m = 0; m < cells; ++m)
            gcuba_vegas_fx_add(&t->hi[m], &t->lo[m], t->t[i].hi[m],
                               t->t[i].lo[m]);
        if (coll) {
          /* exact integer sums: added in any order, the same bits */
          int r;
          uint64_t *mine = t->xhl + 2 * cells * coll->rank;
          memcpy(mine, t->hi, cells * sizeof(uint64_t));
          memcpy(mine + cells, t->lo, cells * sizeof(uint64_t));
          for (r = 0; r < coll->size; ++r)
            t->cnt[r] = (long long)(2 * cells * sizeof(uint64_t));
          if ((rc = gcuba_coll_gather(t->c, t->xhl, t->cnt, GCUBA_COLL_BYTE)))
            return rc;
          for (m = 0; m < cells; ++m) t->hi[m] = t->lo[m] = 0;
          for (r = 0; r < coll->size; ++r)
            for (m = 0; m < cells; ++m)
              gcuba_vegas_fx_add(&t->hi[m], &t->lo[m],
                                 t->xhl[2 * cells * r + m],
                                 t->xhl[2 * cells * r + cells + m]);
        }
        for (m = 0; m < cells; ++m)
          d[m] += gcuba_vegas_fx_value(t->hi[m], t->lo[m], E);
      }
    }
  }
  if (st & GCUBA_ST_ABORT) return GCUBA_FAIL_ABORT;
  if (st & GCUBA_ST_NONFINITE) return GCUBA_FAIL_NAN;
  for (col = 0; col < nc2; ++col) sums[col] = t->tot[col];
  for (col = 0; col < ncomp; ++col) {
    double hi = -HUGE_VAL, lo = HUGE_VAL;
    for (i = 0; i < t->nthreads; ++i) {
      if (t->t[i].fx[col] > hi) hi = t->t[i].fx[col];
      if (t->t[i].fx[ncomp + col] < lo) lo = t->t[i].fx[ncomp + col];
    }
    sums[nc2 + col] = hi;
    sums[nc2 + ncomp + col] = lo;
  }
  if (coll && ((rc = gcuba_coll_reduce_d(t->c, sums + nc2, ncomp,
                                         GCUBA_COLL_MAX)) ||
               (rc = gcuba_coll_reduce_d(t->c, sums + nc2 + ncomp, ncomp,
                                         GCUBA_COLL_MIN))))
    return rc;
  return 0;
}

const gcuba_vegas_ops gcuba_vegas_cpu = {"cpu", create, destroy, iterate,
                                         NULL, NULL};
