//! @file A job: many record pairs of two genomes, each on one or both strands, with their
//! shared best, their results, their tracebacks and one checkpoint for all of it. The CLI, the
//! benchmark and the tests drive comparisons through it.
//!
//! The comparisons run one after another, in the order of the pairs and, within a pair,
//! forward before reverse. A pair's strands share one best score: the reverse strand starts
//! pruning from the forward strand's best (BackendOptions::prune_floor), so a strong alignment
//! on one strand prunes the other. The pair's answer is the better of its strands under the
//! tie rule of engine/result.hpp, and between strands with equal scores the forward one wins
//! (the reverse strand is pruned against the forward score, which wins its ties). Pairs never
//! share a best: each pair's answer is its own exact optimum.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "engine/alignment/alignment.hpp"
#include "engine/backend/backend.hpp"
#include "engine/bound/bound_thread.hpp"
#include "engine/declump/pair_alignments.hpp"
#include "engine/job/strand.hpp"
#include "engine/result.hpp"
#include "engine/scoring/scoring.hpp"
#include "engine/sequence.hpp"
#include "engine/traceback/linear_traceback.hpp"

namespace chromalign {

/// Two records of a job by their index among its S0 and S1 records.
struct RecordPair {
    size_t s0 = 0, s1 = 0;
};

/// What a job compares: records of S0 and of S1, the pairs of them, and the strands.
struct JobSpec {
    std::vector<Sequence> s0, s1;
    std::vector<RecordPair> pairs;
    std::vector<Strand> strands{Strand::kForward, Strand::kReverse};  ///< forward first when both
    Scoring scoring;

    int64_t comparisons() const { return static_cast<int64_t>(pairs.size() * strands.size()); }
    /// Cells of every comparison: each pair's m n once per strand.
    int64_t cells() const;
    /// Throws Error for a spec that cannot run: no pairs, a pair out of range, no strand or one
    /// twice, a record pair whose best score could overflow (Scoring::check_no_overflow).
    void validate() const;
};

/// What stage 1 of one comparison found.
struct Stage1Outcome {
    AlignmentEnd best;          ///< in the coordinates compared (S1's reverse complement on kReverse)
    int64_t cells_pruned = 0;   ///< real cells pruning skipped
    int64_t cells_resumed = 0;  ///< cells a checkpoint held (0: started afresh)
    /// With BackendOptions::stack_rows: each stacked record's best cell (Backend::record_bests).
    std::vector<AlignmentEnd> records;
};

/// Runs stage 1 of one comparison with that comparison's options (checkpoint, special rows,
/// floor, progress): Backend::align_run in one process, slabs over MPI in several.
using Stage1Runner =
    std::function<Stage1Outcome(const Sequence& s0, const Sequence& s1, const Scoring& scoring, const BackendOptions& run)>;

/// A record pair's answer: its best strand, where the best alignment ends there, and, when it
/// was traced back, the alignment.
struct PairAnswer {
    size_t pair = 0;         ///< index in JobSpec::pairs
    Strand strand = Strand::kForward;
    AlignmentEnd best;       ///< in the coordinates of S0 and S1 as compared on `strand`
    int64_t cells = 0;       ///< of all the pair's strands
    int64_t cells_pruned = 0;
    int64_t cells_resumed = 0;
    double seconds = 0;      ///< stage 1 of the pair's strands, this run (a search alone: its first passes)
    std::optional<Alignment> alignment;  ///< when traced back (coordinates as `best`'s)
    double traceback_seconds = 0;
    int64_t special_rows = 0;            ///< rows the traceback started from
    TracebackCounts traceback;           ///< what the traceback recomputed
    /// With JobOptions::score_maps: SpecialRows::region_peaks() of the rows traced back from.
    std::map<int64_t, std::vector<int32_t>> score_map;
    /// The bound that pruned `strand`'s stage 1 from its first row (engine/bound), this run.
    BoundReport bound;
    /// With JobOptions::alignments > 1: the pair's alignments after `alignment`, best first
    /// (engine/declump/pair_alignments.hpp), and what finding them all computed.
    std::vector<StrandAlignment> others;
    DeclumpCounts declump;
    double declump_seconds = 0;
};

/// What a job runs with, beside its spec.
struct JobOptions {
    /// The backend's options; checkpoint.path is the job's (engine/job/job_files.hpp names
    /// each comparison's pieces after it), special_rows.budget_bytes each comparison's.
    BackendOptions backend;
    /// Trace back each pair whose score reaches min_score (0: every pair with an alignment).
    bool traceback = false;
    int32_t min_score = 0;
    /// Where stage 1 keeps special rows (a directory per comparison under it); empty: none
    /// (the traceback then recomputes from row 0). With rows_kept (--traceback-dir), a
    /// comparison whose stage 1 record is there skips stage 1, and traceback_only requires it.
    std::string rows_dir;
    bool rows_kept = false;
    /// A pair's special rows go once it is traced back (a temporary directory, or one kept only
    /// until the job is done); else they stay for `chromalign traceback DIR`.
    bool drop_traced_rows = false;
    bool traceback_only = false;
    bool score_maps = false;  ///< keep each traced pair's score map (--plot)
    /// Alignments per traced pair (--alignments): the best `alignments` that share no aligned
    /// pair, over the pair's strands; 1: the traceback's alone.
    int alignments = 1;
    /// The edges the search for them may keep, per record pair (0: auto_tiles within
    /// Backend::search_memory()).
    int64_t declump_bytes = int64_t{1} << 30;
    /// With alignments > 1, the search alone finds them all, alignment 1 too, with no stage 1
    /// (JobRun::search_alone says where it cannot); false: stage 1 and the traceback first, as
    /// several ranks need (they run each stage 1 together), and rows kept for a later
    /// traceback (--traceback-dir). A checkpoint's rows (rows_kept until the job is done) need
    /// no stage 1: the search saves what it found (JobState) and takes it up.
    bool search_alone = true;
    /// Stack short S0 records (engine/job/stack.hpp) rather than compare them one by one.
    bool stack = true;
    /// Where each comparison's lower bound comes from (engine/bound/bound_thread.hpp): a pass
    /// beside its stage 1. Null: none (--bound none). Stacks never prune, so take none.
    BoundSource* bound = nullptr;
    /// Where the records came from, for stage 1 records (`chromalign traceback DIR`).
    std::string s0_path, s1_path;
    /// This process writes the job's files (its state, stage 1 records) and traces back: the
    /// only process, or rank 0 of several (the others run the same stage 1s).
    bool writer = true;
    /// Called once a second at most, with the progress of the whole job; comparison k of the
    /// job's comparisons() is the one running (Progress's fields count the whole job).
    std::function<void(const Progress&, int64_t comparison)> on_progress;
    std::function<void(const std::string&)> on_note;
};

/// The answers of a job, one per record pair, best first (score, then the pairs' order).
struct JobResult {
    std::vector<PairAnswer> answers;
    int64_t cells = 0, cells_pruned = 0, cells_resumed = 0;
    double seconds = 0;            ///< stage 1 of every comparison, this run
    double traceback_seconds = 0;  ///< every traceback, this run
};

/// A record as --s0-record and --pairs name it: NAME, or NAME:START-END for a region.
std::string selector_of(const Sequence& s);

/// Runs the job. `stage1` runs one comparison; `backend` sweeps the traceback's windows on its
/// engine where it has one. Throws Interrupted after a stop checkpoint (the job's state and the
/// comparison's pieces saved), Error on anything else.
JobResult run_job(const JobSpec& spec, const JobOptions& options, Backend& backend, const Stage1Runner& stage1);

}  // namespace chromalign
