//! @file Scoring validation and the overflow guard for 32-bit scores.
#include "engine/scoring/scoring.hpp"

#include <algorithm>
#include <limits>

#include "engine/error.hpp"

namespace chromalign {

std::string Scoring::validate() const {
    auto out_of_range = [](int32_t v) { return v > kMaxScoreParameter || v < -kMaxScoreParameter; };
    if (out_of_range(match) || out_of_range(mismatch) || out_of_range(gap_open) ||
        out_of_range(gap_extend))
        return "every score parameter must lie within +-" + std::to_string(kMaxScoreParameter);
    if (match <= 0) return "match must be positive (got " + std::to_string(match) + ")";
    if (mismatch >= 0) return "mismatch must be negative (got " + std::to_string(mismatch) + ")";
    if (gap_open <= 0)
        return "gap-open must be a positive cost (got " + std::to_string(gap_open) + ")";
    if (gap_extend <= 0)
        return "gap-extend must be a positive cost (got " + std::to_string(gap_extend) + ")";
    return {};
}

void Scoring::check_no_overflow(int64_t m, int64_t n) const {
    if (const std::string why = validate(); !why.empty()) throw Error("invalid scoring: " + why);
    // The best score is at most match * min(m, n); the engines also form H - gap_open and
    // H + mismatch, and keep -2^30 as minus infinity, so require a margin on both sides.
    const int64_t shortest = std::min(m, n);
    const int64_t limit = (int64_t{1} << 30) - 4 * int64_t{kMaxScoreParameter};
    if (shortest > 0 && shortest > limit / match)
        throw Error("sequences of " + std::to_string(m) + " x " + std::to_string(n) +
                    " could reach a score of " + std::to_string(shortest * match) +
                    ", beyond the 32-bit score range (limit " + std::to_string(limit) +
                    "); lower --match");
}

std::string Scoring::to_string() const {
    return "match=" + std::to_string(match) + " mismatch=" + std::to_string(mismatch) +
           " gap_open=" + std::to_string(gap_open) + " gap_extend=" + std::to_string(gap_extend);
}

}  // namespace chromalign
