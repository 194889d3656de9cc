//! @file CudaTileWaves: a wave of the K best search's tiles, each in bands of lanes.
//!
//! A tile of a wave is cut into bands of R = A * 32 rows, and a warp runs one band across the
//! tile's columns with stage 1's cell step (cell_step.cuh), as the edge pass does a whole matrix
//! (edge_pass.cuh): lane t holds rows band * R + t * A + 1 .. + A of the tile, and at step s
//! computes its column s - t + 1. Units (tile, band) are taken in order, band by band over the
//! tiles, so a band waits only for the band above it, taken earlier; the two-slot ring, the
//! released column counts and their flags are the edge pass's. A tile's bands thus run on
//! warps all over the device, each alone on its scheduler: as the 12 warps of one block,
//! handing rows on through shared memory, they took longer (H. pylori's tiles computed again
//! after the reverse strand's alignment 1: 0.56 s against 0.51 s). Barred pairs come as per-lane
//! lists by column. A tile gives its bottom row, right column and highest H; where that H lies,
//! the host finds when it needs it (EdgeGrid::best). A tile of the matrix whose whole pass kept
//! its edges here (queue_kept) reads them where they are, and each band then writes what it
//! computed of the tile's right column (the last band, its bottom row) over them, telling
//! whether they changed: a wave costs the host its tiles and their bars up, their changes and
//! peaks home, which it does for the next waves while this one runs. Those waves run at once:
//! each on a stream of its own, its blocks started once every block of the one before has,
//! and each tile waits for the tiles of the wave before that it reads (LaneTile::wait_left,
//! wait_top), band by band, so that a wave follows the one before about a band's columns
//! behind instead of after its last band. On H. pylori (both strands, 100 alignments, one
//! H200) the reverse strand's tiles computed again after alignment 1 took 0.43 s against
//! 0.56 s (two waves in flight, the later one waiting for the earlier's end), both strands'
//! 1.13-1.20 s against 1.44-1.48 s; four in flight slowed the other strand's traceback beside
//! them, and six both.
#include "kernels/cuda/tile_waves.hpp"

#include <algorithm>
#include <climits>
#include <cstdint>
#include <cstring>
#include <vector>

#include "kernels/cuda/cuda_check.hpp"
#include "kernels/cuda/cuda_handles.hpp"
#include "kernels/cuda/device_buffer.hpp"
#include "kernels/cuda/device_codes.hpp"
#include "kernels/cuda/edge_pass.cuh"
#include "kernels/cuda/edge_pass.hpp"

namespace chromalign::kernels {
namespace {

using cuda::kNegInf;
using cuda::kWarp;
using cuda::Substitution;

/// Rows per lane: more bands to a tile than alpha 16 gives, for the narrow waves of a
/// recomputation, where a tile's bands are most of the parallelism. Fewer rows a lane make
/// shorter steps but a longer chain of bands: on H. pylori (both strands, 100 alignments, one
/// H200, with inner_chunk) the tiles computed again took 2.19-2.24 s at 8, 2.32-2.34 s at
/// 4; before it, 3.10-3.14 s at 8, 3.21-3.26 s at 4, 3.87-3.90 s at 2.
constexpr int kAlpha = 8;
constexpr int kBandRows = kAlpha * kWarp;
/// Steps between a band's waits for the band above and its releases: a band starts two chunks
/// after the one above, so a tile's chain is its columns and two chunks a band. On H. pylori
/// (both strands, 100 alignments, one H200) the tiles computed again took 2.19-2.24 s at 32
/// and 2.30-2.33 s at 64; before inner_chunk, 3.48 and 3.50 s at 64, 3.22 and 3.26 s at 32,
/// 3.52 and 3.52 s at 16.
constexpr int kLaneChunk = 32;
static_assert(kLaneChunk <= cuda::kEdgeChunk, "a chunk's steps are staged in an EdgeStage");
/// Bars a band reads from shared memory at most (8 KiB a warp): an alignment crossing a band of
/// 256 rows bars at most 256 of its cells.
constexpr int kStagedBars = 1024;
static_assert(kAlpha <= 8, "a lane's barred rows at a step fit in a byte");

/// A tile as the kernel reads it: rows top + 1 .. top + rows, columns left + 1 .. left + cols.
struct LaneTile {
    long long top, left;
    const int32_t* top_h;   ///< H of row top over the tile's columns
    const int32_t* top_f;   ///< F, the same cells
    const int32_t* corner;  ///< H(top, left)
    const int32_t* left_h;  ///< H of column left over the tile's rows
    const int32_t* left_e;  ///< E, the same cells
    /// Kept edges its bottom row (H, F) and right column (H, E) go over, telling what changed
    /// (null: none kept there, or a wave of run()).
    int32_t *keep_bottom_h, *keep_bottom_f, *keep_right_h, *keep_right_e;
    /// Where the tile it reads left of it, or above it, is computed by the run before, which
    /// may still be running: that tile's released counts (null: what it reads is final). Band
    /// b starts once the left tile's band b released wait_cols columns (it has ended, its
    /// part of the right column and, from band 0, its corner written); band 0 reads a chunk
    /// of the top row once the upper tile's last band released its columns. The edges are
    /// then read from that run's `out`, not the kept ones, which it writes at the end.
    const int32_t* wait_left;
    const int32_t* wait_top;
    long long out;   ///< in `out`: bottom H and F (cols each), right H and E (rows each), then
                     ///< H(top, left + cols), the right neighbour's corner
    long long ring;  ///< in `ring`: two rows of cols (H, F)
    int rows, cols, bands;
    int flags;       ///< its bands' released counts in `flags`
    int bar_lists;   ///< its (band, lane) lists' bounds in `bar_at`: bands * 32 + 1 of them
    int wait_cols;   ///< the left tile's columns
};

/// A lane's highest H in a tile as the tile's peak key: the highest of them is the tile's
/// highest H, and of the lanes that reach it, the first (band * 32 + lane): the one holding its
/// topmost cell, which the tie rule takes (engine/result.hpp).
__device__ __forceinline__ unsigned long long peak_key(int32_t peak, int band, int lane) {
    return static_cast<unsigned long long>(peak) << 32 | (0xffffffffu - static_cast<unsigned>(band * kWarp + lane));
}

/// A tile's highest H from its peak key, and its rows from the top down to the last of the
/// lane whose rows hold the first cell that reaches it (0: no H above 0).
struct TilePeak {
    int32_t score = 0;
    int64_t rows = 0;
};

TilePeak tile_peak(unsigned long long key, int tile_rows) {
    if (key == 0) return {};
    const int64_t lane = 0xffffffffu - static_cast<unsigned>(key & 0xffffffffu);
    return {static_cast<int32_t>(key >> 32), std::min<int64_t>(tile_rows, (lane + 1) * kAlpha)};
}

/// LaneWaveArgs::changes bits: a tile's bottom row, its last cell, its right column changed.
constexpr int32_t kBottomChanged = 1, kCornerChanged = 2, kRightChanged = 4;

struct LaneWaveArgs {
    cuda::PhaseArgs p;      ///< s0, s1 (device codes; s1 readable 32 either side, s0 a band past m), terms, table
    const LaneTile* tiles;
    const int2* units;      ///< (tile, band), band by band
    int units_count;
    unsigned long long* next_unit;
    int32_t* out;
    int2* ring;
    int32_t* flags;
    const int2* bars;       ///< (column in the tile, 1-based; bit of the lane's row) per lane, by column
    const int32_t* bar_at;  ///< list l of the wave: bars[bar_at[l] .. bar_at[l + 1])
    unsigned long long* peaks;  ///< per tile: its highest H and where it first is (peak_key)
    int32_t* changes;       ///< per tile: which of its kept edges changed (atomicOr)
};

/// Cells first .. last - 1 of a computed edge (h, g) written over the kept one (kh, kg), each
/// lane taking every 32nd; returns the lane's `bit` where one differed, its `last_bit` where
/// the last cell's H did. A batch's loads all go out before its stores. Traced on H. pylori,
/// every tile's last band (which keeps the bottom row, 96 cells a lane) ended about 0.13 ms
/// after the band above it, the others about 0.02 ms apart; batched, the tiles computed again
/// after the reverse strand's alignment 1 took about 5% less (0.58-0.59 s against 0.60-0.63).
template <int kBatch = 8>
__device__ __forceinline__ int32_t keep_cells(const int32_t* __restrict__ h, const int32_t* __restrict__ g,
                                              int32_t* __restrict__ kh, int32_t* __restrict__ kg, int first, int last,
                                              int32_t bit, int32_t last_bit) {
    int32_t changed = 0;
    for (int base = first + static_cast<int>(threadIdx.x); base < last; base += kBatch * kWarp) {
        int32_t nh[kBatch], ng[kBatch], oh[kBatch], og[kBatch];
#pragma unroll
        for (int u = 0; u < kBatch; ++u) {
            const int j = base + u * kWarp;
            if (j < last) {
                nh[u] = h[j];
                ng[u] = g[j];
                oh[u] = kh[j];
                og[u] = kg[j];
            }
        }
#pragma unroll
        for (int u = 0; u < kBatch; ++u) {
            const int j = base + u * kWarp;
            if (j < last) {
                if (nh[u] != oh[u] || ng[u] != og[u]) changed |= bit;
                if (j == last - 1 && nh[u] != oh[u]) changed |= last_bit;
                kh[j] = nh[u];
                kg[j] = ng[u];
            }
        }
    }
    return changed;
}

/// A band's share of its tile's kept edges, once the band is done: its rows of the right
/// column and, from the last band, the bottom row, from `out` over the kept ones. Every lane
/// reads what others wrote; the caller's __syncwarp orders those writes before.
__device__ __forceinline__ void keep_edges(const LaneTile& T, int band, int R, const int32_t* bottom_h,
                                           const int32_t* bottom_f, const int32_t* right_h, const int32_t* right_e,
                                           int32_t* changes) {
    int32_t changed = 0;
    if (T.keep_right_h != nullptr)
        changed |= keep_cells(right_h, right_e, T.keep_right_h, T.keep_right_e, band * R, min(T.rows, (band + 1) * R),
                              kRightChanged, 0);
    if (T.keep_bottom_h != nullptr && band + 1 == T.bands)
        changed |= keep_cells(bottom_h, bottom_f, T.keep_bottom_h, T.keep_bottom_f, 0, T.cols, kBottomChanged,
                              kCornerChanged);
    changed = static_cast<int32_t>(__reduce_or_sync(0xffffffffu, static_cast<unsigned>(changed)));
    if (threadIdx.x == 0 && changed != 0) atomicOr(changes, changed);
}

/// What a band of one tile writes as it goes, and which of its lanes write it.
struct BandSinks {
    int2* below;           ///< the ring's slot the band below reads, by tile column
    int32_t *bottom_h, *bottom_f;
    bool feeds_below;      ///< lane T-1 of a band with a band below
    bool holds_bottom;     ///< the lane whose rows end with the tile's last row
    int valid;             ///< the lane's rows in the tile (0 .. A)
};

/// What a step writes once L holds column j: the ring for the band below (lane T-1), and on
/// the lane holding the tile's last row, that row's H and its F, from the true H above.
template <int A>
__device__ __forceinline__ void band_outputs(const cuda::Lane<A>& L, const BandSinks& o, int j, int32_t up_o,
                                             int32_t up_f, int32_t open, int32_t ext) {
    if (o.feeds_below) o.below[j] = make_int2(L.ho[A - 1] + open, L.fbot);
    if (o.holds_bottom) {  // F down the lane's rows to its last valid one
        int32_t f = max(up_f - ext, up_o);
#pragma unroll
        for (int r = 1; r < A; ++r)
            if (r < o.valid) f = max(f - ext, L.ho[r - 1]);
        int32_t h = L.ho[0];
#pragma unroll
        for (int r = 1; r < A; ++r)
            if (r < o.valid) h = L.ho[r];
        o.bottom_h[j] = h + open;
        o.bottom_f[j] = f;
    }
}

/// The steps c0 .. c0 + kLaneChunk - 1 of a chunk in which every lane is inside the tile, short
/// of its last column, and holds A rows of it: no test but which lanes write.
/// kBottom: the tile's last band, where a lane holds its last row. Same invariant as
/// lane_band's. A lone warp's step is bound by its instructions' latency, and the tests cost
/// half of them: a tile of 3072 x 3072 alone on an H200 took 1.42 ms with every step tested,
/// 0.8 ms with this (and H. pylori's tiles computed again 2.25 s against 3.14 s). ncu then put
/// a fifth of a step's stall samples on the branch that left a lane's rows past the tile out
/// of its peak, hence whole lanes only. The same split of the edge pass, whose many warps hide
/// latency, made its first pass slower (3.85-3.92 s against 3.75-3.78).
/// kBarred: the chunk bars cells, bits[u] (the lane's) the rows it bars at step c0 + u. An
/// alignment crosses every band of its tiles in turn, so a chunk of each bars some cells; run
/// with every step tested, those chunks held up each tile's chain of bands (a wave with such a
/// tile took 1.4-1.6 ms, another 0.7 ms).
template <int A, Substitution kSub, bool kBottom, bool kBarred>
__device__ __forceinline__ void inner_chunk(cuda::Lane<A>& L, int32_t& peak_o, const cuda::EdgeStage& stage, int c0,
                                            const BandSinks& o, const cuda::PhaseArgs& p, const int32_t* table,
                                            const uint8_t* bits) {
    const int t = threadIdx.x;
    const int32_t open = p.terms.open;
    BandSinks at = o;  // the sinks at the lane's column of step c0, indexed by u
    at.below += c0 - t;
    at.bottom_h += c0 - t;
    at.bottom_f += c0 - t;
    at.valid = A;
    if constexpr (!kBottom) at.holds_bottom = false;
#pragma unroll 8
    for (int u = 0; u < kLaneChunk; ++u) {
        const int2 bus = stage.bus[u];
        int32_t up_o = __shfl_up_sync(0xffffffffu, L.ho[A - 1], 1);
        int32_t up_f = __shfl_up_sync(0xffffffffu, L.fbot, 1);
        up_o = t == 0 ? bus.x - open : up_o;
        up_f = t == 0 ? bus.y : up_f;
        const int32_t code = stage.s1[u - t + kWarp - 1];
        if constexpr (kBarred)
            cuda::step<A, kSub, true>(L, up_o, up_f, code, p, table, bits[u]);
        else
            cuda::step<A, kSub>(L, up_o, up_f, code, p, table);
        peak_o = cuda::lane_peak(L, peak_o, at.valid);
        band_outputs(L, at, u, up_o, up_f, open, p.terms.ext);
    }
}

/// One band of one tile. Invariant before step s (lanes with s - t in [0, cols)): L holds the
/// lane's rows at tile column s - t as step() wants them; peak_o = max(H - open) of its rows in
/// the tile so far; `bar` is its first barred cell at column s - t + 1 or after.
template <int A, Substitution kSub>
__device__ __forceinline__ void lane_band(const LaneWaveArgs& a, int tile, int band, const int32_t* table,
                                          cuda::EdgeStage& stage, int2* staged_bars, uint8_t* staged_bits) {
    constexpr int R = A * kWarp;
    const int t = threadIdx.x;
    const LaneTile T = a.tiles[tile];
    const int32_t open = a.p.terms.open;
    const int first = band * R + t * A;  // the lane's rows: first + 1 .. first + A of the tile
    const int valid = min(max(T.rows - first, 0), A);
    const int32_t* const left_h = T.left_h;
    const int32_t* const left_e = T.left_e;
    int32_t* const bottom_h = a.out + T.out;
    int32_t* const bottom_f = bottom_h + T.cols;
    int32_t* const right_h = bottom_f + T.cols;
    int32_t* const right_e = right_h + T.rows;
    const int2* const in = a.ring + T.ring + ((band + 1) & 1) * T.cols;
    int2* const out = a.ring + T.ring + (band & 1) * T.cols;
    const bool last_band = band + 1 == T.bands;
    const BandSinks sinks{out, bottom_h, bottom_f, t == kWarp - 1 && !last_band,
                          valid > 0 && first + valid == T.rows,  // the tile's last row is its row valid - 1
                          valid};
    // The band's lists, one after another in `bars`, are read from shared memory where they
    // fit: a lane reads its next bar at the step that meets one, and from global memory each
    // such read cost a trip to L2 while the warp waited. Those steps run along an alignment
    // through every band of its tiles, so they held up each tile's chain of bands (a tile
    // with a long alignment's pairs took 1.6-2.8 ms, another 0.9 ms).
    const int lists = T.bar_lists + band * kWarp;
    const int2* const band_bars = a.bars + a.bar_at[lists];
    const int band_count = a.bar_at[lists + kWarp] - a.bar_at[lists];
    const int2* bars = band_bars;
    if (band_count <= kStagedBars) {
        __syncwarp();  // the band before's lanes are done with theirs
        for (int k = t; k < band_count; k += kWarp) staged_bars[k] = band_bars[k];
        __syncwarp();
        bars = staged_bars;
    }
    const int2* bar = bars + (a.bar_at[lists + t] - a.bar_at[lists]);
    const int2* const bar_end = bars + (a.bar_at[lists + t + 1] - a.bar_at[lists]);
    int next_bar = 0;
    const auto bars_taken = [&] { next_bar = bar < bar_end ? bar->x : INT_MAX; };  // up to `bar`
    bars_taken();

    // The left column through L2: the run before may have written it since this one began.
    if (T.wait_left != nullptr) cuda::acquire_flag(T.wait_left + band, T.wait_cols);
    cuda::Lane<A> L;
#pragma unroll
    for (int r = 0; r < A; ++r) {
        L.ho[r] = (r < valid ? __ldcg(left_h + first + r) : 0) - open;
        L.e[r] = r < valid ? __ldcg(left_e + first + r) : kNegInf;
    }
    L.hdiag_o = (first == 0 ? __ldcg(T.corner) : first <= T.rows ? __ldcg(left_h + first - 1) : 0) - open;
    L.fbot = kNegInf;
    cuda::load_codes<A, kSub>(L, a.p, a.p.s0 + T.top + first);
    int32_t peak_o = -open;

    const int steps = T.cols + kWarp - 1;
    // A chunk's S1 codes (count + 31 of them, two a lane) are read a chunk ahead, so that the
    // load's latency passes while the chunk before it runs.
    static_assert(kLaneChunk == kWarp, "a lane stages codes u = t and t + 32 of a chunk");
    const uint8_t* const codes = a.p.s1 + T.left - (kWarp - 1) + t;
    uint8_t code_lo = 0, code_hi = 0;
    const auto read_codes = [&](int c0) {  // the chunk at step c0
        code_lo = codes[c0];
        code_hi = t + kWarp < min(kLaneChunk, steps - c0) + kWarp - 1 ? codes[c0 + kWarp] : 0;
    };
    read_codes(0);
    // The row above, released chunk by chunk: the band above's bottom row, or for band 0 the
    // upper tile's last band where that tile runs in the wave before (else the kept edge, final).
    const int32_t* const above = band > 0 ? a.flags + T.flags + band - 1 : T.wait_top;
    for (int c0 = 0; c0 < steps; c0 += kLaneChunk) {
        const int count = min(kLaneChunk, steps - c0);
        if (above != nullptr && c0 < T.cols) cuda::acquire_flag(above, min(c0 + count, T.cols));
        for (int u = t; u < count; u += kWarp) {
            const int j = c0 + u;
            stage.bus[u] = j >= T.cols ? make_int2(0, kNegInf)
                           : band == 0 ? make_int2(__ldcg(T.top_h + j), __ldcg(T.top_f + j))
                                       : __ldcg(in + j);
            if (band == 0 && j == T.cols - 1) right_h[2 * T.rows] = stage.bus[u].x;  // the right neighbour's corner
        }
        stage.s1[t] = code_lo;
        if (t + kWarp < count + kWarp - 1) stage.s1[t + kWarp] = code_hi;
        if (c0 + kLaneChunk < steps) read_codes(c0 + kLaneChunk);
        __syncwarp();
        // Lane t's columns this chunk are c0 - t .. c0 + kLaneChunk - 1 - t; its bars' are 1-based.
        const bool whole = count == kLaneChunk && c0 >= kWarp - 1 && c0 + kLaneChunk < T.cols &&
                           __all_sync(0xffffffffu, valid == A);
        const bool inner = whole && __all_sync(0xffffffffu, next_bar > c0 + kLaneChunk - t);
        if (inner) {
            if (last_band)
                inner_chunk<A, kSub, true, false>(L, peak_o, stage, c0, sinks, a.p, table, nullptr);
            else
                inner_chunk<A, kSub, false, false>(L, peak_o, stage, c0, sinks, a.p, table, nullptr);
        } else if (whole) {  // the lane's bars of this chunk as rows a step
            uint8_t* const bits = staged_bits + t * kLaneChunk;
            for (int k = 0; k < kLaneChunk / 4; ++k) reinterpret_cast<uint32_t*>(bits)[k] = 0;
            const int first_col = c0 - t + 1;  // 1-based, step c0's: the bars before it are taken
            for (; bar < bar_end && bar->x < first_col + kLaneChunk; ++bar)
                bits[bar->x - first_col] |= static_cast<uint8_t>(bar->y);
            bars_taken();
            if (last_band)
                inner_chunk<A, kSub, true, true>(L, peak_o, stage, c0, sinks, a.p, table, bits);
            else
                inner_chunk<A, kSub, false, true>(L, peak_o, stage, c0, sinks, a.p, table, bits);
        } else {
            for (int u = 0; u < count; ++u) {
                const int s = c0 + u, j = s - t;
                int32_t up_o = __shfl_up_sync(0xffffffffu, L.ho[A - 1], 1);
                int32_t up_f = __shfl_up_sync(0xffffffffu, L.fbot, 1);
                if (t == 0) {
                    up_o = stage.bus[u].x - open;
                    up_f = stage.bus[u].y;
                }
                if (s < t || j >= T.cols) continue;  // left of the tile or done with it
                const int32_t code = stage.s1[u - t + kWarp - 1];
                // Every lane takes the barred step, with no bit where it meets no bar: lanes
                // meet an alignment's pairs at different steps, and two steps a step where
                // one does cost more than the barred step's selects.
                uint32_t barred = 0;
                if (j + 1 == next_bar) {
                    for (; bar < bar_end && bar->x == j + 1; ++bar) barred |= static_cast<uint32_t>(bar->y);
                    bars_taken();
                }
                cuda::step<A, kSub, true>(L, up_o, up_f, code, a.p, table, barred);
                peak_o = cuda::lane_peak(L, peak_o, valid);
                band_outputs(L, sinks, j, up_o, up_f, open, a.p.terms.ext);
                if (j == T.cols - 1) {
#pragma unroll
                    for (int r = 0; r < A; ++r)
                        if (r < valid) {
                            right_h[first + r] = L.ho[r] + open;
                            right_e[first + r] = L.e[r];
                        }
                }
            }
        }
        __syncwarp();  // the stage is refilled next chunk
        const int written = min(c0 + count - (kWarp - 1), T.cols);  // lane T-1's columns
        if (written > 0) cuda::release_flag(a.flags + T.flags + band, written);
    }
    if (T.keep_right_h != nullptr || T.keep_bottom_h != nullptr) {
        __syncwarp();
        keep_edges(T, band, R, bottom_h, bottom_f, right_h, right_e, a.changes + tile);
    }
    if (valid > 0 && peak_o + open > 0) atomicMax(a.peaks + tile, peak_key(peak_o + open, band, t));
}

template <int A, Substitution kSub>
__global__ void __launch_bounds__(kWarp) lane_waves(const LaneWaveArgs a) {
    __shared__ cuda::EdgeStage stage;
    __shared__ int2 staged_bars[kStagedBars];
    __shared__ uint32_t staged_bits[kWarp * kLaneChunk / 4];  // per lane, a chunk's barred rows a step
    const int t = threadIdx.x;
    int32_t* const table = cuda::block_table<kSub>();
    if constexpr (kSub == Substitution::kTable)
        for (int k = t; k < cuda::kTableWords; k += kWarp) table[k] = a.p.diag_table[k];
    __syncwarp();
    for (;;) {
        unsigned long long unit = 0;
        if (t == 0) unit = atomicAdd(a.next_unit, 1ull);
        unit = __shfl_sync(0xffffffffu, unit, 0);
        if (unit >= static_cast<unsigned long long>(a.units_count)) return;
        const int2 u = a.units[unit];
        lane_band<A, kSub>(a, u.x, u.y, table, stage, staged_bars, reinterpret_cast<uint8_t*>(staged_bits));
    }
}

/// Where a wave runs: its stream, and its buffers, taken and given back in that stream's order.
struct WaveBuffers {
    explicit WaveBuffers(cudaStream_t s) : stream(s) {}
    cudaStream_t stream;
    DeviceBuffer<char> block{stream};  ///< its tiles, units, bars, then its zeroed counters
    PinnedBuffer<char> staged;         ///< the same, on the host
    DeviceBuffer<int32_t> out{stream};
    DeviceBuffer<int2> ring{stream};
};

/// A wave launched: its outputs' words and where they land, its flags, its peak keys (its
/// changes right after them).
struct Launched {
    long long out_size;
    int32_t* out;
    int32_t* flags;
    unsigned long long* peaks;
};

class CudaTileWaves : public TileWaves {
public:
    explicit CudaTileWaves(int device) : device_(device), own_(device) {
        for (std::unique_ptr<Run>& run : runs_) run = std::make_unique<Run>(device);
        int driver = 0;
        CUDA_CHECK(cudaDriverGetVersion(&driver));
        overlap_ = driver >= 12030;  // launch completion events came with CUDA 12.3
    }
    CudaTileWaves(const CudaTileWaves&) = delete;
    CudaTileWaves& operator=(const CudaTileWaves&) = delete;

    void bind(const Sequence& s0, const Sequence& s1) override {
        CUDA_CHECK(cudaSetDevice(device_));
        kept_.clear();  // another matrix's
        // S0 a band past its end (the last band's lanes below the tile read codes), S1 with kWarp
        // codes either side (a chunk stages codes 31 left of a tile and past its end).
        const std::vector<uint8_t> h_s0 = padded_codes(s0.codes.data(), s0.length(), s0.length() + kBandRows, 4);
        std::vector<uint8_t> h_s1(static_cast<size_t>(s1.length() + 2 * kWarp), cuda::kS1Other);
        const std::vector<uint8_t> body = padded_codes(s1.codes.data(), s1.length(), s1.length(), cuda::kS1Other);
        std::copy(body.begin(), body.end(), h_s1.begin() + kWarp);
        CUDA_CHECK(cudaMemcpyAsync(s0_.reserve(h_s0.size()), h_s0.data(), h_s0.size(), cudaMemcpyHostToDevice, stream_));
        CUDA_CHECK(cudaMemcpyAsync(s1_.reserve(h_s1.size()), h_s1.data(), h_s1.size(), cudaMemcpyHostToDevice, stream_));
        CUDA_CHECK(cudaStreamSynchronize(stream_));  // the host's codes go when this returns
        bound0_ = &s0;
        bound1_ = &s1;
    }

    void run(const Sequence& s0, const Sequence& s1, const Scoring& scoring, std::vector<TileTask>& tasks,
             int) override {
        if (tasks.empty()) return;
        if (&s0 != bound0_ || &s1 != bound1_) throw Error("internal: tiles of sequences the GPU was not given");
        CUDA_CHECK(cudaSetDevice(device_));
        std::vector<LaneTile> tiles(tasks.size());
        std::vector<const Barred*> barred(tasks.size());
        std::vector<long long> at(tasks.size());  // each tile's edges in in_: top H, top F (the corner first), left H, E
        in_.clear();
        for (size_t k = 0; k < tasks.size(); ++k) {
            const TileTask& task = tasks[k];
            const size_t rows = static_cast<size_t>(task.rect.rows()), cols = static_cast<size_t>(task.rect.cols());
            at[k] = static_cast<long long>(in_.size());
            in_.insert(in_.end(), task.edges.top_h, task.edges.top_h + cols + 1);
            in_.insert(in_.end(), task.edges.top_f, task.edges.top_f + cols + 1);
            in_.insert(in_.end(), task.edges.left_h, task.edges.left_h + rows);
            in_.insert(in_.end(), task.edges.left_e, task.edges.left_e + rows);
            barred[k] = &task.barred;
        }
        const int32_t* in = up(in_d_, in_);
        for (size_t k = 0; k < tasks.size(); ++k) {
            const Rect& r = tasks[k].rect;
            const int32_t* top_h = in + at[k];
            const int32_t* top_f = top_h + r.cols() + 1;
            const int32_t* left_h = top_f + r.cols() + 1;
            tiles[k] = LaneTile{r.top, r.left, top_h + 1, top_f + 1, top_h, left_h, left_h + r.rows(),
                                nullptr, nullptr, nullptr, nullptr, nullptr, nullptr, 0, 0, static_cast<int>(r.rows()),
                                static_cast<int>(r.cols()), 0, 0, 0, 0};
        }
        if (kept_queued()) throw Error("internal: a wave of tiles run while kept tiles are queued");
        const Launched wave = launch_wave(scoring, tiles, barred, own_buffers_, nullptr, nullptr);
        out_.resize(static_cast<size_t>(wave.out_size));
        std::vector<unsigned long long> peaks(tasks.size());
        CUDA_CHECK(cudaMemcpyAsync(out_.data(), wave.out, out_.size() * 4, cudaMemcpyDeviceToHost, stream_));
        CUDA_CHECK(cudaMemcpyAsync(peaks.data(), wave.peaks, peaks.size() * 8, cudaMemcpyDeviceToHost, stream_));
        CUDA_CHECK(cudaStreamSynchronize(stream_));
        for (size_t k = 0; k < tasks.size(); ++k) {
            TileTask& task = tasks[k];
            const LaneTile& w = tiles[k];
            const int32_t* o = out_.data() + w.out;
            const int32_t* right = o + 2 * w.cols;
            if (task.sink.bottom_h) std::copy(o, o + w.cols, task.sink.bottom_h);
            if (task.sink.bottom_f) std::copy(o + w.cols, o + 2 * w.cols, task.sink.bottom_f);
            if (task.sink.right_h) std::copy(right, right + w.rows, task.sink.right_h);
            if (task.sink.right_e) std::copy(right + w.rows, right + 2 * w.rows, task.sink.right_e);
            const TilePeak peak = tile_peak(peaks[k], w.rows);
            task.best = peak.score > 0 ? AlignmentEnd{peak.score, -1, -1} : AlignmentEnd{};
            task.cell_unknown = peak.score > 0;
            task.peak_rows = peak.rows;
        }
    }

    bool whole_pass(const Sequence& s0, const Sequence& s1, const Scoring& scoring, WholePass& out) override {
        kept_.clear();  // its memory free for this pass
        if (!cuda_whole_pass(device_, stream_, s0, s1, scoring, out, kept_)) return false;
        if (kept_.m > 0) {  // the matrix's own top row and left column, which no pass writes
            const int64_t longest = std::max(kept_.m, kept_.n);
            CUDA_CHECK(cudaMemsetAsync(zeros_.reserve(static_cast<size_t>(longest)), 0, static_cast<size_t>(longest) * 4,
                                       stream_));
            const std::vector<int32_t> none(static_cast<size_t>(longest), kNoGap);
            CUDA_CHECK(cudaMemcpyAsync(no_gaps_.reserve(none.size()), none.data(), none.size() * 4, cudaMemcpyHostToDevice,
                                       stream_));
            CUDA_CHECK(cudaStreamSynchronize(stream_));
        }
        return true;
    }

    bool kept() const override { return kept_.m > 0; }

    void fetch_kept(const std::vector<KeptFetch>& fetches) override {
        if (kept_.m == 0) throw Error("internal: kept edges asked for where no pass kept them");
        CUDA_CHECK(cudaSetDevice(device_));  // a walk's threads ask too
        size_t words = 0;
        for (const KeptFetch& x : fetches) words += 2 * static_cast<size_t>(x.count);
        int32_t* const staged = fetched_.reserve(words);
        size_t at = 0;
        for (const KeptFetch& x : fetches) {
            const int64_t from = x.row ? (x.index - 1) * kept_.n + x.from : (x.index - 1) * kept_.m + x.from;
            const size_t bytes = static_cast<size_t>(x.count) * 4;
            CUDA_CHECK(cudaMemcpyAsync(staged + at, (x.row ? kept_.row_h : kept_.col_h).get() + from, bytes,
                                       cudaMemcpyDeviceToHost, stream_));
            CUDA_CHECK(cudaMemcpyAsync(staged + at + x.count, (x.row ? kept_.row_f : kept_.col_e).get() + from, bytes,
                                       cudaMemcpyDeviceToHost, stream_));
            at += 2 * static_cast<size_t>(x.count);
        }
        CUDA_CHECK(cudaStreamSynchronize(stream_));
        at = 0;
        for (const KeptFetch& x : fetches) {
            std::copy(staged + at, staged + at + x.count, x.h);
            std::copy(staged + at + x.count, staged + at + 2 * x.count, x.g);
            at += 2 * static_cast<size_t>(x.count);
        }
    }

protected:
    void launch_kept(const Scoring& scoring, std::vector<KeptTile>& kept, int slot) override {
        if (kept_.m == 0) throw Error("internal: tiles computed from kept edges where no pass kept them");
        CUDA_CHECK(cudaSetDevice(device_));
        const int64_t m = kept_.m, n = kept_.n, tr = kept_.tile_rows, tc = kept_.tile_cols;
        const int64_t bands = (m + tr - 1) / tr, columns = (n + tc - 1) / tc;
        int32_t *row_h = kept_.row_h.get(), *row_f = kept_.row_f.get();
        int32_t *col_h = kept_.col_h.get(), *col_e = kept_.col_e.get();
        // The run queued before this one, still computing: if it holds the antidiagonal before,
        // its tiles left of and above this run's are read from it as it writes them.
        Run* const before = last_run_ >= 0 && runs_[last_run_]->running ? runs_[last_run_].get() : nullptr;
        const int64_t diagonal = kept.empty() ? 0 : kept[0].band + kept[0].column;
        const bool feeds = before != nullptr && before->diagonal + 1 == diagonal;
        const auto in_before = [&](int64_t b, int64_t c) -> const LaneTile* {
            if (!feeds) return nullptr;
            const auto it = std::lower_bound(before->where.begin(), before->where.end(), std::make_pair(b, c));
            return it != before->where.end() && *it == std::make_pair(b, c)
                       ? &before->lanes[static_cast<size_t>(it - before->where.begin())]
                       : nullptr;
        };
        std::vector<LaneTile> tiles(kept.size());
        std::vector<const Barred*> barred(kept.size());
        for (size_t k = 0; k < kept.size(); ++k) {
            const int64_t b = kept[k].band, c = kept[k].column, top = b * tr, left = c * tc;
            const bool below = b + 1 < bands, right = c + 1 < columns;
            LaneTile& T = tiles[k];
            T = LaneTile{top,
                         left,
                         b == 0 ? zeros_.get() : row_h + (b - 1) * n + left,
                         b == 0 ? no_gaps_.get() : row_f + (b - 1) * n + left,
                         b == 0 || c == 0 ? zeros_.get() : row_h + (b - 1) * n + left - 1,
                         c == 0 ? zeros_.get() : col_h + (c - 1) * m + top,
                         c == 0 ? no_gaps_.get() : col_e + (c - 1) * m + top,
                         below ? row_h + b * n + left : nullptr,
                         below ? row_f + b * n + left : nullptr,
                         right ? col_h + c * m + top : nullptr,
                         right ? col_e + c * m + top : nullptr,
                         nullptr,
                         nullptr,
                         0, 0, static_cast<int>(std::min(tr, m - top)), static_cast<int>(std::min(tc, n - left)),
                         0, 0, 0, 0};
            // Where the left or upper tile is not computed before, what it gave is final in
            // the kept edges; so is the corner unless the left one is (the upper-left tile's
            // last cell changed only if its bottom row did, which the left one then reads).
            if (const LaneTile* L = in_before(b, c - 1)) {
                const int32_t* o = before->out + L->out;
                T.left_h = o + 2 * L->cols;
                T.left_e = T.left_h + L->rows;
                if (b > 0) T.corner = T.left_h + 2 * L->rows;
                T.wait_left = before->flags + L->flags;
                T.wait_cols = L->cols;
            }
            if (const LaneTile* U = in_before(b - 1, c)) {
                const int32_t* o = before->out + U->out;
                T.top_h = o;
                T.top_f = o + U->cols;
                T.wait_top = before->flags + U->flags + U->bands - 1;
            }
            barred[k] = &kept[k].barred;
        }
        Run& run = *runs_[slot];
        run.where.resize(kept.size());
        for (size_t k = 0; k < kept.size(); ++k) run.where[k] = {kept[k].band, kept[k].column};
        if (!std::is_sorted(run.where.begin(), run.where.end()))
            throw Error("internal: a run's kept tiles out of order");
        const Launched wave = launch_wave(scoring, tiles, barred, run.buffers, before ? &before->started.event : nullptr,
                                          &run.started.event);
        run.running = true;
        run.diagonal = diagonal;
        run.out = wave.out;
        run.flags = wave.flags;
        run.lanes = tiles;  // their places in `out` and `flags`, set by launch_wave
        last_run_ = slot;
        // Peaks, then changes: adjacent on the device. The run's host buffers are its own; its
        // device buffers are taken again by the run kRunSlots later, on the same stream.
        CUDA_CHECK(cudaMemcpyAsync(run.home.reserve(12 * kept.size()), wave.peaks, 12 * kept.size(),
                                   cudaMemcpyDeviceToHost, run.buffers.stream));
        CUDA_CHECK(cudaEventRecord(run.landed.event, run.buffers.stream));
    }

    void land_kept(const Scoring&, std::vector<KeptTile>& kept, int slot) override {
        Run& run = *runs_[slot];
        CUDA_CHECK(cudaEventSynchronize(run.landed.event));
        run.running = false;
        const char* const home = run.home.get();
        const int32_t* const changes = reinterpret_cast<const int32_t*>(home + 8 * kept.size());
        for (size_t k = 0; k < kept.size(); ++k) {
            const int32_t changed = changes[k];
            unsigned long long key = 0;
            std::memcpy(&key, home + 8 * k, 8);
            const TilePeak peak = tile_peak(key, run.lanes[k].rows);
            kept[k].peak = peak.score;
            kept[k].peak_rows = peak.rows;
            kept[k].bottom = (changed & kBottomChanged) != 0;
            kept[k].corner = (changed & kCornerChanged) != 0;
            kept[k].right = (changed & kRightChanged) != 0;
        }
    }

private:
    using Barred = std::vector<std::pair<int64_t, int64_t>>;

    /// `host` in `buffer`, copied before it returns (a pageable copy stages it anyway).
    template <class T>
    T* up(DeviceBuffer<T>& buffer, const std::vector<T>& host) {
        T* d = buffer.reserve(std::max<size_t>(host.size(), 1));
        if (!host.empty()) {
            CUDA_CHECK(cudaMemcpyAsync(d, host.data(), host.size() * sizeof(host[0]), cudaMemcpyHostToDevice, stream_));
            CUDA_CHECK(cudaStreamSynchronize(stream_));
        }
        return d;
    }

    /// Runs a wave of `tiles` (their edges set) with barred[k] the pairs tile k bars, in
    /// `buffers` and on their stream, after every block of the wave whose launch `after`
    /// records (null: none) has begun, and records `started` (null: none) once every block of
    /// this one has. Sets each tile's places in the wave's `out` and flags.
    Launched launch_wave(const Scoring& scoring, std::vector<LaneTile>& tiles, const std::vector<const Barred*>& barred,
                         WaveBuffers& buffers, const cudaEvent_t* after, const cudaEvent_t* started) {
        const CudaScoringTerms terms = cuda_scoring_terms(scoring);
        bars_.clear();
        bar_at_.assign(1, 0);
        long long out_size = 0, ring_size = 0;
        int flags = 0, lists = 0, most_bands = 0;
        std::vector<std::vector<int2>> per_lane;
        for (size_t k = 0; k < tiles.size(); ++k) {
            LaneTile& T = tiles[k];
            T.bands = (T.rows + kBandRows - 1) / kBandRows;
            T.out = out_size;
            T.ring = ring_size;
            T.flags = flags;
            T.bar_lists = lists;
            per_lane.assign(static_cast<size_t>(T.bands) * kWarp, {});
            for (const auto& [i, j] : *barred[k]) {
                const int row = static_cast<int>(i - T.top - 1);  // 0-based in the tile
                per_lane[static_cast<size_t>(row / kAlpha)].push_back(int2{static_cast<int>(j - T.left), 1 << (row % kAlpha)});
            }
            for (std::vector<int2>& l : per_lane) {
                std::stable_sort(l.begin(), l.end(), [](const int2& x, const int2& y) { return x.x < y.x; });
                bars_.insert(bars_.end(), l.begin(), l.end());
                bar_at_.push_back(static_cast<int32_t>(bars_.size()));
            }
            out_size += 2 * T.cols + 2 * T.rows + 1;
            ring_size += 2 * T.cols;
            flags += T.bands;
            lists += T.bands * kWarp;
            most_bands = std::max(most_bands, T.bands);
        }
        std::vector<int2> units;  // band by band over the tiles: every tile starts at once
        for (int b = 0; b < most_bands; ++b)
            for (size_t k = 0; k < tiles.size(); ++k)
                if (b < tiles[k].bands) units.push_back(int2{static_cast<int>(k), b});
        LaneWaveArgs a{};
        a.p.s0 = s0_.get();
        a.p.s1 = s1_.get() + kWarp;
        a.p.terms = terms;
        if (terms.substitution == Substitution::kTable) {
            // Up once for a search's scoring: a copy from pageable memory would wait for the
            // run queued before this one.
            std::vector<int32_t> table = device_table(terms);
            if (table != table_up_) {
                CUDA_CHECK(cudaMemcpyAsync(table_.reserve(table.size()), table.data(), table.size() * 4,
                                           cudaMemcpyHostToDevice, stream_));
                CUDA_CHECK(cudaStreamSynchronize(stream_));
                table_up_ = std::move(table);
            }
            a.p.diag_table = table_.get();
        }
        // The wave's inputs and zeroed counters in one block, so that one copy takes them up.
        const auto aligned = [](size_t bytes) { return (bytes + 15) / 16 * 16; };
        const size_t at_units = aligned(tiles.size() * sizeof(LaneTile));
        const size_t at_bars = at_units + aligned(units.size() * sizeof(int2));
        const size_t at_bar_at = at_bars + aligned(bars_.size() * sizeof(int2));
        const size_t at_zero = at_bar_at + aligned(bar_at_.size() * 4);  // flags, peaks, changes, next
        const size_t at_peaks = at_zero + aligned(static_cast<size_t>(flags) * 4);
        const size_t at_next = at_peaks + aligned(12 * tiles.size());
        const size_t size = at_next + sizeof(unsigned long long);
        char* const host = buffers.staged.reserve(size);
        std::memcpy(host, tiles.data(), tiles.size() * sizeof(LaneTile));
        std::memcpy(host + at_units, units.data(), units.size() * sizeof(int2));
        if (!bars_.empty()) std::memcpy(host + at_bars, bars_.data(), bars_.size() * sizeof(int2));
        std::memcpy(host + at_bar_at, bar_at_.data(), bar_at_.size() * 4);
        std::memset(host + at_zero, 0, size - at_zero);
        char* const block = buffers.block.reserve(size);
        CUDA_CHECK(cudaMemcpyAsync(block, host, size, cudaMemcpyHostToDevice, buffers.stream));
        a.tiles = reinterpret_cast<const LaneTile*>(block);
        a.units = reinterpret_cast<const int2*>(block + at_units);
        a.units_count = static_cast<int>(units.size());
        a.bars = reinterpret_cast<const int2*>(block + at_bars);
        a.bar_at = reinterpret_cast<const int32_t*>(block + at_bar_at);
        a.flags = reinterpret_cast<int32_t*>(block + at_zero);
        a.peaks = reinterpret_cast<unsigned long long*>(block + at_peaks);
        a.changes = reinterpret_cast<int32_t*>(a.peaks + tiles.size());
        a.next_unit = reinterpret_cast<unsigned long long*>(block + at_next);
        a.out = buffers.out.reserve(static_cast<size_t>(std::max<long long>(out_size, 1)));
        a.ring = buffers.ring.reserve(static_cast<size_t>(std::max<long long>(ring_size, 1)));
        if (resident_ == 0) {
            int per_sm = 0, sms = 0;
            CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, lane_waves<kAlpha, Substitution::kBytes>,
                                                                     kWarp, 0));
            CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device_));
            resident_ = std::max(1, per_sm * sms);
        }
        // A wave's blocks start once every block of the one before it has (`after`), and each
        // waits only for that wave and itself, so every wait ends. No more blocks than a run in
        // flight's share of the device, so that the waves in flight fit at once even where
        // the device started them out of order.
        const int share = std::max(1, resident_ / kRunsInFlight);
        const unsigned blocks = static_cast<unsigned>(std::max(1, std::min(share, a.units_count)));
        if (after) CUDA_CHECK(cudaStreamWaitEvent(buffers.stream, *after, 0));
        cudaLaunchConfig_t config{};
        config.gridDim = dim3(blocks);
        config.blockDim = dim3(kWarp);
        config.stream = buffers.stream;
        cudaLaunchAttribute begun[1];
        begun[0].id = cudaLaunchAttributeLaunchCompletionEvent;
        begun[0].val.launchCompletionEvent.event = started ? *started : nullptr;
        begun[0].val.launchCompletionEvent.flags = 0;
        config.attrs = begun;
        config.numAttrs = started && overlap_ ? 1 : 0;
        switch (terms.substitution) {
        case Substitution::kBytes: CUDA_CHECK(cudaLaunchKernelEx(&config, lane_waves<kAlpha, Substitution::kBytes>, a)); break;
        case Substitution::kEquality:
            CUDA_CHECK(cudaLaunchKernelEx(&config, lane_waves<kAlpha, Substitution::kEquality>, a));
            break;
        case Substitution::kTable: CUDA_CHECK(cudaLaunchKernelEx(&config, lane_waves<kAlpha, Substitution::kTable>, a)); break;
        }
        // A driver without launch completion events: the next wave waits for this one's end.
        if (started && !overlap_) CUDA_CHECK(cudaEventRecord(*started, buffers.stream));
        return Launched{out_size, a.out, a.flags, a.peaks};
    }

    int device_;
    OwnStream own_;  ///< before the buffers ordered on it, which it outlives
    cudaStream_t stream_ = own_.stream;  ///< every copy and launch of this object's but the runs'
    DeviceBuffer<uint8_t> s0_{stream_}, s1_{stream_};
    const Sequence* bound0_ = nullptr;  ///< what s0_ and s1_ hold
    const Sequence* bound1_ = nullptr;
    KeptEdges kept_;                      ///< the last whole pass's edges (bind() drops them)
    DeviceBuffer<int32_t> zeros_{stream_}, no_gaps_{stream_};  ///< row 0 and column 0 of the kept matrix: H 0, no gap
    WaveBuffers own_buffers_{stream_};  ///< run()'s
    PinnedBuffer<int32_t> fetched_;  ///< kept edges on their way home
    /// A run of kept tiles in flight (queue_kept), in a slot of its own: its stream, buffers
    /// and events, and what the run after it reads of it while it computes.
    struct Run {
        explicit Run(int device) : own(device) {}
        OwnStream own;  ///< before the buffers ordered on it
        WaveBuffers buffers{own.stream};
        PinnedBuffer<char> home;  ///< its peaks and changes, once `landed`
        Event landed, started;    ///< its outputs are home; every block of it has begun
        bool running = false;     ///< queued and not landed
        int64_t diagonal = 0;
        std::vector<std::pair<int64_t, int64_t>> where;  ///< its tiles (band, column), sorted
        std::vector<LaneTile> lanes;                     ///< the same, as the kernel has them
        const int32_t* out = nullptr;                    ///< its `out` and flags on the device
        const int32_t* flags = nullptr;
    };
    std::unique_ptr<Run> runs_[kRunSlots];  ///< by TileWaves' slot
    int last_run_ = -1;                     ///< the slot queued last (-1: none yet)
    /// Whether the driver records an event once every block of a launch has begun, which
    /// lets a wave start while the one before runs; else each waits for the one before.
    bool overlap_ = true;
    int resident_ = 0;            ///< warps the device holds at once (0: not asked yet)
    DeviceBuffer<int32_t> table_{stream_}, in_d_{stream_};
    std::vector<int32_t> table_up_;  ///< what table_ holds
    std::vector<int32_t> in_, out_, bar_at_;
    std::vector<int2> bars_;
};

}  // namespace

std::unique_ptr<TileWaves> make_cuda_tile_waves(int device) { return std::make_unique<CudaTileWaves>(device); }

}  // namespace chromalign::kernels
