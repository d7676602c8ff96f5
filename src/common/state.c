/* src/common/state.c -- reading and writing state files (see state.h).
   This file is part of gcuba. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "common/state.h"
#include "common/coll.h"

#define MAGIC "gcuba-state\n"
#define STATE_VERSION 1u

void gcuba_buf_put(gcuba_buf *b, const void *data, size_t n)
{
  if (b->bad) return;
  if (b->n + n > b->cap) {
    size_t cap = b->cap ? b->cap : 4096;
    unsigned char *q;
    while (cap < b->n + n) cap *= 2;
    q = (unsigned char *)realloc(b->p, cap);
    if (!q) {
      b->bad = 1;
      return;
    }
    b->p = q;
    b->cap = cap;
  }
  if (data) memcpy(b->p + b->n, data, n);
  b->n += n;
}

void gcuba_buf_get(gcuba_buf *b, void *data, size_t n)
{
  if (b->bad || b->pos + n > b->n) {
    b->bad = 1;
    memset(data, 0, n);
    return;
  }
  memcpy(data, b->p + b->pos, n);
  b->pos += n;
}

void gcuba_buf_free(gcuba_buf *b)
{
  free(b->p);
  memset(b, 0, sizeof *b);
}

uint64_t gcuba_fnv1a(const void *data, size_t n, uint64_t h)
{
  const unsigned char *p = (const unsigned char *)data;
  size_t i;
  for (i = 0; i < n; ++i) {
    h ^= p[i];
    h *= 0x100000001b3ULL;
  }
  return h;
}

/* header: magic, version, routine name (16 bytes), signature, payload size */
static void header(gcuba_buf *h, const char *routine, uint64_t sig,
                   uint64_t size)
{
  char name[16] = {0};
  uint32_t v = STATE_VERSION;
  strncpy(name, routine, sizeof name - 1);
  gcuba_buf_put(h, MAGIC, sizeof MAGIC - 1);
  gcuba_buf_put(h, &v, sizeof v);
  gcuba_buf_put(h, name, sizeof name);
  gcuba_buf_put(h, &sig, sizeof sig);
  gcuba_buf_put(h, &size, sizeof size);
}

static int write_file(gcuba_call *c, const char *routine, uint64_t signature,
                      const gcuba_buf *b);

/* A collective call's state is the same on every process: the first
   writes it and every one learns whether that worked. */
int gcuba_state_write(gcuba_call *c, const char *routine, uint64_t signature,
                      const gcuba_buf *b)
{
  int rc = 0;
  if (!c->coll) return write_file(c, routine, signature, b);
  if (c->coll->rank == 0) rc = write_file(c, routine, signature, b);
  return gcuba_coll_status(c, rc);
}

static int write_file(gcuba_call *c, const char *routine, uint64_t signature,
                      const gcuba_buf *b)
{
  gcuba_buf h = {0};
  uint64_t sum;
  size_t len = strlen(c->statefile);
  char *tmp = (char *)malloc(len + 5);
  FILE *f;
  int ok;
  if (!tmp) return gcuba_fail(c, GCUBA_FAIL_NOMEM, "state file name");
  memcpy(tmp, c->statefile, len);
  memcpy(tmp + len, ".tmp", 5);
  header(&h, routine, signature, b->n);
  sum = gcuba_fnv1a(h.p, h.n, GCUBA_FNV_SEED);
  sum = gcuba_fnv1a(b->p, b->n, sum);
  f = fopen(tmp, "wb");
  ok = f && !h.bad && fwrite(h.p, 1, h.n, f) == h.n &&
       fwrite(b->p, 1, b->n, f) == b->n &&
       fwrite(&sum, sizeof sum, 1, f) == 1;
  if (f && fclose(f)) ok = 0;
  if (ok && rename(tmp, c->statefile)) ok = 0;
  if (!ok) {
    int e = errno;
    remove(tmp);
    free(tmp);
    gcuba_buf_free(&h);
    return gcuba_fail(c, GCUBA_FAIL_STATEIO, "%s: %s", c->statefile,
                      strerror(e));
  }
  free(tmp);
  gcuba_buf_free(&h);
  gcuba_log(c, 2, "state written to %s (%zu bytes)", c->statefile, b->n);
  return 0;
}

/* the file's bytes into file: 1, 0 when there is no file, or a fail code */
static int file_bytes(gcuba_call *c, gcuba_buf *file)
{
  FILE *f = fopen(c->statefile, "rb");
  unsigned char chunk[65536];
  size_t n;
  if (!f) {
    if (errno == ENOENT) return 0;
    return gcuba_fail(c, GCUBA_FAIL_STATE, "%s: %s", c->statefile,
                      strerror(errno));
  }
  while ((n = fread(chunk, 1, sizeof chunk, f)) > 0)
    gcuba_buf_put(file, chunk, n);
  fclose(f);
  return 1;
}

/* A collective call reads the file on the first process only (the
   others need not see it) and sends its bytes to every one. */
static int coll_file_bytes(gcuba_call *c, gcuba_buf *file)
{
  const int size = c->coll->size;
  long long v[2] = {0, 0}, *counts;
  int rc = 0, r;
  if (c->coll->rank == 0) {
    rc = file_bytes(c, file);
    v[0] = rc == 1 && file->bad ? GCUBA_FAIL_NOMEM : rc;
    v[1] = rc == 1 ? (long long)file->n : 0;
  }
  counts = (long long *)calloc((size_t)size, sizeof *counts);
  if (gcuba_coll_status(c, counts ? 0 : GCUBA_FAIL_NOMEM)) {
    free(counts);
    return c->fail ? c->fail : GCUBA_FAIL_NOMEM;
  }
  counts[0] = 2;
  if (gcuba_coll_gather(c, v, counts, GCUBA_COLL_LL)) {
    free(counts);
    return c->fail;
  }
  if (v[0] != 1) {
    free(counts);
    if (v[0] < 0 && c->fail == 0)
      return gcuba_fail(c, (int)v[0], "%s could not be read on process 0",
                        c->statefile);
    return (int)v[0];
  }
  if (c->coll->rank != 0) {
    if (v[1] > 0) {
      file->p = (unsigned char *)malloc((size_t)v[1]);
      file->cap = file->n = file->p ? (size_t)v[1] : 0;
      file->bad = !file->p;
    }
  }
  if (gcuba_coll_status(c, file->bad ? GCUBA_FAIL_NOMEM : 0)) {
    free(counts);
    if (c->fail == 0 || c->fail == GCUBA_FAIL_NOMEM)
      return gcuba_fail(c, GCUBA_FAIL_NOMEM, "reading the state");
    return c->fail;
  }
  for (r = 0; r < size; ++r) counts[r] = 0;
  counts[0] = v[1];
  rc = gcuba_coll_gather(c, file->p, counts, GCUBA_COLL_BYTE);
  free(counts);
  return rc ? rc : 1;
}

int gcuba_state_read(gcuba_call *c, const char *routine, uint64_t signature,
                     gcuba_buf *b)
{
  gcuba_buf h = {0}, file = {0};
  uint64_t sum;
  int rc = c->coll ? coll_file_bytes(c, &file) : file_bytes(c, &file);
  if (rc <= 0) {
    gcuba_buf_free(&file);
    return rc;
  }
  header(&h, routine, signature, 0);
  /* the header up to the payload size must match byte for byte */
  if (file.bad || h.bad || file.n < h.n + sizeof sum ||
      memcmp(file.p, h.p, h.n - 8)) {
    int foreign = !file.bad && file.n >= h.n - 8 &&
                  !memcmp(file.p, MAGIC, sizeof MAGIC - 1);
    gcuba_buf_free(&h);
    gcuba_buf_free(&file);
    return gcuba_fail(c, GCUBA_FAIL_STATE, "%s: %s", c->statefile,
                      foreign ? "written for another routine or problem"
                              : "not a gcuba state file");
  }
  {
    uint64_t size;
    memcpy(&size, file.p + h.n - 8, 8);
    memcpy(&sum, file.p + file.n - sizeof sum, sizeof sum);
    if (size != file.n - h.n - sizeof sum ||
        sum != gcuba_fnv1a(file.p, file.n - sizeof sum, GCUBA_FNV_SEED)) {
      gcuba_buf_free(&h);
      gcuba_buf_free(&file);
      return gcuba_fail(c, GCUBA_FAIL_STATE, "%s: corrupt (size or checksum)",
                        c->statefile);
    }
  }
  gcuba_buf_put(b, file.p + h.n, file.n - h.n - sizeof sum);
  gcuba_buf_free(&h);
  gcuba_buf_free(&file);
  if (b->bad) return gcuba_fail(c, GCUBA_FAIL_NOMEM, "reading the state");
  gcuba_log(c, 1, "state read from %s", c->statefile);
  return 1;
}

void gcuba_state_remove(gcuba_call *c)
{
  if (c->coll && c->coll->rank != 0) return;
  if (c->statefile && !(c->flags & GCUBA_KEEPSTATE)) remove(c->statefile);
}
