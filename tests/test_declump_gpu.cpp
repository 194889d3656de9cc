//! @file The K best search's tiles on the GPU (kernels/cuda/tile_waves.cu, edge_pass.cu): a wave
//! of random tiles with random edges and barred cells gives tile_dp's values exactly, the whole
//! pass gives the full matrices' edges and peaks, and searches with every wave on the GPU give
//! the Waterman-Eggert oracle's alignments, a pair's strands searched at once too. Skipped
//! without a GPU.
#include <gtest/gtest.h>

#include <chrono>
#include <csignal>
#include <cstdio>
#include <random>
#include <string>
#include <vector>

#include "engine/declump/declump.hpp"
#include "engine/declump/pair_alignments.hpp"
#include "engine/error.hpp"
#include "kernels/reference/waterman_eggert.hpp"
#include "kernels/registry.hpp"
#include "tests/pruning_support.hpp"
#include "tests/test_support.hpp"
#include "tests/whole_pass_support.hpp"

namespace chromalign {
namespace {

std::unique_ptr<TileWaves> gpu_waves() {
    if (!(backend_devices("cuda") > 0)) return nullptr;
    return make_backend("cuda", BackendOptions{})->tile_waves();
}

std::string describe(const Alignment& a) {
    return std::to_string(a.score) + " " + std::to_string(a.s0_start) + "-" + std::to_string(a.s0_end) + " x " +
           std::to_string(a.s1_start) + "-" + std::to_string(a.s1_end) + " " + a.cigar();
}

TEST(DeclumpGpu, AWaveOfRandomTilesGivesTheRowByRowValues) {
    std::unique_ptr<TileWaves> gpu = gpu_waves();
    if (!gpu) GTEST_SKIP() << "no CUDA device (or no CUDA build)";
    const uint64_t seed = test::seed() + 95;
    std::mt19937_64 rng(seed);
    const Scoring scorings[] = {{1, -3, 5, 2}, {2, -3, 7, 2}, {1, -1, 2, 1}, test::hoxd70()};
    for (int wave = 0; wave < 40; ++wave) {
        const Scoring& sc = scorings[wave % 4];
        auto [s0, s1] = test::mutated_pair(3000, 3000, rng, 0.02);
        const size_t count = 1 + rng() % 60;
        std::vector<TileTask> tasks(count);
        std::vector<std::vector<int32_t>> edges(count), want(count), got(count);
        std::vector<AlignmentEnd> bests(count);
        for (size_t k = 0; k < count; ++k) {
            // Sizes around a lane's 8 rows, a band's 256 and a chunk's 128 columns; every fifth
            // tile whole bands with few bars, whose chunks run untested (inner_chunk).
            const bool whole_bands = k % 5 == 4;
            const int64_t rows = whole_bands ? 256 * (1 + static_cast<int64_t>(rng() % 3))
                                             : 1 + static_cast<int64_t>(rng() % (k % 3 == 0 ? 700 : 70));
            const int64_t cols = 1 + static_cast<int64_t>(rng() % (k % 2 == 0 ? 400 : 70));
            const int64_t top = static_cast<int64_t>(rng() % (2900 - rows)), left = static_cast<int64_t>(rng() % (2900 - cols));
            const Rect rect{top, top + rows, left, left + cols};
            std::vector<int32_t>& e = edges[k];
            e.resize(static_cast<size_t>(2 * (cols + 1) + 2 * rows));
            for (size_t x = 0; x < e.size(); ++x) {
                const bool gap = (x > static_cast<size_t>(cols) && x <= static_cast<size_t>(2 * cols + 1)) ||
                                 x >= static_cast<size_t>(2 * (cols + 1) + rows);
                e[x] = gap ? (rng() % 4 == 0 ? kNoGap : static_cast<int32_t>(rng() % 300) - 20)
                           : static_cast<int32_t>(rng() % 280);
            }
            const int32_t* p = e.data();
            const TileEdges te{p, p + cols + 1, p + 2 * (cols + 1), p + 2 * (cols + 1) + rows};
            // A cell in 7 barred: a band of the larger tiles (up to 256 x 400 cells) holds
            // thousands of bars, more than the kernel stages in shared memory (kStagedBars,
            // 1024), and reads them from global memory; the small tiles' bands stage theirs.
            std::vector<std::pair<int64_t, int64_t>> bars;
            for (int64_t i = rect.top + 1; i <= rect.bottom; ++i)
                for (int64_t j = rect.left + 1; j <= rect.right; ++j)
                    if (rng() % (whole_bands ? 2000 : 7) == 0) bars.emplace_back(i, j);
            want[k].assign(static_cast<size_t>(2 * cols + 2 * rows), 0);
            got[k].assign(want[k].size(), -7);
            int32_t* w = want[k].data();
            bests[k] = tile_dp(s0, s1, sc, rect, te, bars,
                               TileSink{w, w + cols, w + 2 * cols, w + 2 * cols + rows, nullptr});
            int32_t* g = got[k].data();
            tasks[k] = TileTask{rect, te, bars, TileSink{g, g + cols, g + 2 * cols, g + 2 * cols + rows, nullptr}, {}};
        }
        gpu->bind(s0, s1);  // each wave's pair is new
        gpu->run(s0, s1, sc, tasks, 1);
        for (size_t k = 0; k < count; ++k) {
            ASSERT_EQ(got[k], want[k]) << "wave " << wave << ", tile " << k << ": " << tasks[k].rect.rows() << " x "
                                       << tasks[k].rect.cols() << ", seed " << seed;
            // The device gives a tile's highest H, not where it lies.
            ASSERT_EQ(tasks[k].best.score, bests[k].score) << "wave " << wave << ", tile " << k << ", seed " << seed;
            ASSERT_EQ(tasks[k].cell_unknown, bests[k].score > 0) << "wave " << wave << ", tile " << k;
        }
    }
}

TEST(DeclumpGpu, TheWholePassGivesTheFullMatricesEdgesAndPeaks) {
    std::unique_ptr<TileWaves> gpu = gpu_waves();
    if (!gpu) GTEST_SKIP() << "no CUDA device (or no CUDA build)";
    const uint64_t seed = test::seed() + 98;
    std::mt19937_64 rng(seed);
    // kBytes, kBytes, kEquality (terms beyond a byte), kTable.
    const Scoring scorings[] = {{1, -3, 5, 2}, {2, -3, 7, 2}, {100, -300, 500, 200}, test::hoxd70()};
    const int64_t sides[] = {1, 127, 128, 129, 511, 512, 513, 1000, 2047, 3001};
    const int64_t tile_rows[] = {128, 256, 384, 512, 1024};
    const int64_t slabs[] = {0, 1, 31, 32, 33, 100, 777};
    for (int trial = 0; trial < 60; ++trial) {
        const int64_t rows = trial < 20 ? sides[trial % 10] : 1 + static_cast<int64_t>(rng() % 3000);
        const int64_t cols = trial < 20 ? sides[(trial * 3 + 1) % 10] : 1 + static_cast<int64_t>(rng() % 3000);
        const int64_t tr = tile_rows[trial % 5];
        const int64_t tc = trial % 4 == 0 ? 1 + static_cast<int64_t>(rng() % 8) : 1 + static_cast<int64_t>(rng() % 900);
        const Scoring& sc = scorings[trial % 4];
        // Mutated pairs (3% N) have long alignments; random ones ties of small scores.
        auto [s0, s1] = trial % 3 == 2 ? test::random_pair(rows, cols, rng) : test::mutated_pair(rows, cols, rng, 0.03);
        const int64_t m = s0.length(), n = s1.length();
        test::PassVectors want(m, n, tr, tc), got(m, n, tr, tc);
        got.pass.slab_cols = slabs[trial % 7];
        // Launches of a few units: the slabs one finished are copied home while the next runs.
        got.pass.launch_units = trial % 3 == 1 && got.pass.slab_cols != 1 ? 1 + static_cast<int64_t>(rng() % 40) : 0;
        bool made = false;
        got.pass.meanwhile = [&] { made = true; };
        test::expected_whole_pass(s0, s1, sc, want.pass);
        const std::string what = std::to_string(m) + " x " + std::to_string(n) + ", tiles " + std::to_string(tr) +
                                 " x " + std::to_string(tc) + ", slabs of " + std::to_string(got.pass.slab_cols) +
                                 ", launches of " + std::to_string(got.pass.launch_units) +
                                 " units, scoring " + std::to_string(trial % 4) + ", seed " + std::to_string(seed);
        ASSERT_TRUE(gpu->whole_pass(s0, s1, sc, got.pass)) << what;
        EXPECT_TRUE(made) << what;
        ASSERT_EQ(got.peaks, want.peaks) << what;
        ASSERT_EQ(got.row_h, want.row_h) << what;
        ASSERT_EQ(got.row_f, want.row_f) << what;
        ASSERT_EQ(got.col_h, want.col_h) << what;
        ASSERT_EQ(got.col_e, want.col_e) << what;
    }
    test::PassVectors odd(300, 300, 100, 100);  // bands of lanes would straddle tiles
    EXPECT_FALSE(gpu->whole_pass(test::random_pair(300, 300, rng).first, test::random_pair(300, 300, rng).second,
                                 scorings[0], odd.pass));
}

// A genome's pass is many launches; a stop is looked at before each, the first included.
TEST(DeclumpGpu, AStopEndsTheWholePassBetweenLaunches) {
    std::unique_ptr<TileWaves> gpu = gpu_waves();
    if (!gpu) GTEST_SKIP() << "no CUDA device (or no CUDA build)";
    std::mt19937_64 rng(test::seed() + 99);
    auto [s0, s1] = test::mutated_pair(2000, 2000, rng);
    test::PassVectors v(s0.length(), s1.length(), 512, 300);
    volatile std::sig_atomic_t stop = SIGTERM;
    v.pass.stop = &stop;
    try {
        gpu->whole_pass(s0, s1, Scoring(1, -3, 5, 2), v.pass);
        FAIL() << "the pass ran through a stop";
    } catch (const Interrupted& e) {
        EXPECT_EQ(e.signal_number(), SIGTERM);
    }
}

TEST(DeclumpGpu, SearchesWithEveryWaveOnTheGpuGiveTheOraclesAlignments) {
    std::unique_ptr<TileWaves> gpu = gpu_waves();
    if (!gpu) GTEST_SKIP() << "no CUDA device (or no CUDA build)";
    const uint64_t seed = test::seed() + 96;
    std::mt19937_64 rng(seed);
    DeclumpOptions options;
    options.device = gpu.get();
    options.threads = 1;
    options.device_cells = 1;  // every wave goes to the GPU
    // Rows of 128 and 256: the first pass is the device's whole pass; the others: waves.
    const int64_t shapes[][2] = {{64, 64}, {128, 101}, {37, 101}, {256, 33}, {130, 33}, {200, 200}};
    int trial = 0;
    for (const test::PruningCase& c : test::pruning_cases(rng, 900)) {
        options.tile_rows = shapes[trial % 6][0];
        options.tile_cols = shapes[trial++ % 6][1];
        const std::vector<Alignment> want = reference_alignments(c.s0, c.s1, c.scoring, 10);
        const std::vector<Alignment> got = best_alignments(c.s0, c.s1, c.scoring, 10, 1, options);
        ASSERT_EQ(got.size(), want.size()) << c.what << ", seed " << seed;
        for (size_t k = 0; k < want.size(); ++k)
            ASSERT_EQ(describe(got[k]), describe(want[k])) << c.what << ": alignment " << k + 1 << ", seed " << seed;
    }
}

TEST(DeclumpGpu, ALargePairGivesTheSameAlignmentsOnTheGpuAsOnCpuThreads) {
    std::unique_ptr<TileWaves> gpu = gpu_waves();
    if (!gpu) GTEST_SKIP() << "no CUDA device (or no CUDA build)";
    const uint64_t seed = test::seed() + 97;
    std::mt19937_64 rng(seed);
    auto [s0, s1] = test::mutated_pair(60000, 60000, rng);
    const Scoring scoring(1, -3, 5, 2);
    DeclumpOptions options;
    options.tile_rows = options.tile_cols = 1024;  // the GPU's first pass is its whole pass
    using Clock = std::chrono::steady_clock;
    auto start = Clock::now();
    const std::vector<Alignment> cpu = best_alignments(s0, s1, scoring, 30, 1, options);
    const double cpu_seconds = std::chrono::duration<double>(Clock::now() - start).count();
    options.device = gpu.get();
    start = Clock::now();
    const std::vector<Alignment> on_gpu = best_alignments(s0, s1, scoring, 30, 1, options);
    const double gpu_seconds = std::chrono::duration<double>(Clock::now() - start).count();
    std::printf("[ timing   ] 60k x 60k, 30 alignments: %.3f s on CPU threads, %.3f s with the GPU\n", cpu_seconds,
                gpu_seconds);
    ASSERT_EQ(on_gpu.size(), cpu.size());
    ASSERT_EQ(cpu.size(), 30u) << "seed " << seed;
    for (size_t k = 0; k < cpu.size(); ++k) EXPECT_EQ(describe(on_gpu[k]), describe(cpu[k])) << "seed " << seed;
}

TEST(DeclumpGpu, APairsStrandsSearchedAtOnceOnTheGpuGiveTheirListOnCpuThreads) {
    // Each strand's search on a GPU stream and a thread of its own, the later one's first pass
    // while the earlier one searches: the same merged list as both on CPU threads in turn.
    // Against S0 and then its reverse complement, so that each strand holds the longest
    // alignment once.
    std::unique_ptr<TileWaves> forward = gpu_waves(), reverse = gpu_waves();
    if (!forward || !reverse) GTEST_SKIP() << "no CUDA device (or no CUDA build)";
    const uint64_t seed = test::seed() + 98;
    std::mt19937_64 rng(seed);
    auto [a, b] = test::mutated_pair(24000, 24000, rng);
    // S0 holds pieces of S1's reverse complement too: both strands have alignments to rank.
    const Sequence rc = reverse_complement(b);
    for (int k = 0; k < 6; ++k)
        a.codes.insert(a.codes.end(), rc.codes.begin() + 3000 * k, rc.codes.begin() + 3000 * k + 1500 - 200 * k);
    const Scoring scoring(1, -3, 5, 2);
    for (const bool flipped : {false, true}) {
        const Sequence s0 = flipped ? reverse_complement(a) : a;
        DeclumpOptions options;
        options.tile_rows = options.tile_cols = 512;  // the first passes are the device's whole passes
        DeclumpCounts counts;
        const std::vector<StrandAlignment> cpu = pair_alignments(
            s0, {{Strand::kForward, &b, {}, false}, {Strand::kReverse, &rc, {}, false}}, scoring, 25, 30, options, counts);
        options.strands_at_once = true;
        options.device_cells = 1;  // every wave goes to the GPU
        StrandSearch on_forward{Strand::kForward, &b, {}, false}, on_reverse{Strand::kReverse, &rc, {}, false};
        on_forward.device = forward.get();
        on_reverse.device = reverse.get();
        const std::vector<StrandAlignment> gpu = pair_alignments(s0, {on_forward, on_reverse}, scoring, 25, 30, options, counts);
        const std::string what = std::string(flipped ? "S0's reverse complement" : "S0") + ", seed " +
                                 std::to_string(seed);
        ASSERT_EQ(gpu.size(), cpu.size()) << what;
        ASSERT_FALSE(cpu.empty()) << what;
        // The pieces lie on the reverse strand of S0, on the forward one of its reverse complement.
        const Strand of_pieces = flipped ? Strand::kForward : Strand::kReverse;
        int pieces = 0;
        for (size_t k = 0; k < cpu.size(); ++k) {
            EXPECT_EQ(gpu[k].strand, cpu[k].strand) << "alignment " << k + 1 << ", " << what;
            EXPECT_EQ(describe(gpu[k].alignment), describe(cpu[k].alignment)) << "alignment " << k + 1 << ", " << what;
            pieces += cpu[k].strand == of_pieces;
        }
        EXPECT_GE(pieces, 3) << "the pieces' strand ranks, " << what;
        EXPECT_LT(pieces, static_cast<int>(cpu.size())) << "so does the other strand, " << what;
    }
}

}  // namespace
}  // namespace chromalign
