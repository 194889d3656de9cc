//! @file What the host and the tile kernels share: the launch arguments, the best-cell record, the device codes.
#pragma once

#include <cuda_runtime.h>

#include <cstdint>

#include "engine/pruning/prune_rule.hpp"
#include "engine/scheduling/launch_map.hpp"
#include "engine/scoring/scoring.hpp"
#include "engine/tiling/tile_executor.hpp"

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

/// The score map (TileExecutor::track_region_peaks): its layout and the device's peaks.
struct RegionMapArgs {
    int32_t* peaks;  ///< [region][run], zeroed; null: no map
    RegionLayout layout;
};

/// What stage 1 keeps of the band bottoms, done by the block that makes the columns final at
/// the end of its run (band_keeping.cuh), so that keeping them launches nothing of its own.
struct BandKeeping {
    static constexpr int kSlots = 8;  ///< captures at once (more wait for a copy kernel)
    int64_t band[kSlots];             ///< bands being captured, count of them
    int2* row[kSlots];                ///< n columns of (H, F) each
    int32_t count;
    int64_t n;                        ///< real columns: the rows' width
    RegionMapArgs regions;            ///< the score map's sampled bands (region_peak_band)
};

/// Everything a phase kernel needs; passed by value.
struct PhaseArgs {
    const uint8_t* s0;        ///< S0 codes, padded_rows entries (padding never matches)
    const uint8_t* s1;        ///< S1 codes, padded_cols + slack entries
    int2* hbus;               ///< horizontal bus: (H, F) of the last row computed, per column
    const int32_t* vbus_in;   ///< vertical bus written in diagonal d-1, one slot per block
    int32_t* vbus_out;        ///< vertical bus for diagonal d+1
    int32_t* flags;           ///< per block: d + 1 once diagonal d's short phase wrote its bus columns
    BestCell* best;           ///< one per block column (per record and block column: [record * blocks + b])
    int32_t* best_score;      ///< G: the best score flushed so far by any block (atomicMax); per record
    /// Stacked records (TileExecutor::stack_records): the record of each band; null: one record.
    const int32_t* band_record;
    const int32_t* left_edge; ///< column slab: H[R], E[R] left of band d's rows, then corner H; or null
    int32_t* right_edge;      ///< column slab: H[R], E[R] of the last column for band d - B; or null
    uint64_t* stamps;         ///< diagonal trace: per blockIdx, %globaltimer at its start, short-phase end and end; or null
    int64_t d;                ///< external diagonal
    int64_t bands;            ///< number of bands
    int32_t blocks;           ///< B
    int32_t block_cols;       ///< C
    LaunchMap launch;         ///< the block columns of this launch (engine/scheduling/live_window.hpp)
    CudaScoringTerms terms;   ///< open, ext, ext_f and the diagonal terms, as engine/scoring made them
    const int32_t* diag_table;  ///< kTable: kTableWords diagonal terms (see kTableStride), or null
    PruneRule prune;          ///< when a block's run is skipped (block_pruning.cuh)
    int32_t shared_best;      ///< a best score reached elsewhere, as the host knew it at the launch
    unsigned long long* pruned;  ///< real cells of the skipped runs, summed
    int32_t* dead;            ///< per blockIdx: 1 when prune_block_runs skipped its run; null: none decided
    /// Where prune_block_runs reports the live runs of diagonal d, slot d % kEdgeSlots, for the
    /// host's next windows: [0] the largest (d + 1) << 32 | b, [1] the largest
    /// (d + 1) << 32 | (B - 1 - b), over the blocks b whose run is live (atomicMax; a slot of an
    /// older diagonal is smaller); live_host is its copy in pinned host memory, and live_count
    /// counts the blocks of the slot's diagonal that have decided.
    unsigned long long* live_span;
    BandKeeping keep;         ///< count 0 and no peaks: nothing kept, diagonal_phases without its kKeep code
    unsigned long long* live_host;
    unsigned* live_count;
    /// A diagonal in two launches (short_phases, long_phases): per blockIdx, a vertical bus
    /// slot for the block's rows between its phases; null for one cooperative launch.
    int32_t* lanes;
};

/// What window_diagonals (window_kernel.cuh) adds to PhaseArgs: the diagonals of its launch,
/// what changes from one diagonal to the next, and where the kept band bottoms go.
struct WindowArgs {
    int64_t from, to;           ///< diagonals [from, to)
    int32_t* vbus[2];           ///< diagonal d writes vbus[d & 1] and reads vbus[(d + 1) & 1]
    const int32_t* edge_first;  ///< left edge of band 0: H = 0, E = -inf, the window's corner H
    const int32_t* edge_rest;   ///< left edge of every other band: H = 0, E = -inf, corner 0
    int2* kept;                 ///< n columns per kept band (TileExecutor::keep_band_bottoms), or null
    int64_t keep_every;         ///< band b is kept when (b + 1) % keep_every == 0
    int64_t n;                  ///< real columns (the kept rows' width)
};

}  // namespace chromalign::kernels::cuda
