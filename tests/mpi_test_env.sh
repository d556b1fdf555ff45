# Sourced by the shell tests that run real MPI ranks on this machine: the launcher (ctest passes
# MPIEXEC), Open MPI's consent to run as root and to oversubscribe the cores, a scratch folder
# ($dir, removed on exit), and ok/bad, which print a result and record a failure in $fail.
mpirun=${MPIEXEC:-mpirun}
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
fail=0
ok() { echo "ok   $1"; }
bad() { echo "FAIL $1"; fail=1; }
