//! @file The aligned pairs of the alignments found so far (Waterman and Eggert's declumping):
//! no later alignment may align them again.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <shared_mutex>
#include <utility>
#include <vector>

#include "engine/alignment/alignment.hpp"

namespace chromalign {

/// Pairs (i, j), 1-based, that some alignment aligns (its '=' and 'X' columns), kept as
/// diagonal runs: an alignment of L columns costs one entry per gap-free stretch, not one per
/// pair, and a run is cut where it crosses a bucket of rows, so that a query over a band of
/// rows reads only that band's runs.
///
/// A copy is a view of the alignments added so far, which later adds leave as it was: walks
/// ahead of their turn (walks_ahead.hpp) read one on their threads while the search adds the
/// next alignment, with no copy of the runs. Only the newest view (the one that added last,
/// or the original) may add.
class BarredPairs {
public:
    explicit BarredPairs(int64_t bucket_rows = 4096) : store_(std::make_shared<Store>(bucket_rows)) {}

    /// Throws Error on a view that later alignments were added past.
    void add(const Alignment& a);
    /// The barred pairs in rows top + 1 .. bottom and columns left + 1 .. right, row-major.
    std::vector<std::pair<int64_t, int64_t>> in(int64_t top, int64_t bottom, int64_t left, int64_t right) const;
    bool empty() const { return seen_ == 0; }
    /// How many alignments this view holds.
    int64_t alignments() const { return seen_; }

private:
    /// Pairs (i + t, j + t) for t in [0, length), of alignment `rank` (0: the first added).
    struct Run {
        int64_t i, j, length, rank;
    };
    struct Store {
        explicit Store(int64_t rows) : bucket_rows(rows) {}
        int64_t bucket_rows;
        int64_t alignments = 0;
        mutable std::shared_mutex lock;  ///< add() against the views' in() on other threads
        std::map<int64_t, std::vector<Run>> buckets;  ///< bucket b holds rows b * bucket_rows .. + bucket_rows - 1
    };
    void add_run(Run run);

    std::shared_ptr<Store> store_;
    int64_t seen_ = 0;  ///< the alignments of store_ this view holds, the first added
};

}  // namespace chromalign
