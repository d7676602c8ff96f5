/* tests/test-ops.c -- the conformance test of the backends' ops tables:
   the same cases through the CPU table and, where a CUDA device is
   there, the CUDA table (GCUBA_DEVICE=cpu, then gpu; gcuba_last_backend
   says which ran), each routine held to what the design promises:

     gCuhre, N-D and 1-D: on each table, every fail = 0 answer within its
       tolerance of the truth; below the budget at which a GPU's batches
       grow (gcuba_cuhre_minbatch) both tables split the same regions:
       the same fail, neval and nregions, and results that agree within
       the claimed errors (the integrands' host and device builds may
       differ in the last bits, so not bit for bit);
     gCuhreBatch: every member the same fail and neval on both, and the
       members equal to single calls;
     gVegas (seed 0: Sobol; seed 1: Philox; VEGAS+) and gRomberg: the same
       bits (integral, error, prob, neval, fail) for an integrand whose
       arithmetic is exact on host and device (fparam: products only).

   Without CUDA, or without a device, the CUDA half is skipped (and fails
   under GCUBA_TEST_REQUIRE_GPU=1).  This file is part of gcuba. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "tap.h"
#include "suite.h"

#define NTAB 2 /* 0: the CPU table, 1: the CUDA table */
static const char *tab_name[NTAB] = {"cpu", "gpu"};

typedef struct {
  double I[3], E[3], P[3];
  long long neval;
  int nregions, fail;
  int ran; /* the table gcuba_last_backend named */
} result;

/* the integrand descriptor both tables run: the nvcc build where there is
   one (its host half on the CPU), else the cc build */
static gintegrand_t family(int f)
{
#ifdef SUITE_HAVE_CU
  return suite_family(f, 1);
#else
  return suite_family(f, 0);
#endif
}
#ifdef SUITE_HAVE_CU
#define SUITE_OBJ(n) n##_cu
#else
#define SUITE_OBJ(n) n##_c
#endif

static void on_table(int t)
{
  setenv("GCUBA_DEVICE", tab_name[t], 1);
}

static int ran(void)
{
  return strcmp(gcuba_last_backend(), "gpu") == 0;
}

static int same_bits(const result *a, const result *b, int ncomp)
{
  return a->fail == b->fail && a->neval == b->neval &&
         !memcmp(a->I, b->I, sizeof(double) * ncomp) &&
         !memcmp(a->E, b->E, sizeof(double) * ncomp) &&
         !memcmp(a->P, b->P, sizeof(double) * ncomp);
}

/* ---- gCuhre, N-D: the suite's cases at two tolerances */
static const struct {
  int icase;
  double epsrel;
  long long maxeval;
} cuhre_cases[] = {
  {0, 1e-3, 1000000}, {2, 1e-5, 1000000}, {3, 1e-3, 1000000},
  {4, 1e-3, 1000000}, {5, 1e-4, 1000000}, {7, 1e-3, 1000000},
  {8, 1e-4, 1000000}, {9, 1e-3, 1000000}, {10, 1e-4, 1000000},
  {11, 1e-3, 1000000}, {4, 1e-7, 1000000}, {6, 1e-3, 300000},
};
#define NCUHRE ((int)(sizeof cuhre_cases / sizeof cuhre_cases[0]))

static void cuhre_nd(int t, int k, result *r)
{
  const struct suite_case *s = &suite_cases[cuhre_cases[k].icase];
  on_table(t);
  llgCuhre(s->d, 1, family(s->family), NULL, 1, cuhre_cases[k].epsrel,
           1e-20, 0, 0, cuhre_cases[k].maxeval, 0, NULL, NULL, &r->nregions,
           &r->neval, &r->fail, r->I, r->E, r->P);
  r->ran = ran();
}

/* ---- gCuhre, 1-D (Gauss-Kronrod and Wynn) */
static const struct suite_1d oned_cases[] = {
  {{SUITE_1D_I1, SUITE_1D_I1, SUITE_1D_I1}, {0, 0, 0}, {0, 0, 0}},
  {{SUITE_1D_LOG, SUITE_1D_LOG, SUITE_1D_LOG}, {0, 0, 0}, {0, 0, 0}},
  {{SUITE_1D_PEAK, SUITE_1D_PEAK, SUITE_1D_PEAK}, {0.3, 0.3, 0.3},
   {1e-3, 1e-3, 1e-3}},
  {{SUITE_1D_JUMP, SUITE_1D_JUMP, SUITE_1D_JUMP}, {0.3, 0.3, 0.3},
   {0, 0, 0}},
  {{SUITE_1D_POW, SUITE_1D_POW, SUITE_1D_POW}, {-0.5, -0.5, -0.5},
   {0, 0, 0}},
};
#define NONED ((int)(sizeof oned_cases / sizeof oned_cases[0]))

static void cuhre_1d(int t, int k, result *r)
{
  on_table(t);
  gcuba_userdata_size(sizeof oned_cases[k]);
  llgCuhre(1, 1, SUITE_OBJ(f1d), (void *)&oned_cases[k], 1, 1e-10, 1e-20, 0,
           0, 200000, 0, NULL, NULL, &r->nregions, &r->neval, &r->fail, r->I,
           r->E, r->P);
  gcuba_userdata_size(0);
  r->ran = ran();
}

/* ---- gVegas and gRomberg on fparam (3 x^2 in each coordinate: exact) */
static const struct suite_param exact = {27.0, 2}; /* truth 1 in 3D */

static void vegas(int t, int seed, int plus, result *r)
{
  int neval;
  on_table(t);
  gcuba_userdata_size(sizeof exact);
  gVegas(3, 1, SUITE_OBJ(fparam), (void *)&exact, 1, 1e-3, 1e-20,
         plus ? GCUBA_VEGASPLUS : 0, seed,
         0, 200000, 2000, 1000, 1000, 0, NULL, NULL, &neval, &r->fail, r->I,
         r->E, r->P);
  gcuba_userdata_size(0);
  r->neval = neval;
  r->ran = ran();
}

static const struct suite_param exact1 = {3.0, 2}; /* 3 x^2: truth 1 */

static void romberg(int t, result *r)
{
  on_table(t);
  gcuba_userdata_size(sizeof exact1);
  llgRomberg(1, SUITE_OBJ(fparam), (void *)&exact1, 1, 1e-12, 1e-20, 0, 0,
             1000000, &r->neval, &r->fail, r->I, r->E, r->P);
  gcuba_userdata_size(0);
  r->ran = ran();
}

/* ---- gCuhreBatch: 40 peaks, steps and kinks (fadv) */
#define NB 40
static struct suite_adv adv[NB];

static void batch(int t, int nreg[], long long nev[], int fail[], double I[],
                  double E[], double P[])
{
  on_table(t);
  llgCuhreBatch(NB, 3, 1, SUITE_OBJ(fadv), adv, sizeof adv[0], 1, 1e-4,
                1e-20, 0, 0, 300000, 0, nreg, nev, fail, I, E, P);
}

/* ---- gCuhreBatch: boxes in 5D (fbox), their features found by the
   scan's rounds (gcuba/detail/cut.h) and bounded by their jumps */
#define NBOX 12
static struct suite_box box[NBOX];

static void box_batch(int t, int nreg[], long long nev[], int fail[],
                      double I[], double E[], double P[])
{
  on_table(t);
  llgCuhreBatch(NBOX, 5, 1, SUITE_OBJ(fbox), box, sizeof box[0], 1, 1e-4,
                1e-20, 0, 0, 2000000, 0, nreg, nev, fail, I, E, P);
}

static void check_boxes(int ntab)
{
  static int nreg[NTAB][NBOX], fail[NTAB][NBOX];
  static long long nev[NTAB][NBOX];
  static double I[NTAB][NBOX], E[NTAB][NBOX], P[NTAB][NBOX];
  int i, j, t, honest = 1, same = 1, single = 1, nconv = 0;
  result r;
  for (i = 0; i < NBOX; ++i) {
    box[i].n = 5;
    for (j = 0; j < 5; ++j) {
      const double u = (i * 5 + j + 1) * 0.618033988749895;
      box[i].c[j] = 0.05 + 0.9 * (u - floor(u));
      box[i].a[j] = 0;
      if (i % 3 == 1 && (j & 1)) {
        /* x > c on x2 and x4: a box at a mixed corner, found from the
           lines through the corners' points (the scan's anchor) */
        box[i].a[j] = box[i].c[j];
        box[i].c[j] = 1;
      }
      if (i % 3 == 2) {
        /* a box a < x < c about the centre: the central lines cross two
           faces (the scan's pairs) */
        const double v = 1.3 * u;
        box[i].a[j] = 0.05 + 0.4 * (u - floor(u));
        box[i].c[j] = 0.95 - 0.4 * (v - floor(v));
      }
    }
  }
  for (t = 0; t < ntab; ++t) {
    box_batch(t, nreg[t], nev[t], fail[t], I[t], E[t], P[t]);
    for (i = 0; i < NBOX; ++i) {
      const double v = suite_box_truth(&box[i]);
      if (fail[t][i] == 0) {
        nconv += t == 0;
        if (!(fabs(I[t][i] - v) <= 1e-4 * v)) {
          diag("%s box %d: %.12g, true %.12g", tab_name[t], i, I[t][i], v);
          honest = 0;
        }
      }
    }
  }
  for (i = 0; i < NBOX; i += 5) {
    on_table(0);
    llgCuhre(5, 1, SUITE_OBJ(fbox), &box[i], 1, 1e-4, 1e-20, 0, 0, 2000000,
             0, NULL, NULL, &r.nregions, &r.neval, &r.fail, r.I, r.E, r.P);
    if (r.fail != fail[0][i] || r.neval != nev[0][i] || r.I[0] != I[0][i])
      single = 0;
  }
  for (i = 0; ntab == 2 && i < NBOX; ++i)
    if (fail[0][i] != fail[1][i] || nev[0][i] != nev[1][i]) same = 0;
  ok(honest, "gCuhreBatch: %d 5D boxes, every fail = 0 within 1e-4 on %s "
     "(%d converged on the CPU)", NBOX, ntab == 2 ? "both tables" :
     "the CPU table", nconv);
  ok(single, "gCuhreBatch: boxes equal single calls (fail, neval, bits)");
  if (ntab == 2)
    ok(same, "gCuhreBatch: the boxes' fail and neval the same on both");
  else ok(1, "gCuhreBatch: the boxes on the CUDA table # SKIP no CUDA device");
}

int main(void)
{
  result r[NTAB];
  int k, t, ntab = 1, i;
  const char *req = getenv("GCUBA_TEST_REQUIRE_GPU");

#ifdef SUITE_HAVE_CU
  if (gcuba_device_count() > 0) ntab = 2;
#endif
  if (ntab == 1 && req && !strcmp(req, "1")) {
    printf("1..1\nnot ok 1 - GCUBA_TEST_REQUIRE_GPU=1 but the CUDA table "
           "cannot run here\n");
    return 1;
  }
  if (ntab == 1) diag("no CUDA device: the CPU table alone");

  /* gCuhre N-D */
  for (k = 0; k < NCUHRE; ++k) {
    const struct suite_case *s = &suite_cases[cuhre_cases[k].icase];
    const double eps = cuhre_cases[k].epsrel;
    for (t = 0; t < ntab; ++t) {
      cuhre_nd(t, k, &r[t]);
      ok(r[t].ran == t && (r[t].fail != 0 ||
                           fabs(r[t].I[0] - s->truth) <=
                               eps * fabs(s->truth)),
         "%s table: gCuhre %s %dD at %g: fail %d, true error %.2g, "
         "neval %lld", tab_name[t], s->name, s->d, eps, r[t].fail,
         fabs(r[t].I[0] - s->truth) / fabs(s->truth), r[t].neval);
    }
    if (ntab == 2)
      ok(r[0].fail == r[1].fail && r[0].neval == r[1].neval &&
             r[0].nregions == r[1].nregions &&
             fabs(r[0].I[0] - r[1].I[0]) <= r[0].E[0] + r[1].E[0],
         "gCuhre %s %dD at %g: cpu fail %d neval %lld nregions %d, "
         "gpu fail %d neval %lld nregions %d", s->name, s->d, eps,
         r[0].fail, r[0].neval, r[0].nregions, r[1].fail, r[1].neval,
         r[1].nregions);
    else ok(1, "gCuhre %s %dD at %g: the CUDA table # SKIP no CUDA device",
            s->name, s->d, eps);
  }

  /* gCuhre 1-D */
  for (k = 0; k < NONED; ++k) {
    const double truth = suite_1d_truth(&oned_cases[k], 0);
    for (t = 0; t < ntab; ++t) {
      cuhre_1d(t, k, &r[t]);
      ok(r[t].ran == t &&
             (r[t].fail != 0 || fabs(r[t].I[0] - truth) <=
                                    1e-10 * fabs(truth)),
         "%s table: gCuhre 1-D kind %d: fail %d, true error %.2g, neval "
         "%lld", tab_name[t], oned_cases[k].kind[0], r[t].fail,
         fabs(r[t].I[0] - truth) / fabs(truth), r[t].neval);
    }
    if (ntab == 2)
      ok(r[0].fail == r[1].fail && r[0].neval == r[1].neval &&
             r[0].nregions == r[1].nregions &&
             fabs(r[0].I[0] - r[1].I[0]) <= r[0].E[0] + r[1].E[0],
         "gCuhre 1-D kind %d: cpu fail %d neval %lld, gpu fail %d neval "
         "%lld", oned_cases[k].kind[0], r[0].fail, r[0].neval, r[1].fail,
         r[1].neval);
    else ok(1, "gCuhre 1-D kind %d: the CUDA table # SKIP no CUDA device",
            oned_cases[k].kind[0]);
  }

  /* gVegas: Sobol, Philox, VEGAS+ */
  for (k = 0; k < 3; ++k) {
    const int seed = k == 0 ? 0 : 1, plus = k == 2;
    for (t = 0; t < ntab; ++t) {
      vegas(t, seed, plus, &r[t]);
      ok(r[t].ran == t && r[t].fail == 0 &&
             fabs(r[t].I[0] - 1) <= 5 * r[t].E[0],
         "%s table: gVegas seed %d%s: fail %d, %.8f +- %.2g, neval %lld",
         tab_name[t], seed, plus ? " VEGAS+" : "", r[t].fail, r[t].I[0],
         r[t].E[0], r[t].neval);
    }
    if (ntab == 2)
      ok(same_bits(&r[0], &r[1], 1), "gVegas seed %d%s: the same bits",
         seed, plus ? " VEGAS+" : "");
    else ok(1, "gVegas seed %d%s: the CUDA table # SKIP no CUDA device",
            seed, plus ? " VEGAS+" : "");
  }

  /* gRomberg */
  for (t = 0; t < ntab; ++t) {
    romberg(t, &r[t]);
    ok(r[t].ran == t && r[t].fail == 0 && fabs(r[t].I[0] - 1) <= 1e-12,
       "%s table: gRomberg 3 x^2: fail %d, true error %.2g, neval %lld",
       tab_name[t], r[t].fail, fabs(r[t].I[0] - 1), r[t].neval);
  }
  if (ntab == 2) ok(same_bits(&r[0], &r[1], 1), "gRomberg: the same bits");
  else ok(1, "gRomberg: the CUDA table # SKIP no CUDA device");

  /* gCuhreBatch */
  {
    static int nreg[NTAB][NB], fail[NTAB][NB];
    static long long nev[NTAB][NB];
    static double I[NTAB][NB], E[NTAB][NB], P[NTAB][NB];
    int honest = 1, same = 1, single = 1;
    for (i = 0; i < NB; ++i) {
      adv[i].kind = i % 3 == 0   ? SUITE_ADV_PEAK
                    : i % 3 == 1 ? SUITE_ADV_STEP
                                 : SUITE_ADV_KINK;
      adv[i].c = 0.1 + 0.8 * (i * 0.618033988749895 - floor(i * 0.618033988749895));
      adv[i].w = adv[i].kind == SUITE_ADV_PEAK ? 0.05 : 0.5;
      adv[i].n = 1 + i % 3;
    }
    for (t = 0; t < ntab; ++t) {
      batch(t, nreg[t], nev[t], fail[t], I[t], E[t], P[t]);
      for (i = 0; i < NB; ++i)
        if (fail[t][i] == 0 &&
            fabs(I[t][i] - suite_adv_truth(&adv[i])) >
                1e-4 * fabs(suite_adv_truth(&adv[i])))
          honest = 0;
    }
    /* a member is a single call (on the CPU table) */
    for (i = 0; i < NB; i += 7) {
      on_table(0);
      llgCuhre(3, 1, SUITE_OBJ(fadv), &adv[i], 1, 1e-4, 1e-20, 0, 0, 300000,
               0, NULL, NULL, &r[0].nregions, &r[0].neval, &r[0].fail, r[0].I,
               r[0].E, r[0].P);
      if (r[0].fail != fail[0][i] || r[0].neval != nev[0][i]) single = 0;
    }
    for (i = 0; ntab == 2 && i < NB; ++i)
      if (fail[0][i] != fail[1][i] || nev[0][i] != nev[1][i]) {
        if (same)
          diag("member %d: cpu fail %d neval %lld, gpu fail %d neval %lld",
               i, fail[0][i], nev[0][i], fail[1][i], nev[1][i]);
        same = 0;
      }
    ok(honest, "gCuhreBatch: every fail = 0 member within 1e-4 on %s",
       ntab == 2 ? "both tables" : "the CPU table");
    ok(single, "gCuhreBatch: members equal single calls (fail, neval)");
    if (ntab == 2)
      ok(same, "gCuhreBatch: %d members, the same fail and neval on both",
         NB);
    else ok(1, "gCuhreBatch: the CUDA table # SKIP no CUDA device");
  }
  check_boxes(ntab);
  unsetenv("GCUBA_DEVICE");
  gcuba_release();
  return done();
}
