//! @file The job's state beside its checkpoint (FILE.job): which comparisons are done, with
//! their answers, and the alignments traced back. A comparison in progress keeps its own pieces
//! (engine/job/job_files.hpp); together they are the whole job's checkpoint.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "engine/alignment/alignment.hpp"
#include "engine/checkpoint/lock.hpp"
#include "engine/job/job.hpp"

namespace chromalign {

/// A comparison stage 1 finished.
struct DoneComparison {
    size_t pair = 0;
    Strand strand = Strand::kForward;
    AlignmentEnd best;          ///< as Stage1Outcome::best
    int32_t floor = 0;          ///< the prune floor it ran with
    int64_t cells_pruned = 0;
};

/// A record pair's alignment, traced back.
struct DoneTraceback {
    size_t pair = 0;
    Strand strand = Strand::kForward;
    Alignment alignment;
};

/// A record pair's search for its K best alignments on one strand (--alignments): what it has
/// found, for which count and least score, and whether it ended (found `count`, nothing else
/// reached `min_score`, or `outranked`: the earlier strands' alignments and its own left its
/// next no place among the pair's `count`, pair_alignments.hpp).
struct DoneSearch {
    size_t pair = 0;
    Strand strand = Strand::kForward;
    int count = 0;
    int32_t min_score = 0;
    bool ended = false;
    bool outranked = false;  ///< ended by that rank (then `ended` too)
    std::vector<Alignment> found;
};

/// Identifies a job: its scoring, strands, and every pair's records as compared (lengths and
/// content fingerprints, in the pairs' order).
uint64_t job_fingerprint(const JobSpec& spec);

class JobState {
public:
    /// The state of the job `fingerprint` beside its checkpoint FILE (job_state_path), taken
    /// up when the file is this job's (a file of another job, or a damaged one, is an Error
    /// that says to use --restart; with `restart` it is ignored and replaced). `writer`: this
    /// process writes the file (rank 0) and holds FILE.lock for the whole job, in place of
    /// each comparison's checkpointer (CheckpointOptions::lock_held). A lock or a write that
    /// fails warns through `warn` and the job goes on (as a comparison's checkpoints do), or
    /// with `strict` throws.
    JobState(const std::string& checkpoint, uint64_t fingerprint, const JobSpec& spec, bool restart, bool writer,
             bool strict, std::function<void(const std::string&)> warn);
    ~JobState();

    std::optional<DoneComparison> done(size_t pair, Strand strand) const;
    std::optional<Alignment> traced(size_t pair) const;
    std::optional<DoneSearch> search(size_t pair, Strand strand) const;
    /// Comparisons finished: stage 1 done, or (a search alone, without stage 1) their strand's
    /// search ended.
    size_t done_count() const;

    /// Records a finished comparison or traceback. The file is written (writer only) when
    /// `every_seconds` have passed since the last write, so that many short comparisons do not
    /// each cost a synced write: a kill loses at most that much, as with a comparison's own
    /// checkpoints.
    void add(const DoneComparison& d, double every_seconds);
    void add(const DoneTraceback& t, double every_seconds);
    void add(const DoneSearch& s, double every_seconds);
    /// The lower bound of a comparison in progress (engine/bound), kept so that a resumed run
    /// prunes from it at once; 0: none. Written at once: the pass may have taken minutes. Any
    /// thread may call it (the bound pass's does). A bound is checked like any other
    /// (BoundThread::finish): a forged one above the optimum is refused, never answered.
    void add_bound(size_t pair, Strand strand, int32_t score);
    int32_t bound(size_t pair, Strand strand) const;
    /// Writes the file now (a stop), if anything was added since the last write.
    void save();
    /// The job is done: the file goes (a finished job leaves nothing to resume).
    void finish();

private:
    void save_if_due(double every_seconds);
    void save_locked();
    std::string path_;
    uint64_t fingerprint_;
    bool writer_, strict_;
    std::function<void(const std::string&)> warn_;
    bool warned_ = false;
    std::unique_ptr<CheckpointLock> lock_;
    std::map<std::pair<size_t, Strand>, DoneComparison> done_;
    std::map<size_t, DoneTraceback> traced_;
    std::map<std::pair<size_t, Strand>, DoneSearch> searches_;
    std::map<std::pair<size_t, Strand>, int32_t> bounds_;  ///< of comparisons not done yet
    mutable std::mutex mutex_;  ///< add_bound comes from the bound pass's thread
    bool unsaved_ = false;
    std::chrono::steady_clock::time_point saved_ = std::chrono::steady_clock::now();
};

}  // namespace chromalign
