#!/usr/bin/env bash
# The CPU backend against parasail 2.6's parasail_sw_striped_32 (same pair, same scoring, same run).
#
#   tools/parasail_compare.sh [SIZE [SEED]]      default 100k (a SIZE x SIZE mutated pair), seed 1
#
# Builds tools/parasail_bench.cpp against -lparasail (Debian: apt-get install libparasail-dev;
# a benchmark-only dependency, no project target links it), generates the pair with
# chromalign-bench --write-fasta, times parasail on one thread (best of RUNS) and the cpu
# backend on 1 and 2 threads (median of RUNS), checks the scores agree and prints GCUPS and
# the ratios. Environment: BUILD (build directory, default build), RUNS (default 3), and
# CHROMALIGN_CPU_ISA: sse41 or avx also runs parasail's SSE4.1 variant, avx2 its AVX2 one, so
# a CI-class (no AVX2) comparison can be made on any x86 machine; unset, both dispatch.
set -euo pipefail
cd "$(dirname "$0")/.."
size=${1:-100k}
seed=${2:-1}
build=${BUILD:-build}
runs=${RUNS:-3}
scoring=(1 -3 5 2)  # match mismatch gap-open gap-extend: chromalign's defaults

bench="$build/chromalign-bench"
[ -x "$bench" ] || { echo "parasail_compare: build chromalign first ($bench is missing)" >&2; exit 1; }
[ -e /usr/include/parasail.h ] || { echo "parasail_compare: apt-get install libparasail-dev" >&2; exit 1; }

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
g++ -O2 -std=c++17 -o "$tmp/parasail-bench" tools/parasail_bench.cpp -lparasail
"$bench" --sizes "$size" --seed "$seed" --write-fasta "$tmp/pair"

case "${CHROMALIGN_CPU_ISA:-}" in
  sse41|avx) parasail_isa=sse41 ;;
  avx2) parasail_isa=avx2 ;;
  *) parasail_isa=dispatch ;;
esac

# parasail: "function score end0 end1 seconds gcups"
read -r p_name p_score p_end0 p_end1 p_seconds p_gcups < <(
  "$tmp/parasail-bench" "$tmp/pair_s0.fa" "$tmp/pair_s1.fa" "${scoring[@]}" "$runs" "$parasail_isa")

# chromalign-bench: "backend m n runs median_s GCUPS dev_MiB score s0_end s1_end grid | device"
ours() {
  "$bench" --s0 "$tmp/pair_s0.fa" --s1 "$tmp/pair_s1.fa" --backends cpu --threads "$1" --runs "$runs" | tail -n 1
}
line1=$(ours 1)
line2=$(ours 2)
read -r _ m n _ c1_seconds c1_gcups _ c1_score c1_end0 c1_end1 c1_rest <<<"$line1"
read -r _ _ _ _ c2_seconds c2_gcups _ c2_score _ _ _ <<<"$line2"
kernel=$(sed -n 's/.*kernel=\([^ ]*\).*/\1/p' <<<"$line1")
device=$(sed -n 's/.*| *//p' <<<"$line1")

printf 'pair %s x %s (mutated, seed %s), scoring %s, CPU: %s\n' "$m" "$n" "$seed" "${scoring[*]}" \
  "$(sed -n 's/^model name[^:]*: *//p' /proc/cpuinfo | head -n 1)"
printf '%-42s %8s %9s %8s %9s  %s\n' engine threads seconds GCUPS score end
printf '%-42s %8s %9s %8s %9s  (%s, %s)\n' "$p_name (best of $runs)" 1 "$p_seconds" "$p_gcups" "$p_score" "$p_end0" "$p_end1"
printf '%-42s %8s %9s %8s %9s  (%s, %s)\n' "cpu $kernel (median of $runs)" 1 "$c1_seconds" "$c1_gcups" "$c1_score" "$c1_end0" "$c1_end1"
printf '%-42s %8s %9s %8s %9s\n' "cpu $kernel (median of $runs)" 2 "$c2_seconds" "$c2_gcups" "$c2_score"
echo "device: $device"
awk -v p="$p_seconds" -v c1="$c1_seconds" -v c2="$c2_seconds" 'BEGIN {
  printf "ratio cpu 1 thread / parasail:   %.2fx  (floor 1.0x, goal 1.5x)\n", p / c1
  printf "ratio cpu 2 threads / 1 thread:  %.2fx  (floor 1.8x)\n", c1 / c2 }'
if [ "$p_score" != "$c1_score" ] || [ "$c1_score" != "$c2_score" ]; then
  echo "parasail_compare: scores differ (parasail $p_score, cpu $c1_score and $c2_score)" >&2
  exit 1
fi
