//! @file The K best non-intersecting local alignments (issue 41) in linear memory: Waterman and
//! Eggert's definition, computed the way their "declumping" suggests.
//!
//! Alignment k is the best local alignment (tie rule of engine/result.hpp, path rule of the
//! reference traceback) that aligns no pair of alignments 1 .. k-1 (kernels/reference/
//! waterman_eggert.hpp, the oracle). Barring pairs only lowers H, and only in cells whose
//! values were reached through them, so after each alignment the matrix changes in a region
//! that starts at its pairs and ends wherever the old values come back. The matrix is cut into
//! tiles whose edges are kept (edge_grid.hpp): the tiles holding the new alignment's pairs are
//! computed again, then each tile whose edges that changes, and no other. Each tile keeps its
//! best cell (or, computed on a device, its highest H, placed when it ties for the best), so
//! the next alignment ends at the best of the tiles' bests, and its traceback walks tiles
//! computed again from their edges (grid_walk.hpp). Every step is exact: there is no candidate
//! list to trust and no bound to prove. Tracebacks of the likely next alignments are walked
//! ahead of their turn while tiles are computed again (walks_ahead.hpp), and taken only where
//! nothing they read has changed since.
#pragma once

#include <csignal>
#include <cstdint>
#include <functional>
#include <memory>
#include <vector>

#include "engine/alignment/alignment.hpp"
#include "engine/declump/grid_walk.hpp"
#include "engine/declump/tile_waves.hpp"
#include "engine/scoring/scoring.hpp"
#include "engine/sequence.hpp"
#include "engine/traceback/window_sweeper.hpp"

namespace chromalign {

struct DeclumpOptions {
    int64_t tile_rows = 1024, tile_cols = 1024;  ///< the grid whose edges are kept (>= 1)
    WalkLimits walk;
    int threads = 0;  ///< tiles of an antidiagonal computed at once (0: every core)
    /// Threads after the first pass (0: `threads`): strands searched at once share them.
    int search_threads = 0;
    int64_t cells_per_thread = int64_t{1} << 18;  ///< a thread for each this many cells of an antidiagonal
    /// A device for the first pass and antidiagonals of at least `device_cells` cells
    /// (Backend::tile_waves(), GridWorkers); null: none.
    TileWaves* device = nullptr;
    /// What computes tiles on the host (Backend::host_tile_waves()); null: CpuTileWaves.
    TileWaves* host = nullptr;
    int64_t device_cells = 0;  ///< 0: GridWorkers' default
    /// Read between antidiagonals of tiles: once a signal handler sets it, Interrupted.
    const volatile std::sig_atomic_t* stop = nullptr;
    /// When set, told of the first pass's cells computed so far (GridWorkers::on_cells).
    std::function<void(int64_t cells)> on_first_pass;
    /// When set, told once a device has queued all of the first pass (GridWorkers::on_queued).
    std::function<void()> on_first_pass_queued;
    /// Rows at least this far apart (whole bands of tiles) are those alignment 1's traceback
    /// starts from (grid_rows.hpp): about what stage 1 keeps for a bacterial pair.
    int64_t trace_row_spacing = int64_t{1} << 16;
    /// What sweeps the large windows of alignment 1's traceback over s0 x s1 (its engine's,
    /// engine/traceback/engine_sweeper.hpp); null, or giving null: one CPU thread (CpuSweeper).
    std::function<std::unique_ptr<WindowSweeper>(const Sequence& s0, const Sequence& s1)> sweeper;
    /// pair_alignments: the strands searched at once (each with its own device).
    bool strands_at_once = false;
    /// With a device that kept the first pass's edges: tracebacks walked ahead of their turn
    /// at once while tiles are computed again (walks_ahead.hpp); 0: none.
    int walks_ahead = 3;
};

/// What the search computed, for reports and tests.
struct DeclumpCounts {
    int64_t first_cells = 0;       ///< the first pass: every cell
    int64_t recomputed_cells = 0;  ///< tiles computed again after alignments
    int64_t recomputed_tiles = 0;
    double first_seconds = 0;      ///< the first pass, its edges' memory made first
    double walk_seconds = 0;       ///< the tracebacks, each from finding its best cell
    int64_t rows_traced = 0;       ///< alignments traced from the grid's rows (the first), not walked
    WalkCounts walk;
    double recompute_seconds = 0;  ///< the tiles computed again
    int64_t walked_ahead = 0;      ///< tracebacks walked ahead of their turn (walks_ahead.hpp)
    int64_t taken_ahead = 0;       ///< those taken at their turn

    void add(const DeclumpCounts& o) {
        first_cells += o.first_cells;
        recomputed_cells += o.recomputed_cells;
        recomputed_tiles += o.recomputed_tiles;
        first_seconds += o.first_seconds;
        walk_seconds += o.walk_seconds;
        rows_traced += o.rows_traced;
        walk.walks += o.walk.walks;
        walk.tiles_ahead += o.walk.tiles_ahead;
        walk.trails_met += o.walk.trails_met;
        recompute_seconds += o.recompute_seconds;
        walked_ahead += o.walked_ahead;
        taken_ahead += o.taken_ahead;
    }
};

/// A search taken up after an interruption, and told of each alignment it finds.
struct DeclumpResume {
    /// Alignments an earlier run of this search found, in order. Each must end at the cell the
    /// search finds next, with its score, else Error; it is then taken as it is, not walked
    /// again: the walk would give it (the same tie and path rules), and walks are most of what
    /// taking up a search costs after its first pass (the 16M related pair's 100: 50 of 254 s).
    std::vector<Alignment> known;
    /// Called after each alignment found beyond `known` with every one found so far, the new
    /// one last; it may throw to stop the search (a signal).
    std::function<void(const std::vector<Alignment>&)> found;
    /// Asked before each alignment is traced, with its score and how many this search found
    /// before it: false ends the search there (a pair of strands needs no more of this one).
    /// Null: every alignment is wanted.
    std::function<bool(int32_t score, size_t before)> wanted;
    /// This matrix's best alignment as the pair's own traceback found it (the same tie and
    /// path rules), or null: when the search's best cell is its end, alignment 1 is taken
    /// from it. Else alignment 1 is traced from the grid's rows (grid_rows.hpp), not walked
    /// (S. aureus's longest, 2.8 Mbp, is a walk of seconds).
    const Alignment* traced = nullptr;
};

/// At most `count` alignments, best first, each scoring at least max(min_score, 1). `best`,
/// if given, gets the matrix's best cell before any pair is barred, as stage 1 finds it (score
/// 0 at (0, 0) when none is positive), whether or not it reaches that score (count >= 1).
std::vector<Alignment> best_alignments(const Sequence& s0, const Sequence& s1, const Scoring& scoring, int count,
                                       int32_t min_score, const DeclumpOptions& options = {},
                                       DeclumpCounts* counts = nullptr, const DeclumpResume& resume = {},
                                       AlignmentEnd* best = nullptr);

}  // namespace chromalign
