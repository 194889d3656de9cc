//! @file Stage 1's captured band bottoms and score map, kept by the kernels that make the
//! columns final: at the end of a block's run (diagonal_phases, its kKeep instance) or where
//! a skipped run's outputs are written (prune_block_runs).
//!
//! Both used to be small kernels launched after each diagonal. On an H200 (16M x 16M related,
//! 8 slabs) any extra launch per diagonal, even an empty kernel, cost stage 1 4.6%, and 2.1%
//! more of the cells went unpruned. Here a block re-reads the columns it has just written.
#pragma once

#include <cstdint>

#include "kernels/cuda/phase_args.cuh"

namespace chromalign::kernels::cuda {

__device__ __forceinline__ int32_t warp_max(int32_t v) {
#pragma unroll
    for (int offset = kWarp / 2; offset > 0; offset /= 2) v = max(v, __shfl_xor_sync(0xffffffffu, v, offset));
    return v;
}

/// Columns [first, last) of a bus row.
struct ColumnSpan {
    int64_t first, last;
};

/// The columns of band d - b's bottom row that diagonal d makes final in block column b,
/// clipped to the matrix's n: cell delegation puts them T - 1 left of the block's own, and
/// b == blocks is the wrap (block 0's delegated cells), which ends at the padding. Host and
/// device share it: the copies of captured bands (tile_runner.cu) and the kernels' own keeping
/// must name the same columns, or a capture row keeps a stale cell.
__host__ __device__ inline ColumnSpan final_columns(int64_t b, int32_t blocks, int64_t block_cols, int64_t n) {
    const int64_t first = b * block_cols - (kWarp - 1);
    const int64_t last = b == blocks ? block_cols * blocks : (b + 1) * block_cols - (kWarp - 1);
    return {first > 0 ? first : 0, last < n ? last : n};
}

/// Bus columns `cols` (final_columns) hold band's bottom row, final, and this warp wrote them
/// (a __syncwarp orders them): copies them into the band's capture row if it is captured.
__device__ __forceinline__ void keep_captured_columns(const PhaseArgs& p, int64_t band, ColumnSpan cols) {
    const BandKeeping& k = p.keep;
#pragma unroll 1
    for (int s = 0; s < k.count; ++s)
        if (k.band[s] == band) {
#pragma unroll 1
            for (int64_t c = cols.first + threadIdx.x; c < cols.last; c += kWarp) k.row[s][c] = p.hbus[c];
        }
}

/// The same columns, of a band the diagonal kernel computed: captured, and folded into the
/// band's region of the score map, one atomicMax per run, if the band is sampled.
__device__ __forceinline__ void keep_band_columns(const PhaseArgs& p, int64_t band, ColumnSpan cols) {
    keep_captured_columns(p, band, cols);
    const RegionLayout& m = p.keep.regions.layout;
    int32_t* const peaks = p.keep.regions.peaks;
    if (!peaks || !region_peak_band(band, m.per_region, m.offset)) return;
    const int64_t first = cols.first, last = cols.last;
    const int64_t at = m.region_base(band);
#pragma unroll 1
    for (int64_t c0 = first; c0 < last;) {
        const int64_t run = m.run_of(c0), run_end = m.run_end(run);
        const int64_t end = run_end < last ? run_end : last;
        int32_t top = 0;
#pragma unroll 1
        for (int64_t c = c0 + threadIdx.x; c < end; c += kWarp) top = max(top, p.hbus[c].x);
        top = warp_max(top);
        if (threadIdx.x == 0) atomicMax(peaks + at + run, top);
        c0 = end;
    }
}

/// The end of diagonal_phases: the columns this block's run made final (main: it ran its
/// band's run) of band d - b, and for block 0 those of band d - B (its delegated cells).
/// Placed anew from p and blockIdx: nothing of the block's place stays live across the phases.
__device__ __forceinline__ void keep_block_columns(const PhaseArgs& p, bool main) {
    const int32_t b = p.launch.column(static_cast<int32_t>(blockIdx.x));
    if (main) keep_band_columns(p, p.d - b, final_columns(b, p.blocks, p.block_cols, p.keep.n));
    const int64_t dband = p.d - p.blocks;
    if (b == 0 && dband >= 0 && dband < p.bands)
        keep_band_columns(p, dband, final_columns(p.blocks, p.blocks, p.block_cols, p.keep.n));
}

}  // namespace chromalign::kernels::cuda
