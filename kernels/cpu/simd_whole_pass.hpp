//! @file The K best search's first pass on the cpu backend: the grid's tiles in dependency order
//! on the worker threads, each band of a tile with stage 1's SIMD tile kernel (tile_kernel.hpp),
//! some ten times the portable lanes' rate (tile_lanes.hpp), which the tiles computed again
//! keep (their barred pairs are no kernel's).
#pragma once

#include "engine/declump/tile_waves.hpp"
#include "kernels/cpu/tile_kernel.hpp"

namespace chromalign::kernels::cpu {

class SimdTileWaves : public CpuTileWaves {
public:
    /// Kernels of `isa` on `threads` threads (>= 1).
    SimdTileWaves(CpuIsa isa, int threads) : isa_(isa), threads_(threads) {}
    /// False, having written nothing, when no kernel's bands (lanes x 8 rows) divide the
    /// tiles' rows. Keeps nothing (out.keep becomes false).
    bool whole_pass(const Sequence& s0, const Sequence& s1, const Scoring& scoring, WholePass& out) override;

private:
    CpuIsa isa_;
    int threads_;
};

}  // namespace chromalign::kernels::cpu
