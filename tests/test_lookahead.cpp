//! @file The windows swept ahead of the traceback's walk (engine/traceback/lookahead.hpp): a
//! window the walk no longer needs is dropped without waiting for its thread, and told so.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
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

}  // namespace
}  // namespace chromalign
