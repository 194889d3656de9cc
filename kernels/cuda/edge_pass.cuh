//! @file The K best search's first pass as one kernel (TileWaves::whole_pass): every cell of
//! the matrix, no pair barred, kept only as an EdgeGrid keeps it: the tiles' edges and each
//! tile's highest H.
//!
//! The work comes in units of (band, slab): R = A * 32 rows by a slab of columns. A warp runs
//! a unit with stage 1's cell step (cell_step.cuh): lane t holds rows band * R + t * A + 1 ..
//! + A, and at step s computes 0-based column j = j0 + s - t of them (the slab's columns are
//! j0 .. j1 - 1). Units are taken from a counter in order, every band of a slab before the next
//! slab, and a unit waits only for units taken before it (the band above, its own band's slab
//! to the left), which are running or done: any grid size makes progress, and no launch needs
//! the whole grid resident. Band k's bottom row goes to ring slot k & 1 for band k + 1; band
//! k + 2 writes a column of that slot only after band k + 1 released a count past it, which
//! it does after reading it, so two slots are enough.
#pragma once

#include <cstdint>

#include "kernels/cuda/block_agent.cuh"

namespace chromalign::kernels::cuda {

/// Steps between a unit's waits for the band above and its own releases. A band starts two
/// chunks after the one above, so a slab's bands start one per 2 x kEdgeChunk steps, and every
/// resident warp is busy only while a unit (slab_cols steps) outlasts (resident warps) x 2 x
/// kEdgeChunk steps of them. On H. pylori (11 slabs of 150k columns, 2112 warps, an H200),
/// 128 left 69% of ncu's stall samples on the flags' spin; 64 took a strand's first pass
/// (its edges' copies included) from 4.0 s to 3.25 s, and 32 the whole search (both
/// strands, 6 slabs) from 6.80-6.84 s to 6.53-6.71 s.
constexpr int kEdgeChunk = 32;

struct EdgePassArgs {
    PhaseArgs p;  ///< s0 and s1 (padded device codes; s1 readable 32 either side), terms, diag_table
    int64_t m, n;  ///< the matrix's rows and columns
    int64_t bands, slabs, slab_cols;
    int64_t unit_end;  ///< this launch's warps take units below this
    int64_t tile_rows, tile_cols, tile_columns;  ///< tile_rows is a multiple of R
    int2* ring;          ///< 2 rows of n: (H, F) of a band's bottom row
    int32_t* progress;   ///< per band: 1 + the last column of its bottom row written, released
    unsigned long long* next_unit;  ///< the pass's units taken so far, over all its launches
    int32_t* state;      ///< per band, kSlotWords<A>: its lanes after its last slab's last column
    int32_t *row_h, *row_f;  ///< [(b - 1) * n + j]: row b * tile_rows, 0-based column j
    int32_t *col_h, *col_e;  ///< [(c - 1) * m + i]: 0-based row i, column c * tile_cols
    int32_t* peaks;          ///< per tile, row-major: the highest H (atomicMax)
};

/// What a unit reads at the steps of one chunk, staged before them.
struct EdgeStage {
    int2 bus[kEdgeChunk];              ///< lane 0's (H, F) from the row above at step c0 + u
    uint8_t s1[kEdgeChunk + kWarp];    ///< [u - t + T - 1]: lane t's S1 code at step c0 + u
};

/// load_state through L2: a band's slot is written by whichever warp ran its last slab, in
/// this same launch, where L1 is not coherent.
template <int A>
__device__ __forceinline__ void load_state_l2(Lane<A>& L, const int32_t* slot, int t) {
#pragma unroll
    for (int r = 0; r < A; ++r) {
        L.ho[r] = __ldcg(slot + r * kWarp + t);
        L.e[r] = __ldcg(slot + (A + r) * kWarp + t);
    }
    L.hdiag_o = __ldcg(slot + 2 * A * kWarp + t);
    L.fbot = __ldcg(slot + (2 * A + 1) * kWarp + t);
}

/// The largest of v[0 .. N): three-way maxima a level at a time, what a level leaves over
/// passed on, so (N - 1) / 2 of them for odd N, as a chain takes, at depth log3 N. A lone
/// warp's step (the search's waves) waits on each link of a chain; the edge pass's many warps
/// hide it.
template <int N>
__device__ __forceinline__ int32_t max_tree(const int32_t (&v)[N]) {
    if constexpr (N == 1) {
        return v[0];
    } else if constexpr (N == 2) {
        return max(v[0], v[1]);
    } else {
        int32_t next[N / 3 + N % 3];
#pragma unroll
        for (int k = 0; k < N / 3; ++k) next[k] = __vimax3_s32(v[3 * k], v[3 * k + 1], v[3 * k + 2]);
#pragma unroll
        for (int k = 0; k < N % 3; ++k) next[N / 3 + k] = v[N - N % 3 + k];
        return max_tree(next);
    }
}

/// max(peak_o, H(r, j) - open) over the lane's rows that are in the matrix (r < valid). Where
/// the caller's `valid` is the constant A, the test folds away and no branch is left.
template <int A>
__device__ __forceinline__ int32_t lane_peak(const Lane<A>& L, int32_t peak_o, int valid) {
    if (valid == A) {
        int32_t v[A + 1];
#pragma unroll
        for (int r = 0; r < A; ++r) v[r] = L.ho[r];
        v[A] = peak_o;
        return max_tree(v);
    } else {
#pragma unroll
        for (int r = 0; r < A; ++r)
            if (r < valid) peak_o = max(peak_o, L.ho[r]);
    }
    return peak_o;
}

/// One unit. Invariant before step s (lanes with k = s - t in [0, width)): L holds the lane's
/// rows at column j0 + k - 1 as step() wants them, peak_o = max(H - open) of its real rows over
/// the columns since the last cut (a tile's last column or the slab's), `cut` is the next,
/// counted from j0 as k is, and `tile` the tile column of the columns up to it. kFull: every
/// lane's rows are in the matrix (every band but a last one that m cuts), so the peak takes all
/// A of them with no test; the steps count within the slab in 32 bits, which a step's tests and
/// stores want fewer instructions for than the matrix's 64-bit columns.
template <int A, Substitution kSub, bool kFull>
__device__ __forceinline__ void edge_unit(const EdgePassArgs& a, int64_t band, int64_t slab, const int32_t* table,
                                          EdgeStage& stage) {
    constexpr int R = A * kWarp;
    const int t = threadIdx.x;
    const int32_t open = a.p.terms.open;
    const int64_t j0 = slab * a.slab_cols, j1 = min(j0 + a.slab_cols, a.n);
    const int width = static_cast<int>(j1 - j0);  // a slab's columns: EdgePassArgs::slab_cols fits
    const int64_t first = band * R + t * A;  // the lane's rows: first + 1 .. first + A
    const int valid = kFull ? A : static_cast<int>(min(max(a.m - first, int64_t{0}), int64_t{A}));
    const int64_t bottom = (band + 1) * R;
    const bool kept = t == kWarp - 1 && bottom < a.m && bottom % a.tile_rows == 0;
    // Pointers at the slab's column j0, indexed by k.
    int32_t* const kept_h = a.row_h + (kept ? (bottom / a.tile_rows - 1) * a.n : 0) + j0;
    int32_t* const kept_f = a.row_f + (kept_h - a.row_h);
    int32_t* const peaks = a.peaks + (valid > 0 ? first / a.tile_rows : 0) * a.tile_columns;
    const int2* const in = a.ring + ((band + 1) & 1) * a.n;
    int2* const out = a.ring + (band & 1) * a.n + j0;
    int32_t* const slot = a.state + band * kSlotWords<A>;

    Lane<A> L;
    if (slab == 0) {
        start_rows(L, a.p);
    } else {
        acquire_flag(a.progress + band, static_cast<int32_t>(j0));  // its slab to the left saved its lanes
        load_state_l2(L, slot, t);
    }
    load_codes<A, kSub>(L, a.p, a.p.s0 + first);
    int32_t peak_o = -open;
    // The tile column of the lane's columns until the next cut, counted on at each cut rather
    // than divided out there: the cut's branch runs once a lane, on 32 steps of the warp, and
    // its four 64-bit divisions made that chunk several times as long as another. A slow chunk
    // delays every band below it in the slab's chain, so they cost the pass more than their
    // instructions: H. pylori's forward strand 1.51-1.63 s against 1.64-1.69 s (one H200).
    int64_t tile = j0 / a.tile_cols;
    int cut = static_cast<int>(min((tile + 1) * a.tile_cols, j1) - 1 - j0);

    const int steps = width + kWarp - 1;
    for (int c0 = 0; c0 < steps; c0 += kEdgeChunk) {
        const int count = min(kEdgeChunk, steps - c0);
        // Loaded here, after the wait, not while the chunk before computes: taking the next
        // chunk's bus early where the band above had released it did not shorten the pass.
        if (band > 0 && c0 < width)
            acquire_flag(a.progress + band - 1, static_cast<int32_t>(j0 + min(c0 + count, width)));
        for (int u = t; u < count; u += kWarp) {
            const int k = c0 + u;
            stage.bus[u] = band == 0 || k >= width ? make_int2(0, kNegInf) : __ldcg(in + j0 + k);
        }
        for (int u = t; u < count + kWarp - 1; u += kWarp) stage.s1[u] = a.p.s1[j0 + c0 + u - (kWarp - 1)];
        __syncwarp();
#pragma unroll 4
        for (int u = 0; u < count; ++u) {
            const int k = c0 + u - t;
            int32_t up_o = __shfl_up_sync(0xffffffffu, L.ho[A - 1], 1);
            int32_t up_f = __shfl_up_sync(0xffffffffu, L.fbot, 1);
            if (t == 0) {
                up_o = stage.bus[u].x - open;
                up_f = stage.bus[u].y;
            }
            if (static_cast<unsigned>(k) >= static_cast<unsigned>(width)) continue;  // left of the slab or done with it
            step<A, kSub>(L, up_o, up_f, stage.s1[u - t + kWarp - 1], a.p, table);
            peak_o = lane_peak(L, peak_o, valid);
            if (t == kWarp - 1) {
                const int2 v = make_int2(L.ho[A - 1] + open, L.fbot);
                out[k] = v;
                if (kept) {
                    kept_h[k] = v.x;
                    kept_f[k] = v.y;
                }
            }
            if (k == cut) {  // the last column of tile column `tile`, of the slab, or both
                if (valid > 0 && peak_o + open > 0) atomicMax(peaks + tile, peak_o + open);
                peak_o = -open;
                const int64_t tile_end = (tile + 1) * a.tile_cols;  // 1 + its last column
                if (j0 + k + 1 == tile_end && tile_end < a.n) {  // the left edge of tile column tile + 1
                    const int64_t at = tile * a.m + first;
#pragma unroll
                    for (int r = 0; r < A; ++r)
                        if (r < valid) {
                            a.col_h[at + r] = L.ho[r] + open;
                            a.col_e[at + r] = L.e[r];
                        }
                }
                if (k + 1 == width && j1 < a.n) save_state(L, slot, t);  // for the slab to the right
                ++tile;  // short of the slab's end, the cut was the tile's last column
                cut = static_cast<int>(min(tile_end + a.tile_cols, j1) - 1 - j0);
            }
        }
        __syncwarp();  // the stage is refilled next chunk
        const int written = min(c0 + count - (kWarp - 1), width);  // lane T-1's columns
        if (written > 0) release_flag(a.progress + band, static_cast<int32_t>(j0 + written));
    }
}

/// The pass's units, taken in order by whichever warp is free, this launch's warps while fewer
/// than a.unit_end are taken. The units taken are always a prefix of the order, each held by
/// a resident warp until done, and a unit waits only for units before it: whichever launches
/// run at once, and however many of their warps are resident, every wait ends. So the next
/// launch may start while this one's last units run.
template <int A, Substitution kSub>
__global__ void __launch_bounds__(kWarp) edge_pass(const EdgePassArgs a) {
    __shared__ EdgeStage stage;
    const int t = threadIdx.x;
    int32_t* const table = block_table<kSub>();
    if constexpr (kSub == Substitution::kTable)
        for (int k = t; k < kTableWords; k += kWarp) table[k] = a.p.diag_table[k];
    __syncwarp();
    const unsigned long long units = static_cast<unsigned long long>(a.unit_end);
    for (;;) {
        unsigned long long unit = 0;
        if (t == 0) {  // take the next unit only if it is this launch's: no unit is left untaken
            unit = *reinterpret_cast<volatile unsigned long long*>(a.next_unit);
            while (unit < units) {
                const unsigned long long seen = atomicCAS(a.next_unit, unit, unit + 1);
                if (seen == unit) break;
                unit = seen;
            }
        }
        unit = __shfl_sync(0xffffffffu, unit, 0);
        if (unit >= units) return;
        const int64_t u = static_cast<int64_t>(unit);
        const int64_t band = u % a.bands;
        if ((band + 1) * A * kWarp <= a.m)
            edge_unit<A, kSub, true>(a, band, u / a.bands, table, stage);
        else
            edge_unit<A, kSub, false>(a, band, u / a.bands, table, stage);
    }
}

}  // namespace chromalign::kernels::cuda
