//! @file GridRows: an EdgeGrid's band tops as a traceback's rows.
#include "engine/declump/grid_rows.hpp"

#include <algorithm>
#include <string>

#include "engine/error.hpp"

namespace chromalign {

GridRows::GridRows(const EdgeGrid& grid, int64_t every) : grid_(grid), spacing_(grid.tile_rows() * every) {
    const Rect& a = grid.area();
    if (a.top != 0 || a.left != 0 || every < 1)
        throw Error("internal: a traceback's rows from a grid that is not a whole matrix, or every " + std::to_string(every));
}

WindowRow GridRows::read(int64_t row, int64_t from, int64_t to) {
    const int64_t band = row / grid_.tile_rows();
    const int32_t* h = grid_.band_top_h(band);
    const int32_t* f = grid_.band_top_f(band);
    WindowRow r;
    r.row = row;
    // Index c of a band's top row is column c; column 0 holds H = 0 and F = -inf as row 0 does.
    r.h.assign(h + (from - 1), h + (to + 1));
    r.f.assign(f + (from - 1), f + (to + 1));
    return r;
}

int64_t GridRows::crossing_column(int64_t row, int64_t from, const CrossingBias& bias) {
    // Index c of a band's top row is column c.
    return best_crossing(grid_.band_top_h(row / grid_.tile_rows()) + from, from, bias.j, bias);
}

int64_t GridRows::edge_term(int64_t row, int64_t to, int64_t gap) {
    if (gap_ != gap) {
        blocks_.clear();
        gap_ = gap;
    }
    const int32_t* h = grid_.band_top_h(row / grid_.tile_rows());
    std::vector<int64_t>& blocks = blocks_[row];
    const int64_t whole = (to + 1) / kBlock;  // blocks wholly in columns 0 .. to
    for (int64_t b = static_cast<int64_t>(blocks.size()); b < whole; ++b) {
        int64_t most = 0;
        for (int64_t c = b * kBlock; c < (b + 1) * kBlock; ++c) most = std::max(most, edge_value(h[c], c, gap));
        blocks.push_back(most);
    }
    int64_t best = 0;  // column 0: H = 0
    for (int64_t b = 0; b < whole; ++b) best = std::max(best, blocks[static_cast<size_t>(b)]);
    for (int64_t c = whole * kBlock; c <= to; ++c) best = std::max(best, edge_value(h[c], c, gap));
    return best;
}

}  // namespace chromalign
