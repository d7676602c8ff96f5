/* src/cuhre/driver.c -- the gCuhre driver for two and more dimensions:
   the breadth-first iteration of iter.c (evaluate the new regions, test
   the totals, split) until the policy (gcuba/detail/cuhre_policy.h) ends the
   call, and, on one GPU with GCUBA_DEVICES=auto, the move of a long call
   to several GPUs the plan chose.  One dimension has its own driver
   (oned.c).  This file is part of gcuba. */
#include <string.h>
#include "cuhre/iter.h"

/* GCUBA_DEVICES=auto: a call grows once its evaluations took at least
   GROW_SHARE of an iteration's time (the rest, classification and
   splitting, is done by every GPU over every region while they fit one
   GPU, so it does not shrink), and at iteration GROW_ITER at the
   earliest */
#define GROW_SHARE 0.5
#define GROW_ITER 3

static void run(cuhre *t)
{
  gcuba_call *c = t->c;
  if (!gcuba_cuhre_begin(t)) return;
  for (;;) {
    long long nleaves;
    double excess, now;
    int worst, o;
    const int conv = gcuba_cuhre_evaluate(t, 1, &excess, &worst, &nleaves);
    if (conv < 0) break;
    if ((o = gcuba_cuhre_stop(&t->st, conv, nleaves, c->neval, c->mineval,
                              worst)) != GCUBA_CUHRE_GOON) {
      gcuba_cuhre_end(t, o, worst);
      break;
    }
    /* a tolerance within ten thousand rounding units of the total that
       the error has stopped approaching: the rounding floor */
    if (gcuba_cuhre_floor_stop(t, 4, GCUBA_FLOOR_ULPS, 0) ||
        gcuba_cuhre_split(t, excess, worst, nleaves))
      break;
    /* GCUBA_DEVICES=auto: the call has run long enough, and its
       evaluations would be shared: it goes on from here on several GPUs
       (the plan's c->grow) */
    if (t->ngrow < 2 || t->st.iter < GROW_ITER) continue;
    now = gcuba_now_ms();
    if (now >= t->grow_at && gcuba_calls_running() == 1 &&
        (t->grow_any ||
         t->t1 - t->t0_iter >= GROW_SHARE * (now - t->t0_iter))) {
      if (!gcuba_cuhre_payload(t, &t->grow_state, 0, &t->grow_set)) {
        t->grown = 1;
        gcuba_log(c, 2, "after %.1f ms: the state (%.1f MB) taken in "
                  "%.1f ms", now - t->grow_at + t->grow_after,
                  t->grow_state.n / 1e6, gcuba_now_ms() - now);
        break;
      }
      /* no memory for the state: it stays on this GPU */
      c->fail = 0;
      t->ngrow = 0;
    }
  }
  gcuba_cuhre_results(t);
}

/* GCUBA_DEVICES=auto: call t, stopped after an iteration, goes on on the
   GPUs the plan chose (c->grow) as a team whose members copy its regions
   from its store (t->grow_set), with the same result as on one.  Returns 0 when
   the team finished the call; 1 when it could not (memory or a device
   error on a GPU: t then goes on where it stopped, on its own GPU). */
static int grow(cuhre *t)
{
  const int back = t->c->grow->run(t->c, t->grow_state.p, t->grow_state.n,
                                   &t->grow_set);
  gcuba_buf_free(&t->grow_state);
  if (back) {
    t->grown = 0;
    t->ngrow = 0;
    t->cont = 1;
  }
  return back;
}

void gcuba_cuhre_drive(gcuba_call *c, const gcuba_cuhre_ops *ops)
{
  cuhre t;
  if (gcuba_cuhre_open(&t, c, ops)) return;
  if (c->grow && !c->coll && t.ops->save_dev) {
    /* GCUBA_DEVICES=auto: the plan says where and when it may grow */
    t.ngrow = c->grow->n;
    t.grow_after = c->grow->after;
    t.grow_at = t.start + t.grow_after;
    t.grow_any = t.grow_after == 0;
  }
  run(&t);
  while (t.grown && grow(&t)) run(&t);
  gcuba_cuhre_close(&t);
}
