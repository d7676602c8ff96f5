! module.f90 -- gcuba from Fortran 2003 with `use gcuba': the module
! declares the routines (the compiler checks the arguments), the flag and
! fail constants, and type(gcuba_integrand), through which Fortran names
! an integrand written in C with GCUBA_INTEGRAND (fortran-integrand.cu),
! the kind that runs on the GPU.  A Fortran function works as in Cuba,
! on CPU threads.  Stops with status 1 if a run fails or is off.

module integrands
  use gcuba
  implicit none
  ! the C object `Gauss' of fortran-integrand.cu (name= is its C name)
  type(gcuba_integrand), bind(c, name="Gauss") :: gauss
end module integrands

program moduleexample
  use gcuba
  use integrands
  implicit none
  external :: cosine
  integer :: nregions, fail
  integer :: neval
  integer(8) :: llneval
  double precision :: integral(1), error(1), prob(1), truth, pi
  character(len=80) :: msg
  character(len=3) :: backend
  logical :: bad

  bad = .false.
  pi = 4 * atan(1d0)

  ! a GCUBA_INTEGRAND object: on the GPU when there is one
  truth = (sqrt(pi) / 10 * erf(5d0))**4
  call gcuhre(4, 1, gauss, 0d0, 1, 1d-6, 1d-30, 0, 0, 100000000, 0, &
              "", -1, nregions, neval, fail, integral, error, prob)
  call gcuba_last_backend(backend)
  print '(a, es22.15, a, es9.2, a, i0, a, i0, 3a)', "gauss  ", integral(1), &
    " +- ", error(1), "  neval ", neval, "  fail ", fail, "  [", backend, "]"
  call check(truth, 1d-6)

  ! a Fortran function, with llgcuhre's integer(8) counts
  truth = sin(1d0)**3
  call llgcuhre(3, 1, cosine, 0d0, 1_8, 1d-8, 1d-30, 0, 0_8, &
                3000000000_8, 0, "", -1, nregions, llneval, fail, &
                integral, error, prob)
  print '(a, es22.15, a, es9.2, a, i0, a, i0)', "cosine ", integral(1), &
    " +- ", error(1), "  neval ", llneval, "  fail ", fail
  call check(truth, 1d-8)

  if (bad) stop 1

contains

  subroutine check(want, epsrel)
    double precision, intent(in) :: want, epsrel
    if (fail /= GCUBA_OK) then
      call gcuba_strerror(fail, msg)
      print '(a, i0, 2a)', "  fail ", fail, ": ", trim(msg)
      bad = .true.
    else if (abs(integral(1) - want) > epsrel * abs(want)) then
      print '(a, es22.15)', "  off: the true value is ", want
      bad = .true.
    end if
  end subroutine check

end program moduleexample

! cos(x) cos(y) cos(z): integral sin(1)^3.  Called from several CPU threads
! at once: it keeps no state (no SAVE, no COMMON written).
integer function cosine(ndim, x, ncomp, f)
  implicit none
  integer, intent(in) :: ndim, ncomp
  double precision, intent(in) :: x(ndim)
  double precision, intent(out) :: f(ncomp)
  f(1) = cos(x(1)) * cos(x(2)) * cos(x(3))
  cosine = 0
end function cosine
