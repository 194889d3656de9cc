//! @file Where a lower bound of a comparison's optimum comes from: a fast pass beside stage 1
//! (engine/bound/minimap2_bound.hpp), or a value a test injects. The run never depends on the
//! source being right: BoundThread checks the answer against the bound it used.
#pragma once

#include <atomic>
#include <cstdint>
#include <string>

#include "engine/alignment/alignment.hpp"
#include "engine/scoring/scoring.hpp"
#include "engine/sequence.hpp"

namespace chromalign {

/// What a bound pass found: a local alignment of the comparison (S0 against S1 as compared),
/// scored exactly under the run's scoring; its score is the bound. Score 0: nothing found.
struct BoundFound {
    Alignment witness;
    int64_t blocks = 0;        ///< mapper alignments it was chained from
    int64_t path_columns = 0;  ///< columns of the chained path its best stretch came from
};

class BoundSource {
public:
    virtual ~BoundSource() = default;
    virtual std::string name() const = 0;
    /// A lower bound of the best local score of s0 x s1 under `scoring`. When `cancel` is set
    /// (stage 1 has ended), it may return early with nothing.
    virtual BoundFound find(const Sequence& s0, const Sequence& s1, const Scoring& scoring,
                            const std::atomic<bool>& cancel) = 0;
};

}  // namespace chromalign
