/* cuda/cuhre_state.cu -- the CUDA backend of the Cuhre driver, its
   leaves to and from the host (state files) or another GPU's memory (a
   call that grows to several GPUs).  This file is part of gcuba. */
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "cuda/cuhre_int.cuh"

static int load_local(gpu *t, const gcuba_region_set *s);

int gcuba_cz_load(void *ctx, const gcuba_region_set *s0)
{
  gpu *t = (gpu *)ctx;
  gcuba_region_set sub;
  const gcuba_region_set *s = s0;
  double *buf = NULL;
  int rc;
  t->n = 0;
  if (t->c->coll) {
    /* a collective call resumes replicated when one GPU holds the
       regions */
    if ((rc = gcuba_cz_agree_repmax(t))) return rc;
    if (s0->n > t->repmax && !t->dist) {
      /* leaves in another GPU's memory are loaded replicated only: the
         call stays on that GPU (GCUBA_DEVICES=auto) */
      if (s0->ondev)
        return gcuba_fail(t->c, GCUBA_FAIL_DEVMEM, "%lld regions do not "
                          "fit every GPU", s0->n);
      gcuba_cz_free_store(t);
      t->dist = 1;
    }
  }
  if (t->dist) {
    if ((rc = gcuba_cz_load_dist(t, s0, &sub, &buf))) return rc;
    s = &sub;
  } else {
    t->gn = s->n;
    t->gnold = s->nold;
    t->gfirst = 0;
  }
  rc = load_local(t, s);
  free(buf);
  return rc;
}

/* bytes from src on GPU sdev to dst on this store's GPU, on its stream */
static int copy_from(gpu *t, void *dst, const void *src, int sdev,
                     size_t bytes)
{
  if (!bytes) return 0;
  if (sdev == t->dev)
    CK(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDeviceToDevice,
                       t->stream));
  else
    CK(cudaMemcpyPeerAsync(dst, t->dev, src, sdev, bytes, t->stream));
  return 0;
}

static int load_local(gpu *t, const gcuba_region_set *s)
{
  size_t nn = (size_t)(s->n - s->nold) / 2 * t->ncomp;
  int rc;
  size_t nw = (size_t)s->n * t->ndim, j;
  /* the widths as the set has them (another store's), or as doubles once
     the call has cut (its scan found a feature, gcuba/detail/cut.h) */
  const int wd = s->ondev ? s->w != NULL
                          : t->c->cutmap && t->c->cutmap->nfeat > 0;
  if ((rc = gcuba_cz_set_widths(t, wd)) || (rc = gcuba_cz_reserve(t, s->n))) return rc;
  if (s->ondev) {
    /* from another store, on this GPU or another */
    const size_t nr = (size_t)s->nold * t->ncomp;
    if ((rc = copy_from(t, t->a.lo, s->lo, s->dev, sizeof(double) * nw)) ||
        (rc = wd ? copy_from(t, t->a.w, s->w, s->dev, sizeof(double) * nw)
                 : copy_from(t, t->a.wk, s->wk, s->dev,
                             sizeof(unsigned short) * nw)) ||
        (rc = copy_from(t, t->a.avg, s->avg, s->dev, sizeof(double) * nr)) ||
        (rc = copy_from(t, t->a.err, s->err, s->dev, sizeof(double) * nr)) ||
        (rc = copy_from(t, t->a.dims, s->dims, s->dev, sizeof(int) * nr)) ||
        (rc = copy_from(t, t->pavg, s->pavg, s->dev, sizeof(double) * nn)) ||
        (rc = copy_from(t, t->perr, s->perr, s->dev, sizeof(double) * nn)))
      return rc;
    CK(cudaStreamSynchronize(t->stream));
    t->n = s->n;
    t->nold = t->seg = s->nold;
    t->haveparents = s->haveparents;
    return 0;
  }
  if (wd)
    CK(cudaMemcpy(t->a.w, s->w, sizeof(double) * nw,
                  cudaMemcpyHostToDevice));
  else {
    /* the widths as exponents: anything but a power of two >= 2^-65535
       is not a region of a call that has not cut */
    unsigned short *wk = (unsigned short *)malloc(sizeof *wk * nw + 1);
    if (!wk) return gcuba_fail(t->c, GCUBA_FAIL_NOMEM, "state file");
    for (j = 0; j < nw; ++j) {
      int e;
      double m = frexp(s->w[j], &e);
      if (m != 0.5 || e > 1 || e < 1 - 65535) {
        free(wk);
        return gcuba_fail(t->c, GCUBA_FAIL_STATE, "state file: region "
                          "width %g is not a power of two", s->w[j]);
      }
      wk[j] = (unsigned short)(1 - e);
    }
    rc = GCUBA_CK(t->c, cudaMemcpy(t->a.wk, wk, sizeof *wk * nw,
                                   cudaMemcpyHostToDevice));
    free(wk);
    if (rc) return rc;
  }
  CK(cudaMemcpy(t->a.lo, s->lo, sizeof(double) * s->n * t->ndim,
                cudaMemcpyHostToDevice));
  CK(cudaMemcpy(t->a.avg, s->avg, sizeof(double) * s->nold * t->ncomp,
                cudaMemcpyHostToDevice));
  CK(cudaMemcpy(t->a.err, s->err, sizeof(double) * s->nold * t->ncomp,
                cudaMemcpyHostToDevice));
  CK(cudaMemcpy(t->a.dims, s->dims, sizeof(int) * s->nold * t->ncomp,
                cudaMemcpyHostToDevice));
  CK(cudaMemcpy(t->pavg, s->pavg, sizeof(double) * nn,
                cudaMemcpyHostToDevice));
  CK(cudaMemcpy(t->perr, s->perr, sizeof(double) * nn,
                cudaMemcpyHostToDevice));
  t->n = s->n;
  t->nold = t->seg = s->nold;
  t->haveparents = s->haveparents;
  return 0;
}

int gcuba_cz_save(void *ctx, gcuba_region_set *s)
{
  gpu *t = (gpu *)ctx;
  return t->dist ? gcuba_cz_save_dist(t, s) : gcuba_cz_save_local(t, s);
}

int gcuba_cz_save_local(gpu *t, gcuba_region_set *s)
{
  size_t nb = sizeof(double) * t->n * t->ndim;
  size_t rb = sizeof(double) * t->nold * t->ncomp;
  size_t pb = sizeof(double) * (size_t)((t->n - t->nold) / 2) * t->ncomp;
  /* gcuba_cz_apply() returns with its kernels still queued on t->stream, which
     does not synchronise with the default stream of cudaMemcpy */
  CK(cudaStreamSynchronize(t->stream));
  s->n = t->n;
  s->nold = t->nold;
  s->haveparents = t->haveparents;
  s->lo = (double *)malloc(nb + 1);
  s->w = (double *)malloc(nb + 1);
  s->avg = (double *)malloc(rb + 1);
  s->err = (double *)malloc(rb + 1);
  s->dims = (int *)malloc(rb / 2 + 1);
  s->pavg = (double *)malloc(pb + 1);
  s->perr = (double *)malloc(pb + 1);
  if (!s->lo || !s->w || !s->avg || !s->err || !s->dims || !s->pavg ||
      !s->perr)
    return GCUBA_FAIL_NOMEM;
  CK(cudaMemcpy(s->lo, t->a.lo, nb, cudaMemcpyDeviceToHost));
  if (t->wd)
    CK(cudaMemcpy(s->w, t->a.w, nb, cudaMemcpyDeviceToHost));
  else {
    size_t nw = (size_t)t->n * t->ndim, j;
    unsigned short *wk = (unsigned short *)malloc(sizeof *wk * nw + 1);
    if (!wk) return GCUBA_FAIL_NOMEM;
    if (GCUBA_CK(t->c, cudaMemcpy(wk, t->a.wk, sizeof *wk * nw,
                                  cudaMemcpyDeviceToHost))) {
      free(wk);
      return t->c->fail;
    }
    for (j = 0; j < nw; ++j) s->w[j] = ldexp(1.0, -(int)wk[j]);
    free(wk);
  }
  CK(cudaMemcpy(s->avg, t->a.avg, rb, cudaMemcpyDeviceToHost));
  CK(cudaMemcpy(s->err, t->a.err, rb, cudaMemcpyDeviceToHost));
  CK(cudaMemcpy(s->dims, t->a.dims, sizeof(int) * t->nold * t->ncomp,
                cudaMemcpyDeviceToHost));
  CK(cudaMemcpy(s->pavg, t->pavg, pb, cudaMemcpyDeviceToHost));
  CK(cudaMemcpy(s->perr, t->perr, pb, cudaMemcpyDeviceToHost));
  return 0;
}

/* the leaves in place (a store of one GPU): the members of a call that
   grows to several GPUs copy them from here (load_local) */
int gcuba_cz_save_dev(void *ctx, gcuba_region_set *s)
{
  gpu *t = (gpu *)ctx;
  if (t->dist || t->c->coll)
    return gcuba_fail(t->c, GCUBA_FAIL_PARAM, "save_dev: not a store of "
                      "one GPU");
  CK(cudaStreamSynchronize(t->stream));
  memset(s, 0, sizeof *s);
  s->n = t->n;
  s->nold = t->nold;
  s->haveparents = t->haveparents;
  s->ondev = 1;
  s->dev = t->dev;
  s->lo = t->a.lo;
  s->w = t->a.w; /* one of them, the other NULL */
  s->wk = t->a.wk;
  s->avg = t->a.avg;
  s->err = t->a.err;
  s->dims = t->a.dims;
  s->pavg = t->pavg;
  s->perr = t->perr;
  return 0;
}
