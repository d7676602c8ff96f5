/* src/vegas/slots.c -- the grid slots of the gVegas driver (Cuba's
   gridno): a call with gridno != 0 starts from the grid that an earlier
   call left in slot |gridno| and leaves its own there.  This file is
   part of gcuba. */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include "vegas/driver_int.h"
#include "vegas/grid.h"

#define NSLOTS 10
static struct {
  int ndim, nb, shared;
  double *grid;
  int *epow;
} slots[NSLOTS];
static pthread_mutex_t slot_lock = PTHREAD_MUTEX_INITIALIZER;

/* the grid to start from: slot |gridno| when it holds a grid of this
   dimension and layout (rebinned to nb when needed), else uniform;
   gridno < 0 empties the slot first */
void gcuba_vegas_slot_get(vegas *v)
{
  int no = v->c->gridno, s = (no < 0 ? -no : no) - 1;
  /* (a run in steps has no grid yet: the uniform one, implied) */
  if (v->grid) gcuba_vegas_grid_init(v->grid, v->nb, v->ngrids);
  memset(v->epow, 0, sizeof(int) * 2 * v->ndim);
  if (s < 0 || s >= NSLOTS || gcuba_vegas_grid_here(v)) return;
  pthread_mutex_lock(&slot_lock);
  if (no < 0) {
    free(slots[s].grid);
    free(slots[s].epow);
    slots[s].grid = NULL;
    slots[s].epow = NULL;
  }
  if (slots[s].grid && slots[s].ndim == v->ndim &&
      slots[s].shared == v->shared) {
    if (slots[s].nb == v->nb)
      memcpy(v->grid, slots[s].grid,
             sizeof(double) * v->ngrids * (v->nb + 1));
    else
      gcuba_vegas_grid_resize(slots[s].grid, slots[s].nb, v->grid, v->nb,
                              v->ngrids);
    memcpy(v->epow, slots[s].epow, sizeof(int) * 2 * v->ndim);
    gcuba_log(v->c, 2, "grid taken from slot %d", s + 1);
  }
  pthread_mutex_unlock(&slot_lock);
}

/* keep the grid in slot |gridno| for the next call */
void gcuba_vegas_slot_put(vegas *v)
{
  int no = v->c->gridno, s = (no < 0 ? -no : no) - 1;
  size_t n = (size_t)v->ngrids * (v->nb + 1);
  double *g;
  int *e;
  if (s < 0 || s >= NSLOTS || gcuba_vegas_grid_here(v)) return;
  pthread_mutex_lock(&slot_lock);
  g = (double *)realloc(slots[s].grid, sizeof(double) * n);
  if (g) slots[s].grid = g;
  e = (int *)realloc(slots[s].epow, sizeof(int) * 2 * v->ndim);
  if (e) slots[s].epow = e;
  if (!g || !e) { /* no memory: the slot is emptied */
    free(slots[s].grid);
    free(slots[s].epow);
    slots[s].grid = NULL;
    slots[s].epow = NULL;
  } else {
    memcpy(g, v->grid, sizeof(double) * n);
    memcpy(e, v->epow, sizeof(int) * 2 * v->ndim);
    slots[s].ndim = v->ndim;
    slots[s].nb = v->nb;
    slots[s].shared = v->shared;
  }
  pthread_mutex_unlock(&slot_lock);
}
