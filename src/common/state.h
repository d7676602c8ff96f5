/* src/common/state.h -- state files: one binary record written after
   every iteration (to NAME.tmp, then renamed over NAME, so a crash never
   leaves half a file), read back on the next run.  Layout: a header
   (magic, version, routine, problem signature), the payload, and an
   FNV-1a checksum of everything before it.  A missing file means "start
   afresh"; a short, corrupt or foreign one is GCUBA_FAIL_STATE.
   This file is part of gcuba. */
#ifndef GCUBA_STATE_H
#define GCUBA_STATE_H

#include <stddef.h>
#include <stdint.h>
#include "common/common.h"

/* a growing byte buffer */
typedef struct gcuba_buf {
  unsigned char *p;
  size_t n, cap, pos; /* pos: read position */
  int bad;            /* allocation failure or read past the end */
} gcuba_buf;

/* n bytes of data appended (data NULL: n bytes for the caller to fill
   at b->p + b->n - n) */
void gcuba_buf_put(gcuba_buf *b, const void *data, size_t n);
void gcuba_buf_get(gcuba_buf *b, void *data, size_t n);
void gcuba_buf_free(gcuba_buf *b);

/* FNV-1a, 64 bits */
uint64_t gcuba_fnv1a(const void *data, size_t n, uint64_t h);
#define GCUBA_FNV_SEED 0xcbf29ce484222325ULL

/* Write payload b under header (routine, signature) to c->statefile.
   0 or GCUBA_FAIL_STATEIO (logged). */
int gcuba_state_write(gcuba_call *c, const char *routine, uint64_t signature,
                      const gcuba_buf *b);
/* Read c->statefile into b.  1 when read, 0 when there is no file,
   GCUBA_FAIL_STATE (logged) when it is unreadable, corrupt or written
   for another routine or problem. */
int gcuba_state_read(gcuba_call *c, const char *routine, uint64_t signature,
                     gcuba_buf *b);
/* remove the state file (after success, unless GCUBA_KEEPSTATE) */
void gcuba_state_remove(gcuba_call *c);

#endif
