#!/usr/bin/env bash
# Builds chromalign for sm_90 here and packs what the GPU machine needs into .gpu/:
# binaries, the shared libraries it lacks (htslib, Boost, ...), the test data and the scripts.
# The GPU machine has nvcc and the driver but no htslib or Boost; see tools/gpu-check.sh.
set -euo pipefail
cd "$(dirname "$0")/.."
build=build-gpu
cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90 >/dev/null
# Only what the GPU machine runs: the whole of .gpu/ travels with each device call (64 MiB at
# most), and the unit tests (15 MB) run here and in CI.
cmake --build "$build" -j"$(nproc)" --target chromalign chromalign-bench chromalign_gpu_tests
rm -rf .gpu && mkdir -p .gpu/lib .gpu/data
cp "$build"/chromalign "$build"/chromalign-bench "$build"/tests/chromalign_gpu_tests .gpu/
for lib in $(ldd .gpu/chromalign .gpu/chromalign_gpu_tests | awk '/=> \// {print $3}' | sort -u); do
  case "$(basename "$lib")" in
    libc.so*|libm.so*|libstdc++*|libgcc_s*|libpthread*|libdl*|librt*) ;;  # the GPU image has newer ones
    libmpi*|libopen-*|libpmix*|libhwloc*|libevent*|libmunge*|libudev*) ;;  # in .gpu/mpi (below)
    *) cp -L "$lib" .gpu/lib/ ;;
  esac
done
shared=../shared/data
if [ -d "$shared" ]; then
  cp -r "$shared/paper" .gpu/data/
  cp -r "$shared/related" .gpu/data/
  cp -r "$shared/genomes" .gpu/data/
fi
# minimap2, for the tests that compare strands and coordinates with it (Debian's package).
if command -v minimap2 >/dev/null; then cp "$(command -v minimap2)" .gpu/; fi
cp -r configs .gpu/
if command -v mpirun >/dev/null; then tools/gpu-bundle-mpi.sh; fi
du -sh .gpu
