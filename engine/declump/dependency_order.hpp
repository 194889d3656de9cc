//! @file Cells of a grid of tiles computed in dependency order on a few threads: tile (a, b)
//! starts as soon as (a - 1, b) and (a, b - 1) are done, with no barrier between antidiagonals
//! and no thread started per antidiagonal.
#pragma once

#include <cstdint>
#include <functional>

namespace chromalign {

/// Runs compute(a, b) for every a < rows, b < cols, each after compute(a - 1, b) and
/// compute(a, b - 1) returned, on at most `threads` threads, the caller's among them. After a
/// compute throws, no other starts; the first exception is rethrown once all have returned.
void run_in_dependency_order(int64_t rows, int64_t cols, int threads,
                             const std::function<void(int64_t a, int64_t b)>& compute);

}  // namespace chromalign
