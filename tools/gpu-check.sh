#!/usr/bin/env bash
# GPU check, run on the GPU machine from the repository root after tools/gpu-bundle.sh packed
# .gpu/ here (binaries built for sm_90, their shared libraries, test data).
# Runs the gpu-labelled tests, the benchmark (with and without checkpoints), a whole-process
# run of the CLI on a generated pair, and prints one summary table at the end.
#   SIZES=1M,4M,8M RUNS=3 CKPT_SIZE=8M CKPT_EVERY="60 5" WHOLE=20M GTEST_FILTER='*' tools/gpu-check.sh
# TB_SIZE=5M adds the traceback's cost on a related pair (tools/traceback-bench.sh), and
# TB_LATER=16M the traceback alone after one stage 1 at that size (its LATER mode), and
# TB_ROWS=16M what keeping the rows costs stage 1 at that size (its ROWS mode).
# RELATED=16M and UNRELATED=8M add the benchmark's related pair (RUNS runs) and two unrelated
# sequences (one run) at those sizes, issue 40's other pairs.
# Set CKPT_SIZE= or WHOLE= (empty) to skip those parts. TESTS_TIMEOUT bounds the GPU tests (450 s,
# 590 s with STOP_SIZE).
# STOP_SIZE=250M adds issue 22's stop and checkpoint latencies at that size to the GPU tests
# (StopLatencyGpu, about 4 minutes at 250M).
# MPI_SIZE=16M MPI_RANKS="2 4" adds column slabs over MPI: the same generated pair once on one
# GPU and once with mpirun -np R for each R listed (one GPU per rank), all with checkpoints
# every MPI_CKPT_EVERY (60s), and the speed-ups. MPI_ARGS adds chromalign flags to all runs.
# MPI_KILL="4 2" then kills the whole job with -9 at 4 ranks once its first checkpoint (every 2 s)
# is complete, resumes it with 2 ranks and compares it with one process's answer
# (tools/mpi-kill-resume.sh, MPI_ARGS added), on a pair of MPI_KILL_SIZE (16M: 2 ranks end an 8M
# pair before its first checkpoint; 4 -> 2 ranks, whose resume levels the pieces slab after
# slab, outran a 200 s call at 16M before the gain table: pass 8M there).
# TRACE=1 traces every diagonal of those runs (CHROMALIGN_TRACE_DIAGONALS) into $OUT/traces.tgz;
# summarise with tools/diagonal_trace.py.
set -uo pipefail
cd "$(dirname "$0")/.."
# Where the build tools exist (not on the GPU machine), build and pack first.
if [ ! -x .gpu/chromalign ] && command -v cmake >/dev/null && pkg-config --exists htslib 2>/dev/null; then
  tools/gpu-bundle.sh || exit 1
fi
out=${OUT:-/tmp/gpu-check}
tmp=${TMPDIR:-/tmp}  # generated pairs, checkpoints, traces
mkdir -p "$out"
source tools/gpu-env.sh
sizes=${SIZES-1M,4M,8M}
runs=${RUNS-3}
ckpt_size=${CKPT_SIZE-8M}
whole=${WHOLE-20M}

nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,memory.total --format=csv | tee "$out/gpu.txt"
if command -v cuobjdump >/dev/null; then
  cuobjdump -res-usage .gpu/chromalign > "$out/res-usage.txt" 2>&1
fi

# A hung test would take the whole device call with it: the suite (about 280 s, 4 minutes
# more with STOP_SIZE) gets TESTS_TIMEOUT seconds, and a kill names the test that was running.
tests_timeout=${TESTS_TIMEOUT:-$([ -n "${STOP_SIZE:-}" ] && echo 590 || echo 450)}
CHROMALIGN_STOP_LATENCY_SIZE="${STOP_SIZE:-}" timeout -s KILL "$tests_timeout" .gpu/chromalign_gpu_tests \
  --gtest_filter="${GTEST_FILTER:-*}" > "$out/gpu-tests.log" 2>&1
tests_rc=$?
if [ "$tests_rc" -eq 137 ]; then
  echo "gpu tests killed after $tests_timeout s in $(grep '^\[ RUN' "$out/gpu-tests.log" | tail -1)" \
    | tee -a "$out/gpu-tests.log"
fi
grep -E '^\[  (PASSED|FAILED|SKIPPED)|^\[ result|^\[ seed|^\[ kill|^\[ stop|^\[ due|Failure' "$out/gpu-tests.log" | head -40

bench_rc=0
: > "$out/bench.txt"
if [ -n "$sizes" ]; then
  .gpu/chromalign-bench --backends cuda --sizes "$sizes" --runs "$runs" ${BENCH_ARGS:-} >> "$out/bench.txt" 2>&1 || bench_rc=$?
fi
if [ -n "$ckpt_size" ]; then
  for every in ${CKPT_EVERY:-60 5}; do
    echo "checkpoint every $every s:" >> "$out/bench.txt"
    .gpu/chromalign-bench --backends cuda --sizes "$ckpt_size" --runs "$runs" --checkpoint-every "$every" \
      ${BENCH_ARGS:-} 2>&1 | tail -n +2 >> "$out/bench.txt" || bench_rc=$?
  done
fi

if [ -n "${RELATED:-}" ]; then
  .gpu/chromalign-bench --backends cuda --sizes "$RELATED" --pair related --runs "$runs" ${BENCH_ARGS:-} 2>&1 \
    | tail -n +2 >> "$out/bench.txt" || bench_rc=$?
fi
if [ -n "${UNRELATED:-}" ]; then
  .gpu/chromalign-bench --backends cuda --sizes "$UNRELATED" --pair random --runs 1 ${BENCH_ARGS:-} 2>&1 \
    | tail -n +2 >> "$out/bench.txt" || bench_rc=$?
fi

whole_line="(skipped)"
if [ -n "$whole" ]; then
  .gpu/chromalign-bench --sizes "$whole" --write-fasta "$tmp/whole"
  start=$(date +%s.%N)
  .gpu/chromalign -f tsv "$tmp/whole_s0.fa" "$tmp/whole_s1.fa" > "$out/whole.tsv" 2> "$out/whole.err"
  whole_rc=$?
  end=$(date +%s.%N)
  whole_line=$(awk -v s="$start" -v e="$end" -v rc="$whole_rc" 'NR==2 {printf "%s x %s: score %s end (%s, %s), whole process %.1f s (%.2f min), align %s s, %.0f GCUPS, exit %s", $6, $7, $1, $2, $3, e-s, (e-s)/60, $9, $10, rc}' "$out/whole.tsv")
  [ "$whole_rc" -eq 0 ] || bench_rc=$whole_rc
fi

# TB_SIZE=5M: the traceback's cost on a related pair (tools/traceback-bench.sh, RUNS runs).
tb_line="(skipped)"
if [ -n "${TB_SIZE:-}" ]; then
  SIZE="$TB_SIZE" RUNS="$runs" BACKEND=cuda BIN=.gpu tools/traceback-bench.sh > "$out/traceback.txt" 2>&1 || bench_rc=$?
  tb_line=$(tail -1 "$out/traceback.txt")
fi
if [ -n "${TB_LATER:-}" ]; then
  LATER=1 SIZE="$TB_LATER" RUNS="$runs" BACKEND=cuda BIN=.gpu tools/traceback-bench.sh > "$out/traceback-later.txt" 2>&1 \
    || bench_rc=$?
  tb_line="$tb_line
$(tail -1 "$out/traceback-later.txt")"
fi
if [ -n "${TB_ROWS:-}" ]; then
  ROWS=1 SIZE="$TB_ROWS" RUNS="$runs" BACKEND=cuda BIN=.gpu tools/traceback-bench.sh > "$out/traceback-rows.txt" 2>&1 \
    || bench_rc=$?
  tb_line="$tb_line
$(tail -1 "$out/traceback-rows.txt")"
fi

mpi_lines=""
if [ -n "${MPI_SIZE:-}" ]; then
  .gpu/chromalign-bench --sizes "$MPI_SIZE" --write-fasta "$tmp/mpi" > /dev/null
  common=(-f tsv --checkpoint-every "${MPI_CKPT_EVERY:-60s}" --restart ${MPI_ARGS:-})
  traces="$tmp/chromalign-traces"
  rm -rf "$traces"
  # With TRACE set: the variable for run $1 (passed to env, and to mpirun after -x).
  trace() { if [ -n "${TRACE:-}" ]; then mkdir -p "$traces/$1"; echo "CHROMALIGN_TRACE_DIAGONALS=$traces/$1/t"; fi; }
  env $(trace 1) .gpu/chromalign "${common[@]}" --checkpoint "$tmp/single.ckpt" \
    "$tmp/mpi_s0.fa" "$tmp/mpi_s1.fa" > "$out/mpi-1.tsv" 2> "$out/mpi-1.err" || bench_rc=$?
  for ranks in ${MPI_RANKS:-2}; do
    mpirun -np "$ranks" --bind-to none ${TRACE:+-x} $(trace "$ranks") .gpu/chromalign "${common[@]}" --checkpoint "$tmp/multi$ranks.ckpt" \
      "$tmp/mpi_s0.fa" "$tmp/mpi_s1.fa" > "$out/mpi-$ranks.tsv" 2> "$out/mpi-$ranks.err" || bench_rc=$?
    line=$(awk -F'\t' -v r="$ranks" 'FNR==2 {k++; s[k]=$1" ("$2", "$3")"; t[k]=$9; g[k]=$10}
      END {printf "%d ranks: %s in %s s, %s GCUPS, speed-up %.3fx over 1 GPU (%s s), results %s",
           r, s[2], t[2], g[2], (t[2] > 0 ? t[1] / t[2] : 0), t[1], (s[1] == s[2] ? "identical" : "DIFFER")}' \
      "$out/mpi-1.tsv" "$out/mpi-$ranks.tsv")
    grep -q identical <<< "$line" || bench_rc=1
    mpi_lines+="$line"$'\n'"$(awk -f tools/pipeline_summary.awk "$out/mpi-$ranks.err")"$'\n'
  done
  if [ -n "${MPI_KILL:-}" ]; then
    read -r kill_ranks resume_ranks <<< "$MPI_KILL"
    .gpu/chromalign-bench --sizes "${MPI_KILL_SIZE:-16M}" --write-fasta "$tmp/kill" > /dev/null
    KILL_RANKS=$kill_ranks RESUME_RANKS=$resume_ranks ARGS="${MPI_ARGS:-}" BIN=.gpu EVERY=2s AFTER=0.5 \
      tools/mpi-kill-resume.sh "$tmp/kill_s0.fa" "$tmp/kill_s1.fa" > "$out/mpi-kill.txt" 2>&1 || bench_rc=1
    mpi_lines+="$(cat "$out/mpi-kill.txt")"$'\n'
  fi
  if [ -d "$traces" ]; then tar czf "$out/traces.tgz" -C "$traces" .; fi
fi

echo
echo "=== chromalign gpu-check summary ==="
head -2 "$out/gpu.txt" | tail -1
echo "gpu tests: exit $tests_rc; $(grep -E '^\[  PASSED  \]|^\[  FAILED  \]' "$out/gpu-tests.log" | tr '\n' ' ')"
echo "benchmark, cells = m*n, median of $runs runs (+ckpt: with checkpoints at the interval named above it):"
echo "backend               m            n  runs   median_s      GCUPS  pruned    dev_MiB    score      s0_end      s1_end  grid | device"
grep -v '^backend' "$out/bench.txt"
echo "whole process: $whole_line"
echo "$tb_line"
if [ -n "$mpi_lines" ]; then echo "column slabs over MPI, $MPI_SIZE x $MPI_SIZE (align seconds; checkpoints every ${MPI_CKPT_EVERY:-60s}):"; echo -n "$mpi_lines"; fi
[ "$tests_rc" -eq 0 ] && [ "$bench_rc" -eq 0 ]
