//! @file RecentRate: samples kept from the one just before the stretch on.
#include "tools/recent_rate.hpp"

#include <algorithm>

namespace chromalign::cli {

void RecentRate::add(double seconds, double work) {
    samples_.emplace_back(seconds, work);
    // The stretch only grows: a sample before the one just before its start is never needed,
    // and that one stays first.
    const double from = seconds - std::max(kLeastSeconds, seconds / 4);
    while (samples_.size() > 2 && samples_[1].first <= from) samples_.pop_front();
}

double RecentRate::rate() const {
    // add() kept the latest sample at or before the stretch's start first (the first sample
    // while the run is short).
    if (samples_.size() < 2) return 0;
    const auto& [then, before] = samples_.front();
    const auto& [now, done] = samples_.back();
    return now > then ? (done - before) / (now - then) : 0;
}

}  // namespace chromalign::cli
