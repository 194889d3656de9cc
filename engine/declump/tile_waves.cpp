//! @file CpuTileWaves: the tiles of a wave shared among threads.
#include "engine/declump/tile_waves.hpp"

#include <algorithm>
#include <atomic>
#include <exception>
#include <thread>

#include "engine/declump/tile_lanes.hpp"

namespace chromalign {

void CpuTileWaves::run(const Sequence& s0, const Sequence& s1, const Scoring& scoring, std::vector<TileTask>& tasks,
                       int threads) {
    int64_t cells = 0;
    for (const TileTask& t : tasks) cells += t.rect.rows() * t.rect.cols();
    const size_t workers = std::min({tasks.size(), static_cast<size_t>(std::max(threads, 1)),
                                     static_cast<size_t>(1 + cells / std::max<int64_t>(cells_per_thread_, 1))});
    std::atomic<size_t> next{0};
    std::atomic<bool> failed{false};
    std::exception_ptr failure;
    auto work = [&] {
        for (size_t k; !failed && (k = next++) < tasks.size();) {
            try {
                TileTask& t = tasks[k];
                t.best = tile_dp_lanes(s0, s1, scoring, t.rect, t.edges, t.barred, t.sink);
            } catch (...) {
                if (!failed.exchange(true)) failure = std::current_exception();
            }
        }
    };
    std::vector<std::thread> helpers;
    for (size_t w = 1; w < workers; ++w) helpers.emplace_back(work);
    work();
    for (std::thread& h : helpers) h.join();
    if (failure) std::rethrow_exception(failure);
}

}  // namespace chromalign
