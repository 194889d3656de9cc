//! @file expected_whole_pass: Gotoh's three matrices in full, then sampled at the tiles' edges.
#include "tests/whole_pass_support.hpp"

#include <algorithm>

namespace chromalign::test {

PassVectors::PassVectors(int64_t m, int64_t n, int64_t tile_rows, int64_t tile_cols) {
    const int64_t bands = (m + tile_rows - 1) / tile_rows, columns = (n + tile_cols - 1) / tile_cols;
    row_h.assign(static_cast<size_t>(bands), std::vector<int32_t>(static_cast<size_t>(n + 1), 0));
    row_f.assign(static_cast<size_t>(bands), std::vector<int32_t>(static_cast<size_t>(n + 1), kNoGap));
    col_h.assign(static_cast<size_t>(columns), std::vector<int32_t>(static_cast<size_t>(m), 0));
    col_e.assign(static_cast<size_t>(columns), std::vector<int32_t>(static_cast<size_t>(m), kNoGap));
    pass = WholePass{tile_rows, tile_cols, &row_h, &row_f, &col_h, &col_e, &peaks, 0};
}

void expected_whole_pass(const Sequence& s0, const Sequence& s1, const Scoring& scoring, WholePass& out) {
    if (out.meanwhile) out.meanwhile();  // as a device's pass runs it, before its edges come home
    const int64_t m = s0.length(), n = s1.length(), w = n + 1;
    if (out.on_cells) {  // as a device tells after each launch, its last one counting every cell
        out.on_cells(m * n / 2);
        out.on_cells(m * n);
    }
    std::vector<int32_t> h(static_cast<size_t>((m + 1) * w), 0), e(h.size(), kNoGap), f(h.size(), kNoGap);
    const auto at = [w](int64_t i, int64_t j) { return static_cast<size_t>(i * w + j); };
    for (int64_t i = 1; i <= m; ++i)
        for (int64_t j = 1; j <= n; ++j) {
            e[at(i, j)] = std::max(e[at(i, j - 1)] - scoring.gap_extend, h[at(i, j - 1)] - scoring.gap_open);
            f[at(i, j)] = std::max(f[at(i - 1, j)] - scoring.gap_extend, h[at(i - 1, j)] - scoring.gap_open);
            const int32_t diag = h[at(i - 1, j - 1)] + scoring.score(s0.codes[static_cast<size_t>(i - 1)],
                                                                      s1.codes[static_cast<size_t>(j - 1)]);
            h[at(i, j)] = std::max({0, diag, e[at(i, j)], f[at(i, j)]});
        }
    const int64_t tr = out.tile_rows, tc = out.tile_cols;
    const int64_t bands = (m + tr - 1) / tr, columns = (n + tc - 1) / tc;
    for (int64_t b = 1; b < bands; ++b)
        for (int64_t j = 1; j <= n; ++j) {
            (*out.row_h)[static_cast<size_t>(b)][static_cast<size_t>(j)] = h[at(b * tr, j)];
            (*out.row_f)[static_cast<size_t>(b)][static_cast<size_t>(j)] = f[at(b * tr, j)];
        }
    for (int64_t c = 1; c < columns; ++c)
        for (int64_t i = 1; i <= m; ++i) {
            (*out.col_h)[static_cast<size_t>(c)][static_cast<size_t>(i - 1)] = h[at(i, c * tc)];
            (*out.col_e)[static_cast<size_t>(c)][static_cast<size_t>(i - 1)] = e[at(i, c * tc)];
        }
    out.peaks->assign(static_cast<size_t>(bands * columns), 0);
    for (int64_t i = 1; i <= m; ++i)
        for (int64_t j = 1; j <= n; ++j) {
            int32_t& peak = (*out.peaks)[static_cast<size_t>((i - 1) / tr * columns + (j - 1) / tc)];
            peak = std::max(peak, h[at(i, j)]);
        }
}

}  // namespace chromalign::test
