/* tests/test-cuhre-gpu.c -- what only the GPU backend of gCuhre has:
   a parameter struct copied to the device (gcuba_userdata_size), a host
   pointer refused without a size, concurrent calls from several host
   threads (each with its own stream) giving the answers of sequential
   calls.  Built with the nvcc-built suite.  This file is part of gcuba. */
#include <math.h>
#include <pthread.h>
#include <string.h>
#include "tap.h"
#include "suite.h"
#include "gpu.h"

typedef struct {
  int family, d, fail;
  double integral, error;
} job;

static void *work(void *arg)
{
  job *j = (job *)arg;
  int nregions;
  long long neval;
  double prob;
  llgCuhre(j->d, 1, suite_family(j->family, 1), NULL, 1, 1e-6, 1e-20, 0, 0,
           2000000000LL, 0, NULL, NULL, &nregions, &neval, &j->fail,
           &j->integral, &j->error, &prob);
  return NULL;
}

int main(void)
{
  struct suite_param p = {3.0, 2};
  int nregions, fail, i, same = 1;
  long long neval;
  double integral, error, prob, truth = 3.0 / 27; /* a / (k+1)^d, d = 3 */
  job seq[4] = {{3, 3, 0, 0, 0}, {4, 5, 0, 0, 0}, {6, 5, 0, 0, 0},
                {8, 8, 0, 0, 0}};
  job par[4];
  pthread_t th[4];
  battery_start();
  plan(0);

  gcuba_userdata_size(sizeof p);
  llgCuhre(3, 1, S(fparam), &p, 1, 1e-8, 1e-20, 0, 0, 2000000000LL, 0, NULL,
           NULL, &nregions, &neval, &fail, &integral, &error, &prob);
  ok(fail == 0 && fabs(integral - truth) <= 1e-8 * truth &&
         !strcmp(gcuba_last_backend(), "gpu"),
     "userdata struct copied to the device: %.15g (true %.15g), fail %d",
     integral, truth, fail);
  gcuba_userdata_size(0);
  llgCuhre(3, 1, S(fparam), &p, 1, 1e-8, 1e-20, 0, 0, 2000000000LL, 0, NULL,
           NULL, &nregions, &neval, &fail, &integral, &error, &prob);
  ok(fail == GCUBA_FAIL_PARAM,
     "a host userdata pointer without a size is refused: fail %d", fail);

  for (i = 0; i < 4; ++i) work(&seq[i]);
  memcpy(par, seq, sizeof par);
  for (i = 0; i < 4; ++i) pthread_create(&th[i], NULL, work, &par[i]);
  for (i = 0; i < 4; ++i) pthread_join(th[i], NULL);
  for (i = 0; i < 4; ++i)
    if (par[i].fail != 0 || seq[i].fail != 0 ||
        par[i].integral != seq[i].integral || par[i].error != seq[i].error)
      same = 0;
  ok(same, "4 concurrent calls from host threads = 4 sequential calls");
  gcuba_release();
  work(&par[0]);
  ok(par[0].fail == 0 && par[0].integral == seq[0].integral,
     "after gcuba_release the next call allocates afresh: same answer");
  gcuba_release();
  return battery_done();
}
