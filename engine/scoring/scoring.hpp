//! @file Scoring parameters of the affine-gap local alignment and their validation.
#pragma once

#include <cstdint>
#include <string>

namespace chromalign {

/// Scores as the user writes them: a gap of length k costs gap_open + (k-1)*gap_extend.
/// Defaults are the CUDAlign paper's (+1, -3, 5, 2).
struct Scoring {
    int32_t match = 1;       ///< added for a pair of equal A/C/G/T bases (> 0)
    int32_t mismatch = -3;   ///< added for any other pair (< 0)
    int32_t gap_open = 5;    ///< cost of the first position of a gap (> 0)
    int32_t gap_extend = 2;  ///< cost of each further position of the same gap (> 0)

    /// Returns an empty string when the values are usable, else a one-line reason.
    /// The strict signs are what the engines rely on: padded cells outside the matrix then
    /// always score below a real cell, and E/F never underflow.
    std::string validate() const;

    /// Throws Error when a pair of lengths m x n could reach a score that overflows the
    /// 32-bit score type (match * min(m, n) plus headroom for one penalty).
    void check_no_overflow(int64_t m, int64_t n) const;

    std::string to_string() const;  ///< "match=1 mismatch=-3 gap_open=5 gap_extend=2"
};

/// Largest magnitude accepted for any single score parameter.
constexpr int32_t kMaxScoreParameter = 1 << 20;

}  // namespace chromalign
