//! @file Chaining a mapper's alignment blocks into one path through the matrix: the longest
//! collinear stretch a bound can be read from (engine/bound/path_bound.hpp scores it).
#pragma once

#include <vector>

#include "engine/bound/path_bound.hpp"

namespace chromalign {

/// The collinear chain of `blocks` (paths that each start at their first aligned pair; cut
/// in two at each gap of 100 columns or more) with the highest estimated score, joined into
/// one path. Each block counts its exact score; the
/// gap between two chained blocks counts an estimate: the better of a diagonal run (scored as
/// the blocks score on average) plus one gap for the difference, or two gaps. The estimate
/// only chooses the chain. The chosen blocks are joined by the best global path between them
/// (exact where the gap is small enough) and best_stretch scores the result. Of two blocks
/// that overlap by a few bases, the later is cut to start after the earlier; blocks that
/// overlap more are never both chained. An empty path when there are no blocks.
MatrixPath chain_blocks(std::vector<MatrixPath> blocks, const Sequence& s0, const Sequence& s1, const Scoring& scoring);

/// The exact score of every column of `path` from its start to its end (no best stretch).
int64_t path_score(const MatrixPath& path, const Sequence& s0, const Sequence& s1, const Scoring& scoring);

}  // namespace chromalign
