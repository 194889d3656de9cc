//! @file run_in_dependency_order: a queue of ready tiles behind one lock.
#include "engine/declump/dependency_order.hpp"

#include <algorithm>
#include <condition_variable>
#include <deque>
#include <exception>
#include <mutex>
#include <vector>

#include "engine/threads/for_each_worker.hpp"

namespace chromalign {

void run_in_dependency_order(int64_t rows, int64_t cols, int threads,
                             const std::function<void(int64_t a, int64_t b)>& compute) {
    if (rows <= 0 || cols <= 0) return;
    const int64_t total = rows * cols;
    std::vector<int> waiting(static_cast<size_t>(total));  // per tile: its neighbours above and left not yet done
    for (int64_t a = 0; a < rows; ++a)
        for (int64_t b = 0; b < cols; ++b) waiting[static_cast<size_t>(a * cols + b)] = (a > 0) + (b > 0);
    std::mutex mutex;
    std::condition_variable ready_or_done;
    std::deque<int64_t> ready{0};
    int64_t finished = 0;
    std::exception_ptr failure;
    const auto work = [&] {
        std::unique_lock<std::mutex> lock(mutex);
        for (;;) {
            ready_or_done.wait(lock, [&] { return !ready.empty() || finished == total || failure; });
            if (ready.empty() || failure) return;
            const int64_t k = ready.front();
            ready.pop_front();
            lock.unlock();
            std::exception_ptr error;
            try {
                compute(k / cols, k % cols);
            } catch (...) {
                error = std::current_exception();
            }
            lock.lock();
            if (failure) return;
            if (error) {
                failure = error;
                ready.clear();
                ready_or_done.notify_all();
                return;
            }
            ++finished;
            const int64_t a = k / cols, b = k % cols;
            if (a + 1 < rows && --waiting[static_cast<size_t>(k + cols)] == 0) ready.push_back(k + cols);
            if (b + 1 < cols && --waiting[static_cast<size_t>(k + 1)] == 0) ready.push_back(k + 1);
            ready_or_done.notify_all();
        }
    };
    for_each_worker(static_cast<int>(std::min<int64_t>(threads, total)), [&](int) { work(); });
    if (failure) std::rethrow_exception(failure);
}

}  // namespace chromalign
