//! @file The CPU backend: the tiled engine on worker threads with SIMD tile kernels.
#pragma once

#include <cstdint>
#include <memory>

#include "engine/backend/backend.hpp"
#include "engine/sequence.hpp"
#include "engine/tiling/tile_executor.hpp"

namespace chromalign {

/// Registry entry of the cpu backend. threads 0: usable_cores() shared among the slabs. The
/// instruction set is the CPU's best, or $CHROMALIGN_CPU_ISA (scalar, sse41, avx, avx2,
/// avx512); making it throws Error when that names one the CPU or the build lacks.
BackendEntry cpu_backend_entry();

/// The executor the cpu backend runs for rows first_row+1 .. m of S0 (all of S1), starting
/// below `top` (the DP row first_row; empty for row 0), as a one-slab run makes it. Tile
/// grid and kernel come from `options` (threads, alpha, max_blocks) and the scoring. The
/// executor copies what it needs from the sequences. Throws Error on bad input.
std::unique_ptr<TileExecutor> make_cpu_executor(const Sequence& s0, const Sequence& s1, const Scoring& scoring,
                                                const BackendOptions& options, int64_t first_row,
                                                const TopRow& top);

}  // namespace chromalign
