//! @file Thread-level primitives of the tile kernels: one thread's rows (Lane), the cell step, its state and edges.
#pragma once

#include <cstdint>

#include "kernels/cuda/phase_args.cuh"

namespace chromalign::kernels::cuda {

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
        return byte_select(code, p.terms.other_bytes, selector);
    else if constexpr (kSub == Substitution::kEquality)
        return code == c ? p.terms.diag_match : p.terms.diag_other;
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
/// (p.terms.ext_f is min(ext, open)). H' needs nothing from the rows above in this column, so the
/// only dependency running down the column is one add-max per row, not three: a shorter
/// critical path per step, which the scheduler fills with other rows' work (7% on 8M x 8M).
/// Per cell, sm_90 SASS has five instructions on the half-rate integer pipe (PRMT, one
/// VIADDMNMX.RELU for max(diag + s, E, 0), three VIADDMNMX for E, F and H) and one VIADD
/// (H' - open) on another pipe; the kernel is bound by that pipe. Writing H' - open as
/// max(x - open, -open) moves the VIADD onto it and was 15% slower on 8M x 8M (H100).
/// Even a warp alone on its multiprocessor (the stream's chain of bands) is bound by that
/// pipe's issue, not by the F chain's latency: taking the chain off the shuffle's path
/// (F(r) = max(F(top) - r ext_f, a chain of the thread's own rows), one add-max more a row)
/// was 6% slower there, and compare-and-select instead of PRMT (kEquality) 14% slower
/// unpruned (H200).
/// Each row's best H is tracked after the step (track_if_needed).
/// `table` is the block's copy of the diagonal terms (kTable only).
/// kBarred (the K best search's tiles, tile_waves.cu): row r's cell takes no diagonal term where
/// bit r of `barred` is set, as a pair of an alignment already found.
template <int A, Substitution kSub, bool kBarred = false>
__device__ __forceinline__ void step(Lane<A>& L, int32_t up_o, int32_t up_f, int32_t c, const PhaseArgs& p,
                                     const int32_t* table, uint32_t barred = 0) {
    const uint32_t selector = byte_selector(c);
    int32_t diag_o = L.hdiag_o;
    int32_t f = __viaddmax_s32(up_f, -p.terms.ext, up_o);                      // F(top, j)
    int32_t hp_o = 0;                                                    // H'(r-1) - open
#pragma unroll
    for (int r = 0; r < A; ++r) {
        const int32_t e = __viaddmax_s32(L.e[r], -p.terms.ext, L.ho[r]);      // E(r, j)
        int32_t d = diag_o + diagonal_term<kSub>(L.code[r], c, selector, p, table);
        if constexpr (kBarred) d = (barred >> r) & 1u ? kNegInf : d;
        if (r > 0) f = __viaddmax_s32(f, -p.terms.ext_f, hp_o);               // F(r, j)
        hp_o = __vimax_s32_relu(d, e) - p.terms.open;                          // H'(r, j) - open
        const int32_t ho = __viaddmax_s32(f, -p.terms.open, hp_o);            // H(r, j) - open
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
        L.ho[r] = -p.terms.open;
        L.e[r] = kNegInf;
    }
    L.hdiag_o = -p.terms.open;
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
        p.right_edge[t * A + r] = L.ho[r] + p.terms.open;
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
            L.code[r] = a < 4 ? p.terms.other_bytes ^ static_cast<int32_t>(static_cast<uint32_t>(p.terms.match_flip) << (8 * a))
                              : p.terms.other_bytes;
        if constexpr (kSub == Substitution::kEquality) L.code[r] = a;
        if constexpr (kSub == Substitution::kTable) L.code[r] = a * kTableStride;
    }
}

/// The thread's rows as the block to the right starts from them (the vertical bus), and back:
/// word w of lane t at slot[w * T + t], so the warp's accesses coalesce.
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

}  // namespace chromalign::kernels::cuda
