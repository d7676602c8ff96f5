! fortran/gcuba.f90 -- the Fortran 2003 module gcuba: explicit interfaces
! for gcuhre, llgcuhre, gvegas, llgvegas, gcuba's gromberg, llgromberg,
! gcuhrebatch, gvegasbatch (and ll forms) and Cuba's other routines, the
! constants of gcuba.fi, and the type through which Fortran names a
! GCUBA_INTEGRAND object (an integrand that can run on the GPU).
!
! The interfaces describe the very routines that Fortran 77 code calls
! without this module (src/api/fortran.c), so a program gives the same
! results with and without `use gcuba'.  They accept what Cuba's Fortran
! users pass today:
!   userdata  any variable, array, constant or %VAL(0), passed by
!             reference and untouched (NO_ARG_CHECK below)
!   spin      integer*8 as Cuba documents, a plain integer -1 or %VAL(0)
!             (gcuba ignores it: there are no worker processes)
!   statefile a character string; blank or "" for none
!   integrand a Fortran function with an implicit interface, so a legacy
!             integrand defined in the same file is not rejected
! Each routine is generic: given a type(gcuba_integrand) variable instead
! of a function it calls the _desc routine, which integrates that
! GCUBA_INTEGRAND object (on the GPU when it was compiled by nvcc).
!
! NO_ARG_CHECK is gfortran's directive for "any type, kind and rank";
! other compilers ignore the line and need their own equivalent.  The
! module holds only constants and interfaces: it adds nothing to link.
!
! This file is part of gcuba.
module gcuba
  use, intrinsic :: iso_c_binding, only: c_int, c_long_long, c_double, &
    c_ptr, c_size_t
  implicit none
  private :: c_int, c_long_long, c_double, c_ptr, c_size_t

  include 'gcuba.fi'

  ! A GCUBA_INTEGRAND object, named in a module of the program:
  !   type(gcuba_integrand), bind(c, name="Gauss") :: gauss
  ! (name= is the C name given to GCUBA_INTEGRAND, case included).
  type, bind(c) :: gcuba_integrand
    private
    type(c_ptr) :: desc
  end type gcuba_integrand

  ! Cuhre, int counts
  interface gcuhre
    subroutine gcuhre(ndim, ncomp, integrand, userdata, nvec, &
        epsrel, epsabs, flags, mineval, maxeval, key, statefile, spin, &
        nregions, neval, fail, integral, error, prob)
      import :: c_int, c_double
      integer(c_int), intent(in) :: ndim, ncomp, nvec, flags, mineval, &
        maxeval, key
      external :: integrand
!GCC$ ATTRIBUTES NO_ARG_CHECK :: userdata, spin
      type(*), dimension(*) :: userdata, spin
      real(c_double), intent(in) :: epsrel, epsabs
      character(len=*), intent(in) :: statefile
      integer(c_int), intent(out) :: nregions, neval, fail
      real(c_double), intent(out) :: integral(*), error(*), prob(*)
    end subroutine gcuhre
    subroutine gcuhre_desc(ndim, ncomp, integrand, userdata, nvec, &
        epsrel, epsabs, flags, mineval, maxeval, key, statefile, spin, &
        nregions, neval, fail, integral, error, prob)
      import :: c_int, c_double, gcuba_integrand
      integer(c_int), intent(in) :: ndim, ncomp, nvec, flags, mineval, &
        maxeval, key
      type(gcuba_integrand), intent(in) :: integrand
!GCC$ ATTRIBUTES NO_ARG_CHECK :: userdata, spin
      type(*), dimension(*) :: userdata, spin
      real(c_double), intent(in) :: epsrel, epsabs
      character(len=*), intent(in) :: statefile
      integer(c_int), intent(out) :: nregions, neval, fail
      real(c_double), intent(out) :: integral(*), error(*), prob(*)
    end subroutine gcuhre_desc
  end interface gcuhre

  ! Cuhre, integer*8 counts (nvec, mineval, maxeval, neval)
  interface llgcuhre
    subroutine llgcuhre(ndim, ncomp, integrand, userdata, nvec, &
        epsrel, epsabs, flags, mineval, maxeval, key, statefile, spin, &
        nregions, neval, fail, integral, error, prob)
      import :: c_int, c_long_long, c_double
      integer(c_int), intent(in) :: ndim, ncomp, flags, key
      integer(c_long_long), intent(in) :: nvec, mineval, maxeval
      external :: integrand
!GCC$ ATTRIBUTES NO_ARG_CHECK :: userdata, spin
      type(*), dimension(*) :: userdata, spin
      real(c_double), intent(in) :: epsrel, epsabs
      character(len=*), intent(in) :: statefile
      integer(c_int), intent(out) :: nregions, fail
      integer(c_long_long), intent(out) :: neval
      real(c_double), intent(out) :: integral(*), error(*), prob(*)
    end subroutine llgcuhre
    subroutine llgcuhre_desc(ndim, ncomp, integrand, userdata, nvec, &
        epsrel, epsabs, flags, mineval, maxeval, key, statefile, spin, &
        nregions, neval, fail, integral, error, prob)
      import :: c_int, c_long_long, c_double, gcuba_integrand
      integer(c_int), intent(in) :: ndim, ncomp, flags, key
      integer(c_long_long), intent(in) :: nvec, mineval, maxeval
      type(gcuba_integrand), intent(in) :: integrand
!GCC$ ATTRIBUTES NO_ARG_CHECK :: userdata, spin
      type(*), dimension(*) :: userdata, spin
      real(c_double), intent(in) :: epsrel, epsabs
      character(len=*), intent(in) :: statefile
      integer(c_int), intent(out) :: nregions, fail
      integer(c_long_long), intent(out) :: neval
      real(c_double), intent(out) :: integral(*), error(*), prob(*)
    end subroutine llgcuhre_desc
  end interface llgcuhre

  ! Vegas, int counts
  interface gvegas
    subroutine gvegas(ndim, ncomp, integrand, userdata, nvec, &
        epsrel, epsabs, flags, seed, mineval, maxeval, &
        nstart, nincrease, nbatch, gridno, statefile, spin, &
        neval, fail, integral, error, prob)
      import :: c_int, c_double
      integer(c_int), intent(in) :: ndim, ncomp, nvec, flags, seed, &
        mineval, maxeval, nstart, nincrease, nbatch, gridno
      external :: integrand
!GCC$ ATTRIBUTES NO_ARG_CHECK :: userdata, spin
      type(*), dimension(*) :: userdata, spin
      real(c_double), intent(in) :: epsrel, epsabs
      character(len=*), intent(in) :: statefile
      integer(c_int), intent(out) :: neval, fail
      real(c_double), intent(out) :: integral(*), error(*), prob(*)
    end subroutine gvegas
    subroutine gvegas_desc(ndim, ncomp, integrand, userdata, nvec, &
        epsrel, epsabs, flags, seed, mineval, maxeval, &
        nstart, nincrease, nbatch, gridno, statefile, spin, &
        neval, fail, integral, error, prob)
      import :: c_int, c_double, gcuba_integrand
      integer(c_int), intent(in) :: ndim, ncomp, nvec, flags, seed, &
        mineval, maxeval, nstart, nincrease, nbatch, gridno
      type(gcuba_integrand), intent(in) :: integrand
!GCC$ ATTRIBUTES NO_ARG_CHECK :: userdata, spin
      type(*), dimension(*) :: userdata, spin
      real(c_double), intent(in) :: epsrel, epsabs
      character(len=*), intent(in) :: statefile
      integer(c_int), intent(out) :: neval, fail
      real(c_double), intent(out) :: integral(*), error(*), prob(*)
    end subroutine gvegas_desc
  end interface gvegas

  ! Vegas, integer*8 counts (nvec, mineval, maxeval, nstart, nincrease,
  ! nbatch, neval)
  interface llgvegas
    subroutine llgvegas(ndim, ncomp, integrand, userdata, nvec, &
        epsrel, epsabs, flags, seed, mineval, maxeval, &
        nstart, nincrease, nbatch, gridno, statefile, spin, &
        neval, fail, integral, error, prob)
      import :: c_int, c_long_long, c_double
      integer(c_int), intent(in) :: ndim, ncomp, flags, seed, gridno
      integer(c_long_long), intent(in) :: nvec, mineval, maxeval, &
        nstart, nincrease, nbatch
      external :: integrand
!GCC$ ATTRIBUTES NO_ARG_CHECK :: userdata, spin
      type(*), dimension(*) :: userdata, spin
      real(c_double), intent(in) :: epsrel, epsabs
      character(len=*), intent(in) :: statefile
      integer(c_long_long), intent(out) :: neval
      integer(c_int), intent(out) :: fail
      real(c_double), intent(out) :: integral(*), error(*), prob(*)
    end subroutine llgvegas
    subroutine llgvegas_desc(ndim, ncomp, integrand, userdata, nvec, &
        epsrel, epsabs, flags, seed, mineval, maxeval, &
        nstart, nincrease, nbatch, gridno, statefile, spin, &
        neval, fail, integral, error, prob)
      import :: c_int, c_long_long, c_double, gcuba_integrand
      integer(c_int), intent(in) :: ndim, ncomp, flags, seed, gridno
      integer(c_long_long), intent(in) :: nvec, mineval, maxeval, &
        nstart, nincrease, nbatch
      type(gcuba_integrand), intent(in) :: integrand
!GCC$ ATTRIBUTES NO_ARG_CHECK :: userdata, spin
      type(*), dimension(*) :: userdata, spin
      real(c_double), intent(in) :: epsrel, epsabs
      character(len=*), intent(in) :: statefile
      integer(c_long_long), intent(out) :: neval
      integer(c_int), intent(out) :: fail
      real(c_double), intent(out) :: integral(*), error(*), prob(*)
    end subroutine llgvegas_desc
  end interface llgvegas

  ! Romberg over [0, 1] (gcuba's own; the integrand gets ndim = 1), int
  ! counts
  interface gromberg
    subroutine gromberg(ncomp, integrand, userdata, nvec, epsrel, epsabs, &
        flags, mineval, maxeval, neval, fail, integral, error, prob)
      import :: c_int, c_double
      integer(c_int), intent(in) :: ncomp, nvec, flags, mineval, maxeval
      external :: integrand
!GCC$ ATTRIBUTES NO_ARG_CHECK :: userdata
      type(*), dimension(*) :: userdata
      real(c_double), intent(in) :: epsrel, epsabs
      integer(c_int), intent(out) :: neval, fail
      real(c_double), intent(out) :: integral(*), error(*), prob(*)
    end subroutine gromberg
    subroutine gromberg_desc(ncomp, integrand, userdata, nvec, epsrel, &
        epsabs, flags, mineval, maxeval, neval, fail, integral, error, prob)
      import :: c_int, c_double, gcuba_integrand
      integer(c_int), intent(in) :: ncomp, nvec, flags, mineval, maxeval
      type(gcuba_integrand), intent(in) :: integrand
!GCC$ ATTRIBUTES NO_ARG_CHECK :: userdata
      type(*), dimension(*) :: userdata
      real(c_double), intent(in) :: epsrel, epsabs
      integer(c_int), intent(out) :: neval, fail
      real(c_double), intent(out) :: integral(*), error(*), prob(*)
    end subroutine gromberg_desc
  end interface gromberg

  ! Romberg, integer*8 counts (nvec, mineval, maxeval, neval)
  interface llgromberg
    subroutine llgromberg(ncomp, integrand, userdata, nvec, epsrel, &
        epsabs, flags, mineval, maxeval, neval, fail, integral, error, prob)
      import :: c_int, c_long_long, c_double
      integer(c_int), intent(in) :: ncomp, flags
      integer(c_long_long), intent(in) :: nvec, mineval, maxeval
      external :: integrand
!GCC$ ATTRIBUTES NO_ARG_CHECK :: userdata
      type(*), dimension(*) :: userdata
      real(c_double), intent(in) :: epsrel, epsabs
      integer(c_long_long), intent(out) :: neval
      integer(c_int), intent(out) :: fail
      real(c_double), intent(out) :: integral(*), error(*), prob(*)
    end subroutine llgromberg
    subroutine llgromberg_desc(ncomp, integrand, userdata, nvec, epsrel, &
        epsabs, flags, mineval, maxeval, neval, fail, integral, error, prob)
      import :: c_int, c_long_long, c_double, gcuba_integrand
      integer(c_int), intent(in) :: ncomp, flags
      integer(c_long_long), intent(in) :: nvec, mineval, maxeval
      type(gcuba_integrand), intent(in) :: integrand
!GCC$ ATTRIBUTES NO_ARG_CHECK :: userdata
      type(*), dimension(*) :: userdata
      real(c_double), intent(in) :: epsrel, epsabs
      integer(c_long_long), intent(out) :: neval
      integer(c_int), intent(out) :: fail
      real(c_double), intent(out) :: integral(*), error(*), prob(*)
    end subroutine llgromberg_desc
  end interface llgromberg

  ! Many integrals in one call (gcuba's own): integral b gets userdata
  ! at byte offset b * userstride, its results at b (nregions, neval,
  ! fail) and (c, b) for integral(ncomp, nintegrals), error, prob (any
  ! rank: integral(ncomp * nintegrals) is the same storage; written, but
  ! without intent(out), which gfortran's NO_ARG_CHECK does not allow)
  interface gcuhrebatch
    subroutine gcuhrebatch(nintegrals, ndim, ncomp, integrand, userdata, userstride, &
        nvec, epsrel, epsabs, flags, mineval, maxeval, key, nregions, &
        neval, fail, integral, error, prob)
      import :: c_int, c_double, c_size_t
      integer(c_int), intent(in) :: nintegrals, ndim, ncomp, flags, key
      integer(c_int), intent(in) :: nvec, mineval, maxeval
      integer(c_size_t), intent(in) :: userstride
      external :: integrand
!GCC$ ATTRIBUTES NO_ARG_CHECK :: userdata, integral, error, prob
      type(*), dimension(*) :: userdata
      real(c_double), intent(in) :: epsrel, epsabs
      integer(c_int), intent(out) :: nregions(*)
      integer(c_int), intent(out) :: neval(*)
      integer(c_int), intent(out) :: fail(*)
      real(c_double) :: integral(*), error(*), prob(*)
    end subroutine gcuhrebatch
    subroutine gcuhrebatch_desc(nintegrals, ndim, ncomp, integrand, userdata, userstride, &
        nvec, epsrel, epsabs, flags, mineval, maxeval, key, nregions, &
        neval, fail, integral, error, prob)
      import :: c_int, c_double, c_size_t, gcuba_integrand
      integer(c_int), intent(in) :: nintegrals, ndim, ncomp, flags, key
      integer(c_int), intent(in) :: nvec, mineval, maxeval
      integer(c_size_t), intent(in) :: userstride
      type(gcuba_integrand), intent(in) :: integrand
!GCC$ ATTRIBUTES NO_ARG_CHECK :: userdata, integral, error, prob
      type(*), dimension(*) :: userdata
      real(c_double), intent(in) :: epsrel, epsabs
      integer(c_int), intent(out) :: nregions(*)
      integer(c_int), intent(out) :: neval(*)
      integer(c_int), intent(out) :: fail(*)
      real(c_double) :: integral(*), error(*), prob(*)
    end subroutine gcuhrebatch_desc
  end interface gcuhrebatch

  interface llgcuhrebatch
    subroutine llgcuhrebatch(nintegrals, ndim, ncomp, integrand, userdata, userstride, &
        nvec, epsrel, epsabs, flags, mineval, maxeval, key, nregions, &
        neval, fail, integral, error, prob)
      import :: c_int, c_double, c_size_t, c_long_long
      integer(c_int), intent(in) :: nintegrals, ndim, ncomp, flags, key
      integer(c_long_long), intent(in) :: nvec, mineval, maxeval
      integer(c_size_t), intent(in) :: userstride
      external :: integrand
!GCC$ ATTRIBUTES NO_ARG_CHECK :: userdata, integral, error, prob
      type(*), dimension(*) :: userdata
      real(c_double), intent(in) :: epsrel, epsabs
      integer(c_int), intent(out) :: nregions(*)
      integer(c_long_long), intent(out) :: neval(*)
      integer(c_int), intent(out) :: fail(*)
      real(c_double) :: integral(*), error(*), prob(*)
    end subroutine llgcuhrebatch
    subroutine llgcuhrebatch_desc(nintegrals, ndim, ncomp, integrand, userdata, userstride, &
        nvec, epsrel, epsabs, flags, mineval, maxeval, key, nregions, &
        neval, fail, integral, error, prob)
      import :: c_int, c_double, c_size_t, c_long_long, gcuba_integrand
      integer(c_int), intent(in) :: nintegrals, ndim, ncomp, flags, key
      integer(c_long_long), intent(in) :: nvec, mineval, maxeval
      integer(c_size_t), intent(in) :: userstride
      type(gcuba_integrand), intent(in) :: integrand
!GCC$ ATTRIBUTES NO_ARG_CHECK :: userdata, integral, error, prob
      type(*), dimension(*) :: userdata
      real(c_double), intent(in) :: epsrel, epsabs
      integer(c_int), intent(out) :: nregions(*)
      integer(c_long_long), intent(out) :: neval(*)
      integer(c_int), intent(out) :: fail(*)
      real(c_double) :: integral(*), error(*), prob(*)
    end subroutine llgcuhrebatch_desc
  end interface llgcuhrebatch

  interface gvegasbatch
    subroutine gvegasbatch(nintegrals, ndim, ncomp, integrand, userdata, userstride, &
        nvec, epsrel, epsabs, flags, seed, mineval, maxeval, nstart, &
        nincrease, nbatch, gridno, neval, fail, integral, error, prob)
      import :: c_int, c_double, c_size_t
      integer(c_int), intent(in) :: nintegrals, ndim, ncomp, flags, seed, gridno
      integer(c_int), intent(in) :: nvec, mineval, maxeval, nstart, nincrease, nbatch
      integer(c_size_t), intent(in) :: userstride
      external :: integrand
!GCC$ ATTRIBUTES NO_ARG_CHECK :: userdata, integral, error, prob
      type(*), dimension(*) :: userdata
      real(c_double), intent(in) :: epsrel, epsabs
      integer(c_int), intent(out) :: neval(*)
      integer(c_int), intent(out) :: fail(*)
      real(c_double) :: integral(*), error(*), prob(*)
    end subroutine gvegasbatch
    subroutine gvegasbatch_desc(nintegrals, ndim, ncomp, integrand, userdata, userstride, &
        nvec, epsrel, epsabs, flags, seed, mineval, maxeval, nstart, &
        nincrease, nbatch, gridno, neval, fail, integral, error, prob)
      import :: c_int, c_double, c_size_t, gcuba_integrand
      integer(c_int), intent(in) :: nintegrals, ndim, ncomp, flags, seed, gridno
      integer(c_int), intent(in) :: nvec, mineval, maxeval, nstart, nincrease, nbatch
      integer(c_size_t), intent(in) :: userstride
      type(gcuba_integrand), intent(in) :: integrand
!GCC$ ATTRIBUTES NO_ARG_CHECK :: userdata, integral, error, prob
      type(*), dimension(*) :: userdata
      real(c_double), intent(in) :: epsrel, epsabs
      integer(c_int), intent(out) :: neval(*)
      integer(c_int), intent(out) :: fail(*)
      real(c_double) :: integral(*), error(*), prob(*)
    end subroutine gvegasbatch_desc
  end interface gvegasbatch

  interface llgvegasbatch
    subroutine llgvegasbatch(nintegrals, ndim, ncomp, integrand, userdata, userstride, &
        nvec, epsrel, epsabs, flags, seed, mineval, maxeval, nstart, &
        nincrease, nbatch, gridno, neval, fail, integral, error, prob)
      import :: c_int, c_double, c_size_t, c_long_long
      integer(c_int), intent(in) :: nintegrals, ndim, ncomp, flags, seed, gridno
      integer(c_long_long), intent(in) :: nvec, mineval, maxeval, nstart, nincrease, nbatch
      integer(c_size_t), intent(in) :: userstride
      external :: integrand
!GCC$ ATTRIBUTES NO_ARG_CHECK :: userdata, integral, error, prob
      type(*), dimension(*) :: userdata
      real(c_double), intent(in) :: epsrel, epsabs
      integer(c_long_long), intent(out) :: neval(*)
      integer(c_int), intent(out) :: fail(*)
      real(c_double) :: integral(*), error(*), prob(*)
    end subroutine llgvegasbatch
    subroutine llgvegasbatch_desc(nintegrals, ndim, ncomp, integrand, userdata, userstride, &
        nvec, epsrel, epsabs, flags, seed, mineval, maxeval, nstart, &
        nincrease, nbatch, gridno, neval, fail, integral, error, prob)
      import :: c_int, c_double, c_size_t, c_long_long, gcuba_integrand
      integer(c_int), intent(in) :: nintegrals, ndim, ncomp, flags, seed, gridno
      integer(c_long_long), intent(in) :: nvec, mineval, maxeval, nstart, nincrease, nbatch
      integer(c_size_t), intent(in) :: userstride
      type(gcuba_integrand), intent(in) :: integrand
!GCC$ ATTRIBUTES NO_ARG_CHECK :: userdata, integral, error, prob
      type(*), dimension(*) :: userdata
      real(c_double), intent(in) :: epsrel, epsabs
      integer(c_long_long), intent(out) :: neval(*)
      integer(c_int), intent(out) :: fail(*)
      real(c_double) :: integral(*), error(*), prob(*)
    end subroutine llgvegasbatch_desc
  end interface llgvegasbatch

  interface
    ! at most n CPU threads (0: the calling thread only); p ignored
    subroutine gcubacores(n, p)
      import :: c_int
      integer(c_int), intent(in) :: n, p
    end subroutine gcubacores
    ! n = 0 keeps gcuba on the CPU, n > 0 allows the GPU; p ignored
    subroutine gcubaaccel(n, p)
      import :: c_int
      integer(c_int), intent(in) :: n, p
    end subroutine gcubaaccel
    ! call f(arg, core) before (gcubainit) or after (gcubaexit) each
    ! integration, on the calling thread, with core = 32768;
    ! without arguments: no more calls (Cuba's %VAL(0))
    subroutine gcubainit(f, arg)
      external :: f
      optional :: f, arg
!GCC$ ATTRIBUTES NO_ARG_CHECK :: arg
      type(*), dimension(*) :: arg
    end subroutine gcubainit
    subroutine gcubaexit(f, arg)
      external :: f
      optional :: f, arg
!GCC$ ATTRIBUTES NO_ARG_CHECK :: arg
      type(*), dimension(*) :: arg
    end subroutine gcubaexit
    ! the message of a fail code, blank-padded (or cut) to len(msg)
    subroutine gcuba_strerror(fail, msg)
      import :: c_int
      integer(c_int), intent(in) :: fail
      character(len=*), intent(out) :: msg
    end subroutine gcuba_strerror
    ! "cpu" or "gpu": where this thread's last integration ran
    subroutine gcuba_last_backend(name)
      character(len=*), intent(out) :: name
    end subroutine gcuba_last_backend
    ! GPUs this thread's last integration ended on (0: the CPU)
    function gcuba_last_devices() result(n)
      import :: c_int
      integer(c_int) :: n
    end function gcuba_last_devices
    ! number of usable CUDA devices
    function gcuba_device_count() result(n)
      import :: c_int
      integer(c_int) :: n
    end function gcuba_device_count
    ! free the device memory gcuba keeps between calls (see gcuba.h)
    subroutine gcuba_release() bind(c, name="gcuba_release")
    end subroutine gcuba_release
    ! libgcuba_mpi (link with it: pkg-config gcuba-mpi; doc/mpi.md):
    ! every later gcuhre, llgcuhre, gvegas and llgvegas call is
    ! collective over comm, a Fortran communicator (use mpi:
    ! MPI_COMM_WORLD; use mpi_f08: comm%MPI_VAL); MPI_COMM_NULL makes
    ! the calls local again.  Collective itself; MPI_SUCCESS or an MPI
    ! error code.  The same function as Fortran 77's gcuba_mpi_comm.
    function gcuba_mpi_comm(comm) result(rc)
      import :: c_int
      integer(c_int), intent(in) :: comm
      integer(c_int) :: rc
    end function gcuba_mpi_comm
    ! GPU integrands only: copy `bytes' bytes of userdata to the device
    ! for this thread's following calls (see gcuba.h)
    subroutine gcuba_userdata_size(bytes) bind(c, name="gcuba_userdata_size")
      import :: c_size_t
      integer(c_size_t), value :: bytes
    end subroutine gcuba_userdata_size
  end interface
end module gcuba
