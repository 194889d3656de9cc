//! @file The bound pass beside stage 1: it runs on its own thread while stage 1 starts at once,
//! and its bound enters the run's shared best when ready (BackendOptions::lower_bound); a late
//! bound only prunes less. When stage 1 ends, the answer is checked against the bound it used.
//! Why a bound may prune from the first row, and why one above the optimum is always caught:
//! engine/pruning/prune_rule.hpp.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <thread>

#include "engine/backend/options.hpp"
#include "engine/bound/bound_source.hpp"
#include "engine/pruning/gain_table.hpp"
#include "engine/result.hpp"

namespace chromalign {

/// What the bound did for one comparison.
struct BoundReport {
    std::string source;        ///< "minimap2", "checkpoint", or empty: no bound
    int32_t score = 0;         ///< the bound (0: none found)
    double seconds = 0;        ///< the pass's time, from stage 1's start
    bool in_time = false;      ///< it entered before stage 1 ended
    int64_t blocks = 0, path_columns = 0;  ///< BoundFound's
    std::string failure;       ///< why the pass gave nothing, when it failed
    int32_t table_k = 0;       ///< the gain table's k, 0: none built (gain_table.hpp)
    double table_seconds = 0;  ///< its time, beside the pass
    /// What the table lets a path add from cell (0, 0), per column of min(m, n): against the
    /// score per column, the slack that keeps cells beside the alignment live.
    double table_gain = 0;
    int64_t table_band = 0;  ///< the table's bands, in diagonals (tools/gain_slack.py takes it)
};

class BoundThread {
public:
    /// Starts `source` (null: none, and no gain table) on s0 x s1. A bound already known (a
    /// resumed comparison's) enters at once and the pass is not run again. `on_found`
    /// (optional) is called on the pass's thread with the bound once found.
    BoundThread(BoundSource* source, const Sequence& s0, const Sequence& s1, const Scoring& scoring, int32_t known,
                std::function<void(int32_t)> on_found = {});
    ~BoundThread();  ///< cancels the pass and waits for it
    BoundThread(const BoundThread&) = delete;
    BoundThread& operator=(const BoundThread&) = delete;

    /// Points `run`'s lower_bound at this pass's bound, and its bound_settled at whether that
    /// bound is final: both, or a run would take a bound still to come for none at all.
    void lend_to(BackendOptions& run) const {
        run.lower_bound = &value_;
        run.bound_settled = &settled_;
        run.gain_table = &table_view_;
    }

    /// After stage 1 found `best` pruning from `floor` (BackendOptions::prune_floor): ends the
    /// pass, and throws Error, naming `what`, when a bound above the floor was not reached
    /// (then it was above the optimum, and the pruned answer may be wrong).
    BoundReport finish(const AlignmentEnd& best, int32_t floor, const std::string& what);

private:
    std::atomic<int32_t> value_{0};
    std::atomic<bool> settled_{false};
    std::atomic<bool> cancel_{false};
    /// Beside the pass, or alone for a known bound, a thread of its own builds a gain table: a
    /// tighter gain, which needs no bound (engine/pruning/gain_table.hpp).
    std::thread table_thread_;
    std::unique_ptr<GainTable> table_;
    std::atomic<const GainView*> table_view_{nullptr};
    BoundReport report_;
    std::thread thread_;
};

}  // namespace chromalign
