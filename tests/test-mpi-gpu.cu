/* tests/test-mpi-gpu.cu -- tests/test-mpi.c on the GPU backend (its
   integrands compiled by nvcc).  This file is part of gcuba. */
#define TEST_MPI_GPU 1
#include "test-mpi.c"
