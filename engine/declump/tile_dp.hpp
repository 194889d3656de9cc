//! @file One tile of the DP matrix from its edges, with barred pairs: the building block of
//! the K best alignments (declump.hpp), whose tiles are computed again when an alignment found
//! bars pairs in them or their edges change.
//!
//! Gotoh's recurrences as the reference's (kernels/reference/traceback.cpp), for rows
//! top + 1 .. bottom and columns left + 1 .. right:
//!   E(i, j) = max(E(i, j-1) - ext, H(i, j-1) - open)     (a gap in S0: 'D')
//!   F(i, j) = max(F(i-1, j) - ext, H(i-1, j) - open)     (a gap in S1: 'I')
//!   H(i, j) = max(0, E, F, H(i-1, j-1) + s(i, j)), the last term left out where (i, j) is barred.
//! Given the true H and F of row `top` and H and E of column `left`, every value is true: the
//! edges hold everything the tile's cells depend on.
#pragma once

#include <cstdint>
#include <utility>
#include <vector>

#include "engine/result.hpp"
#include "engine/scoring/scoring.hpp"
#include "engine/sequence.hpp"

namespace chromalign {

/// E and F where no gap can be (row 0's F, column 0's E): low enough never to win, high
/// enough that subtracting a gap cost cannot overflow.
constexpr int32_t kNoGap = INT32_MIN / 2;

/// Rows top + 1 .. bottom and columns left + 1 .. right of the matrix.
struct Rect {
    int64_t top = 0, bottom = 0, left = 0, right = 0;
    int64_t rows() const { return bottom - top; }
    int64_t cols() const { return right - left; }
    bool holds(int64_t i, int64_t j) const { return i > top && i <= bottom && j > left && j <= right; }
};

/// The values a tile is computed from.
struct TileEdges {
    const int32_t* top_h = nullptr;   ///< H(top, c) for c = left .. right (index 0: the corner)
    const int32_t* top_f = nullptr;   ///< F(top, c), the same columns (index 0 is not read)
    const int32_t* left_h = nullptr;  ///< H(r, left) for r = top + 1 .. bottom
    const int32_t* left_e = nullptr;  ///< E(r, left), the same rows
};

/// Every value of a tile, its edges included: (rows + 1) x (cols + 1), row `top` and column
/// `left` first. E of row `top` and F of column `left` are kNoGap (the walk never reads them).
struct FullTile {
    Rect rect;
    std::vector<int32_t> h, e, f;
    size_t at(int64_t i, int64_t j) const {
        return static_cast<size_t>((i - rect.top) * (rect.cols() + 1) + (j - rect.left));
    }
};

/// Where a tile's values go; any may be null.
struct TileSink {
    int32_t* bottom_h = nullptr;  ///< H(bottom, c) for c = left + 1 .. right
    int32_t* bottom_f = nullptr;  ///< F(bottom, c), the same columns
    int32_t* right_h = nullptr;   ///< H(r, right) for r = top + 1 .. bottom
    int32_t* right_e = nullptr;   ///< E(r, right), the same rows
    FullTile* full = nullptr;
};

/// Computes the tile; `barred` holds its barred pairs, row-major. Returns its best cell by the
/// tie rule of engine/result.hpp (score 0 at (0, 0) when no H is positive).
AlignmentEnd tile_dp(const Sequence& s0, const Sequence& s1, const Scoring& scoring, const Rect& rect,
                     const TileEdges& edges, const std::vector<std::pair<int64_t, int64_t>>& barred,
                     const TileSink& sink);

/// The pairs of `barred` (row-major) in rect's cells, rows top + 1 .. bottom and columns
/// left + 1 .. right, row-major: a sub-tile's share of its tile's.
std::vector<std::pair<int64_t, int64_t>> barred_in(const std::vector<std::pair<int64_t, int64_t>>& barred,
                                                   const Rect& rect);

}  // namespace chromalign
