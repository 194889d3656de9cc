//! @file A persistent pool of worker threads that runs one batch of independent tasks at a time.
#pragma once

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <mutex>
#include <thread>
#include <vector>

namespace chromalign::kernels::cpu {

/// `workers` workers: the calling thread and workers - 1 helper threads, started once. run()
/// hands out task indices dynamically, so a helper that the OS has not scheduled yet costs
/// nothing: the others take its share. Between batches helpers spin briefly (batches of one
/// external diagonal follow each other within microseconds), then sleep.
class WorkerPool {
public:
    /// Starts workers - 1 helper threads. Throws Error naming the count when the system cannot
    /// start them (thread limit, memory), after joining those it started.
    explicit WorkerPool(int workers);
    ~WorkerPool();
    WorkerPool(const WorkerPool&) = delete;
    WorkerPool& operator=(const WorkerPool&) = delete;

    int workers() const { return static_cast<int>(helpers_.size()) + 1; }

    /// Calls task(index, worker) for every index in [0, count), worker in [0, workers()) naming
    /// the thread (0 is the caller), and returns when all calls have returned. `task` must not
    /// throw. Not reentrant: one run at a time.
    template <typename Task>
    void run(int64_t count, Task& task) {
        run_batch(count, [](void* t, int64_t index, int worker) { (*static_cast<Task*>(t))(index, worker); }, &task);
    }

private:
    using TaskFn = void (*)(void*, int64_t, int);

    void run_batch(int64_t count, TaskFn fn, void* context);
    void helper_main(int worker);
    void stop_helpers();  ///< wakes, stops and joins every helper
    void work(int worker);
    bool wait_for_batch(uint64_t last_seen, uint64_t* open);

    // Batch protocol. generation_ is even while a batch is open and odd while closed; it only
    // changes in run_batch. A helper joins a batch by incrementing inside_ and re-reading
    // generation_: if the batch is still open, the caller (which closes it and then waits for
    // inside_ == 0) cannot touch fn_/context_/count_/next_ until the helper leaves. Both sides
    // use sequentially consistent accesses, so one of them always sees the other (Dekker).
    TaskFn fn_ = nullptr;
    void* context_ = nullptr;
    int64_t count_ = 0;
    std::atomic<int64_t> next_{0};        ///< next task index to hand out
    std::atomic<uint64_t> generation_{1};
    std::atomic<int> inside_{0};          ///< helpers inside the open batch
    std::atomic<int> sleepers_{0};
    std::atomic<bool> stop_{false};
    std::mutex mutex_;
    std::condition_variable wake_;
    std::vector<std::thread> helpers_;
};

}  // namespace chromalign::kernels::cpu
