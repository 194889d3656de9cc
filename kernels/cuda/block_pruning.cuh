//! @file Exact block pruning on the GPU: each block of a diagonal's launch first decides
//! whether its run is skipped, and if so writes the lower bounds that run hands on
//! (engine/pruning/prune_rule.hpp); the last block to decide reports the diagonal's live runs
//! straight into pinned host memory, for the host's next launches (live_window.hpp).
//!
//! The decisions once had a kernel of their own, launched before each diagonal, with a copy
//! of its report behind it in the stream. Along a narrow live band, where a diagonal's blocks
//! run for about 150 us, the two cost about 35 us between diagonals (H200, 8M x 8M mutated,
//! forward strand, medians of 3: 5.55 s with them, 4.90 s without). In the diagonal kernel
//! the decision costs alpha 16 up to 7 registers (168: still 12 blocks per multiprocessor) and
//! nothing measured on a pair that prunes nothing (two unrelated 8M sequences, 25.93 and
//! 25.91 s).
#pragma once

#include <cstdint>

#include "kernels/cuda/band_keeping.cuh"
#include "kernels/cuda/block_agent.cuh"

namespace chromalign::kernels::cuda {

/// The largest H in a saved state slot (vertical bus): every lane's rows and its hdiag.
template <int A>
__device__ __forceinline__ int32_t slot_h_max(const int32_t* slot, int t, int32_t open) {
    int32_t h_o = slot[2 * A * kWarp + t];  // hdiag_o
#pragma unroll
    for (int r = 0; r < A; ++r) h_o = max(h_o, slot[r * kWarp + t]);
    return h_o + open;
}

/// Whether block `at`'s run of its band in this diagonal (the cells its lanes compute from
/// their short phase to the end of their long phase) is skipped; the same answer on every lane.
///
/// The run is the parallelogram P: lane t, rows band*R + t*A .. + A-1, columns
/// [b*C - t, (b+1)*C - t). Every path into P enters through
///   - the left state (vbus_in slot b, or for block 0 the slab's left edge or column 0): lane
///     t's rows at column b*C - t - 1 and the cell above them (hdiag);
///   - the row above, band - 1's bottom, at columns [b*C, (b+1)*C), which lane 0 reads.
/// Of that row, columns [b*C, (b+1)*C - T + 1) were written by this same block column in
/// diagonal d - 1 and are read here directly. The last T - 1 are the cells block b+1 (block 0
/// for the last block) computes in this diagonal's short phase, from the state this block
/// column saved in diagonal d - 1 (vbus_in slot `right`) and nothing else: a path from that
/// state to them crosses at most T - 1 columns, so they are at most its largest H plus
/// (T - 1) * best_score. Band 0's row above is the starting row, all of it read directly.
/// The leftmost input column is b*C - T (lane T-1's state), hence the gain's corner.
template <int A>
__device__ __forceinline__ bool main_run_dead(const PhaseArgs& p, const BlockPlace& at, int32_t right) {
    if (!p.prune.on || !at.main_valid) return false;
    const int t = threadIdx.x;
    const int32_t g = max(*p.best_score, p.shared_best);
    const int64_t row0 = at.band * int64_t{A} * kWarp;
    const int64_t c0 = int64_t{at.b} * p.block_cols;
    const int64_t first_col = c0 - (kWarp - 1) > 0 ? c0 - (kWarp - 1) : 0;
    if (p.prune.live_by_gain(row0, first_col, g)) return false;  // uniform: no input read
    int32_t in_max = 0;  // column 0 of the matrix: H = 0
    if (at.b > 0) {
        in_max = slot_h_max<A>(p.vbus_in + int64_t{at.b} * kSlotWords<A>, t, p.terms.open);
    } else if (p.left_edge) {
        constexpr int R = A * kWarp;
        for (int k = t; k < R; k += kWarp) in_max = max(in_max, p.left_edge[k]);
        in_max = max(in_max, p.left_edge[2 * R]);  // the corner
    }
    int64_t c1 = c0 + p.block_cols;
    if (at.band > 0) {
        c1 -= kWarp - 1;
        const int32_t state = slot_h_max<A>(p.vbus_in + int64_t{right} * kSlotWords<A>, t, p.terms.open);
        in_max = max(in_max, max(state, 0) + (kWarp - 1) * p.prune.best_score);
    }
    // Unrolled so that the loads are in flight together: one at a time, the C / T dependent
    // trips to memory would be most of a lone block's decision, which now precedes its phases.
#pragma unroll 8
    for (int64_t c = c0 + t; c < c1; c += kWarp) in_max = max(in_max, p.hbus[c].x);
    return p.prune.dead(warp_max(in_max), row0, first_col, g);
}

/// A skipped run's outputs, as its lanes would have left them: H = 0 and F = -inf on band's
/// bottom row where lane T-1 writes it (columns [b*C - T + 1, (b+1)*C - T + 1), clipped at 0),
/// H = 0, E = F = -inf in the state for the block to the right, and its cells counted; the
/// bottom row also into the band's capture row, if captured (its score map peaks stay 0).
/// Written before the block's phases would have written them (see decide_run).
template <int A>
__device__ __forceinline__ void skip_main_run(const PhaseArgs& p, const BlockPlace& at, int32_t right) {
    const int t = threadIdx.x;
    const int64_t c0 = int64_t{at.b} * p.block_cols;
    const int64_t first = c0 - (kWarp - 1) > 0 ? c0 - (kWarp - 1) : 0;
    for (int64_t c = first + t; c < c0 + p.block_cols - (kWarp - 1); c += kWarp) p.hbus[c] = make_int2(0, kNegInf);
    __syncwarp();
    keep_captured_columns(p, at.band, final_columns(at.b, p.blocks, p.block_cols, p.keep.n));
    Lane<A> zero;
    start_rows(zero, p);  // H = 0, E = F = -inf: the state of column 0, a lower bound anywhere
    save_state(zero, p.vbus_out + int64_t{right} * kSlotWords<A>, t);
    if (t == 0) {
        const int64_t R = int64_t{A} * kWarp, row0 = at.band * R;
        const int64_t rows = min(max(p.prune.m - row0, int64_t{0}), R);
        const int64_t cols = min(max(p.prune.n - c0, int64_t{0}), int64_t{p.block_cols});
        atomicAdd(p.pruned, static_cast<unsigned long long>(rows * cols));
    }
}

/// The decision of block `at`'s run in diagonal p.d, made by the block itself before its
/// phases (diagonal_phases, when p.decide): true when the run is skipped. A skipped run's
/// outputs are written here and its flag released, so that the left neighbour's long phase,
/// which waits for that flag, reads them after; block 0 with delegated cells still runs those
/// and releases its flag as always. Nothing else of diagonal d reads what a skipped run hands
/// on: the run's bus columns are read by its own band below in d + 1, its vertical-bus slot by
/// the block to the right in d + 1. Inputs read here are final: the bus columns
/// [b*C, (b+1)*C - T + 1) of the row above are written in diagonal d by no block but this
/// one, after this read; the rest was written in earlier diagonals.
/// The live runs go to p.live_span; the last block of the launch to decide (a counter per
/// diagonal slot, reset by that block for the slot's next diagonal) copies the slot to
/// p.live_host, in pinned host memory, which the host reads once the diagonal is done.
template <int A>
__device__ __forceinline__ bool decide_run(const PhaseArgs& p, const BlockPlace& at) {
    const int32_t right = at.b + 1 == p.blocks ? 0 : at.b + 1;
    const bool dead = main_run_dead<A>(p, at, right);
    const int slot = static_cast<int>(p.d % Tuning::kEdgeSlots);
    unsigned long long* span = p.live_span + 2 * slot;
    if (dead) {
        skip_main_run<A>(p, at, right);
        if (!at.del_valid) release_flag(p.flags + at.b, static_cast<int32_t>(p.d + 1));
    } else if (at.main_valid && threadIdx.x == 0) {
        const unsigned long long tag = static_cast<unsigned long long>(p.d + 1) << 32;
        atomicMax(span, tag | static_cast<unsigned>(at.b));
        atomicMax(span + 1, tag | static_cast<unsigned>(p.blocks - 1 - at.b));
    }
    if (threadIdx.x == 0) {
        __threadfence();  // this block's span before its count
        if (atomicAdd(p.live_count + slot, 1u) == gridDim.x - 1) {
            __threadfence();
            volatile unsigned long long* host = p.live_host + 2 * slot;
            // Read through the atomics' own path (L2), after every other block's fenced count.
            host[0] = atomicAdd(span, 0ull);
            host[1] = atomicAdd(span + 1, 0ull);
            p.live_count[slot] = 0;
        }
    }
    return dead;
}

}  // namespace chromalign::kernels::cuda
