//! @file The K best search's tiles on the cpu backend (kernels/cpu/simd_whole_pass.hpp): with
//! every instruction set's kernels, 16- and 32-bit lanes, the first pass gives the full
//! matrices' edges and peaks (expected_whole_pass), tiles of whole and narrow last columns;
//! tiles whose rows no kernel band divides are left to the portable lanes; a wave of tiles,
//! barred or not, gives tile_dp's edges and best cells, and tiles' rows down to a peak's lane
//! their best cells; and a search whose grids and walks' parts go to the kernel finds the
//! oracle's alignments.
#include <gtest/gtest.h>

#include <random>
#include <string>
#include <vector>

#include "engine/declump/declump.hpp"
#include "engine/declump/tile_dp.hpp"
#include "kernels/cpu/simd_whole_pass.hpp"
#include "kernels/reference/waterman_eggert.hpp"
#include "tests/test_support.hpp"
#include "tests/whole_pass_support.hpp"

namespace chromalign {
namespace {

using kernels::cpu::CpuIsa;

TEST(SimdWholePass, EveryKernelGivesTheFullMatricesEdgesAndPeaks) {
    const uint64_t seed = test::seed() + 61;
    std::mt19937_64 rng(seed);
    const CpuIsa strongest = kernels::cpu::select_cpu_isa();
    // +1/-3 fits 16-bit lanes; +10/-3 does not (32-bit); matrices take the table lookups.
    std::vector<test::NamedScoring> scorings = {{"+1/-3", Scoring(1, -3, 5, 2)}, {"+10/-3", Scoring(10, -3, 5, 2)}};
    for (test::NamedScoring& ns : test::matrix_scorings(rng)) scorings.push_back(std::move(ns));
    // Tile columns: whole, cut into calls, and a last column narrower than two lane widths.
    const int64_t shapes[][4] = {{1100, 900, 512, 300}, {700, 1200, 512, 512}, {1030, 2 * 2100 + 9, 256, 2100}, {300, 73, 512, 70}};
    int compared = 0;
    for (int isa = 0; isa <= static_cast<int>(strongest); ++isa)
        for (const test::NamedScoring& ns : scorings)
            for (const auto& shape : shapes) {
                const Scoring& scoring = ns.scoring;
                const int64_t m = shape[0], n = shape[1], tr = shape[2], tc = shape[3];
                auto [s0, s1] = test::mutated_pair(m, n, rng);
                test::PassVectors want(m, n, tr, tc), got(m, n, tr, tc);
                test::expected_whole_pass(s0, s1, scoring, want.pass);
                kernels::cpu::SimdTileWaves waves(static_cast<CpuIsa>(isa), 2);
                const std::string what = kernels::cpu::cpu_isa_name(static_cast<CpuIsa>(isa)) + " " + ns.name +
                                         " " + std::to_string(m) + " x " + std::to_string(n) + " tiles " +
                                         std::to_string(tr) + " x " + std::to_string(tc) + ", seed " + std::to_string(seed);
                got.pass.keep = true;
                if (!waves.whole_pass(s0, s1, scoring, got.pass)) continue;  // no kernel's bands divide tr
                ++compared;
                EXPECT_FALSE(got.pass.keep) << what;
                EXPECT_EQ(got.row_h, want.row_h) << what;
                EXPECT_EQ(got.row_f, want.row_f) << what;
                EXPECT_EQ(got.col_h, want.col_h) << what;
                EXPECT_EQ(got.col_e, want.col_e) << what;
                EXPECT_EQ(got.peaks, want.peaks) << what;
            }
    EXPECT_GE(compared, 12) << "too few shapes ran on a kernel";
    // Rows of 100 are no band of 8 rows a lane: left to the portable lanes, nothing written.
    auto [s0, s1] = test::mutated_pair(400, 400, rng);
    test::PassVectors rows(400, 400, 100, 128);
    EXPECT_FALSE(kernels::cpu::SimdTileWaves(strongest, 2).whole_pass(s0, s1, Scoring(1, -3, 5, 2), rows.pass));
    EXPECT_TRUE(rows.peaks.empty());
}

TEST(SimdWholePass, AWaveOfTilesGivesTileDpsEdgesAndBestCells) {
    // The tiles of a matrix whose edges the full matrices give, all in one wave: those of whole
    // bands with no pair barred go to the kernel, the others (the last band's 100 rows, a third
    // of them barred) to the lanes; every tile's edges and best cell are tile_dp's.
    const uint64_t seed = test::seed() + 62;
    std::mt19937_64 rng(seed);
    const int64_t m = 1124, tr = 256;
    std::vector<test::NamedScoring> scorings = {{"+1/-3", Scoring(1, -3, 5, 2)}, {"+10/-3", Scoring(10, -3, 5, 2)},
                                                {"hoxd70", test::hoxd70()}};
    for (int isa = 0; isa <= static_cast<int>(kernels::cpu::select_cpu_isa()); ++isa)
        for (const test::NamedScoring& ns : scorings)
        for (const bool same : {false, true}) {
            // A pair of one sequence in square tiles: its alignment runs through the tiles'
            // corners, whose H the kernel must take.
            auto [s0, s1] = test::mutated_pair(m, 1000, rng);
            if (same) s1 = s0;
            const int64_t n = s1.length(), tc = same ? tr : 300;
            test::PassVectors full(m, n, tr, tc);
            test::expected_whole_pass(s0, s1, ns.scoring, full.pass);
            std::vector<TileTask> tasks;
            std::vector<std::vector<int32_t>> want, got;
            std::vector<AlignmentEnd> bests;
            for (int64_t b = 0; b * tr < m; ++b)
                for (int64_t c = 0; c * tc < n; ++c) {
                    const Rect r{b * tr, std::min(m, (b + 1) * tr), c * tc, std::min(n, (c + 1) * tc)};
                    const TileEdges e{full.row_h[static_cast<size_t>(b)].data() + r.left,
                                      full.row_f[static_cast<size_t>(b)].data() + r.left,
                                      full.col_h[static_cast<size_t>(c)].data() + r.top,
                                      full.col_e[static_cast<size_t>(c)].data() + r.top};
                    std::vector<std::pair<int64_t, int64_t>> bars;
                    if (rng() % 3 == 0)
                        for (int64_t i = r.top + 1; i <= r.bottom; ++i)
                            for (int64_t j = r.left + 1; j <= r.right; ++j)
                                if (rng() % 50 == 0) bars.emplace_back(i, j);
                    const size_t size = static_cast<size_t>(2 * r.cols() + 2 * r.rows());
                    want.emplace_back(size, 0);
                    got.emplace_back(size, -7);
                    int32_t* w = want.back().data();
                    bests.push_back(tile_dp(s0, s1, ns.scoring, r, e, bars,
                                            TileSink{w, w + r.cols(), w + 2 * r.cols(), w + 2 * r.cols() + r.rows(), nullptr}));
                    tasks.push_back(TileTask{r, e, bars, TileSink{}, {}});
                    // Its rows down to a peak's lane, as EdgeGrid::find_peaks asks: no edge
                    // wanted, rows no whole band, the rows past them never the best.
                    Rect peak = r;
                    peak.bottom = std::min(r.bottom, r.top + 8 * (1 + static_cast<int64_t>(rng() % 40)));
                    want.emplace_back();
                    got.emplace_back();
                    bests.push_back(tile_dp(s0, s1, ns.scoring, peak, e, {}, TileSink{}));
                    tasks.push_back(TileTask{peak, e, {}, TileSink{}, {}});
                }
            for (size_t k = 0; k < tasks.size(); k += 2) {
                int32_t* g = got[k].data();
                const Rect& r = tasks[k].rect;
                tasks[k].sink = TileSink{g, g + r.cols(), g + 2 * r.cols(), g + 2 * r.cols() + r.rows(), nullptr};
            }
            kernels::cpu::SimdTileWaves waves(static_cast<CpuIsa>(isa), 2);
            waves.bind(s0, s1);
            waves.run(s0, s1, ns.scoring, tasks, 2);
            for (size_t k = 0; k < tasks.size(); ++k) {
                const std::string what = kernels::cpu::cpu_isa_name(static_cast<CpuIsa>(isa)) + " " + ns.name +
                                         (same ? ", one sequence" : "") + ", tile " +
                                         std::to_string(k) + (tasks[k].barred.empty() ? "" : " (barred)") + ", seed " +
                                         std::to_string(seed);
                EXPECT_EQ(got[k], want[k]) << what;
                EXPECT_EQ(tasks[k].best, bests[k]) << what;
                EXPECT_FALSE(tasks[k].cell_unknown) << what;
            }
        }
}

TEST(SimdWholePass, ASearchOnTheKernelsGridsAndPartsGivesTheOraclesAlignments) {
    // No device: the first pass, the tiles computed again and the parts the walks cut their
    // tiles into (whole bands of the kernel, rows_at_speed) run through SimdTileWaves::run.
    // S1 repeats pieces of S0, so that later alignments cross tiles with barred pairs.
    const uint64_t seed = test::seed() + 63;
    std::mt19937_64 rng(seed);
    const std::vector<test::NamedScoring> scorings = {{"+1/-3", Scoring(1, -3, 5, 2)}, {"+10/-3", Scoring(10, -3, 5, 2)},
                                                      {"+1/-1 cheap gaps", Scoring(1, -1, 2, 1)}};
    for (const test::NamedScoring& ns : scorings) {
        auto [s0, s1] = test::mutated_pair(1900, 1800, rng);
        for (const auto& [from, to] : {std::pair{200, 1500}, {100, 400}, {1000, 1300}})
            s1.codes.insert(s1.codes.end(), s0.codes.begin() + from, s0.codes.begin() + to);
        const std::vector<Alignment> want = reference_alignments(s0, s1, ns.scoring, 8, 20);
        ASSERT_GE(want.size(), 3u) << ns.name << ", seed " << seed;
        for (int isa = 0; isa <= static_cast<int>(kernels::cpu::select_cpu_isa()); ++isa) {
            kernels::cpu::SimdTileWaves waves(static_cast<CpuIsa>(isa), 2);
            const int64_t band = waves.rows_at_speed(s0, s1, ns.scoring);
            ASSERT_GT(band, 1) << "isa " << isa << ", " << ns.name;
            DeclumpOptions o;
            o.host = &waves;
            o.threads = 3;
            o.tile_rows = o.tile_cols = 2 * band;
            o.trace_row_spacing = 1;
            o.walk.leaf_cells = 4096;  // every tile a walk crosses cut into parts
            o.walk.split = 4;
            o.walk.least_side = 1;
            const std::vector<Alignment> got = best_alignments(s0, s1, ns.scoring, 8, 20, o);
            const std::string what = "isa " + std::to_string(isa) + ", " + ns.name + ", seed " + std::to_string(seed);
            ASSERT_EQ(got.size(), want.size()) << what;
            for (size_t k = 0; k < want.size(); ++k) ASSERT_TRUE(got[k] == want[k]) << what << ": alignment " << k + 1;
        }
    }
}

}  // namespace
}  // namespace chromalign
