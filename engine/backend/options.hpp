//! @file What a caller sets for a run on any backend: knobs, checkpoints, and the progress callback.
#pragma once

#include <atomic>
#include <csignal>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace chromalign {

struct GainView;  // engine/pruning/gain_table.hpp

/// A progress report from a running comparison.
struct Progress {
    int64_t cells_done = 0;   ///< DP cells finished (of m*n), resumed and skipped ones included
    int64_t cells_total = 0;
    int64_t cells_this_run = 0;  ///< cells this process finished in this run, computed or skipped
    int64_t cells_pruned = 0;    ///< of those, the ones pruning skipped
    int64_t cells_left = 0;      ///< cells this process has still to finish
    /// Of those, the ones it is expected to compute rather than skip: the ETA is this over the
    /// rate of computed cells (engine/orchestration/slab_run.cpp says how it is estimated).
    int64_t cells_left_live = 0;
    double seconds = 0;       ///< since this process started the comparison
    int32_t best_score = 0;   ///< best score found so far
    /// A K best search's report, after its comparison's cells (0 wanted: a report of cells):
    /// the alignments found so far, of at most alignments_wanted, the last scoring
    /// alignment_score. Its time depends on what it finds, so it has no ETA.
    int32_t alignments_found = 0, alignments_wanted = 0, alignment_score = 0;
};

/// Checkpointing of the tiled backends (engine/checkpoint/checkpointer.hpp says what is kept).
struct CheckpointOptions {
    std::string path;            ///< empty: no checkpoints
    double every_seconds = 60;   ///< interval between two checkpoints
    bool restart = false;        ///< ignore (and later overwrite) an existing checkpoint
    bool strict = false;         ///< stop when a checkpoint cannot be written
    std::string keep_rows_dir;   ///< also keep every checkpointed row here
    /// The caller holds the lock of the job's checkpoint for the whole job (JobState): the
    /// checkpointer of each comparison takes none of its own.
    bool lock_held = false;
    /// Set (to the signal number) by a signal handler: write one more checkpoint, then throw
    /// Interrupted. Read between diagonals only.
    const volatile std::sig_atomic_t* stop = nullptr;
};

/// Which comparison special rows belong to: both sequences' lengths and content fingerprints
/// (rows_identity in engine/traceback/special_rows.hpp).
struct RowsIdentity {
    int64_t m = 0, n = 0;
    uint64_t fingerprint0 = 0, fingerprint1 = 0;
};

/// Special rows for the traceback (engine/traceback/special_rows.hpp), kept by the tiled backends.
struct SpecialRowOptions {
    std::string dir;           ///< empty: none kept
    int64_t budget_bytes = 0;  ///< disk the rows of one comparison may take
    /// The comparison's; run_slabs fills it once for all its slabs (hashing both sequences).
    RowsIdentity identity;
};

/// Knobs shared by every backend; 0 means "the backend chooses" (each backend's defaults are
/// in its own folder under kernels/).
struct BackendOptions {
    int threads = 0;          ///< CPU threads
    int device = 0;           ///< accelerator index
    int alpha = 0;            ///< rows per thread (or SIMD lane) of the tiled engines
    int blocks_per_sm = 0;    ///< GPU blocks resident per multiprocessor
    int max_blocks = 0;       ///< cap on blocks per external diagonal (tests use it to force
                              ///< many-block grids on small inputs)
    int slabs = 0;            ///< column slabs this process runs at once, a thread each
                              ///< (engine/orchestration/slab_group.hpp)
    int slab_oversubscription = 0;  ///< a slab's block columns in shares of the resident blocks
                                    ///< (cuda: kernels/cuda/tuning.hpp; chromalign-bench only)
    bool pruning = true;      ///< skip regions that cannot reach the best score (engine/pruning)
    /// While a bound pass runs, slabs start on narrow block columns, which a narrow live band
    /// wants, and change to wide ones where the pass leaves most of the matrix live
    /// (engine/orchestration/slab_run.cpp); chromalign-bench turns it off to measure it.
    bool narrow_grid = true;
    int narrow_shares = 0;    ///< cuda: a narrow grid's block columns in times the resident blocks
                              ///< (kernels/cuda/tuning.hpp; chromalign-bench only)
    /// Tests: every slab starts on at most this many block columns and changes to its own at
    /// its first band past row narrow_test_row, whatever the bound and the engine (0: as they
    /// decide).
    int32_t narrow_test_blocks = 0;
    int64_t narrow_test_row = 0;
    /// Tests: a slab waits this long before it starts its new grid, as a GPU's allocations
    /// make it, so that its right neighbour catches up with it.
    int32_t narrow_test_pause_ms = 0;
    /// Tests and chromalign-bench, cuda: a diagonal's launch of more blocks than this splits in
    /// two, as one larger than the GPU holds (0: as many as the GPU holds at once).
    int32_t cooperative_limit = 0;
    /// cuda, chromalign-bench: stage 1 as one stream of bands over the whole matrix
    /// (kernels/cuda/stream/band_stream.cuh) instead of tiles on external diagonals; no
    /// checkpoints, special rows or stacked records yet.
    bool band_stream = false;
    /// Tests: the cpu engine's checkpoints take band rows, not wavefronts, as cuda's do.
    bool test_row_checkpoints = false;
    /// A score some other comparison of the job already reached that wins ties over every cell
    /// of this one (the other strand of a record pair, engine/job/job.hpp): pruning starts from
    /// it. Then only a best score of at least the floor is exact; one below it is not this
    /// comparison's optimum, and the job never reports it.
    int32_t prune_floor = 0;
    /// A lower bound of this comparison's optimum that may rise while the run goes on (a bound
    /// pass beside it, engine/bound/bound_thread.hpp): pruning takes it up as it rises. Null:
    /// none. The caller checks the answer against it (BoundThread::finish).
    const std::atomic<int32_t>* lower_bound = nullptr;
    /// True once lower_bound holds its last value (the pass ended, with a bound or without).
    /// Null: lower_bound, if any, is final from the start.
    const std::atomic<bool>* bound_settled = nullptr;
    /// A gain table of this comparison once built (engine/pruning/gain_table.hpp), beside the
    /// bound pass; null until then, or none. Later decisions prune with it.
    const std::atomic<const GainView*>* gain_table = nullptr;
    /// Stacked records (engine/job/stack.hpp): S0 is several records one under another, record
    /// k from row stack_rows[k] (0-based, from 0, each a multiple of the engine's band height),
    /// none crossing into the next; the run gives each record's best cell. Null: one record.
    /// Without pruning, checkpoints or special rows.
    const std::vector<int64_t>* stack_rows = nullptr;
    std::function<void(const Progress&)> on_progress;  ///< called about once a second, if set
    /// Informational lines, if set; one at a time, though the slabs of a process call it from
    /// their own threads.
    std::function<void(const std::string&)> on_note;
    /// Called by each column slab as it enqueues external diagonal d (its rank, d), if set:
    /// how a test stops a run at a chosen point rather than after a delay a busy machine stretches.
    std::function<void(int, int64_t)> on_diagonal;
    CheckpointOptions checkpoint;
    SpecialRowOptions special_rows;
};

}  // namespace chromalign
