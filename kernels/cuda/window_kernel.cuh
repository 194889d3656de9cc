//! @file A traceback window's diagonals in one launch (engine/traceback/engine_sweeper.hpp).
//!
//! A window is a small grid: a few hundred block columns and bands of 128 rows. Launched one
//! diagonal at a time, its host thread spent more on launches and polls than the GPU on cells,
//! and several windows at once contended for the driver. Here every block column stays
//! resident (the launch is cooperative) and the grid meets at a barrier between diagonals.
#pragma once

#include <cooperative_groups.h>

#include "kernels/cuda/block_agent.cuh"

namespace chromalign::kernels::cuda {

/// Copies bus columns [first, last), clipped to [0, n), into `band`'s kept row when it is
/// kept. The caller's lanes wrote them (lane T-1 of this block): a __syncwarp orders them.
__device__ __forceinline__ void keep_columns(const int2* hbus, const WindowArgs& w, int64_t band, int64_t first,
                                             int64_t last) {
    if (!w.kept || (band + 1) % w.keep_every != 0) return;
    first = first > 0 ? first : 0;
    last = last < w.n ? last : w.n;
    int2* row = w.kept + band / w.keep_every * w.n;
    for (int64_t c = first + threadIdx.x; c < last; c += kWarp) row[c] = hbus[c];
}

/// Diagonals [w.from, w.to), every block column in the grid (p.launch: all of them). Iteration d runs
/// diagonal d as diagonal_phases does, then each block copies the bus columns that d made
/// final into its band's kept row, as keep_band_pieces would after a launch of d.
/// Invariant at the top of iteration d, as at the start of a launch of diagonal d: the bus
/// holds, per column c, (H, F) of the bottom row of the last band done at c; vbus[(d + 1) & 1]
/// holds what diagonal d - 1 passed to the right; every flag is at most d. The barrier at the
/// end of the iteration makes all of d's writes visible to d + 1, as a launch boundary does.
/// The flag handshake inside a diagonal is diagonal_phases'. The bus columns a block copies
/// are those its own lane T-1 wrote in this diagonal (block_agent.cuh: short phase
/// b*C - T+1 .. b*C, long phase up to (b+1)*C - T; block 0 the last T-1 of band d - B).
template <int A, Substitution kSub>
__global__ void __launch_bounds__(kWarp) window_diagonals(PhaseArgs p, const WindowArgs w) {
    const cooperative_groups::grid_group grid = cooperative_groups::this_grid();
    const int64_t padded_cols = int64_t{p.block_cols} * p.blocks;
    for (int64_t d = w.from; d < w.to; ++d) {
        p.d = d;
        p.vbus_in = w.vbus[(d + 1) & 1];
        p.vbus_out = w.vbus[d & 1];
        p.left_edge = d >= p.bands ? nullptr : d == 0 ? w.edge_first : w.edge_rest;
        const BlockPlace at = place_block(p);
        if (at.main_valid || at.del_valid) {
            Lane<A> L;
            short_phase<A, kSub>(L, p, at);
            if (at.main_valid) long_phase<A, kSub>(L, p, at.b, at.band, false);
            __syncwarp();
            const int64_t col0 = int64_t{at.b} * p.block_cols;
            if (at.main_valid) keep_columns(p.hbus, w, at.band, col0 - (kWarp - 1), col0 + p.block_cols - (kWarp - 1));
            if (at.del_valid) keep_columns(p.hbus, w, at.dband, padded_cols - (kWarp - 1), padded_cols);
        }
        grid.sync();
    }
}

}  // namespace chromalign::kernels::cuda
