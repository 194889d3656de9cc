//! @file Pairs on which pruning skips many cells or meets ties, and the exactness check every
//! pruning backend passes (tests/test_pruning.cpp for cpu, test_pruning_gpu.cpp for cuda).
#pragma once

#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "engine/backend/options.hpp"
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

/// Runs `backend` with each of `grids`, pruning on and off, on every case: both must equal the
/// reference. Returns the cells the pruned runs skipped, in all.
int64_t expect_pruning_exact(const std::string& backend, const std::vector<PruningCase>& cases,
                             const std::vector<BackendOptions>& grids);

}  // namespace chromalign::test
