//! @file Rows of the DP matrix that the traceback cuts windows from: stage 1's special rows,
//! the rows a window sweep keeps in memory, or row 0 alone.
#pragma once

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <vector>

#include "engine/traceback/window.hpp"

namespace chromalign {

/// Where a path into cell (i, j) likely crossed row i - a: the column c of the row where
/// H(i - a, c) - ext |a - b| is largest (b = j - c; the rightmost of equals), as if the path
/// were diagonal but for one gap. A plain peak of H misleads below a long gap (a skipped
/// rearrangement): there the path's H is lower by the gap's cost than the H where the gap
/// opened, far left, for many rows. Here those columns pay ext for each column of the gap, as
/// the path did. Near the path, a cell its gap-continuation reaches is lower by the gap's
/// cost, which this bias pays back but for open - ext: the path's column stays the largest.
/// (A bias of M min(a, b) - ext |a - b|, the most such a path scores, made the columns
/// between the path and the diagonal as good as the path's where the path lies right of it.)
struct CrossingBias {
    int64_t ext = 0;  ///< the cost of a long gap's column (0: the plain peak)
    int64_t a = 0;    ///< rows from the row to cell (i, j)
    int64_t j = 0;    ///< the column of the cell: candidates lie in [.., j]

    int64_t at(int64_t c) const { return -ext * std::abs(a - (j - c)); }
    /// The largest bias over columns [x, y] (x <= y <= j): it rises up to column j - a and falls after.
    int64_t most(int64_t x, int64_t y) const { return at(std::clamp(j - a, x, y)); }
};

/// A set of rows known over columns lo() - 1 .. hi() (column lo() - 1 is an edge: the matrix's
/// column 0, or a window's fresh edge), with the bound k() of the paths those values miss.
class RowSource {
public:
    virtual ~RowSource() = default;
    virtual int64_t lo() const = 0;
    virtual int64_t k() const = 0;
    virtual int64_t top() const = 0;  ///< the first row held
    /// The last row held that is above row i (i > top()).
    virtual int64_t row_above(int64_t i) const = 0;
    /// Whether `row` holds true values (a row of stage 1), not lower bounds.
    virtual bool row_exact(int64_t row) const = 0;
    /// H and F of `row` over columns from - 1 .. to (from >= lo()), column from - 1 first.
    virtual WindowRow read(int64_t row, int64_t from, int64_t to) = 0;
    /// The largest max(0, H(row, c)) + gap * c over c in [lo() - 1, to], H at lo() - 1 counting 0:
    /// what a window cut at column to + 1 adds to its bound (window.hpp).
    virtual int64_t edge_term(int64_t row, int64_t to, int64_t gap) = 0;
    /// The leftmost column c in [lo() - 1, to] where edge_term(row, c, gap) reaches `least`, or
    /// to + 1 if none: a window cut from `row` must start there or further left for its bound
    /// to stay below `least` (window.hpp). A binary search over edge_term.
    int64_t edge_reach(int64_t row, int64_t to, int64_t least, int64_t gap);
    /// Where the optimal path into cell (row + bias.a, bias.j) likely crosses `row`
    /// (CrossingBias), over columns [from, bias.j] (lo() <= from <= bias.j).
    virtual int64_t crossing_column(int64_t row, int64_t from, const CrossingBias& bias);
};

/// The column of [from, to] that CrossingBias picks, h[c - from] holding column c's H.
int64_t best_crossing(const int32_t* h, int64_t from, int64_t to, const CrossingBias& bias);

/// What column c of a row adds to a window's bound (window.hpp): max(0, H) + gap * c.
inline int64_t edge_value(int64_t h, int64_t c, int64_t gap) { return (h > 0 ? h : 0) + gap * c; }

/// Row 0 over columns from - 1 .. to: H = 0, F = -inf.
WindowRow first_row(int64_t from, int64_t to);

/// Row 0 alone (H = 0, F = -inf): the traceback with no special rows.
class FirstRowOnly : public RowSource {
public:
    int64_t lo() const override { return 1; }
    int64_t k() const override { return kNoMissedPaths; }
    int64_t top() const override { return 0; }
    int64_t row_above(int64_t) const override { return 0; }
    bool row_exact(int64_t) const override { return true; }
    WindowRow read(int64_t, int64_t from, int64_t to) override { return first_row(from, to); }
    int64_t edge_term(int64_t, int64_t to, int64_t gap) override { return edge_value(0, to, gap); }
};

/// Rows a sweep of one window kept in memory, its top row first.
class KeptRows : public RowSource {
public:
    KeptRows(const WindowSpec& window, WindowRow top) : w_(window) { rows_.push_back(std::move(top)); }
    void keep(WindowRow row) { rows_.push_back(std::move(row)); }
    const WindowRow& top_row() const { return rows_.front(); }

    int64_t lo() const override { return w_.lo; }
    int64_t k() const override { return w_.k; }
    int64_t top() const override { return w_.top; }
    int64_t row_above(int64_t i) const override;
    bool row_exact(int64_t row) const override { return row == w_.top && w_.top_exact; }
    WindowRow read(int64_t row, int64_t from, int64_t to) override;
    int64_t edge_term(int64_t row, int64_t to, int64_t gap) override;

private:
    const WindowRow& find(int64_t row) const;
    WindowSpec w_;
    std::vector<WindowRow> rows_;  ///< increasing rows
};

}  // namespace chromalign
