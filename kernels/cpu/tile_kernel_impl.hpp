//! @file The CPU tile kernel, written once over a lane type V (simd_*.hpp) and instantiated per ISA.
//!
//! Included only by the per-ISA translation units (tile_kernel_<isa>.cpp), each compiled with its
//! own -m flags. Everything here lives in an anonymous namespace and uses no inline function of
//! the standard library, so no ISA-specific copy of a shared function can reach the linker.
//!
//! Algorithm (the GPU warp's, with SIMD lanes for threads). A tile is R = L * A rows (L lanes,
//! A rows per lane) by C columns. Lane k holds rows top_k = row0 + k*A .. top_k + A - 1 and lags
//! lane k-1 by one column: at step s it computes column j = s - k, so the lanes sweep an
//! antidiagonal and lane k's top input is lane k-1's bottom output of the step before, moved one
//! lane up (shift_in); lane 0 takes the horizontal bus instead. Steps 0 .. L-2 (prologue) start
//! the lanes one by one from the left edge, steps C .. C+L-2 (epilogue) finish them one by one.
//!
//! Relative 16-bit lanes (V::kRelative). Adjacent DP cells differ by at most step = best + open
//! (best: the largest substitution score; Suzuki & Kasahara 2018 for match/mismatch), so every
//! cell of the tile lies within Bt = (R + C + 2) * step of the tile's corner H(row0 - 1, col0 - 1),
//! and so do the edges it reads. The kernel holds H - base with base = that corner;
//! CpuScoringTerms::relative16_fits demands Bt + 2 * (open + ext + best - lowest) <= 32767, so
//! H - base, H - base - open, the diagonal term and the E and F of real cells never leave int16.
//! Inputs below the range (E, F of -inf, or far below) saturate to -32768: such a value is
//! below every H - open the recurrence compares it with, so it can never win a max, and the
//! saturating subtraction keeps it there. The floor 0 becomes max(-base, -32768): when it
//! saturates, base > Bt and the floor cannot win either. Outputs are exact: the bottom F and
//! the right E are at least H(neighbour) - open, inside the range. Lanes outside the tile
//! (prologue, epilogue) may wrap around; they feed neither a lane inside the tile nor a result.
//! 32-bit lanes hold absolute scores (base 0) and -2^30 for minus infinity.
//!
//! Substitution (the S template parameter): the diagonal term open + s(a, b) comes from the
//! CpuScoringTerms of engine/scoring, either by V's own equality test for match/mismatch
//! (EqualityLookup) or by byte-table lookups for any matrix (MatrixLookup).
//!
//! Best cell (as on the GPU). A cell below G = max(best score any worker has published, this
//! worker's best, 1) can never be the answer, and G only grows. So each step takes the max of
//! its column, compares it with G, and only when some lane reaches G does examine() offer
//! that step's cells, exactly and under the tie rule, to the worker's best.
#pragma once

#include <cstddef>
#include <cstdint>

#include "kernels/cpu/tile_kernel.hpp"

namespace chromalign::kernels::cpu {
namespace {

template <class V>
typename V::Elem saturate(int64_t v) {
    return static_cast<typename V::Elem>(v < V::kMin ? V::kMin : v > V::kMax ? V::kMax : v);
}

/// Tie rule of engine/result.hpp on 0-based cells.
inline bool better_cell(int32_t score, int64_t row, int64_t col, const CellBest& b) {
    if (score != b.score) return score > b.score;
    if (row != b.row) return row < b.row;
    return col < b.col;
}

/// Match/mismatch: V's own substitution (compare and select, or its xor table), as it always was.
template <class V>
struct EqualityLookup {
    using Terms = typename V::Substitution;
    static Terms make(const CpuScoringTerms& t) { return V::make_substitution(t.diag_match, t.diag_other); }
    static typename V::Reg diagonal(const Terms& s, typename V::Reg code, typename V::Reg window) {
        return V::substitute(s, code, window);
    }
    static typename V::Elem s0_element(int code) { return V::s0_element(code); }
    static int32_t s1_element(int code) { return V::s1_element(code); }
};

/// Any matrix: the diagonal term is diag_other + t(a, b), the bytes of t looked up in the
/// tables of CpuScoringTerms::planes with V::lookup (pshufb). An S0 lane holds 4a and an S1
/// lane b in its low byte (0x80 for another code) and 0x80 in every other byte, so their or is
/// 4a + b in the low byte, or has its bit 7 set (t = 0) when either code is another; the 0x80
/// bytes make pshufb zero the rest of the lane, so a lookup gives that byte of t zero-extended.
/// 16-bit lanes take one plane (relative16_fits asks for it), 32-bit lanes up to three.
template <class V>
struct MatrixLookup {
    using Reg = typename V::Reg;
    using Elem = typename V::Elem;
    static constexpr int kMaxPlanes = sizeof(Elem) == 2 ? 1 : 3;
    struct Terms {
        typename V::Table plane[kMaxPlanes];
        int planes;
        Reg base;  ///< diag_other = open + other
    };
    static Terms make(const CpuScoringTerms& t) {
        Terms s;
        for (int p = 0; p < kMaxPlanes; ++p) s.plane[p] = V::table(t.planes[p]);
        s.planes = t.plane_count;
        s.base = V::set1(t.diag_other);
        return s;
    }
    static Reg diagonal(const Terms& s, Reg code, Reg window) {
        const Reg index = V::bit_or(code, window);
        Reg t = V::lookup(s.plane[0], index);
        if constexpr (kMaxPlanes > 1) {
            if (s.planes > 1) t = V::bit_or(t, V::shift_left(V::lookup(s.plane[1], index), 8));
            if (s.planes > 2) t = V::bit_or(t, V::shift_left(V::lookup(s.plane[2], index), 16));
        }
        return V::add(t, s.base);
    }
    static Elem s0_element(int code) { return element(code < 4 ? 4 * code : 0x80); }
    static int32_t s1_element(int code) { return element(code < 4 ? code : 0x80); }

private:
    /// `low` in the low byte, 0x80 in the others (as the lane's width truncates it).
    static Elem element(int low) { return static_cast<Elem>(static_cast<int32_t>(0x80808000u | static_cast<uint32_t>(low))); }
};

template <class V, int A, class S>
struct TileKernel {
    using Reg = typename V::Reg;
    using Elem = typename V::Elem;
    static constexpr int L = V::kLanes;
    static constexpr int64_t R = int64_t{L} * A;

    /// Scratch in elements: top_o and top_f (C + 2L each: L-1 slots before column 0 so a lane
    /// load can end at any column, and L after it for the epilogue), bot_o and bot_f (C + L),
    /// the S0 codes and a spill area for the slow path (A * L each).
    static size_t scratch_bytes(int64_t cols) {
        return sizeof(Elem) * static_cast<size_t>(4 * cols + 6 * L + 2 * A * L);
    }

    /// Per-lane state of A rows. At the top of step s, for lane k and column j = s - k:
    ///   ho[r] = H(top_k + r, j-1) - open, e[r] = E(top_k + r, j-1),
    ///   hdiag = H(top_k - 1, j-1) - open, fbot = F(top_k + A - 1, j-1).
    struct State {
        Reg ho[A];
        Reg e[A];
        Reg hdiag;
        Reg fbot;
    };

    struct Consts {
        Reg open, ext, floor;
        typename S::Terms subst;  ///< gives open + s(a, b) (see step)
        Reg code[A];              ///< S0 code of row top_k + r in lane k (S::s0_element)
    };

    /// One antidiagonal step. On entry up_o = H(top_k - 1, j) - open and up_f = F(top_k - 1, j)
    /// (lane k-1's bottom of the previous step, or the bus for lane 0), w = S1 code of column j.
    /// The diagonal term H(r-1, j-1) + s(r, j) is formed as (H(r-1, j-1) - open) + (open + s),
    /// so H - open is the only form of H kept: it feeds E, F and the diagonal alike.
    /// Returns the lane-wise max of H - open over the A rows, for the best-cell gate.
    static Reg step(State& st, const Consts& k, Reg up_o, Reg up_f, Reg w) {
        Reg diag = st.hdiag, above = up_o, f = up_f, column_max = up_o;
#pragma GCC unroll 16
        for (int r = 0; r < A; ++r) {
            const Reg e = V::max(V::subs(st.e[r], k.ext), st.ho[r]);                        // E(r, j)
            f = V::max(V::subs(f, k.ext), above);                                            // F(r, j)
            const Reg d = V::add(diag, S::diagonal(k.subst, k.code[r], w));
            // f last: it is the only operand on the dependency chain down the rows.
            const Reg h = V::max(V::max(V::max(d, e), k.floor), f);                         // H(r, j)
            diag = st.ho[r];                                                                 // H(r, j-1) - open
            above = V::sub(h, k.open);
            st.ho[r] = above;
            st.e[r] = e;
            column_max = r == 0 ? above : V::max(column_max, above);
        }
        st.hdiag = up_o;
        st.fbot = f;
        return column_max;
    }

    /// Slow path of the gate: offers every real cell of step s with H >= threshold (from the
    /// spilled H - open of `cells`) to the worker's best. Returns the new threshold.
    [[gnu::noinline, gnu::cold]] static int32_t examine(const TileArgs& a, const Elem* cells, int64_t s,
                                                        int32_t base, int32_t threshold) {
        CellBest& best = *a.best;
        for (int k = 0; k < L; ++k) {
            const int64_t col = s - k;
            if (col < 0 || col >= a.cols || a.col0 + col >= a.n) continue;  // lane not in the tile, or padding
            for (int r = 0; r < A; ++r) {
                const int64_t row = a.row0 + int64_t{k} * A + r;
                if (row >= a.m) break;  // padding rows
                const int32_t score = int32_t{cells[r * L + k]} + a.scoring->open + base;
                if (score >= threshold && better_cell(score, row, a.col0 + col, best))
                    best = CellBest{score, row, a.col0 + col};
            }
        }
        return best.score > threshold ? best.score : threshold;
    }

    static Reg gate_threshold(int32_t threshold, int32_t base, int32_t open) {
        // column_max > threshold - base - open - 1  <=>  some H >= threshold.
        return V::set1(saturate<V>(int64_t{threshold} - base - open - 1));
    }

    static void run(const TileArgs& a) {
        const CpuScoringTerms& sc = *a.scoring;
        const int64_t C = a.cols;
        Elem* const top_o = static_cast<Elem*>(a.scratch);
        Elem* const top_f = top_o + (C + 2 * L);
        Elem* const bot_o = top_f + (C + 2 * L);
        Elem* const bot_f = bot_o + (C + L);
        Elem* const codes = bot_f + (C + L);
        Elem* const cells = codes + A * L;
        const Elem* const s1w = static_cast<const Elem*>(a.s1_window) - a.col0;  // lane k, step s: s1w[k - s]
        const int64_t K = C + L - 2;  // bottom output of column c goes to bot_*[K - c]

        const int32_t base = V::kRelative && a.left ? a.left[2 * R] : 0;
        const int32_t corner_out = a.bus_h[C - 1];  // H(row0 - 1, col0 + C - 1), before the bus is overwritten

        // Top edge: top_o[L-1+c] = H(row0 - 1, col0 + c) - open, top_f[L-1+c] = F(row0 - 1, col0 + c).
        // Slack slots feed only lanes that are outside the tile; any finite value does.
        for (int64_t i = 0; i < C + 2 * L; ++i) {
            top_o[i] = saturate<V>(-int64_t{sc.open});
            top_f[i] = V::kNeg;
        }
        int64_t c = 0;
        for (; c + L <= C; c += L) {
            V::storeu(top_o + L - 1 + c, V::load_rel(a.bus_h + c, base + sc.open));
            V::storeu(top_f + L - 1 + c, V::load_rel(a.bus_f + c, base));
        }
        for (; c < C; ++c) {
            top_o[L - 1 + c] = saturate<V>(int64_t{a.bus_h[c]} - base - sc.open);
            top_f[L - 1 + c] = saturate<V>(int64_t{a.bus_f[c]} - base);
        }

        Consts k;
        k.open = V::set1(sc.open);
        k.ext = V::set1(sc.ext);
        k.floor = V::set1(saturate<V>(-int64_t{base}));
        k.subst = S::make(sc);
        for (int r = 0; r < A; ++r) {
            for (int l = 0; l < L; ++l) codes[r * L + l] = S::s0_element(a.s0[int64_t{l} * A + r]);
            k.code[r] = V::loadu(codes + r * L);
        }

        // Left edge, the state every lane starts from: H(t, col0 - 1), E(t, col0 - 1); column 0
        // of the DP (a.left null) has H = 0, E = -inf. Lane k's hdiag is the edge H of the row
        // above its first row: lane k-1's last row, or the corner for lane 0.
        State edge;
        int32_t corner_o = -sc.open;
        if (a.left) {
            for (int r = 0; r < A; ++r) {
                edge.ho[r] = V::load_rel(a.left + r * L, base + sc.open);
                edge.e[r] = V::load_rel(a.left + R + r * L, base);
            }
            corner_o = saturate<V>(int64_t{a.left[2 * R]} - base - sc.open);
        } else {
            for (int r = 0; r < A; ++r) {
                edge.ho[r] = V::set1(-sc.open);
                edge.e[r] = V::set1(V::kNeg);
            }
        }
        edge.hdiag = V::shift_in(edge.ho[A - 1], V::set1(corner_o));
        edge.fbot = V::set1(V::kNeg);

        int32_t threshold = a.threshold > a.best->score ? a.threshold : a.best->score;
        if (threshold < 1) threshold = 1;
        Reg gate = gate_threshold(threshold, base, sc.open);
        const Reg lane = V::lane_index();
        const Reg neg = V::set1(V::kNeg);
        auto check = [&](Reg column_max, int64_t s, const State& st) {
            if (!V::any_gt(column_max, gate)) return;
#pragma GCC unroll 16
            for (int r = 0; r < A; ++r) V::storeu(cells + r * L, st.ho[r]);
            threshold = examine(a, cells, s, base, threshold);
            gate = gate_threshold(threshold, base, sc.open);
        };
        auto advance = [&](State& st, int64_t s) {
            return step(st, k, V::shift_in(st.ho[A - 1], V::loadu(top_o + s)),
                        V::shift_in(st.fbot, V::loadu(top_f + s)), V::loadu(s1w - s));
        };

        State st = edge;
        // Prologue: lanes k > s have not reached column 0; they go back to the edge state.
        for (int64_t s = 0; s < L - 1; ++s) {
            const Reg column_max = advance(st, s);
            const Reg waiting = V::gt(lane, V::set1(static_cast<int32_t>(s)));
#pragma GCC unroll 16
            for (int r = 0; r < A; ++r) {
                st.ho[r] = V::select(waiting, edge.ho[r], st.ho[r]);
                st.e[r] = V::select(waiting, edge.e[r], st.e[r]);
            }
            st.hdiag = V::select(waiting, edge.hdiag, st.hdiag);
            check(V::select(waiting, neg, column_max), s, st);
        }
        // Every lane inside the tile; lane L-1 finishes column s - (L-1) of the bottom row.
        for (int64_t s = L - 1; s < C; ++s) {
            const Reg column_max = advance(st, s);
            V::storeu(bot_o + (K - s), st.ho[A - 1]);
            V::storeu(bot_f + (K - s), st.fbot);
            check(column_max, s, st);
        }
        // Epilogue: lane k finished column C-1 at step C-1+k; its state then is the right edge.
        State right = st;
        for (int64_t s = C; s < C + L - 1; ++s) {
            const Reg column_max = advance(st, s);
            V::storeu(bot_o + (K - s), st.ho[A - 1]);
            V::storeu(bot_f + (K - s), st.fbot);
            const Reg done = V::gt(V::set1(static_cast<int32_t>(s - C + 1)), lane);  // lanes k <= s - C
            check(V::select(done, neg, column_max), s, st);
            const Reg now = V::eq(lane, V::set1(static_cast<int32_t>(s - C + 1)));
#pragma GCC unroll 16
            for (int r = 0; r < A; ++r) {
                right.ho[r] = V::select(now, st.ho[r], right.ho[r]);
                right.e[r] = V::select(now, st.e[r], right.e[r]);
            }
        }

        // Bottom row out: bot_*[K - c] holds column c, so a lane load read backwards is in order.
        for (c = 0; c + L <= C; c += L) {
            V::store_abs(a.bus_h + c, V::reverse(V::loadu(bot_o + K - c - (L - 1))), base + sc.open);
            V::store_abs(a.bus_f + c, V::reverse(V::loadu(bot_f + K - c - (L - 1))), base);
        }
        for (; c < C; ++c) {
            a.bus_h[c] = int32_t{bot_o[K - c]} + base + sc.open;
            a.bus_f[c] = int32_t{bot_f[K - c]} + base;
        }
        if (a.right) {
            for (int r = 0; r < A; ++r) {
                V::store_abs(a.right + r * L, right.ho[r], base + sc.open);
                V::store_abs(a.right + R + r * L, right.e[r], base);
            }
            a.right[2 * R] = corner_out;
        }
    }
};

/// The dispatcher's table entry of TileKernel<V, A, *>, compiled for `isa` by the including file.
template <CpuIsa isa, class V, int A>
constexpr CpuKernel kernel_entry(const char* name) {
    using Equality = TileKernel<V, A, EqualityLookup<V>>;
    using Matrix = TileKernel<V, A, MatrixLookup<V>>;
    return {name, isa, 8 * static_cast<int>(sizeof(typename V::Elem)), V::kLanes, A, &Equality::scratch_bytes,
            {&Equality::run, &EqualityLookup<V>::s1_element}, {&Matrix::run, &MatrixLookup<V>::s1_element}};
}

}  // namespace
}  // namespace chromalign::kernels::cpu
