#!/usr/bin/env bash
# Fresh-machine set-up: install the Debian packages chromalign needs, build it, then either
#   tools/setup.sh example   compare the bundled bee-virus pair (data/example/), or
#   tools/setup.sh test      run the whole test suite with ctest, then fuzz the file readers
#                            for a minute each (tools/fuzz.sh).
# Needs root (or sudo) for apt-get. CUDA is used when nvcc is found (PATH or /usr/local/cuda).
set -euo pipefail
cd "$(dirname "$0")/.."
mode=${1:-example}
case "$mode" in example|test) ;; *) echo "usage: tools/setup.sh example|test" >&2; exit 2 ;; esac

packages="cmake make g++ pkg-config libhts-dev libboost-program-options-dev zlib1g-dev libgtest-dev libopenmpi-dev openmpi-bin samtools nlohmann-json3-dev libminimap2-dev"
# The tests compare PAF with minimap2 and fuzz the file readers (tools/fuzz.sh): clang and its
# libFuzzer runtime.
[ "$mode" = test ] && packages="$packages minimap2 clang libclang-rt-14-dev"
missing=""
for p in $packages; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing="$missing $p"
done
if [ -n "$missing" ]; then
  sudo=""; [ "$(id -u)" -ne 0 ] && sudo="sudo"
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends $missing >/dev/null
fi
if ! command -v nvcc >/dev/null && [ -x /usr/local/cuda/bin/nvcc ]; then export PATH="/usr/local/cuda/bin:$PATH"; fi

cmake -S . -B build -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build build -j"$(nproc)"

if [ "$mode" = example ]; then
  ./build/chromalign data/example/NC_004830.2_deformed_wing_virus.fasta.gz \
                     data/example/NC_006494.1_varroa_destructor_virus_1.fasta.gz
else
  (cd build && ctest --output-on-failure -j"$(nproc)")
  tools/fuzz.sh
fi
