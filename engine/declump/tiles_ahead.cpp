//! @file TilesAhead: a queue of guessed tiles and the threads that compute them.
#include "engine/declump/tiles_ahead.hpp"

#include <algorithm>
#include <exception>
#include <utility>

#include "engine/error.hpp"

namespace chromalign {
namespace {

/// The edges of the tiles computed ahead at once stay within this.
constexpr int64_t kAheadBytes = int64_t{256} << 20;

}  // namespace

const Trail::Stop* Trail::at(int64_t i, int64_t j, char state) const {
    for (const Stop& s : stops)
        if (s.i == i && s.j == j && s.state == state) return &s;
    return nullptr;
}

void Trail::follow(const Stop& stop, Walk& w) const {
    // Runs before stop.runs - 1 were walked before the stop; that one, only its first stop.last.
    for (size_t k = stop.runs == 0 ? 0 : stop.runs - 1; k < walk.reversed.size(); ++k) {
        const AlignmentRun& r = walk.reversed[k];
        const int64_t n = k + 1 == stop.runs ? r.length - stop.last : r.length;
        if (n > 0) w.add(r.op, n);
    }
    w.i = walk.i;
    w.j = walk.j;
    w.state = walk.state;
    w.done = walk.done;
}

TilesAhead::TilesAhead(const EdgeGrid& grid, const BarredPairs& barred, const WalkLimits& limits, WalkPart walk)
    : grid_(grid), barred_(barred), limits_(limits), walk_(std::move(walk)), one_thread_(grid.workers()) {
    one_thread_.threads = 1;
    one_thread_.device = nullptr;
    one_thread_.stop = &halt_;
    // A tile of side t cut split ways keeps split rows and columns of H and F (or E): about
    // 16 * split * t bytes.
    const Rect r = grid.tile_rect({0, 0});
    const int64_t bytes = 16 * walk_split(r, limits) * std::max(r.rows(), r.cols()) + 1;
    depth_ = static_cast<size_t>(std::max<int64_t>(1, std::min(limits.ahead, kAheadBytes / bytes)));
    // Helpers live as long as the walk, so for_each_worker does not fit. One the system cannot
    // start is left out: the walk computes what it would have computed ahead (and a thread
    // started but never joined would end the process).
    try {
        const int threads = limits.threads > 0 ? limits.threads : grid.workers().threads;
        for (int k = 1; k < threads; ++k) threads_.emplace_back([this] { work(); });
    } catch (const std::exception&) {
    }
}

TilesAhead::~TilesAhead() {
    {
        std::lock_guard<std::mutex> lock(mutex_);
        closing_ = true;
        halt_ = 1;
        queue_.clear();
    }
    changed_.notify_all();
    for (std::thread& t : threads_) t.join();
}

std::vector<TilesAhead::Guess> TilesAhead::guess(int64_t i, int64_t j) const {
    std::vector<Guess> tiles;
    EdgeGrid::Tile t = grid_.tile_of(i, j);
    while (tiles.size() < depth_) {
        // Follow diagonal i - j to its first cell outside tile t.
        const Rect r = grid_.tile_rect(t);
        const int64_t steps = std::min(i - r.top, j - r.left);
        i -= steps;
        j -= steps;
        if (!grid_.area().holds(i, j)) break;
        const EdgeGrid::Tile next = grid_.tile_of(i, j);
        // Near the corner it leaves by, the path may cross the other edge instead.
        if (next.second == t.second && t.second > 0 && (j - r.left) * 4 < r.cols())
            tiles.push_back({{t.first, t.second - 1}});
        if (next.first == t.first && t.first > 0 && (i - r.top) * 4 < r.rows()) tiles.push_back({{t.first - 1, t.second}});
        tiles.push_back({next, i, j});
        t = next;
    }
    return tiles;
}

void TilesAhead::expect(int64_t i, int64_t j) {
    const EdgeGrid::Tile at = grid_.tile_of(i, j);
    const auto unreachable = [&](const EdgeGrid::Tile& t) { return t.first > at.first || t.second > at.second; };
    const std::vector<Guess> next = guess(i, j);
    {
        std::lock_guard<std::mutex> lock(mutex_);
        queue_.erase(std::remove_if(queue_.begin(), queue_.end(), unreachable), queue_.end());
        for (auto s = slots_.begin(); s != slots_.end();) {
            if (!unreachable(s->first)) {
                ++s;
            } else if (s->second.started && !s->second.ready) {
                s->second.dropped = true;  // its thread lets it go when done
                ++s;
            } else {
                s = slots_.erase(s);
            }
        }
        for (const Guess& g : next) {
            if (slots_.count(g.tile) == 0) {
                slots_[g.tile].guess = g;
                queue_.push_back(g.tile);
            }
        }
    }
    changed_.notify_all();
}

TileAhead TilesAhead::take(const EdgeGrid::Tile& t) {
    std::unique_lock<std::mutex> lock(mutex_);
    auto s = slots_.find(t);
    if (s == slots_.end() || (!s->second.started && !limits_.wait_for_guessed)) {
        if (s != slots_.end()) {
            queue_.erase(std::find(queue_.begin(), queue_.end(), t));
            slots_.erase(s);
        }
        return {};
    }
    changed_.wait(lock, [&] { return s->second.ready; });
    TileAhead ahead = std::move(s->second.ahead);
    const std::exception_ptr error = s->second.error;
    slots_.erase(s);
    if (error) std::rethrow_exception(error);
    return ahead;
}

void TilesAhead::work() {
    std::unique_lock<std::mutex> lock(mutex_);
    for (;;) {
        changed_.wait(lock, [&] { return closing_ || !queue_.empty(); });
        if (closing_) return;
        const EdgeGrid::Tile t = queue_.front();
        queue_.pop_front();
        slots_[t].started = true;
        const Guess g = slots_[t].guess;
        lock.unlock();
        TileAhead ahead;
        std::exception_ptr error;
        try {
            const Rect r = grid_.tile_rect(t);
            ahead.grid = grid_.part(t, r, walk_split(r, limits_), one_thread_);
            ahead.grid->compute(barred_);
        } catch (...) {
            error = std::current_exception();
        }
        if (!error && g.i >= 0) {
            try {
                Walk w;
                w.i = g.i;
                w.j = g.j;
                walk_(*ahead.grid, w, ahead.trail);
            } catch (const Interrupted&) {
                error = std::current_exception();
            } catch (const Error&) {
                ahead.trail = Trail{};  // no move from the guessed entry: nothing to follow
            }
        }
        lock.lock();
        Slot& slot = slots_[t];
        if (slot.dropped) {
            slots_.erase(t);
        } else {
            slot.ahead = std::move(ahead);
            slot.error = error;
            slot.ready = true;
        }
        changed_.notify_all();
    }
}

}  // namespace chromalign
