//! @file The diagonal orchestrator shared by the tiled backends (CUDAlign Algorithm 2), with checkpoints.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>

#include "engine/backend/backend.hpp"
#include "engine/tiling/tile_executor.hpp"

namespace chromalign {

/// Builds a backend's executor for rows first_row+1 .. m of S0 (all of S1), starting below
/// `top` (the DP row first_row; empty for row 0).
using ExecutorFactory =
    std::function<std::unique_ptr<TileExecutor>(int64_t first_row, const TopRow& top)>;

/// Runs a whole comparison: resumes from options.checkpoint.path when it holds a matching
/// checkpoint, walks every external diagonal, writes a checkpoint every interval (and once
/// more, then throws Interrupted, when *options.checkpoint.stop is set), reports progress
/// about once a second, and returns the best cell in whole-matrix coordinates.
/// A checkpoint is the bottom row of one band, captured while the following B diagonals run.
AlignmentEnd run_tiled(const Sequence& s0, const Sequence& s1, const Scoring& scoring,
                       const ExecutorFactory& make_executor, const BackendOptions& options);

}  // namespace chromalign
