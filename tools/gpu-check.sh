#!/usr/bin/env bash
# GPU check, run on the GPU machine from the repository root after tools/gpu-bundle.sh packed
# .gpu/ here (binaries built for sm_90, their shared libraries, test data).
# Runs the gpu-labelled tests, the benchmark, and prints one summary table at the end.
#   SIZES=1M,4M,8M RUNS=3 GTEST_FILTER='*' tools/gpu-check.sh
set -uo pipefail
cd "$(dirname "$0")/.."
out=${OUT:-/tmp/gpu-check}
mkdir -p "$out"
export LD_LIBRARY_PATH="$PWD/.gpu/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
export CHROMALIGN_SHARED_DATA="$PWD/.gpu/data" CHROMALIGN_CONFIG_DIR="$PWD/.gpu/configs"
sizes=${SIZES:-1M,4M,8M}
runs=${RUNS:-3}

nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,memory.total --format=csv | tee "$out/gpu.txt"
if command -v cuobjdump >/dev/null; then
  cuobjdump -res-usage .gpu/chromalign > "$out/res-usage.txt" 2>&1
  cuobjdump -sass .gpu/chromalign > "$out/chromalign.sass" 2>&1
fi

.gpu/chromalign_gpu_tests --gtest_filter="${GTEST_FILTER:-*}" > "$out/gpu-tests.log" 2>&1
tests_rc=$?
grep -E '^\[  (PASSED|FAILED|SKIPPED)|^\[ result|^\[ seed|Failure|got|want' "$out/gpu-tests.log" | head -40

.gpu/chromalign-bench --backends cuda --sizes "$sizes" --runs "$runs" ${BENCH_ARGS:-} > "$out/bench.txt" 2>&1
bench_rc=$?

echo
echo "=== chromalign gpu-check summary ==="
head -2 "$out/gpu.txt" | tail -1
echo "gpu tests: exit $tests_rc; $(grep -E '^\[  PASSED  \]|^\[  FAILED  \]' "$out/gpu-tests.log" | tr '\n' ' ')"
echo "benchmark (exit $bench_rc), cells = m*n, median of $runs runs:"
cat "$out/bench.txt"
[ "$tests_rc" -eq 0 ] && [ "$bench_rc" -eq 0 ]
