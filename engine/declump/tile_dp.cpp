//! @file tile_dp: the reference's recurrences, row by row, over one tile.
#include "engine/declump/tile_dp.hpp"

#include <algorithm>

namespace chromalign {

AlignmentEnd tile_dp(const Sequence& s0, const Sequence& s1, const Scoring& sc, const Rect& rect,
                     const TileEdges& edges, const std::vector<std::pair<int64_t, int64_t>>& barred,
                     const TileSink& sink) {
    const int64_t cols = rect.cols();
    const size_t width = static_cast<size_t>(cols + 1);
    const int32_t open = sc.gap_open, ext = sc.gap_extend;
    std::vector<int32_t> h_prev(edges.top_h, edges.top_h + cols + 1), f(edges.top_f, edges.top_f + cols + 1);
    std::vector<int32_t> h_cur(width);
    FullTile* full = sink.full;
    if (full) {
        // The edges here, every other cell below: the FullTile a walk's leaves reuse is not
        // filled first.
        full->rect = rect;
        const size_t cells = static_cast<size_t>(rect.rows() + 1) * width;
        full->h.resize(cells);
        full->e.resize(cells);
        full->f.resize(cells);
        std::copy(h_prev.begin(), h_prev.end(), full->h.begin());
        std::fill_n(full->e.begin(), width, kNoGap);
        full->f[0] = kNoGap;
        std::copy(f.begin() + 1, f.end(), full->f.begin() + 1);
    }
    AlignmentEnd best;
    auto bar = barred.begin();
    for (int64_t i = rect.top + 1; i <= rect.bottom; ++i) {
        const size_t r = static_cast<size_t>(i - rect.top - 1);
        const uint8_t a = s0.codes[static_cast<size_t>(i - 1)];
        int32_t score[kBaseOther + 1];  // row i's substitution scores by S1 code (0 .. kBaseOther)
        for (uint8_t b = 0; b <= kBaseOther; ++b) score[b] = sc.score(a, b);
        const uint8_t* const y = s1.codes.data() + rect.left;  // y[k - 1]: column left + k's code
        h_cur[0] = edges.left_h[r];
        int32_t e = edges.left_e[r];
        int32_t row_best = 0;
        int64_t row_best_j = 0;
        int32_t *full_h = nullptr, *full_e = nullptr, *full_f = nullptr;  // row i of the full tile
        if (full) {
            const size_t at = (r + 1) * width;
            full_h = full->h.data() + at;
            full_e = full->e.data() + at;
            full_f = full->f.data() + at;
            full_h[0] = h_cur[0];
            full_e[0] = e;
            full_f[0] = kNoGap;
        }
        // Invariant at column j: h_prev[k] = H(i-1, left+k) for all k, h_cur[k] = H(i, left+k)
        // and f[k] = F(i, left+k) for k < j - left, e = E(i, j-1).
        for (int64_t j = rect.left + 1; j <= rect.right; ++j) {
            const size_t k = static_cast<size_t>(j - rect.left);
            const bool is_barred = bar != barred.end() && bar->first == i && bar->second == j;
            bar += is_barred ? 1 : 0;
            e = std::max(e - ext, h_cur[k - 1] - open);
            f[k] = std::max(f[k] - ext, h_prev[k] - open);
            int32_t h = std::max({0, e, f[k]});
            if (!is_barred) h = std::max(h, h_prev[k - 1] + score[y[k - 1]]);
            h_cur[k] = h;
            if (h > row_best) {
                row_best = h;
                row_best_j = j;
            }
            if (full) {
                full_h[k] = h;
                full_e[k] = e;
                full_f[k] = f[k];
            }
        }
        if (row_best > best.score) best = AlignmentEnd{row_best, i, row_best_j};  // the first row keeps a tie
        if (sink.right_h) sink.right_h[r] = h_cur[static_cast<size_t>(cols)];
        if (sink.right_e) sink.right_e[r] = e;
        std::swap(h_prev, h_cur);
    }
    if (sink.bottom_h) std::copy(h_prev.begin() + 1, h_prev.end(), sink.bottom_h);
    if (sink.bottom_f) std::copy(f.begin() + 1, f.end(), sink.bottom_f);
    return best;
}

std::vector<std::pair<int64_t, int64_t>> barred_in(const std::vector<std::pair<int64_t, int64_t>>& barred,
                                                   const Rect& rect) {
    std::vector<std::pair<int64_t, int64_t>> in;
    for (auto it = std::lower_bound(barred.begin(), barred.end(), std::make_pair(rect.top + 1, int64_t{0}));
         it != barred.end() && it->first <= rect.bottom; ++it)
        if (it->second > rect.left && it->second <= rect.right) in.push_back(*it);
    return in;
}

}  // namespace chromalign
