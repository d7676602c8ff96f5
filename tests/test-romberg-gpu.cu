/* tests/test-romberg-gpu.cu -- tests/test-romberg.c compiled by nvcc
   with ROMB_GPU: the gRomberg battery on the GPU (GCUBA_DEVICE=gpu, the
   integrands' device code), and the CPU and GPU backends side by side.
   This file is part of gcuba. */
#define ROMB_GPU 1
#include "test-romberg.c"
