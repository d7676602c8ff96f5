/* src/mpi/gcuba_mpi.c -- libgcuba_mpi: the collective operations of
   common/coll.h over an MPI communicator, installed into libgcuba by
   gcuba_mpi_comm.  libgcuba itself never links MPI.  This file is part
   of gcuba. */
#include <limits.h>
#include <stdlib.h>
#include "gcuba_mpi.h"
#include "common/coll.h"

static MPI_Comm comm = MPI_COMM_NULL; /* our duplicate */
static int *counts, *displs;          /* [size] scratch of allgatherv */
static int finalize_key = MPI_KEYVAL_INVALID;

static MPI_Datatype type_of(int type)
{
  return type == GCUBA_COLL_DOUBLE ? MPI_DOUBLE
         : type == GCUBA_COLL_LL   ? MPI_LONG_LONG
                                   : MPI_BYTE;
}

static int allgatherv(void *ctx, void *buf, const long long *n, int type)
{
  int size, r, total = 0;
  (void)ctx;
  MPI_Comm_size(comm, &size);
  for (r = 0; r < size; ++r) {
    if (n[r] < 0 || n[r] > INT_MAX - total) return MPI_ERR_COUNT;
    counts[r] = (int)n[r];
    displs[r] = total;
    total += counts[r];
  }
  return MPI_Allgatherv(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, buf, counts,
                        displs, type_of(type), comm);
}

static int allreduce(void *ctx, void *v, int n, int type, int op)
{
  MPI_Op o = op == GCUBA_COLL_MIN   ? MPI_MIN
             : op == GCUBA_COLL_MAX ? MPI_MAX
             : op == GCUBA_COLL_SUM ? MPI_SUM
                                    : MPI_BOR;
  (void)ctx;
  return MPI_Allreduce(MPI_IN_PLACE, v, n, type_of(type), o, comm);
}

/* bytes, in words of 8 when every count and offset allows it (region
   records are whole doubles), so that one call moves up to 16 GiB */
static int alltoallv(void *ctx, const void *send, const long long *scnt,
                     const long long *soff, void *recv,
                     const long long *rcnt, const long long *roff)
{
  int size, r, unit = 8, rc;
  int *sc, *so, *rcn, *ro;
  MPI_Datatype w = MPI_BYTE, word;
  (void)ctx;
  MPI_Comm_size(comm, &size);
  for (r = 0; r < size; ++r)
    if ((scnt[r] | soff[r] | rcnt[r] | roff[r]) % 8) unit = 1;
  for (r = 0; r < size; ++r)
    if (scnt[r] < 0 || soff[r] < 0 || rcnt[r] < 0 || roff[r] < 0 ||
        scnt[r] / unit > INT_MAX || soff[r] / unit > INT_MAX ||
        rcnt[r] / unit > INT_MAX || roff[r] / unit > INT_MAX)
      return MPI_ERR_COUNT;
  sc = (int *)malloc(sizeof(int) * 4 * (size_t)size);
  if (!sc) return MPI_ERR_NO_MEM;
  so = sc + size;
  rcn = so + size;
  ro = rcn + size;
  for (r = 0; r < size; ++r) {
    sc[r] = (int)(scnt[r] / unit);
    so[r] = (int)(soff[r] / unit);
    rcn[r] = (int)(rcnt[r] / unit);
    ro[r] = (int)(roff[r] / unit);
  }
  if (unit == 8) {
    if ((rc = MPI_Type_contiguous(8, MPI_BYTE, &word)) != MPI_SUCCESS ||
        (rc = MPI_Type_commit(&word)) != MPI_SUCCESS) {
      free(sc);
      return rc;
    }
    w = word;
  }
  rc = MPI_Alltoallv(send, sc, so, w, recv, rcn, ro, w, comm);
  if (unit == 8) MPI_Type_free(&word);
  free(sc);
  return rc;
}

static void release(void)
{
  gcuba_collective_set(NULL);
  if (comm != MPI_COMM_NULL) MPI_Comm_free(&comm);
  comm = MPI_COMM_NULL;
  free(counts);
  free(displs);
  counts = displs = NULL;
}

/* MPI_Finalize deletes MPI_COMM_SELF's attributes first: leave the
   collective mode then, while the duplicate can still be freed */
static int on_finalize(MPI_Comm c, int key, void *val, void *extra)
{
  (void)c;
  (void)key;
  (void)val;
  (void)extra;
  release();
  return MPI_SUCCESS;
}

int gcuba_mpi_comm(MPI_Comm user)
{
  gcuba_collective t;
  int inited = 0, finalized = 0, rc, size, rank;
  MPI_Initialized(&inited);
  MPI_Finalized(&finalized);
  if (!inited || finalized) return MPI_ERR_OTHER;
  release();
  if (user == MPI_COMM_NULL) return MPI_SUCCESS;
  if ((rc = MPI_Comm_dup(user, &comm)) != MPI_SUCCESS) {
    comm = MPI_COMM_NULL;
    return rc;
  }
  MPI_Comm_set_errhandler(comm, MPI_ERRORS_RETURN);
  MPI_Comm_size(comm, &size);
  MPI_Comm_rank(comm, &rank);
  counts = (int *)malloc(sizeof(int) * (size_t)size);
  displs = (int *)malloc(sizeof(int) * (size_t)size);
  if (!counts || !displs) {
    release();
    return MPI_ERR_NO_MEM;
  }
  if (finalize_key == MPI_KEYVAL_INVALID) {
    if ((rc = MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, on_finalize,
                                     &finalize_key, NULL)) != MPI_SUCCESS ||
        (rc = MPI_Comm_set_attr(MPI_COMM_SELF, finalize_key, NULL)) !=
            MPI_SUCCESS) {
      finalize_key = MPI_KEYVAL_INVALID;
      release();
      return rc;
    }
  }
  {
    /* the processes sharing this node (for the choice of GPU) */
    MPI_Comm node;
    t.local_rank = 0;
    t.local_size = 1;
    if (MPI_Comm_split_type(comm, MPI_COMM_TYPE_SHARED, rank, MPI_INFO_NULL,
                            &node) == MPI_SUCCESS) {
      MPI_Comm_rank(node, &t.local_rank);
      MPI_Comm_size(node, &t.local_size);
      MPI_Comm_free(&node);
    }
  }
  t.rank = rank;
  t.size = size;
  t.ctx = NULL;
  t.device = -1; /* chosen from local_rank */
  t.allgatherv = allgatherv;
  t.allreduce = allreduce;
  t.allgatherv_dev = NULL;
  t.alltoallv = alltoallv;
  t.alltoallv_dev = NULL;
  gcuba_collective_set(&t);
  return MPI_SUCCESS;
}

/* Fortran, without the module: integer function gcuba_mpi_comm(comm) with
   comm a Fortran communicator (MPI_COMM_WORLD, MPI_COMM_NULL, ...) */
int gcuba_mpi_comm_(const MPI_Fint *fcomm);
int gcuba_mpi_comm_(const MPI_Fint *fcomm)
{
  return gcuba_mpi_comm(MPI_Comm_f2c(*fcomm));
}
