//! @file The short- and long-phase tile kernels of one external diagonal (CUDAlign §5, one warp per block).
#pragma once

#include <cstdint>

#include "engine/scoring/scoring.hpp"
#include "engine/tiling/tile_executor.hpp"
#include "kernels/cuda/tuning.hpp"

namespace chromalign::kernels::cuda {

constexpr int kWarp = 32;                 ///< T: threads per block, one warp
constexpr int32_t kNegInf = kScoreNegInf;  ///< minus infinity for E and F; never overflows

/// S1 codes other than A/C/G/T are stored as this value on the device, and S0's as 4, so a
/// plain equality test is the match test: N never matches, not even N.
constexpr uint8_t kS1Other = 5;

/// How a kernel forms its diagonal terms (CudaScoringTerms::Substitution): kBytes, one prmt;
/// kEquality, compare and select; kTable, a lookup in the block's copy of the table.
using Substitution = CudaScoringTerms::Substitution;

/// kTable: diagonal terms of S0 code a (0..4) against device S1 code c (0..3, kS1Other) at
/// [a * kTableStride + c]; the other columns hold a's term against another code too.
constexpr int kTableStride = 8;
constexpr int kTableWords = 5 * kTableStride;

/// Best cell of one block column so far; row and col are 0-based padded coordinates.
struct BestCell {
    int32_t score;
    int32_t row;
    int32_t col;
    int32_t unused;
};

/// Everything a phase kernel needs; passed by value.
struct PhaseArgs {
    const uint8_t* s0;        ///< S0 codes, padded_rows entries (padding never matches)
    const uint8_t* s1;        ///< S1 codes, padded_cols + slack entries
    int2* hbus;               ///< horizontal bus: (H, F) of the last row computed, per column
    const int32_t* vbus_in;   ///< vertical bus written in diagonal d-1, one slot per block
    int32_t* vbus_out;        ///< vertical bus for diagonal d+1
    int32_t* flags;           ///< per block: d + 1 once diagonal d's short phase wrote its bus columns
    BestCell* best;           ///< one per block column
    int32_t* best_score;      ///< G: the best score flushed so far by any block (atomicMax)
    const int32_t* left_edge; ///< column slab: H[R], E[R] left of band d's rows, then corner H; or null
    int32_t* right_edge;      ///< column slab: H[R], E[R] of the last column for band d - B; or null
    uint64_t* stamps;         ///< diagonal trace: per blockIdx, %globaltimer at its start, short-phase end and end; or null
    int64_t d;                ///< external diagonal
    int64_t bands;            ///< number of bands
    int32_t blocks;           ///< B
    int32_t block_cols;       ///< C
    int32_t b_first;          ///< block column of blockIdx.x == 0
    int32_t open;             ///< gap_open
    int32_t ext;              ///< gap_extend
    int32_t ext_f;            ///< min(gap_extend, gap_open): F below a thread's top row (see step)
    int32_t diag_match;       ///< kEquality: open + match, folded into the diagonal term (see step)
    int32_t diag_other;       ///< kEquality: open + other, for every other pair
    int32_t other_bytes;      ///< kBytes: open + other in each of the 4 bytes
    int32_t match_flip;       ///< kBytes: turns byte a of other_bytes into open + match (load_codes)
    const int32_t* diag_table;  ///< kTable: kTableWords diagonal terms (see kTableStride), or null
};

/// Byte mode (match/mismatch whose diagonal terms fit in a signed byte, as for every such
/// preset): each row keeps a word whose byte c is open + s(row, c) for c = 0..3 (load_codes),
/// and one prmt picks the byte of the column's code c (bytes 4..7, S1's other code, come from
/// other_bytes), sign-extended. That is one instruction where compare-and-select takes two.
__device__ __forceinline__ int32_t byte_select(int32_t row_word, int32_t other_bytes,
                                               uint32_t selector) {
    int32_t out;
    asm("prmt.b32 %0, %1, %2, %3;" : "=r"(out) : "r"(row_word), "r"(other_bytes), "r"(selector));
    return out;
}

/// prmt selector for code c: byte 0 copies byte c, bytes 1-3 replicate its sign bit (nibble
/// msb set), so the result is the sign-extended byte.
__device__ __forceinline__ uint32_t byte_selector(int32_t c) {
    return static_cast<uint32_t>(c) * 0x1111u + 0x8880u;
}

/// open + s(row, column) for the row's L.code and the column's S1 code c (see Substitution).
template <Substitution kSub>
__device__ __forceinline__ int32_t diagonal_term(int32_t code, int32_t c, uint32_t selector, const PhaseArgs& p,
                                                 const int32_t* table) {
    if constexpr (kSub == Substitution::kBytes)
        return byte_select(code, p.other_bytes, selector);
    else if constexpr (kSub == Substitution::kEquality)
        return code == c ? p.diag_match : p.diag_other;
    else
        return table[code + c];
}

/// Registers of one thread: alpha consecutive rows (row_r = top + r) of one band.
template <int A>
struct Lane {
    int32_t ho[A];     ///< H(row_r, j-1) - open, j the column about to be computed
    int32_t e[A];      ///< E(row_r, j-1)
    int32_t hdiag_o;   ///< H(top-1, j-1) - open
    int32_t fbot;      ///< F(row_{A-1}, j-1): handed to the thread below with ho[A-1]
    int32_t code[A];   ///< row_r's S0 code (kEquality), word of diagonal terms (kBytes) or table offset (kTable)
    int32_t best[A];   ///< best H of row_r since the last flush (0: none)
    int32_t tag[A];    ///< where best[r] was first reached (a step or a column; see flush)
};

/// Words per thread in a saved state slot, and the slot size of one block.
template <int A>
constexpr int kStateWords = 2 * A + 2;
template <int A>
constexpr int kSlotWords = kStateWords<A> * kWarp;

/// One column of the thread's rows. Invariant on entry, in DP notation with j the column:
///   L.ho[r] = H(r, j-1) - open, L.e[r] = E(r, j-1), L.hdiag_o = H(top-1, j-1) - open,
///   up_o = H(top-1, j) - open, up_f = F(top-1, j), c = S1 code of column j.
/// On exit the same holds for column j+1 (with the next up values).
/// The diagonal term H(r-1, j-1) + s(r, j) is formed as (H(r-1, j-1) - open) + (open + s)
/// so H - open is the only form of H kept: it feeds E, F and the diagonal alike.
/// Short F chain: with H'(r) = max(0, H(r-1, j-1) + s, E(r, j)), H(r) = max(H'(r), F(r)) and
///   F(r+1) = max(F(r) - ext, H(r) - open) = max(F(r) - min(ext, open), H'(r) - open)
/// (p.ext_f is min(ext, open)). H' needs nothing from the rows above in this column, so the
/// only dependency running down the column is one add-max per row, not three: a shorter
/// critical path per step, which the scheduler fills with other rows' work (7% on 8M x 8M).
/// Per cell, sm_90 SASS has five instructions on the half-rate integer pipe (PRMT, one
/// VIADDMNMX.RELU for max(diag + s, E, 0), three VIADDMNMX for E, F and H) and one VIADD
/// (H' - open) on another pipe; the kernel is bound by that pipe. Writing H' - open as
/// max(x - open, -open) moves the VIADD onto it and was 15% slower on 8M x 8M (H100).
/// Each row's best H is tracked after the step (track_if_needed).
/// `table` is the block's copy of the diagonal terms (kTable only).
template <int A, Substitution kSub>
__device__ __forceinline__ void step(Lane<A>& L, int32_t up_o, int32_t up_f, int32_t c, const PhaseArgs& p,
                                     const int32_t* table) {
    const uint32_t selector = byte_selector(c);
    int32_t diag_o = L.hdiag_o;
    int32_t f = __viaddmax_s32(up_f, -p.ext, up_o);                      // F(top, j)
    int32_t hp_o = 0;                                                    // H'(r-1) - open
#pragma unroll
    for (int r = 0; r < A; ++r) {
        const int32_t e = __viaddmax_s32(L.e[r], -p.ext, L.ho[r]);      // E(r, j)
        const int32_t d = diag_o + diagonal_term<kSub>(L.code[r], c, selector, p, table);
        if (r > 0) f = __viaddmax_s32(f, -p.ext_f, hp_o);               // F(r, j)
        hp_o = __vimax_s32_relu(d, e) - p.open;                          // H'(r, j) - open
        const int32_t ho = __viaddmax_s32(f, -p.open, hp_o);            // H(r, j) - open
        diag_o = L.ho[r];                                                // H(r, j-1) - open
        L.ho[r] = ho;
        L.e[r] = e;
    }
    L.hdiag_o = up_o;
    L.fbot = f;
}

/// Fresh rows at the left edge of the matrix: H(r, 0) = 0, E(r, 0) = -inf, H(top-1, 0) = 0.
template <int A>
__device__ __forceinline__ void start_rows(Lane<A>& L, const PhaseArgs& p) {
#pragma unroll
    for (int r = 0; r < A; ++r) {
        L.ho[r] = -p.open;
        L.e[r] = kNegInf;
    }
    L.hdiag_o = -p.open;
    L.fbot = kNegInf;
}

/// Rows of a column slab start from the left neighbour's last column: H(r, -1) and E(r, -1)
/// of this thread's rows, and H(top-1, -1) from the row above (the corner for thread 0).
/// `edge` holds H[R], E[R], then the corner H.
template <int A>
__device__ __forceinline__ void start_rows_at_edge(Lane<A>& L, const int32_t* edge, int32_t open, int t) {
    constexpr int R = A * kWarp;
#pragma unroll
    for (int r = 0; r < A; ++r) {
        L.ho[r] = edge[t * A + r] - open;
        L.e[r] = edge[R + t * A + r];
    }
    L.hdiag_o = (t == 0 ? edge[2 * R] : edge[t * A - 1]) - open;
    L.fbot = kNegInf;
}

/// The thread's rows at the last column of the matrix: H and E for the right neighbour.
template <int A>
__device__ __forceinline__ void store_right_edge(const Lane<A>& L, const PhaseArgs& p, int t) {
    constexpr int R = A * kWarp;
#pragma unroll
    for (int r = 0; r < A; ++r) {
        p.right_edge[t * A + r] = L.ho[r] + p.open;
        p.right_edge[R + t * A + r] = L.e[r];
    }
}

/// The thread's S0 codes: codes[r] is the code of row_r (global memory, or a staged copy),
/// kept in the form the substitution reads (see Lane::code).
template <int A, Substitution kSub>
__device__ __forceinline__ void load_codes(Lane<A>& L, const PhaseArgs& p, const uint8_t* codes) {
#pragma unroll
    for (int r = 0; r < A; ++r) {
        const int32_t a = codes[r];
        if constexpr (kSub == Substitution::kBytes)
            L.code[r] = a < 4 ? p.other_bytes ^ static_cast<int32_t>(static_cast<uint32_t>(p.match_flip) << (8 * a))
                              : p.other_bytes;
        if constexpr (kSub == Substitution::kEquality) L.code[r] = a;
        if constexpr (kSub == Substitution::kTable) L.code[r] = a * kTableStride;
    }
}

template <int A>
__device__ __forceinline__ void clear_best(Lane<A>& L) {
#pragma unroll
    for (int r = 0; r < A; ++r) {
        L.best[r] = 0;
        L.tag[r] = 0;
    }
}

template <int A>
__device__ __forceinline__ void save_state(const Lane<A>& L, int32_t* slot, int t) {
#pragma unroll
    for (int r = 0; r < A; ++r) {
        slot[r * kWarp + t] = L.ho[r];
        slot[(A + r) * kWarp + t] = L.e[r];
    }
    slot[2 * A * kWarp + t] = L.hdiag_o;
    slot[(2 * A + 1) * kWarp + t] = L.fbot;
}

template <int A>
__device__ __forceinline__ void load_state(Lane<A>& L, const int32_t* slot, int t) {
#pragma unroll
    for (int r = 0; r < A; ++r) {
        L.ho[r] = slot[r * kWarp + t];
        L.e[r] = slot[(A + r) * kWarp + t];
    }
    L.hdiag_o = slot[2 * A * kWarp + t];
    L.fbot = slot[(2 * A + 1) * kWarp + t];
}

/// Lane 0 writes the GPU's global nanosecond timer to `stamp` (pinned host memory, a posted
/// write) when the diagonal trace asks for it.
__device__ __forceinline__ void stamp_time(uint64_t* stamp) {
    if (stamp && threadIdx.x == 0) {
        uint64_t now;
        asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(now));
        *stamp = now;
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
/// (see diagonal_phases). Every lane fences its own bus writes, the warp barrier orders them
/// before lane 0's store of the flag (the pattern of CUDA's threadFenceReduction sample).
__device__ __forceinline__ void release_flag(int32_t* flag, int32_t value) {
    __threadfence();
    __syncwarp();
    if (threadIdx.x == 0) atomicExch(flag, value);
}

/// Spins until *flag >= value; the bus entries read after it bypass L1 (__ldcg), which is not
/// coherent within a kernel.
__device__ __forceinline__ void acquire_flag(const int32_t* flag, int32_t value) {
    while (*reinterpret_cast<const volatile int32_t*>(flag) < value) {
    }
    __threadfence();
}

/// Long phase: steps T .. C-1 of block b's band, continuing from the short phase's registers;
/// no delegation, no edge tests. Lane 0 prefetches the horizontal bus and every lane its S1
/// codes one group of Tuning::kPrefetch steps ahead, so the loads are in flight while the previous
/// group computes. The bus columns C-T+1 .. C-1 of the band above are the right neighbour's
/// delegated cells of this same diagonal (block 0's for the last block): they are loaded only
/// after its flag says its short phase wrote them.
/// Invariant on entry: L holds the band's rows after step T-1 (short phase), codes included.
template <int A, Substitution kSub>
__device__ __forceinline__ void long_phase(Lane<A>& L, const PhaseArgs& p, int32_t b, int64_t band,
                                           const int32_t* table) {
    const int t = threadIdx.x;
    const int64_t rows = int64_t{A} * kWarp;
    const int64_t col0 = int64_t{b} * p.block_cols;  // column of step 0 for lane 0

    clear_best(L);
    // H >= max(G, 1), in the H - open form of L.ho; G read once, a stale (lower) G is safe.
    const int32_t threshold_o = max(*p.best_score, 1) - p.open;
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
                up_o = bus_cur[u].x - p.open;
                up_f = bus_cur[u].y;
            }
            step<A, kSub>(L, up_o, up_f, c_cur[u], p, table);
            track_if_needed(L, s0 + u, threshold_o, p.open);
            if (t == kWarp - 1) bus_out[s0 + u] = make_int2(L.ho[A - 1] + p.open, L.fbot);
        }
    };
    const auto plain = [](const int2* q) { return *q; };
    const auto l2_only = [](const int2* q) { return __ldcg(q); };
    // Groups whose prefetch stays left of the delegated columns run first, with plain loads
    // and no test in the loop (a flag test inside it cost 12% per column on the H100); then
    // the flag is acquired once, and the rest reads through L2 (a plain load could hit an L1
    // line loaded before the neighbour wrote it). Band 0 waits for nobody: its row above is
    // the starting row, which no block writes.
    const int32_t plain_end = band > 0 ? first_delegated - 2 * Tuning::kPrefetch + 1 : p.block_cols;
    int32_t s0 = kWarp;
    const bool early = band > 0 && kWarp + Tuning::kPrefetch > first_delegated;  // C < 71
    if (early) acquire_flag(p.flags + right, static_cast<int32_t>(p.d + 1));
#pragma unroll
    for (int u = 0; u < Tuning::kPrefetch; ++u) {
        bus_next[u] = t == 0 ? (early ? __ldcg(bus_in + kWarp + u) : bus_in[kWarp + u]) : make_int2(0, 0);
        c_next[u] = s1[kWarp + u];
    }
    if (!early) {
        for (; s0 < plain_end; s0 += Tuning::kPrefetch) group(s0, plain);
        if (band > 0) acquire_flag(p.flags + right, static_cast<int32_t>(p.d + 1));
    }
    for (; s0 < p.block_cols; s0 += Tuning::kPrefetch) group(s0, l2_only);
    BestCell mine{0, 0, 0, 0};
    flush_rows(L, mine, static_cast<int32_t>(band * rows + t * A), static_cast<int32_t>(col0 - t));
    publish_best(mine, p.best + b, p.best_score);
    save_state(L, p.vbus_out + int64_t{right} * kSlotWords<A>, t);  // block 0: the wrap
}

/// One external diagonal d in one launch: every block runs its short phase, then (if its
/// band exists) its long phase, with its registers carried across. The launch is cooperative
/// (all blocks resident), so a long phase may wait on its right neighbour's short phase: that
/// flag replaces the grid-wide barrier and the second launch of CUDAlign's two kernels.
/// Short phase: the first T steps. Step s of thread t computes column b*C + s - t: for s < t
/// these are the cells delegated by the block to the left (for block 0, by the right-most
/// block of band d - B, which then restarts at column 0 of band d).
/// All lanes run every step so the shuffles stay converged; a lane without a valid band idles.
/// Every lane of block 0 loads its delegated state, lane 0 too: lane 1's first delegated cell
/// (the last column) reads lane 0's bottom row there. At the wrap (s == t) lane t holds its
/// rows at the last column, which is the right edge of a column slab.
/// The bus entries lane 0 reads (columns b*C .. b*C + T-1) are staged before the steps: the
/// only writes to them in this diagonal are this block's lane T-1 at step T-1 (column b*C),
/// after lane 0's read of it at step 0, so the staged values are the ones the steps would read.
/// With kTable, the block first copies the diagonal terms into shared memory.
template <int A, Substitution kSub>
__global__ void __launch_bounds__(kWarp) diagonal_phases(const PhaseArgs p) {
    const int t = threadIdx.x;
    const int32_t b = p.b_first + static_cast<int32_t>(blockIdx.x);
    const int64_t band = p.d - b;
    const bool main_valid = band >= 0 && band < p.bands;
    const int64_t dband = p.d - p.blocks;  // band of block 0's delegated cells
    const bool del_valid = b == 0 && dband >= 0 && dband < p.bands;
    if (!main_valid && !del_valid) return;
    uint64_t* const stamps = p.stamps ? p.stamps + 3 * blockIdx.x : nullptr;
    stamp_time(stamps);

    const int64_t rows = int64_t{A} * kWarp;
    const int64_t padded_cols = int64_t{p.block_cols} * p.blocks;
    const int64_t col0 = int64_t{b} * p.block_cols;
    __shared__ ShortStage<A> stage;
    __shared__ int32_t table[kSub == Substitution::kTable ? kTableWords : 1];
    if constexpr (kSub == Substitution::kTable)
        for (int k = t; k < kTableWords; k += kWarp) table[k] = p.diag_table[k];
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

    Lane<A> L;
    start_rows(L, p);  // lanes of block 0 without delegated cells hold defined values
    clear_best(L);
    BestCell mine{0, 0, 0, 0};
    const int32_t threshold_o = max(*p.best_score, 1) - p.open;  // see track_if_needed
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
            if (del_valid && t > 0) flush_rows(L, mine, static_cast<int32_t>(dband * rows + t * A), 0);
            if (del_valid && p.right_edge) store_right_edge(L, p, t);
            clear_best(L);
            if (main_valid) {
                if (p.left_edge)
                    start_rows_at_edge(L, stage.edge, p.open, t);
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
            up_o = v.x - p.open;
            up_f = v.y;
        }
        if (active) {
            step<A, kSub>(L, up_o, up_f, stage.s1[s - t + kWarp - 1], p, table);
            if (t == kWarp - 1) p.hbus[col] = make_int2(L.ho[A - 1] + p.open, L.fbot);
        }
        track_if_needed(L, static_cast<int32_t>(col), threshold_o, p.open, active);
    }
    if (main_valid) flush_rows(L, mine, static_cast<int32_t>(band * rows + t * A), 0);
    publish_best(mine, p.best + b, p.best_score);
    release_flag(p.flags + b, static_cast<int32_t>(p.d + 1));
    stamp_time(stamps ? stamps + 1 : nullptr);
    if (main_valid) long_phase<A, kSub>(L, p, b, band, table);
    stamp_time(stamps ? stamps + 2 : nullptr);
}

}  // namespace chromalign::kernels::cuda
