//! @file Tracebacks of the K best search walked ahead of their turn (declump.hpp).
//!
//! After each alignment the search computes again the tiles it changes, on the device, and
//! only then finds the next best cell and walks its traceback on the host: one after the
//! other, each some milliseconds, while the host's threads wait for the device and the device
//! for them. Most alignments after the first lie far from the one before, so the tiles of the
//! highest peaks that the new alignment cannot reach are walked meanwhile, on threads of
//! their own, against a view of the pairs barred so far.
//!
//! A walk taken at its turn is exactly the one the search would walk then: its end is the
//! search's best cell (found as always, after the tiles were computed again), and the walk
//! follows from the edges of the tiles it stood in and the pairs barred in them alone
//! (grid_walk.hpp), none of which changed since it started: no tile it stood in was computed
//! again, nor any tile above, left of or above-left of one (whose edges it reads), since the
//! view was taken; an alignment barred since has its pairs in tiles computed again. Every
//! other walk is dropped, and the search walks that end itself, so guesses cost only threads.
#pragma once

#include <condition_variable>
#include <cstdint>
#include <deque>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <thread>
#include <vector>

#include "engine/alignment/alignment.hpp"
#include "engine/declump/barred_pairs.hpp"
#include "engine/declump/edge_grid.hpp"
#include "engine/declump/grid_walk.hpp"

namespace chromalign {

class WalksAhead {
public:
    /// Walks over `grid`, at most `walkers` at once.
    WalksAhead(const EdgeGrid& grid, const WalkLimits& limits, int walkers);
    WalksAhead(const WalksAhead&) = delete;
    WalksAhead& operator=(const WalksAhead&) = delete;
    /// Drops the walks not started and waits for those running.
    ~WalksAhead();

    /// Walks the tracebacks from `leads`' peaks, in order, against `barred` (a view of the
    /// pairs barred so far, taken now). A kept grid may be computed again meanwhile, after
    /// the last alignment `barred` holds, and computed() be told after.
    void start(const std::vector<EdgeGrid::Lead>& leads, const BarredPairs& barred);
    /// The tiles the grid computed again, after start() or the last computed().
    void computed(std::set<EdgeGrid::Tile> tiles);
    /// Drops the walks not started and waits for those running: before a grid that is not
    /// kept (EdgeGrid::kept()) is computed again, since that writes the edges walks read.
    void settle();
    /// The alignment that ends at `end`, the search's best cell now: the walk ahead from it,
    /// waited for while it runs, where none of what it read changed since it started; else none.
    std::optional<Alignment> take(const AlignmentEnd& end);
    /// Whether a walk from tile t's peak is waiting, running or done and may still be taken.
    bool holds(const EdgeGrid::Tile& t) const;
    /// The walks this started and those take() gave.
    int64_t walked() const { return walked_; }
    int64_t taken() const { return taken_; }
    /// The walks that ended, taken or not (a test waits for them: take() walks none that has
    /// not started, since the search walks it as soon).
    int64_t ended() const {
        const std::lock_guard<std::mutex> lock(mutex_);
        return ended_;
    }
    /// What the walks taken did (WalkLimits' tiles ahead).
    const WalkCounts& counts() const { return counts_; }

private:
    struct Ahead {
        EdgeGrid::Lead lead;
        BarredPairs barred;
        size_t log_from = 0;  ///< the first recompute (counted from the first) that may have changed what it reads
        bool running = false, done = false, failed = false;
        AlignmentEnd end;  ///< placed
        Alignment alignment;
        std::vector<EdgeGrid::Tile> entered;
        WalkCounts counts;
    };
    void work();
    /// Whether a tile of `entered` reads an edge that a tile of the recomputes from `from` on wrote.
    bool changed_since(const std::vector<EdgeGrid::Tile>& entered, size_t from) const;

    const EdgeGrid& grid_;
    WalkLimits limits_;
    mutable std::mutex mutex_;
    std::condition_variable ready_, finished_;
    int running_ = 0;
    std::deque<std::shared_ptr<Ahead>> waiting_;
    std::vector<std::shared_ptr<Ahead>> held_;  ///< started, not taken or dropped
    /// The tiles of each recompute that a walk held may not have seen: recompute k at
    /// log_[k - log_base_] (a search of a million alignments keeps a few).
    std::deque<std::set<EdgeGrid::Tile>> log_;
    size_t log_base_ = 0;
    bool closing_ = false;
    int64_t walked_ = 0, taken_ = 0, ended_ = 0;
    WalkCounts counts_;
    std::vector<std::thread> threads_;
};

}  // namespace chromalign
