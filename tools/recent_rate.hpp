//! @file The rate behind the progress line's ETA: of the last stretch of the run, not of all
//! of it. A pruned run computes its live corner at the GPU's full rate and its live band, which
//! fills only part of the GPU, far slower (tools/BENCHMARKS.md, 48M related): the rate since the
//! start hides that change, and the ETA ran 30% short near the end.
#pragma once

#include <deque>
#include <utility>

namespace chromalign::cli {

class RecentRate {
public:
    /// The shortest stretch the rate is taken over; shorter runs take the rate since the start.
    static constexpr double kLeastSeconds = 10;

    /// What was computed by `seconds` after the start: `work` in all (non-decreasing).
    void add(double seconds, double work);

    /// Work a second over the last quarter of the run, and at least the last kLeastSeconds
    /// (all of it since the first sample when shorter): a stretch that grows with the run, so
    /// that the rate follows a change of pace within a quarter of the time run, yet a short
    /// stall does not sway it. It never reaches back before the first sample: what a run does
    /// before its first report (reading its sequences, a resume levelling its checkpoint to a
    /// row, for seconds at large sizes) computes no cells the rate could count. 0 before two
    /// samples.
    double rate() const;

private:
    std::deque<std::pair<double, double>> samples_;  ///< (seconds, work), the stretch's start first
};

}  // namespace chromalign::cli
