#!/usr/bin/env bash
# Several jobs on the GPUs of one machine at once, after tools/gpu-bundle.sh packed .gpu/ (see
# gpu-check.sh): each line of JOBS is "GPUS COMMAND..."; lines naming the same GPUS run one
# after another, in order, and the groups run alongside each other, each command with
# CUDA_VISIBLE_DEVICES=GPUS (one or several, "2,3" for an mpirun of two ranks). The environment
# is gpu-check's (libraries, MPI, test data), so every tool of tools/ runs as it does there.
# A line "wait" ends a phase: the next lines start once every job before it ended (then the
# whole machine is free, for a run over all its GPUs).
#   JOBS=$'0 tools/gpu-check.sh\n1 ROWS=1 SIZE=16M RUNS=3 tools/traceback-bench.sh\nwait\n0,1,2,3 SIZE=32M RUNS=4 tools/gpu-ab.sh' \
#     tools/gpu-jobs.sh
# A job's output goes to $OUT/jobs/N.txt (N its line, from 0) as it runs, and is printed when its
# group ends; OUT defaults to /tmp/gpu-jobs. A device call holds the machine as long as the
# longest group: put long jobs on their own GPU.
set -uo pipefail
cd "$(dirname "$0")/.."
out=${OUT:-/tmp/gpu-jobs}
mkdir -p "$out/jobs"
export OUT="$out"
source tools/gpu-env.sh
nvidia-smi --query-gpu=index,name,driver_version --format=csv,noheader

# Runs the jobs (line numbers) given, one after another, on GPUS $1; each with an OUT and a
# TMPDIR of its own (the scripts' work folders are under TMPDIR; short, for MPI's sockets).
group() {
  local gpus=$1 k cmd start
  shift
  for k in "$@"; do
    cmd=${lines[$k]#* }
    start=$SECONDS
    mkdir -p "$out/jobs/$k.out" "/tmp/gpu-jobs.$k"
    CUDA_VISIBLE_DEVICES=$gpus OUT="$out/jobs/$k.out" TMPDIR="/tmp/gpu-jobs.$k" bash -c "$cmd" > "$out/jobs/$k.txt" 2>&1
    echo "== job $k on GPU $gpus: exit $?, $((SECONDS - start)) s: $cmd" | tee -a "$out/jobs/$k.txt" > /dev/null
  done
  for k in "$@"; do cat "$out/jobs/$k.txt"; done
}

mapfile -t lines <<< "${JOBS:-}"
phase() {  # runs lines $1 .. $2 - 1, grouped by GPUS
  declare -A groups=()
  local k gpus
  for ((k = $1; k < $2; k++)); do
    [ -z "${lines[$k]// }" ] && continue
    gpus=${lines[$k]%% *}
    groups[$gpus]+=" $k"
  done
  for gpus in "${!groups[@]}"; do
    # shellcheck disable=SC2086  # the line numbers split on purpose
    group "$gpus" ${groups[$gpus]} &
  done
  wait
}
first=0
for ((k = 0; k < ${#lines[@]}; k++)); do
  if [ "${lines[$k]}" = wait ]; then
    phase "$first" "$k"
    first=$((k + 1))
  fi
done
phase "$first" "${#lines[@]}"
