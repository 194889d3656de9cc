//! @file A quick look at whether two sequences share enough for a bound pass to matter, taken
//! before the slabs are cut (run_slab): the slabs start on narrow block columns only where
//! the bound may leave most of the matrix pruned. A choice of grid, never of the answer.
#pragma once

#include <cstdint>

#include "engine/sequence.hpp"

namespace chromalign {

/// S1's k-mers of one hash-chosen sample (a fixed share of all k-mers, the same k-mers in
/// both sequences: FracMinHash), and how many of them S0 holds too, on S1's strand as given.
struct KmerShare {
    static constexpr int kK = 20;              ///< k: spurious shares of two random 250 Mbp sequences stay below 1e-4
    static constexpr uint64_t kSampleMask = 63;  ///< one k-mer in 64 by hash
    int64_t sampled = 0;  ///< distinct sampled k-mers of S1
    int64_t shared = 0;   ///< those S0 holds too
};

/// Both sequences scanned once, over `workers` threads.
KmerShare shared_kmers(const Sequence& s0, const Sequence& s1, int workers);

}  // namespace chromalign
