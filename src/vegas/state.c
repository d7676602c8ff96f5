/* src/vegas/state.c -- the state files of the gVegas driver: the whole
   run state after each iteration (history, grid, adaptation, adaptive
   stratification's units), so that a resumed run continues exactly as
   an uninterrupted one; also the state with which a call goes on on
   several GPUs (GCUBA_DEVICES=auto).  This file is part of gcuba. */
#include <stdlib.h>
#include <string.h>
#include "vegas/driver_int.h"
#include "vegas/grid.h"

/* what a state file must match: the shape of the problem and of the grid
   (not the integrand: as in Cuba, flags bit 5 may take a grid adapted for
   one integrand into another) */
static uint64_t signature(const vegas *v)
{
  const gcuba_call *c = v->c;
  int w[5];
  w[0] = c->ndim;
  w[1] = c->ncomp;
  w[2] = v->nb0;
  w[3] = v->shared;
  w[4] = STATE_VERSION;
  return gcuba_fnv1a(w, sizeof w, GCUBA_FNV_SEED);
}

/* the state after an iteration: into *pb when pb (else dropped), and to
   c->statefile when file */
int gcuba_vegas_state_payload(vegas *v, gcuba_buf *pb, int file)
{
  gcuba_call *c = v->c;
  gcuba_buf b = {0};
  size_t nh = (size_t)v->k * v->ncomp;
  int rc;
  if ((rc = gcuba_vegas_grid_here(v))) return rc;
  if (v->nrp > 0 && v->ops->units && !v->units_put) {
    /* (the backend keeps them) */
    if (gcuba_vegas_units_reserve(v, v->nrp))
      return gcuba_fail(c, GCUBA_FAIL_NOMEM, "the cubes' units");
    if ((rc = v->ops->units_get(v->ctx, v->nrp, v->Rp, v->cvp))) return rc;
  }
  gcuba_buf_put(&b, &v->k, sizeof v->k);
  gcuba_buf_put(&b, &v->nsamples, sizeof v->nsamples);
  gcuba_buf_put(&b, &c->neval, sizeof c->neval);
  gcuba_buf_put(&b, &v->wstart, sizeof v->wstart);
  gcuba_buf_put(&b, &v->nadapt, sizeof v->nadapt);
  gcuba_buf_put(&b, &v->settled_at, sizeof v->settled_at);
  gcuba_buf_put(&b, &v->warm, sizeof v->warm);
  gcuba_buf_put(&b, &v->stall, sizeof v->stall);
  gcuba_buf_put(&b, &v->ubest, sizeof v->ubest);
  gcuba_buf_put(&b, &v->expo, sizeof v->expo);
  gcuba_buf_put(&b, &v->frozen, sizeof v->frozen);
  gcuba_buf_put(&b, &v->nb, sizeof v->nb);
  gcuba_buf_put(&b, v->grid, sizeof(double) * v->ngrids * (v->nb + 1));
  gcuba_buf_put(&b, v->frozen == POLISHED ? v->gold : v->grid,
                sizeof(double) * v->ngrids * (v->nb + 1));
  gcuba_buf_put(&b, v->hI, sizeof(double) * nh);
  gcuba_buf_put(&b, v->hV, sizeof(double) * nh);
  gcuba_buf_put(&b, v->hX, sizeof(double) * nh);
  gcuba_buf_put(&b, v->hcalls, sizeof(long long) * v->k);
  gcuba_buf_put(&b, &v->nfine, sizeof v->nfine);
  gcuba_buf_put(&b, v->fine, sizeof v->fine);
  gcuba_buf_put(&b, v->epow, sizeof(int) * 2 * v->ndim);
  if (v->nrp > 0) {
    /* adaptive stratification: what the next allocation starts from */
    gcuba_buf_put(&b, &v->nrp, sizeof v->nrp);
    gcuba_buf_put(&b, v->Rp, sizeof(int64_t) * (v->nrp + 1));
    gcuba_buf_put(&b, v->cvp, sizeof(double) * v->nrp);
  }
  rc = b.bad ? gcuba_fail(c, GCUBA_FAIL_NOMEM, "state buffer")
       : file ? gcuba_state_write(c, "vegas", signature(v), &b)
              : 0;
  if (pb && !rc)
    *pb = b;
  else
    gcuba_buf_free(&b);
  return rc;
}
int gcuba_vegas_save_state(vegas *v)
{
  return gcuba_vegas_state_payload(v, NULL, 1);
}

/* 1 resumed, 0 no state file, < 0 fail code */
int gcuba_vegas_load_state(vegas *v)
{
  gcuba_call *c = v->c;
  gcuba_buf b = {0};
  long long k = 0;
  /* a call growing to several GPUs: the state its one GPU left, read in
     place */
  const int view = c->resume != NULL;
  int rc, a, bad, nb = 0;
  /* the bins per axis of the saved grid (they may have grown) */
  const size_t nbpos = sizeof k + sizeof(long long) * 7 +
                       2 * sizeof(double) + sizeof(int);
  size_t ng;
  if (view) {
    b.p = (unsigned char *)c->resume;
    b.n = c->resume_n;
    rc = 1;
  } else
    rc = gcuba_state_read(c, "vegas", signature(v), &b);
  if (rc <= 0) return rc;
  if (b.n >= nbpos + sizeof nb) memcpy(&nb, b.p + nbpos, sizeof nb);
  if (nb != v->nb && nb >= 2 && nb <= NBINS_MAX && !v->nb_fixed &&
      gcuba_vegas_set_nb(v, nb, 0)) {
    if (!view) gcuba_buf_free(&b);
    return c->fail;
  }
  ng = (size_t)v->ngrids * (v->nb + 1);
  gcuba_buf_get(&b, &k, sizeof k);
  {
    const size_t base = sizeof(long long) * 7 + 2 * sizeof(double) +
                        2 * sizeof(int) + 2 * sizeof(double) * ng +
                        (size_t)(k >= 0 ? k : 0) *
                            (3 * sizeof(double) * v->ncomp +
                             sizeof(long long)) +
                        sizeof v->nfine + sizeof v->fine +
                        sizeof(int) * 2 * (size_t)v->ndim;
    long long nrp = 0;
    /* an adaptive stratification's cubes after the history
       (gcuba_vegas_state_payload) */
    if (!b.bad && b.n - b.pos > base + sizeof nrp)
      memcpy(&nrp, b.p + b.pos + base, sizeof nrp);
    bad = b.bad || k < 0 || nb != v->nb || nrp < 0 || nrp > VP_MAXCUBES ||
          b.n - b.pos != base + (nrp > 0 ? sizeof nrp +
                                               (size_t)nrp * (2 * sizeof(double)) +
                                               sizeof(int64_t)
                                         : 0);
    if (!bad && nrp > 0 && gcuba_vegas_units_reserve(v, nrp)) {
      if (!view) gcuba_buf_free(&b);
      return gcuba_fail(c, GCUBA_FAIL_NOMEM, "the cubes' units");
    }
    v->nrp = bad ? 0 : nrp;
  }
  if (!bad && gcuba_vegas_hist_reserve(v, k + 1)) {
    if (!view) gcuba_buf_free(&b);
    return gcuba_fail(c, GCUBA_FAIL_NOMEM, "iteration history");
  }
  if (!bad && gcuba_vegas_grid_here(v)) {
    if (!view) gcuba_buf_free(&b);
    return c->fail;
  }
  if (!bad) {
    v->k = k;
    gcuba_buf_get(&b, &v->nsamples, sizeof v->nsamples);
    gcuba_buf_get(&b, &c->neval, sizeof c->neval);
    gcuba_buf_get(&b, &v->wstart, sizeof v->wstart);
    gcuba_buf_get(&b, &v->nadapt, sizeof v->nadapt);
    gcuba_buf_get(&b, &v->settled_at, sizeof v->settled_at);
    gcuba_buf_get(&b, &v->warm, sizeof v->warm);
    gcuba_buf_get(&b, &v->stall, sizeof v->stall);
    gcuba_buf_get(&b, &v->ubest, sizeof v->ubest);
    gcuba_buf_get(&b, &v->expo, sizeof v->expo);
    gcuba_buf_get(&b, &v->frozen, sizeof v->frozen);
    gcuba_buf_get(&b, &nb, sizeof nb);
    gcuba_buf_get(&b, v->grid, sizeof(double) * ng);
    if (v->frozen == POLISHED &&
        !(v->gold = (double *)malloc(sizeof(double) * ng))) {
      if (!view) gcuba_buf_free(&b);
      return gcuba_fail(c, GCUBA_FAIL_NOMEM, "grid copy");
    }
    if (v->frozen == POLISHED)
      gcuba_buf_get(&b, v->gold, sizeof(double) * ng);
    else
      b.pos += sizeof(double) * ng;
    gcuba_buf_get(&b, v->hI, sizeof(double) * k * v->ncomp);
    gcuba_buf_get(&b, v->hV, sizeof(double) * k * v->ncomp);
    gcuba_buf_get(&b, v->hX, sizeof(double) * k * v->ncomp);
    gcuba_buf_get(&b, v->hcalls, sizeof(long long) * k);
    gcuba_buf_get(&b, &v->nfine, sizeof v->nfine);
    gcuba_buf_get(&b, v->fine, sizeof v->fine);
    gcuba_buf_get(&b, v->epow, sizeof(int) * 2 * v->ndim);
    if (v->nrp > 0) {
      long long h, nrp;
      gcuba_buf_get(&b, &nrp, sizeof nrp);
      gcuba_buf_get(&b, v->Rp, sizeof(int64_t) * (v->nrp + 1));
      gcuba_buf_get(&b, v->cvp, sizeof(double) * v->nrp);
      bad = v->Rp[0] != 0;
      for (h = 0; h < v->nrp && !bad; ++h)
        bad = !(v->Rp[h + 1] > v->Rp[h]) || !(v->cvp[h] >= 0);
      if (bad) v->nrp = 0;
      v->units_put = !bad;
    }
    bad = bad || b.bad || v->nsamples < 2 || c->neval < 0 || v->wstart < 0 ||
          v->wstart > k || v->frozen < 0 || v->frozen > POLISH_DONE ||
          v->nfine < 1;
    for (a = 0; a < v->ngrids && !bad; ++a)
      bad = !gcuba_vegas_grid_check(v->grid + (size_t)a * (v->nb + 1),
                                    v->nb) ||
            (v->gold &&
             !gcuba_vegas_grid_check(v->gold + (size_t)a * (v->nb + 1),
                                     v->nb));
  }
  if (!view) gcuba_buf_free(&b);
  if (bad)
    return gcuba_fail(c, GCUBA_FAIL_STATE, "%s: inconsistent contents",
                      view ? "the state of one GPU" : c->statefile);
  if (!view)
    gcuba_log(c, 1, "resuming after iteration %lld, %lld evaluations", v->k,
              c->neval);
  return 1;
}
