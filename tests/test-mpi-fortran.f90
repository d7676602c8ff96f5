! tests/test-mpi-fortran.f90 -- gcuba_mpi_comm from Fortran, run by
! tests/test-mpi.sh under mpirun: the legacy symbol (an implicit
! interface, no module: tests/test-mpi-fortran-legacy.F) makes gcuhre and
! gvegas collective over MPI_COMM_WORLD, and every process gets the bits
! of the local call; arguments that differ between processes give fail
! -18 on every process; the module's interface with MPI_COMM_NULL makes
! calls local again.  Rank 0 prints TAP lines ("ok - ...", the
! conditions reduced over all processes) and writes the results' bits to
! the file named by the first argument, which test-mpi.sh compares
! between process counts.  This file is part of gcuba.

! a product of Lorentzians, Cuba's 4-argument form
integer function fpeak(ndim, x, ncomp, f)
  implicit none
  integer ndim, ncomp, i
  double precision x(ndim), f(ncomp)
  f(1) = 1
  do i = 1, ndim
    f(1) = f(1) / (0.01d0 + (x(i) - 0.3d0)**2)
  end do
  fpeak = 0
end function fpeak

program test_mpi_fortran
  use mpi
  use gcuba
  implicit none
  external :: fpeak, legacy_comm
  integer ierr, rank, nprocs, rc, nfail
  integer nreg(3), neval(3), fail(3), vfail(3), maxev
  integer*8 spin
  double precision res(3), err(3), prob(3), vres(3), verr(3), vprob(3)
  integer vneval(3)
  double precision ud, exact, one
  character(len=256) :: fname
  character(len=160) :: msg

  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  call MPI_Comm_size(MPI_COMM_WORLD, nprocs, ierr)
  call get_command_argument(1, fname)
  nfail = 0
  spin = -1
  ud = 0
  one = 10 * (atan(7d0) + atan(3d0))
  exact = one**3

  ! 1: local calls
  call gcuhre(3, 1, fpeak, ud, 1, 1d-6, 0d0, 0, 0, 10000000, 0, ' ', &
              spin, nreg(1), neval(1), fail(1), res(1:1), err(1:1), &
              prob(1:1))
  call gvegas(3, 1, fpeak, ud, 1, 1d-3, 0d0, 0, 5, 0, 10000000, 10000, &
              5000, 1000, 0, ' ', spin, vneval(1), vfail(1), vres(1:1), &
              verr(1:1), vprob(1:1))

  ! 2: collective over MPI_COMM_WORLD through the legacy symbol
  call legacy_comm(MPI_COMM_WORLD, rc)
  call check(rc == MPI_SUCCESS, 'legacy gcuba_mpi_comm(MPI_COMM_WORLD) &
             &returns MPI_SUCCESS')
  call gcuhre(3, 1, fpeak, ud, 1, 1d-6, 0d0, 0, 0, 10000000, 0, ' ', &
              spin, nreg(2), neval(2), fail(2), res(2:2), err(2:2), &
              prob(2:2))
  write(msg, '(a,i0,a,es23.16,a,i0)') 'gcuhre collective: fail ', &
    fail(2), ', ', res(2), ', neval ', neval(2)
  call check(fail(2) == 0 .and. res(2) == res(1) .and. err(2) == err(1) &
             .and. prob(2) == prob(1) .and. neval(2) == neval(1) .and. &
             nreg(2) == nreg(1) .and. same_everywhere(res(2)), msg)
  call check(abs(res(2) - exact) <= 1d-6 * exact, &
             '  ... within 1e-6 of the true value')
  call gvegas(3, 1, fpeak, ud, 1, 1d-3, 0d0, 0, 5, 0, 10000000, 10000, &
              5000, 1000, 0, ' ', spin, vneval(2), vfail(2), vres(2:2), &
              verr(2:2), vprob(2:2))
  write(msg, '(a,i0,a,es23.16,a,i0)') 'gvegas collective: fail ', &
    vfail(2), ', ', vres(2), ', neval ', vneval(2)
  call check(vfail(2) == 0 .and. vres(2) == vres(1) .and. &
             verr(2) == verr(1) .and. vprob(2) == vprob(1) .and. &
             vneval(2) == vneval(1) .and. same_everywhere(vres(2)) .and. &
             abs(vres(2) - exact) <= 4 * verr(2), msg)

  ! 3: a maxeval that differs between processes
  maxev = 10000000 + rank
  call gcuhre(3, 1, fpeak, ud, 1, 1d-6, 0d0, 0, 0, maxev, 0, ' ', &
              spin, nreg(3), neval(3), fail(3), res(3:3), err(3:3), &
              prob(3:3))
  if (nprocs > 1) then
    write(msg, '(a,i0)') 'maxeval differs between processes: fail ', &
      fail(3)
    call check(fail(3) == GCUBA_FAIL_COLLECTIVE, msg)
  else
    call check(fail(3) == 0 .and. res(3) == res(1), &
               'one process: maxeval cannot differ, the same result')
  end if

  ! 4: local again through the module's interface
  rc = gcuba_mpi_comm(MPI_COMM_NULL)
  call check(rc == MPI_SUCCESS, 'module gcuba_mpi_comm(MPI_COMM_NULL) &
             &returns MPI_SUCCESS')
  call gcuhre(3, 1, fpeak, ud, 1, 1d-6, 0d0, 0, 0, maxev, 0, ' ', &
              spin, nreg(3), neval(3), fail(3), res(3:3), err(3:3), &
              prob(3:3))
  call check(fail(3) == 0 .and. res(3) == res(1), &
             'local again: a maxeval of its own on every process, the &
             &local result')

  if (rank == 0 .and. len_trim(fname) > 0) then
    open(10, file=trim(fname), status='replace')
    write(10, '(z16.16,1x,z16.16,1x,i0,1x,i0)') res(2), err(2), &
      neval(2), nreg(2)
    write(10, '(z16.16,1x,z16.16,1x,i0)') vres(2), verr(2), vneval(2)
    close(10)
  end if
  call MPI_Finalize(ierr)
  if (nfail > 0) stop 1

contains

  ! a TAP line on rank 0; cond must hold on every process
  subroutine check(cond, text)
    logical, intent(in) :: cond
    character(len=*), intent(in) :: text
    integer c, e
    c = merge(1, 0, cond)
    call MPI_Allreduce(MPI_IN_PLACE, c, 1, MPI_INTEGER, MPI_MIN, &
                       MPI_COMM_WORLD, e)
    if (c == 0) nfail = nfail + 1
    if (rank == 0) then
      if (c == 1) then
        write(*, '(a,i0,a,a)') 'ok - np=', nprocs, ': fortran: ', trim(text)
      else
        write(*, '(a,i0,a,a)') 'not ok - np=', nprocs, ': fortran: ', &
          trim(text)
      end if
    end if
  end subroutine check

  ! the same bits on every process
  logical function same_everywhere(v)
    double precision, intent(in) :: v
    double precision lo, hi
    integer e
    call MPI_Allreduce(v, lo, 1, MPI_DOUBLE_PRECISION, MPI_MIN, &
                       MPI_COMM_WORLD, e)
    call MPI_Allreduce(v, hi, 1, MPI_DOUBLE_PRECISION, MPI_MAX, &
                       MPI_COMM_WORLD, e)
    same_everywhere = lo == v .and. hi == v
  end function same_everywhere

end program test_mpi_fortran
