//! @file The traceback from special rows the CUDA backend kept (eight slabs, pruning on and
//! off, few rows, none) writes the alignment the cpu backend writes, byte for byte; windows
//! swept on the GPU give the reference's alignment.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <future>
#include <map>
#include <mutex>
#include <random>

#include "engine/orchestration/slab_run.hpp"
#include "engine/traceback/engine_sweeper.hpp"
#include "kernels/registry.hpp"
#if CHROMALIGN_TEST_CUDA
#include "tests/legacy_stream_load.hpp"
#endif
#include "tests/resume_harness.hpp"
#include "tests/sweep_support.hpp"
#include "tests/test_support.hpp"

namespace chromalign {
namespace {

using test::sam_records;

TEST(TracebackGpu, SameAlignmentFromCudaRows) {
    if (!(backend_devices("cuda") > 0)) GTEST_SKIP() << "no CUDA device (or no CUDA build)";
    test::ResumeHarness h(300000, 290000, test::seed() + 90);
    const test::ChildRun want = h.run({"-q", "-b", "cpu", "--traceback", h.path("cpu.sam")});
    ASSERT_EQ(want.exit_code, 0) << want.err;
    const std::string expected = sam_records(h.path("cpu.sam"));
    ASSERT_FALSE(expected.empty());
    // cuda keeps rows at least 65536 apart: 4 rows here. With 8 slabs of one block per SM
    // (B = 33) each slab writes a piece of each; with the default grid S1 is too short for 8
    // slabs, one slab of B = 1584 captures all 4 rows at once (811k rows a capture); 3M of
    // disk keeps one row, and the GPU sweeps the two windows of 150k rows, one ahead.
    struct Variant {
        std::vector<std::string> args;
        size_t pieces;  ///< special row pieces expected at least
    };
    const std::vector<Variant> variants = {
        {{"--slabs", "8", "--blocks-per-sm", "1", "--traceback-dir", h.path("rows8")}, 32},
        {{"--slabs", "8", "--blocks-per-sm", "1", "--no-pruning", "--traceback-dir", h.path("rows8np")}, 32},
        {{"--traceback-dir", h.path("rows")}, 4},
        {{"--traceback-disk", "3M", "--traceback-dir", h.path("rows3M")}, 1},
    };
    for (const Variant& v : variants) {
        std::vector<std::string> args = {"-q", "-b", "cuda", "--traceback", h.path("gpu.sam")};
        args.insert(args.end(), v.args.begin(), v.args.end());
        const test::ChildRun r = h.run(args);
        ASSERT_EQ(r.exit_code, 0) << r.err;
        EXPECT_EQ(sam_records(h.path("gpu.sam")), expected) << v.args.back();
        size_t pieces = 0;
        for (const auto& e : std::filesystem::directory_iterator(v.args.back()))
            pieces += e.path().extension() == ".srow";
        EXPECT_GE(pieces, v.pieces) << "special row pieces written in " << v.args.back();
    }
    // No rows at all: the GPU sweeps the whole matrix, then windows of it, keeping rows.
    const test::ChildRun r = h.run({"-q", "-b", "cuda", "--traceback", h.path("gpu0.sam"), "--traceback-disk", "0"});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_EQ(sam_records(h.path("gpu0.sam")), expected) << "from no special rows";
}

TEST(TracebackGpu, CudaSweepsGiveTheReferenceAlignment) {
    if (!(backend_devices("cuda") > 0)) GTEST_SKIP() << "no CUDA device (or no CUDA build)";
    test::expect_engine_sweeps_exact("cuda", 8, test::seed() + 91);
}

/// Narrow windows (one block of the window grid: its long phase waits on its own short
/// phase's flag) swept in four threads at once, as the traceback's lookahead does, while the
/// legacy stream is kept busy: every kept row must hold the CPU sweep's values. A runner that
/// set up its flags or inputs on the legacy stream ran its kernels before they landed (wrong
/// rows, or a flag zeroed under a long phase, which then spins forever: the watchdog's case).
/// The window kernel (one launch per run of diagonals, kept columns copied by the blocks
/// themselves) keeps the rows the CPU sweep computes, at edge widths and heights.
TEST(TracebackGpu, WindowKernelKeepsTheRowsOfTheCpuSweep) {
    if (!(backend_devices("cuda") > 0)) GTEST_SKIP() << "no CUDA device (or no CUDA build)";
    test::expect_kept_rows_exact("cuda", test::seed() + 94);
}

TEST(TracebackGpu, CudaRegionPeaksAreTheSampledBandBottomsLargestH) {
    if (!(backend_devices("cuda") > 0)) GTEST_SKIP() << "no CUDA device (or no CUDA build)";
    test::expect_region_peaks_exact("cuda", test::seed() + 95);
}

TEST(TracebackGpu, SplitLaunchesKeepTheSameRegionPeaks) {
    // Launches of more than 3 blocks in two kernels (short_phases, long_phases), which keep the
    // band bottoms' columns and peaks at run time, not in an instance of their own.
    if (!(backend_devices("cuda") > 0)) GTEST_SKIP() << "no CUDA device (or no CUDA build)";
    test::expect_region_peaks_exact("cuda", test::seed() + 96, 3);
}

TEST(TracebackGpu, WindowSweepsStayExactWhileTheLegacyStreamIsBusy) {
    if (!(backend_devices("cuda") > 0)) GTEST_SKIP() << "no CUDA device (or no CUDA build)";
#if !CHROMALIGN_TEST_CUDA
    GTEST_SKIP() << "built without the CUDA runtime";
#else
    const uint64_t seed = test::seed() + 93;
    std::mt19937_64 rng(seed);
    const std::unique_ptr<Backend> cuda = test::small_backend("cuda");
    const Scoring sc(1, -3, 5, 2);
    const TracebackTerms t(sc);
    struct Case {
        Sequence s0, s1;
        WindowSpec w;
        WindowRow top;
        std::map<int64_t, WindowRow> want;  ///< every 32nd row: the engine's bands are whole warps
    };
    std::vector<Case> cases(4);
    for (Case& c : cases) {
        const int64_t m = 6000 + static_cast<int64_t>(rng() % 6000), n = 400 + static_cast<int64_t>(rng() % 600);
        std::tie(c.s0, c.s1) = test::mutated_pair(m, n, rng, 0.01);
        c.w.bottom = m;
        c.w.hi = n;
        c.w.top_exact = true;
        c.top = first_row(1, n);
        const size_t cols = static_cast<size_t>(n + 1);
        std::vector<int32_t> buffers;
        const auto slots = two_row_slots(buffers, cols);
        sweep_window(c.s0, c.s1, t, c.w, c.top, slots, [&](int64_t i) {
            if (i % 32 == 0)
                c.want[i] = WindowRow{i, std::vector<int32_t>(slots(i).h, slots(i).h + cols),
                                      std::vector<int32_t>(slots(i).f, slots(i).f + cols)};
        });
    }
    std::atomic<int64_t> rows_checked{0}, sweeps{0};
    std::mutex failure_mutex;
    std::string failure;
    const auto sweep_often = [&](const Case& c) {
        for (int rep = 0; rep < 60; ++rep) {
            EngineSweeper sweeper(*cuda->slab_engine(), c.s0, c.s1, sc, int64_t{1} << 30);
            const std::unique_ptr<RowSource> rows = sweeper.sweep(c.w, c.top, SweepSteps{});
            sweeps += sweeper.engine_sweeps();
            for (int64_t r = rows->row_above(c.w.bottom); r > c.w.top; r = rows->row_above(r)) {
                const auto want = c.want.find(r);
                const WindowRow got = rows->read(r, c.w.lo, c.w.hi);
                if (want == c.want.end() || got.h != want->second.h || got.f != want->second.f) {
                    std::lock_guard<std::mutex> lock(failure_mutex);
                    failure = "kept row " + std::to_string(r) + " of a " + std::to_string(c.w.rows()) + " x " +
                              std::to_string(c.w.width()) + " window differs from the CPU sweep";
                    return;
                }
                ++rows_checked;
            }
        }
    };
    int64_t transfers = 0;
    {
        test::LegacyStreamLoad load(size_t{32} << 20);
        std::vector<std::future<void>> threads;
        for (const Case& c : cases) threads.push_back(std::async(std::launch::async, sweep_often, std::cref(c)));
        const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(120);
        for (std::future<void>& f : threads) {
            if (f.wait_until(deadline) != std::future_status::ready) {
                // A kernel spinning on a flag never ends, nor does anything that waits for it.
                std::fprintf(stderr, "FAILED: window sweeps still running after 120 s (seed %llu)\n",
                             static_cast<unsigned long long>(seed));
                std::fflush(stderr);
                std::_Exit(1);
            }
            f.get();
        }
        transfers = load.transfers();
    }
    EXPECT_EQ(failure, "") << "seed " << seed;
    EXPECT_EQ(sweeps.load(), 4 * 60) << "a window went to the CPU sweep: the test tests little";
    EXPECT_GT(rows_checked.load(), 4 * 60 * 10);
    EXPECT_GT(transfers, 0) << "the legacy stream was never loaded: the test tests little";
    std::printf("[ streams  ] %lld sweeps, %lld kept rows checked, %lld transfers on the legacy stream, seed %llu\n",
                static_cast<long long>(sweeps.load()), static_cast<long long>(rows_checked.load()),
                static_cast<long long>(transfers), static_cast<unsigned long long>(seed));
#endif
}

}  // namespace
}  // namespace chromalign
