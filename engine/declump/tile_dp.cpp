//! @file tile_dp: the reference's recurrences, row by row, over one tile.
#include "engine/declump/tile_dp.hpp"

#include <algorithm>

namespace chromalign {

AlignmentEnd tile_dp(const Sequence& s0, const Sequence& s1, const Scoring& sc, const Rect& rect,
                     const TileEdges& edges, const std::vector<std::pair<int64_t, int64_t>>& barred,
                     const TileSink& sink) {
    const int64_t cols = rect.cols();
    const int32_t open = sc.gap_open, ext = sc.gap_extend;
    std::vector<int32_t> h_prev(edges.top_h, edges.top_h + cols + 1), f(edges.top_f, edges.top_f + cols + 1);
    std::vector<int32_t> h_cur(static_cast<size_t>(cols + 1));
    FullTile* full = sink.full;
    if (full) {
        full->rect = rect;
        const size_t cells = static_cast<size_t>((rect.rows() + 1) * (cols + 1));
        full->h.assign(cells, 0);
        full->e.assign(cells, kNoGap);
        full->f.assign(cells, kNoGap);
        std::copy(h_prev.begin(), h_prev.end(), full->h.begin());
        std::copy(f.begin() + 1, f.end(), full->f.begin() + 1);
    }
    AlignmentEnd best;
    auto bar = barred.begin();
    for (int64_t i = rect.top + 1; i <= rect.bottom; ++i) {
        const size_t r = static_cast<size_t>(i - rect.top - 1);
        const uint8_t a = s0.codes[static_cast<size_t>(i - 1)];
        h_cur[0] = edges.left_h[r];
        int32_t e = edges.left_e[r];
        int32_t row_best = 0;
        int64_t row_best_j = 0;
        // Invariant at column j: h_prev[k] = H(i-1, left+k) for all k, h_cur[k] = H(i, left+k)
        // and f[k] = F(i, left+k) for k < j - left, e = E(i, j-1).
        for (int64_t j = rect.left + 1; j <= rect.right; ++j) {
            const size_t k = static_cast<size_t>(j - rect.left);
            const bool is_barred = bar != barred.end() && bar->first == i && bar->second == j;
            bar += is_barred ? 1 : 0;
            e = std::max(e - ext, h_cur[k - 1] - open);
            f[k] = std::max(f[k] - ext, h_prev[k] - open);
            int32_t h = std::max({0, e, f[k]});
            if (!is_barred) h = std::max(h, h_prev[k - 1] + sc.score(a, s1.codes[static_cast<size_t>(j - 1)]));
            h_cur[k] = h;
            if (h > row_best) {
                row_best = h;
                row_best_j = j;
            }
            if (full) {
                const size_t at = full->at(i, j);
                full->h[at] = h;
                full->e[at] = e;
                full->f[at] = f[k];
            }
        }
        if (full) {
            const size_t at = full->at(i, rect.left);
            full->h[at] = h_cur[0];
            full->e[at] = edges.left_e[r];
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

}  // namespace chromalign
