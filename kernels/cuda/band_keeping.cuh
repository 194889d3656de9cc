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

/// Bus columns [first, last) (clipped to the real columns) hold band's bottom row, final, and
/// this warp wrote them (a __syncwarp orders them): copies them into the band's capture row
/// if it is captured.
__device__ __forceinline__ void keep_captured_columns(const PhaseArgs& p, int64_t band, int64_t first, int64_t last) {
    const BandKeeping& k = p.keep;
    first = first > 0 ? first : 0;
    last = last < k.n ? last : k.n;
#pragma unroll 1
    for (int s = 0; s < k.count; ++s)
        if (k.band[s] == band) {
#pragma unroll 1
            for (int64_t c = first + threadIdx.x; c < last; c += kWarp) k.row[s][c] = p.hbus[c];
        }
}

/// The same columns, of a band the diagonal kernel computed: captured, and folded into the
/// band's region of the score map, one atomicMax per run, if the band is sampled.
__device__ __forceinline__ void keep_band_columns(const PhaseArgs& p, int64_t band, int64_t first, int64_t last) {
    keep_captured_columns(p, band, first, last);
    const RegionLayout& m = p.keep.regions.layout;
    int32_t* const peaks = p.keep.regions.peaks;
    if (!peaks || !region_peak_band(band, m.per_region, m.offset)) return;
    first = first > 0 ? first : 0;
    last = last < p.keep.n ? last : p.keep.n;
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
/// band's run), [b*C - T+1, (b+1)*C - T+1) of band d - b, and for block 0 the last T - 1 of
/// band d - B (its delegated cells). Placed anew from p and blockIdx: nothing of the block's
/// place stays live across the phases.
__device__ __forceinline__ void keep_block_columns(const PhaseArgs& p, bool main) {
    const int32_t b = p.b_first + static_cast<int32_t>(blockIdx.x);
    if (main) {
        const int64_t col0 = int64_t{b} * p.block_cols;
        keep_band_columns(p, p.d - b, col0 - (kWarp - 1), col0 + p.block_cols - (kWarp - 1));
    }
    const int64_t dband = p.d - p.blocks;
    if (b == 0 && dband >= 0 && dband < p.bands) {
        const int64_t padded_cols = int64_t{p.block_cols} * p.blocks;
        keep_band_columns(p, dband, padded_cols - (kWarp - 1), padded_cols);
    }
}

}  // namespace chromalign::kernels::cuda
