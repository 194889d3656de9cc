#!/usr/bin/env bash
# A/B timings on the GPU machine, after tools/gpu-bundle.sh packed .gpu/ (see gpu-check.sh):
# one generated pair (PAIR: mutated, random or related; see chromalign-bench --pair), then one whole chromalign run (checkpoints every EVERY, 60s) per line of RUNS,
# each "NP [VAR=VALUE ...] [--flag ...]": NP 1 runs one process, more run mpirun -np NP.
# Prints score, end, align and whole seconds per run, and a line of its pipeline note
# (tools/pipeline_summary.awk); reports and stderr go to $OUT/runs.
#   SIZE=8M RUNS=$'1\n2\n2 --slabs 12\n2 SOME_VAR=1' tools/gpu-ab.sh
# LIMIT=SECONDS stops each run (SIGTERM) that takes longer.
# A line ending in & runs alongside the lines after it, up to a line "wait" (give each its own
# --device; each run has its own checkpoint): one-GPU runs of a multi-GPU machine at once.
# BIN=NAME on a line runs .gpu/NAME instead of .gpu/chromalign: to compare two builds on one
# machine, put the other builds there with tools/gpu-bundle-variants.sh (.gpu/chromalign-NAME).
# Diagonal traces come back in traces.tgz when their prefix is under runs/ of the work folder
# ($TMPDIR/gpu-ab, /tmp/gpu-ab without TMPDIR), e.g. the line
#   2 --slabs 12 CHROMALIGN_TRACE_DIAGONALS=/tmp/gpu-ab/runs/t12
# (summarise with tools/diagonal_trace.py runs/t12.*.tsv).
set -uo pipefail
cd "$(dirname "$0")/.."
source tools/gpu-env.sh
work=${TMPDIR:-/tmp}/gpu-ab
rm -rf "$work" && mkdir -p "$work/runs"
.gpu/chromalign-bench --sizes "${SIZE:-8M}" --pair "${PAIR:-mutated}" --write-fasta "$work/pair" > /dev/null || exit 1
k=0
# Run $1 of line $2 (np, then words), reporting when it ends.
run() {
  local k=$1 line=$2 np rest vars=() flags=() bin=.gpu/chromalign out="$work/runs/$1"
  read -r np rest <<< "$line"
  for w in $rest; do case "$w" in BIN=*) bin=".gpu/${w#BIN=}" ;; *=*) vars+=("$w") ;; *) flags+=("$w") ;; esac; done
  local common=(-f tsv --checkpoint-every "${EVERY:-60s}" --restart --checkpoint "$work/ck$k" "$work/pair_s0.fa" "$work/pair_s1.fa")
  local start=$SECONDS limit=${LIMIT:+timeout $LIMIT}
  # stdin from /dev/null: mpirun would read the rest of RUNS otherwise.
  if [ "$np" = 1 ]; then
    env "${vars[@]}" $limit "$bin" "${flags[@]}" "${common[@]}" < /dev/null > "$out.tsv" 2> "$out.err"
  else
    env "${vars[@]}" $limit mpirun -np "$np" --bind-to none $(for v in "${vars[@]}"; do echo "-x ${v%%=*}"; done) \
      "$bin" "${flags[@]}" "${common[@]}" < /dev/null > "$out.tsv" 2> "$out.err"
  fi
  local rc=$?
  if [ -n "${OUT:-}" ]; then mkdir -p "$OUT/runs" && cp "$out.tsv" "$out.err" "$OUT/runs/"; fi
  echo "run $k ($line): exit $rc, $((SECONDS - start)) s whole, $(awk -F'\t' 'NR==2 {print "score", $1, "end (" $2 ", " $3 "), align", $9, "s"}' "$out.tsv")" \
    "$(grep -o '[0-9.]*% of cells pruned' "$out.err" | head -1)"
  awk -f tools/pipeline_summary.awk "$out.err"
}
while IFS= read -r line; do
  [ -z "$line" ] && continue
  if [ "$line" = wait ]; then wait; continue; fi
  k=$((k + 1))
  if [ "${line: -1}" = "&" ]; then run "$k" "${line%&}" & else run "$k" "$line"; fi
done <<< "${RUNS:-1}"
wait
# Each run's report and stderr are in $OUT/runs as soon as it ends; traces come at the end.
if [ -n "${OUT:-}" ] && compgen -G "$work/runs/t*" > /dev/null; then
  tar czf "$OUT/traces.tgz" -C "$work/runs" $(cd "$work/runs" && ls -d t*)
fi
