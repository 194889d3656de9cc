//! @file CpuTileWaves: the tiles of a wave shared among threads.
#include "engine/declump/tile_waves.hpp"

#include <algorithm>
#include <atomic>
#include <exception>
#include <string>

#include "engine/declump/tile_lanes.hpp"
#include "engine/error.hpp"
#include "engine/declump/tile_split.hpp"
#include "engine/threads/for_each_worker.hpp"

namespace chromalign {
namespace {

/// Sub-tiles' side where a tile is cut for threads of its own: about 25 us of work each on one
/// core, against a lock and a wake-up to hand it over.
constexpr int64_t kSubTile = 192;

}  // namespace

void search_interrupted(int signal) {
    throw Interrupted(signal, "interrupted by signal " + std::to_string(signal) + " while searching for more alignments");
}

void TileWaves::run_kept(const Scoring&, std::vector<KeptTile>&) {
    throw Error("internal: tiles computed from kept edges where no pass kept them");
}

void TileWaves::queue_kept(const Scoring& scoring, std::vector<KeptTile>& tiles) {
    if (queued_.size() >= kRunsInFlight)
        throw Error("internal: more runs of kept tiles queued than may be in flight");
    launch_kept(scoring, tiles, static_cast<int>(queued_total_ % kRunSlots));
    queued_.emplace_back(&scoring, &tiles);
    ++queued_total_;
}

void TileWaves::collect_kept(std::vector<KeptTile>& tiles) {
    if (queued_.empty() || queued_.front().second != &tiles)
        throw Error("internal: kept tiles collected that are not the oldest run queued");
    const Scoring& scoring = *queued_.front().first;
    // The oldest of the runs in flight.
    const int slot = static_cast<int>((queued_total_ - static_cast<int64_t>(queued_.size())) % kRunSlots);
    queued_.pop_front();
    land_kept(scoring, tiles, slot);
}

void TileWaves::launch_kept(const Scoring&, std::vector<KeptTile>&, int) {}

void TileWaves::land_kept(const Scoring& scoring, std::vector<KeptTile>& tiles, int) { run_kept(scoring, tiles); }

void TileWaves::fetch_kept(const std::vector<KeptFetch>&) {
    throw Error("internal: kept edges asked for where no pass kept them");
}

void CpuTileWaves::run(const Sequence& s0, const Sequence& s1, const Scoring& scoring, std::vector<TileTask>& tasks,
                       int threads) {
    int64_t cells = 0;
    for (const TileTask& t : tasks) cells += t.rect.rows() * t.rect.cols();
    const size_t workers = std::min({tasks.size(), static_cast<size_t>(std::max(threads, 1)),
                                     static_cast<size_t>(1 + cells / std::max<int64_t>(cells_per_thread_, 1))});
    // Fewer tiles than threads: each tile gets the threads left over, cut into sub-tiles of
    // about kSubTile on a side (tile_split.hpp), where it has enough of them (4 x 4) to pay for
    // starting the threads.
    const int each = tasks.empty() ? 1 : std::max(threads, 1) / static_cast<int>(tasks.size());
    std::atomic<size_t> next{0};
    std::atomic<bool> failed{false};
    std::exception_ptr failure;
    auto work = [&] {
        for (size_t k; !failed && (k = next++) < tasks.size();) {
            try {
                TileTask& t = tasks[k];
                const int64_t split = std::min<int64_t>(std::min(t.rect.rows(), t.rect.cols()) / kSubTile, 4 * each);
                t.best = each >= 2 && split >= 4 && cells >= cells_per_thread_
                             ? tile_dp_split(s0, s1, scoring, t.rect, t.edges, t.barred, t.sink, split, each)
                             : tile_dp_lanes(s0, s1, scoring, t.rect, t.edges, t.barred, t.sink);
            } catch (...) {
                if (!failed.exchange(true)) failure = std::current_exception();
            }
        }
    };
    for_each_worker(static_cast<int>(workers), [&](int) { work(); });
    if (failure) std::rethrow_exception(failure);
}

}  // namespace chromalign
