//! @file The K best non-intersecting local alignments (Waterman and Eggert, 1987), the textbook
//! way: the whole matrix again after each alignment, with its aligned pairs barred. The
//! oracle of `--alignments K` (issue 41); small inputs only (reference_traceback's cells).
#pragma once

#include <cstdint>
#include <vector>

#include "engine/alignment/alignment.hpp"
#include "engine/scoring/scoring.hpp"
#include "engine/sequence.hpp"

namespace chromalign {

/// Alignment 1 is reference_traceback's; alignment k the one reference_traceback gives with
/// the aligned pairs (match and mismatch columns) of alignments 1 .. k-1 barred, so that no
/// two share a pair, each chosen by the same tie rule and path rule. At most `count`, each
/// scoring at least max(min_score, 1), best first.
std::vector<Alignment> reference_alignments(const Sequence& s0, const Sequence& s1, const Scoring& scoring,
                                            int count, int32_t min_score = 1);

}  // namespace chromalign
