//! @file The rows a whole-matrix EdgeGrid keeps (every band's top row, exact before any pair is
//! barred) as the rows a linear traceback starts from: the first alignment of a search is
//! traced as stage 1's would be from its special rows, windows swept by the engine, instead of
//! walking the grid's tiles (a walk computes each tile it crosses again on CPU threads).
#pragma once

#include <cstdint>
#include <map>
#include <vector>

#include "engine/declump/edge_grid.hpp"
#include "engine/traceback/row_source.hpp"

namespace chromalign {

class GridRows : public RowSource {
public:
    /// The top rows of every `every`-th band of `grid` (a whole matrix, computed, nothing
    /// barred), which must outlive this and stay unchanged. Rows far apart make few windows, each
    /// swept at once (a GPU's sweep of a window costs launches whatever its size).
    GridRows(const EdgeGrid& grid, int64_t every);

    int64_t lo() const override { return 1; }
    int64_t k() const override { return kNoMissedPaths; }
    int64_t top() const override { return 0; }
    int64_t row_above(int64_t i) const override { return (i - 1) / spacing_ * spacing_; }
    bool row_exact(int64_t) const override { return true; }
    WindowRow read(int64_t row, int64_t from, int64_t to) override;
    /// From the maxima of whole blocks of kBlock columns, each row's made once as far as asked.
    int64_t edge_term(int64_t row, int64_t to, int64_t gap) override;
    /// Over the grid's row itself: the walk's first window of a row scans up to kGuessReach
    /// spans of it (on H. pylori, some 645k columns), which a copy made as long again.
    int64_t crossing_column(int64_t row, int64_t from, const CrossingBias& bias) override;

private:
    static constexpr int64_t kBlock = 4096;
    const EdgeGrid& grid_;
    int64_t spacing_;  ///< rows between two held
    /// Per row asked: max of max(0, H) + gap c over each block of columns [b kBlock, (b + 1) kBlock).
    std::map<int64_t, std::vector<int64_t>> blocks_;
    int64_t gap_ = -1;  ///< the gap the blocks were made with
};

}  // namespace chromalign
