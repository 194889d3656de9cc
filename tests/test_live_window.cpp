//! @file The scheduler's live windows (engine/scheduling/live_window.hpp): the corner against a
//! brute force of the prune rule, and the invariant of a compact run simulated over a grid's
//! buses, with runs decided live at random wherever their inputs allow it.
#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <vector>

#include "engine/scheduling/live_window.hpp"
#include "tests/test_support.hpp"

namespace chromalign {
namespace {

/// The rule of a pruned run of grid g with the largest substitution score `best`.
PruneRule rule_for(const TileGrid& g, int32_t best) { return PruneRule{true, best, g.m, g.n}; }

/// Whether block b's run in diagonal z is live with every input dead, as prune_block_runs
/// decides it: in_max = (T-1) * best for a band >= 1.
bool corner_brute(const TileGrid& g, const PruneRule& rule, int64_t z, int64_t b, int32_t G) {
    const int64_t col0 = std::max<int64_t>(0, b * g.block_cols - (g.threads - 1));
    return !rule.dead((g.threads - 1) * rule.best_score, (z - b) * g.rows_per_band(), col0, G);
}

TEST(LiveWindow, TheCornerIsTheRulesOwn) {
    std::mt19937_64 rng(test::seed() + 41);
    for (int trial = 0; trial < 300; ++trial) {
        const int64_t m = 1 + rng() % 200000, n = 1 + rng() % 200000;
        const TileGrid g = make_tile_grid(m, n, 32, 4 << (rng() % 3), 1 + static_cast<int32_t>(rng() % 300));
        const PruneRule rule = rule_for(g, 1 + static_cast<int32_t>(rng() % 5));
        const int32_t G = static_cast<int32_t>(rng() % (2 * std::min(m, n) * rule.best_score + 100));
        const int64_t z = static_cast<int64_t>(rng() % static_cast<uint64_t>(g.diagonals()));
        const BlockSpan span = corner_blocks(g, rule, z, G);
        SCOPED_TRACE(g.describe() + " z=" + std::to_string(z) + " G=" + std::to_string(G) +
                     ", seed " + std::to_string(test::seed()));
        for (int64_t b = std::max<int64_t>(1, g.first_block(z)); b <= std::min(g.last_block(z), z - 1); ++b)
            EXPECT_EQ(corner_brute(g, rule, z, b, G), b >= span.first && b <= span.last) << "block " << b;
    }
}

/// A compact run over the buses: which outputs hold a live state. vbus[k][s] is slot s of
/// buffer k (written in diagonals of parity k by block s-1, or by the last block for slot 0),
/// bus[b] the bus columns block b writes.
struct Buses {
    std::vector<char> vbus[2], bus;
    explicit Buses(int64_t blocks) : bus(static_cast<size_t>(blocks), 0) {
        // Never written: not the dead state (zeroed memory is not H = 0, E = F = -inf).
        vbus[0].assign(static_cast<size_t>(blocks), 1);
        vbus[1].assign(static_cast<size_t>(blocks), 1);
    }
};

/// Simulates a pruned run of g whose live runs stay near the main diagonal of the matrix (or
/// anywhere, with `wide`), launching the window of every diagonal d from a random one of
/// d-9..d-2, and checks that each block left out would have been dead and hands on dead
/// outputs. G starts at g0 (random when negative). Returns the launched blocks / the blocks
/// with cells.
double simulate(const TileGrid& g, int32_t best, std::mt19937_64& rng, bool wide, int32_t g0 = -1) {
    const PruneRule rule = rule_for(g, best);
    const int64_t B = g.blocks, rows = g.rows_per_band();
    Buses buses(B);
    std::vector<BlockSpan> live(static_cast<size_t>(g.diagonals()));
    std::vector<int32_t> G(static_cast<size_t>(g.diagonals()));
    int32_t device_g = g0 >= 0 ? g0 : static_cast<int32_t>(rng() % (std::min(g.m, g.n) * best / 2 + 1));
    int64_t launched = 0, with_cells = 0;
    for (int64_t d = 0; d < g.diagonals(); ++d) {
        G[d] = device_g;  // what the host passes with d: at most the device's G from d on
        device_g += static_cast<int32_t>(rng() % 3);
        LaunchMap map = LaunchMap::all(g.first_busy_block(d), g.last_block(d));
        if (d >= 10) {
            const int64_t known = d - 2 - static_cast<int64_t>(rng() % 8);
            map = live_window(g, rule, d, LiveSpan{known, live[known]}, G[known]);
        }
        // Decisions of diagonal d; the outputs are written once every block has read its inputs.
        std::vector<std::pair<int64_t, char>> writes;
        BlockSpan decided;
        for (int64_t b = g.first_block(d); b <= g.last_block(d); ++b) {
            const int64_t band = d - b;
            // Block 0 reads the slab's left edge and band 0 the starting row: anything. The
            // rest reads what blocks b-1 and b handed on in d-1.
            const char in_live = b == 0 || band == 0 || buses.vbus[(d - 1) & 1][b] || buses.bus[b] ||
                                 buses.vbus[(d - 1) & 1][(b + 1) % B];
            const bool near = wide || std::llabs(band * rows - b * g.block_cols) < 4 * rows;
            const bool is_live = corner_brute(g, rule, d, b, device_g) || (in_live && near && rng() % 4 != 0);
            ++with_cells;
            if (!map.has(static_cast<int32_t>(b))) {
                const char* wrong = in_live ? "has a live input"
                                    : is_live ? "would be live"
                                    : buses.bus[b] || buses.vbus[d & 1][(b + 1) % B] ? "holds live outputs"
                                                                                      : nullptr;
                if (wrong) {
                    ADD_FAILURE() << g.describe() << ": block " << b << " left out of diagonal " << d << " " << wrong
                                  << ", seed " << test::seed();
                    return 1;
                }
                continue;
            }
            ++launched;
            writes.push_back({b, is_live});
            if (is_live) decided = BlockSpan{decided.empty() ? b : decided.first, b};
        }
        for (const auto& [b, is_live] : writes) {
            buses.bus[b] = is_live;
            buses.vbus[d & 1][(b + 1) % B] = is_live;
        }
        live[d] = decided;
    }
    return static_cast<double>(launched) / static_cast<double>(with_cells);
}

TEST(LiveWindow, BlockCellsAreTheSumOfEachBlocks) {
    std::mt19937_64 rng(test::seed() + 43);
    for (int trial = 0; trial < 300; ++trial) {
        const int64_t m = 1 + rng() % 20000, n = 1 + rng() % 20000;
        const TileGrid g = make_tile_grid(m, n, 32, trial % 2 ? 4 : 16, 1 + static_cast<int32_t>(rng() % 300));
        const int64_t rows = g.rows_per_band();
        for (int k = 0; k < 20; ++k) {
            const int64_t d = static_cast<int64_t>(rng() % static_cast<uint64_t>(g.diagonals()));
            const int64_t first = static_cast<int64_t>(rng() % (g.blocks + 2)) - 1;
            const int64_t last = first + static_cast<int64_t>(rng() % (g.blocks + 1)) - 1;
            int64_t want = 0;
            for (int64_t b = std::max<int64_t>(first, 0); b <= std::min<int64_t>(last, g.blocks - 1); ++b)
                if (d - b >= 0 && d - b < g.bands)
                    want += std::clamp<int64_t>(m - (d - b) * rows, 0, rows) *
                            std::clamp<int64_t>(n - b * g.block_cols, 0, g.block_cols);
            ASSERT_EQ(block_cells(g, d, first, last), want)
                << g.describe() << ", diagonal " << d << ", blocks " << first << ".." << last;
        }
    }
}

TEST(LiveWindow, ACompactRunLeavesOutOnlyDeadBlocksWithDeadOutputs) {
    std::mt19937_64 rng(test::seed() + 42);
    for (int trial = 0; trial < 40; ++trial) {
        const int64_t m = 2000 + rng() % 60000, n = 2000 + rng() % 60000;
        const TileGrid g = make_tile_grid(m, n, 32, 4, 8 + static_cast<int32_t>(rng() % 120));
        simulate(g, 1 + static_cast<int32_t>(rng() % 3), rng, trial % 4 == 0);
        if (HasFatalFailure()) return;
    }
}

TEST(LiveWindow, ANarrowLiveBandLaunchesFewBlocks) {
    std::mt19937_64 rng(7);
    // A square matrix whose G is near the optimum: only the corner and the diagonal stay live.
    const TileGrid g = make_tile_grid(200000, 200000, 32, 4, 400);
    const double share = simulate(g, 1, rng, false, 180000);
    EXPECT_LT(share, 0.25) << g.describe();
}

}  // namespace
}  // namespace chromalign
