/* tests/capture.h -- what a library call writes to stderr, for tests that
   check its messages: capture_begin sends stderr to a file, capture_end
   puts it back and reads the file into buf (NUL-terminated, at most
   cap - 1 bytes) and removes it.  POSIX.  This file is part of gcuba. */
#ifndef GCUBA_TESTS_CAPTURE_H
#define GCUBA_TESTS_CAPTURE_H
#include <stdio.h>
#include <unistd.h>

/* the saved stderr, for capture_end */
static inline int capture_begin(const char *file)
{
  const int save = dup(2);
  fflush(stderr);
  if (!freopen(file, "w", stderr)) perror(file);
  return save;
}

static inline const char *capture_end(int save, const char *file, char *buf,
                                      size_t cap)
{
  FILE *fp;
  size_t n;
  fflush(stderr);
  dup2(save, 2);
  close(save);
  fp = fopen(file, "r");
  n = fp ? fread(buf, 1, cap - 1, fp) : 0;
  buf[n] = 0;
  if (fp) fclose(fp);
  remove(file);
  return buf;
}
#endif /* GCUBA_TESTS_CAPTURE_H */
