#!/usr/bin/env bash
# Genomes rather than record pairs (issue 39's figures), medians of RUNS whole CLI processes:
#  1. STRAND_SIZE (8M) related pair (chromalign-bench --pair related): --strand forward against
#     both strands, alternating; align seconds and the ratio (targets: <= 1.6, and <= 1.15 once
#     a seeded bound prunes from the first row).
#  2. V. cholerae O395 (2 chromosomes) against H1 (2 chromosomes), both strands: wall and align
#     seconds, GCUPS.
#  3. With CONTIGS=N (0: all 1,407), the first N contigs of the H1 assembly against the H1
#     chromosomes, both strands, once: seconds and GCUPS of the whole job, and one square pair
#     of 4M (chromalign-bench) for the GCUPS it is compared with (target: >= 50%).
#   RUNS=3 BACKEND=cuda BIN=.gpu DATA=.gpu/data tools/genomes-bench.sh
# Set STRAND_SIZE= or CHOLERAE= (empty) to skip a part. ARGS adds chromalign flags to every run.
set -uo pipefail
cd "$(dirname "$0")/.."
bin=${BIN:-.gpu}
data=${DATA:-.gpu/data}
runs=${RUNS:-3}
backend=${BACKEND:-cuda}
dir=$(mktemp -d "${TMPDIR:-/tmp}/genomes.XXXXXX")
trap 'rm -rf "$dir"' EXIT
median() { sort -n | awk '{v[NR] = $1} END {print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2}'; }
# Runs chromalign -f tsv with the arguments given; prints "wall align gcups" of the job (the
# TSV's lines are pairs: align seconds summed, GCUPS from the cells of all of them).
timed() {
  local start end
  start=$(date +%s.%N)
  "$bin/chromalign" -q -f tsv -b "$backend" ${ARGS:-} "$@" > "$dir/out.tsv" || return 1
  end=$(date +%s.%N)
  awk -F'\t' -v s="$start" -v e="$end" 'NR > 1 {t += $9; c += $8} END {printf "%.3f %.3f %.1f\n", e - s, t, (t > 0 ? c / t / 1e9 : 0)}' \
    "$dir/out.tsv"
}
status=0

if [ -n "${STRAND_SIZE-8M}" ]; then
  size=${STRAND_SIZE:-8M}
  "$bin/chromalign-bench" --pair related --sizes "$size" --write-fasta "$dir/rel" > /dev/null || exit 1
  : > "$dir/one"; : > "$dir/both"
  for k in $(seq "$runs"); do
    timed --strand forward "$dir/rel_s0.fa" "$dir/rel_s1.fa" | awk '{print $2}' >> "$dir/one" || status=1
    timed "$dir/rel_s0.fa" "$dir/rel_s1.fa" | awk '{print $2}' >> "$dir/both" || status=1
    echo "run $k: forward $(tail -1 "$dir/one") s, both strands $(tail -1 "$dir/both") s"
  done
  one=$(median < "$dir/one"); both=$(median < "$dir/both")
  awk -v o="$one" -v b="$both" -v z="$size" -v r="$runs" -v k="$backend" \
    'BEGIN {printf "both strands, %s related, %s: forward %.2f s, both %.2f s (medians of %s), %.3fx\n", z, k, o, b, r, b / o}'
fi

if [ -n "${CHOLERAE-1}" ]; then
  : > "$dir/vc"
  for k in $(seq "$runs"); do
    timed "$data/genomes/V_cholerae_O395.fasta.gz" "$data/genomes/V_cholerae_H1.fasta.gz" >> "$dir/vc" || status=1
    echo "run $k: wall align GCUPS $(tail -1 "$dir/vc")"
  done
  wall=$(awk '{print $1}' "$dir/vc" | median); align=$(awk '{print $2}' "$dir/vc" | median)
  gcups=$(awk '{print $3}' "$dir/vc" | median)
  echo "V. cholerae O395 x H1 (2 x 2 records, both strands), $backend: whole process $wall s, align $align s, $gcups GCUPS (medians of $runs)"
fi

if [ -n "${CONTIGS:-}" ]; then
  contigs="$data/genomes/V_cholerae_H1_contigs.fasta.gz"
  names=()
  if [ "$CONTIGS" -gt 0 ]; then
    zcat "$contigs" | awk '/^>/ {print substr($1, 2)}' | head -n "$CONTIGS" > "$dir/names"
    names=(--s0-record "$dir/names")
  fi
  line=$(timed "${names[@]}" "$contigs" "$data/genomes/V_cholerae_H1.fasta.gz") || status=1
  square=$("$bin/chromalign-bench" --backends "$backend" --sizes 4M --runs 1 | awk 'NR == 2 {print $6}')
  echo "$line" | awk -v n="${CONTIGS}" -v s="$square" -v k="$backend" \
    '{printf "H1 contigs (%s; 0: all) x H1, both strands, %s: whole process %.1f s, align %.1f s, %.1f GCUPS; a 4M x 4M pair %s GCUPS (%.1f%%)\n",
      n, k, $1, $2, $3, s, (s > 0 ? 100 * $3 / s : 0)}'
fi
exit $status
