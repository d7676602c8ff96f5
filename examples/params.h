/* params.h -- the parameter struct that userdata.c passes to the
   integrand of userdata-integrand.cu.  A plain struct (numbers and fixed
   arrays, no pointers) so that gcuba can copy it to the GPU byte for byte
   (gcuba_userdata_size). */
#ifndef PARAMS_H
#define PARAMS_H

#define PARAMS_MAXDIM 8

/* a Gaussian exp(-sum_i a_i^2 (x_i - u_i)^2): width a_i, centre u_i */
struct params {
  int ndim;
  double a[PARAMS_MAXDIM];
  double u[PARAMS_MAXDIM];
};

#endif
