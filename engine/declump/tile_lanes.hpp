//! @file tile_dp in SIMD lanes: the same tile, kLanes rows at a time.
#pragma once

#include "engine/declump/tile_dp.hpp"

namespace chromalign {

/// tile_dp's bottom row, right column and best cell (sink.full must be null), computed in
/// stripes of 8 rows, one row per lane, diagonal by diagonal (as the traceback's windows are,
/// engine/traceback/window.cpp), the tile's left edge and barred pairs taken in.
AlignmentEnd tile_dp_lanes(const Sequence& s0, const Sequence& s1, const Scoring& scoring, const Rect& rect,
                           const TileEdges& edges, const std::vector<std::pair<int64_t, int64_t>>& barred,
                           const TileSink& sink);

}  // namespace chromalign
