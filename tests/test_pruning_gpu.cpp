//! @file GPU tests of exact block pruning: the cuda backend with and without pruning against the
//! reference, on grids with many blocks, slabs and several alphas.
#include <gtest/gtest.h>

#include <atomic>
#include <cstdio>
#include <random>

#include "engine/pruning/gain_table.hpp"
#include "kernels/reference/reference.hpp"
#if CHROMALIGN_TEST_CUDA
#include <cuda_runtime.h>

#include "kernels/cuda/gain_copies.hpp"
#endif
#include "kernels/registry.hpp"
#include "tests/pruning_support.hpp"
#include "tests/slab_support.hpp"
#include "tests/test_support.hpp"

namespace chromalign {
namespace {

#define SKIP_WITHOUT_GPU()                                             \
    if (!(backend_devices("cuda") > 0)) GTEST_SKIP() << "no CUDA device (or no CUDA build)"

/// The default grid, each alpha with few or many blocks, and three slabs.
std::vector<BackendOptions> cuda_grids() {
    return {test::grid(0, 0), test::grid(4, 7), test::grid(8, 2), test::grid(16, 12, 3)};
}

TEST(CudaPruning, SameAnswerAsTheReferenceWithAndWithoutPruning) {
    SKIP_WITHOUT_GPU();
    std::mt19937_64 rng(test::seed() + 30);
    const auto cases = test::pruning_cases(rng, 6000);
    const int64_t pruned = test::expect_pruning_exact("cuda", cases, cuda_grids());
    EXPECT_GT(pruned, 0) << "pruning never skipped a cell: the test proves nothing";
}

TEST(CudaPruning, AGainTableSkipsMoreAndGivesTheReferenceAnswer) {
    // engine/pruning/gain_table.hpp in the decision kernel and the launches' hull: from the
    // optimum and from 0, every case, every grid.
    SKIP_WITHOUT_GPU();
    std::mt19937_64 rng(test::seed() + 33);
    test::expect_gain_table_exact("cuda", test::pruning_cases(rng, 6000), cuda_grids(), 512, 8000, rng);
}

TEST(CudaPruning, ExecutorsShareOneDeviceCopyOfEachGainTable) {
    // kernels/cuda/gain_copies.hpp: one copy per build and device while any executor holds
    // it, equal to the host's table; another build, or a view without an id, gets its own.
    SKIP_WITHOUT_GPU();
#if !CHROMALIGN_TEST_CUDA
    GTEST_SKIP() << "built without the CUDA runtime";
#else
    std::mt19937_64 rng(test::seed() + 36);
    const auto [s0, s1] = test::mutated_pair(200000, 200000, rng);
    const Scoring scoring(1, -3, 5, 2);
    std::atomic<bool> cancel{false};
    const auto table = GainTable::build(s0, s1, scoring, 2, cancel);
    const auto again = GainTable::build(s0, s1, scoring, 2, cancel);
    ASSERT_TRUE(table && again) << "seed " << test::seed();
    const GainView& view = table->view();
    const size_t words = static_cast<size_t>(view.strips * view.bands);
    const std::vector<int32_t> host(view.t, view.t + words);
    const auto on_device = [&](const std::shared_ptr<const int32_t>& copy) {
        std::vector<int32_t> back(words);
        EXPECT_EQ(cudaMemcpy(back.data(), copy.get(), words * sizeof(int32_t), cudaMemcpyDeviceToHost), cudaSuccess);
        return back;
    };
    auto first = kernels::device_gain_table(0, view);
    auto second = kernels::device_gain_table(0, view);
    EXPECT_EQ(first.get(), second.get()) << "one copy per build";
    EXPECT_EQ(on_device(first), host);
    EXPECT_NE(again->view().id, view.id);
    const auto other = kernels::device_gain_table(0, again->view());
    EXPECT_NE(other.get(), first.get()) << "another build, another copy";
    GainView anonymous = view;
    anonymous.id = 0;
    EXPECT_NE(kernels::device_gain_table(0, anonymous).get(), first.get());
    first.reset();
    second.reset();
    EXPECT_EQ(on_device(kernels::device_gain_table(0, view)), host) << "copied again once freed";
#endif
}

TEST(CudaPruning, EdgeSizesOfTheBand) {
    SKIP_WITHOUT_GPU();
    std::mt19937_64 rng(test::seed() + 31);
    const auto cases = test::edge_cases(rng, {128, 512}, 2001);  // bands of alpha 4 and 16
    std::vector<BackendOptions> grids = cuda_grids();
    grids.pop_back();  // three slabs need more columns than the narrowest pairs here have
    test::expect_pruning_exact("cuda", cases, grids);
}

TEST(CudaPruning, CompactLaunchesFromInjectedBoundsGiveTheReferenceAnswer) {
    // With a bound from the first row most blocks of a diagonal are dead, and the launches
    // leave them out (engine/scheduling/live_window.hpp): bounds 0, random below the optimum,
    // the optimum - 1 and the optimum on every grid, against the reference.
    SKIP_WITHOUT_GPU();
    std::mt19937_64 rng(test::seed() + 34);
    std::vector<BackendOptions> grids = cuda_grids();
    grids.push_back(test::grid(4, 0));  // the most block columns: C = 64 on these pairs
    const auto cases = test::pruning_cases(rng, 6000);
    test::expect_injected_bounds_exact("cuda", cases, grids, rng);
}

TEST(CudaPruning, CompactLaunchesOnALargeMutatedPairEqualTheUnprunedRun) {
    // 2112 block columns of 144 and a live band a few blocks wide: windows far narrower than
    // the grid, over thousands of diagonals, and the skipped cells counted as before.
    SKIP_WITHOUT_GPU();
    std::mt19937_64 rng(test::seed() + 35);
    auto [s0, s1] = test::mutated_pair(300000, 300000, rng);
    const Scoring scoring(1, -3, 5, 2);
    BackendOptions unpruned = test::grid(4, 0);
    unpruned.pruning = false;
    const AlignmentEnd want = make_backend("cuda", unpruned)->align(s0, s1, scoring);
    for (const BackendOptions& grid : {test::grid(4, 0), test::grid(16, 0), test::grid(8, 0, 3)}) {
        int64_t pruned = 0;
        EXPECT_EQ(test::align_with_bound("cuda", grid, want.score, s0, s1, scoring, pruned), want)
            << "seed " << test::seed();
        const double fraction = static_cast<double>(pruned) / (300000.0 * 300000.0);
        std::printf("[ pruned   ] %.3f from the optimum\n", fraction);
        EXPECT_GT(fraction, 0.8) << "a bound at the optimum leaves a band and the corner";
        EXPECT_LT(fraction, 1.0);
    }
}

TEST(CudaPruning, SkipsAboutHalfOfAMutatedPair) {
    SKIP_WITHOUT_GPU();
    std::mt19937_64 rng(test::seed() + 32);
    auto [s0, s1] = test::mutated_pair(1000000, 1000000, rng);
    auto engine = make_backend("cuda", BackendOptions{});
    engine->align(s0, s1, Scoring(1, -3, 5, 2));
    const double fraction = static_cast<double>(engine->cells_pruned()) / 1e12;
    std::printf("[ pruned   ] %.3f of a 1M x 1M mutated pair, grid %s\n", fraction, engine->layout().c_str());
    EXPECT_GT(fraction, 0.35);
    EXPECT_LT(fraction, 0.75);
}

TEST(CudaPruning, CheckpointsCrossBackendsAndPruningSettings) {
    SKIP_WITHOUT_GPU();
    std::mt19937_64 rng(test::seed() + 33);
    auto [s0, s1] = test::mutated_pair(3000000, 3000000, rng);
    const Scoring scoring(1, -3, 5, 2);
    BackendOptions on, off;
    off.pruning = false;
    int64_t diagonals = 0;
    const AlignmentEnd want = test::counting_diagonals(
        on, [&](const BackendOptions& o) { return make_backend("cuda", o)->align(s0, s1, scoring); }, diagonals);
    test::TempDir dir;
    struct Leg {
        const char* what;
        BackendOptions first, second;
    };
    for (const Leg& leg : {Leg{"pruned, resumed unpruned", on, off}, Leg{"unpruned, resumed pruned", off, on}}) {
        const auto r = test::stop_then_resume("cuda", leg.first, "cuda", leg.second, s0, s1, scoring,
                                              dir.file("run.ckpt"), diagonals * 7 / 10);
        ASSERT_TRUE(r.stopped) << leg.what << ": the run ended before the stop";
        EXPECT_EQ(r.result, want) << leg.what << ", seed " << test::seed();
        if (leg.first.pruning) {
            EXPECT_GT(r.pruned_columns, 0) << leg.what;
        } else {
            EXPECT_EQ(r.pruned_columns, 0) << leg.what;
        }
    }
    // A smaller pair for the cpu leg: its pruned row resumes on the GPU, and the other way.
    auto [a, b] = test::mutated_pair(400000, 400000, rng);
    int64_t cpu_diagonals = 0;
    const AlignmentEnd small = test::counting_diagonals(
        on, [&](const BackendOptions& o) { return make_backend("cpu", o)->align(a, b, scoring); }, cpu_diagonals);
    const auto to_cuda =
        test::stop_then_resume("cpu", on, "cuda", off, a, b, scoring, dir.file("cpu.ckpt"), cpu_diagonals * 7 / 10);
    ASSERT_TRUE(to_cuda.stopped);
    EXPECT_GT(to_cuda.pruned_columns, 0);
    EXPECT_EQ(to_cuda.result, small) << "cpu pruned -> cuda unpruned";
    const auto to_cpu =
        test::stop_then_resume("cuda", on, "cpu", on, s0, s1, scoring, dir.file("gpu.ckpt"), diagonals * 7 / 10);
    ASSERT_TRUE(to_cpu.stopped);
    // The cpu finishes the last 30% of a 3M pair in a minute or two on the GPU machine's cores.
    EXPECT_EQ(to_cpu.result, want) << "cuda pruned -> cpu pruned";
}

}  // namespace
}  // namespace chromalign
