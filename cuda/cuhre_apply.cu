/* cuda/cuhre_apply.cu -- the CUDA backend of the Cuhre driver, its
   apply: every leaf classified and marked for the scan, the finished
   ones summed exactly, the split ones cut where gcuba/detail/cut.h says (a
   known feature, or where the integrand's search kernel finds a jump or
   a kink), the kept leaves and the children scattered into the next
   partition.  This file is part of gcuba. */
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <cub/device/device_scan.cuh>
#include "cuda/cuhre_int.cuh"

/* apply: classify every leaf, mark it for the scan (one 64-bit word
   counts both: splits in the high half, kept leaves in the low half; the
   scan's entry n is the totals), and sum the finished leaves' estimates
   and errors into out, exactly */
__global__ void k_mark(long long n, int ncomp, darrays a, dclassify cl,
                       unsigned char *cls, long long *mark,
                       unsigned long long *mx, x128 *part, x128 *out,
                       unsigned int *ticket)
{
  x128 v[2 * GCUBA_CUHRE_GPU_MAXCOMP + 2];
  xscale sc[2 * GCUBA_CUHRE_GPU_MAXCOMP];
  for (int q = 0; q < 2 * ncomp; ++q) {
    v[q].lo = v[q].hi = 0;
    sc[q] = x_prep(mx[q]);
  }
  v[2 * ncomp].lo = v[2 * ncomp].hi = v[2 * ncomp + 1].lo =
      v[2 * ncomp + 1].hi = 0;
  /* mark[n] = 0: the scan's last entry is the totals */
  if (blockIdx.x == 0 && threadIdx.x == 0) mark[n] = 0;
  for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < n;
       i += (long long)gridDim.x * blockDim.x) {
    double key = 0;
    int k = d_classify(a, i, ncomp, cl, &key);
    cls[i] = (unsigned char)k;
    mark[i] = k == SPLIT ? MARK_SPLIT : k == KEEP ? MARK_KEEP : 0;
    v[2 * ncomp].lo += k == SPLIT;
    v[2 * ncomp + 1].lo += k == KEEP;
    if (k == FIN)
      for (int c = 0; c < ncomp; ++c) {
        x_add(&v[c], x_from(a.avg[i * ncomp + c], sc[c]));
        x_add(&v[ncomp + c], x_from(a.err[i * ncomp + c], sc[ncomp + c]));
      }
  }
  /* the last block: every block has read mx; clear it for the next eval */
  if (xreduce(v, 2 * ncomp + 2, part, out, ticket) &&
      threadIdx.x < 2 * ncomp)
    mx[threadIdx.x] = 0;
}

int gcuba_cz_mark(gpu *t, const dclassify *d)
{
  k_mark<<<gcuba_cz_red_blocks(t->n), RED_THREADS, 0, t->stream>>>(
      t->n, t->ncomp, t->a, *d, t->cls, t->mark, t->dmax, t->dxpart,
      t->dxs + XS_FIN, t->dticket);
  return GCUBA_CK_LAUNCH(t->c, "k_mark");
}

/* the split leaves (not those past split_max) in split order j: corner,
   widths, axis and cut (or what the search is to find) */
__global__ void k_cutprep(long long n, int ndim, int ncomp, darrays a,
                          const unsigned char *cls, const long long *pos,
                          dclassify cl, const gcuba_cutmap cm, double *slo,
                          double *sw, int *sax, double *scut)
{
  const long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n || cls[i] != SPLIT) return;
  const long long j = pos[i] >> 32;
  if (cl.split_max >= 0 && j >= cl.split_max) return;
  sax[j] = d_cut(a, i, ndim, ncomp, cl, &cm, 1, &scut[j]);
  for (int d = 0; d < ndim; ++d) {
    slo[j * ndim + d] = a.lo[i * ndim + d];
    sw[j * ndim + d] = a.w[i * ndim + d];
  }
}

/* the search's block, at its first use */
static size_t cut_bytes(const gpu *t)
{
  const size_t m = GCUBA_CUT_MAXSEARCH;
  return sizeof(double) * m * (2 * t->ndim + 1) + sizeof(int) * m +
         2 * sizeof(unsigned long long);
}

int gcuba_cz_cut_buffers(gpu *t)
{
  const size_t m = GCUBA_CUT_MAXSEARCH;
  if (t->sbuf) return 0;
  CK(gcuba_cuda_malloc(&t->sbuf, cut_bytes(t)));
  t->stail = (unsigned long long *)t->sbuf;
  t->slo = (double *)(t->stail + 2);
  t->sw = t->slo + m * t->ndim;
  t->scut = t->sw + m * t->ndim;
  t->sax = (int *)(t->scut + m);
  return 0;
}

/* the search for where to cut the nj regions of l (those with cut < 0),
   by the integrand's kernel (gcuba/detail/cut_kernels.cuh), its evaluations and
   status in tail (zeroed first unless zeroed); the evaluations in *nev
   after one copy back (with the nback bytes from back on, when back);
   0 or a fail code */
static int cut_search(gpu *t, gcuba_cut_launch *l, unsigned long long *tail,
                      int zeroed, void *back, size_t nback,
                      unsigned long long *nev)
{
  unsigned long long *h;
  int rc;
  *nev = 0;
  if (l->n <= 0) return 0;
  if (!zeroed)
    CK(cudaMemsetAsync(tail, 0, 2 * sizeof *tail, t->stream));
  l->ndim = t->ndim;
  l->ncomp = t->ncomp;
  l->nev = tail;
  l->status = (int *)(tail + 1);
  l->userdata = t->duser;
  if ((rc = t->c->integrand->gpu->cuhre_cut(l, t->stream)))
    return GCUBA_CK(t->c, (cudaError_t)rc);
  if (!back) {
    back = tail;
    nback = 2 * sizeof *tail;
  }
  if (gcuba_cz_hostbuf_grow(&t->sh, nback))
    return gcuba_fail(t->c, GCUBA_FAIL_NOMEM, "search staging");
  CK(cudaMemcpyAsync(t->sh.p, back, nback, cudaMemcpyDeviceToHost,
                     t->stream));
  CK(cudaStreamSynchronize(t->stream));
  h = (unsigned long long *)(t->sh.p +
                             ((unsigned char *)tail - (unsigned char *)back));
  *nev = h[0];
  return (int)h[1] & GCUBA_ST_ABORT ? GCUBA_FAIL_ABORT : 0;
}

/* the regions k_cutprep (or k_pairs_cut) left in the block: searched */
int gcuba_cz_cut_search_block(gpu *t, long long nj, unsigned long long *nev)
{
  gcuba_cut_launch l;
  memset(&l, 0, sizeof l);
  l.n = nj;
  l.lo = t->slo;
  l.w = t->sw;
  l.ax = t->sax;
  l.cut = t->scut;
  return cut_search(t, &l, t->stail, 0, NULL, 0, nev);
}

/* Kept leaves move to the front in order; split leaves become two
   children each after them.  With split_max >= 0 the splits past the
   first split_max are kept instead (numbered after the kept ones that
   precede them). */
__global__ void k_scatter(long long n, int ndim, int ncomp, darrays a,
                          darrays b, const unsigned char *cls,
                          const long long *pos, long long nkeep,
                          dclassify cl, double *pavg, double *perr,
                          const gcuba_cutmap cm, const double *scut,
                          const int *sax)
{
  long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  const int k0 = cls[i];
  if (k0 == FIN) return;
  const long long p = pos[i], sr = p >> 32, kr = p & 0xffffffffLL;
  const long long demoted =
      cl.split_max >= 0 && sr > cl.split_max ? sr - cl.split_max : 0;
  if (k0 == KEEP || (cl.split_max >= 0 && sr >= cl.split_max)) {
    long long k = kr + demoted;
    for (int d = 0; d < ndim; ++d) {
      b.lo[k * ndim + d] = a.lo[i * ndim + d];
      if (b.wk) b.wk[k * ndim + d] = a.wk[i * ndim + d];
      else b.w[k * ndim + d] = a.w[i * ndim + d];
    }
    for (int c = 0; c < ncomp; ++c) {
      b.avg[k * ncomp + c] = a.avg[i * ncomp + c];
      b.err[k * ncomp + c] = a.err[i * ncomp + c];
      b.dims[k * ncomp + c] = a.dims[i * ncomp + c];
    }
  } else {
    long long par = sr, k = nkeep + 2 * par;
    double q;
    int ax;
    if (scut) {
      /* k_cutprep and the search */
      ax = sax[par];
      q = scut[par];
    } else
      ax = d_cut(a, i, ndim, ncomp, cl, &cm, 0, &q);
    if (b.wk) {
      /* exponents: no cuts, the middle */
      for (int d = 0; d < ndim; ++d) {
        const double l = a.lo[i * ndim + d];
        unsigned short e = a.wk[i * ndim + d];
        if (d == ax) {
          ++e;
          b.lo[k * ndim + d] = l;
          b.lo[(k + 1) * ndim + d] = l + ldexp(1.0, -(int)e);
        } else
          b.lo[k * ndim + d] = b.lo[(k + 1) * ndim + d] = l;
        b.wk[k * ndim + d] = b.wk[(k + 1) * ndim + d] = e;
      }
    } else
    for (int d = 0; d < ndim; ++d) {
      const double l = a.lo[i * ndim + d], e = a.w[i * ndim + d];
      if (d == ax) {
        /* as the CPU backend cuts */
        const double e1 = __dmul_rn(q, e);
        b.lo[k * ndim + d] = l;
        b.lo[(k + 1) * ndim + d] = __dadd_rn(l, e1);
        b.w[k * ndim + d] = e1;
        b.w[(k + 1) * ndim + d] = __dsub_rn(e, e1);
      } else {
        b.lo[k * ndim + d] = b.lo[(k + 1) * ndim + d] = l;
        b.w[k * ndim + d] = b.w[(k + 1) * ndim + d] = e;
      }
    }
    for (int c = 0; c < ncomp; ++c) {
      pavg[par * ncomp + c] = a.avg[i * ncomp + c];
      perr[par * ncomp + c] =
          gcuba_rule_parent_err(a.err[i * ncomp + c], a.dims[i * ncomp + c]);
    }
  }
}

/* apply's classification of every leaf: k_mark (classes, marks, the
   finished sums and the split and kept counts), the scan; local, 0 or a
   fail code */
static int mark_local(gpu *t, const dclassify *d)
{
  size_t bytes = t->tempbytes;
  int krc;
  krc = gcuba_cz_mark(t, d);
  if (!krc)
    krc = GCUBA_CK(t->c, cub::DeviceScan::ExclusiveSum(
                             t->dtemp, bytes, t->mark, t->pos, (int)t->n,
                             t->stream));
  if (!krc) krc = gcuba_cz_get_xs(t, XS_FIN, 2 * t->ncomp + 2);
  if (!krc) krc = GCUBA_CK(t->c, cudaStreamSynchronize(t->stream));
  return krc;
}

int gcuba_cz_apply(void *ctx, const gcuba_classify *cl, double *finavg,
                 double *finerr)
{
  gpu *t = (gpu *)ctx;
  long long nsplit0, nkeep, nsplit, nnext;
  const dclassify d = gcuba_cz_dcl(t->c, cl);
  darrays sw;
  int c, rc, krc;
  if (t->dist) return gcuba_cz_apply_dist(t, cl, finavg, finerr);
  /* the first split after the scan found a feature: widths as doubles */
  krc = !t->wd && t->c->cutmap && t->c->cutmap->nfeat ? gcuba_cz_to_doubles(t) : 0;
  if (!krc) krc = mark_local(t, &d);
  if (t->c->coll) {
    /* a replicated store: every member reaches the decision below (a
       collective one), failed or not; after it only local steps */
    if ((rc = gcuba_coll_status(t->c, krc)) || (rc = gcuba_cz_agree_repmax(t)))
      return rc;
  } else if (krc)
    return krc;
  nsplit0 = (long long)gcuba_cz_hxs(t, XS_FIN + 2 * t->ncomp).lo;
  nsplit = cl->split_max >= 0 && nsplit0 > cl->split_max ? cl->split_max
                                                          : nsplit0;
  nkeep = (long long)gcuba_cz_hxs(t, XS_FIN + 2 * t->ncomp + 1).lo + (nsplit0 - nsplit);
  nnext = nkeep + 2 * nsplit;
  if (t->c->coll && nnext > t->repmax) {
    /* beyond one GPU: distribute (every member decides alike) */
    if ((rc = gcuba_coll_status(t->c, gcuba_cz_convert_dist(t)))) return rc;
    return gcuba_cz_apply_dist(t, cl, finavg, finerr);
  }
  if (nnext > t->cap) {
    /* grow: the classification is redone on the moved data (the same
       counts), with the maxima k_mark cleared */
    gcuba_log(t->c, 2, "growing the device region store to %lld", nnext);
    t->nold = t->n; /* everything is evaluated */
    if ((rc = gcuba_cz_reserve(t, nnext))) return rc;
    CK(cudaMemcpyAsync(t->dmax, t->hmax,
                       sizeof(unsigned long long) * 2 * t->ncomp,
                       cudaMemcpyHostToDevice, t->stream));
    if ((rc = mark_local(t, &d))) return rc;
  }
  for (c = 0; c < t->ncomp; ++c) {
    finavg[c] += x_double(gcuba_cz_hxs(t, XS_FIN + c), gcuba_cz_hscale(t, c));
    finerr[c] += x_double(gcuba_cz_hxs(t, XS_FIN + t->ncomp + c),
                          gcuba_cz_hscale(t, t->ncomp + c));
  }
  {
    /* where to cut (gcuba/detail/cut.h): known features in k_scatter, searches
       before it */
    const gcuba_cutmap m = gcuba_cz_cutmap(t);
    const int search = t->c->cutmap && !cl->nocut && nsplit > 0 &&
                       gcuba_cut_searching(&m, nsplit);
    if (search) {
      unsigned long long nev;
      if ((rc = gcuba_cz_cut_buffers(t))) return rc;
      k_cutprep<<<gcuba_cz_nblocks(t->n, 256), 256, 0, t->stream>>>(
          t->n, t->ndim, t->ncomp, t->a, t->cls, t->pos, d, m, t->slo, t->sw,
          t->sax, t->scut);
      CKL("k_cutprep");
      if ((rc = gcuba_cz_cut_search_block(t, nsplit, &nev))) return rc;
      t->c->neval += (long long)nev;
    }
    k_scatter<<<gcuba_cz_nblocks(t->n, 256), 256, 0, t->stream>>>(
        t->n, t->ndim, t->ncomp, t->a, t->b, t->cls, t->pos, nkeep, d,
        t->pavg, t->perr, m, search ? t->scut : NULL, t->sax);
    CKL("k_scatter");
  }
  /* no synchronisation: the next step is queued on the same stream */
  sw = t->a;
  t->a = t->b;
  t->b = sw;
  t->n = t->gn = nnext;
  t->nold = t->seg = t->gnold = nkeep;
  t->haveparents = 1;
  return 0;
}

/* ops->search: the boxes copied in, searched by the integrand's kernel,
   their cuts copied out; one copy each way, the block laid out as
   [evaluations, status | cut[n] | jump[n] | found[n], ax[n] (ints, to 8
   bytes) | lo[n*ndim] | w[n*ndim]] */
int gcuba_cz_search(void *ctx, int n, const double *lo, const double *w,
                  const int *ax, double *cut, int *found, double *jump)
{
  gpu *t = (gpu *)ctx;
  const size_t nd = (size_t)n * t->ndim, ni = ((size_t)2 * n + 1) / 2 * 2;
  const size_t o_cut = 16, o_jump = o_cut + 8 * (size_t)n,
               o_found = o_jump + 8 * (size_t)n,
               o_ax = o_found + 4 * (size_t)n, o_lo = o_found + 4 * ni,
               o_w = o_lo + 8 * nd, bytes = o_w + 8 * nd;
  unsigned char *h, *d;
  gcuba_cut_launch l;
  unsigned long long nev = 0;
  int j, rc;
  if (n <= 0) return 0;
  /* (n <= 2 ndim: the block holds GCUBA_CUT_MAXSEARCH regions) */
  if ((rc = gcuba_cz_cut_buffers(t))) return rc;
  if (gcuba_cz_hostbuf_grow(&t->sh, bytes))
    return gcuba_fail(t->c, GCUBA_FAIL_NOMEM, "search staging");
  h = t->sh.p;
  d = (unsigned char *)t->sbuf;
  memset(h, 0, o_lo);
  for (j = 0; j < n; ++j) ((double *)(h + o_cut))[j] = -1; /* component 0 */
  memcpy(h + o_ax, ax, sizeof(int) * n);
  memcpy(h + o_lo, lo, sizeof(double) * nd);
  memcpy(h + o_w, w, sizeof(double) * nd);
  CK(cudaMemcpyAsync(d, h, bytes, cudaMemcpyHostToDevice, t->stream));
  memset(&l, 0, sizeof l);
  l.n = n;
  l.lo = (const double *)(d + o_lo);
  l.w = (const double *)(d + o_w);
  l.ax = (const int *)(d + o_ax);
  l.cut = (double *)(d + o_cut);
  l.found = (int *)(d + o_found);
  l.jump = (double *)(d + o_jump);
  if ((rc = cut_search(t, &l, (unsigned long long *)d, 1, d, o_ax, &nev)))
    return rc;
  memcpy(cut, h + o_cut, sizeof(double) * n);
  memcpy(jump, h + o_jump, sizeof(double) * n);
  memcpy(found, h + o_found, sizeof(int) * n);
  t->c->neval += (long long)nev;
  return 0;
}
