//! @file RecentRate: samples kept from the one just before the stretch on.
#include "tools/recent_rate.hpp"

#include <algorithm>

namespace chromalign::cli {

void RecentRate::add(double seconds, double work) {
    samples_.emplace_back(seconds, work);
    // The stretch only grows: a sample before the one just before its start is never needed.
    const double from = seconds - std::max(kLeastSeconds, seconds / 4);
    while (samples_.size() > 2 && samples_[1].first <= from) samples_.pop_front();
}

double RecentRate::rate() const {
    const auto& [now, done] = samples_.back();
    const double from = now - std::max(kLeastSeconds, now / 4);
    // The latest sample at or before the stretch's start (the start itself while the run is short).
    auto first = samples_.front();
    for (const auto& s : samples_)
        if (s.first <= from) first = s;
    const double seconds = now - first.first;
    return seconds > 0 ? (done - first.second) / seconds : 0;
}

}  // namespace chromalign::cli
