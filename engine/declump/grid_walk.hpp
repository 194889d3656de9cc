//! @file The traceback of one of the K best alignments over an EdgeGrid: the walk of the
//! reference (kernels/reference/traceback.hpp), step for step, on tiles computed again from the
//! grid's edges. A tile too large to hold whole is cut into a grid of its own, recursively, so
//! memory stays linear. Every value the walk reads is true (the edges are), so the alignment is
//! the reference's byte for byte with the same pairs barred.
#pragma once

#include <cstdint>

#include "engine/alignment/alignment.hpp"
#include "engine/declump/barred_pairs.hpp"
#include "engine/declump/edge_grid.hpp"

namespace chromalign {

struct WalkLimits {
    /// A tile of at most this many cells is held whole (12 bytes a cell) and walked; a larger one
    /// is computed in lanes, a small part of it walked. On H. pylori (100 alignments, tiles of
    /// 3072, an H200 machine's 16 cores), 2^16 in place of 2^22, with the walk computing only
    /// what lies above and left of it, took the tracebacks from 23.8 s to 8.0 s.
    int64_t leaf_cells = int64_t{1} << 16;
    /// A larger one is cut into at most split x split tiles (split >= 2), at least 2 x 2 and
    /// none of a side under `least_side` where it can: they are computed in dependency order on
    /// the threads, so more of them run at once, but each costs a hand-over. On H. pylori
    /// (tiles of 3072, 16 cores), 16 x 16 in place of 8 x 8 took the tracebacks from 7.8 s to
    /// 5.5 s; on V. cholerae's second chromosomes (tiles of 512), 16 x 16 took 10.8 s.
    int64_t split = 32;
    int64_t least_side = 192;
    /// Once the walk has crossed `ahead_after` tiles, tiles of at most `ahead_cells` cells that
    /// it is guessed to cross next, up to `ahead` of them, are computed whole, each on one
    /// thread (tiles_ahead.hpp); 0 in either of the last two: never. Most walks that leave
    /// their first tile are short alignments that end in the next one, whose part the
    /// helpers' whole tiles would leave few cores: on H. pylori (an H200 machine's 16 cores),
    /// such walks took 8-16 ms with helpers from the second tile on, 2-4 ms in one tile.
    int64_t ahead_after = 2;
    int64_t ahead_cells = int64_t{1} << 26;
    int64_t ahead = 32;
    /// Tests: a tile guessed but not started yet is waited for, not computed by the walk, so
    /// which tiles a walk takes computed ahead follows from the guesses alone, however busy
    /// the machine (a test that counted them otherwise failed under a second ctest -j2).
    bool wait_for_guessed = false;
    /// Parts computed on the host's threads alone: walks ahead of their turn (walks_ahead.hpp)
    /// run beside the device's recompute, whose waves another launch must not come between.
    bool host_only = false;
    /// Threads for a tile's parts and the tiles ahead (0: the grid's, GridWorkers::threads).
    int threads = 0;
};

/// What the walks did, for reports and tests.
struct WalkCounts {
    int64_t walks = 0;        ///< alignments walked back
    int64_t tiles_ahead = 0;  ///< tiles a walk took computed ahead (tiles_ahead.hpp)
    int64_t trails_met = 0;   ///< times it met the trail walked ahead in one and went on as it had
};

/// How many tiles a side a part r of a tile too large to hold whole is cut into.
int64_t walk_split(const Rect& r, const WalkLimits& limits);

/// The alignment that ends at `end`, a cell of grid.area() whose H is end.score > 0, with the
/// pairs of `barred` barred (those the grid was computed with). Throws Error when the walk
/// finds no move (`end` is not such a cell) or leaves the area before the alignment starts.
/// `entered`, if given, gets the grid's tiles the walk stood in, in order: the alignment
/// follows from their edges and the pairs barred in them alone.
Alignment walk_back(const EdgeGrid& grid, const BarredPairs& barred, const AlignmentEnd& end,
                    const WalkLimits& limits = {}, WalkCounts* counts = nullptr,
                    std::vector<EdgeGrid::Tile>* entered = nullptr);

}  // namespace chromalign
