! tests/test-fortran-module.f90 -- the Fortran 2003 module gcuba: with
! `use gcuba', gcuhre, llgcuhre, gvegas and llgvegas accept what Cuba's
! Fortran users pass -- userdata of any type in one file (a derived type
! reaching the integrand, a real, an integer, an array, %VAL(0)), spin as
! integer*8 or a plain -1, statefile as a string -- and legacy integrand
! functions defined in this file; the results equal the C interface's for
! the same arguments bit for bit (tests/fortran-ref.c), fail codes
! included.  gdivonne and llgdivonne take Cuba's 0 for xgiven, an array
! of rank 2, a peakfinder subroutine, or neither left out by keyword
! (NULL for C); equal to C whatever their fail (test-divonne checks the
! answers).  GCUBA_INTEGRAND objects (tests/fortran-gpu.c) passed by name
! through bind(c): on the GPU when this build has CUDA and a device is
! usable (required when GCUBA_TEST_REQUIRE_GPU=1), else on CPU threads;
! userdata of a bind(c) type copied to the GPU (gcuba_userdata_size).
! gVegas' accuracy is checked once it returns fail >= 0.
! This file is part of gcuba.

module ftest
  use, intrinsic :: iso_c_binding, only: c_double, c_int, c_long_long
  use gcuba
  implicit none

  ! userdata of a derived type; the C integrand fgparam reads it too
  type, bind(c) :: param
    real(c_double) :: a
    integer(c_int) :: k
  end type param

  ! the GCUBA_INTEGRAND objects of tests/fortran-gpu.c
  type(gcuba_integrand), bind(c, name="fgauss") :: fgauss
  type(gcuba_integrand), bind(c, name="fgparam") :: fgparam

  ! the reference calls of tests/fortran-ref.c (C interface): the
  ! integrand a function (form 0: Cuba's 5 arguments, 1: the nvec form)
  ! or a GCUBA_INTEGRAND object; statefile NUL-terminated
  interface refcuhre
    subroutine refcuhre(form, ndim, ncomp, integrand, userdata, nvec, &
        epsrel, epsabs, flags, mineval, maxeval, key, statefile, spin, &
        nregions, neval, fail, integral, error, prob)
      integer :: form, ndim, ncomp, nvec, flags, mineval, maxeval, key
      external :: integrand
!GCC$ ATTRIBUTES NO_ARG_CHECK :: userdata, spin
      type(*), dimension(*) :: userdata, spin
      double precision :: epsrel, epsabs, integral(*), error(*), prob(*)
      character(len=*) :: statefile
      integer :: nregions, neval, fail
    end subroutine refcuhre
    subroutine refcuhred(form, ndim, ncomp, integrand, userdata, nvec, &
        epsrel, epsabs, flags, mineval, maxeval, key, statefile, spin, &
        nregions, neval, fail, integral, error, prob)
      import :: gcuba_integrand
      integer :: form, ndim, ncomp, nvec, flags, mineval, maxeval, key
      type(gcuba_integrand) :: integrand
!GCC$ ATTRIBUTES NO_ARG_CHECK :: userdata, spin
      type(*), dimension(*) :: userdata, spin
      double precision :: epsrel, epsabs, integral(*), error(*), prob(*)
      character(len=*) :: statefile
      integer :: nregions, neval, fail
    end subroutine refcuhred
  end interface refcuhre

  interface llrefcuhre
    subroutine llrefcuhre(form, ndim, ncomp, integrand, userdata, nvec, &
        epsrel, epsabs, flags, mineval, maxeval, key, statefile, spin, &
        nregions, neval, fail, integral, error, prob)
      integer :: form, ndim, ncomp, flags, key, nregions, fail
      integer(8) :: nvec, mineval, maxeval, neval
      external :: integrand
!GCC$ ATTRIBUTES NO_ARG_CHECK :: userdata, spin
      type(*), dimension(*) :: userdata, spin
      double precision :: epsrel, epsabs, integral(*), error(*), prob(*)
      character(len=*) :: statefile
    end subroutine llrefcuhre
    subroutine llrefcuhred(form, ndim, ncomp, integrand, userdata, nvec, &
        epsrel, epsabs, flags, mineval, maxeval, key, statefile, spin, &
        nregions, neval, fail, integral, error, prob)
      import :: gcuba_integrand
      integer :: form, ndim, ncomp, flags, key, nregions, fail
      integer(8) :: nvec, mineval, maxeval, neval
      type(gcuba_integrand) :: integrand
!GCC$ ATTRIBUTES NO_ARG_CHECK :: userdata, spin
      type(*), dimension(*) :: userdata, spin
      double precision :: epsrel, epsabs, integral(*), error(*), prob(*)
      character(len=*) :: statefile
    end subroutine llrefcuhred
  end interface llrefcuhre

  interface refsuave
    subroutine refsuave(form, ndim, ncomp, integrand, userdata, nvec, &
        epsrel, epsabs, flags, seed, mineval, maxeval, nnew, nmin, flatness, &
        statefile, spin, nregions, neval, fail, integral, error, prob)
      integer :: form, ndim, ncomp, nvec, flags, seed, mineval, maxeval, &
        nnew, nmin, nregions, neval, fail
      external :: integrand
!GCC$ ATTRIBUTES NO_ARG_CHECK :: userdata, spin
      type(*), dimension(*) :: userdata, spin
      double precision :: epsrel, epsabs, flatness, integral(*), error(*), &
        prob(*)
      character(len=*) :: statefile
    end subroutine refsuave
  end interface

  interface refdivonne
    subroutine refdivonne(form, ndim, ncomp, integrand, userdata, nvec, &
        epsrel, epsabs, flags, seed, mineval, maxeval, key1, key2, key3, &
        maxpass, border, maxchisq, mindeviation, ngiven, ldxgiven, xgiven, &
        nextra, peakfinder, statefile, spin, nregions, neval, fail, &
        integral, error, prob)
      integer :: form, ndim, ncomp, nvec, flags, seed, mineval, maxeval, &
        key1, key2, key3, maxpass, ngiven, ldxgiven, nextra, nregions, &
        neval, fail
      external :: integrand, peakfinder
!GCC$ ATTRIBUTES NO_ARG_CHECK :: userdata, xgiven, spin
      type(*), dimension(*) :: userdata, spin
      double precision :: epsrel, epsabs, border, maxchisq, mindeviation, &
        xgiven(*), integral(*), error(*), prob(*)
      character(len=*) :: statefile
      optional :: xgiven, peakfinder
    end subroutine refdivonne
  end interface refdivonne

  interface llrefdivonne
    subroutine llrefdivonne(form, ndim, ncomp, integrand, userdata, nvec, &
        epsrel, epsabs, flags, seed, mineval, maxeval, key1, key2, key3, &
        maxpass, border, maxchisq, mindeviation, ngiven, ldxgiven, xgiven, &
        nextra, peakfinder, statefile, spin, nregions, neval, fail, &
        integral, error, prob)
      integer :: form, ndim, ncomp, flags, seed, key1, key2, key3, maxpass, &
        ldxgiven, nregions, fail
      integer(8) :: nvec, mineval, maxeval, ngiven, nextra, neval
      external :: integrand, peakfinder
!GCC$ ATTRIBUTES NO_ARG_CHECK :: userdata, xgiven, spin
      type(*), dimension(*) :: userdata, spin
      double precision :: epsrel, epsabs, border, maxchisq, mindeviation, &
        xgiven(*), integral(*), error(*), prob(*)
      character(len=*) :: statefile
      optional :: xgiven, peakfinder
    end subroutine llrefdivonne
  end interface llrefdivonne

  interface refvegas
    subroutine refvegas(form, ndim, ncomp, integrand, userdata, nvec, &
        epsrel, epsabs, flags, seed, mineval, maxeval, nstart, nincrease, &
        nbatch, gridno, statefile, spin, neval, fail, integral, error, prob)
      integer :: form, ndim, ncomp, nvec, flags, seed, mineval, maxeval, &
        nstart, nincrease, nbatch, gridno, neval, fail
      external :: integrand
!GCC$ ATTRIBUTES NO_ARG_CHECK :: userdata, spin
      type(*), dimension(*) :: userdata, spin
      double precision :: epsrel, epsabs, integral(*), error(*), prob(*)
      character(len=*) :: statefile
    end subroutine refvegas
    subroutine refvegasd(form, ndim, ncomp, integrand, userdata, nvec, &
        epsrel, epsabs, flags, seed, mineval, maxeval, nstart, nincrease, &
        nbatch, gridno, statefile, spin, neval, fail, integral, error, prob)
      import :: gcuba_integrand
      integer :: form, ndim, ncomp, nvec, flags, seed, mineval, maxeval, &
        nstart, nincrease, nbatch, gridno, neval, fail
      type(gcuba_integrand) :: integrand
!GCC$ ATTRIBUTES NO_ARG_CHECK :: userdata, spin
      type(*), dimension(*) :: userdata, spin
      double precision :: epsrel, epsabs, integral(*), error(*), prob(*)
      character(len=*) :: statefile
    end subroutine refvegasd
  end interface refvegas

  interface llrefvegas
    subroutine llrefvegas(form, ndim, ncomp, integrand, userdata, nvec, &
        epsrel, epsabs, flags, seed, mineval, maxeval, nstart, nincrease, &
        nbatch, gridno, statefile, spin, neval, fail, integral, error, prob)
      integer :: form, ndim, ncomp, flags, seed, gridno, fail
      integer(8) :: nvec, mineval, maxeval, nstart, nincrease, nbatch, neval
      external :: integrand
!GCC$ ATTRIBUTES NO_ARG_CHECK :: userdata, spin
      type(*), dimension(*) :: userdata, spin
      double precision :: epsrel, epsabs, integral(*), error(*), prob(*)
      character(len=*) :: statefile
    end subroutine llrefvegas
    subroutine llrefvegasd(form, ndim, ncomp, integrand, userdata, nvec, &
        epsrel, epsabs, flags, seed, mineval, maxeval, nstart, nincrease, &
        nbatch, gridno, statefile, spin, neval, fail, integral, error, prob)
      import :: gcuba_integrand
      integer :: form, ndim, ncomp, flags, seed, gridno, fail
      integer(8) :: nvec, mineval, maxeval, nstart, nincrease, nbatch, neval
      type(gcuba_integrand) :: integrand
!GCC$ ATTRIBUTES NO_ARG_CHECK :: userdata, spin
      type(*), dimension(*) :: userdata, spin
      double precision :: epsrel, epsabs, integral(*), error(*), prob(*)
      character(len=*) :: statefile
    end subroutine llrefvegasd
  end interface llrefvegas

  ! the TAP helpers and probes of tests/fortran-ref.c
  interface
    subroutine tapok(cond, msg)
      logical :: cond
      character(len=*) :: msg
    end subroutine tapok
    subroutine tapdiag(msg)
      character(len=*) :: msg
    end subroutine tapdiag
    integer function refconst(name, value)
      character(len=*) :: name
      integer :: value
    end function refconst
    integer function refmsg(fail, msg)
      integer :: fail
      character(len=*) :: msg
    end function refmsg
    integer function refhasgpu(d)
      import :: gcuba_integrand
      type(gcuba_integrand) :: d
    end function refhasgpu
  end interface

  ! one run's results: Fortran's (f) and C's (c)
  type run
    integer :: fail = -1000, nregions = -1
    integer(8) :: neval = -1
    double precision :: integral(3) = -7, error(3) = -7, prob(3) = -7
  end type run

contains

  ! Fortran and C results equal bit for bit (outputs the routine did not
  ! write keep the same initial values in both)
  logical function same(f, c)
    type(run), intent(in) :: f, c
    same = f%fail == c%fail .and. f%nregions == c%nregions .and. &
      f%neval == c%neval .and. all(f%integral == c%integral) .and. &
      all(f%error == c%error) .and. all(f%prob == c%prob)
  end function same

  ! gVegas: equal to C; once it returns fail >= 0, converged within 4
  ! standard errors of the true value
  subroutine vegasok(f, c, comp, truth, what)
    type(run), intent(in) :: f, c
    integer, intent(in) :: comp
    double precision, intent(in) :: truth
    character(len=*), intent(in) :: what
    character(len=200) :: msg
    if (f%fail < 0) then
      write (msg, '(a,a,i0,a)') what, ': fail ', f%fail, &
        ', as the C interface'
      call tapok(same(f, c), msg)
    else
      write (msg, '(a,a,i0,a,es15.8,a,es9.2,a,es15.8)') what, ': fail ', &
        f%fail, ', ', f%integral(comp), ' +- ', f%error(comp), &
        ', true ', truth
      call tapok(same(f, c) .and. f%fail == 0 .and. &
        abs(f%integral(comp) - truth) <= 4*f%error(comp), msg)
    end if
  end subroutine vegasok

  subroutine rmfile(name)
    character(len=*), intent(in) :: name
    integer :: u, ios
    open (newunit=u, file=name, status='old', iostat=ios)
    if (ios == 0) close (u, status='delete')
  end subroutine rmfile
end module ftest

program module_test
  use, intrinsic :: iso_c_binding, only: c_sizeof, c_null_char, c_size_t
  use gcuba
  use ftest
  implicit none
  ! legacy integrands, defined at the end of this file
  external :: f4four, fparam5, f4vec, f3comp, fabort, initf, fsmooth, &
    centre
  integer :: maxnv(0:1023), nvlim
  common /nvc/ maxnv, nvlim

  type(run) :: f, c, full, part
  type(param) :: p
  double precision :: g, t3(3), arr(4), xg(3, 1)
  integer(8) :: spin8
  integer :: fail, hook(2), nr, ne
  character(len=40) :: sf
  character(len=200) :: msg
  character(len=80) :: emsg
  character(len=8) :: backend
  character(len=1), parameter :: nul = c_null_char
  logical :: ex, gpucode, reqgpu
  character(len=8) :: env

  g = sqrt(acos(-1d0))/25*erf(12.5d0)
  t3 = [g**3, 1.0846560846560847d-02, 2d0]
  p = param(2.5d0, 3)
  arr = 0
  spin8 = -1
  sf = 'fortran-module-state.tmp'
  call rmfile(trim(sf))
  call tapplan(0)

  ! ---- Cuhre: legacy integrands, userdata of several types in one file
  f = run(); c = run()
  call gcuhre(3, 1, f4four, 0d0, 1, 1d-6, 1d-20, 0, 0, 100000000, 0, "", &
    -1, f%nregions, ne, f%fail, f%integral, f%error, f%prob)
  f%neval = ne
  call refcuhre(0, 3, 1, f4four, 0d0, 1, 1d-6, 1d-20, 0, 0, 100000000, 0, &
    nul, -1, c%nregions, ne, c%fail, c%integral, c%error, c%prob)
  c%neval = ne
  write (msg, '(a,i0,a,es23.16)') '4-argument form, userdata 0d0, spin -1: &
    &fail ', f%fail, ', ', f%integral(1)
  call tapok(same(f, c) .and. f%fail == 0 .and. &
    abs(f%integral(1) - g**3) <= 1d-6*g**3, msg)
  full = f

  f = run(); c = run()
  call gcuhre(4, 1, fparam5, p, 1, 1d-8, 1d-20, 0, 0, 100000000, 0, "", &
    spin8, f%nregions, ne, f%fail, f%integral, f%error, f%prob)
  f%neval = ne
  call refcuhre(0, 4, 1, fparam5, p, 1, 1d-8, 1d-20, 0, 0, 100000000, 0, &
    nul, spin8, c%nregions, ne, c%fail, c%integral, c%error, c%prob)
  c%neval = ne
  write (msg, '(a,i0,a,es23.16)') '5-argument form, type(param) userdata: &
    &fail ', f%fail, ', ', f%integral(1)
  call tapok(same(f, c) .and. f%fail == 0 .and. &
    abs(f%integral(1) - p%a/4**4) <= 1d-8*p%a/4**4, msg)

  f = run(); c = run()
  maxnv = 0
  nvlim = 8
  call gcuhre(3, 1, f4vec, arr, 8, 1d-6, 1d-20, 0, 0, 100000000, 0, "", &
    spin8, f%nregions, ne, f%fail, f%integral, f%error, f%prob)
  f%neval = ne
  call refcuhre(1, 3, 1, f4vec, arr, 8, 1d-6, 1d-20, 0, 0, 100000000, 0, &
    nul, spin8, c%nregions, ne, c%fail, c%integral, c%error, c%prob)
  c%neval = ne
  write (msg, '(a,i0,a,i0)') 'nvec form, nvec = 8, array userdata: fail ', &
    f%fail, ', largest batch ', maxval(maxnv)
  call tapok(same(f, c) .and. f%fail == 0 .and. maxval(maxnv) == 8, msg)
  call tapok(all(f%integral == full%integral) .and. f%neval == full%neval, &
    '  ... the result of the 4-argument form')

  f = run(); c = run()
  call llgcuhre(3, 1, f4four, %val(0), 1_8, 1d-6, 1d-20, 0, 0_8, &
    100000000_8, 0, "", %val(0), f%nregions, f%neval, f%fail, f%integral, &
    f%error, f%prob)
  call llrefcuhre(0, 3, 1, f4four, %val(0), 1_8, 1d-6, 1d-20, 0, 0_8, &
    100000000_8, 0, nul, %val(0), c%nregions, c%neval, c%fail, c%integral, &
    c%error, c%prob)
  call tapok(same(f, c) .and. same(f, full), &
    'llgcuhre, userdata and spin %VAL(0): = C llgCuhre = gcuhre')

  f = run(); c = run()
  call gcuhre(3, 3, f3comp, 0, 1, 1d-5, 1d-20, 0, 0, 100000000, 0, " ", &
    -1_8, f%nregions, ne, f%fail, f%integral, f%error, f%prob)
  f%neval = ne
  call refcuhre(0, 3, 3, f3comp, 0, 1, 1d-5, 1d-20, 0, 0, 100000000, 0, &
    nul, -1_8, c%nregions, ne, c%fail, c%integral, c%error, c%prob)
  c%neval = ne
  write (msg, '(a,i0,3(a,es15.8))') 'ncomp = 3, integer userdata: fail ', &
    f%fail, ', ', f%integral(1), ', ', f%integral(2), ', ', f%integral(3)
  call tapok(same(f, c) .and. f%fail == 0 .and. &
    all(abs(f%integral - t3) <= 1d-5*t3), msg)

  ! ---- statefile: a blank-padded character variable
  full = run()
  call gcuhre(4, 1, f4four, p, 1, 1d-5, 1d-20, 0, 0, 100000000, 0, "", &
    spin8, full%nregions, ne, full%fail, full%integral, full%error, &
    full%prob)
  full%neval = ne
  part = run()
  call gcuhre(4, 1, f4four, p, 1, 1d-5, 1d-20, 0, 0, 200000, 0, sf, &
    spin8, part%nregions, ne, part%fail, part%integral, part%error, &
    part%prob)
  part%neval = ne
  inquire (file=trim(sf), exist=ex)
  call tapok(part%fail == 1 .and. ex, &
    'interrupted by maxeval: fail 1, state file written')
  f = run()
  call gcuhre(4, 1, f4four, p, 1, 1d-5, 1d-20, 0, 0, 100000000, 0, sf, &
    spin8, f%nregions, ne, f%fail, f%integral, f%error, f%prob)
  f%neval = ne
  inquire (file=trim(sf), exist=ex)
  write (msg, '(a,es23.16,a,i0)') 'resumed: ', f%integral(1), ', neval ', &
    f%neval
  call tapok(same(f, full) .and. .not. ex, msg)
  call rmfile(trim(sf))

  ! ---- fail codes, as the C interface gives them
  f = run(); c = run()
  call gcuhre(21, 1, f4four, p, 1, 1d-3, 1d-20, 0, 0, 100000, 0, "", &
    -1, f%nregions, ne, f%fail, f%integral, f%error, f%prob)
  f%neval = ne
  call refcuhre(0, 21, 1, f4four, p, 1, 1d-3, 1d-20, 0, 0, 100000, 0, nul, &
    -1, c%nregions, ne, c%fail, c%integral, c%error, c%prob)
  c%neval = ne
  call tapok(same(f, c) .and. f%fail == GCUBA_FAIL_NDIM, &
    'gcuhre ndim = 21: fail -1')
  f = run(); c = run()
  call gcuhre(3, 1, f4four, p, 1, 1d-3, 1d-20, 0, 2000, 1000, 0, "", &
    -1, f%nregions, ne, f%fail, f%integral, f%error, f%prob)
  f%neval = ne
  call refcuhre(0, 3, 1, f4four, p, 1, 1d-3, 1d-20, 0, 2000, 1000, 0, nul, &
    -1, c%nregions, ne, c%fail, c%integral, c%error, c%prob)
  c%neval = ne
  call tapok(same(f, c) .and. f%fail == GCUBA_FAIL_EVALS, &
    'gcuhre mineval > maxeval: fail -5')
  f = run(); c = run()
  call gcuhre(2, 1, fabort, p, 1, 1d-6, 1d-20, 0, 0, 100000000, 0, "", &
    -1, f%nregions, ne, f%fail, f%integral, f%error, f%prob)
  f%neval = ne
  call refcuhre(0, 2, 1, fabort, p, 1, 1d-6, 1d-20, 0, 0, 100000000, 0, &
    nul, -1, c%nregions, ne, c%fail, c%integral, c%error, c%prob)
  c%neval = ne
  call tapok(same(f, c) .and. f%fail == GCUBA_FAIL_ABORT, &
    'gcuhre: integrand returns -999: fail -99')

  ! ---- gSuave: through the module's interface, equal to C
  f = run(); c = run()
  call gsuave(4, 1, fparam5, p, 1, 1d-3, 1d-20, 0, 0, 0, 1000000, 1000, 2, &
    25d0, "", spin8, f%nregions, ne, f%fail, f%integral, f%error, f%prob)
  f%neval = ne
  call refsuave(0, 4, 1, fparam5, p, 1, 1d-3, 1d-20, 0, 0, 0, 1000000, 1000, &
    2, 25d0, nul, spin8, c%nregions, ne, c%fail, c%integral, c%error, c%prob)
  c%neval = ne
  call vegasok(f, c, 1, p%a/4**4, 'gsuave 5-argument form, type(param)')

  ! ---- gDivonne: Cuba's demo arguments, equal to C whatever the fail.
  ! Cuba's 0 for xgiven (ngiven = 0), peakfinder left out (nextra = 0):
  ! the arguments after it by keyword
  f = run(); c = run()
  call gdivonne(3, 1, fsmooth, 0d0, 1, 1d-3, 1d-20, 0, 0, 0, 50000, 47, 1, &
    1, 5, 0d0, 10d0, .25d0, 0, 3, 0, 0, statefile="", spin=spin8, &
    nregions=f%nregions, neval=ne, fail=f%fail, integral=f%integral, &
    error=f%error, prob=f%prob)
  f%neval = ne
  call refdivonne(0, 3, 1, fsmooth, 0d0, 1, 1d-3, 1d-20, 0, 0, 0, 50000, &
    47, 1, 1, 5, 0d0, 10d0, .25d0, 0, 3, 0, 0, statefile=nul, spin=spin8, &
    nregions=c%nregions, neval=ne, fail=c%fail, integral=c%integral, &
    error=c%error, prob=c%prob)
  c%neval = ne
  write (msg, '(a,i0,a)') 'gdivonne, xgiven 0, peakfinder left out: &
    &fail ', f%fail, ', as the C interface'
  call tapok(same(f, c), msg)
  ! xgiven(ldxgiven, ngiven) and a peakfinder subroutine, nextra = 2
  xg = .5d0
  f = run(); c = run()
  call gdivonne(3, 1, fsmooth, 0d0, 1, 1d-3, 1d-20, 0, 0, 0, 50000, 47, 1, &
    1, 5, 0d0, 10d0, .25d0, 1, 3, xg, 2, centre, "", spin8, f%nregions, &
    ne, f%fail, f%integral, f%error, f%prob)
  f%neval = ne
  call refdivonne(0, 3, 1, fsmooth, 0d0, 1, 1d-3, 1d-20, 0, 0, 0, 50000, &
    47, 1, 1, 5, 0d0, 10d0, .25d0, 1, 3, xg, 2, centre, nul, spin8, &
    c%nregions, ne, c%fail, c%integral, c%error, c%prob)
  c%neval = ne
  write (msg, '(a,i0,a)') 'gdivonne, xgiven(3, 1) and a peakfinder &
    &subroutine: fail ', f%fail, ', as the C interface'
  call tapok(same(f, c), msg)
  full = f
  f = run(); c = run()
  call llgdivonne(3, 1, fsmooth, 0d0, 1_8, 1d-3, 1d-20, 0, 0, 0_8, &
    50000_8, 47, 1, 1, 5, 0d0, 10d0, .25d0, 1_8, 3, xg, 2_8, centre, "", &
    spin8, f%nregions, f%neval, f%fail, f%integral, f%error, f%prob)
  call llrefdivonne(0, 3, 1, fsmooth, 0d0, 1_8, 1d-3, 1d-20, 0, 0, 0_8, &
    50000_8, 47, 1, 1, 5, 0d0, 10d0, .25d0, 1_8, 3, xg, 2_8, centre, nul, &
    spin8, c%nregions, c%neval, c%fail, c%integral, c%error, c%prob)
  call tapok(same(f, c) .and. same(f, full), &
    'llgdivonne, the same: = C llgDivonne = gdivonne')
  ! nextra > 0 with the peakfinder left out: C sees NULL
  f = run(); c = run()
  call gdivonne(3, 1, fsmooth, 0d0, 1, 1d-3, 1d-20, 0, 0, 0, 50000, 47, 1, &
    1, 5, 0d0, 10d0, .25d0, 1, 3, xg, 2, statefile="", spin=spin8, &
    nregions=f%nregions, neval=ne, fail=f%fail, integral=f%integral, &
    error=f%error, prob=f%prob)
  f%neval = ne
  call refdivonne(0, 3, 1, fsmooth, 0d0, 1, 1d-3, 1d-20, 0, 0, 0, 50000, &
    47, 1, 1, 5, 0d0, 10d0, .25d0, 1, 3, xg, 2, statefile=nul, spin=spin8, &
    nregions=c%nregions, neval=ne, fail=c%fail, integral=c%integral, &
    error=c%error, prob=c%prob)
  c%neval = ne
  call tapok(same(f, c) .and. f%fail == GCUBA_FAIL_PARAM, &
    'gdivonne nextra = 2, peakfinder left out: fail -6')

  ! ---- gVegas and llgVegas
  f = run(); c = run()
  call gvegas(3, 1, f4four, 0d0, 1, 1d-3, 1d-20, 0, 1, 0, 10000000, 1000, &
    1000, 1000, 0, "", -1, ne, f%fail, f%integral, f%error, f%prob)
  f%neval = ne
  call refvegas(0, 3, 1, f4four, 0d0, 1, 1d-3, 1d-20, 0, 1, 0, 10000000, &
    1000, 1000, 1000, 0, nul, -1, ne, c%fail, c%integral, c%error, c%prob)
  c%neval = ne
  call vegasok(f, c, 1, g**3, 'gvegas 4-argument form')
  full = f
  f = run(); c = run()
  call gvegas(4, 1, fparam5, p, 1, 1d-3, 1d-20, 0, 1, 0, 10000000, 1000, &
    1000, 1000, 0, "", spin8, ne, f%fail, f%integral, f%error, f%prob)
  f%neval = ne
  call refvegas(0, 4, 1, fparam5, p, 1, 1d-3, 1d-20, 0, 1, 0, 10000000, &
    1000, 1000, 1000, 0, nul, spin8, ne, c%fail, c%integral, c%error, &
    c%prob)
  c%neval = ne
  call vegasok(f, c, 1, p%a/4**4, 'gvegas 5-argument form, type(param)')
  f = run(); c = run()
  maxnv = 0
  nvlim = 64
  call llgvegas(3, 1, f4vec, arr, 64_8, 1d-3, 1d-20, 0, 1, 0_8, &
    10000000_8, 1000_8, 1000_8, 1000_8, 0, "", spin8, f%neval, f%fail, &
    f%integral, f%error, f%prob)
  call llrefvegas(1, 3, 1, f4vec, arr, 64_8, 1d-3, 1d-20, 0, 1, 0_8, &
    10000000_8, 1000_8, 1000_8, 1000_8, 0, nul, spin8, c%neval, c%fail, &
    c%integral, c%error, c%prob)
  call vegasok(f, c, 1, g**3, 'llgvegas nvec form')
  write (msg, '(a,i0)') '  ... batches of at most nvec = 64 points, &
    &threads numbered from 0: largest batch ', maxval(maxnv)
  call tapok(f%fail /= GCUBA_FAIL_ABORT .and. maxval(maxnv) <= 64 .and. &
    (f%fail < 0 .or. maxval(maxnv) > 1), msg)
  f = run(); c = run()
  call gvegas(0, 1, f4four, p, 1, 1d-3, 1d-20, 0, 1, 0, 10000000, 1000, &
    1000, 1000, 0, "", -1, ne, f%fail, f%integral, f%error, f%prob)
  f%neval = ne
  call refvegas(0, 0, 1, f4four, p, 1, 1d-3, 1d-20, 0, 1, 0, 10000000, &
    1000, 1000, 1000, 0, nul, -1, ne, c%fail, c%integral, c%error, c%prob)
  c%neval = ne
  call tapok(same(f, c) .and. f%fail == GCUBA_FAIL_NDIM, &
    'gvegas ndim = 0: fail -1')
  f = run(); c = run()
  call gvegas(3, 1, f4four, p, 1, 1d-3, 1d-20, 0, 1, 0, 10000000, 1000, &
    1000, 1000, 11, "", -1, ne, f%fail, f%integral, f%error, f%prob)
  f%neval = ne
  call refvegas(0, 3, 1, f4four, p, 1, 1d-3, 1d-20, 0, 1, 0, 10000000, &
    1000, 1000, 1000, 11, nul, -1, ne, c%fail, c%integral, c%error, c%prob)
  c%neval = ne
  call tapok(same(f, c) .and. f%fail == GCUBA_FAIL_PARAM, &
    'gvegas gridno = 11: fail -6')

  ! ---- GCUBA_INTEGRAND objects, named through bind(c)
  gpucode = refhasgpu(fgauss) /= 0
  call get_environment_variable('GCUBA_TEST_REQUIRE_GPU', env)
  reqgpu = env == '1'
  f = run(); c = run()
  call gcuhre(5, 1, fgauss, %val(0), 1, 1d-4, 1d-20, 0, 0, 100000000, 0, &
    "", -1, f%nregions, ne, f%fail, f%integral, f%error, f%prob)
  f%neval = ne
  call gcuba_last_backend(backend)
  call refcuhre(2, 5, 1, fgauss, %val(0), 1, 1d-4, 1d-20, 0, 0, 100000000, &
    0, nul, -1, c%nregions, ne, c%fail, c%integral, c%error, c%prob)
  c%neval = ne
  write (msg, '(a,a,a,i0,a,es23.16)') 'GCUBA_INTEGRAND object by bind(c), &
    &gcuhre on the ', trim(backend), ': fail ', f%fail, ', ', f%integral(1)
  call tapok(same(f, c) .and. f%fail == 0 .and. &
    abs(f%integral(1) - g**5) <= 1d-4*g**5, msg)
  write (msg, '(a,l1,a,i0,a,l1)') 'compiled by nvcc: ', gpucode, &
    ', devices: ', gcuba_device_count(), ', GCUBA_TEST_REQUIRE_GPU: ', reqgpu
  call tapdiag(msg)
  if (reqgpu) call tapok(gpucode .and. backend == 'gpu', &
    '  ... ran on the GPU (GCUBA_TEST_REQUIRE_GPU=1)')
  full = f
  f = run(); c = run()
  call llgcuhre(5, 1, fgauss, %val(0), 1_8, 1d-4, 1d-20, 0, 0_8, &
    100000000_8, 0, "", -1, f%nregions, f%neval, f%fail, f%integral, &
    f%error, f%prob)
  call llrefcuhre(2, 5, 1, fgauss, %val(0), 1_8, 1d-4, 1d-20, 0, 0_8, &
    100000000_8, 0, nul, -1, c%nregions, c%neval, c%fail, c%integral, &
    c%error, c%prob)
  call tapok(same(f, c) .and. same(f, full), &
    'llgcuhre with the object: = C llgCuhre = gcuhre')
  f = run(); c = run()
  call gvegas(5, 1, fgauss, %val(0), 1, 1d-3, 1d-20, 0, 1, 0, 10000000, &
    1000, 1000, 1000, 0, "", -1, ne, f%fail, f%integral, f%error, f%prob)
  f%neval = ne
  call refvegas(2, 5, 1, fgauss, %val(0), 1, 1d-3, 1d-20, 0, 1, 0, &
    10000000, 1000, 1000, 1000, 0, nul, -1, ne, c%fail, c%integral, &
    c%error, c%prob)
  c%neval = ne
  call vegasok(f, c, 1, g**5, 'gvegas with the object')
  f = run(); c = run()
  call llgvegas(5, 1, fgauss, %val(0), 1_8, 1d-3, 1d-20, 0, 1, 0_8, &
    10000000_8, 1000_8, 1000_8, 1000_8, 0, "", -1, f%neval, f%fail, &
    f%integral, f%error, f%prob)
  call llrefvegas(2, 5, 1, fgauss, %val(0), 1_8, 1d-3, 1d-20, 0, 1, 0_8, &
    10000000_8, 1000_8, 1000_8, 1000_8, 0, nul, -1, c%neval, c%fail, &
    c%integral, c%error, c%prob)
  call vegasok(f, c, 1, g**5, 'llgvegas with the object')

  ! userdata for an object: gcuba copies it to the GPU when told its size
  ! (on CPU threads it is passed as it is)
  call gcuba_userdata_size(c_sizeof(p))
  f = run(); c = run()
  call gcuhre(3, 1, fgparam, p, 1, 1d-8, 1d-20, 0, 0, 100000000, 0, "", &
    -1, f%nregions, ne, f%fail, f%integral, f%error, f%prob)
  f%neval = ne
  call gcuba_last_backend(backend)
  call refcuhre(2, 3, 1, fgparam, p, 1, 1d-8, 1d-20, 0, 0, 100000000, 0, &
    nul, -1, c%nregions, ne, c%fail, c%integral, c%error, c%prob)
  c%neval = ne
  write (msg, '(a,a,a,i0,a,es23.16)') 'object with type(param) userdata, &
    &on the ', trim(backend), ': fail ', f%fail, ', ', f%integral(1)
  call tapok(same(f, c) .and. f%fail == 0 .and. &
    abs(f%integral(1) - p%a/4**3) <= 1d-8*p%a/4**3, msg)
  call gcuba_userdata_size(0_c_size_t)

  ! ---- the module's constants and routines
  call tapok(refconst('GCUBA_FAIL_ABORT', GCUBA_FAIL_ABORT) == 1 .and. &
    refconst('GCUBA_KEEPSTATE', GCUBA_KEEPSTATE) == 1 .and. &
    refconst('GCUBA_NORELFINISH', GCUBA_NORELFINISH) == 1, &
    'constants through the module')
  call gcuba_strerror(GCUBA_FAIL_NOTAVAIL, emsg)
  call tapok(refmsg(GCUBA_FAIL_NOTAVAIL, emsg) == 1, 'gcuba_strerror: ' &
    //trim(emsg))
  call gcuhre(3, 1, f4four, p, 1, 1d-3, 1d-20, 0, 0, 100000000, 0, "", &
    -1, nr, ne, fail, f%integral, f%error, f%prob)
  call gcuba_last_backend(backend)
  call tapok(backend == 'cpu', 'gcuba_last_backend after a Fortran &
    &function: '//trim(backend))
  call tapok(gcuba_last_devices() == 0, 'gcuba_last_devices on the CPU')

  hook = 0
  call gcubainit(initf, hook)
  call gcubacores(1, 0)
  call gcuhre(3, 1, f4four, p, 1, 1d-3, 1d-20, 0, 0, 100000000, 0, "", &
    -1, nr, ne, fail, f%integral, f%error, f%prob)
  call gcubainit()
  call gcubacores(-1, 0)
  call gcuhre(3, 1, f4four, p, 1, 1d-3, 1d-20, 0, 0, 100000000, 0, "", &
    -1, nr, ne, fail, f%integral, f%error, f%prob)
  write (msg, '(a,i0,a,i0)') 'gcubainit(f, arg), then gcubainit(): ', &
    hook(1), ' call, core ', hook(2)
  call tapok(hook(1) == 1 .and. hook(2) == 32768, msg)

  call gcuba_release()
  call tapdone()
end program module_test

! ---- legacy integrands: external functions with implicit interfaces,
! as Cuba's Fortran users write them.  No SAVE: gcuba calls them from
! several threads at once.

integer function f4four(ndim, x, ncomp, f)
  implicit none
  integer :: ndim, ncomp, d
  double precision :: x(ndim), f(ncomp), s
  s = 0
  do d = 1, ndim
    s = s + (x(d) - .5d0)**2
  end do
  f(1) = exp(-625*s)
  f4four = 0
end function f4four

integer function fparam5(ndim, x, ncomp, f, p)
  use ftest, only: param
  implicit none
  integer :: ndim, ncomp, d
  double precision :: x(ndim), f(ncomp)
  type(param) :: p
  f(1) = p%a
  do d = 1, ndim
    f(1) = f(1)*x(d)**p%k
  end do
  fparam5 = 0
end function fparam5

integer function f4vec(ndim, x, ncomp, f, userdata, nvec, core)
  implicit none
  integer :: ndim, ncomp, nvec, core, i, d
  double precision :: x(ndim, nvec), f(ncomp, nvec), userdata(*), s
  integer :: maxnv(0:1023), nvlim
  common /nvc/ maxnv, nvlim
  f4vec = 0
  if (nvec > nvlim .or. core < 0 .or. core > 1023) then
    f4vec = -999
    return
  end if
  maxnv(core) = max(maxnv(core), nvec)
  do i = 1, nvec
    s = 0
    do d = 1, ndim
      s = s + (x(d, i) - .5d0)**2
    end do
    f(1, i) = exp(-625*s)
  end do
end function f4vec

integer function f3comp(ndim, x, ncomp, f)
  implicit none
  integer :: ndim, ncomp, d
  double precision :: x(ndim), f(ncomp), s, t
  s = 0
  t = 1
  do d = 1, ndim
    s = s + (x(d) - .5d0)**2
    t = t + d*x(d)
  end do
  f(1) = exp(-625*s)
  f(2) = 1/t**(ndim + 1)
  f(3) = 2
  f3comp = 0
end function f3comp

integer function fabort(ndim, x, ncomp, f)
  implicit none
  integer :: ndim, ncomp
  double precision :: x(ndim), f(ncomp)
  f(1) = x(1)
  fabort = 0
  if (x(1) > .7d0) fabort = -999
end function fabort

! Cuba's demo integrand sin(x_1) cos(x_2) exp(x_3), smooth
integer function fsmooth(ndim, x, ncomp, f)
  implicit none
  integer :: ndim, ncomp
  double precision :: x(ndim), f(ncomp)
  f(1) = sin(x(1))*cos(x(2))*exp(x(3))
  fsmooth = 0
end function fsmooth

! Divonne's peak finder: the centre of the region b, one point
subroutine centre(ndim, b, n, x, userdata)
  implicit none
  integer :: ndim, n, d
  double precision :: b(2, ndim), x(ndim, *), userdata
  if (n < 1) return
  do d = 1, ndim
    x(d, 1) = (b(1, d) + b(2, d))/2
  end do
  n = 1
end subroutine centre

subroutine initf(hook, core)
  implicit none
  integer :: hook(2), core
  hook(1) = hook(1) + 1
  hook(2) = core
end subroutine initf
