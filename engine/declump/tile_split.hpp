//! @file One tile on many threads: the K best search's narrow waves (a recomputation follows an
//! alignment a few tiles at a time) would leave all but a few cores idle, a tile each.
#pragma once

#include "engine/declump/tile_dp.hpp"

namespace chromalign {

/// tile_dp_lanes' values (bottom row, right column, best cell) of a tile cut into split x split
/// sub-tiles, each computed on one of `threads` threads as soon as the sub-tiles above and to
/// its left are: their edges are the only values it reads.
AlignmentEnd tile_dp_split(const Sequence& s0, const Sequence& s1, const Scoring& scoring, const Rect& rect,
                           const TileEdges& edges, const std::vector<std::pair<int64_t, int64_t>>& barred,
                           const TileSink& sink, int64_t split, int threads);

}  // namespace chromalign
