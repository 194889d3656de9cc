//! @file Pairs on which pruning skips many cells or meets ties, and the exactness check every
//! pruning backend passes (tests/test_pruning.cpp for cpu, test_pruning_gpu.cpp for cuda).
#pragma once

#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "engine/backend/options.hpp"
#include "engine/result.hpp"
#include "engine/scoring/scoring.hpp"
#include "engine/sequence.hpp"

namespace chromalign::test {

struct PruningCase {
    std::string what;
    Sequence s0, s1;
    Scoring scoring;
};

/// Mutated, related (long indels, rearrangements), unrelated and tie-rich pairs (a sequence
/// against two copies of itself, tandem repeats, a periodic pair) of up to about `size` bases,
/// under the default scoring, HOXD70 and the test matrices.
std::vector<PruningCase> pruning_cases(std::mt19937_64& rng, int64_t size);

/// Mutated pairs of the edge sizes of tiles `band` rows high: m in 1, band - 1, band, band + 1,
/// 3 band + 5 against n in 1, 63, 64, 65 and `wide`.
std::vector<PruningCase> edge_cases(std::mt19937_64& rng, const std::vector<int64_t>& bands, int64_t wide);

/// Options of a grid to test: 0 leaves a knob to the backend.
BackendOptions grid(int alpha, int max_blocks, int slabs = 0, int threads = 0);

/// Runs `backend` with each of `grids`, pruning on and off, on every case: both must equal the
/// reference. Returns the cells the pruned runs skipped, in all.
int64_t expect_pruning_exact(const std::string& backend, const std::vector<PruningCase>& cases,
                             const std::vector<BackendOptions>& grids);

/// Runs `backend` made with `grid` and a lower bound of `bound` from the first row; returns the
/// best cell, and in `pruned` the cells skipped.
AlignmentEnd align_with_bound(const std::string& backend, BackendOptions grid, int32_t bound, const Sequence& s0,
                              const Sequence& s1, const Scoring& scoring, int64_t& pruned);

/// Runs `backend` with each of `grids` on every case from bounds 0, random below the optimum
/// (drawn from `rng`), the optimum - 1 and the optimum: all must equal the reference, and the
/// bound at the optimum must skip more cells than the bound 0.
void expect_injected_bounds_exact(const std::string& backend, const std::vector<PruningCase>& cases,
                                  const std::vector<BackendOptions>& grids, std::mt19937_64& rng);

/// Runs `backend` with each of `grids` on every case and three related pairs of `related`
/// bases (where a gain table bites most), pruning from the optimum itself and from 0, with
/// the case's gain table (strips of `strip_rows`) and without: all must equal the reference,
/// and the runs with tables must skip more cells, or the check proves little.
void expect_gain_table_exact(const std::string& backend, std::vector<PruningCase> cases,
                             const std::vector<BackendOptions>& grids, int64_t strip_rows, int64_t related,
                             std::mt19937_64& rng);

/// What stop_then_resume saw.
struct StopAndResume {
    bool stopped = false;        ///< the first run was stopped (it had not finished yet)
    int64_t pruned_columns = 0;  ///< columns of the checkpointed rows marked pruned (F = -inf)
    AlignmentEnd result;         ///< the resumed run's answer
    int64_t cells_resumed = 0;   ///< what the resumed run took from the checkpoint
    int64_t cells_above = 0;     ///< the cells above the checkpoint's rows (its steps')
    int64_t steps = 0;           ///< the steps of its pieces (a cpu wavefront's)
};

/// Runs `first` with checkpoints at `path` and stops it once rank 0 has enqueued diagonal
/// `stop_at` (slab_support.hpp's stopped_at), as a signal would (a checkpoint, then
/// Interrupted), so that the row it keeps lies deep in the matrix; then finishes the
/// comparison with `second` from that checkpoint.
StopAndResume stop_then_resume(const std::string& first, BackendOptions first_options, const std::string& second,
                               BackendOptions second_options, const Sequence& s0, const Sequence& s1,
                               const Scoring& scoring, const std::string& path, int64_t stop_at);

}  // namespace chromalign::test
