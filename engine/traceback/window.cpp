//! @file The window sweep: Gotoh's recurrence row by row, in 32-bit values.
#include "engine/traceback/window.hpp"

#include <algorithm>

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

void WindowCells::reserve(size_t cells) {
    if (cells > capacity_) {
        memory_.reset();  // the old block goes before the new one comes
        memory_.reset(new int32_t[3 * cells]);
        capacity_ = cells;
    }
    h = memory_.get();
    e = h + capacity_;
    f = e + capacity_;
}

void window_cells(const Sequence& s0, const Sequence& s1, const TracebackTerms& t, const WindowSpec& w,
                  const WindowRow& top, WindowCells& c) {
    c.cols = w.width() + 1;
    c.reserve(static_cast<size_t>((w.rows() + 1) * c.cols));
    std::copy(top.h.begin(), top.h.begin() + c.cols, c.h);
    std::copy(top.f.begin(), top.f.begin() + c.cols, c.f);
    std::fill(c.e, c.e + c.cols, kScoreNegInf);
    sweep_window(
        s0, s1, t, w, top,
        [&](int64_t i) {
            const size_t at = c.at(i - w.top, 0);
            return RowSlots{c.h + at, c.e + at, c.f + at};
        },
        [](int64_t) {});
}

}  // namespace chromalign
