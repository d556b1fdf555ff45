#!/usr/bin/env bash
# Calibrating the communication models on a cluster (or one machine): every MPI benchmark, with
# the library's default, each OpenMPI algorithm forced in turn, and dnnperf's own AllReduce
# algorithms, into one measurement file per operation. Safe to rerun: --resume skips what a file
# holds, so an interrupted calibration continues where it stopped.
#
#   NP=16 MPIRUN_ARGS="--hostfile hosts --map-by ppr:8:node" scripts/mpi_calibrate.sh OUT_DIR
#
# NP ranks (default 2), MPIRUN_ARGS passed to mpirun (placement: keep ranks of a node together, as
# the hierarchical algorithm and the models assume), SIZES (default: 4 B to 256 MiB), BUDGET
# seconds per run (default none). Under Slurm, scripts/slurm_calibrate.sbatch wraps this.
set -euo pipefail
cd "$(dirname "$0")/.."
out=${1:?usage: scripts/mpi_calibrate.sh OUT_DIR}
mkdir -p "$out"
np=${NP:-2}
bin=${DNNPERF:-build/bin/dnnperf}
launcher=${MPIRUN:-mpirun}
sizes=${SIZES:+--sizes $SIZES}
budget=${BUDGET:+--time-budget $BUDGET}
[ "$(id -u)" -eq 0 ] && export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
# shellcheck disable=SC2086
run() { "$launcher" -np "$np" ${MPIRUN_ARGS:-} "$bin" bench "$@" $sizes $budget --resume --quiet; }

run p2p -o "$out/p2p.jsonl"
run allreduce --algorithms all -o "$out/allreduce.jsonl"
for alg in basic_linear nonoverlapping recursive_doubling ring segmented_ring rabenseifner; do
  run allreduce --algorithms mpi --mpi-algorithm "$alg" -o "$out/allreduce.jsonl"
done
for alg in "" linear bruck recursive_doubling ring neighbor_exchange; do
  run allgather ${alg:+--mpi-algorithm $alg} -o "$out/allgather.jsonl"
done
for alg in "" non_overlapping recursive_halving ring butterfly; do
  run reduce-scatter ${alg:+--mpi-algorithm $alg} -o "$out/reduce_scatter.jsonl"
done
for alg in "" basic_linear chain pipeline binary_tree binomial knomial scatter_allgather; do
  run bcast ${alg:+--mpi-algorithm $alg} -o "$out/bcast.jsonl"
done
echo "measurements in $out"
