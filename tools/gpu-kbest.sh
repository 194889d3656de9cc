#!/usr/bin/env bash
# Issue 41's benchmark on the GPU machine, after tools/gpu-bundle.sh packed .gpu/: the K best
# search of one pair (H. pylori ELS37 x G27 from .gpu/data/related; S0, S1 to change it), both
# strands, ALIGNMENTS (100) of score >= MIN_SCORE (100), whole process, against stage 1 of its
# forward strand alone. Builds take turns within each of ROUNDS (5) rounds, stage 1 last: each
# NAME given runs .gpu/chromalign-NAME (tools/gpu-bundle-variants.sh), `main` .gpu/chromalign
# (the default). Prints each run (seconds, the PAF's md5, the search's tracebacks and tiles
# computed again, both strands summed), then each build's median and its ratio to stage 1's.
#   ROUNDS=6 tools/gpu-kbest.sh main old
# BIN_DIR (.gpu) and BACKEND (cuda) let it run elsewhere; each build's last JSON and stderr go
# to $OUT where it is set.
set -uo pipefail
cd "$(dirname "$0")/.." || exit 1
bins=${BIN_DIR:-.gpu}
if [ "$bins" = .gpu ]; then source tools/gpu-env.sh; fi
s0=${S0:-$bins/data/related/H_Pylori_ELS37.fasta.gz}
s1=${S1:-$bins/data/related/H_Pylori_G27.fasta.gz}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
builds=("${@:-main}")
binary() { if [ "$1" = main ]; then echo "$bins/chromalign"; else echo "$bins/chromalign-$1"; fi; }
for b in "${builds[@]}"; do
  if [ ! -x "$(binary "$b")" ]; then echo "gpu-kbest: no $(binary "$b")" >&2; exit 1; fi
done
# One timed run: $1 label, the rest the command. Prints the seconds.
timed() {
  local label=$1 start end
  shift
  start=$(date +%s.%N)
  "$@" > /dev/null 2> "$work/$label.err" || { echo "gpu-kbest: $label failed:" >&2; tail -3 "$work/$label.err" >&2; exit 1; }
  end=$(date +%s.%N)
  awk -v s="$start" -v e="$end" 'BEGIN { printf "%.3f", e - s }'
}
field() { grep -o "\"$1\": *[0-9.e+-]*" "$2" | head -1 | awk -F: '{ printf "%.2f", $2 }'; }
for r in $(seq 1 "${ROUNDS:-5}"); do
  for b in "${builds[@]}"; do
    sec=$(timed "$b" "$(binary "$b")" -b "${BACKEND:-cuda}" --alignments "${ALIGNMENTS:-100}" \
      --min-score "${MIN_SCORE:-100}" --traceback "$work/$b.paf" -f json -o "$work/$b.json" "$s0" "$s1") || exit 1
    echo "round $r $b $sec s, PAF $(md5sum < "$work/$b.paf" | cut -c1-8), tracebacks" \
      "$(field declump_walk_seconds "$work/$b.json") s, tiles computed again $(field declump_recompute_seconds "$work/$b.json") s"
    echo "$b $sec" >> "$work/times"
  done
  sec=$(timed stage1 "$(binary "${builds[0]}")" -b "${BACKEND:-cuda}" --strand forward -f tsv -o "$work/stage1.tsv" "$s0" "$s1") ||
    exit 1
  echo "round $r stage1 $sec s"
  echo "stage1 $sec" >> "$work/times"
done
median() { awk -v b="$1" '$1 == b { print $2 }' "$work/times" | sort -n |
  awk '{ v[NR] = $1 } END { printf "%.3f", NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
one=$(median stage1)
echo "stage 1 (forward strand, ${builds[0]}): median $one s"
for b in "${builds[@]}"; do
  m=$(median "$b")
  echo "$b: median $m s, $(awk -v a="$m" -v s="$one" 'BEGIN { printf "%.2f", a / s }') times stage 1"
done
if [ -n "${OUT:-}" ]; then cp "$work"/*.json "$work"/*.err "$OUT/" 2> /dev/null; fi
