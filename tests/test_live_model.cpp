//! @file The model of what pruning leaves (engine/pruning/live_model.hpp), over a slab's columns:
//! the slabs' shares add up to the whole, and a related pair's live corner makes its left
//! slabs dense while its right ones keep a band, as a mutated pair's all do.
#include <gtest/gtest.h>

#include <vector>

#include "engine/pruning/live_model.hpp"

namespace chromalign {
namespace {

constexpr int64_t kSize = 16'000'000;

/// A square comparison under the default scoring whose alignment scores `per_column` of a
/// column, with that bound known from the start, and a gain table or not.
LiveModel model_of(double per_column, bool gain_table) {
    LiveModel model = live_model(kSize, kSize, Scoring(1, -3, 5, 2), 0, gain_table);
    model.own_bound = model.floor = static_cast<int32_t>(per_column * kSize);
    return model;
}

/// Each of `slabs` equal column slabs' share of the cells below `front`.
std::vector<double> slab_shares(LiveModel model, int slabs, int64_t front) {
    std::vector<double> shares;
    for (int s = 0; s < slabs; ++s) {
        model.col_begin = kSize * s / slabs;
        model.col_end = kSize * (s + 1) / slabs;
        shares.push_back(expected_live_fraction(model, front, 0));
    }
    return shares;
}

TEST(LiveModel, SlabSharesAddUpToTheWhole) {
    for (const double per_column : {0.36, 0.9})
        for (const bool table : {true, false})
            for (const int64_t front : {int64_t{0}, kSize / 3}) {
                const LiveModel model = model_of(per_column, table);
                const std::vector<double> shares = slab_shares(model, 6, front);
                double sum = 0;
                for (int s = 0; s < 6; ++s) sum += shares[s] * static_cast<double>(kSize * (s + 1) / 6 - kSize * s / 6);
                EXPECT_NEAR(sum / kSize, expected_live_fraction(model, front, 0), 1e-9)
                    << per_column << " a column, table " << table << ", from row " << front;
            }
}

TEST(LiveModel, ARelatedPairsCornerIsInItsLeftSlabs) {
    // The 16M related pair: 0.36 a column, a gain table (of 10-mers, rate 0.6). Its corner is
    // about 0.43 of the rows and columns: the left half's slabs are dense, the right ones not.
    const std::vector<double> related = slab_shares(model_of(0.36, true), 6, 0);
    for (size_t s = 0; s < related.size(); ++s) EXPECT_TRUE(s < 3 ? related[s] > 0.25 : related[s] < 0.2) << "slab " << s;
    // The 8M mutated pair scores 0.73 a column: a band in every slab.
    for (const double share : slab_shares(model_of(0.73, true), 6, 0)) EXPECT_LT(share, 0.15);
    // Without a table the plain gain keeps a corner of (1 - 0.36)^2 of the matrix.
    EXPECT_NEAR(expected_live_fraction(model_of(0.36, false), 0, 0), 0.64 * 0.64, 0.05);
}

}  // namespace
}  // namespace chromalign
