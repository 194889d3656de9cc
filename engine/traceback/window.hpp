//! @file A window of the DP matrix recomputed from a row above it: the linear-memory
//! traceback's building block, and the bound that says where its values are exact.
//!
//! A window is rows (top, bottom] x columns [lo, hi]. Its top row's H and F over columns
//! lo - 1 .. hi are given (a special row of stage 1, or a row of an enclosing window); the
//! column left of it is a fresh edge, H = 0 and E = -inf. So the window leaves out every path
//! that comes in from the left, and its values are lower bounds of the true ones, each the
//! score of a real path.
//!
//! The bound. Let M be the best substitution score and e = min(open, extend) the least a gap
//! column costs. A path of a rows and b columns scores at most M min(a, b) - e |a - b|, which
//! is at most (M + e) a - e b. So every path into (i, j) that visits a column c < lo at some
//! row >= top scores at most
//!     U(i, j) = K + (M + e) i - e j,
//! where K is the window's `k`: the largest max(0, H(top, c)) + e c over those columns, less
//! (M + e) top, or that of the enclosing window when larger (WindowSpec::k says how it is
//! formed). Hence true = max(window, something <= U): a window value that meets what the walk
//! needs is right, and one that misses it is a true miss when U is below what it needs.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <vector>

#include "engine/scoring/scoring.hpp"
#include "engine/sequence.hpp"

namespace chromalign {

/// Columns a window of `height` rows spans left of the cell the walk enters it by: a path of
/// that many rows spans about as many columns, and the bound needs a margin left of it that
/// grows with the height (the walk widens a window found too narrow).
inline int64_t window_span(int64_t height) { return height + height / 4 + 64; }

/// K of a window that misses no path (its left edge is the matrix's column 0).
constexpr int64_t kNoMissedPaths = INT64_MIN / 4;

/// One DP row over columns lo - 1 .. hi of a window (index k holds column lo - 1 + k).
struct WindowRow {
    int64_t row = 0;
    std::vector<int32_t> h, f;
};

struct WindowSpec {
    int64_t top = 0, bottom = 0;  ///< rows top + 1 .. bottom are computed
    int64_t lo = 1, hi = 0;       ///< columns lo .. hi
    /// U(i, j) = k + (M + e) i - e j bounds every path this window misses; kNoMissedPaths
    /// when none is missed. A window cut from an enclosing one (columns from lo_outer) takes
    /// max(k_outer, max over c in [lo_outer - 1, lo - 1] of (max(0, H(top, c)) + e c) - (M + e) top),
    /// H(top, lo_outer - 1) counting as 0; with lo == lo_outer, just k_outer.
    int64_t k = kNoMissedPaths;
    bool top_exact = false;  ///< the top row holds true values (a special row of stage 1)

    int64_t rows() const { return bottom - top; }
    int64_t width() const { return hi - lo + 1; }
};

/// The scoring terms the traceback uses.
struct TracebackTerms {
    int32_t open = 0, ext = 0;
    int64_t best = 0;  ///< M, the best substitution score
    int64_t gap = 0;   ///< e = min(open, extend)
    int32_t table[5][5] = {};  ///< s(a, b) for codes 0..4

    explicit TracebackTerms(const Scoring& scoring);
    /// U(i, j) of a window with bound k.
    int64_t bound(int64_t k, int64_t i, int64_t j) const {
        return k == kNoMissedPaths ? kNoMissedPaths : k + (best + gap) * i - gap * j;
    }
};

/// Values of every cell of a window, its top row included (row `top` has E = -inf). The rows
/// below the top lie in stripes of kLanes rows, stored step by step as window_cells computes
/// them: row top + 1 + s kLanes + q, column index k (0: column lo - 1) at step k + q of stripe
/// s. Reused from window to window: its memory is neither freed nor cleared in between.
class WindowCells {
public:
    static constexpr int64_t kLanes = 8;
    int64_t cols = 0;   ///< width + 1: column lo - 1 first
    int64_t steps = 0;  ///< cols + kLanes - 1: the steps of one stripe
    int32_t *h = nullptr, *e = nullptr, *f = nullptr;
    /// Row r of the window (0: its top) at column index k.
    size_t at(int64_t r, int64_t k) const {
        if (r == 0) return static_cast<size_t>(k);
        const int64_t s = (r - 1) / kLanes, q = (r - 1) % kLanes;
        return static_cast<size_t>(cols + (s * steps + k + q) * kLanes + q);
    }
    /// Room for a window of `rows` rows below its top and `cols` columns (contents undefined).
    void reserve(int64_t rows, int64_t cols);

private:
    std::unique_ptr<int32_t[]> memory_;
    size_t capacity_ = 0;
};

/// Where a sweep puts row i's H, E, F (width() + 1 values each, indexed like WindowRow).
struct RowSlots {
    int32_t *h, *e, *f;
};

/// Computes the window row by row from `top` (columns lo - 1 .. hi) into the slots `slots(i)`
/// gives for each row i = top + 1 .. bottom, then calls `row_done(i)`. A row's slots must stay
/// intact until the next row is done (it is read for that row).
void sweep_window(const Sequence& s0, const Sequence& s1, const TracebackTerms& t, const WindowSpec& w,
                  const WindowRow& top, const std::function<RowSlots(int64_t i)>& slots,
                  const std::function<void(int64_t i)>& row_done);

/// Slots for sweep_window that reuse two rows in turn (a row reads only the one above), in
/// `buffers`, sized here for rows of `cols` columns; slots(i) stays valid until row i + 2.
inline std::function<RowSlots(int64_t)> two_row_slots(std::vector<int32_t>& buffers, size_t cols) {
    buffers.assign(6 * cols, 0);
    return [&buffers, cols](int64_t i) {
        int32_t* base = buffers.data() + (i % 2) * 3 * cols;
        return RowSlots{base, base + cols, base + 2 * cols};
    };
}

/// The whole window into `cells` (rows() + 1 rows of width() + 1 cells, 12 bytes each), the
/// values sweep_window gives, kLanes rows at a time in SIMD lanes.
void window_cells(const Sequence& s0, const Sequence& s1, const TracebackTerms& t, const WindowSpec& w,
                  const WindowRow& top, WindowCells& cells);

/// The same values as window_cells, kept only where `row(i, h, f)` is given them: each row i =
/// top + q kLanes (q >= 1, i <= bottom), with its H and F over columns lo - 1 .. hi.
void sweep_stripes(const Sequence& s0, const Sequence& s1, const TracebackTerms& t, const WindowSpec& w,
                   const WindowRow& top, const std::function<void(int64_t i, const int32_t* h, const int32_t* f)>& row);

}  // namespace chromalign
