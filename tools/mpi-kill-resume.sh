#!/usr/bin/env bash
# kill -9 of a whole MPI job once its first checkpoint is complete, then a resume with another
# rank count; prints the resumed answer beside the uninterrupted one (issue 23).
#   KILL_RANKS=4 RESUME_RANKS=2 WANT=mpi-1.tsv tools/mpi-kill-resume.sh S0.fa S1.fa   # GPU machine
#   BIN=build KILL_RANKS=3 RESUME_RANKS=2 ARGS="-b cpu" tools/mpi-kill-resume.sh ...  # here
# WANT: the uninterrupted run's TSV (chromalign -f tsv); without it the script runs one itself.
# EVERY (5s) is the checkpoint interval; AFTER (1) the seconds between the checkpoint and the
# kill. Exit status 0 only where the resumed run resumed and found the same score and end.
set -uo pipefail
bin=${BIN:-.gpu}
kill_ranks=${KILL_RANKS:-4}
resume_ranks=${RESUME_RANKS:-2}
work=${WORK:-${TMPDIR:-/tmp}/mpi-kill-resume}
ck="$work/job.ckpt"
read -r -a args <<< "${ARGS:-}"
[ $# -eq 2 ] || { echo "usage: KILL_RANKS=N RESUME_RANKS=M tools/mpi-kill-resume.sh S0.fa S1.fa" >&2; exit 2; }
rm -rf "$work" && mkdir -p "$work"
launch() { mpirun --oversubscribe --bind-to none -np "$1" "$bin/chromalign" -f tsv "${args[@]}" \
  --checkpoint "$ck" --checkpoint-every "${EVERY:-5s}" "$2" "$3" < /dev/null; }
answer() { awk -F'\t' 'NR==2 {print $1, $2, $3}' "$1"; }
# Complete when every slab of one checkpoint number q has its piece (no .tmp left for it).
complete() {
  ls "$ck".slab*of*.* 2>/dev/null | grep -v '\.tmp' | sed 's/.*\.slab[0-9]*of\([0-9]*\)\.\([0-9]*\)$/\1 \2/' |
    sort | uniq -c | awk '$1 == $2 {found = 1} END {exit !found}'
}

want=${WANT:-}
if [ -z "$want" ]; then
  want="$work/whole.tsv"
  "$bin/chromalign" -f tsv "${args[@]}" "$1" "$2" > "$want" 2> "$work/whole.err" || { cat "$work/whole.err"; exit 1; }
fi

start=$(date +%s.%N)
setsid bash -c "$(declare -f launch); $(declare -p args bin ck); launch $kill_ranks '$1' '$2'" \
  > "$work/killed.tsv" 2> "$work/killed.err" &
sid=$!
until complete; do
  kill -0 "$sid" 2>/dev/null || { echo "the $kill_ranks-rank job ended before its first checkpoint"; cat "$work/killed.err"; exit 1; }
  sleep 0.2
done
sleep "${AFTER:-1}"
at=$(awk -v s="$start" -v e="$(date +%s.%N)" 'BEGIN {printf "%.1f", e - s}')
# mpirun gives each rank a process group of its own: kill the whole session.
ps -e -o pid=,sid= | awk -v s="$sid" '$2 == s {print $1}' | xargs -r kill -9
wait "$sid" 2>/dev/null
echo "kill -9 of the $kill_ranks-rank job (mpirun and every rank) $at s after its start: pieces $(ls "$ck".slab* 2>/dev/null | wc -l)"

t=$(date +%s.%N)
launch "$resume_ranks" "$1" "$2" > "$work/resumed.tsv" 2> "$work/resumed.err"
rc=$?
took=$(awk -v s="$t" -v e="$(date +%s.%N)" 'BEGIN {printf "%.1f", e - s}')
resumed=$(grep -o 'resuming[^;]*' "$work/resumed.err" | head -1)
got=$(answer "$work/resumed.tsv")
echo "resumed with $resume_ranks ranks: exit $rc in $took s (${resumed:-did NOT resume}); score and end $got, uninterrupted $(answer "$want")"
[ "$rc" -eq 0 ] && [ -n "$resumed" ] && [ "$got" = "$(answer "$want")" ] || { tail -5 "$work/resumed.err"; exit 1; }
