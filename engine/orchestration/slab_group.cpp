//! @file SlabGroup: a generation-counted rendezvous under one mutex, and the group's threads.
#include "engine/orchestration/slab_group.hpp"

#include <algorithm>
#include <string>
#include <system_error>
#include <thread>

#include "engine/error.hpp"

namespace chromalign {

SlabGroup::SlabGroup(int slabs)
    : slabs_(slabs), arrived_values_(static_cast<size_t>(slabs)),
      done_(std::make_unique<std::atomic<int64_t>[]>(static_cast<size_t>(slabs))),
      total_(std::make_unique<std::atomic<int64_t>[]>(static_cast<size_t>(slabs))),
      pruned_(std::make_unique<std::atomic<int64_t>[]>(static_cast<size_t>(slabs))),
      col_begin_(std::make_unique<std::atomic<int64_t>[]>(static_cast<size_t>(slabs))),
      cols_(std::make_unique<std::atomic<int64_t>[]>(static_cast<size_t>(slabs))) {
    for (int k = 0; k < slabs; ++k) done_[k] = total_[k] = pruned_[k] = col_begin_[k] = cols_[k] = 0;
}

void SlabGroup::set_cells(int local, const Cells& cells) {
    done_[local].store(cells.done, std::memory_order_relaxed);
    total_[local].store(cells.total, std::memory_order_relaxed);
    pruned_[local].store(cells.pruned, std::memory_order_relaxed);
    col_begin_[local].store(cells.col_begin, std::memory_order_relaxed);
    cols_[local].store(cells.cols, std::memory_order_relaxed);
}

std::vector<SlabGroup::Cells> SlabGroup::each() const {
    std::vector<Cells> all(static_cast<size_t>(slabs_));
    for (int k = 0; k < slabs_; ++k)
        all[static_cast<size_t>(k)] = {done_[k].load(std::memory_order_relaxed), total_[k].load(std::memory_order_relaxed),
                                       pruned_[k].load(std::memory_order_relaxed),
                                       col_begin_[k].load(std::memory_order_relaxed), cols_[k].load(std::memory_order_relaxed)};
    return all;
}

SlabGroup::Cells SlabGroup::cells() const {
    Cells sum;
    for (int k = 0; k < slabs_; ++k) {
        sum.done += done_[k].load(std::memory_order_relaxed);
        sum.total += total_[k].load(std::memory_order_relaxed);
        sum.pruned += pruned_[k].load(std::memory_order_relaxed);
    }
    return sum;
}

std::unique_lock<std::mutex> SlabGroup::claim_report() {
    std::unique_lock<std::mutex> lock(report_mutex_, std::try_to_lock);
    if (!lock.owns_lock()) return lock;
    const auto now = std::chrono::steady_clock::now();
    if (now - last_report_ < std::chrono::seconds(1)) return std::unique_lock<std::mutex>();
    last_report_ = now;
    return lock;
}

int32_t SlabGroup::offer_best(int32_t g) {
    int32_t seen = best_.load(std::memory_order_relaxed);
    while (g > seen && !best_.compare_exchange_weak(seen, g, std::memory_order_relaxed)) {
    }
    return std::max(seen, g);
}

SlabValues SlabGroup::gather(int local, const std::vector<int64_t>& values,
                             const std::function<SlabValues(const SlabValues&)>& across) {
    std::unique_lock<std::mutex> lock(mutex_);
    if (failed_) throw PeerFailed("another column slab of this process failed");
    const int64_t generation = generation_;
    arrived_values_[static_cast<size_t>(local)] = values;
    if (++arrived_ < slabs_) {
        changed_.wait(lock, [&] { return generation_ != generation || failed_; });
        if (generation_ == generation) throw PeerFailed("another column slab of this process failed");
        return result_;
    }
    // The last thread gathers for all: the others wait here, not in MPI, so a collective
    // across processes has exactly one caller per process.
    SlabValues mine = std::move(arrived_values_);
    arrived_values_.assign(static_cast<size_t>(slabs_), {});
    arrived_ = 0;
    lock.unlock();
    SlabValues all;
    try {
        all = across(mine);
    } catch (...) {
        fail();
        throw;
    }
    lock.lock();
    result_ = all;
    ++generation_;
    changed_.notify_all();
    return all;
}

void SlabGroup::fail() {
    std::lock_guard<std::mutex> lock(mutex_);
    failed_ = true;
    changed_.notify_all();
}

void SlabGroup::check() const {
    std::lock_guard<std::mutex> lock(mutex_);
    if (failed_) throw PeerFailed("another column slab of this process failed");
}

void run_in_group(SlabGroup& group, const std::function<void(int local)>& body) {
    std::mutex first_mutex;
    std::exception_ptr first;  ///< the first failure, or an echo of one until the failure comes
    bool first_is_echo = false;
    std::vector<std::thread> threads;
    try {
        for (int local = 0; local < group.slabs(); ++local)
            threads.emplace_back([&, local] {
                try {
                    body(local);
                } catch (...) {
                    bool echo = false;
                    try {
                        throw;
                    } catch (const PeerFailed&) {
                        echo = true;
                    } catch (...) {
                    }
                    {
                        std::lock_guard<std::mutex> lock(first_mutex);
                        if (!first || (first_is_echo && !echo)) {
                            first = std::current_exception();
                            first_is_echo = echo;
                        }
                    }
                    group.fail();
                }
            });
    } catch (const std::system_error& e) {
        // The slabs already started wait for the missing ones in their first collective:
        // failing the group releases them, and they must be joined before anything returns.
        group.fail();
        for (auto& t : threads) t.join();
        throw Error("cannot start a thread for each of " + std::to_string(group.slabs()) +
                    " column slabs: " + e.what());
    }
    for (auto& t : threads) t.join();
    if (first) std::rethrow_exception(first);
}

std::function<void(const std::string&)> one_note_at_a_time(std::function<void(const std::string&)> note) {
    if (!note) return note;
    auto mutex = std::make_shared<std::mutex>();
    return [mutex, note = std::move(note)](const std::string& text) {
        std::lock_guard<std::mutex> lock(*mutex);
        note(text);
    };
}

std::shared_ptr<void> SlabGroup::once(const std::function<std::shared_ptr<void>()>& make) {
    std::lock_guard<std::mutex> lock(once_mutex_);
    if (!once_) once_ = make();
    return once_;
}

}  // namespace chromalign
