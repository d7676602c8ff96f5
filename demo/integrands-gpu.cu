/* demo/integrands.cu -- the demo's integrands compiled by nvcc. */
#include "integrands.c"
