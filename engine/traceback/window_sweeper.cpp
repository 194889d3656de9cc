//! @file The scalar sweep that keeps rows.
#include "engine/traceback/window_sweeper.hpp"

#include <algorithm>
#include <vector>

namespace chromalign {

std::unique_ptr<RowSource> ScalarSweeper::sweep(const WindowSpec& w, WindowRow top, const SweepSteps& steps) {
    auto kept = std::make_unique<KeptRows>(w, std::move(top));
    const int64_t step = std::clamp<int64_t>(std::max(steps.wanted, steps.at_least), 1, std::max<int64_t>(1, w.rows() / 2));
    const int64_t cols = w.width() + 1;
    // Two rows in turn; a row to keep is copied out once the next one no longer reads it.
    std::vector<int32_t> buffers(static_cast<size_t>(6 * cols));
    sweep_window(
        s0_, s1_, t_, w, kept->top_row(),
        [&](int64_t i) {
            int32_t* base = buffers.data() + (i % 2) * 3 * cols;
            return RowSlots{base, base + cols, base + 2 * cols};
        },
        [&](int64_t i) {
            if ((i - w.top) % step != 0 || i == w.bottom) return;
            const int32_t* base = buffers.data() + (i % 2) * 3 * cols;
            kept->keep(WindowRow{i, std::vector<int32_t>(base, base + cols),
                                std::vector<int32_t>(base + 2 * cols, base + 3 * cols)});
        });
    return kept;
}

}  // namespace chromalign
