//! @file tile_dp_lanes: stripes of 8 rows in SIMD lanes.
#include "engine/declump/tile_lanes.hpp"

#include <algorithm>
#include <cstring>

#include "engine/error.hpp"

namespace chromalign {
namespace {

constexpr int kLanes = 8;
using Lanes = int32_t __attribute__((vector_size(kLanes * sizeof(int32_t))));

/// What one stripe reads and writes; rows r0 .. r0 + rows - 1 of the tile (1 <= rows <= kLanes).
struct Stripe {
    const Lanes* profile;  ///< [5]: s(a_q, code) per lane q
    const uint8_t* b;      ///< b[k - 1]: the S1 base of column index k
    int64_t cols;          ///< column indices 0 .. cols - 1 (0: the left edge)
    int rows;
    int32_t open, ext;
    const int32_t* above_h;  ///< the row above: H, F per column index, padded to cols + kLanes
    const int32_t* above_f;
    const int32_t* left_h;   ///< the left edge of the stripe's rows
    const int32_t* left_e;
    const std::pair<int64_t, int>* bars;  ///< (step, lane) of its barred cells, by step
    size_t bar_count;
    int32_t* below_h;  ///< its last row's H and F per column index (index 0 left as is)
    int32_t* below_f;
    int32_t* right_h;  ///< its rows' H and E at the last column index, or null
    int32_t* right_e;
};

/// One stripe, diagonal by diagonal: at step t lane q computes column index k = t - q of its row.
/// Invariant before step t: hp1, ep1, fp1 hold each lane's H, E, F of step t - 1 (column k - 1),
/// hp2 its H of step t - 2; lane q - 1's are the cells above and above-left of lane q's, and lane
/// 0 takes them from the row above. Lane q at step q is forced to the left edge. Cells left of
/// the edge, right of the tile or below it are computed but never read nor counted. Returns the
/// best cell (H > 0) of the stripe by the tie rule as (H, row lane, column index).
__attribute__((target_clones("avx2", "default"))) void run_stripe(const Stripe& s, int32_t& best_h, int& best_q,
                                                                  int64_t& best_k) {
    const Lanes zero = {}, neg = zero + kNoGap, shift = {kLanes, 0, 1, 2, 3, 4, 5, 6};
    const Lanes lane = {0, 1, 2, 3, 4, 5, 6, 7};
    Lanes hp1 = zero, hp2 = zero, ep1 = neg, fp1 = neg, codes = zero + 4;
    Lanes top = zero, top_t = zero;  // each lane's best H (valid cells only) and the step it came at
    const int64_t steps = s.cols + kLanes - 1, last = s.rows - 1;
    size_t bar = 0;
    for (int64_t t = 0; t < steps; ++t) {
        codes = __builtin_shuffle(codes, Lanes{t >= 1 && t < s.cols ? s.b[t - 1] : 4}, shift);
        const Lanes up_h = __builtin_shuffle(hp1, Lanes{s.above_h[t]}, shift);
        const Lanes up_f = __builtin_shuffle(fp1, Lanes{s.above_f[t]}, shift);
        const Lanes diag = __builtin_shuffle(hp2, Lanes{t >= 1 ? s.above_h[t - 1] : 0}, shift);
        Lanes sub = s.profile[4];
        for (int c = 0; c < 4; ++c) sub = codes == c ? s.profile[c] : sub;
        const Lanes e_ext = ep1 - s.ext, e_open = hp1 - s.open, f_ext = up_f - s.ext, f_open = up_h - s.open;
        Lanes e = e_ext > e_open ? e_ext : e_open;
        Lanes f = f_ext > f_open ? f_ext : f_open;
        Lanes d = diag + sub;
        for (; bar < s.bar_count && s.bars[bar].first == t; ++bar) d[s.bars[bar].second] = kNoGap;
        const Lanes ef = e > f ? e : f, d0 = d > zero ? d : zero;
        Lanes h = d0 > ef ? d0 : ef;
        if (t < kLanes) {
            h[t] = t <= last ? s.left_h[t] : 0;
            e[t] = t <= last ? s.left_e[t] : kNoGap;
            f[t] = kNoGap;
        }
        const Lanes k = static_cast<int32_t>(t) - lane;
        const Lanes better = (k >= 1) & (k < static_cast<int32_t>(s.cols)) & (lane <= static_cast<int32_t>(last)) & (h > top);
        top = better ? h : top;
        top_t = better ? zero + static_cast<int32_t>(t) : top_t;
        const int64_t right = t - (s.cols - 1);  // the lane at the last column index
        if (s.right_h && right >= 0 && right <= last) {
            s.right_h[right] = h[right];
            s.right_e[right] = e[right];
        }
        const int64_t below = t - last;
        if (below >= 1 && below < s.cols) {
            s.below_h[below] = h[last];
            s.below_f[below] = f[last];
        }
        hp2 = hp1;
        hp1 = h;
        ep1 = e;
        fp1 = f;
    }
    best_h = 0;
    for (int q = 0; q <= last; ++q)  // an earlier row keeps a tie, as an earlier column did in top_t
        if (top[q] > best_h) {
            best_h = top[q];
            best_q = q;
            best_k = top_t[q] - q;
        }
}

}  // namespace

AlignmentEnd tile_dp_lanes(const Sequence& s0, const Sequence& s1, const Scoring& sc, const Rect& rect,
                           const TileEdges& edges, const std::vector<std::pair<int64_t, int64_t>>& barred,
                           const TileSink& sink) {
    if (sink.full) throw Error("internal: tile_dp_lanes keeps no full tile");
    const int64_t cols = rect.cols() + 1;
    if (cols + kLanes > INT32_MAX) throw Error("internal: a tile too wide for tile_dp_lanes");
    std::vector<int32_t> rows(static_cast<size_t>(4 * (cols + kLanes)), 0);
    int32_t* above_h = rows.data();
    int32_t* above_f = above_h + cols + kLanes;
    int32_t* below_h = above_f + cols + kLanes;
    int32_t* below_f = below_h + cols + kLanes;
    std::copy(edges.top_h, edges.top_h + cols, above_h);
    std::copy(edges.top_f, edges.top_f + cols, above_f);
    std::fill(above_f + cols, above_f + cols + kLanes, kNoGap);
    std::fill(below_f + cols, below_f + cols + kLanes, kNoGap);
    AlignmentEnd best;
    auto bar = barred.begin();
    std::vector<std::pair<int64_t, int>> stripe_bars;
    for (int64_t r0 = 0; r0 < rect.rows(); r0 += kLanes) {
        const int rows_here = static_cast<int>(std::min<int64_t>(kLanes, rect.rows() - r0));
        Lanes profile[5];
        for (int q = 0; q < kLanes; ++q) {
            const uint8_t a = q < rows_here ? s0.codes[static_cast<size_t>(rect.top + r0 + q)] : 4;
            for (int code = 0; code < 5; ++code) profile[code][q] = sc.score(a, static_cast<uint8_t>(code));
        }
        stripe_bars.clear();
        for (; bar != barred.end() && bar->first <= rect.top + r0 + rows_here; ++bar) {
            const int q = static_cast<int>(bar->first - (rect.top + r0 + 1));
            stripe_bars.emplace_back(bar->second - rect.left + q, q);
        }
        std::sort(stripe_bars.begin(), stripe_bars.end());
        below_h[0] = edges.left_h[r0 + rows_here - 1];  // the left edge of the stripe's last row
        below_f[0] = kNoGap;
        Stripe s{profile, s1.codes.data() + rect.left, cols, rows_here, sc.gap_open, sc.gap_extend, above_h, above_f,
                 edges.left_h + r0, edges.left_e + r0, stripe_bars.data(), stripe_bars.size(), below_h, below_f,
                 sink.right_h ? sink.right_h + r0 : nullptr, sink.right_e ? sink.right_e + r0 : nullptr};
        int32_t h = 0;
        int q = 0;
        int64_t k = 0;
        run_stripe(s, h, q, k);
        if (h > best.score) best = AlignmentEnd{h, rect.top + r0 + q + 1, rect.left + k};
        std::swap(above_h, below_h);
        std::swap(above_f, below_f);
    }
    if (sink.bottom_h) std::copy(above_h + 1, above_h + cols, sink.bottom_h);
    if (sink.bottom_f) std::copy(above_f + 1, above_f + cols, sink.bottom_f);
    return best;
}

}  // namespace chromalign
