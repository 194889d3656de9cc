#!/usr/bin/env bash
# A/B timings on the GPU machine, after tools/gpu-bundle.sh packed .gpu/ (see gpu-check.sh):
# one generated pair (PAIR: mutated, random or related; see chromalign-bench --pair), then one whole chromalign run (checkpoints every EVERY, 60s) per line of RUNS,
# each "NP [VAR=VALUE ...] [--flag ...]": NP 1 runs one process, more run mpirun -np NP.
# Prints score, end and align seconds per run; all outputs go to $OUT/ab.tgz.
#   SIZE=8M RUNS=$'1\n2\n2 --slabs 12\n2 SOME_VAR=1' tools/gpu-ab.sh
# BIN=NAME on a line runs .gpu/NAME instead of .gpu/chromalign: to compare two builds on one
# machine, put the other builds there with tools/gpu-bundle-variants.sh (.gpu/chromalign-NAME).
# Diagonal traces come back in ab.tgz when their prefix is under runs/, e.g. the line
#   2 --slabs 12 CHROMALIGN_TRACE_DIAGONALS=/tmp/gpu-ab/runs/t12
# (summarise with tools/diagonal_trace.py runs/t12.*.tsv).
set -uo pipefail
cd "$(dirname "$0")/.."
export LD_LIBRARY_PATH="$PWD/.gpu/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
if [ -f .gpu/mpi/env.sh ]; then source .gpu/mpi/env.sh; fi
export LD_LIBRARY_PATH="$PWD/.gpu/lib:$LD_LIBRARY_PATH"
work=/tmp/gpu-ab
rm -rf "$work" && mkdir -p "$work/runs"
.gpu/chromalign-bench --sizes "${SIZE:-8M}" --pair "${PAIR:-mutated}" --write-fasta "$work/pair" > /dev/null || exit 1
common=(-f tsv --checkpoint-every "${EVERY:-60s}" --restart --checkpoint "$work/ck" "$work/pair_s0.fa" "$work/pair_s1.fa")
k=0
while IFS= read -r line; do
  [ -z "$line" ] && continue
  read -r np rest <<< "$line"
  vars=() flags=() bin=.gpu/chromalign
  for w in $rest; do case "$w" in BIN=*) bin=".gpu/${w#BIN=}" ;; *=*) vars+=("$w") ;; *) flags+=("$w") ;; esac; done
  k=$((k + 1))
  out="$work/runs/$k"
  # stdin from /dev/null: mpirun would read the rest of RUNS otherwise.
  if [ "$np" = 1 ]; then
    env "${vars[@]}" "$bin" "${flags[@]}" "${common[@]}" < /dev/null > "$out.tsv" 2> "$out.err"
  else
    env "${vars[@]}" mpirun -np "$np" --bind-to none $(for v in "${vars[@]}"; do echo "-x ${v%%=*}"; done) \
      "$bin" "${flags[@]}" "${common[@]}" < /dev/null > "$out.tsv" 2> "$out.err"
  fi
  echo "run $k ($line): exit $? $(awk -F'\t' 'NR==2 {print "score", $1, "end (" $2 ", " $3 "), align", $9, "s"}' "$out.tsv")"
done <<< "${RUNS:-1}"
if [ -n "${OUT:-}" ]; then mkdir -p "$OUT" && tar czf "$OUT/ab.tgz" -C "$work" runs; fi
