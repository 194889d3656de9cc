//! @file The work of one block on one tile: the short and the long phase, and the flags that order them.
#pragma once

#include <cstdint>

#include "kernels/cuda/best_tracking.cuh"
#include "kernels/cuda/tuning.hpp"

namespace chromalign::kernels::cuda {

/// What the short phase reads at its steps, staged in shared memory before the first step so
/// that none of its 32 dependent steps waits on a global load.
template <int A>
struct ShortStage {
    int2 bus[kWarp];               ///< bus[s]: lane 0's horizontal-bus input at step s
    uint8_t s1[2 * kWarp];         ///< s1[s - t + T - 1]: the S1 code of lane t at step s
    uint8_t s0[A * kWarp];         ///< block 0: S0 codes of band d, read at the restart
    int32_t edge[2 * A * kWarp + 1];  ///< block 0 of a column slab: the left edge of band d
};

/// The flag handshake between the short phase of block b+1 and the long phase of block b
/// (see long_phase), and between the bands of the edge pass and of the search's waves. Every
/// lane fences its own bus writes, the warp barrier orders them before lane 0's store of the
/// flag (the pattern of CUDA's threadFenceReduction sample). The fences order only what
/// message passing needs (fence.acq_rel; __threadfence is fence.sc): ncu on a wave of the
/// search's lone warps put 8% of their samples on the sequentially consistent ones. Its
/// callers' blocks are one warp each, whose lane 0 is the block's thread 0: in a block of
/// several warps only warp 0 would ever store, and a waiter on another warp's flag would spin
/// for good.
__device__ __forceinline__ void release_flag(int32_t* flag, int32_t value) {
    asm volatile("fence.acq_rel.gpu;" ::: "memory");
    __syncwarp();
    if (threadIdx.x == 0) *reinterpret_cast<volatile int32_t*>(flag) = value;
}

/// Spins until *flag >= value; the bus entries read after it bypass L1 (__ldcg), which is not
/// coherent within a kernel.
__device__ __forceinline__ void acquire_flag(const int32_t* flag, int32_t value) {
    while (*reinterpret_cast<const volatile int32_t*>(flag) < value) {
    }
    asm volatile("fence.acq_rel.gpu;" ::: "memory");
}

/// Where block blockIdx.x works in external diagonal d: block column b runs band d - b, and
/// block 0 first runs the cells of band d - B that the right-most block delegated to it.
struct BlockPlace {
    int32_t b;        ///< block column
    int64_t band;     ///< d - b
    bool main_valid;  ///< band exists
    int64_t dband;    ///< d - B: band of block 0's delegated cells
    bool del_valid;   ///< block 0, and dband exists
};

__device__ __forceinline__ BlockPlace place_block(const PhaseArgs& p) {
    BlockPlace at;
    at.b = p.launch.column(static_cast<int32_t>(blockIdx.x));
    at.band = p.d - at.b;
    at.main_valid = at.band >= 0 && at.band < p.bands;
    at.dband = p.d - p.blocks;
    at.del_valid = at.b == 0 && at.dband >= 0 && at.dband < p.bands;
    return at;
}

/// place_block, less a run that prune_block_runs skipped (p.dead, when it ran before the
/// launch): such a block has at most block 0's delegated cells left to run.
__device__ __forceinline__ BlockPlace place_live_block(const PhaseArgs& p) {
    BlockPlace at = place_block(p);
    if (p.dead && p.dead[blockIdx.x]) at.main_valid = false;
    return at;
}

/// kTable: the block's copy of the diagonal terms in shared memory, which the short phase
/// loads and both phases read (step). Other substitutions read no table: one unused word.
template <Substitution kSub>
__device__ __forceinline__ int32_t* block_table() {
    __shared__ int32_t table[kSub == Substitution::kTable ? kTableWords : 1];
    return table;
}

/// kTable: fills block_table from p.diag_table (read after the warp's next barrier).
template <Substitution kSub>
__device__ __forceinline__ int32_t* copy_block_table(const PhaseArgs& p) {
    int32_t* const table = block_table<kSub>();
    if constexpr (kSub == Substitution::kTable)
        for (int k = threadIdx.x; k < kTableWords; k += kWarp) table[k] = p.diag_table[k];
    return table;
}

/// Short phase: the first T steps of block `at`, ending with its flag released. Step s of
/// thread t computes column b*C + s - t: for s < t these are the cells delegated by the block
/// to the left (for block 0, by the right-most block of band d - B, which then restarts at
/// column 0 of band d).
/// All lanes run every step so the shuffles stay converged; a lane without a valid band idles.
/// Every lane of block 0 loads its delegated state, lane 0 too: lane 1's first delegated cell
/// (the last column) reads lane 0's bottom row there. At the wrap (s == t) lane t holds its
/// rows at the last column, which is the right edge of a column slab.
/// The bus entries lane 0 reads (columns b*C .. b*C + T-1) are staged before the steps: the
/// only writes to them in this diagonal are this block's lane T-1 at step T-1 (column b*C),
/// after lane 0's read of it at step 0, so the staged values are the ones the steps would read.
/// With kTable, the block first copies the diagonal terms into block_table.
/// On exit, if the band exists, L holds its rows after step T-1, codes included (long_phase).
template <int A, Substitution kSub>
__device__ __forceinline__ void short_phase(Lane<A>& L, const PhaseArgs& p, const BlockPlace& at) {
    const int t = threadIdx.x;
    const int32_t b = at.b;
    const int64_t band = at.band, dband = at.dband;
    const bool main_valid = at.main_valid, del_valid = at.del_valid;
    const int64_t rows = int64_t{A} * kWarp;
    const int64_t padded_cols = int64_t{p.block_cols} * p.blocks;
    const int64_t col0 = int64_t{b} * p.block_cols;
    __shared__ ShortStage<A> stage;
    int32_t* const table = copy_block_table<kSub>(p);
    if (main_valid) stage.bus[t] = p.hbus[col0 + t];
    // stage.s1[k] is column col0 + k - (T-1); block 0's k < T-1 are the delegated last columns.
#pragma unroll
    for (int k = t; k < 2 * kWarp; k += kWarp)
        stage.s1[k] = p.s1[(b == 0 && k < kWarp - 1 ? padded_cols : col0) + k - (kWarp - 1)];
    if (b == 0 && main_valid) {
        for (int k = t; k < A * kWarp; k += kWarp) stage.s0[k] = p.s0[band * rows + k];
        if (p.left_edge)
            for (int k = t; k < 2 * A * kWarp + 1; k += kWarp) stage.edge[k] = p.left_edge[k];
    }
    __syncwarp();

    start_rows(L, p);  // lanes of block 0 without delegated cells hold defined values
    clear_best(L);
    // Block 0's delegated cells are of band dband, perhaps of another record than band d's:
    // each band's best goes to its own record, and the gate takes the lower of their G.
    BestCell mine{0, 0, 0, 0}, mine_delegated{0, 0, 0, 0};
    int32_t g = INT32_MAX;
    if (main_valid) g = best_so_far(p, band);
    if (del_valid) g = min(g, best_so_far(p, dband));
    const int32_t threshold_o = max(g == INT32_MAX ? 0 : g, 1) - p.terms.open;  // see track_if_needed
    const bool seal_main = main_valid && sealed(p, band), seal_delegated = del_valid && sealed(p, dband);
    if (b > 0) {
        load_state(L, p.vbus_in + int64_t{b} * kSlotWords<A>, t);
        load_codes<A, kSub>(L, p, p.s0 + band * rows + t * A);
    } else if (del_valid) {
        load_state(L, p.vbus_in, t);
        load_codes<A, kSub>(L, p, p.s0 + dband * rows + t * A);
    }
    for (int s = 0; s < kWarp; ++s) {
        int32_t up_o = __shfl_up_sync(0xffffffffu, L.ho[A - 1], 1);
        int32_t up_f = __shfl_up_sync(0xffffffffu, L.fbot, 1);
        if (b == 0 && s == t) {  // block 0: delegated cells done, start band d at column 0
            if (del_valid && t > 0) flush_rows(L, mine_delegated, static_cast<int32_t>(dband * rows + t * A), 0);
            if (del_valid && p.right_edge) store_right_edge(L, p, t);
            clear_best(L);
            if (main_valid) {
                if (p.left_edge)
                    start_rows_at_edge(L, stage.edge, p.terms.open, t);
                else
                    start_rows(L, p);
                load_codes<A, kSub>(L, p, stage.s0 + t * A);
            }
        }
        const bool delegated = b == 0 && s < t;
        const bool active = delegated ? del_valid : main_valid;
        const int64_t col = delegated ? padded_cols - t + s : col0 + s - t;
        if (t == 0 && main_valid) {
            const int2 v = stage.bus[s];
            up_o = v.x - p.terms.open;
            up_f = v.y;
        }
        if (active) {
            step<A, kSub>(L, up_o, up_f, stage.s1[s - t + kWarp - 1], p, table);
            if (t == kWarp - 1)
                p.hbus[col] = (delegated ? seal_delegated : seal_main)
                                  ? make_int2(0, kNegInf)
                                  : make_int2(L.ho[A - 1] + p.terms.open, L.fbot);
        }
        track_if_needed(L, static_cast<int32_t>(col), threshold_o, p.terms.open, active);
    }
    if (main_valid) flush_rows(L, mine, static_cast<int32_t>(band * rows + t * A), 0);
    // Both reductions run on every lane (shuffles); a band that is not valid has no best.
    const int32_t main_record = main_valid ? record_of(p, band) : 0;
    const int32_t delegated_record = del_valid ? record_of(p, dband) : 0;
    publish_best(mine_delegated, p.best + int64_t{delegated_record} * p.blocks + b, p.best_score + delegated_record);
    publish_best(mine, p.best + int64_t{main_record} * p.blocks + b, p.best_score + main_record);
    release_flag(p.flags + b, static_cast<int32_t>(p.d + 1));
}

/// Long phase: steps T .. C-1 of block b's band, continuing from the short phase's registers;
/// no delegation, no edge tests. Lane 0 prefetches the horizontal bus and every lane its S1
/// codes one group of Tuning::kPrefetch steps ahead, so the loads are in flight while the
/// previous group computes. The bus columns C-T+1 .. C-1 of the band above are the right neighbour's
/// delegated cells of this same diagonal (block 0's for the last block): they are loaded only
/// after its flag says its short phase wrote them; a neighbour left out of the launch wrote
/// them dead in an earlier diagonal (engine/scheduling/live_window.hpp), and has no flag to wait for.
/// shorts_done: the diagonal's short phases all ran in a launch before this one (long_phases),
/// so nothing is waited for and every load is plain.
/// Invariant on entry: L holds the band's rows after step T-1 (short phase), codes included.
template <int A, Substitution kSub>
__device__ __forceinline__ void long_phase(Lane<A>& L, const PhaseArgs& p, int32_t b, int64_t band,
                                           bool shorts_done) {
    const int t = threadIdx.x;
    const int32_t* const table = block_table<kSub>();  // loaded by the short phase
    const int64_t rows = int64_t{A} * kWarp;
    const int64_t col0 = int64_t{b} * p.block_cols;  // column of step 0 for lane 0

    clear_best(L);
    // H >= max(G, 1), in the H - open form of L.ho; G read once, a stale (lower) G is safe.
    const int32_t record = record_of(p, band);
    const int32_t threshold_o = max(p.best_score[record], 1) - p.terms.open;
    const bool seal = sealed(p, band);  // the band's bottom row goes on as row 0 (at the end)
    const int32_t right = b + 1 == p.blocks ? 0 : b + 1;
    const int32_t first_delegated = p.block_cols - (kWarp - 1);

    const uint8_t* s1 = p.s1 + col0 - t;  // s1[s] is this lane's code at step s
    const int2* bus_in = p.hbus + col0;   // bus_in[s] is lane 0's input at step s
    int2* bus_out = p.hbus + col0 - (kWarp - 1);
    int2 bus_next[Tuning::kPrefetch];
    int32_t c_next[Tuning::kPrefetch];
    // One group of Tuning::kPrefetch steps from s0, prefetching the next group's bus with `load`.
    auto group = [&](int32_t s0, auto load) {
        int2 bus_cur[Tuning::kPrefetch];
        int32_t c_cur[Tuning::kPrefetch];
#pragma unroll
        for (int u = 0; u < Tuning::kPrefetch; ++u) {
            bus_cur[u] = bus_next[u];
            c_cur[u] = c_next[u];
            bus_next[u] = t == 0 ? load(bus_in + s0 + Tuning::kPrefetch + u) : make_int2(0, 0);
            c_next[u] = s1[s0 + Tuning::kPrefetch + u];
        }
#pragma unroll
        for (int u = 0; u < Tuning::kPrefetch; ++u) {
            int32_t up_o = __shfl_up_sync(0xffffffffu, L.ho[A - 1], 1);
            int32_t up_f = __shfl_up_sync(0xffffffffu, L.fbot, 1);
            if (t == 0) {
                up_o = bus_cur[u].x - p.terms.open;
                up_f = bus_cur[u].y;
            }
            step<A, kSub>(L, up_o, up_f, c_cur[u], p, table);
            track_if_needed(L, s0 + u, threshold_o, p.terms.open);
            if (t == kWarp - 1) bus_out[s0 + u] = make_int2(L.ho[A - 1] + p.terms.open, L.fbot);
        }
    };
    const auto plain = [](const int2* q) { return *q; };
    const auto l2_only = [](const int2* q) { return __ldcg(q); };
    // Groups whose prefetch stays left of the delegated columns run first, with plain loads
    // and no test in the loop (a flag test inside it cost 12% per column on the H100); then
    // the flag is acquired once, and the rest reads through L2 (a plain load could hit an L1
    // line loaded before the neighbour wrote it). Band 0 waits for nobody: its row above is
    // the starting row, which no block writes.
    const bool waits = !shorts_done && band > 0 && p.launch.has(right);
    const int32_t plain_end = waits ? first_delegated - 2 * Tuning::kPrefetch + 1 : p.block_cols;
    int32_t s0 = kWarp;
    const bool early = waits && kWarp + Tuning::kPrefetch > first_delegated;  // C < 71
    if (early) acquire_flag(p.flags + right, static_cast<int32_t>(p.d + 1));
#pragma unroll
    for (int u = 0; u < Tuning::kPrefetch; ++u) {
        bus_next[u] = t == 0 ? (early ? __ldcg(bus_in + kWarp + u) : bus_in[kWarp + u]) : make_int2(0, 0);
        c_next[u] = s1[kWarp + u];
    }
    if (!early) {
        for (; s0 < plain_end; s0 += Tuning::kPrefetch) group(s0, plain);
        if (waits) acquire_flag(p.flags + right, static_cast<int32_t>(p.d + 1));
    }
    for (; s0 < p.block_cols; s0 += Tuning::kPrefetch) group(s0, l2_only);
    BestCell mine{0, 0, 0, 0};
    flush_rows(L, mine, static_cast<int32_t>(band * rows + t * A), static_cast<int32_t>(col0 - t));
    publish_best(mine, p.best + int64_t{record} * p.blocks + b, p.best_score + record);
    // A sealed band's bottom row goes on as row 0. The columns written above are read by the
    // band below in the next diagonal alone (the short phase's, which the left neighbour reads
    // in this one, were sealed as they were written), so they are sealed here, out of the loop.
    if (seal) {
        __syncwarp();  // lane T-1's writes above come first
        for (int32_t s = kWarp + t; s < p.block_cols; s += kWarp) bus_out[s] = make_int2(0, kNegInf);
    }
    save_state(L, p.vbus_out + int64_t{right} * kSlotWords<A>, t);  // block 0: the wrap
}

}  // namespace chromalign::kernels::cuda
