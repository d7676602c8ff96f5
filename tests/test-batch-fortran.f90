! tests/test-batch-fortran.f90 -- gcuhrebatch, llgcuhrebatch, gvegasbatch
! from Fortran: called without the module (implicit interface, as
! Fortran 77 code calls gcuhre: subroutine legacy below) and with
! `use gcuba'; both give the same bits.  Four integrals of a a x y over
! the unit square, a = 1 .. 4 from the userdata array (integral b reads
! a(b)), exact a / 4; integral(ncomp, nintegrals) holds integral b's
! component c at (c, b); fail codes.  TAP through tapok & co. in
! tests/fortran-ref.c.  This file is part of gcuba.

! (a x y, 2 a x y) with a the integral's parameter (userdata)
integer function faxy(ndim, x, ncomp, f, a)
  implicit none
  integer ndim, ncomp
  double precision x(ndim), f(ncomp), a
  f(1) = a * x(1) * x(2)
  f(2) = 2 * f(1)
  faxy = 0
end function faxy

! no module: what a Fortran 77 program does
subroutine legacy(a, i, neval, fail)
  implicit none
  double precision a(4), i(2, 4), e(2, 4), p(2, 4)
  integer neval(4), fail(4), nreg(4)
  integer faxy
  external faxy
  call gcuhrebatch(4, 2, 2, faxy, a, 8_8, 1, 1d-10, 0d0, 0, 0, &
    1000000, 0, nreg, neval, fail, i, e, p)
end subroutine legacy

program batch_fortran
  use, intrinsic :: iso_c_binding, only: c_long_long, c_size_t
  use gcuba
  implicit none
  double precision a(4), i(2, 4), e(2, 4), p(2, 4), li(2, 4)
  integer neval(4), fail(4), nreg(4), lneval(4), lfail(4), b
  integer(c_long_long) :: n8(4)
  logical good
  integer, external :: faxy
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

  call tapplan(6)
  a = (/ 1d0, 2d0, 3d0, 4d0 /)
  call legacy(a, li, lneval, lfail)
  good = .true.
  do b = 1, 4
    good = good .and. lfail(b) == 0 .and. &
      abs(li(1, b) - a(b) / 4) <= 1d-10 * a(b) / 4 .and. &
      abs(li(2, b) - a(b) / 2) <= 1d-10 * a(b) / 2
  end do
  call tapok(good, 'gcuhrebatch without the module: a x y, a = 1 .. 4, '// &
    'integral(c, b) within 1e-10')
  call gcuhrebatch(4, 2, 2, faxy, a, 8_c_size_t, 1, 1d-10, 0d0, 0, 0, &
    1000000, 0, nreg, neval, fail, i, e, p)
  call tapok(all(fail == lfail) .and. all(neval == lneval) .and. &
    all(i == li), 'gcuhrebatch with use gcuba: the same bits')
  call llgcuhrebatch(4, 2, 2, faxy, a, 8_c_size_t, 1_c_long_long, 1d-10, &
    0d0, 0, 0_c_long_long, 1000000_c_long_long, 0, nreg, n8, fail, i, e, p)
  call tapok(all(fail == lfail) .and. all(n8 == lneval) .and. &
    all(i == li), 'llgcuhrebatch: the same bits, integer*8 counts')
  call gvegasbatch(4, 2, 2, faxy, a, 8_c_size_t, 1, 1d-3, 0d0, 0, 0, 0, &
    1000000, 10000, 5000, 1000, 0, neval, fail, i, e, p)
  good = .true.
  do b = 1, 4
    good = good .and. fail(b) == 0 .and. abs(i(1, b) - a(b) / 4) <= &
      4 * e(1, b)
  end do
  call tapok(good, 'gvegasbatch: a x y within 4 sigma for a = 1 .. 4')
  call gcuhrebatch(4, 0, 2, faxy, a, 8_c_size_t, 1, 1d-10, 0d0, 0, 0, &
    1000000, 0, nreg, neval, fail, i, e, p)
  call tapok(all(fail == -1), 'gcuhrebatch ndim 0: every fail -1')
  call gvegasbatch(4, 2, 2, faxy, a, 8_c_size_t, 1, 1d-3, 0d0, 0, 0, 0, &
    1000000, 1, 5000, 1000, 0, neval, fail, i, e, p)
  call tapok(all(fail == -6), 'gvegasbatch nstart 1: every fail -6')
  call tapdone()
end program batch_fortran
