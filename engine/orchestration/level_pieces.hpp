//! @file Pieces of a checkpoint, each at its own row, made into one flat row: what a run with
//! another number of slabs resumes from.
#pragma once

#include <vector>

#include "engine/checkpoint/checkpoint_file.hpp"
#include "engine/orchestration/slab_run.hpp"

namespace chromalign {

/// The flat row of all columns at the highest row of `pieces` (one checkpoint of a slab run,
/// left to right, each checked against its columns of S1; the steps of a wavefront piece
/// count as slabs of their own). Each slab below that row is
/// computed down to it on `engine`, left to right: its left edge is the rows its piece kept,
/// then the right edge of the slab before it as computed here. Needs the rows to lie whole
/// bands of the engine's height apart (a run of the same --alpha and backend); throws Error
/// otherwise, or when a slab lacks part of its left edge.
Checkpoint level_pieces(const std::vector<Checkpoint>& pieces, const Sequence& s0, const Sequence& s1,
                        const Scoring& scoring, SlabEngine& engine);

}  // namespace chromalign
