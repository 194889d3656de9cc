//! @file The diagonal orchestrator shared by the tiled backends (CUDAlign Algorithm 2).
#pragma once

#include <cstdint>
#include <functional>

#include "engine/backend.hpp"
#include "engine/tile_executor.hpp"

namespace chromalign {

/// Where the executor's matrix sits in the whole comparison.
struct TiledRunSpan {
    int64_t first_row = 0;   ///< rows of S0 before the executor's first row (0 unless resumed)
    int64_t total_rows = 0;  ///< m of the whole comparison
    int64_t columns = 0;     ///< n
};

/// Walks every external diagonal of `executor` in order, reports progress about once a second
/// through `on_progress` (if set), and returns the best cell in whole-matrix coordinates.
AlignmentEnd run_tiled(TileExecutor& executor, const TiledRunSpan& span,
                       const std::function<void(const Progress&)>& on_progress);

/// DP cells of the executor's matrix finished once diagonals [0, done) are: block b has then
/// finished done - b bands. Counted on the padded grid, scaled to the real cells.
int64_t cells_done(const TileGrid& grid, int64_t done);

}  // namespace chromalign
