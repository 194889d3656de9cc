//! @file The traceback's large windows swept on the cpu engine give the reference's alignment,
//! and the SIMD whole-window kernel the values of the row-by-row sweep.
#include <gtest/gtest.h>

#include <map>
#include <random>

#include "engine/orchestration/slab_run.hpp"
#include "engine/traceback/engine_sweeper.hpp"
#include "engine/traceback/window.hpp"
#include "engine/tiling/tile_executor.hpp"
#include "tests/sweep_support.hpp"
#include "tests/test_support.hpp"

namespace chromalign {
namespace {

TEST(EngineSweeper, CpuSweepsGiveTheReferenceAlignment) {
    test::expect_engine_sweeps_exact("cpu", 12, test::seed() + 81);
}

TEST(EngineSweeper, KeptRowsHoldTheWindowsValuesBoundsAndCrossings) {
    test::expect_kept_rows_exact("cpu", test::seed() + 83);
}

TEST(SpecialRows, CpuRegionPeaksAreTheSampledBandBottomsLargestH) {
    test::expect_region_peaks_exact("cpu", test::seed() + 84);
}

TEST(WindowCells, SimdStripesEqualTheRowSweep) {
    std::mt19937_64 rng(test::seed() + 82);
    const std::vector<Scoring> scorings = {Scoring(1, -3, 5, 2), Scoring(1, -3, 2, 5), test::hoxd70()};
    WindowCells cells;  // reused, as the traceback does
    for (int k = 0; k < 120; ++k) {
        const TracebackTerms t(scorings[static_cast<size_t>(k) % scorings.size()]);
        const int64_t m = 1 + static_cast<int64_t>(rng() % 80), n = 1 + static_cast<int64_t>(rng() % 90);
        auto [s0, s1] = k % 2 ? test::mutated_pair(m, n, rng, 0.02) : test::random_pair(m, n, rng);
        WindowSpec w;
        w.top = static_cast<int64_t>(rng() % static_cast<uint64_t>(m));
        w.bottom = w.top + 1 + static_cast<int64_t>(rng() % static_cast<uint64_t>(m - w.top));
        w.lo = 1 + static_cast<int64_t>(rng() % static_cast<uint64_t>(n));
        w.hi = w.lo + static_cast<int64_t>(rng() % static_cast<uint64_t>(n - w.lo + 1));
        const WindowRow whole = test::true_row(s0, s1, t, w.top);
        const WindowRow top{w.top, std::vector<int32_t>(whole.h.begin() + w.lo - 1, whole.h.begin() + w.hi + 1),
                            std::vector<int32_t>(whole.f.begin() + w.lo - 1, whole.f.begin() + w.hi + 1)};
        window_cells(s0, s1, t, w, top, cells);
        const size_t cols = static_cast<size_t>(w.width() + 1);
        std::vector<int32_t> buffers;
        const auto slots = two_row_slots(buffers, cols);
        int64_t checked = 0;
        sweep_window(s0, s1, t, w, top, slots, [&](int64_t i) {
                const int32_t *h = slots(i).h, *e = slots(i).e, *f = slots(i).f;
                for (size_t c = 0; c < cols; ++c) {
                    const size_t at = cells.at(i - w.top, static_cast<int64_t>(c));
                    ASSERT_EQ(cells.h[at], h[c]) << "H at row " << i << " column index " << c << ", window #" << k;
                    ASSERT_EQ(cells.e[at], e[c]) << "E at row " << i << " column index " << c << ", window #" << k;
                    ASSERT_EQ(cells.f[at], f[c]) << "F at row " << i << " column index " << c << ", window #" << k;
                    ++checked;
                }
            });
        ASSERT_EQ(checked, w.rows() * static_cast<int64_t>(cols));
        if (HasFatalFailure()) return;
    }
}

}  // namespace
}  // namespace chromalign
