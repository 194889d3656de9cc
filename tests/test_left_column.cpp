//! @file LeftColumn: a slab's left edge rows, whatever lengths they arrive in.
#include <gtest/gtest.h>

#include <vector>

#include "engine/error.hpp"
#include "engine/orchestration/left_column.hpp"

namespace chromalign {
namespace {

std::vector<int32_t> range(int32_t from, int32_t to) {
    std::vector<int32_t> v;
    for (int32_t x = from; x <= to; ++x) v.push_back(x);
    return v;
}

TEST(LeftColumn, BandsTakeRowsWhateverMessagesCarried) {
    // Rows 11.. arrive as 3 then 5 then 2; bands of 4 rows take them across the cuts.
    LeftColumn c;
    c.reset(10, 100);
    c.append(10, range(11, 13), range(-89, -87));  // E = H - 100
    c.append(13, range(14, 18), range(-86, -82));
    EXPECT_TRUE(c.has(14, 4));
    EXPECT_FALSE(c.has(16, 4));
    c.append(18, range(19, 20), range(-81, -80));
    ASSERT_TRUE(c.has(10, 4));
    int32_t h[4], e[4];
    EXPECT_EQ(c.copy(10, 4, h, e), 100) << "the corner above the first band";
    EXPECT_EQ(std::vector<int32_t>(h, h + 4), range(11, 14));
    EXPECT_EQ(e[3], 14 - 100);
    c.forget_before(14);
    EXPECT_FALSE(c.has(10, 4));
    EXPECT_EQ(c.copy(14, 4, h, e), 14) << "H of the last row forgotten stays as the corner";
    EXPECT_EQ(std::vector<int32_t>(h, h + 4), range(15, 18));
    std::vector<int32_t> hs, es;
    c.rows(16, 20, hs, es);
    EXPECT_EQ(hs, range(17, 20));
}

TEST(LeftColumn, RowsSentAgainAreSkippedAndAGapThrows) {
    // A piece kept rows 11..15; the neighbour resumed at row 12 sends 13.. again.
    LeftColumn c;
    c.reset(10, 1, range(11, 15), range(11, 15));
    c.append(12, {0, 0, 0, 16, 17}, {0, 0, 0, 16, 17});
    EXPECT_EQ(c.end(), 17);
    std::vector<int32_t> hs, es;
    c.rows(10, 17, hs, es);
    EXPECT_EQ(hs, range(11, 17)) << "the rows held are kept";
    EXPECT_THROW(c.append(18, {1}, {1}), Error) << "row 18 never came";
    c.forget_before(99);  // at most what is held
    EXPECT_EQ(c.first(), 17);
    EXPECT_EQ(c.h_at(17), 17);
}

}  // namespace
}  // namespace chromalign
