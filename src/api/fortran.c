/* src/api/fortran.c -- the Fortran entry points: what gfortran calls for
   `call gcuhre(...)' and friends, with or without `use gcuba'.

   Cuba's Fortran convention, as gfortran implements it: every argument
   by reference; the character argument statefile carries a hidden length
   (size_t) appended after the last argument; external names are in lower
   case with one trailing underscore.  The routines take Cuba's arguments
   in Cuba's order and call the C interface (gCuhre, ...) with them.

   gromberg_ and llgromberg_ (gcuba's own 1-D routine) take gRomberg's
   arguments, gcuhrebatch_, gvegasbatch_ and their ll forms the batch
   routines' (userstride an integer*8); they have no character argument.
   gdivonne_ and llgdivonne_ pass xgiven on as C's array and peakfinder, a
   Fortran subroutine (every argument by reference), on as C's
   gcuba_peakfinder_t, as Cuba does; it is called only when nextra > 0,
   so Cuba's 0 in its place is fine (the module's absent one is NULL).
   The integrand comes in two kinds:
     gcuhre_, llgcuhre_, gvegas_, llgvegas_, gromberg_, llgromberg_: a
       Fortran function, run on CPU
       threads.  It is called as Cuba calls it, (ndim, x, ncomp, f,
       userdata, nvec, core), which is gcuba's GCUBA_DESC_NVEC descriptor
       kind; a function declaring only the first 4 or 5 of these ignores
       the others (the caller pushes and pops them; x86-64 SysV and AArch64
       both work this way, and Cuba relies on it too).
     the same names with _desc_: the address of a gintegrand_t variable,
       i.e. a GCUBA_INTEGRAND object named in Fortran by bind(c); it runs
       on the GPU when it was compiled by nvcc and a device is usable.
   The descriptor of a Fortran function lives on the caller's stack for
   the duration of the call: no table, no limit on the number of
   functions, nothing shared between concurrent calls.

   This file is part of gcuba. */
#include <stdlib.h>
#include <string.h>
#include "common/common.h"

typedef struct {
  struct gcuba_integrand desc; /* a Fortran function's descriptor */
  gintegrand_t in;             /* what the C interface gets */
  char *state;                 /* statefile as a C string, or NULL */
} fcall;

/* statefile: NULL (%VAL(0)), empty or blank means none; trailing blanks
   and anything from a NUL on are not part of the name */
static int fbegin(fcall *f, const char *s, size_t len, int *fail)
{
  size_t n = 0;
  f->state = NULL;
  if (s) {
    while (n < len && s[n]) ++n;
    while (n > 0 && s[n - 1] == ' ') --n;
  }
  if (n > 0) {
    f->state = (char *)malloc(n + 1);
    if (!f->state) {
      if (fail) *fail = GCUBA_FAIL_NOMEM;
      return -1;
    }
    memcpy(f->state, s, n);
    f->state[n] = 0;
  }
  return 0;
}

/* a Fortran function (NULL gives fail -3 from the C interface) */
static int ffunction(fcall *f, gcuba_host_fn fn, const char *s, size_t len,
                     int *fail)
{
  f->desc.abi = GCUBA_ABI_VERSION;
  f->desc.kind = GCUBA_DESC_NVEC;
  f->desc.name = "host function"; /* as gcuba_host_integrand's: the same
                                     state files serve C and Fortran */
  f->desc.fn = fn;
  f->desc.gpu = NULL;
  f->in = &f->desc;
  return fbegin(f, s, len, fail);
}

/* the address of a gintegrand_t (a NULL one gives fail -3) */
static int fdescriptor(fcall *f, const gintegrand_t *d, const char *s,
                       size_t len, int *fail)
{
  f->in = d ? *d : NULL;
  return fbegin(f, s, len, fail);
}

/* a C string into a Fortran character variable, blank-padded */
static void fstring(const char *s, char *out, size_t len)
{
  size_t n = strlen(s);
  if (!out) return;
  if (n > len) n = len;
  memcpy(out, s, n);
  memset(out + n, ' ', len - n);
}

/* The entry points, written by fortran/gen.sh from fortran/routines.def
   (the table of routines and arguments): gcuhre_, gcuhre_desc_, llgcuhre_,
   llgcuhre_desc_ and the same for gvegas, gsuave, gdivonne, gromberg,
   gcuhrebatch and gvegasbatch; gcubacores_ & co.  Each takes the C
   routine's arguments by reference, in its order, plus the hidden
   lengths; a Fortran function goes through ffunction, a descriptor
   through fdescriptor, a statefile through fbegin, a string result
   through fstring. */
#include "fortran.inc"
