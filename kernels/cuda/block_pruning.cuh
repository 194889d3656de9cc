//! @file Exact block pruning on the GPU: a kernel of its own decides, before each diagonal's
//! launch, which blocks' runs are skipped, and writes the lower bounds those runs hand on
//! (engine/pruning/prune_rule.hpp). The diagonal kernel then only reads one flag per block:
//! the decision and the skipped runs' outputs stay out of its code, whose schedule ptxas keeps.
//! In that kernel the decision cost pairs that prune little 6-7% (H200: two unrelated 8M
//! sequences 25.8-25.9 s against 24.1 s; 16M related 33.6 against 31.7 s), inlined or as a
//! call; in an instance of its own, the 16M related pair 18%.
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
    const int64_t gain = p.prune.gain(row0, first_col);
    if (p.prune.live_by(gain, g)) return false;  // uniform: no input read
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
    for (int64_t c = c0 + t; c < c1; c += kWarp) in_max = max(in_max, p.hbus[c].x);
    return p.prune.dead_by(warp_max(in_max), gain, g);
}

/// A skipped run's outputs, as its lanes would have left them: H = 0 and F = -inf on band's
/// bottom row where lane T-1 writes it (columns [b*C - T + 1, (b+1)*C - T + 1), clipped at 0),
/// H = 0, E = F = -inf in the state for the block to the right, and its cells counted; the
/// bottom row also into the band's capture row, if captured (its score map peaks stay 0).
/// Written before the diagonal's launch, in stream order: no block of diagonal d reads those
/// bus columns before this block would have written them, nor that slot of vbus_out.
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

/// The decision for every block of diagonal p.d, launched just before it in the same stream
/// (one warp per block, as the diagonal's launch): p.dead[blockIdx.x] says whether the block's
/// run is skipped. A skipped run's outputs are written here, and its flag is released here,
/// so that the left neighbour's long phase does not wait for it; block 0 with delegated cells
/// still runs them in the diagonal kernel, which releases its flag as always. The live runs
/// go to p.live_span, from which the host chooses the launches ahead (live_window.hpp): the
/// last block to decide (p.live_count, per diagonal slot, reset by that block for the slot's
/// next diagonal) copies the slot into pinned host memory (p.live_host), which the host reads
/// once the diagonal is done. A copy of its own in the stream cost a gap between diagonals.
template <int A>
__global__ void __launch_bounds__(kWarp) prune_block_runs(const PhaseArgs p) {
    const BlockPlace at = place_block(p);
    const int32_t right = at.b + 1 == p.blocks ? 0 : at.b + 1;
    const bool dead = main_run_dead<A>(p, at, right);
    const int slot = static_cast<int>(p.d % Tuning::kEdgeSlots);
    unsigned long long* span = p.live_span + 2 * slot;
    if (threadIdx.x == 0) p.dead[blockIdx.x] = dead ? 1 : 0;
    if (!dead) {
        if (at.main_valid && threadIdx.x == 0) {
            const unsigned long long tag = static_cast<unsigned long long>(p.d + 1) << 32;
            atomicMax(span, tag | static_cast<unsigned>(at.b));
            atomicMax(span + 1, tag | static_cast<unsigned>(p.blocks - 1 - at.b));
        }
    } else {
        skip_main_run<A>(p, at, right);
        if (!at.del_valid) release_flag(p.flags + at.b, static_cast<int32_t>(p.d + 1));
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
}

}  // namespace chromalign::kernels::cuda
