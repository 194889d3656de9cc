//! @file The engine-swept traceback against the full-matrix reference.
#include "tests/sweep_support.hpp"

#include <gtest/gtest.h>

#include <random>

#include "engine/orchestration/slab_run.hpp"
#include "engine/traceback/engine_sweeper.hpp"
#include "engine/traceback/linear_traceback.hpp"
#include "kernels/reference/traceback.hpp"
#include "kernels/registry.hpp"
#include "tests/test_support.hpp"

namespace chromalign::test {

std::unique_ptr<Backend> small_backend(const std::string& name) {
    BackendOptions options;
    options.threads = 2;
    return make_backend(name, options);
}

void expect_engine_sweeps_exact(const std::string& backend, int pairs, uint64_t seed) {
    std::mt19937_64 rng(seed);
    const std::unique_ptr<Backend> b = small_backend(backend);
    ASSERT_NE(b->slab_engine(), nullptr) << backend << " is not a tiled backend";
    const std::vector<Scoring> scorings = {Scoring(1, -3, 5, 2), Scoring(2, -3, 7, 2), Scoring(1, -3, 2, 5),
                                           hoxd70()};
    int64_t swept = 0;
    for (int k = 0; k < pairs; ++k) {
        const Scoring& sc = scorings[static_cast<size_t>(k) % scorings.size()];
        const int64_t m = 1500 + static_cast<int64_t>(rng() % 2500), n = 1500 + static_cast<int64_t>(rng() % 2500);
        auto [s0, s1] = k % 3 == 0 ? random_pair(m, n, rng) : mutated_pair(m, n, rng, k % 2 == 0 ? 0.01 : 0);
        const Alignment want = reference_traceback(s0, s1, sc);
        // Some sweeps keep every band's bottom row, others every k-th.
        EngineSweeper sweeper(*b->slab_engine(), s0, s1, sc, k % 2 ? int64_t{1} << 30 : int64_t{64} << 10);
        FirstRowOnly zero;
        const TracebackLimits limits{4096, int64_t{64} << 10};
        const Alignment got = linear_traceback(s0, s1, sc, {want.score, want.s0_end, want.s1_end}, zero, limits,
                                               nullptr, &sweeper);
        const std::string what = backend + " pair #" + std::to_string(k) + " " + std::to_string(m) + " x " +
                                 std::to_string(n) + ", seed " + std::to_string(seed);
        EXPECT_EQ(got.s0_start, want.s0_start) << what;
        EXPECT_EQ(got.s1_start, want.s1_start) << what;
        EXPECT_EQ(got.cigar(), want.cigar()) << what;
        swept += sweeper.engine_sweeps();
    }
    EXPECT_GE(swept, pairs / 2) << "the " << backend << " engine swept too few windows: the test tests little";
}

}  // namespace chromalign::test
