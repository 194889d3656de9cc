//! @file The engine-swept traceback against the full-matrix reference.
#include "tests/sweep_support.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <random>
#include <vector>

#include "engine/orchestration/slab_run.hpp"
#include "engine/traceback/engine_sweeper.hpp"
#include "engine/traceback/linear_traceback.hpp"
#include "engine/traceback/special_rows.hpp"
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

WindowRow true_row(const Sequence& s0, const Sequence& s1, const TracebackTerms& t, int64_t row) {
    const size_t cols = static_cast<size_t>(s1.length() + 1);
    WindowRow r{0, std::vector<int32_t>(cols, 0), std::vector<int32_t>(cols, kScoreNegInf)};
    if (row == 0) return r;
    WindowSpec w;
    w.bottom = row;
    w.hi = s1.length();
    std::vector<int32_t> buffers;
    const auto slots = two_row_slots(buffers, cols);
    sweep_window(s0, s1, t, w, r, slots, [](int64_t) {});
    const RowSlots last = slots(row);
    return WindowRow{row, std::vector<int32_t>(last.h, last.h + cols), std::vector<int32_t>(last.f, last.f + cols)};
}

void expect_kept_rows_exact(const std::string& backend, uint64_t seed) {
    std::mt19937_64 rng(seed);
    const std::unique_ptr<Backend> b = small_backend(backend);
    ASSERT_NE(b->slab_engine(), nullptr) << backend << " is not a tiled backend";
    const std::vector<Scoring> scorings = {Scoring(1, -3, 5, 2), Scoring(2, -3, 7, 2), Scoring(1, -3, 2, 5),
                                           hoxd70()};
    const int64_t R = [&] {
        const Sequence a = random_pair(4, 4, rng).first;
        return b->slab_engine()->window_executor(a, a, scorings[0], TopRow{})->grid().rows_per_band();
    }();
    const int64_t widths[] = {1, 31, 64, 65, 511, 512, 513};
    const int64_t heights[] = {2 * R, 2 * R + 1, 3 * R - 1};
    int64_t rows_checked = 0;
    for (int k = 0; k < 12; ++k) {
        const Scoring& sc = scorings[static_cast<size_t>(k) % scorings.size()];
        const TracebackTerms t(sc);
        WindowSpec w;
        w.top = 1 + static_cast<int64_t>(rng() % 200);
        // Half the windows start where the pairs' alignment (the main diagonal) crosses their
        // top row: their corner and top row are what the cells below them come from.
        w.lo = k % 2 ? w.top + 1 : 2 + static_cast<int64_t>(rng() % 300);
        const int64_t width = k < 7 ? widths[k] : 600 + static_cast<int64_t>(rng() % 2000);
        const int64_t height = k % 4 < 3 ? heights[k % 4] : 2 * R + static_cast<int64_t>(rng() % (6 * R));
        w.bottom = w.top + height;
        w.hi = w.lo + width - 1;
        const std::string what = backend + " window #" + std::to_string(k) + " " + std::to_string(height) + " x " +
                                 std::to_string(width) + ", seed " + std::to_string(seed);
        auto [s0, s1] = mutated_pair(w.bottom + static_cast<int64_t>(rng() % 50), w.hi + static_cast<int64_t>(rng() % 50),
                                     rng, 0.01);
        const WindowRow whole = true_row(s0, s1, t, w.top);
        WindowRow top{w.top, std::vector<int32_t>(whole.h.begin() + w.lo - 1, whole.h.begin() + w.hi + 1),
                      std::vector<int32_t>(whole.f.begin() + w.lo - 1, whole.f.begin() + w.hi + 1)};
        // The window's own values, row by row, at every row a band can end on (R is a
        // multiple of 32), to compare the kept rows with.
        std::map<int64_t, WindowRow> want;
        const size_t cols = static_cast<size_t>(w.width() + 1);
        std::vector<int32_t> buffers;
        const auto slots = two_row_slots(buffers, cols);
        sweep_window(s0, s1, t, w, top, slots, [&](int64_t i) {
            if ((i - w.top) % 32 == 0)
                want[i] = WindowRow{i, std::vector<int32_t>(slots(i).h, slots(i).h + cols),
                                    std::vector<int32_t>(slots(i).f, slots(i).f + cols)};
        });
        // Room for all of the rows, or for a few: every band's bottom kept, or every k-th.
        const int64_t kept_bytes = k % 2 ? int64_t{1} << 30 : 8 * (w.width() + 1) * (1 + static_cast<int64_t>(rng() % 4));
        EngineSweeper sweeper(*b->slab_engine(), s0, s1, sc, kept_bytes);
        const std::unique_ptr<RowSource> rows = sweeper.sweep(w, top, SweepSteps{});
        ASSERT_EQ(sweeper.engine_sweeps(), 1) << what << ": not swept by the engine";
        for (int64_t r = rows->row_above(w.bottom); r > w.top; r = rows->row_above(r)) {
            const auto found = want.find(r);
            ASSERT_NE(found, want.end()) << "kept row " << r << " is not a band bottom, " << what;
            const WindowRow& v = found->second;
            const int64_t from = w.lo + static_cast<int64_t>(rng() % static_cast<uint64_t>(w.width()));
            const WindowRow got = rows->read(r, from, w.hi), all = rows->read(r, w.lo, w.hi);
            EXPECT_EQ(all.h, v.h) << "H of kept row " << r << ", " << what;
            EXPECT_EQ(all.f, v.f) << "F of kept row " << r << ", " << what;
            EXPECT_TRUE(std::equal(got.h.begin(), got.h.end(), v.h.begin() + (from - w.lo)))
                << "row " << r << " from " << from << ", " << what;
            for (int q = 0; q < 4; ++q) {
                const int64_t to = w.lo + static_cast<int64_t>(rng() % static_cast<uint64_t>(w.width()));
                int64_t bound = edge_value(0, w.lo - 1, t.gap);
                for (int64_t c = w.lo; c <= to; ++c)
                    bound = std::max(bound, edge_value(v.h[static_cast<size_t>(c - w.lo + 1)], c, t.gap));
                EXPECT_EQ(rows->edge_term(r, to, t.gap), bound) << "edge term of row " << r << " to column " << to;
                // The crossing: the rightmost largest H + bias over [a, to] of the window's row.
                const int64_t a = w.lo + static_cast<int64_t>(rng() % static_cast<uint64_t>(to - w.lo + 1));
                const CrossingBias bias{t.ext, static_cast<int64_t>(rng() % 200), to};
                int64_t want = to;
                for (int64_t c = to; c >= a; --c)
                    if (v.h[static_cast<size_t>(c - w.lo + 1)] + bias.at(c) > v.h[static_cast<size_t>(want - w.lo + 1)] + bias.at(want))
                        want = c;
                EXPECT_EQ(rows->crossing_column(r, a, bias), want)
                    << "crossing of row " << r << " over " << a << " .. " << to << ", " << bias.a << " rows below";
            }
            ++rows_checked;
            if (::testing::Test::HasFailure()) return;
        }
    }
    EXPECT_GE(rows_checked, 12) << "fewer kept rows than windows";
}

void expect_region_peaks_exact(const std::string& backend, uint64_t seed, int32_t cooperative_limit) {
    std::mt19937_64 rng(seed);
    const Scoring sc(1, -3, 5, 2);
    constexpr int64_t kRun = SpecialRows::kPeakColumns;
    const int64_t spacing = small_backend(backend)->slab_engine()->special_row_spacing();
    int64_t regions = 0;
    for (int k = 0; k < 4; ++k) {
        // Two runs of 4096 columns and a part; rows for two or three kept rows.
        const int64_t m = 2 * spacing + static_cast<int64_t>(rng() % static_cast<uint64_t>(2 * spacing));
        const int64_t n = 2 * kRun + 1 + static_cast<int64_t>(rng() % kRun);
        auto [s0, s1] = mutated_pair(m, n, rng, 0.01);
        const int slabs = k % 2 ? 3 : 1;
        const bool pruning = k >= 2;
        TempDir dir;
        BackendOptions options;
        options.threads = 2;
        options.slabs = slabs;
        options.pruning = pruning;
        options.cooperative_limit = cooperative_limit;
        options.special_rows.dir = dir.path();
        options.special_rows.budget_bytes = int64_t{1} << 30;
        const std::unique_ptr<Backend> b = make_backend(backend, options);
        ASSERT_NE(b->slab_engine(), nullptr) << backend << " is not a tiled backend";
        b->align(s0, s1, sc);
        const int64_t R = b->slab_engine()->slab_shape(m, n, sc).rows_per_band;
        // Every band bottom's largest H per run, from the row-by-row sweep (the map samples them).
        std::map<int64_t, std::vector<int32_t>> bottoms;
        const size_t cols = static_cast<size_t>(n + 1);
        WindowSpec w;
        w.bottom = m;
        w.hi = n;
        std::vector<int32_t> buffers;
        const auto slots = two_row_slots(buffers, cols);
        const WindowRow top{0, std::vector<int32_t>(cols, 0), std::vector<int32_t>(cols, kScoreNegInf)};
        sweep_window(s0, s1, TracebackTerms(sc), w, top, slots, [&](int64_t i) {
            if (i % R != 0) return;
            std::vector<int32_t>& peaks = bottoms[i];
            peaks.assign(static_cast<size_t>(n / kRun + 1), 0);
            for (int64_t c = 1; c <= n; ++c)
                peaks[static_cast<size_t>(c / kRun)] = std::max(peaks[static_cast<size_t>(c / kRun)], slots(i).h[c]);
        });
        const std::string what = backend + " " + std::to_string(m) + " x " + std::to_string(n) + ", " +
                                 std::to_string(slabs) + " slabs, pruning " + (pruning ? "on" : "off") + ", seed " +
                                 std::to_string(seed) + ", cooperative up to " + std::to_string(cooperative_limit);
        const SpecialRows rows(dir.path(), rows_identity(s0, s1), sc);
        ASSERT_GE(rows.count(), 2) << what;
        int64_t above = 0;
        const auto peaks = rows.region_peaks();
        const int64_t per_region = peaks.begin()->first / R;  // kept rows are this many bands apart
        for (const auto& [row, got] : peaks) {
            std::vector<int32_t> want(got.size(), 0);
            for (auto it = bottoms.upper_bound(above); it != bottoms.end() && it->first <= row; ++it)
                if (region_peak_band(it->first / R - 1, per_region, 0))
                    for (size_t r = 0; r < want.size(); ++r) want[r] = std::max(want[r], it->second[r]);
            for (size_t r = 0; r < want.size(); ++r) {
                if (pruning) {
                    EXPECT_LE(got[r], want[r]) << "row " << row << ", run " << r << ", " << what;
                } else {
                    EXPECT_EQ(got[r], want[r]) << "row " << row << ", run " << r << ", " << what;
                }
            }
            EXPECT_GT(*std::max_element(got.begin(), got.end()), 0) << "row " << row << ", " << what;
            above = row;
            ++regions;
        }
    }
    EXPECT_GE(regions, 8) << "too few kept rows: the test tests little";
}

}  // namespace chromalign::test
