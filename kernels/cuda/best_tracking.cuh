//! @file Warp-level best-cell tracking: per-row bests gated by the best score so far, and the tie-rule reduction.
#pragma once

#include <cstdint>

#include "kernels/cuda/cell_step.cuh"

namespace chromalign::kernels::cuda {

/// No row has a best since the last flush.
template <int A>
__device__ __forceinline__ void clear_best(Lane<A>& L) {
#pragma unroll
    for (int r = 0; r < A; ++r) {
        L.best[r] = 0;
        L.tag[r] = 0;
    }
}

/// Tie rule: higher score, then smaller row, then smaller column.
__device__ __forceinline__ bool better(const BestCell& a, const BestCell& b) {
    if (a.score != b.score) return a.score > b.score;
    if (a.row != b.row) return a.row < b.row;
    return a.col < b.col;
}

/// Folds the per-row bests into `mine`; column = tag + col_offset. Rows are visited top down.
template <int A>
__device__ __forceinline__ void flush_rows(const Lane<A>& L, BestCell& mine, int32_t top,
                                           int32_t col_offset) {
#pragma unroll
    for (int r = 0; r < A; ++r) {
        const BestCell cand{L.best[r], top + r, L.tag[r] + col_offset, 0};
        if (cand.score > 0 && better(cand, mine)) mine = cand;
    }
}

/// The record band `band` belongs to (TileExecutor::stack_records): 0 when none are stacked.
__device__ __forceinline__ int32_t record_of(const PhaseArgs& p, int64_t band) {
    return p.band_record ? p.band_record[band] : 0;
}

/// G of band's record: the best score any block has flushed there.
__device__ __forceinline__ int32_t best_so_far(const PhaseArgs& p, int64_t band) {
    return p.best_score[record_of(p, band)];
}

/// Whether band's bottom row goes on to the band below as row 0 of the DP matrix (H = 0,
/// F = -inf) rather than as computed: the band is the last of its record, the next the first
/// of another, and no path may cross between them.
__device__ __forceinline__ bool sealed(const PhaseArgs& p, int64_t band) {
    return p.band_record && band + 1 < p.bands && p.band_record[band + 1] != p.band_record[band];
}

/// Warp-wide tie-rule reduction of `mine`, merged by lane 0 into this block column's slot.
__device__ __forceinline__ void publish_best(BestCell mine, BestCell* slot, int32_t* best_score) {
#pragma unroll
    for (int offset = kWarp / 2; offset > 0; offset /= 2) {
        const BestCell other{__shfl_down_sync(0xffffffffu, mine.score, offset),
                             __shfl_down_sync(0xffffffffu, mine.row, offset),
                             __shfl_down_sync(0xffffffffu, mine.col, offset), 0};
        if (better(other, mine)) mine = other;
    }
    if (threadIdx.x == 0 && mine.score > 0) {
        if (better(mine, *slot)) *slot = mine;
        atomicMax(best_score, mine.score);
    }
}

/// Tracking, gated. A cell below G (the best score any block has flushed) can never be the
/// answer, and G only grows, so a step whose cells are all below max(G, 1) needs no tracking:
/// one max over the column and a warp vote replace the per-cell compare-and-select. Cells at
/// or above the threshold are tracked exactly (ties included), so the tie rule holds. Every
/// lane calls it (the vote); only `active` lanes, whose rows this step computed, track.
/// Invariant on entry: L.ho[r] = H(row_r, j) - open for the column j of step `tag`.
template <int A>
__device__ __forceinline__ void track_if_needed(Lane<A>& L, int32_t tag, int32_t threshold_o,
                                                int32_t open, bool active = true) {
    int32_t column_max = L.ho[0];
#pragma unroll
    for (int r = 1; r + 1 < A; r += 2) column_max = __vimax3_s32(column_max, L.ho[r], L.ho[r + 1]);
    if (A % 2 == 0) column_max = max(column_max, L.ho[A - 1]);
    if (__any_sync(0xffffffffu, active && column_max >= threshold_o) && active) {
#pragma unroll
        for (int r = 0; r < A; ++r) {
            bool kept;
            L.best[r] = __vibmax_s32(L.best[r], L.ho[r] + open, &kept);  // kept: best >= h, first cell wins
            L.tag[r] = kept ? L.tag[r] : tag;
        }
    }
}

}  // namespace chromalign::kernels::cuda
