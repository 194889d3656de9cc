//! @file The windows swept ahead of the traceback's walk (engine/traceback/lookahead.hpp): a
//! window the walk no longer needs is dropped without waiting for its thread, and told so.
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <mutex>
#include <utility>
#include <vector>
#include <thread>

#include "engine/tiling/tile_executor.hpp"
#include "engine/traceback/lookahead.hpp"

namespace chromalign {
namespace {

using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point t) { return std::chrono::duration<double>(Clock::now() - t).count(); }

/// Rows 0, 100, ..., 1000 over columns 1 .. 2000, H growing with the column: every row peaks
/// at the right end of any range, so the guesses follow the walk's column.
KeptRows rising_rows() {
    WindowSpec w;
    w.bottom = 1000;
    w.hi = 2000;
    w.top_exact = true;
    const auto row = [&](int64_t i) {
        WindowRow r{i, std::vector<int32_t>(static_cast<size_t>(w.hi + 1)),
                    std::vector<int32_t>(static_cast<size_t>(w.hi + 1), kScoreNegInf)};
        for (int64_t c = 0; c <= w.hi; ++c) r.h[static_cast<size_t>(c)] = static_cast<int32_t>(c + i);
        return r;
    };
    KeptRows rows(w, row(0));
    for (int64_t i = 100; i < w.bottom; i += 100) rows.keep(row(i));
    return rows;
}

TEST(Lookahead, DroppedWindowsAreNotWaitedForAndStopTheirWork) {
    KeptRows rows = rising_rows();
    const TracebackTerms terms(Scoring(1, -3, 5, 2));
    std::atomic<int> started{0}, told{0};
    // Each sweep runs until it is dropped (or 10 s pass): only a drop ends it soon.
    const auto sweep = [&](const WindowSpec&, WindowRow, const TracebackPoint& entry, const std::atomic<bool>& dropped) {
        ++started;
        EXPECT_EQ(entry.state, 'H');
        EXPECT_GT(entry.v, 0) << "the entry's H, read from the row below the window";
        const Clock::time_point until = Clock::now() + std::chrono::seconds(10);
        while (!dropped && Clock::now() < until) std::this_thread::sleep_for(std::chrono::milliseconds(1));
        if (dropped) ++told;
        return Lookahead::Swept{};
    };
    Clock::time_point t0;
    {
        Lookahead ahead(rows, terms, 3, sweep);
        // The walk at (1000, 1500): three windows go ahead above row 900, about column 1500.
        EXPECT_EQ(ahead.take(1000, 1500, 1300).rows, nullptr);
        const Clock::time_point deadline = Clock::now() + std::chrono::seconds(5);
        while (started < 3 && Clock::now() < deadline) std::this_thread::sleep_for(std::chrono::milliseconds(1));
        EXPECT_EQ(started.load(), 3);
        // It crossed row 900 far left of them: they are dropped, not waited for, and the
        // next three start from where it is.
        t0 = Clock::now();
        EXPECT_EQ(ahead.take(900, 20, 1).rows, nullptr);
        EXPECT_LT(seconds_since(t0), 2.0) << "take() waited for the windows it dropped";
        while ((told < 3 || started < 6) && Clock::now() < deadline)
            std::this_thread::sleep_for(std::chrono::milliseconds(1));
        EXPECT_EQ(told.load(), 3) << "the dropped windows were not told";
        EXPECT_EQ(started.load(), 6);
        t0 = Clock::now();
    }  // the walk is done: what is still ahead is dropped, and its threads end at once
    EXPECT_LT(seconds_since(t0), 2.0) << "the end waited for windows nobody needs";
    EXPECT_EQ(told.load(), 6);
}

// Given where the walk starts (off the rows), its own first window is swept and walked ahead
// too, before the windows above it, and serves the walk: from its start cell and value, over
// the walk's columns.
TEST(Lookahead, TheWalksOwnFirstWindowIsSweptAheadFromItsStart) {
    KeptRows rows = rising_rows();
    const TracebackTerms terms(Scoring(1, -3, 5, 2));
    std::mutex mutex;
    std::vector<std::pair<int64_t, int64_t>> windows;  // (top, bottom) of each sweep, in order asked
    const auto sweep = [&](const WindowSpec& w, WindowRow top, const TracebackPoint& entry, const std::atomic<bool>&) {
        {
            const std::lock_guard<std::mutex> lock(mutex);
            windows.emplace_back(w.top, w.bottom);
        }
        Lookahead::Swept s;
        s.rows = std::make_unique<KeptRows>(w, std::move(top));
        s.walk.entry = entry;
        return s;
    };
    Lookahead ahead(rows, terms, 3, sweep, TracebackPoint{950, 1500, 'H', 77, {}});
    const Lookahead::Window got = ahead.take(950, 1500, 1300);
    ASSERT_NE(got.rows, nullptr) << "the walk's own window was not swept ahead";
    EXPECT_EQ(got.w.top, 900);
    EXPECT_EQ(got.w.bottom, 950);
    EXPECT_LE(got.w.lo, 1300);
    EXPECT_EQ(got.w.hi, 1500);
    EXPECT_EQ(got.walk.entry.i, 950);
    EXPECT_EQ(got.walk.entry.j, 1500);
    EXPECT_EQ(got.walk.entry.v, 77) << "the walk's own value, not a row's";
    // The windows above it were planned too, from its guessed crossing of row 900.
    const Clock::time_point deadline = Clock::now() + std::chrono::seconds(5);
    for (;;) {
        {
            const std::lock_guard<std::mutex> lock(mutex);
            std::sort(windows.begin(), windows.end());
            if (windows.size() >= 4 || Clock::now() > deadline) {
                ASSERT_GE(windows.size(), 4u);
                EXPECT_EQ(windows[0], (std::pair<int64_t, int64_t>{600, 700}));
                EXPECT_EQ(windows[1], (std::pair<int64_t, int64_t>{700, 800}));
                EXPECT_EQ(windows[2], (std::pair<int64_t, int64_t>{800, 900}));
                EXPECT_EQ(windows[3], (std::pair<int64_t, int64_t>{900, 950}));
                break;
            }
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
}

// Without its start (a walk taken up from a journal), the walk sweeps its own first window.
TEST(Lookahead, WithoutItsStartTheWalksOwnWindowIsNotSweptAhead) {
    KeptRows rows = rising_rows();
    const TracebackTerms terms(Scoring(1, -3, 5, 2));
    std::atomic<int> own{0};
    const auto sweep = [&](const WindowSpec& w, WindowRow, const TracebackPoint&, const std::atomic<bool>&) {
        if (w.bottom == 950) ++own;
        return Lookahead::Swept{};
    };
    {
        Lookahead ahead(rows, terms, 3, sweep);
        EXPECT_EQ(ahead.take(950, 1500, 1300).rows, nullptr);
    }
    EXPECT_EQ(own.load(), 0);
}

}  // namespace
}  // namespace chromalign
