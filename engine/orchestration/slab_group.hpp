//! @file The column slabs one process runs at once, a thread each: where their threads meet for
//! collectives, and how the failure of one stops the others.
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <exception>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

namespace chromalign {

/// Values by slab: [slab][value].
using SlabValues = std::vector<std::vector<int64_t>>;

/// Why a process runs several slabs: a GPU runs their diagonals as concurrent kernels, so one
/// slab's per-diagonal set-up, slowest block and ramps overlap the others' work, and slabs
/// of several processes interleave (slab v on process v mod P), so every GPU shares the
/// ramps of the whole matrix's wavefront instead of idling through its neighbour's.
class SlabGroup {
public:
    explicit SlabGroup(int slabs);
    int slabs() const { return slabs_; }

    /// Collective of the group's threads, each passing its index `local` and its values: the
    /// last to arrive runs `across` on the values by local index (to gather them from other
    /// processes) and every thread returns what it gave. Throws Error when a slab failed.
    SlabValues gather(int local, const std::vector<int64_t>& values,
                      const std::function<SlabValues(const SlabValues&)>& across);

    /// Cells of the group's slabs in this run: finished (computed or skipped), to finish, and
    /// skipped by pruning; and a slab's columns, [col_begin, col_begin + cols) of S1 (not
    /// summed).
    struct Cells {
        int64_t done = 0, total = 0, pruned = 0;
        int64_t col_begin = 0, cols = 0;
    };
    /// Slab `local`'s cells (it says so about once a second); what the progress line of the
    /// process sums, and models slab by slab (each slab is at its own row: the left ones end
    /// long before the right ones on a pruned run). Any thread may call all three.
    void set_cells(int local, const Cells& cells);
    Cells cells() const;
    std::vector<Cells> each() const;
    /// The right to report the process's progress now, held while the lock is: given once a
    /// second at most, to one slab at a time (an unowned lock otherwise). Any slab still
    /// running may take it, so the reports go on after the first slabs end.
    std::unique_lock<std::mutex> claim_report();

    /// The best score any slab of the process has reported (pruning): raised to `g`, returned.
    int32_t offer_best(int32_t g);

    /// A slab of the process took a stop checkpoint: the others may leave their diagonals
    /// (TileExecutor::set_interrupt), as the stop's request is on its way to them.
    void set_stopping() { stopping_.store(true, std::memory_order_relaxed); }
    bool stopping() const { return stopping_.load(std::memory_order_relaxed); }

    /// Work one slab does for the whole process (levelling the pieces a resume starts from):
    /// the first slab to ask runs `make`, the others wait for it; all get its result. Run
    /// again by the next to ask if it threw.
    std::shared_ptr<void> once(const std::function<std::shared_ptr<void>()>& make);

    /// Marks the group failed and wakes every thread waiting in gather().
    void fail();
    /// Throws Error when a slab of the group failed; links call it while they wait.
    void check() const;

private:
    const int slabs_;
    mutable std::mutex mutex_;
    std::condition_variable changed_;
    bool failed_ = false;
    SlabValues arrived_values_;
    int arrived_ = 0;
    int64_t generation_ = 0;
    SlabValues result_;
    std::unique_ptr<std::atomic<int64_t>[]> done_, total_, pruned_, col_begin_, cols_;  ///< per slab, see set_cells
    std::atomic<int32_t> best_{0};  ///< see offer_best
    std::mutex report_mutex_;  ///< see claim_report
    std::chrono::steady_clock::time_point last_report_ = std::chrono::steady_clock::now();
    std::atomic<bool> stopping_{false};  ///< see set_stopping
    std::mutex once_mutex_;
    std::shared_ptr<void> once_;  ///< see once
};

/// Runs body(local) for every slab of the group, a thread each. When one throws, the group
/// fails (the others throw at their next wait) and, once all threads ended, the first
/// exception thrown is rethrown; one that only echoes another's failure (PeerFailed) gives way
/// to the failure itself, whichever thread threw first.
void run_in_group(SlabGroup& group, const std::function<void(int local)>& body);

/// `note` behind a mutex: the slabs of a group note from their own threads, and a caller's
/// handler (one that collects lines in a vector, say) need not be thread-safe. Null stays null.
std::function<void(const std::string&)> one_note_at_a_time(std::function<void(const std::string&)> note);

}  // namespace chromalign
