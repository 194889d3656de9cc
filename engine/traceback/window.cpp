//! @file The window sweep: Gotoh's recurrence row by row, in 32-bit values.
#include "engine/traceback/window.hpp"

#include <algorithm>
#include <cstring>
#include <vector>

#include "engine/tiling/tile_executor.hpp"

namespace chromalign {

TracebackTerms::TracebackTerms(const Scoring& sc)
    : open(sc.gap_open), ext(sc.gap_extend), best(sc.best_score()), gap(std::min(sc.gap_open, sc.gap_extend)) {
    for (uint8_t a = 0; a < 5; ++a)
        for (uint8_t b = 0; b < 5; ++b) table[a][b] = sc.score(a, b);
}

void sweep_window(const Sequence& s0, const Sequence& s1, const TracebackTerms& t, const WindowSpec& w,
                  const WindowRow& top, const std::function<RowSlots(int64_t i)>& slots,
                  const std::function<void(int64_t i)>& row_done) {
    const size_t cols = static_cast<size_t>(w.width() + 1);
    const int32_t* h_prev = top.h.data();
    const int32_t* f_prev = top.f.data();
    const uint8_t* b = s1.codes.data() + (w.lo - 1);  // b[k - 1]: the base of column lo - 1 + k
    for (int64_t i = w.top + 1; i <= w.bottom; ++i) {
        const int32_t* s = t.table[std::min<uint8_t>(s0.codes[static_cast<size_t>(i - 1)], 4)];
        const RowSlots out = slots(i);
        // E, F >= H - open >= -open once computed, and the edge's -inf only loses ext or is
        // replaced: no value leaves int32.
        int32_t e = kScoreNegInf, h_left = 0;  // the fresh left edge
        out.h[0] = 0;
        out.e[0] = out.f[0] = kScoreNegInf;
        for (size_t k = 1; k < cols; ++k) {
            e = std::max(e - t.ext, h_left - t.open);
            const int32_t f = std::max(f_prev[k] - t.ext, h_prev[k] - t.open);
            const int32_t diag = h_prev[k - 1] + s[std::min<uint8_t>(b[k - 1], 4)];
            h_left = std::max(std::max(0, diag), std::max(e, f));
            out.h[k] = h_left;
            out.e[k] = e;
            out.f[k] = f;
        }
        row_done(i);
        h_prev = out.h;
        f_prev = out.f;
    }
}

void WindowCells::reserve(int64_t rows, int64_t width_cols) {
    cols = width_cols;
    steps = cols + kLanes - 1;
    const size_t cells = static_cast<size_t>(cols + (rows + kLanes - 1) / kLanes * steps * kLanes);
    if (cells > capacity_) {
        memory_.reset();  // the old block goes before the new one comes
        memory_.reset(new int32_t[3 * cells]);
        capacity_ = cells;
    }
    h = memory_.get();
    e = h + capacity_;
    f = e + capacity_;
}

namespace {

constexpr int kLanes = static_cast<int>(WindowCells::kLanes);
using Lanes = int32_t __attribute__((vector_size(kLanes * sizeof(int32_t))));

static_assert(kLanes == 8, "the shift mask below is written for 8 lanes");

/// One stripe of kLanes rows, diagonal by diagonal: at step t, lane q computes the cell of its
/// row at column index k = t - q. Invariant before step t: hp1, ep1, fp1 hold each lane's
/// H, E, F at step t - 1 (column k - 1 of its row), hp2 its H at step t - 2; lane q - 1's
/// values at those steps are the cells above and above-left of lane q's cell. Lane 0 takes them
/// from `above` (H and F of the row above the stripe, cols + kLanes entries). Index k = 0 is the
/// fresh edge (H = 0, E = F = -inf), forced; a lane left of it or right of the window computes
/// values that no kept cell reads. Fills `below` with the stripe's last row, and stores every
/// cell in out_h, out_e, out_f unless they are null (a sweep that keeps rows only).
__attribute__((target_clones("avx2", "default"))) void stripe(const Lanes (&profile)[5], const uint8_t* b,
                                                              int64_t cols, int64_t steps, int32_t open, int32_t ext,
                                                              const int32_t* above_h, const int32_t* above_f,
                                                              int32_t* below_h, int32_t* below_f, int32_t* out_h,
                                                              int32_t* out_e, int32_t* out_f) {
    // Lane q of shuffle(v, in, shift) is v[q - 1], lane 0 is in[0]: the row above, one step earlier.
    const Lanes zero = {}, neg = zero + kScoreNegInf, shift = {kLanes, 0, 1, 2, 3, 4, 5, 6};
    Lanes hp1 = zero, hp2 = zero, ep1 = neg, fp1 = neg, codes = zero + 4;
    for (int64_t t = 0; t < steps; ++t) {
        codes = __builtin_shuffle(codes, Lanes{t >= 1 && t < cols ? b[t - 1] : 4}, shift);
        const Lanes up_h = __builtin_shuffle(hp1, Lanes{above_h[t]}, shift);
        const Lanes up_f = __builtin_shuffle(fp1, Lanes{above_f[t]}, shift);
        const Lanes diag = __builtin_shuffle(hp2, Lanes{t >= 1 ? above_h[t - 1] : 0}, shift);
        Lanes sub = profile[4];
        for (int c = 0; c < 4; ++c) sub = codes == c ? profile[c] : sub;
        const Lanes e_ext = ep1 - ext, e_open = hp1 - open, f_ext = up_f - ext, f_open = up_h - open;
        Lanes e = e_ext > e_open ? e_ext : e_open;
        Lanes f = f_ext > f_open ? f_ext : f_open;
        const Lanes d = diag + sub, ef = e > f ? e : f, d0 = d > zero ? d : zero;
        Lanes h = d0 > ef ? d0 : ef;
        if (t < kLanes) {
            h[t] = 0;
            e[t] = f[t] = kScoreNegInf;
        }
        if (out_h) {
            std::memcpy(out_h + t * kLanes, &h, sizeof h);
            std::memcpy(out_e + t * kLanes, &e, sizeof e);
            std::memcpy(out_f + t * kLanes, &f, sizeof f);
        }
        const int64_t k = t - (kLanes - 1);
        if (k >= 0 && k < cols) {
            below_h[k] = h[kLanes - 1];
            below_f[k] = f[kLanes - 1];
        }
        hp2 = hp1;
        hp1 = h;
        ep1 = e;
        fp1 = f;
    }
}

/// The stripes of window w below `top`, first to last: stripe r (rows top + r .. top + r +
/// kLanes - 1) stores its cells where `out(r)` says (WindowCells::at(r, 0); -1: nowhere), and
/// `below(i, h, f)` is given its last row i with H and F over columns lo - 1 .. hi, when i is
/// a row of the window.
template <class Out, class Below>
void run_stripes(const Sequence& s0, const Sequence& s1, const TracebackTerms& t, const WindowSpec& w,
                 const WindowRow& top, int32_t* h, int32_t* e, int32_t* f, Out out, Below below) {
    const int64_t cols = w.width() + 1, steps = cols + kLanes - 1;
    // The row above each stripe, padded for the steps past the last column.
    std::vector<int32_t> rows(static_cast<size_t>(4 * (cols + kLanes)), 0);
    int32_t* above_h = rows.data();
    int32_t* above_f = above_h + cols + kLanes;
    int32_t* below_h = above_f + cols + kLanes;
    int32_t* below_f = below_h + cols + kLanes;
    std::copy(top.h.begin(), top.h.begin() + cols, above_h);
    std::copy(top.f.begin(), top.f.begin() + cols, above_f);
    std::fill(above_f + cols, above_f + cols + kLanes, kScoreNegInf);
    std::fill(below_f + cols, below_f + cols + kLanes, kScoreNegInf);
    const uint8_t* b = s1.codes.data() + (w.lo - 1);
    for (int64_t r = 1; r <= w.rows(); r += kLanes) {
        Lanes profile[5];
        for (int q = 0; q < kLanes; ++q) {
            const int64_t i = w.top + r + q;  // a lane past the bottom computes a row no one reads
            const uint8_t a = i <= w.bottom ? std::min<uint8_t>(s0.codes[static_cast<size_t>(i - 1)], 4) : 4;
            for (int code = 0; code < 5; ++code) profile[code][q] = t.table[a][code];
        }
        const int64_t at = out(r);
        stripe(profile, b, cols, steps, t.open, t.ext, above_h, above_f, below_h, below_f, at < 0 ? nullptr : h + at,
               at < 0 ? nullptr : e + at, at < 0 ? nullptr : f + at);
        if (w.top + r + kLanes - 1 <= w.bottom) below(w.top + r + kLanes - 1, below_h, below_f);
        std::swap(above_h, below_h);
        std::swap(above_f, below_f);
    }
}

}  // namespace

void window_cells(const Sequence& s0, const Sequence& s1, const TracebackTerms& t, const WindowSpec& w,
                  const WindowRow& top, WindowCells& c) {
    c.reserve(w.rows(), w.width() + 1);
    std::copy(top.h.begin(), top.h.begin() + c.cols, c.h);
    std::copy(top.f.begin(), top.f.begin() + c.cols, c.f);
    std::fill(c.e, c.e + c.cols, kScoreNegInf);
    run_stripes(
        s0, s1, t, w, top, c.h, c.e, c.f, [&](int64_t r) { return static_cast<int64_t>(c.at(r, 0)); },
        [](int64_t, const int32_t*, const int32_t*) {});
}

void sweep_stripes(const Sequence& s0, const Sequence& s1, const TracebackTerms& t, const WindowSpec& w,
                   const WindowRow& top, const std::function<void(int64_t i, const int32_t* h, const int32_t* f)>& row) {
    run_stripes(s0, s1, t, w, top, nullptr, nullptr, nullptr, [](int64_t) { return int64_t{-1}; }, row);
}

}  // namespace chromalign
