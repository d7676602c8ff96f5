/* gcuba_mpi.h -- gCuhre and gVegas over the processes of an MPI
   communicator (library libgcuba_mpi, pkg-config module gcuba-mpi).

     gcuba_mpi_comm(MPI_COMM_WORLD);   every later call is collective
     gCuhre(...);                      on every process, same arguments
     gcuba_mpi_comm(MPI_COMM_NULL);    back to local calls

   While a communicator is set, every gCuhre/llgCuhre and gVegas/llgVegas
   call is collective over it: each process calls with the same arguments
   (the integrand too; userdata may differ), the integrand evaluations of
   every iteration are divided among the processes, and every process
   receives the whole result.  That result (integral, error, prob, neval,
   nregions, fail) is the same, bit for bit, for any number of processes
   and threads, and equal to what the call gives without MPI.
   Processes that pass different arguments all get fail
   GCUBA_FAIL_COLLECTIVE (-18); an MPI error gives GCUBA_FAIL_MPI (-17).
   This file is part of gcuba. */
#ifndef GCUBA_MPI_H
#define GCUBA_MPI_H
#include <mpi.h>
#include "gcuba.h"
#ifdef __cplusplus
extern "C" {
#endif

/* Make later calls collective over comm (collective itself: every process
   of comm calls it), or local again with MPI_COMM_NULL.  gcuba works on
   a duplicate of comm.  Returns MPI_SUCCESS or an MPI error code
   (MPI_ERR_OTHER when MPI is not initialized).  MPI_Finalize ends the
   collective mode by itself. */
int gcuba_mpi_comm(MPI_Comm comm);

#ifdef __cplusplus
}
#endif
#endif
