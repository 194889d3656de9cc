//! @file for_each_worker: every call made once, on threads of its own, and made anyway where
//! the system starts no more threads.
#include <gtest/gtest.h>
#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <mutex>
#include <set>
#include <stdexcept>
#include <thread>
#include <vector>

#include "engine/threads/for_each_worker.hpp"
#include "tests/test_support.hpp"

namespace chromalign {
namespace {

TEST(ForEachWorker, EveryWorkerIsCalledOnceOnAThreadOfItsOwn) {
    for (const int workers : {-1, 0, 1, 2, 3, 8, 33}) {
        std::vector<std::atomic<int>> calls(static_cast<size_t>(std::max(workers, 1)));
        std::mutex mutex;
        std::set<std::thread::id> threads;
        for_each_worker(workers, [&](int w) {
            ++calls[static_cast<size_t>(w)];
            std::lock_guard<std::mutex> lock(mutex);
            threads.insert(std::this_thread::get_id());
        });
        for (size_t w = 0; w < calls.size(); ++w) EXPECT_EQ(calls[w].load(), 1) << workers << " workers, worker " << w;
        EXPECT_EQ(threads.size(), calls.size()) << workers << " workers";
        EXPECT_EQ(threads.count(std::this_thread::get_id()), 1u) << "worker 0 is the caller";
    }
}

TEST(ForEachWorker, AnExceptionComesBackOnceEveryCallHasReturned) {
    std::atomic<int> returned{0};
    EXPECT_THROW(for_each_worker(6,
                                 [&](int w) {
                                     if (w == 3) throw std::runtime_error("worker 3");
                                     std::this_thread::sleep_for(std::chrono::milliseconds(20));
                                     ++returned;
                                 }),
                 std::runtime_error);
    EXPECT_EQ(returned.load(), 5);
}

/// Exits 0 when 300 workers under a limit that starts only a few threads each ran once, some
/// of them on the caller; 1 or 2 when not, 3 when the limit cannot be set.
[[noreturn]] void workers_under_a_memory_limit() {
    // 100 MB more than mapped now holds about a dozen 8 MiB thread stacks, not 300.
    const rlimit limit{test::mapped_bytes() + (uint64_t{100} << 20), RLIM_INFINITY};
    if (setrlimit(RLIMIT_AS, &limit) != 0) _exit(3);
    std::vector<std::atomic<int>> calls(300);
    std::atomic<int> on_caller{0};
    const std::thread::id caller = std::this_thread::get_id();
    for_each_worker(300, [&](int w) {
        ++calls[static_cast<size_t>(w)];
        on_caller += std::this_thread::get_id() == caller;
    });
    for (const auto& c : calls)
        if (c.load() != 1) _exit(1);
    _exit(on_caller.load() > 1 ? 0 : 2);
}

TEST(ForEachWorker, ThreadsTheSystemDoesNotStartAreCallsOnTheCaller) {
    // Before for_each_worker, each pass started its threads itself, and the first that failed
    // left the others joinable, which ends the process (std::terminate) instead of running it
    // slower.
    EXPECT_EXIT(workers_under_a_memory_limit(), ::testing::ExitedWithCode(0), "");
}

}  // namespace
}  // namespace chromalign
