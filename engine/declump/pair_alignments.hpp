//! @file The K best alignments of one record pair over the strands compared: each strand is a
//! matrix of its own (declump.hpp), and the pair's alignments are the best of all of them.
#pragma once

#include <cstdint>
#include <utility>
#include <vector>

#include "engine/declump/declump.hpp"
#include "engine/job/strand.hpp"

namespace chromalign {

struct StrandAlignment {
    Strand strand = Strand::kForward;
    Alignment alignment;
};

/// Tiles whose edges take at most about `bytes` (8 bytes per column of a kept row and per row
/// of a kept column), square, at least 256 x 256.
DeclumpOptions tiles_within(int64_t m, int64_t n, int64_t bytes);

/// At most `count` alignments of s0 against each `compared` S1 (its strand and the sequence as
/// that strand reads it), each at least max(min_score, 1), merged best first: a higher score
/// first, then the earlier strand of `compared`, then each strand's own order (its tie rule).
/// So the first is the one stage 1 and the traceback of the pair give. Adds what was computed
/// to `counts`.
std::vector<StrandAlignment> pair_alignments(const Sequence& s0, const std::vector<std::pair<Strand, const Sequence*>>& compared,
                                             const Scoring& scoring, int count, int32_t min_score, int64_t bytes,
                                             DeclumpCounts& counts);

}  // namespace chromalign
