//! @file `--pairs mapped`: the record pairs a fast mapping links, for a job over genomes of
//! many records. A heuristic choice, never the default: a pair the mapper misses is not
//! compared at all, so its exact answer is not known (with every pair, it would be).
#pragma once

#include <vector>

#include "engine/job/job.hpp"

namespace chromalign {

/// The pairs (S0 record, S1 record) for which minimap2 (preset asm20, all S0 records in one
/// index, each S1 record mapped on both strands) reports an alignment spanning at least
/// `min_bases` of S0, and every pair with a record shorter than `short_record` (too short for
/// the mapper to judge: an assembly's contigs of a few dozen bases), in the order of S0's
/// records, then S1's. `threads`: cores to map with (0: every core); the result does not
/// depend on it.
std::vector<RecordPair> mapped_pairs(const std::vector<Sequence>& s0, const std::vector<Sequence>& s1,
                                     int64_t min_bases, int64_t short_record, int threads = 0);

}  // namespace chromalign
