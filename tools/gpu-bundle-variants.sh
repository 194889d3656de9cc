#!/usr/bin/env bash
# Other revisions of chromalign beside the bundle, for A/B runs of two builds on one GPU
# machine (tools/gpu-ab.sh, BIN=chromalign-NAME). Run after tools/gpu-bundle.sh packed .gpu/:
# each NAME=REV builds REV (a branch, tag or commit) for sm_90 in a worktree under
# build-variants/NAME and copies its chromalign to .gpu/chromalign-NAME; the shared libraries
# already in .gpu/lib serve them all.
#   tools/gpu-bundle-variants.sh main=main loop=long-phase-one-loop
set -euo pipefail
cd "$(dirname "$0")/.."
if [ ! -x .gpu/chromalign ]; then echo "gpu-bundle-variants: run tools/gpu-bundle.sh first" >&2; exit 1; fi
for spec in "$@"; do
  name=${spec%%=*} rev=${spec#*=}
  dir=build-variants/$name
  rm -rf "$dir" && git worktree prune
  git worktree add --force --detach "$dir/src" "$rev" > /dev/null
  if ! { cmake -S "$dir/src" -B "$dir/build" -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90 &&
         cmake --build "$dir/build" -j"$(nproc)" --target chromalign; } > "$dir/build.log" 2>&1; then
    tail -20 "$dir/build.log" >&2
    exit 1
  fi
  cp "$dir/build/chromalign" ".gpu/chromalign-$name"
  git worktree remove --force "$dir/src"
  echo "$name: $(git rev-parse --short "$rev") -> .gpu/chromalign-$name"
done
