//! @file EdgeGrid: tiles computed from the edges kept between them.
#include "engine/declump/edge_grid.hpp"

#include <algorithm>
#include <cstddef>

namespace chromalign {

EdgeGrid::EdgeGrid(const Sequence& s0, const Sequence& s1, const Scoring& scoring, const Rect& area,
                   int64_t tile_rows, int64_t tile_cols, std::vector<int32_t> top_h, std::vector<int32_t> top_f,
                   std::vector<int32_t> left_h, std::vector<int32_t> left_e)
    : s0_(s0), s1_(s1), scoring_(scoring), area_(area), tile_rows_(tile_rows), tile_cols_(tile_cols),
      bands_((area.rows() + tile_rows - 1) / tile_rows), tile_columns_((area.cols() + tile_cols - 1) / tile_cols) {
    const size_t width = static_cast<size_t>(area.cols() + 1), height = static_cast<size_t>(area.rows());
    row_h_.assign(static_cast<size_t>(bands_), std::vector<int32_t>(width, 0));
    row_f_.assign(static_cast<size_t>(bands_), std::vector<int32_t>(width, kNoGap));
    col_h_.assign(static_cast<size_t>(tile_columns_), std::vector<int32_t>(height, 0));
    col_e_.assign(static_cast<size_t>(tile_columns_), std::vector<int32_t>(height, kNoGap));
    if (bands_ == 0 || tile_columns_ == 0) return;
    row_h_[0] = std::move(top_h);
    row_f_[0] = std::move(top_f);
    col_h_[0] = std::move(left_h);
    col_e_[0] = std::move(left_e);
    // Column area.left of every band's top row is the left edge's (its F is never read).
    for (int64_t b = 1; b < bands_; ++b) row_h_[static_cast<size_t>(b)][0] = col_h_[0][static_cast<size_t>(b * tile_rows_ - 1)];
    best_.assign(static_cast<size_t>(bands_ * tile_columns_), AlignmentEnd{});
}

EdgeGrid EdgeGrid::whole(const Sequence& s0, const Sequence& s1, const Scoring& scoring, int64_t tile_rows,
                         int64_t tile_cols) {
    const int64_t m = s0.length(), n = s1.length();
    return EdgeGrid(s0, s1, scoring, Rect{0, m, 0, n}, tile_rows, tile_cols, std::vector<int32_t>(static_cast<size_t>(n + 1), 0),
                    std::vector<int32_t>(static_cast<size_t>(n + 1), kNoGap), std::vector<int32_t>(static_cast<size_t>(m), 0),
                    std::vector<int32_t>(static_cast<size_t>(m), kNoGap));
}

Rect EdgeGrid::tile_rect(const Tile& t) const {
    const int64_t top = area_.top + t.first * tile_rows_, left = area_.left + t.second * tile_cols_;
    return Rect{top, std::min(top + tile_rows_, area_.bottom), left, std::min(left + tile_cols_, area_.right)};
}

EdgeGrid::Tile EdgeGrid::tile_of(int64_t i, int64_t j) const {
    return {(i - area_.top - 1) / tile_rows_, (j - area_.left - 1) / tile_cols_};
}

TileEdges EdgeGrid::edges(const Tile& t) const {
    const Rect r = tile_rect(t);
    const size_t b = static_cast<size_t>(t.first), c = static_cast<size_t>(t.second);
    const size_t col0 = static_cast<size_t>(r.left - area_.left), row0 = static_cast<size_t>(r.top - area_.top);
    return TileEdges{row_h_[b].data() + col0, row_f_[b].data() + col0, col_h_[c].data() + row0, col_e_[c].data() + row0};
}

EdgeGrid::Changed EdgeGrid::compute_tile(const Tile& t, const BarredPairs& barred) {
    const Rect r = tile_rect(t);
    const size_t b = static_cast<size_t>(t.first), c = static_cast<size_t>(t.second);
    const bool has_below = t.first + 1 < bands_, has_right = t.second + 1 < tile_columns_;
    std::vector<int32_t> bottom_h(static_cast<size_t>(r.cols())), bottom_f(bottom_h.size());
    std::vector<int32_t> right_h(static_cast<size_t>(r.rows())), right_e(right_h.size());
    TileSink sink;
    if (has_below) sink.bottom_h = bottom_h.data(), sink.bottom_f = bottom_f.data();
    if (has_right) sink.right_h = right_h.data(), sink.right_e = right_e.data();
    best_[b * static_cast<size_t>(tile_columns_) + c] =
        tile_dp(s0_, s1_, scoring_, r, edges(t), barred.in(r.top, r.bottom, r.left, r.right), sink);
    cells_computed_ += r.rows() * r.cols();
    Changed changed;
    if (has_below) {
        const size_t at = static_cast<size_t>(r.left - area_.left) + 1;
        std::vector<int32_t>& h = row_h_[b + 1];
        std::vector<int32_t>& f = row_f_[b + 1];
        changed.bottom = !std::equal(bottom_h.begin(), bottom_h.end(), h.begin() + static_cast<std::ptrdiff_t>(at)) ||
                         !std::equal(bottom_f.begin(), bottom_f.end(), f.begin() + static_cast<std::ptrdiff_t>(at));
        changed.corner = bottom_h.back() != h[at + bottom_h.size() - 1];
        std::copy(bottom_h.begin(), bottom_h.end(), h.begin() + static_cast<std::ptrdiff_t>(at));
        std::copy(bottom_f.begin(), bottom_f.end(), f.begin() + static_cast<std::ptrdiff_t>(at));
    }
    if (has_right) {
        const size_t at = static_cast<size_t>(r.top - area_.top);
        std::vector<int32_t>& h = col_h_[c + 1];
        std::vector<int32_t>& e = col_e_[c + 1];
        changed.right = !std::equal(right_h.begin(), right_h.end(), h.begin() + static_cast<std::ptrdiff_t>(at)) ||
                        !std::equal(right_e.begin(), right_e.end(), e.begin() + static_cast<std::ptrdiff_t>(at));
        std::copy(right_h.begin(), right_h.end(), h.begin() + static_cast<std::ptrdiff_t>(at));
        std::copy(right_e.begin(), right_e.end(), e.begin() + static_cast<std::ptrdiff_t>(at));
    }
    return changed;
}

void EdgeGrid::compute(const BarredPairs& barred) {
    for (int64_t b = 0; b < bands_; ++b)
        for (int64_t c = 0; c < tile_columns_; ++c) compute_tile({b, c}, barred);
}

int64_t EdgeGrid::recompute(const BarredPairs& barred, std::set<Tile> dirty) {
    int64_t tiles = 0;
    while (!dirty.empty()) {
        const Tile t = *dirty.begin();
        dirty.erase(dirty.begin());
        const Changed changed = compute_tile(t, barred);
        ++tiles;
        if (changed.bottom) dirty.insert({t.first + 1, t.second});
        if (changed.right) dirty.insert({t.first, t.second + 1});
        if (changed.corner && t.second + 1 < tile_columns_) dirty.insert({t.first + 1, t.second + 1});
    }
    return tiles;
}

AlignmentEnd EdgeGrid::best() const {
    AlignmentEnd best;
    for (const AlignmentEnd& e : best_)
        if (e.score > 0 && better_end(e, best)) best = e;
    return best;
}

}  // namespace chromalign
