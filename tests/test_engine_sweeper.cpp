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

/// Row `row` of s0 x s1 over columns 0 .. n: the row-by-row sweep from row 0.
WindowRow true_row(const Sequence& s0, const Sequence& s1, const TracebackTerms& t, int64_t row) {
    const size_t cols = static_cast<size_t>(s1.length() + 1);
    WindowRow r{0, std::vector<int32_t>(cols, 0), std::vector<int32_t>(cols, kScoreNegInf)};
    if (row == 0) return r;
    WindowSpec w;
    w.bottom = row;
    w.hi = s1.length();
    std::vector<int32_t> buffers(6 * cols);  // two rows in turn: a row reads the one above
    const auto slots = [&](int64_t i) {
        int32_t* base = buffers.data() + (i % 2) * 3 * cols;
        return RowSlots{base, base + cols, base + 2 * cols};
    };
    sweep_window(s0, s1, t, w, r, slots, [](int64_t) {});
    const RowSlots last = slots(row);
    return WindowRow{row, std::vector<int32_t>(last.h, last.h + cols), std::vector<int32_t>(last.f, last.f + cols)};
}

TEST(EngineSweeper, KeptRowsHoldTheWindowsValuesBoundsAndPeaks) {
    std::mt19937_64 rng(test::seed() + 83);
    const std::unique_ptr<Backend> cpu = test::small_backend("cpu");
    const Scoring sc(1, -3, 5, 2);
    const TracebackTerms t(sc);
    int64_t rows_checked = 0;
    for (int k = 0; k < 6; ++k) {
        const int64_t m = 2600 + static_cast<int64_t>(rng() % 1500), n = 600 + static_cast<int64_t>(rng() % 2000);
        auto [s0, s1] = test::mutated_pair(m, n, rng, 0.01);
        WindowSpec w;
        w.top = static_cast<int64_t>(rng() % 200);
        w.bottom = m;
        w.lo = 1 + static_cast<int64_t>(rng() % 300);
        w.hi = n;
        const WindowRow whole = true_row(s0, s1, t, w.top);
        WindowRow top{w.top, std::vector<int32_t>(whole.h.begin() + w.lo - 1, whole.h.end()),
                      std::vector<int32_t>(whole.f.begin() + w.lo - 1, whole.f.end())};
        // The window's own values, row by row, to compare the kept rows with.
        std::map<int64_t, WindowRow> want;
        const size_t cols = static_cast<size_t>(w.width() + 1);
        std::vector<int32_t> buffers(6 * cols);
        const auto slots = [&](int64_t i) {
            int32_t* base = buffers.data() + (i % 2) * 3 * cols;
            return RowSlots{base, base + cols, base + 2 * cols};
        };
        sweep_window(s0, s1, t, w, top, slots, [&](int64_t i) {
            want[i] = WindowRow{i, std::vector<int32_t>(slots(i).h, slots(i).h + cols),
                                std::vector<int32_t>(slots(i).f, slots(i).f + cols)};
        });
        // Room for all of the rows, or for a few: every band's bottom kept, or every k-th.
        const int64_t kept_bytes = k % 2 ? int64_t{1} << 30 : 8 * (w.width() + 1) * (1 + static_cast<int64_t>(rng() % 4));
        EngineSweeper sweeper(*cpu->slab_engine(), s0, s1, sc, kept_bytes);
        const std::unique_ptr<RowSource> rows = sweeper.sweep(w, top, SweepSteps{});
        ASSERT_EQ(sweeper.engine_sweeps(), 1) << "window #" << k << " was not swept by the engine";
        for (int64_t r = rows->row_above(w.bottom); r > w.top; r = rows->row_above(r)) {
            const WindowRow& v = want.at(r);
            const int64_t from = w.lo + static_cast<int64_t>(rng() % static_cast<uint64_t>(w.width()));
            const WindowRow got = rows->read(r, from, w.hi), all = rows->read(r, w.lo, w.hi);
            EXPECT_EQ(all.h, v.h) << "H of kept row " << r << ", window #" << k;
            EXPECT_EQ(all.f, v.f) << "F of kept row " << r << ", window #" << k;
            EXPECT_TRUE(std::equal(got.h.begin(), got.h.end(), v.h.begin() + (from - w.lo))) << "row " << r << " from " << from;
            for (int q = 0; q < 4; ++q) {
                const int64_t to = w.lo + static_cast<int64_t>(rng() % static_cast<uint64_t>(w.width()));
                int64_t bound = edge_value(0, w.lo - 1, t.gap);
                for (int64_t c = w.lo; c <= to; ++c) bound = std::max(bound, edge_value(v.h[static_cast<size_t>(c - w.lo + 1)], c, t.gap));
                EXPECT_EQ(rows->edge_term(r, to, t.gap), bound) << "edge term of row " << r << " to column " << to;
                // The peak: the rightmost largest H over [a, to] of the window's row.
                const int64_t a = w.lo + static_cast<int64_t>(rng() % static_cast<uint64_t>(to - w.lo + 1));
                int64_t peak = to;
                for (int64_t c = to; c >= a; --c)
                    if (v.h[static_cast<size_t>(c - w.lo + 1)] > v.h[static_cast<size_t>(peak - w.lo + 1)]) peak = c;
                EXPECT_EQ(rows->peak_column(r, a, to), peak) << "peak of row " << r << " over " << a << " .. " << to;
            }
            ++rows_checked;
            if (HasFailure()) return;
        }
    }
    EXPECT_GE(rows_checked, 6) << "fewer kept rows than windows";
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
        const WindowRow whole = true_row(s0, s1, t, w.top);
        const WindowRow top{w.top, std::vector<int32_t>(whole.h.begin() + w.lo - 1, whole.h.begin() + w.hi + 1),
                            std::vector<int32_t>(whole.f.begin() + w.lo - 1, whole.f.begin() + w.hi + 1)};
        window_cells(s0, s1, t, w, top, cells);
        const size_t cols = static_cast<size_t>(w.width() + 1);
        std::vector<int32_t> buffers(6 * cols);  // two rows in turn: a row reads the one above
        const auto slots = [&](int64_t i) {
            int32_t* base = buffers.data() + (i % 2) * 3 * cols;
            return RowSlots{base, base + cols, base + 2 * cols};
        };
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
