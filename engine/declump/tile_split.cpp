//! @file tile_dp_split: sub-tiles in dependency order on a few threads.
#include "engine/declump/tile_split.hpp"

#include <algorithm>

#include "engine/declump/dependency_order.hpp"
#include "engine/declump/tile_lanes.hpp"
#include "engine/error.hpp"

namespace chromalign {

AlignmentEnd tile_dp_split(const Sequence& s0, const Sequence& s1, const Scoring& scoring, const Rect& rect,
                           const TileEdges& edges, const std::vector<std::pair<int64_t, int64_t>>& barred,
                           const TileSink& sink, int64_t split, int threads) {
    if (sink.full) throw Error("internal: tile_dp_split keeps no full tile");
    const int64_t rows = rect.rows(), cols = rect.cols();
    const int64_t kr = std::max<int64_t>(1, std::min(split, rows)), kc = std::max<int64_t>(1, std::min(split, cols));
    const auto row_of = [&](int64_t a) { return rows * a / kr; };  // sub-band a: tile rows row_of(a) + 1 .. row_of(a + 1)
    const auto col_of = [&](int64_t b) { return cols * b / kc; };
    // Row a: H and F of tile row row_of(a) over column indices 0 .. cols (a = 0: the top edge,
    // a = kr: the bottom); column b: H and E of tile column col_of(b) over rows 1 .. rows.
    std::vector<std::vector<int32_t>> row_h(static_cast<size_t>(kr + 1)), row_f(row_h.size());
    std::vector<std::vector<int32_t>> col_h(static_cast<size_t>(kc + 1)), col_e(col_h.size());
    row_h[0].assign(edges.top_h, edges.top_h + cols + 1);
    row_f[0].assign(edges.top_f, edges.top_f + cols + 1);
    for (int64_t a = 1; a <= kr; ++a) {
        row_h[static_cast<size_t>(a)].assign(static_cast<size_t>(cols + 1), 0);
        row_f[static_cast<size_t>(a)].assign(static_cast<size_t>(cols + 1), kNoGap);
        row_h[static_cast<size_t>(a)][0] = edges.left_h[row_of(a) - 1];  // the corners on the left edge
    }
    col_h[0].assign(edges.left_h, edges.left_h + rows);
    col_e[0].assign(edges.left_e, edges.left_e + rows);
    for (int64_t b = 1; b <= kc; ++b) {
        col_h[static_cast<size_t>(b)].assign(static_cast<size_t>(rows), 0);
        col_e[static_cast<size_t>(b)].assign(static_cast<size_t>(rows), kNoGap);
    }
    std::vector<AlignmentEnd> bests(static_cast<size_t>(kr * kc));
    // Sub-tile (a, b) writes its bottom into row a + 1 and its right into column b + 1, which
    // only (a + 1, b) and (a, b + 1) read, after it: no two running sub-tiles share a value.
    const auto compute = [&](int64_t a, int64_t b) {
        const Rect r{rect.top + row_of(a), rect.top + row_of(a + 1), rect.left + col_of(b), rect.left + col_of(b + 1)};
        const size_t c0 = static_cast<size_t>(col_of(b)), r0 = static_cast<size_t>(row_of(a));
        const TileEdges e{row_h[static_cast<size_t>(a)].data() + c0, row_f[static_cast<size_t>(a)].data() + c0,
                          col_h[static_cast<size_t>(b)].data() + r0, col_e[static_cast<size_t>(b)].data() + r0};
        const std::vector<std::pair<int64_t, int64_t>> bars = barred_in(barred, r);
        const TileSink out{row_h[static_cast<size_t>(a + 1)].data() + c0 + 1, row_f[static_cast<size_t>(a + 1)].data() + c0 + 1,
                           col_h[static_cast<size_t>(b + 1)].data() + r0, col_e[static_cast<size_t>(b + 1)].data() + r0,
                           nullptr};
        bests[static_cast<size_t>(a * kc + b)] = tile_dp_lanes(s0, s1, scoring, r, e, bars, out);
    };
    run_in_dependency_order(kr, kc, threads, compute);
    if (sink.bottom_h) std::copy(row_h.back().begin() + 1, row_h.back().end(), sink.bottom_h);
    if (sink.bottom_f) std::copy(row_f.back().begin() + 1, row_f.back().end(), sink.bottom_f);
    if (sink.right_h) std::copy(col_h.back().begin(), col_h.back().end(), sink.right_h);
    if (sink.right_e) std::copy(col_e.back().begin(), col_e.back().end(), sink.right_e);
    AlignmentEnd best;
    for (const AlignmentEnd& e : bests)
        if (e.score > 0 && better_end(e, best)) best = e;
    return best;
}

}  // namespace chromalign
