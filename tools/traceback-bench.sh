#!/usr/bin/env bash
# The traceback's cost: one generated related pair (chromalign-bench --pair related), the whole
# CLI process timed RUNS times with stage 1 alone and RUNS times with --traceback, alternating;
# prints the medians and their ratio (the target: <= 1.3 at 5M on one H100).
#   SIZE=5M RUNS=3 BACKEND=cuda BIN=.gpu tools/traceback-bench.sh
# BIN holds chromalign and chromalign-bench (.gpu after tools/gpu-bundle.sh; build for a local
# build). ARGS adds chromalign flags to both runs, TB_ARGS to the traceback runs only.
# LATER=1: stage 1 once with --traceback-dir, then `chromalign traceback` RUNS times, and the
# median traceback against stage 1's align seconds (the target: <= 10% at 16M on one H100).
# ROWS=1: stage 1 alone and with --traceback-dir (rows kept, no traceback), alternating, RUNS
# times each, and what keeping the rows costs stage 1's align seconds (the target: <= 5%).
set -uo pipefail
cd "$(dirname "$0")/.."
bin=${BIN:-.gpu}
size=${SIZE:-5M}
runs=${RUNS:-3}
backend=${BACKEND:-cuda}
dir=$(mktemp -d "${TMPDIR:-/tmp}/tb.XXXXXX")
trap 'rm -rf "$dir"' EXIT
"$bin/chromalign-bench" --pair related --sizes "$size" --write-fasta "$dir/pair" > /dev/null || exit 1

median() { sort -n | awk '{v[NR] = $1} END {print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2}'; }

if [ -n "${LATER:-}" ]; then
  "$bin/chromalign" -q -b "$backend" ${ARGS:-} "$dir/pair_s0.fa" "$dir/pair_s1.fa" --traceback-dir "$dir/rows" \
    > "$dir/stage1" || exit 1
  stage1=$(awk -F'\t' '$1 == "seconds" {print $2}' "$dir/stage1")
  : > "$dir/later"
  for k in $(seq "$runs"); do
    "$bin/chromalign" traceback "$dir/rows" -q -b "$backend" --traceback "$dir/aln.paf" ${TB_ARGS:-} \
      > "$dir/report" || exit 1
    awk -F'\t' '$1 == "traceback_seconds" {print $2 + 0}' "$dir/report" >> "$dir/later"
    echo "run $k: $(grep '^traceback_seconds' "$dir/report")"
  done
  sort -n "$dir/later" | awk -v s="$stage1" -v z="$size" -v b="$backend" -v r="$runs" '{v[NR] = $1}
    END {m = (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2
         printf "traceback later %s related, %s: stage 1 align %.2f s; traceback median of %s %.2f s (%.2f to %.2f), %.1f%% of stage 1\n",
                z, b, s, r, m, v[1], v[NR], 100 * m / s}'
  exit 0
fi

if [ -n "${ROWS:-}" ]; then
  : > "$dir/alone"
  : > "$dir/rows"
  for k in $(seq "$runs"); do
    for mode in alone rows; do
      rm -rf "$dir/rows.d"
      extra=()
      [ "$mode" = rows ] && extra=(--traceback-dir "$dir/rows.d")
      "$bin/chromalign" -q -b "$backend" ${ARGS:-} "$dir/pair_s0.fa" "$dir/pair_s1.fa" "${extra[@]}" > "$dir/report" || exit 1
      awk -F'\t' '$1 == "seconds" {print $2 + 0}' "$dir/report" >> "$dir/$mode"
      echo "run $k, $mode: $(grep -E '^(seconds|pruned)' "$dir/report" | tr '\t\n' '= ')"
    done
  done
  alone=$(median < "$dir/alone")
  rows=$(median < "$dir/rows")
  awk -v a="$alone" -v w="$rows" -v s="$size" -v b="$backend" -v r="$runs" 'BEGIN {
    printf "rows %s related, %s, median of %s: stage 1 alone %.2f s, keeping rows %.2f s, cost %.1f%%\n", s, b, r, a, w, 100 * (w / a - 1) }'
  exit 0
fi

# Runs chromalign with the given flags; prints "wall_seconds report_file".
run() {
  local report="$dir/report.$RANDOM"
  local start end
  start=$(date +%s.%N)
  "$bin/chromalign" -q -b "$backend" ${ARGS:-} "$dir/pair_s0.fa" "$dir/pair_s1.fa" "$@" > "$report" || exit 1
  end=$(date +%s.%N)
  awk -v s="$start" -v e="$end" -v r="$report" 'BEGIN {printf "%.3f %s\n", e - s, r}'
}

: > "$dir/alone"
: > "$dir/with"
for k in $(seq "$runs"); do
  read -r t report < <(run)
  echo "$t" >> "$dir/alone"
  alone_seconds=$(awk -F'\t' '$1 == "seconds" {print $2}' "$report")
  read -r t report < <(run --traceback "$dir/aln.paf" ${TB_ARGS:-})
  echo "$t" >> "$dir/with"
  echo "run $k: stage 1 alone $(tail -1 "$dir/alone") s (align $alone_seconds s), with traceback $t s;" \
    "$(grep -E '^(seconds|traceback_seconds|pruned|alignment_length)' "$report" | tr '\t\n' '= ' )"
done
alone=$(median < "$dir/alone")
with=$(median < "$dir/with")
awk -v a="$alone" -v w="$with" -v s="$size" -v b="$backend" -v r="$runs" 'BEGIN {
  printf "traceback %s related, %s, median of %s: stage 1 alone %.2f s, with traceback %.2f s, ratio %.3f\n", s, b, r, a, w, w / a }'
