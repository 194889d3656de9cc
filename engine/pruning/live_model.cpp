//! @file expected_live_fraction: the model of live_model.hpp, sampled over the rows left.
#include "engine/pruning/live_model.hpp"

#include <algorithm>
#include <cmath>

#include "engine/pruning/gain_table.hpp"

namespace chromalign {

LiveModel live_model(int64_t rows, int64_t cols, const Scoring& scoring, int32_t floor, bool gain_table) {
    LiveModel model;
    model.rows = rows;
    model.cols = cols;
    model.best_score = scoring.best_score();
    model.gap_extend = scoring.gap_extend;
    model.floor = floor;
    const int32_t k = gain_table ? GainTable::k_for(rows, cols, scoring) : 0;
    const auto terms = k > 0 && rows >= k && cols >= k ? GainTerms::of(scoring, k) : std::nullopt;
    if (terms) {
        const double unit = static_cast<double>(k) * model.best_score;
        model.gain_rate = static_cast<double>(terms->rho_k) / unit;
        model.gain_credit = static_cast<double>(terms->credit_k) / unit;
        model.gain_k = k;
        model.identity = terms->a;
        model.other = terms->b;
    }
    return model;
}

double expected_live_fraction(const LiveModel& model, int64_t front, int32_t found) {
    if (front >= model.rows || model.best_score <= 0 || (found <= 0 && model.floor <= 0)) return 1.0;
    const double m = static_cast<double>(model.rows), n = static_cast<double>(model.cols);
    const double best = model.best_score;
    // Scores in columns of best_score from here on.
    const double floor = model.floor / best;
    const double per_row = found / best / static_cast<double>(std::max<int64_t>(front, 1));
    const double rho = std::min(1.0, model.own_bound / best / std::min(m, n));
    const double width_per_slack = 2.0 * best / (best + model.gap_extend);
    // Along the alignment a gain table counts gain_rate per column and gain_credit more on the
    // columns that start a shared k-mer. Were all the score lost to mismatches spread at
    // random, q^k of the columns would; but gaps lower the score more than they break runs,
    // and the band is wider than the slack alone says: q^(k / 2) fits mutated pairs
    // (tests/test_bound.cpp's ETA test).
    const double q = std::clamp((rho * best - model.other) / (model.identity - model.other), 0.0, 1.0);
    const double along = std::min(1.0, model.gain_rate + model.gain_credit * std::pow(q, model.gain_k / 2.0));
    const double lo = static_cast<double>(model.col_begin);
    const double hi = model.col_end > 0 ? std::min(n, static_cast<double>(model.col_end)) : n;
    if (hi <= lo) return 1.0;
    const auto counted = [&](double a, double b) { return std::max(0.0, std::min(hi, b) - std::max(lo, a)); };
    constexpr int kSamples = 256;
    double live = 0;
    for (int k = 0; k < kSamples; ++k) {
        const double i = static_cast<double>(front) + (m - static_cast<double>(front)) * (k + 0.5) / kSamples;
        const double reach = std::max(floor, per_row * i);  // the score a cell must still reach, in best_score
        const double far = reach / model.gain_rate;  // rows and columns gain alone needs left
        const double gained = m - i >= far ? n - far : 0.0;  // columns [0, gained) live by gain alone
        const double slack = std::max(0.0, along * (m - i) - std::max(0.0, floor - rho * i));
        const double width = std::min(n, width_per_slack * slack);
        const double left = std::clamp(i * n / m - width / 2, 0.0, n - width);  // and the band's
        live += counted(0.0, gained) + counted(left, left + width) - counted(left, std::min(gained, left + width));
    }
    return std::min(1.0, live / (kSamples * (hi - lo)));
}

}  // namespace chromalign
