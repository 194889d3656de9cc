//! @file Textbook Gotoh with a full-matrix traceback: the oracle of the traceback stage.
#pragma once

#include <cstdint>
#include <utility>
#include <vector>

#include "engine/alignment/alignment.hpp"
#include "engine/scoring/scoring.hpp"
#include "engine/sequence.hpp"

namespace chromalign {

/// Cells reference_traceback takes at most (one byte each).
constexpr int64_t kMaxTracebackCells = int64_t{1} << 28;

/// Whether an m x n matrix (m, n >= 1) is within kMaxTracebackCells, without overflow.
inline bool traceback_fits(int64_t m, int64_t n) { return m <= kMaxTracebackCells / n; }

/// The pairs (i, j), 1-based, that `a` aligns: its match and mismatch columns, in order.
std::vector<std::pair<int64_t, int64_t>> aligned_pairs(const Alignment& a);

/// Aligned pairs (i, j), 1-based: a match or mismatch column of some alignment.
class UsedPairs {
public:
    explicit UsedPairs(int64_t rows) : columns_(static_cast<size_t>(rows + 1)) {}
    /// Adds the '=' and 'X' columns of `a`.
    void add(const Alignment& a);
    /// Whether (i, j) is held.
    bool has(int64_t i, int64_t j) const;
    /// Row i's columns, sorted.
    const std::vector<int64_t>& row(int64_t i) const { return columns_[static_cast<size_t>(i)]; }

private:
    std::vector<std::vector<int64_t>> columns_;
};

/// The best local alignment, from full DP matrices (one byte of traceback per cell). It ends
/// at the cell the tie rule of engine/result.hpp picks (reference_align's), and among the
/// co-optimal alignments ending there it is the one this path rule gives, walking back:
///   1. in H, a diagonal whose predecessor H is 0 starts the alignment there (the shortest);
///   2. else the diagonal, then F (an S0 base against a gap: 'I'), then E ('D');
///   3. in F or E, the gap opens (returns to H) as soon as its value allows, else extends.
/// Shares no code with the fast engines. Throws Error beyond kMaxTracebackCells.
/// With `used` (Waterman and Eggert's declumping, waterman_eggert.hpp): no alignment may
/// align a pair (i, j) it holds, so no diagonal move enters such a cell; gaps may cross it.
Alignment reference_traceback(const Sequence& s0, const Sequence& s1, const Scoring& scoring,
                              const UsedPairs* used = nullptr);

}  // namespace chromalign
