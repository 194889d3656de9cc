#!/usr/bin/env bash
# Fuzzes the readers of untrusted files (tests/fuzz/: FASTA through htslib, checkpoints, and the
# special rows and stage 1 records of --traceback-dir) with libFuzzer, ASan and UBSan: builds
# them with clang++ in build-fuzz/, then runs each for
# FUZZ_SECONDS (default 60) from a copy of its committed seeds (tests/fuzz/seeds/NAME/).
# A crash, a sanitizer report, a leak or an input slower than 10 s fails, leaving the input
# in build-fuzz/ (libFuzzer's crash-* / timeout-* files): add it to the seeds once fixed.
#   FUZZ_SECONDS=600 tools/fuzz.sh
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=${FUZZ_SECONDS:-60}
CXX=clang++ cmake -S tests/fuzz -B build-fuzz -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
cmake --build build-fuzz -j"$(nproc)" >/dev/null
for name in fasta checkpoint special_rows stage1; do
  corpus=build-fuzz/corpus-$name
  mkdir -p "$corpus"
  cp tests/fuzz/seeds/$name/* "$corpus"/
  echo "fuzzing the $name reader for $seconds s"
  (cd build-fuzz && ./fuzz_$name -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 -max_len=65536 \
     -print_final_stats=1 "corpus-$name" 2>&1 | grep -E '^(#|stat::number_of_executed_units|INFO: seed corpus|==|SUMMARY|Done)' | tail -4)
done
