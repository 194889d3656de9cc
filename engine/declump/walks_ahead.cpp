//! @file WalksAhead: a queue of leads, threads that walk them, and the check at their turn.
#include "engine/declump/walks_ahead.hpp"

#include <algorithm>
#include <exception>
#include <utility>

#include "engine/error.hpp"

namespace chromalign {

WalksAhead::WalksAhead(const EdgeGrid& grid, const WalkLimits& limits, int walkers) : grid_(grid), limits_(limits) {
    limits_.host_only = true;
    // The walks at once share the search's threads: more would slow the host's part of the
    // recompute they run beside.
    limits_.threads = std::max(2, grid.workers().threads / std::max(1, walkers));
    // A walker the system cannot start is left out (a thread or memory limit): the search
    // walks at their turn the ends none took up, and a started thread is never left unjoined.
    try {
        for (int w = 0; w < std::max(1, walkers); ++w) threads_.emplace_back([this] { work(); });
    } catch (const std::exception&) {
    }
}

WalksAhead::~WalksAhead() {
    {
        const std::lock_guard<std::mutex> lock(mutex_);
        closing_ = true;
        waiting_.clear();
    }
    ready_.notify_all();
    for (std::thread& t : threads_) t.join();
}

void WalksAhead::start(const std::vector<EdgeGrid::Lead>& leads, const BarredPairs& barred) {
    {
        const std::lock_guard<std::mutex> lock(mutex_);
        for (const EdgeGrid::Lead& lead : leads) {
            auto a = std::make_shared<Ahead>();
            a->lead = lead;
            a->barred = barred;
            a->log_from = log_base_ + log_.size();
            waiting_.push_back(a);
            held_.push_back(std::move(a));
            ++walked_;
        }
    }
    ready_.notify_all();
}

void WalksAhead::work() {
    for (;;) {
        std::shared_ptr<Ahead> a;
        {
            std::unique_lock<std::mutex> lock(mutex_);
            ready_.wait(lock, [&] { return closing_ || !waiting_.empty(); });
            if (closing_) return;
            a = waiting_.front();
            waiting_.pop_front();
            a->running = true;
            ++running_;
        }
        // Only this thread touches a's walk until `done` is set under the lock.
        bool failed = false;
        try {
            a->end = grid_.place(a->lead, a->barred);
            a->alignment = walk_back(grid_, a->barred, a->end, limits_, &a->counts, &a->entered);
        } catch (...) {
            // Edges it read changed under it, or a signal: the search walks this end itself
            // at its turn, and meets the error or the signal there.
            failed = true;
        }
        {
            const std::lock_guard<std::mutex> lock(mutex_);
            a->failed = failed;
            a->done = true;
            --running_;
            ++ended_;
        }
        finished_.notify_all();
    }
}

bool WalksAhead::changed_since(const std::vector<EdgeGrid::Tile>& entered, size_t from) const {
    for (size_t k = from - log_base_; k < log_.size(); ++k) {
        const std::set<EdgeGrid::Tile>& tiles = log_[k];
        for (const EdgeGrid::Tile& t : entered) {
            // t is computed from its own pairs and the edges of the three tiles before it.
            for (const EdgeGrid::Tile& u : {t, EdgeGrid::Tile{t.first - 1, t.second}, EdgeGrid::Tile{t.first, t.second - 1},
                                            EdgeGrid::Tile{t.first - 1, t.second - 1}})
                if (tiles.count(u)) return true;
        }
    }
    return false;
}

void WalksAhead::computed(std::set<EdgeGrid::Tile> tiles) {
    const std::lock_guard<std::mutex> lock(mutex_);
    log_.push_back(std::move(tiles));
    // Walks whose own tile was computed again lead from a peak that may be gone: dropped now,
    // so that the tile's new peak may be walked; the others are checked at their turn.
    held_.erase(std::remove_if(held_.begin(), held_.end(),
                               [&](const std::shared_ptr<Ahead>& a) {
                                   return a->failed || log_.back().count(a->lead.tile) ||
                                          (a->done && changed_since(a->entered, log_base_ + log_.size() - 1));
                               }),
                held_.end());
    waiting_.erase(std::remove_if(waiting_.begin(), waiting_.end(),
                                  [&](const std::shared_ptr<Ahead>& a) { return log_.back().count(a->lead.tile) != 0; }),
                   waiting_.end());
    // Recomputes that every walk held started after are read no more.
    size_t oldest = log_base_ + log_.size();
    for (const std::shared_ptr<Ahead>& a : held_) oldest = std::min(oldest, a->log_from);
    for (; log_base_ < oldest; ++log_base_) log_.pop_front();
}

std::optional<Alignment> WalksAhead::take(const AlignmentEnd& end) {
    std::unique_lock<std::mutex> lock(mutex_);
    const EdgeGrid::Tile tile = grid_.tile_of(end.s0_end, end.s1_end);
    const auto it = std::find_if(held_.begin(), held_.end(),
                                 [&](const std::shared_ptr<Ahead>& a) { return a->lead.tile == tile; });
    if (it == held_.end()) return std::nullopt;
    const std::shared_ptr<Ahead> a = *it;
    held_.erase(it);
    if (!a->running) {  // not started: the search walks it as soon as a walker could
        waiting_.erase(std::remove(waiting_.begin(), waiting_.end(), a), waiting_.end());
        return std::nullopt;
    }
    finished_.wait(lock, [&] { return a->done; });
    if (a->failed || !(a->end == end) || changed_since(a->entered, a->log_from)) return std::nullopt;
    ++taken_;
    counts_.walks += 1;
    counts_.tiles_ahead += a->counts.tiles_ahead;
    counts_.trails_met += a->counts.trails_met;
    return std::move(a->alignment);
}

void WalksAhead::settle() {
    std::unique_lock<std::mutex> lock(mutex_);
    for (const std::shared_ptr<Ahead>& a : waiting_) held_.erase(std::remove(held_.begin(), held_.end(), a), held_.end());
    waiting_.clear();
    finished_.wait(lock, [&] { return running_ == 0; });
}

bool WalksAhead::holds(const EdgeGrid::Tile& t) const {
    const std::lock_guard<std::mutex> lock(mutex_);
    return std::any_of(held_.begin(), held_.end(), [&](const std::shared_ptr<Ahead>& a) { return a->lead.tile == t; });
}

}  // namespace chromalign
