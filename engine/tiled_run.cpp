//! @file run_tiled: the external-diagonal loop, with progress and periodic synchronisation.
#include "engine/tiled_run.hpp"

#include <algorithm>
#include <chrono>

namespace chromalign {
namespace {

/// Diagonals enqueued between two looks at the clock; each look waits for the device, which
/// bounds how far the host runs ahead and costs one launch latency per batch.
constexpr int64_t kDiagonalsPerBatch = 64;

}  // namespace

int64_t cells_done(const TileGrid& g, int64_t done) {
    int64_t blocks_done = 0;
    for (int64_t b = 0; b < g.blocks; ++b) blocks_done += std::clamp<int64_t>(done - b, 0, g.bands);
    const double fraction = static_cast<double>(blocks_done) / (static_cast<double>(g.bands) * g.blocks);
    return static_cast<int64_t>(fraction * static_cast<double>(g.m) * static_cast<double>(g.n));
}

AlignmentEnd run_tiled(TileExecutor& executor, const TiledRunSpan& span,
                       const std::function<void(const Progress&)>& on_progress) {
    const TileGrid& grid = executor.grid();
    const auto start = std::chrono::steady_clock::now();
    auto last_report = start;
    for (int64_t d = 0; d < grid.diagonals(); ++d) {
        executor.enqueue_diagonal(d);
        if (on_progress && (d + 1) % kDiagonalsPerBatch == 0) {
            executor.synchronize();
            const auto now = std::chrono::steady_clock::now();
            if (now - last_report >= std::chrono::seconds(1)) {
                last_report = now;
                Progress p;
                p.cells_total = span.total_rows * span.columns;
                p.cells_done = span.first_row * span.columns + cells_done(grid, d + 1);
                p.seconds = std::chrono::duration<double>(now - start).count();
                on_progress(p);
            }
        }
    }
    AlignmentEnd best = executor.best();
    if (best.score > 0) best.s0_end += span.first_row;
    return best;
}

}  // namespace chromalign
