//! @file The answer every backend returns, and the tie rule they all follow.
#pragma once

#include <cstdint>

namespace chromalign {

/// Best local score and the 1-based cell where the best alignment ends.
/// Tie rule (all backends): among cells with the best score, the smallest row (S0 position),
/// then the smallest column (S1 position). Score 0 (nothing aligns) reports (0, 0).
struct AlignmentEnd {
    int32_t score = 0;
    int64_t s0_end = 0;  ///< row, 1-based position in S0
    int64_t s1_end = 0;  ///< column, 1-based position in S1

    bool operator==(const AlignmentEnd& o) const {
        return score == o.score && s0_end == o.s0_end && s1_end == o.s1_end;
    }
    bool operator!=(const AlignmentEnd& o) const { return !(*this == o); }
};

/// True when candidate a wins over b under the tie rule.
inline bool better_end(const AlignmentEnd& a, const AlignmentEnd& b) {
    if (a.score != b.score) return a.score > b.score;
    if (a.s0_end != b.s0_end) return a.s0_end < b.s0_end;
    return a.s1_end < b.s1_end;
}

inline AlignmentEnd better_of(const AlignmentEnd& a, const AlignmentEnd& b) { return better_end(a, b) ? a : b; }

/// `end` of a sub-matrix that starts below row `rows` and right of column `cols`, in the
/// coordinates of the whole matrix (score 0 stays at (0, 0)).
inline AlignmentEnd offset_end(AlignmentEnd end, int64_t rows, int64_t cols) {
    if (end.score > 0) {
        end.s0_end += rows;
        end.s1_end += cols;
    }
    return end;
}

}  // namespace chromalign
