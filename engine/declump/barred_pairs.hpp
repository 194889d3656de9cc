//! @file The aligned pairs of the alignments found so far (Waterman and Eggert's declumping):
//! no later alignment may align them again.
#pragma once

#include <cstdint>
#include <map>
#include <utility>
#include <vector>

#include "engine/alignment/alignment.hpp"

namespace chromalign {

/// Pairs (i, j), 1-based, that some alignment aligns (its '=' and 'X' columns), kept as
/// diagonal runs: an alignment of L columns costs one entry per gap-free stretch, not one per
/// pair, and a run is cut where it crosses a bucket of rows, so that a query over a band of
/// rows reads only that band's runs.
class BarredPairs {
public:
    explicit BarredPairs(int64_t bucket_rows = 4096) : bucket_rows_(bucket_rows) {}

    void add(const Alignment& a);
    /// The barred pairs in rows top + 1 .. bottom and columns left + 1 .. right, row-major.
    std::vector<std::pair<int64_t, int64_t>> in(int64_t top, int64_t bottom, int64_t left, int64_t right) const;
    bool empty() const { return buckets_.empty(); }

private:
    /// Pairs (i + t, j + t) for t in [0, length).
    struct Run {
        int64_t i, j, length;
    };
    void add_run(Run run);

    int64_t bucket_rows_;
    std::map<int64_t, std::vector<Run>> buckets_;  ///< bucket b holds rows b * bucket_rows_ .. + bucket_rows_ - 1
};

}  // namespace chromalign
