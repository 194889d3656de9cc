//! @file EdgeGrid: tiles computed from the edges kept between them.
#include "engine/declump/edge_grid.hpp"

#include <algorithm>
#include <atomic>
#include <cstddef>
#include <exception>
#include <map>
#include <string>
#include <thread>

#include "engine/declump/tile_lanes.hpp"
#include "engine/error.hpp"

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
        tile_dp_lanes(s0_, s1_, scoring_, r, edges(t), barred.in(r.top, r.bottom, r.left, r.right), sink);
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

void EdgeGrid::set_threads(int threads, int64_t cells_per_thread) {
    threads_ = threads > 0 ? threads : std::max(1, static_cast<int>(std::thread::hardware_concurrency()));
    cells_per_thread_ = std::max<int64_t>(1, cells_per_thread);
}

std::vector<EdgeGrid::Changed> EdgeGrid::compute_wave(const std::vector<Tile>& tiles, const BarredPairs& barred) {
    // Tiles of one antidiagonal read and write disjoint parts of the edges (each writes the
    // top row of its band's next band and the left column of its next column of tiles only
    // over its own columns and rows).
    if (stop_ && *stop_ != 0)
        throw Interrupted(*stop_, "interrupted by signal " + std::to_string(*stop_) +
                                      " while searching for more alignments");
    std::vector<Changed> changed(tiles.size());
    std::atomic<size_t> next{0};
    std::exception_ptr failure;
    std::atomic<bool> failed{false};
    auto work = [&] {
        for (size_t k; !failed && (k = next++) < tiles.size();) {
            try {
                changed[k] = compute_tile(tiles[k], barred);
            } catch (...) {
                if (!failed.exchange(true)) failure = std::current_exception();
            }
        }
    };
    int64_t cells = 0;
    for (const Tile& t : tiles) cells += tile_rect(t).rows() * tile_rect(t).cols();
    const size_t workers = std::min({tiles.size(), static_cast<size_t>(threads_),
                                     static_cast<size_t>(1 + cells / cells_per_thread_)});
    std::vector<std::thread> helpers;
    for (size_t w = 1; w < workers; ++w) helpers.emplace_back(work);
    work();
    for (std::thread& h : helpers) h.join();
    if (failure) std::rethrow_exception(failure);
    cells_computed_ += cells;
    return changed;
}

void EdgeGrid::compute(const BarredPairs& barred) {
    for (int64_t d = 0; d + 1 < bands_ + tile_columns_; ++d) {
        std::vector<Tile> wave;
        for (int64_t b = std::max<int64_t>(0, d - tile_columns_ + 1); b <= std::min(d, bands_ - 1); ++b) wave.emplace_back(b, d - b);
        compute_wave(wave, barred);
    }
}

int64_t EdgeGrid::recompute(const BarredPairs& barred, const std::set<Tile>& dirty) {
    std::map<int64_t, std::set<Tile>> waves;  // by antidiagonal: a tile feeds only later ones
    for (const Tile& t : dirty) waves[t.first + t.second].insert(t);
    int64_t tiles = 0;
    while (!waves.empty()) {
        const std::vector<Tile> wave(waves.begin()->second.begin(), waves.begin()->second.end());
        waves.erase(waves.begin());
        const std::vector<Changed> changed = compute_wave(wave, barred);
        tiles += static_cast<int64_t>(wave.size());
        for (size_t k = 0; k < wave.size(); ++k) {
            const Tile& t = wave[k];
            const int64_t d = t.first + t.second;
            if (changed[k].bottom) waves[d + 1].insert({t.first + 1, t.second});
            if (changed[k].right) waves[d + 1].insert({t.first, t.second + 1});
            if (changed[k].corner && t.second + 1 < tile_columns_) waves[d + 2].insert({t.first + 1, t.second + 1});
        }
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
