//! @file The share of a matrix pruning is expected to leave: the progress line's ETA.
#pragma once

#include <cstdint>

#include "engine/scoring/scoring.hpp"

namespace chromalign {

/// What the model knows of one comparison before and while it runs.
struct LiveModel {
    int64_t rows = 0, cols = 0;  ///< the matrix, m x n
    int32_t best_score = 1;      ///< the most one column can add (Scoring::best_score)
    int32_t gap_extend = 0;
    /// This comparison's own lower bound (a path of its own, BackendOptions::lower_bound), 0
    /// when none: it tells how much its alignment scores per column.
    int32_t own_bound = 0;
    /// The best score G holds from the start: the own bound, or a floor from another
    /// comparison (BackendOptions::prune_floor) that this one need not come near.
    int32_t floor = 0;
    /// What the gain counts per column far from the alignment, in best_score: below 1 with a
    /// gain table (rho of gain_table.hpp).
    double gain_rate = 1.0;
    /// What a gain table adds, in best_score, on a column that starts a k-mer the pair shares
    /// ((a - rho) of gain_table.hpp; 0: no table), its k, and the scores a and b there.
    double gain_credit = 0;
    int32_t gain_k = 0;
    double identity = 1, other = -1;
    /// The columns counted, [col_begin, col_end) (col_end 0: all): a slab's own, whose grid
    /// suits how dense its own cells are (a related pair's live corner is in the left slabs).
    int64_t col_begin = 0, col_end = 0;
};

/// The model of a rows x cols comparison under `scoring` that prunes from `floor` (0: none yet),
/// with a gain table's rate where one is coming (a bound pass builds one, BoundThread).
LiveModel live_model(int64_t rows, int64_t cols, const Scoring& scoring, int32_t floor, bool gain_table);

/// The share of the cells below row `front` (of the columns counted) that pruning is expected
/// to keep, with `found` the
/// best score this comparison itself reached above `front` (not a floor from elsewhere).
/// 1 when nothing is known yet (no floor, nothing found).
///
/// A model of a related pair, whose best alignment runs near the main diagonal. A cell (i, j)
/// is kept when H(i, j) + gain(i, j) reaches the G known when it is decided (prune_rule.hpp).
/// Far from the alignment H is small, so the cell is kept when gain alone, gain_rate *
/// best_score * min(m - i, n - j), reaches G; G grows about linearly down the rows, as
/// found * i / front, and is never below the floor. Near the alignment H(i) is about rho * i
/// (in best_score units, rho = own_bound / min(m, n)), and the gain counts about `along` =
/// gain_rate + gain_credit q^(k / 2) per column, with q = (rho best_score - b) / (a - b) the
/// share of identities an alignment scoring rho has under match/mismatch scores (q^(k / 2), not
/// the q^k of k-mer starts, is fitted: see live_model.cpp), so the slack H + gain - G there is
/// along (m - i) - (floor - rho i):
/// (along - rho)(m - i) when the floor is the own bound, m - i without a floor or table, and
/// nothing once a floor from elsewhere is out of the alignment's reach. At a distance of k
/// columns H is about k * extend lower while the gain falls by up to k * best_score, so cells
/// within best_score * slack / (best_score + extend) of it on either side are kept (a band
/// about the main diagonal, moved inside the matrix where it would cross an edge). The model
/// counts, row by row, the cells of either, over the columns counted.
double expected_live_fraction(const LiveModel& model, int64_t front, int32_t found);

}  // namespace chromalign
