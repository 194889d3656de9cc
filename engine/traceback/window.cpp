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
                  const WindowRow& top,
                  const std::function<void(int64_t i, const int32_t* h, const int32_t* e, const int32_t* f)>& row_done) {
    const size_t cols = static_cast<size_t>(w.width() + 1);
    std::vector<int32_t> h_prev(top.h.begin(), top.h.begin() + static_cast<std::ptrdiff_t>(cols));
    std::vector<int32_t> f(top.f.begin(), top.f.begin() + static_cast<std::ptrdiff_t>(cols));
    std::vector<int32_t> h_cur(cols), e_row(cols, kScoreNegInf);
    const uint8_t* b = s1.codes.data() + (w.lo - 1);  // b[k - 1]: the base of column lo - 1 + k
    for (int64_t i = w.top + 1; i <= w.bottom; ++i) {
        const int32_t* s = t.table[std::min<uint8_t>(s0.codes[static_cast<size_t>(i - 1)], 4)];
        // E, F >= H - open >= -open once computed, and the edge's -inf only loses ext or is
        // replaced: no value leaves int32.
        int32_t e = kScoreNegInf;
        h_cur[0] = 0;  // the fresh left edge
        for (size_t k = 1; k < cols; ++k) {
            e = std::max(e - t.ext, h_cur[k - 1] - t.open);
            f[k] = std::max(f[k] - t.ext, h_prev[k] - t.open);
            const int32_t diag = h_prev[k - 1] + s[std::min<uint8_t>(b[k - 1], 4)];
            h_cur[k] = std::max(std::max(0, diag), std::max(e, f[k]));
            e_row[k] = e;
        }
        row_done(i, h_cur.data(), e_row.data(), f.data());
        std::swap(h_prev, h_cur);
    }
}

WindowCells window_cells(const Sequence& s0, const Sequence& s1, const TracebackTerms& t, const WindowSpec& w,
                         const WindowRow& top) {
    WindowCells c;
    c.cols = w.width() + 1;
    const size_t size = static_cast<size_t>((w.rows() + 1) * c.cols);
    c.h.resize(size);
    c.e.resize(size);
    c.f.resize(size);
    std::copy(top.h.begin(), top.h.begin() + c.cols, c.h.begin());
    std::copy(top.f.begin(), top.f.begin() + c.cols, c.f.begin());
    std::fill(c.e.begin(), c.e.begin() + c.cols, kScoreNegInf);
    sweep_window(s0, s1, t, w, top, [&](int64_t i, const int32_t* h, const int32_t* e, const int32_t* f) {
        const size_t at = c.at(i - w.top, 0);
        std::copy(h, h + c.cols, c.h.begin() + static_cast<std::ptrdiff_t>(at));
        std::copy(e, e + c.cols, c.e.begin() + static_cast<std::ptrdiff_t>(at));
        std::copy(f, f + c.cols, c.f.begin() + static_cast<std::ptrdiff_t>(at));
    });
    return c;
}

}  // namespace chromalign
