//! @file A diagonal's launch in pieces (engine/scheduling/launch_pieces.hpp): every block runs
//! once, each piece fits, and the order keeps every wait of a long phase on a neighbour that
//! is resident with it or already done, over random windows and grids.
#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <vector>

#include "engine/scheduling/launch_pieces.hpp"
#include "tests/test_support.hpp"

namespace chromalign {
namespace {

/// A window of up to LaunchMap::kWindowRuns random runs of a grid of `blocks` columns.
LaunchMap random_window(int32_t blocks, std::mt19937_64& rng) {
    std::vector<int32_t> cuts;
    const int runs = 1 + static_cast<int>(rng() % LaunchMap::kWindowRuns);
    for (int k = 0; k < 2 * runs; ++k) cuts.push_back(static_cast<int32_t>(rng() % (blocks + 1)));
    if (rng() % 3 == 0) cuts[0] = 0;  // often from block 0, often to the last block
    if (rng() % 3 == 0) cuts[1] = blocks;
    std::sort(cuts.begin(), cuts.end());
    LaunchMap window;
    int r = 0;
    for (int k = 0; k + 1 < 2 * runs; k += 2)
        if (cuts[k + 1] > cuts[k] && (r == 0 || cuts[k] > window.first[r - 1] + window.count[r - 1])) {
            window.first[r] = cuts[k];
            window.count[r++] = cuts[k + 1] - cuts[k];
        }
    return window;
}

/// Which piece runs block b's own band (main) and which runs block 0's delegated cells.
struct Placement {
    std::vector<int> main;  ///< per block column: its piece, -1 when not in the window
    int wrap = -1;          ///< the piece of block 0's delegated cells
};

Placement place(const std::vector<LaunchMap>& pieces, int32_t blocks) {
    Placement at;
    at.main.assign(static_cast<size_t>(blocks), -1);
    for (size_t k = 0; k < pieces.size(); ++k) {
        const LaunchMap& p = pieces[k];
        for (int32_t x = 0; x < p.blocks(); ++x) {
            const int32_t b = p.column(x);
            const bool main = b != 0 || p.zero != ZeroPart::kWrapOnly;
            const bool wrap = b == 0 && p.zero != ZeroPart::kBandOnly;
            if (main) {
                EXPECT_EQ(at.main[static_cast<size_t>(b)], -1) << "block " << b << " runs twice";
                at.main[static_cast<size_t>(b)] = static_cast<int>(k);
            }
            if (wrap) {
                EXPECT_EQ(at.wrap, -1) << "the wrap runs twice";
                at.wrap = static_cast<int>(k);
            }
        }
    }
    return at;
}

TEST(LaunchPieces, EveryBlockOnceEachPieceFitsAndEveryWaitIsOnAResidentOrDoneNeighbour) {
    const uint64_t seed = test::seed() + 61;
    std::mt19937_64 rng(seed);
    int split = 0, several = 0;
    for (int trial = 0; trial < 20000; ++trial) {
        const int32_t blocks = 1 + static_cast<int32_t>(rng() % (trial % 2 ? 40 : 3000));
        const int32_t most = 1 + static_cast<int32_t>(rng() % std::max(1, blocks));
        const LaunchMap window = random_window(blocks, rng);
        const std::vector<LaunchMap> pieces = launch_pieces(window, blocks, most);
        ASSERT_FALSE(pieces.empty());
        several += pieces.size() > 1;
        for (size_t k = 0; k < pieces.size(); ++k) {
            const LaunchMap& p = pieces[k];
            ASSERT_LE(p.blocks(), most) << "piece " << k << ", seed " << seed;
            for (int r = 1; r < LaunchMap::kRanges; ++r) {
                if (p.count[r] > 0) {
                    ASSERT_GE(p.first[r], p.first[r - 1] + p.count[r - 1]) << "runs out of order";
                }
            }
            split += p.zero == ZeroPart::kWrapOnly;
        }
        const Placement at = place(pieces, blocks);
        for (int32_t b = 0; b < blocks; ++b)
            ASSERT_EQ(at.main[static_cast<size_t>(b)] >= 0, window.has(b)) << "block " << b << ", seed " << seed;
        ASSERT_EQ(at.wrap >= 0, window.has(0));
        // Pieces run right to left: going left, a block's piece never comes earlier.
        int latest = 0;
        for (int32_t b = blocks - 1; b >= 0; --b) {
            const int k = at.main[static_cast<size_t>(b)];
            if (k < 0) continue;
            ASSERT_GE(k, latest) << "block " << b;
            latest = k;
        }
        // The long phase of b waits when its launch holds its right neighbour (whose short
        // phase, the wrap for the last block, must then run in that same launch), and reads
        // without waiting otherwise (which needs the neighbour's piece to have ended).
        for (int32_t b = 0; b < blocks; ++b) {
            const int k = at.main[static_cast<size_t>(b)];
            if (k < 0) continue;
            const int32_t right = b + 1 == blocks ? 0 : b + 1;
            const int writer = right == 0 ? at.wrap : at.main[static_cast<size_t>(right)];
            if (writer < 0) continue;  // left out: dead since an earlier diagonal
            if (pieces[static_cast<size_t>(k)].has(right)) {
                ASSERT_EQ(writer, k) << "block " << b << " waits on a part of " << right << " not in its launch";
            } else {
                ASSERT_LT(writer, k) << "block " << b << " reads block " << right << "'s columns before they are "
                                     << "written (" << blocks << " blocks, at most " << most << ", seed " << seed << ")";
            }
        }
    }
    EXPECT_GT(several, 1000);
    EXPECT_GT(split, 100) << "block 0 was hardly ever split";
}

TEST(LaunchPieces, AWindowThatFitsIsOneLaunch) {
    const LaunchMap window = LaunchMap::all(0, 99);
    const std::vector<LaunchMap> pieces = launch_pieces(window, 100, 100);
    ASSERT_EQ(pieces.size(), 1u);
    EXPECT_EQ(pieces[0].zero, ZeroPart::kBoth);
    EXPECT_EQ(pieces[0].blocks(), 100);
    const std::vector<LaunchMap> four = launch_pieces(window, 100, 25);
    ASSERT_EQ(four.size(), 5u) << "24 blocks beside the wrap, then 25, 25, 25 and 1";
    EXPECT_EQ(four.front().zero, ZeroPart::kWrapOnly);
    EXPECT_EQ(four.back().zero, ZeroPart::kBandOnly);
    EXPECT_EQ(four.back().first[0], 0);
}

}  // namespace
}  // namespace chromalign
