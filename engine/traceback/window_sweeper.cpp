//! @file The CPU sweep that keeps rows.
#include "engine/traceback/window_sweeper.hpp"

#include <algorithm>
#include <vector>

namespace chromalign {

std::unique_ptr<RowSource> CpuSweeper::sweep(const WindowSpec& w, WindowRow top, const SweepSteps& steps) {
    auto kept = std::make_unique<KeptRows>(w, std::move(top));
    const int64_t cols = w.width() + 1;
    const auto keep = [&](int64_t i, const int32_t* h, const int32_t* f) {
        kept->keep(WindowRow{i, std::vector<int32_t>(h, h + cols), std::vector<int32_t>(f, f + cols)});
    };
    int64_t step = std::clamp<int64_t>(std::max(steps.wanted, steps.at_least), 1, std::max<int64_t>(1, w.rows() / 2));
    if (w.rows() <= WindowCells::kLanes) {
        // No stripe ends inside so short a window: row by row, two rows in turn.
        std::vector<int32_t> buffers;
        const auto slots = two_row_slots(buffers, static_cast<size_t>(cols));
        sweep_window(s0_, s1_, t_, w, kept->top_row(), slots, [&](int64_t i) {
            if ((i - w.top) % step != 0 || i == w.bottom) return;
            const RowSlots row = slots(i);
            keep(i, row.h, row.f);
        });
        return kept;
    }
    // Stripes of kLanes rows in SIMD lanes (window_cells' kernel), keeping rows where a stripe ends.
    step = (step + WindowCells::kLanes - 1) / WindowCells::kLanes * WindowCells::kLanes;
    sweep_stripes(s0_, s1_, t_, w, kept->top_row(), [&](int64_t i, const int32_t* h, const int32_t* f) {
        if ((i - w.top) % step == 0 && i < w.bottom) keep(i, h, f);
    });
    return kept;
}

}  // namespace chromalign
