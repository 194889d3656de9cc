#!/usr/bin/env bash
# Issue 22's latencies on one backend and size: how long a stop signal takes to end a run with
# a checkpoint, and when the first checkpoint lands after a start and after a resume.
#   BACKEND=cuda SIZE=250M BIN=.gpu OUT=$OUT tools/stop-latency.sh      # on the GPU machine
#   BACKEND=cpu SIZE=3M BIN=build STOP_AFTER=5 tools/stop-latency.sh     # here
# STOP_AFTER (75) seconds before the stop; EVERY (10) the --checkpoint-every of the second
# part; ARGS more chromalign flags for every run (--slabs 8, say). Each result goes to stdout and to $OUT/stop-latency.txt as soon as it is known.
# LATE=1 runs only part 3: a stop once the first slab has ended (the pair runs twice whole:
# a size of seconds, 16M on a GPU), the resume compared with the uninterrupted answer.
set -uo pipefail
set -m  # jobs in process groups of their own: a non-interactive shell starts them ignoring SIGINT
bin=${BIN:-build}
backend=${BACKEND:-cuda}
size=${SIZE:-250M}
every=${EVERY:-10}
after=${STOP_AFTER:-75}
out=${OUT:-/tmp/stop-latency}
work=${WORK:-/tmp/stop-latency-work}
mkdir -p "$out" "$work"
log="$out/stop-latency.txt"
say() { echo "$*" | tee -a "$log"; }
now() { date +%s.%N; }
since() { awk -v s="$1" -v e="$(now)" 'BEGIN {printf "%.1f", e - s}'; }
pieces() { ls "$1".slab* 2>/dev/null | grep -v '\.tmp'; }
# The last slab's pieces: slabs save their own rows, and the last slab's piece is written last.
last_pieces() {
  pieces "$1" | while read -r f; do k=${f##*.slab}; k=${k%%of*}; n=${f##*of}; n=${n%%.*}
    [ "$k" -eq $((n - 1)) ] && echo "$f"; done
}
listing() { last_pieces "$1" | xargs -r ls -l --time-style=full-iso | md5sum; }
run() { exec "$bin/chromalign" -b "$backend" -f tsv ${ARGS:-} "$@" "$work/p_s0.fa" "$work/p_s1.fa"; }  # `run &`: $! is chromalign

if [ ! -f "$work/p_s1.fa" ]; then
  t=$(now)
  "$bin/chromalign-bench" --sizes "$size" --write-fasta "$work/p" > /dev/null || exit 1
  say "generated a $size x $size pair in $(since "$t") s"
fi

if [ -n "${LATE:-}" ]; then
  # 3. A stop after slab 0 has ended, half way to the last slab's end (the pipeline note of a
  # whole run says when), then a resume, which must give the whole run's answer.
  rm -f "$work"/l.ckpt*
  (run --checkpoint "$work/l.ckpt") > "$work/whole.out" 2> "$work/whole.err" || exit 1
  read -r first last < <(grep -o 'done [0-9.]*' "$work/whole.err" | awk '{print $2}' | sort -n | sed -n '1p;$p' | paste -sd' ')
  at=$(awk -v a="$first" -v b="$last" 'BEGIN {printf "%.2f", a + (b - a) / 2}')
  run --checkpoint "$work/l.ckpt" > /dev/null 2> "$work/late.err" &
  pid=$!
  sleep "$at"
  s=$(now)
  kill -TERM "$pid"
  wait "$pid"
  rc=$?
  say "$backend $size: slabs ended at $first to $last s; SIGTERM $at s in: exit $rc $(since "$s") s later"
  (run --checkpoint "$work/l.ckpt") > "$work/resumed.out" 2> "$work/resumed.err"
  grep -h resuming "$work/late.err" "$work/resumed.err" | tee -a "$log"
  if cmp -s <(cut -f1-3 "$work/whole.out") <(cut -f1-3 "$work/resumed.out"); then
    say "resumed: the whole run's answer, $(sed -n 2p "$work/resumed.out" | cut -f1-3)"
  else
    say "resumed: ANSWER DIFFERS: $(sed -n 2p "$work/whole.out" | cut -f1-3) against $(sed -n 2p "$work/resumed.out" | cut -f1-3)"
    exit 1
  fi
  exit 0
fi

# 1. A stop STOP_AFTER seconds into a run.
rm -f "$work"/s.ckpt*
run --checkpoint "$work/s.ckpt" --checkpoint-every 1h > "$work/stop.out" 2> "$work/stop.err" &
pid=$!
sleep "$after"
s=$(now)
kill -INT "$pid"
wait "$pid"
rc=$?
say "$backend $size: SIGINT $after s into the run: exit $rc $(since "$s") s later; checkpoint pieces: $(pieces "$work/s.ckpt" | wc -l)"

# 2. The first checkpoint after a start, then after resuming from the stop that ends it.
rm -f "$work"/d.ckpt*
for kind in start resume; do
  t=$(now)
  before=$(listing "$work/d.ckpt")
  run --checkpoint "$work/d.ckpt" --checkpoint-every "${every}s" > "$work/due.out" 2> "$work/due.err" &
  pid=$!
  landed=""
  for _ in $(seq 1 $(((every + 120) * 2))); do
    sleep 0.5
    if [ "$(listing "$work/d.ckpt")" != "$before" ]; then landed=$(since "$t"); break; fi
    kill -0 "$pid" 2>/dev/null || break
  done
  s=$(now)
  kill -TERM "$pid" 2>/dev/null
  wait "$pid"
  rc=$?
  resumed=$(grep -q "resuming" "$work/due.err" && echo "resumed" || echo "started afresh")
  say "$backend $size, --checkpoint-every ${every}s, after a $kind ($resumed): first checkpoint ${landed:-(none)} s after it; SIGTERM then: exit $rc $(since "$s") s later"
done
