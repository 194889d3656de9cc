//! @file The ETA's rate (tools/recent_rate.hpp): that of the last quarter of the run, at least
//! its last 10 s, so that it follows a run whose pace falls as its live corner ends.
#include <gtest/gtest.h>

#include <algorithm>

#include "tools/recent_rate.hpp"

namespace chromalign::cli {
namespace {

/// Samples a second apart, `fast` a second for `switch_at` seconds and `slow` after.
RecentRate run(double fast, double slow, int switch_at, int seconds) {
    RecentRate r;
    double work = 0;
    for (int t = 1; t <= seconds; ++t) {
        work += t <= switch_at ? fast : slow;
        r.add(t, work);
    }
    return r;
}

TEST(RecentRate, ASteadyRunHasItsOwnRate) {
    EXPECT_DOUBLE_EQ(run(7, 7, 0, 3).rate(), 7);
    EXPECT_DOUBLE_EQ(run(7, 7, 0, 500).rate(), 7);
    EXPECT_EQ(RecentRate().rate(), 0);
    RecentRate one;
    one.add(1, 7);
    EXPECT_EQ(one.rate(), 0);  // one sample: no stretch to measure
}

TEST(RecentRate, WhatCameBeforeTheFirstReportIsNotCounted) {
    // A resume levels its checkpoint to a row first: 2.5 s computing nothing the reports
    // count, then 10 a second. Counted from 0 the rate was 5.6 at 5.5 s (the ETA of a 10 s
    // resume once read 426 s); from the first report it is the run's.
    RecentRate r;
    for (int k = 0; k <= 3; ++k) r.add(2.5 + k, 1 + 10 * k);
    EXPECT_DOUBLE_EQ(r.rate(), 10);
}

TEST(RecentRate, ItFollowsAFallingPaceWithinAQuarterOfTheRun) {
    // 10 a second for 180 s, then 5: the rate since the start is 9.5 at 200 s; the last
    // quarter's (50 s, 20 of them slow) 8; at 240 s (60 s, all slow) 5.
    EXPECT_NEAR(run(10, 5, 180, 200).rate(), (30 * 10 + 20 * 5) / 50.0, 1e-9);
    EXPECT_DOUBLE_EQ(run(10, 5, 180, 240).rate(), 5);
    // Before 40 s the stretch is the last 10 s.
    EXPECT_DOUBLE_EQ(run(10, 5, 20, 30).rate(), 5);
    EXPECT_NEAR(run(10, 5, 25, 30).rate(), (5 * 10 + 5 * 5) / 10.0, 1e-9);
}

TEST(RecentRate, SamplesAtAnyPaceGiveTheStretchsRate) {
    // Uneven gaps (reports come about once a second, lines once a minute off a terminal).
    RecentRate r;
    double t = 0, work = 0;
    for (int k = 0; k < 400; ++k) {
        const double dt = 0.3 + (k % 7) * 0.5;
        t += dt;
        work += dt * (t < 600 ? 4 : 2);
        r.add(t, work);
    }
    // The stretch starts at the latest sample at or before t - t / 4: within one gap (3.3 s) of it.
    const double rate = r.rate(), from = t - t / 4;
    const double slow = std::min(t - from, t - 600), fast = t - from - slow;
    EXPECT_NEAR(rate, (slow * 2 + fast * 4) / (t - from), 0.1);
}

}  // namespace
}  // namespace chromalign::cli
