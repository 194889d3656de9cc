//! @file GPU tests of column-slab runs: CUDA executors with left and right edges, ranks as
//! threads (on one device, or one each where there are several), against the reference.
#include <gtest/gtest.h>

#include <algorithm>
#include <csignal>
#include <random>
#include <cstdlib>
#include <string>
#include <vector>

#include "kernels/registry.hpp"
#include "engine/error.hpp"
#include "kernels/reference/reference.hpp"
#include "engine/orchestration/slab_run.hpp"
#include "tests/test_support.hpp"
#include "tests/slab_support.hpp"

namespace chromalign {
namespace {

#define SKIP_WITHOUT_GPU() \
    if (!(backend_devices("cuda") > 0)) GTEST_SKIP() << "no CUDA device (or no CUDA build)"

const Scoring kScorings[] = {{1, -3, 5, 2}, {2, -3, 7, 2}, {1, -1, 2, 2}, {5, -4, 10, 1}, {1, -2, 1, 1}, {200, -150, 300, 40}};

AlignmentEnd cuda_slab_align(const Sequence& s0, const Sequence& s1, const Scoring& scoring, int ranks,
                             const BackendOptions& o) {
    return test::slab_align("cuda", s0, s1, scoring, ranks, o);
}

BackendOptions grid(int alpha, int max_blocks) {
    BackendOptions o;
    o.alpha = alpha;
    o.max_blocks = max_blocks;
    return o;
}

void expect_reference(const Sequence& s0, const Sequence& s1, const Scoring& scoring, int ranks,
                      const BackendOptions& o, const std::string& what) {
    test::expect_slab_matches_reference("cuda", s0, s1, scoring, ranks, o, what);
}

TEST(CudaSlab, RandomAndMutatedPairsMatchReference) {
    SKIP_WITHOUT_GPU();
    std::mt19937_64 rng(test::seed());
    const int alphas[] = {4, 8, 16};
    const int max_blocks[] = {1, 2, 3, 5, 0};
    for (int i = 0; i < 80; ++i) {
        const int ranks = 2 + static_cast<int>(rng() % 2);
        const int64_t m = 1 + rng() % (i < 40 ? 600 : 3000);
        const int64_t n = 64 * ranks + 1 + rng() % (i < 40 ? 600 : 3000);
        const bool mutated = i % 4 != 0;
        auto [s0, s1] = mutated ? test::mutated_pair(m, n, rng, i % 5 == 0 ? 0.02 : 0.0) : test::random_pair(m, n, rng);
        expect_reference(s0, s1, kScorings[rng() % 6], ranks, grid(alphas[rng() % 3], max_blocks[rng() % 5]),
                         (mutated ? "mutated pair #" : "random pair #") + std::to_string(i));
        if (HasFatalFailure()) return;
    }
}

TEST(CudaSlab, MatricesMatchReference) {
    SKIP_WITHOUT_GPU();
    std::mt19937_64 rng(test::seed() + 20);
    for (const test::NamedScoring& ns : test::matrix_scorings(rng))
        for (int i = 0; i < 4; ++i) {
            const int ranks = 2 + static_cast<int>(rng() % 2);
            const int64_t m = 1 + rng() % 3000, n = 64 * ranks + 1 + rng() % 3000;
            auto [s0, s1] = test::mutated_pair(m, n, rng, i == 0 ? 0.02 : 0.0);
            expect_reference(s0, s1, ns.scoring, ranks, grid(i % 2 ? 4 : 16, 0), ns.name + " #" + std::to_string(i));
            if (HasFatalFailure()) return;
        }
}

TEST(CudaSlab, EdgeSizesMatchReference) {
    SKIP_WITHOUT_GPU();
    std::mt19937_64 rng(test::seed() + 1);
    for (const int alpha : {4, 16}) {
        const int64_t band = 32 * alpha;
        for (const int64_t m : {int64_t{1}, int64_t{31}, int64_t{33}, band - 1, band, band + 1, 2 * band + 1})
            for (const int64_t n : {int64_t{129}, int64_t{130}, int64_t{200}, int64_t{777}}) {
                auto [s0, s1] = test::mutated_pair(m, n, rng);
                expect_reference(s0, s1, kScorings[rng() % 6], 2, grid(alpha, 1 + static_cast<int>(rng() % 3)),
                                 "edge sizes");
                if (HasFatalFailure()) return;
            }
    }
}

TEST(CudaSlab, SlabsThatChangeGridsMatchReference) {
    // Each slab starts on 4 times its block columns and changes to its own at a chosen row, or
    // before its first band (row -1), as slab_run.cpp's changes_at does once the bound pass
    // has ended: the cuda executors must hand over the row, edges and best cell exactly.
    SKIP_WITHOUT_GPU();
    std::mt19937_64 rng(test::seed() + 40);
    int changed = 0;
    for (int i = 0; i < 24; ++i) {
        const int ranks = 2 + static_cast<int>(rng() % 2);
        const int blocks = 1 + static_cast<int>(rng() % 3);
        const int64_t m = 1500 + static_cast<int64_t>(rng() % 4000), n = 3000 + static_cast<int64_t>(rng() % 3000);
        const bool mutated = i % 4 != 0;
        auto [s0, s1] = mutated ? test::mutated_pair(m, n, rng) : test::random_pair(m, n, rng);
        BackendOptions o = grid(4, blocks);  // bands of 128 rows: enough of them below the row
        o.pruning = i % 3 != 1;
        o.narrow_test_blocks = 4 * blocks;
        o.narrow_test_row = i % 6 == 5 ? -1 : static_cast<int64_t>(rng() % static_cast<uint64_t>(m / 2));
        o.on_note = [&changed](const std::string& line) {  // the pipeline note says which slabs changed
            changed += test::count_of(line, "changed to");
        };
        expect_reference(s0, s1, kScorings[rng() % 6], ranks, o,
                         (mutated ? "mutated pair #" : "random pair #") + std::to_string(i) + ", " +
                             std::to_string(blocks) + " blocks, change below row " + std::to_string(o.narrow_test_row) +
                             (o.pruning ? "" : ", no pruning"));
        if (HasFatalFailure()) return;
    }
    EXPECT_GE(changed, 12) << "too few slabs changed grids to test it";
}

TEST(CudaSlab, LaunchesLargerThanTheGpuMatchReference) {
    // A narrow grid may hold more blocks than the GPU at once: a launch of more splits into
    // short_phases and long_phases, the rows between them in device memory. Forced here on
    // small grids (every launch of more than a few blocks), with and without pruning and narrow
    // starts, every alpha and substitution (a quarter of the cases a matrix: the long phases
    // copy its table again), against the reference.
    SKIP_WITHOUT_GPU();
    std::mt19937_64 rng(test::seed() + 42);
    const int alphas[] = {4, 8, 16};
    const std::vector<test::NamedScoring> matrices = test::matrix_scorings(rng);
    for (int i = 0; i < 24; ++i) {
        const int ranks = 2 + static_cast<int>(rng() % 2);
        const int blocks = 2 + static_cast<int>(rng() % 11);
        const int64_t m = 1 + static_cast<int64_t>(rng() % 5000), n = 3000 + static_cast<int64_t>(rng() % 3000);
        const bool mutated = i % 4 != 0;
        auto [s0, s1] = mutated ? test::mutated_pair(m, n, rng, i % 3 == 0 ? 0.02 : 0.0) : test::random_pair(m, n, rng);
        BackendOptions o = grid(alphas[i % 3], blocks);
        o.pruning = i % 5 != 2;
        o.cooperative_limit = 1 + static_cast<int32_t>(rng() % static_cast<uint64_t>(blocks - 1));
        if (i % 3 == 1) {
            o.narrow_test_blocks = 4 * blocks;
            o.narrow_test_row = static_cast<int64_t>(rng() % static_cast<uint64_t>(m));
        }
        const test::NamedScoring* matrix = i % 4 == 3 ? &matrices[rng() % matrices.size()] : nullptr;
        expect_reference(s0, s1, matrix ? matrix->scoring : kScorings[rng() % 6], ranks, o,
                         (mutated ? "mutated pair #" : "random pair #") + std::to_string(i) + ", " +
                             std::to_string(blocks) + " blocks, cooperative up to " +
                             std::to_string(o.cooperative_limit) + (o.pruning ? "" : ", no pruning") +
                             (matrix ? ", " + matrix->name : ""));
        if (HasFatalFailure()) return;
    }
}

TEST(CudaSlab, StopsOnEitherGridResumeExactly) {
    // As NarrowGrid.StopsOnEitherGridResumeExactly: stops before and after the slabs changed
    // from 4 times their block columns to their own, resumed with 3, 2, 4 and one GPU process.
    // Rank 0 leaves its narrow grid over its diagonals 157 to 180 of 318 on the wide one: the
    // stop at 0.52 comes while it does (NarrowGrid.RowCheckpointsOfAStopDuringTheChange...).
    SKIP_WITHOUT_GPU();
    std::mt19937_64 rng(test::seed() + 41);
    auto [s0, s1] = test::mutated_pair(60000, 30000, rng, 0.02);
    const AlignmentEnd want = reference_align(s0, s1, kScorings[0]);
    BackendOptions o = grid(4, 6);
    o.narrow_test_blocks = 24;
    o.narrow_test_row = 20000;
    const std::vector<int64_t> stops = test::expect_staircases_resume_exactly(
        "cuda", s0, s1, kScorings[0], o, want, rng(), {0.05, 0.62, 0.15, 0.52, 0.25, 0.8, 0.4, 0.9});
    // The stop at 0.52 takes the latest row rank 0 had complete (standing_rows.hpp): one of
    // the old grid's, up to the band that crosses row 20000.
    const auto after = std::count_if(stops.begin(), stops.end(), [](int64_t row) { return row > 20000; });
    EXPECT_GE(after, 3) << "stops after the change";
    EXPECT_LE(after, 4) << "stops before the change";
}

TEST(CudaSlab, RelatedPairMatchesSingleGpu) {
    SKIP_WITHOUT_GPU();
    Sequence s0, s1;
    if (!test::load_shared_pair("related", "H_Pylori_ELS37", "H_Pylori_G27", s0, s1)) GTEST_SKIP() << "no shared data";
    const AlignmentEnd single = make_backend("cuda", BackendOptions{})->align(s0, s1, kScorings[0]);
    EXPECT_EQ(cuda_slab_align(s0, s1, kScorings[0], 2, BackendOptions{}), single);
    EXPECT_EQ(cuda_slab_align(s0, s1, kScorings[0], 3, BackendOptions{}), single);
}

TEST(CudaSlab, StopOnEveryRankThenResume) {
    SKIP_WITHOUT_GPU();
    std::mt19937_64 rng(test::seed() + 2);
    auto [s0, s1] = test::mutated_pair(40000, 30000, rng, 0.01);
    const AlignmentEnd want = reference_align(s0, s1, kScorings[0]);
    char dir[] = "/tmp/chromalign-cuda-slab-XXXXXX";
    ASSERT_NE(mkdtemp(dir), nullptr);
    BackendOptions o = grid(16, 24);
    o.checkpoint.path = std::string(dir) + "/run.ckpt";
    static volatile std::sig_atomic_t stop = SIGINT;
    BackendOptions stopping = o;
    stopping.checkpoint.stop = &stop;
    EXPECT_THROW(cuda_slab_align(s0, s1, kScorings[0], 3, stopping), Interrupted);
    EXPECT_EQ(cuda_slab_align(s0, s1, kScorings[0], 3, o), want);
    std::system((std::string("rm -rf ") + dir).c_str());
}

TEST(CudaSlab, StaircaseStopsResumeExactlyWithAnyRankCount) {
    // Stops at random moments leave each slab's piece at its own row; 3 slabs resume from them
    // as they are, 2, 4 and one GPU process after levelling them on the GPU.
    SKIP_WITHOUT_GPU();
    std::mt19937_64 rng(test::seed() + 4);
    auto [s0, s1] = test::mutated_pair(60000, 30000, rng, 0.02);
    const AlignmentEnd want = reference_align(s0, s1, kScorings[0]);
    test::expect_staircases_resume_exactly("cuda", s0, s1, kScorings[0], grid(4, 24), want, rng());
}

}  // namespace
}  // namespace chromalign
