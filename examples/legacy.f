* legacy.f -- Fortran 77 as Cuba's users write it: `call cuhre' and
* `call vegas' become `call gcuhre' and `call gvegas', nothing else
* changes.  No module and no include file are needed (the flag and fail
* constants are in gcuba.fi for those who want names).  Integrates
* x y z exp(x + y + z) over the unit cube, whose integral is 1, and stops
* with status 1 if a run fails or is off.

      program legacy
      implicit none
      external xyzexp
      integer nregions, neval, fail
      double precision integral(1), error(1), prob(1)
      integer*8 spin
      parameter (spin = -1)

      call gcuhre(3, 1, xyzexp, 0, 1,
     &  1D-8, 1D-30, 0, 0, 10000000, 0,
     &  '', spin, nregions, neval, fail, integral, error, prob)
      print *, 'gcuhre', integral(1), ' +-', error(1), ' fail', fail
      if (fail .ne. 0 .or. abs(integral(1) - 1) .gt. 1D-8) stop 1

      call gvegas(3, 1, xyzexp, 0, 1,
     &  1D-3, 1D-30, 0, 1, 0, 10000000,
     &  10000, 10000, 1000, 0,
     &  '', spin, neval, fail, integral, error, prob)
      print *, 'gvegas', integral(1), ' +-', error(1), ' fail', fail
      if (fail .ne. 0 .or. abs(integral(1) - 1) .gt. 4*error(1)) stop 1
      end

* x y z exp(x + y + z): each factor integrates to int_0^1 t e^t dt = 1.
* Called from several CPU threads at once: no SAVE, no COMMON written.
      integer function xyzexp(ndim, x, ncomp, f)
      implicit none
      integer ndim, ncomp
      double precision x(ndim), f(ncomp)
      f(1) = x(1)*x(2)*x(3)*exp(x(1) + x(2) + x(3))
      xyzexp = 0
      end
