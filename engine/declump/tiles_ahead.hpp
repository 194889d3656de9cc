//! @file Tiles computed ahead of a long traceback of the K best search (grid_walk.hpp).
//!
//! The walk crosses a grid's tiles one after another, and before it can step through one it
//! computes the tile's part above and left of where it entered, cut into sub-tiles on every
//! thread. A long alignment crosses hundreds of tiles (H. pylori's longest, 911 kbp, about 600
//! of side 3072), and each such tile spreads a few milliseconds of work over all the threads,
//! which then spend most of it handing sub-tiles over. So once the walk has left its first
//! tile, the tiles it will cross next are computed whole, each on one thread, several at once:
//! those the walk's diagonal meets, up and left of where it stands, and beside them where that
//! diagonal passes near a tile's corner (a gap may take the path across the other edge). A
//! guess costs only work: the walk takes a tile computed ahead if it was, and otherwise cuts
//! its own as before. Every value is exact either way, so the alignment is the same.
//!
//! The thread that computed a tile also walks it, from where the diagonal enters it (state H),
//! and keeps where that walk entered each of the tile's parts (a Trail). The walk from a cell
//! and state depends on nothing else, so when the true walk enters a part at one of those, it
//! takes that walk's steps from there as they are: paths through a tile soon meet, and the
//! true walk's own work, a part held whole at a time, then runs on the other threads.
#pragma once

#include <condition_variable>
#include <csignal>
#include <cstdint>
#include <deque>
#include <exception>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

#include "engine/alignment/alignment.hpp"
#include "engine/declump/barred_pairs.hpp"
#include "engine/declump/edge_grid.hpp"
#include "engine/declump/grid_walk.hpp"

namespace chromalign {

/// Where a walk stands: cell (i, j) in state 'H', 'E' or 'F', the runs so far, last first.
struct Walk {
    int64_t i = 0, j = 0;
    char state = 'H';
    bool done = false;  ///< the alignment starts at (i, j)
    std::vector<AlignmentRun> reversed;

    void add(char op, int64_t n = 1) {
        if (!reversed.empty() && reversed.back().op == op)
            reversed.back().length += n;
        else
            reversed.push_back({op, n});
    }
};

/// A walk through a tile from a guessed entry: where it entered each part of the tile (the
/// walk's step into each of the tile's own tiles), and where it left the tile.
struct Trail {
    struct Stop {
        int64_t i, j;
        char state;
        size_t runs;   ///< how many runs the walk had there
        int64_t last;  ///< and the last one's length
    };
    std::vector<Stop> stops;
    Walk walk;  ///< from the entry to where it left the tile or the alignment starts

    const Stop* at(int64_t i, int64_t j, char state) const;
    /// Moves `w`, standing at `stop`, on as this walk went from there.
    void follow(const Stop& stop, Walk& w) const;
};

/// A tile computed ahead, and its trail (no stops where the guessed entry led nowhere).
struct TileAhead {
    std::unique_ptr<EdgeGrid> grid;
    Trail trail;
};

class TilesAhead {
public:
    /// Walks a tile computed ahead from where `walk` stands until it leaves the tile, keeping
    /// its trail.
    using WalkPart = std::function<void(const EdgeGrid& part, Walk& walk, Trail& trail)>;
    /// Tiles of `grid`, with `barred` barred, each cut as `limits` says, computed and walked by
    /// `walk` on one of grid.workers().threads - 1 threads of its own; all must outlive this.
    TilesAhead(const EdgeGrid& grid, const BarredPairs& barred, const WalkLimits& limits, WalkPart walk);
    /// Drops the tiles not started and stops those in hand.
    ~TilesAhead();
    TilesAhead(const TilesAhead&) = delete;
    TilesAhead& operator=(const TilesAhead&) = delete;

    /// The walk stands at (i, j): drops the tiles it can no longer enter (below or right of
    /// this one) and queues those it is guessed to cross next, nearest first.
    void expect(int64_t i, int64_t j);
    /// Tile t, computed whole, once it is (a worker's error is thrown here); a null grid if it
    /// was not guessed, or not started yet unless the limits' wait_for_guessed (then the walk
    /// computes its own).
    TileAhead take(const EdgeGrid::Tile& t);

private:
    /// A tile guessed, and the cell where the diagonal enters it (i = -1: it does not).
    struct Guess {
        EdgeGrid::Tile tile;
        int64_t i = -1, j = -1;
    };
    struct Slot {
        Guess guess;
        bool started = false, ready = false, dropped = false;
        TileAhead ahead;
        std::exception_ptr error;
    };
    /// Up to `depth_` tiles along the diagonal through (i, j), up and left, nearest first.
    std::vector<Guess> guess(int64_t i, int64_t j) const;
    void work();

    const EdgeGrid& grid_;
    const BarredPairs& barred_;
    const WalkLimits& limits_;
    WalkPart walk_;
    /// Set when this closes: the tiles in hand stop at their next part (Interrupted), and
    /// their threads let them go. The walk itself still reads the signals' flag.
    volatile std::sig_atomic_t halt_ = 0;
    GridWorkers one_thread_;
    size_t depth_;
    std::mutex mutex_;
    std::condition_variable changed_;
    std::map<EdgeGrid::Tile, Slot> slots_;
    std::deque<EdgeGrid::Tile> queue_;  ///< guessed, not started, nearest first
    bool closing_ = false;
    std::vector<std::thread> threads_;
};

}  // namespace chromalign
