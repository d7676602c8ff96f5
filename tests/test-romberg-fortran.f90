! tests/test-romberg-fortran.f90 -- gromberg and llgromberg from Fortran:
! called without the module (implicit interface, as Fortran 77 code calls
! gcuhre: subroutine legacy below) and with `use gcuba'; both give the same
! bits; e^{cos x} to 1e-14 (true value from mpmath, tests/romberg-cases.h);
! ncomp 2; a 5-argument integrand reading userdata; the nvec form; fail
! codes for ncomp 0, a negative epsrel, -999.  TAP through tapok & co. in
! tests/fortran-ref.c.  This file is part of gcuba.

! e^{cos x}, Cuba's 4-argument form
integer function fexpcos(ndim, x, ncomp, f)
  implicit none
  integer ndim, ncomp
  double precision x(ndim), f(ncomp)
  f(1) = exp(cos(x(1)))
  fexpcos = 0
end function fexpcos

! (e^{cos x}, a x^2) with a from userdata
integer function fpair(ndim, x, ncomp, f, a)
  implicit none
  integer ndim, ncomp
  double precision x(ndim), f(ncomp), a
  f(1) = exp(cos(x(1)))
  f(2) = a * x(1)**2
  fpair = 0
end function fpair

! the nvec form: x(ndim, nvec), f(ncomp, nvec)
integer function fvec(ndim, x, ncomp, f, u, nvec, core)
  implicit none
  integer ndim, ncomp, nvec, core, i
  double precision x(ndim, nvec), f(ncomp, nvec), u
  do i = 1, nvec
    f(1, i) = exp(cos(x(1, i)))
  end do
  fvec = 0
end function fvec

integer function fabort(ndim, x, ncomp, f)
  implicit none
  integer ndim, ncomp
  double precision x(ndim), f(ncomp)
  f(1) = 1
  fabort = 0
  if (x(1) > 0.6d0) fabort = -999
end function fabort

! no module: what a Fortran 77 program does
subroutine legacy(i, e, neval, fail)
  implicit none
  double precision i(1), e(1), p(1)
  integer neval, fail
  integer fexpcos
  external fexpcos
  call gromberg(1, fexpcos, 0, 1, 1d-14, 0d0, 0, 0, 1000000, &
    neval, fail, i, e, p)
end subroutine legacy

program romberg_fortran
  use, intrinsic :: iso_c_binding, only: c_long_long
  use gcuba
  implicit none
  ! e^{cos x} over [0, 1], mpmath (tests/romberg-cases.h)
  double precision, parameter :: i1 = 2.34157484171305316492297518622d0
  double precision i(2), e(2), p(2), li(1), le(1), a
  integer neval, fail, lneval, lfail
  integer(c_long_long) :: n8
  integer, external :: fexpcos, fpair, fvec, fabort
  interface
    subroutine tapok(cond, msg)
      logical :: cond
      character(len=*) :: msg
    end subroutine tapok
    subroutine tapplan(n)
      integer :: n
    end subroutine tapplan
    subroutine tapdone()
    end subroutine tapdone
  end interface

  call tapplan(7)
  call legacy(li, le, lneval, lfail)
  call tapok(lfail == 0 .and. abs(li(1) - i1) <= 1d-14 * i1, &
    'gromberg without the module: e^cos x to 1e-14')
  call gromberg(1, fexpcos, 0, 1, 1d-14, 0d0, 0, 0, 1000000, &
    neval, fail, i, e, p)
  call tapok(fail == lfail .and. neval == lneval .and. i(1) == li(1) .and. &
    e(1) == le(1), 'gromberg with use gcuba: the same bits')
  a = 3
  call llgromberg(2, fpair, a, 1_c_long_long, 1d-12, 0d0, 0, &
    0_c_long_long, 1000000_c_long_long, n8, fail, i, e, p)
  call tapok(fail == 0 .and. abs(i(1) - i1) <= 1d-12 * i1 .and. &
    abs(i(2) - 1) <= 1d-12, 'llgromberg, ncomp 2, userdata')
  call gromberg(1, fvec, a, 100, 1d-14, 0d0, 0, 0, 1000000, &
    neval, fail, i, e, p)
  call tapok(fail == lfail .and. neval == lneval .and. i(1) == li(1), &
    'gromberg, nvec form: the same bits')
  call gromberg(0, fexpcos, 0, 1, 1d-14, 0d0, 0, 0, 1000000, &
    neval, fail, i, e, p)
  call tapok(fail == -2, 'ncomp 0: fail -2')
  call gromberg(1, fexpcos, 0, 1, -1d0, 0d0, 0, 0, 1000000, &
    neval, fail, i, e, p)
  call tapok(fail == -4, 'epsrel < 0: fail -4')
  call gromberg(1, fabort, 0, 1, 1d-10, 0d0, 0, 0, 1000000, &
    neval, fail, i, e, p)
  call tapok(fail == -99, '-999: fail -99')
  call tapdone()
end program romberg_fortran
