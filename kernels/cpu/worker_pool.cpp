//! @file WorkerPool: batch hand-off with spin-then-sleep helpers.
#include "kernels/cpu/worker_pool.hpp"

#include <chrono>
#include <string>
#include <system_error>

#include "engine/error.hpp"

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#endif

namespace chromalign::kernels::cpu {
namespace {

void cpu_relax() {
#if defined(__x86_64__) || defined(__i386__)
    _mm_pause();
#endif
}

/// How long an idle helper polls before it yields its core, and before it sleeps. Polling
/// covers the gap between two external diagonals; yielding keeps an oversubscribed machine
/// (more workers than cores) moving; sleeping frees the core between comparisons.
constexpr auto kPollFor = std::chrono::microseconds(50);
constexpr auto kYieldFor = std::chrono::milliseconds(2);

}  // namespace

WorkerPool::WorkerPool(int workers) {
    try {
        for (int w = 1; w < workers; ++w) helpers_.emplace_back([this, w] { helper_main(w); });
    } catch (const std::system_error& e) {
        // A thread limit or too little memory for stacks: the helpers already started must be
        // joined, or their destructors would end the process.
        const size_t started = helpers_.size() + 1;
        stop_helpers();
        throw Error("cannot start " + std::to_string(workers) + " CPU threads (" + std::to_string(started) +
                    " started): " + e.what() + "; use --threads to ask for fewer");
    }
}

WorkerPool::~WorkerPool() { stop_helpers(); }

void WorkerPool::stop_helpers() {
    {
        std::lock_guard<std::mutex> lock(mutex_);
        stop_.store(true);
    }
    wake_.notify_all();
    for (std::thread& t : helpers_) t.join();
    helpers_.clear();
}

void WorkerPool::run_batch(int64_t count, TaskFn fn, void* context) {
    if (helpers_.empty() || count <= 1) {
        for (int64_t i = 0; i < count; ++i) fn(context, i, 0);
        return;
    }
    fn_ = fn;
    context_ = context;
    count_ = count;
    next_.store(0, std::memory_order_relaxed);
    generation_.fetch_add(1);  // open
    if (sleepers_.load() > 0) {
        std::lock_guard<std::mutex> lock(mutex_);
        wake_.notify_all();
    }
    work(0);
    generation_.fetch_add(1);  // closed: no helper joins any more
    while (inside_.load() != 0) cpu_relax();
}

void WorkerPool::work(int worker) {
    for (;;) {
        const int64_t i = next_.fetch_add(1, std::memory_order_relaxed);
        if (i >= count_) return;
        fn_(context_, i, worker);
    }
}

bool WorkerPool::wait_for_batch(uint64_t last_seen, uint64_t* open) {
    auto ready = [&] {
        *open = generation_.load();
        return (*open & 1) == 0 && *open != last_seen;
    };
    const auto start = std::chrono::steady_clock::now();
    for (unsigned spin = 0;; ++spin) {
        if (stop_.load(std::memory_order_relaxed)) return false;
        if (ready()) return true;
        if (spin % 64 != 63) {
            cpu_relax();
            continue;
        }
        const auto waited = std::chrono::steady_clock::now() - start;
        if (waited < kPollFor) continue;
        if (waited < kYieldFor) {
            std::this_thread::yield();
            continue;
        }
        std::unique_lock<std::mutex> lock(mutex_);
        sleepers_.fetch_add(1);
        wake_.wait(lock, [&] { return stop_.load() || ready(); });
        sleepers_.fetch_sub(1);
        return !stop_.load();
    }
}

void WorkerPool::helper_main(int worker) {
    uint64_t last_seen = 0;
    uint64_t open = 0;
    while (wait_for_batch(last_seen, &open)) {
        inside_.fetch_add(1);
        if (generation_.load() == open) {
            work(worker);
            last_seen = open;
        }
        inside_.fetch_sub(1);
    }
}

}  // namespace chromalign::kernels::cpu
