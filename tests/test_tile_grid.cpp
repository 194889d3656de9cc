//! @file The tile grid covers the matrix and keeps the short/long phase requirement C >= 2T.
#include <gtest/gtest.h>

#include "engine/error.hpp"
#include "engine/tiling/tile_grid.hpp"

namespace chromalign {
namespace {

TEST(TileGrid, CoversTheMatrixAndKeepsTheMinimumSize) {
    for (const int64_t m : {1, 31, 32, 33, 255, 256, 257, 100000, 8000000})
        for (const int64_t n : {1, 63, 64, 65, 1000, 4224 * 64, 8000000})
            for (const int alpha : {4, 8, 16})
                for (const int max_blocks : {1, 3, 2112}) {
                    const TileGrid g = make_tile_grid(m, n, 32, alpha, max_blocks);
                    SCOPED_TRACE(g.describe() + " m=" + std::to_string(m) + " n=" + std::to_string(n));
                    EXPECT_GE(g.padded_rows(), m);
                    EXPECT_LT(g.padded_rows() - m, g.rows_per_band());
                    EXPECT_GE(g.padded_cols(), n);
                    EXPECT_GE(g.block_cols, 2 * 32);
                    EXPECT_EQ(g.block_cols % kColumnQuantum, 0);
                    EXPECT_GE(g.blocks, 1);
                    EXPECT_LE(g.blocks, max_blocks);
                    EXPECT_EQ(g.diagonals(), g.bands + g.blocks);
                }
}

TEST(TileGrid, UsesAllBlocksWhenColumnsAllow) {
    const TileGrid g = make_tile_grid(8000000, 8000000, 32, 8, 2112);
    EXPECT_EQ(g.blocks, 2112);
    EXPECT_EQ(g.bands, (8000000 + 255) / 256);
    const TileGrid small = make_tile_grid(1000, 1000, 32, 8, 2112);
    EXPECT_EQ(small.blocks, 1000 / 64);
}

TEST(TileGrid, BlockRangesFollowTheDiagonal) {
    const TileGrid g = make_tile_grid(10 * 256, 5 * 64, 32, 8, 5);
    ASSERT_EQ(g.blocks, 5);
    ASSERT_EQ(g.bands, 10);
    EXPECT_EQ(g.first_block(0), 0);
    EXPECT_EQ(g.last_block(0), 0);
    EXPECT_EQ(g.last_block(7), 4);
    EXPECT_EQ(g.first_block(12), 3);
    EXPECT_FALSE(g.has_delegated_band0(4));
    EXPECT_TRUE(g.has_delegated_band0(5));
    EXPECT_TRUE(g.has_delegated_band0(14));  // the extra last diagonal
    EXPECT_GT(g.first_block(14), g.last_block(14));
    EXPECT_EQ(g.first_busy_block(3), 0);   // no delegated cells yet
    EXPECT_EQ(g.first_busy_block(12), 0);  // block 0 finishes band 7, blocks 3.. have bands
    // Fewer bands than blocks: diagonal 3 has no delegated cells and no band for blocks 0, 1.
    const TileGrid flat = make_tile_grid(2 * 256, 5 * 64, 32, 8, 5);
    ASSERT_EQ(flat.bands, 2);
    EXPECT_EQ(flat.first_busy_block(3), 2);
}

TEST(TileGrid, RejectsEmptyAndHugeInputs) {
    EXPECT_THROW(make_tile_grid(0, 10, 32, 8, 4), Error);
    EXPECT_THROW(make_tile_grid(10, 0, 32, 8, 4), Error);
    EXPECT_THROW(make_tile_grid(int64_t{3} << 30, 10, 32, 8, 4), Error);
}

}  // namespace
}  // namespace chromalign
