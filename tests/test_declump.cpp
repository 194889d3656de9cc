//! @file The K best non-intersecting alignments in linear memory (engine/declump/) against the
//! textbook Waterman-Eggert oracle (kernels/reference/waterman_eggert.hpp): the same alignments,
//! byte for byte, on every kind of pair, every scoring and grids of every shape, with tiles
//! held whole or cut again for the traceback; and after the first pass, only what changes is
//! computed again.
#include <gtest/gtest.h>
#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "engine/declump/declump.hpp"
#include "engine/declump/grid_rows.hpp"
#include "engine/declump/pair_alignments.hpp"
#include "engine/declump/tile_lanes.hpp"
#include "engine/declump/tile_split.hpp"
#include "engine/declump/walks_ahead.hpp"
#include "engine/error.hpp"
#include "engine/job/strand.hpp"
#include "kernels/reference/traceback.hpp"
#include "kernels/reference/waterman_eggert.hpp"
#include "tests/pruning_support.hpp"
#include "tests/test_support.hpp"
#include "tests/whole_pass_support.hpp"
#include "tools/mutate.hpp"

namespace chromalign {
namespace {

std::string describe(const Alignment& a) {
    return std::to_string(a.score) + " " + std::to_string(a.s0_start) + "-" + std::to_string(a.s0_end) + " x " +
           std::to_string(a.s1_start) + "-" + std::to_string(a.s1_end) + " " + a.cigar();
}

/// best_alignments equals the oracle, alignment by alignment.
void expect_as_oracle(const Sequence& s0, const Sequence& s1, const Scoring& scoring, int count, int32_t min_score,
                      const DeclumpOptions& options, const std::string& what) {
    const std::vector<Alignment> want = reference_alignments(s0, s1, scoring, count, min_score);
    const std::vector<Alignment> got = best_alignments(s0, s1, scoring, count, min_score, options);
    ASSERT_EQ(got.size(), want.size()) << what;
    for (size_t k = 0; k < want.size(); ++k)
        ASSERT_EQ(describe(got[k]), describe(want[k])) << what << ": alignment " << k + 1;
}

/// Tiles of rows x cols; threads on every antidiagonal of at least two tiles, so that the
/// tests run the threaded path whatever the machine; alignment 1 traced from every band's top.
DeclumpOptions options(int64_t rows, int64_t cols, int64_t leaf = int64_t{1} << 22, int64_t split = 8) {
    DeclumpOptions o;
    o.trace_row_spacing = 1;
    o.threads = 3;
    o.cells_per_thread = 1;
    o.tile_rows = rows;
    o.tile_cols = cols;
    o.walk.leaf_cells = leaf;
    o.walk.split = split;
    o.walk.least_side = 1;  // split x split, however small the tiles: the deepest grids of grids
    return o;
}

// The lanes, and a tile cut into sub-tiles on threads of its own (tile_split.hpp).
TEST(Declump, TheLanesAndTheSplitTileComputeATileAsTheRowByRowDpDoes) {
    const uint64_t seed = test::seed() + 85;
    std::mt19937_64 rng(seed);
    const Scoring scorings[] = {{1, -3, 5, 2}, {2, -3, 7, 2}, {1, -1, 2, 1}, {5, -4, 10, 1}, test::hoxd70()};
    for (int trial = 0; trial < 3000; ++trial) {
        const Scoring& sc = scorings[trial % 5];
        const int64_t rows = 1 + static_cast<int64_t>(rng() % (trial % 3 == 0 ? 40 : 12));
        const int64_t cols = 1 + static_cast<int64_t>(rng() % (trial % 2 == 0 ? 50 : 10));
        auto [s0, s1] = trial % 4 == 0 ? test::random_pair(rows + 5, cols + 5, rng) : test::mutated_pair(rows + 5, cols + 5, rng, 0.05);
        if (s1.length() < cols + 5) continue;
        const Rect r{static_cast<int64_t>(rng() % 5), 0, static_cast<int64_t>(rng() % 5), 0};
        const Rect rect{r.top, r.top + rows, r.left, r.left + cols};
        // Edges as a real matrix could hold them: H >= 0, E and F >= H - open or no gap at all.
        auto value = [&](bool gap) -> int32_t {
            if (gap && rng() % 4 == 0) return kNoGap;
            return gap ? static_cast<int32_t>(rng() % 60) - 20 : static_cast<int32_t>(rng() % 50);
        };
        std::vector<int32_t> top_h(static_cast<size_t>(cols + 1)), top_f(top_h.size()), left_h(static_cast<size_t>(rows)),
            left_e(left_h.size());
        for (size_t k = 0; k < top_h.size(); ++k) top_h[k] = value(false), top_f[k] = value(true);
        for (size_t k = 0; k < left_h.size(); ++k) left_h[k] = value(false), left_e[k] = value(true);
        std::vector<std::pair<int64_t, int64_t>> bars;
        for (int64_t i = rect.top + 1; i <= rect.bottom; ++i)
            for (int64_t j = rect.left + 1; j <= rect.right; ++j)
                if (rng() % 5 == 0) bars.emplace_back(i, j);
        const TileEdges edges{top_h.data(), top_f.data(), left_h.data(), left_e.data()};
        std::vector<int32_t> want(static_cast<size_t>(2 * cols + 2 * rows)), got(want.size(), -7);
        auto sink = [&](std::vector<int32_t>& v) {
            return TileSink{v.data(), v.data() + cols, v.data() + 2 * cols, v.data() + 2 * cols + rows, nullptr};
        };
        const AlignmentEnd a = tile_dp(s0, s1, sc, rect, edges, bars, sink(want));
        const AlignmentEnd b = tile_dp_lanes(s0, s1, sc, rect, edges, bars, sink(got));
        ASSERT_EQ(want, got) << "trial " << trial << ": " << rows << " x " << cols << ", seed " << seed;
        ASSERT_EQ(a, b) << "trial " << trial << ": " << rows << " x " << cols << ", best " << a.score << " at " << a.s0_end
                        << ", " << a.s1_end << " against " << b.score << " at " << b.s0_end << ", " << b.s1_end
                        << ", seed " << seed;
        const int64_t split = 1 + trial % 7;
        const int threads = 1 + trial % 4;
        std::vector<int32_t> in_parts(want.size(), -7);
        const AlignmentEnd c = tile_dp_split(s0, s1, sc, rect, edges, bars, sink(in_parts), split, threads);
        ASSERT_EQ(want, in_parts) << "trial " << trial << ": " << rows << " x " << cols << " in " << split << " x "
                                  << split << " on " << threads << " threads, seed " << seed;
        ASSERT_EQ(a, c) << "trial " << trial << ": " << rows << " x " << cols << " in " << split << " x " << split
                        << ", seed " << seed;
    }
}

TEST(Declump, EveryKindOfPairAndScoringGivesTheOraclesAlignments) {
    const uint64_t seed = test::seed() + 81;
    std::mt19937_64 rng(seed);
    const DeclumpOptions grids[] = {options(64, 64), options(37, 101), options(1, 300), options(300, 1),
                                    options(128, 96, 64, 2), options(200, 200, 500, 3)};
    int trial = 0;
    for (const test::PruningCase& c : test::pruning_cases(rng, 700)) {
        const DeclumpOptions& grid = grids[trial++ % 6];
        expect_as_oracle(c.s0, c.s1, c.scoring, 12, 1, grid,
                         c.what + ", tiles " + std::to_string(grid.tile_rows) + " x " + std::to_string(grid.tile_cols) +
                             ", leaf " + std::to_string(grid.walk.leaf_cells) + ", seed " + std::to_string(seed));
    }
}

TEST(Declump, EdgeSizesOfTilesGiveTheOraclesAlignments) {
    const uint64_t seed = test::seed() + 82;
    std::mt19937_64 rng(seed);
    for (const test::PruningCase& c : test::edge_cases(rng, {16}, 130))
        expect_as_oracle(c.s0, c.s1, c.scoring, 6, 1, options(16, 64, 40, 2), c.what + ", seed " + std::to_string(seed));
}

TEST(Declump, TieRichPairsAndTinyTilesGiveTheOraclesAlignments) {
    const uint64_t seed = test::seed() + 83;
    std::mt19937_64 rng(seed);
    const Scoring scorings[] = {{1, -3, 5, 2}, {2, -3, 7, 2}, {1, -1, 2, 1}, {5, -4, 10, 1}};
    for (int trial = 0; trial < 150; ++trial) {
        auto text = [&](int64_t length) {
            std::string t(static_cast<size_t>(length), 'A');
            for (char& ch : t) ch = "AC"[rng() % 2];
            return t;
        };
        const Sequence s0 = make_sequence("a", text(1 + static_cast<int64_t>(rng() % 60)));
        const Sequence s1 = make_sequence("b", text(1 + static_cast<int64_t>(rng() % 60)));
        const int64_t rows = 1 + static_cast<int64_t>(rng() % 9), cols = 1 + static_cast<int64_t>(rng() % 9);
        expect_as_oracle(s0, s1, scorings[trial % 4], 10, 1 + trial % 3,
                         options(rows, cols, 1 + static_cast<int64_t>(rng() % 30), 2 + trial % 3),
                         "trial " + std::to_string(trial) + ", seed " + std::to_string(seed));
    }
}

// A whole pass leaves each tile's highest H without its cell: the search finds the cells of the
// tiles that tie for the best (EdgeGrid::best), which the tie rule must then order as the oracle.
// Where the device keeps the pass's edges, it computes the tiles again from them, and the edges
// it changes are brought home as the walks read them.
TEST(Declump, PeaksOfAWholePassGiveTheOraclesAlignments) {
    for (const bool keeps : {true, false}) {
        const uint64_t seed = test::seed() + 84;
        std::mt19937_64 rng(seed);
        test::FullMatrixWaves waves(1);
        waves.keeps = keeps;
        const int64_t shapes[][2] = {{64, 64}, {37, 101}, {1, 300}, {128, 7}, {200, 200}};
        int trial = 0, searches = 0;
        const std::string kept = keeps ? "kept edges, " : "edges home, ";
        for (const test::PruningCase& c : test::pruning_cases(rng, 500)) {
            // Every other search walks tiles cut into parts from the peaks' cells.
            const int64_t leaf = trial % 2 == 0 ? int64_t{1} << 22 : 1 + static_cast<int64_t>(rng() % 40);
            DeclumpOptions o = options(shapes[trial % 5][0], shapes[trial % 5][1], leaf, 2 + trial % 3);
            ++trial;
            o.device = &waves;
            searches += c.s0.length() > 0 && c.s1.length() > 0;
            expect_as_oracle(c.s0, c.s1, c.scoring, 12, 1, o, kept + c.what + ", seed " + std::to_string(seed));
        }
        const Scoring scorings[] = {{1, -3, 5, 2}, {2, -3, 7, 2}, {1, -1, 2, 1}};
        for (int k = 0; k < 60; ++k, ++searches) {  // two letters: peaks tie across many tiles
            std::string a(static_cast<size_t>(20 + rng() % 80), 'A'), b(static_cast<size_t>(20 + rng() % 80), 'A');
            for (char& ch : a) ch = "AC"[rng() % 2];
            for (char& ch : b) ch = "AC"[rng() % 2];
            DeclumpOptions o = options(1 + static_cast<int64_t>(rng() % 9), 1 + static_cast<int64_t>(rng() % 9));
            o.device = &waves;
            expect_as_oracle(make_sequence("a", a), make_sequence("b", b), scorings[k % 3], 10, 1, o,
                             kept + "two letters " + std::to_string(k) + ", seed " + std::to_string(seed));
        }
        EXPECT_EQ(waves.passes, searches);  // every search started from the whole pass
        if (keeps) {
            EXPECT_GT(waves.kept_tiles, 0);
            EXPECT_GT(waves.fetched, 0);
        } else {
            EXPECT_EQ(waves.kept_tiles, 0);
        }
    }
}

TEST(Declump, AfterTheFirstPassOnlyTheTilesAnAlignmentChangesAreComputedAgain) {
    // S1 holds 8 mutated copies of a 300-base unit among random bases; S0 holds the unit. Each
    // alignment changes the tiles around one copy, not the matrix.
    const uint64_t seed = test::seed() + 84;
    std::mt19937_64 rng(seed);
    const std::string text = gen::random_dna(300, rng);
    std::string target;
    for (int k = 0; k < 8; ++k) {
        std::string copy = text;
        for (int x = 0; x < 6; ++x) copy[rng() % copy.size()] = "ACGT"[rng() % 4];
        target += gen::random_dna(1500, rng) + copy;
    }
    const Sequence unit = make_sequence("unit", text), s1 = make_sequence("copies", target);
    const Scoring scoring(1, -3, 5, 2);
    DeclumpCounts counts;
    const std::vector<Alignment> got = best_alignments(unit, s1, scoring, 8, 100, options(64, 64), &counts);
    const std::vector<Alignment> want = reference_alignments(unit, s1, scoring, 8, 100);
    ASSERT_EQ(got.size(), want.size());
    for (size_t k = 0; k < want.size(); ++k) EXPECT_EQ(describe(got[k]), describe(want[k])) << "seed " << seed;
    EXPECT_EQ(counts.first_cells, unit.length() * s1.length());
    // The textbook way computes the whole matrix once per alignment.
    EXPECT_LT(counts.recomputed_cells, counts.first_cells / 4) << "seed " << seed;
    EXPECT_GT(counts.recomputed_tiles, 0);
}

// A long walk takes the tiles ahead of it computed, and walked from a guessed entry, on other
// threads (tiles_ahead.hpp): the alignments are the oracle's, and those tiles are taken. S1
// holds two copies of S0: alignment 1 is traced from the grid's rows, alignment 2 as long is
// walked.
TEST(Declump, TilesComputedAndWalkedAheadGiveTheOraclesAlignments) {
    const uint64_t seed = test::seed() + 87;
    std::mt19937_64 rng(seed);
    // Cheap gaps (the last scoring) leave many walks in E or F where they cross a tile's edge.
    const Scoring scorings[] = {{1, -3, 5, 2}, {2, -3, 7, 2}, {1, -3, 5, 2}, {1, -1, 2, 1}, {5, -4, 3, 1}, {1, -1, 2, 1}, {2, -1, 3, 1}};
    for (int trial = 0; trial < 7; ++trial) {
        auto [s0, s1] = test::mutated_pair(2000 + 37 * trial, 2100, rng, trial == 2 ? 0.01 : 0.0);
        const std::vector<uint8_t> copy = s1.codes;
        const Sequence spacer = make_sequence("spacer", gen::random_dna(300, rng));
        s1.codes.insert(s1.codes.end(), spacer.codes.begin(), spacer.codes.end());
        for (size_t k = 0; k < copy.size(); ++k) s1.codes.push_back(k % 41 == 0 ? (copy[k] + 1) % 4 : copy[k]);
        const Scoring& scoring = scorings[trial];
        // Tiles of 128 cut 4 x 4 into leaves of 32 x 32: the second copy's alignment crosses some 30.
        DeclumpOptions ahead = options(128, 128, 1024, 4), alone = ahead;
        ahead.walk.wait_for_guessed = true;  // the counts below follow from the guesses alone
        alone.walk.ahead = 0;
        const std::string what = "trial " + std::to_string(trial) + ", seed " + std::to_string(seed);
        DeclumpCounts with, without;
        const std::vector<Alignment> got = best_alignments(s0, s1, scoring, 6, 20, ahead, &with);
        const std::vector<Alignment> want = reference_alignments(s0, s1, scoring, 6, 20);
        ASSERT_EQ(got.size(), want.size()) << what;
        for (size_t k = 0; k < want.size(); ++k) ASSERT_EQ(describe(got[k]), describe(want[k])) << what << ": alignment " << k + 1;
        const std::vector<Alignment> plain = best_alignments(s0, s1, scoring, 6, 20, alone, &without);
        ASSERT_EQ(plain.size(), want.size()) << what;
        EXPECT_EQ(without.walk.tiles_ahead, 0) << what;
        EXPECT_GT(with.walk.tiles_ahead, 10) << what;
        EXPECT_GT(with.walk.trails_met, 0) << what;
        DeclumpCounts again;
        best_alignments(s0, s1, scoring, 6, 20, ahead, &again);
        EXPECT_EQ(again.walk.tiles_ahead, with.walk.tiles_ahead) << what;
        EXPECT_EQ(again.walk.trails_met, with.walk.trails_met) << what;
        // Helpers start only once a walk has crossed ahead_after tiles: from the second tile
        // on they take more, and a walk that never crosses that many takes none.
        DeclumpOptions early = ahead, never = ahead;
        early.walk.ahead_after = 1;
        never.walk.ahead_after = int64_t{1} << 40;
        DeclumpCounts from_second, none;
        ASSERT_EQ(best_alignments(s0, s1, scoring, 6, 20, early, &from_second).size(), want.size()) << what;
        ASSERT_EQ(best_alignments(s0, s1, scoring, 6, 20, never, &none).size(), want.size()) << what;
        EXPECT_GT(from_second.walk.tiles_ahead, with.walk.tiles_ahead) << what;
        EXPECT_EQ(none.walk.tiles_ahead, 0) << what;
        std::printf("[ ahead    ] %s: %lld tiles taken computed ahead, %lld walked ahead\n", what.c_str(),
                    static_cast<long long>(with.walk.tiles_ahead), static_cast<long long>(with.walk.trails_met));
    }
}

// Tracebacks walked ahead of their turn (walks_ahead.hpp) are taken only where nothing they read
// changed since: beside the recompute of a device that keeps the edges (the walks fetch them
// while it writes them), and after the recompute on CPU threads. Tandem copies of a unit make
// each alignment's recompute reach the next copies' walks, which must then be walked again.
TEST(Declump, WalksAheadOfTheirTurnGiveTheOraclesAlignments) {
    const uint64_t seed = test::seed() + 88;
    std::mt19937_64 rng(seed);
    for (const bool keeps : {true, false}) {
        test::FullMatrixWaves waves(1);
        waves.keeps = keeps;
        DeclumpCounts all;
        const auto search = [&](const Sequence& s0, const Sequence& s1, const Scoring& scoring, int count,
                                int32_t least, int64_t side, const std::string& what) {
            DeclumpOptions o = options(side, side);
            o.device = &waves;
            DeclumpCounts counts;
            const std::vector<Alignment> got = best_alignments(s0, s1, scoring, count, least, o, &counts);
            const std::vector<Alignment> want = reference_alignments(s0, s1, scoring, count, least);
            ASSERT_EQ(got.size(), want.size()) << what;
            for (size_t k = 0; k < want.size(); ++k) ASSERT_EQ(describe(got[k]), describe(want[k])) << what << ": alignment " << k + 1;
            EXPECT_LE(counts.taken_ahead, counts.walked_ahead) << what;
            all.add(counts);
        };
        const std::string kept = keeps ? "kept edges, " : "edges home, ";
        const Scoring scorings[] = {{1, -3, 5, 2}, {2, -3, 7, 2}, {1, -1, 2, 1}};
        for (int trial = 0; trial < 12; ++trial) {
            const std::string unit = gen::random_dna(60 + static_cast<int64_t>(rng() % 200), rng);
            std::string target = gen::random_dna(static_cast<int64_t>(rng() % 300), rng);
            for (int k = 0; k < 8; ++k) {
                std::string copy = unit;
                for (int x = 0; x < 4; ++x) copy[rng() % copy.size()] = "ACGT"[rng() % 4];
                target += copy + gen::random_dna(static_cast<int64_t>(rng() % (trial % 2 ? 40 : 900)), rng);
            }
            search(make_sequence("unit", unit + gen::random_dna(200, rng) + unit), make_sequence("copies", target),
                   scorings[trial % 3], 14, 10, 32 + 32 * (trial % 3),
                   kept + "tandem trial " + std::to_string(trial) + ", seed " + std::to_string(seed));
        }
        int trial = 0;
        for (const test::PruningCase& c : test::pruning_cases(rng, 400))
            search(c.s0, c.s1, c.scoring, 12, 1, 32 + 32 * (trial++ % 3), kept + c.what + ", seed " + std::to_string(seed));
        // Two letters: co-optimal paths everywhere, so an alignment may bar a pair of a walk
        // ahead whose end keeps its score through another path.
        for (int k = 0; k < 80; ++k) {
            std::string a(static_cast<size_t>(30 + rng() % 90), 'A'), b(static_cast<size_t>(30 + rng() % 90), 'A');
            for (char& ch : a) ch = "AC"[rng() % 2];
            for (char& ch : b) ch = "AC"[rng() % 2];
            search(make_sequence("a", a), make_sequence("b", b), scorings[k % 3], 16, 1,
                   2 + static_cast<int64_t>(rng() % 9), kept + "two letters " + std::to_string(k) + ", seed " + std::to_string(seed));
        }
        // Most are taken, and some walked again: both ways are run.
        EXPECT_GT(all.taken_ahead, 0) << kept << "seed " << seed;
        EXPECT_LT(all.taken_ahead, all.walk.walks) << kept << "seed " << seed;
        std::printf("[ ahead    ] %s%lld of %lld walks taken ahead of their turn (%lld walked ahead)\n", kept.c_str(),
                    static_cast<long long>(all.taken_ahead), static_cast<long long>(all.walk.walks),
                    static_cast<long long>(all.walked_ahead));
    }
}

/// Exits 0 when walks ahead asked for 300 walkers under a limit that starts only a few threads
/// take the walk of a lead all the same; 1 when not, 3 when the limit cannot be set.
[[noreturn]] void walks_ahead_under_a_memory_limit(const EdgeGrid& grid, const EdgeGrid::Lead& lead,
                                                   const Alignment& want) {
    const rlimit limit{test::mapped_bytes() + (uint64_t{100} << 20), RLIM_INFINITY};
    if (setrlimit(RLIMIT_AS, &limit) != 0) _exit(3);
    WalksAhead ahead(grid, {}, 300);
    ahead.start({lead}, BarredPairs(64));
    while (ahead.ended() == 0) std::this_thread::yield();
    const std::optional<Alignment> taken = ahead.take(lead.end);
    _exit(taken && *taken == want ? 0 : 1);
}

// A copy of BarredPairs is a view of the alignments added so far: later adds leave it as it
// was, and only the newest view adds.
TEST(Declump, ABarredPairsViewKeepsThePairsOfItsTime) {
    Alignment a, b;
    a.score = b.score = 3;
    a.s0_start = 4, a.s1_start = 9, a.s0_end = 7, a.s1_end = 12, a.runs = {{'=', 3}};
    b.s0_start = 5, b.s1_start = 2, b.s0_end = 9, b.s1_end = 5, b.runs = {{'=', 2}, {'I', 1}, {'=', 1}};
    BarredPairs pairs(2);
    pairs.add(a);
    const BarredPairs view = pairs;
    pairs.add(b);
    using Pairs = std::vector<std::pair<int64_t, int64_t>>;
    EXPECT_EQ(view.in(0, 20, 0, 20), (Pairs{{4, 9}, {5, 10}, {6, 11}}));
    EXPECT_EQ(pairs.in(0, 20, 0, 20), (Pairs{{4, 9}, {5, 2}, {5, 10}, {6, 3}, {6, 11}, {8, 4}}));
    EXPECT_EQ(view.alignments(), 1);
    EXPECT_EQ(pairs.alignments(), 2);
    BarredPairs stale = view;
    EXPECT_THROW(stale.add(b), Error);
    EXPECT_TRUE(BarredPairs().empty());
    EXPECT_FALSE(view.empty());
}

// The check at a walk's turn, on its own: a walk ahead is taken where none of the tiles it stood
// in, nor those whose edges they read, were computed again since it started; else it is dropped.
TEST(Declump, AWalkAheadIsDroppedWhereATileItReadWasComputedAgain) {
    const uint64_t seed = test::seed() + 89;
    std::mt19937_64 rng(seed);
    auto [s0, s1] = test::mutated_pair(700, 650, rng, 0.02);
    const Scoring scoring(1, -3, 5, 2);
    CpuTileWaves cpu;
    GridWorkers workers;
    workers.cpu = &cpu;
    workers.threads = 2;
    EdgeGrid grid = EdgeGrid::whole(s0, s1, scoring, 64, 48, workers);
    const BarredPairs barred(64);
    grid.compute(barred);
    const std::vector<EdgeGrid::Lead> lead = grid.leads(1, [](const EdgeGrid::Tile&) { return false; });
    ASSERT_EQ(lead.size(), 1u) << "seed " << seed;
    const AlignmentEnd end = grid.best(barred);
    ASSERT_EQ(lead[0].end, end) << "seed " << seed;
    std::vector<EdgeGrid::Tile> entered;
    const Alignment want = walk_back(grid, barred, end, {}, nullptr, &entered);
    ASSERT_GE(entered.size(), 4u) << "the alignment crosses tiles, seed " << seed;
    // Walkers the system cannot start are left out (before, a started one left unjoined ended
    // the process), and those it started walk.
    EXPECT_EXIT(walks_ahead_under_a_memory_limit(grid, lead[0], want), ::testing::ExitedWithCode(0), "")
        << "seed " << seed;
    const EdgeGrid::Tile first = entered.back();  // where it starts
    // Tiles it never reads: right of, below and below-right of where it ends, and one away.
    const EdgeGrid::Tile last = lead[0].tile;
    const EdgeGrid::Tile right{last.first, last.second + 1}, below{last.first + 1, last.second};
    const EdgeGrid::Tile aside{last.first + 1, last.second + 1};
    const EdgeGrid::Tile away{grid.bands() - 1, 0};  // below-left of the whole alignment
    for (const EdgeGrid::Tile& t : entered)  // nor the tiles whose edges `away` writes
        ASSERT_TRUE(t.first < away.first || t.second > away.second + 1) << "seed " << seed;
    // Computed again: the tile itself, or one above, left or above-left of it.
    const std::set<EdgeGrid::Tile> touching[] = {{first}, {{first.first - 1, first.second}},
                                                  {{first.first, first.second - 1}}, {{first.first - 1, first.second - 1}}};
    for (const std::set<EdgeGrid::Tile>& tiles : touching) {
        WalksAhead ahead(grid, {}, 2);
        ahead.start(lead, barred);
        EXPECT_TRUE(ahead.holds(lead[0].tile));
        while (ahead.ended() == 0) std::this_thread::yield();
        ahead.computed({away, right, below, aside});  // none it read: still held
        EXPECT_TRUE(ahead.holds(lead[0].tile));
        ahead.computed(tiles);
        EXPECT_FALSE(ahead.take(end)) << "computed again: (" << tiles.begin()->first << ", " << tiles.begin()->second
                                      << "), seed " << seed;
        EXPECT_FALSE(ahead.holds(lead[0].tile));
    }
    WalksAhead ahead(grid, {}, 2);
    ahead.start(lead, barred);
    while (ahead.ended() == 0) std::this_thread::yield();
    ahead.computed({away});
    const std::optional<Alignment> taken = ahead.take(end);
    ASSERT_TRUE(taken) << "seed " << seed;
    EXPECT_EQ(describe(*taken), describe(want)) << "seed " << seed;
    EXPECT_EQ(ahead.taken(), 1);
    // Its own tile computed again: dropped at once, its peak may be gone.
    WalksAhead dropped(grid, {}, 1);
    dropped.start(lead, barred);
    dropped.computed({lead[0].tile});
    EXPECT_FALSE(dropped.holds(lead[0].tile));
    EXPECT_FALSE(dropped.take(end));
}

// A whole grid's band tops, as a traceback's rows (grid_rows.hpp): each is the matrix's row,
// and the edge term is the largest max(0, H) + gap c up to its column, across the blocks of
// 4096 columns the rows keep maxima of.
TEST(Declump, TheGridsRowsAreTheMatrixsRowsForATraceback) {
    const uint64_t seed = test::seed() + 92;
    std::mt19937_64 rng(seed);
    auto [s0, s1] = test::mutated_pair(260, 9500, rng, 0.01);
    const Scoring scoring(1, -3, 5, 2);
    const int64_t m = s0.length(), n = s1.length(), tile_rows = 50;
    CpuTileWaves cpu;
    GridWorkers workers;
    workers.cpu = &cpu;
    workers.threads = 2;
    EdgeGrid grid = EdgeGrid::whole(s0, s1, scoring, tile_rows, 700, workers);
    grid.compute(BarredPairs(tile_rows));
    const int64_t every = 1 + static_cast<int64_t>(rng() % 3);
    GridRows rows(grid, every);
    const std::vector<int32_t> top_h(static_cast<size_t>(n + 1), 0), top_f(top_h.size(), kNoGap);
    const std::vector<int32_t> left_h(static_cast<size_t>(m), 0), left_e(left_h.size(), kNoGap);
    const int64_t gap = 2;
    for (int64_t row = 0; row < m; row += every * tile_rows) {
        const std::string what = "row " + std::to_string(row) + ", every " + std::to_string(every) + ", seed " + std::to_string(seed);
        std::vector<int32_t> h(static_cast<size_t>(n + 1), 0), f(h.size(), kNoGap);  // column 0 first
        if (row > 0) {
            std::vector<int32_t> out(static_cast<size_t>(2 * n + 2 * row));
            const TileSink sink{out.data(), out.data() + n, out.data() + 2 * n, out.data() + 2 * n + row, nullptr};
            tile_dp(s0, s1, scoring, Rect{0, row, 0, n}, TileEdges{top_h.data(), top_f.data(), left_h.data(), left_e.data()},
                    {}, sink);
            std::copy(out.begin(), out.begin() + n, h.begin() + 1);
            std::copy(out.begin() + n, out.begin() + 2 * n, f.begin() + 1);
        }
        EXPECT_EQ(rows.row_above(row + 1), row) << what;
        EXPECT_EQ(rows.row_above(row + every * tile_rows), row) << what;
        for (int trial = 0; trial < 6; ++trial) {
            const int64_t from = trial == 0 ? 1 : 1 + static_cast<int64_t>(rng() % static_cast<uint64_t>(n));
            const int64_t to = trial == 1 ? n : from + static_cast<int64_t>(rng() % static_cast<uint64_t>(n - from + 1));
            const WindowRow r = rows.read(row, from, to);
            ASSERT_EQ(r.h, std::vector<int32_t>(h.begin() + (from - 1), h.begin() + (to + 1))) << what << ", " << from << ".." << to;
            ASSERT_EQ(r.f, std::vector<int32_t>(f.begin() + (from - 1), f.begin() + (to + 1))) << what << ", " << from << ".." << to;
        }
        int64_t most = 0;
        std::vector<int64_t> prefix(static_cast<size_t>(n + 1));
        for (int64_t c = 0; c <= n; ++c) prefix[static_cast<size_t>(c)] = most = std::max(most, edge_value(h[static_cast<size_t>(c)], c, gap));
        for (const int64_t to : {int64_t{0}, int64_t{1}, int64_t{4094}, int64_t{4095}, int64_t{4096}, int64_t{8191},
                                 int64_t{8192}, n - 1, n, static_cast<int64_t>(rng() % static_cast<uint64_t>(n + 1))})
            ASSERT_EQ(rows.edge_term(row, to, gap), prefix[static_cast<size_t>(to)]) << what << ", to " << to;
    }
}

// A first pass tells its progress from 0 to every cell, which it tells once, at its end, on
// CPU threads as on a device whose last launch counts every cell (FullMatrixWaves).
TEST(Declump, AFirstPassTellsEveryCellOnceAtItsEnd) {
    std::mt19937_64 rng(test::seed() + 93);
    auto [s0, s1] = test::mutated_pair(300, 400, rng);
    const Scoring scoring(1, -3, 5, 2);
    const int64_t total = s0.length() * s1.length();
    for (const bool device : {false, true}) {
        CpuTileWaves cpu;
        test::FullMatrixWaves waves;
        std::vector<int64_t> told;
        GridWorkers workers;
        workers.cpu = &cpu;
        workers.device = device ? &waves : nullptr;
        workers.threads = 2;
        workers.on_cells = [&](int64_t cells) { told.push_back(cells); };
        EdgeGrid grid = EdgeGrid::whole(s0, s1, scoring, 64, 64, workers);
        grid.compute(BarredPairs(64));
        ASSERT_GE(told.size(), 2u) << "device " << device;
        EXPECT_EQ(told.front(), 0) << "device " << device;
        EXPECT_EQ(told.back(), total) << "device " << device;
        EXPECT_EQ(std::count(told.begin(), told.end(), total), 1) << "device " << device;
        EXPECT_TRUE(std::is_sorted(told.begin(), told.end())) << "device " << device;
        EXPECT_EQ(waves.passes, device ? 1 : 0);
        if (device) {
            EXPECT_EQ(told, (std::vector<int64_t>{0, total / 2, total}));
        }
    }
}

// The pair's own traceback of alignment 1 is taken, not traced again, where its end is the
// search's best cell; elsewhere it changes nothing. Alignment 1 is traced from the grid's
// rows, the others walked.
TEST(Declump, TheTracebacksFirstAlignmentIsTakenNotTracedAgain) {
    const uint64_t seed = test::seed() + 88;
    std::mt19937_64 rng(seed);
    auto [s0, s1] = test::mutated_pair(1500, 1600, rng);
    const Scoring scoring(1, -3, 5, 2);
    const DeclumpOptions grid = options(100, 100, 1024, 4);
    DeclumpCounts walked;
    const std::vector<Alignment> want = best_alignments(s0, s1, scoring, 5, 1, grid, &walked);
    ASSERT_EQ(want.size(), 5u) << "seed " << seed;
    EXPECT_EQ(walked.walk.walks, static_cast<int64_t>(want.size()) - 1) << "seed " << seed;
    EXPECT_EQ(walked.rows_traced, 1) << "seed " << seed;
    const Alignment traced = reference_traceback(s0, s1, scoring);
    DeclumpResume resume;
    resume.traced = &traced;
    DeclumpCounts taken;
    const std::vector<Alignment> got = best_alignments(s0, s1, scoring, 5, 1, grid, &taken, resume);
    ASSERT_EQ(got.size(), want.size()) << "seed " << seed;
    for (size_t k = 0; k < want.size(); ++k) EXPECT_EQ(describe(got[k]), describe(want[k])) << "seed " << seed;
    EXPECT_EQ(taken.walk.walks, static_cast<int64_t>(want.size()) - 1) << "seed " << seed;
    EXPECT_EQ(taken.rows_traced, 0) << "seed " << seed;
    // One that ends elsewhere is not the search's alignment 1: it is traced.
    Alignment elsewhere = traced;
    elsewhere.s0_end -= 1;
    resume.traced = &elsewhere;
    DeclumpCounts again;
    const std::vector<Alignment> other = best_alignments(s0, s1, scoring, 5, 1, grid, &again, resume);
    ASSERT_EQ(other.size(), want.size()) << "seed " << seed;
    EXPECT_EQ(describe(other[0]), describe(want[0])) << "seed " << seed;
    EXPECT_EQ(again.walk.walks, static_cast<int64_t>(want.size()) - 1) << "seed " << seed;
    EXPECT_EQ(again.rows_traced, 1) << "seed " << seed;
}

TEST(Declump, ASearchStoppedAndTakenUpFindsTheSameAlignments) {
    const uint64_t seed = test::seed() + 86;
    std::mt19937_64 rng(seed);
    auto [s0, s1] = test::mutated_pair(900, 1000, rng);
    const Scoring scoring(1, -1, 2, 1);
    const std::vector<Alignment> whole = best_alignments(s0, s1, scoring, 12, 1, options(50, 70));
    ASSERT_EQ(whole.size(), 12u) << "seed " << seed;
    // A stop after the fifth (the search's `found` throws, as a signal's stop does).
    std::vector<Alignment> saved;
    DeclumpResume first;
    first.found = [&](const std::vector<Alignment>& so_far) {
        saved = so_far;
        if (so_far.size() == 5) throw Interrupted(15, "stopped");
    };
    EXPECT_THROW(best_alignments(s0, s1, scoring, 12, 1, options(50, 70), nullptr, first), Interrupted);
    ASSERT_EQ(saved.size(), 5u);
    // Taken up: the five end where the search finds its next, so they are taken, not traced
    // or walked again; only the others are new, and walked.
    int told = 0;
    DeclumpResume again{saved, [&](const std::vector<Alignment>& so_far) { EXPECT_GT(so_far.size(), 5u); ++told; }, {}};
    DeclumpCounts counts;
    const std::vector<Alignment> resumed = best_alignments(s0, s1, scoring, 12, 1, options(64, 48), &counts, again);
    ASSERT_EQ(resumed.size(), whole.size());
    for (size_t k = 0; k < whole.size(); ++k) EXPECT_EQ(describe(resumed[k]), describe(whole[k])) << "seed " << seed;
    EXPECT_EQ(told, 7);
    EXPECT_EQ(counts.rows_traced, 0);
    EXPECT_EQ(counts.walk.walks, 7);
    // A saved alignment the search does not find again is refused.
    DeclumpResume forged{saved, {}, {}};
    forged.known[3].runs.back().length += 1;
    EXPECT_THROW(best_alignments(s0, s1, scoring, 12, 1, options(50, 70), nullptr, forged), Error);
}

// The strands merged: a strand's search stops at its first alignment that the merged list
// would cut, and the list is what searching every strand to the end and merging gives. Each
// strand ends with what of it ranks, outranked; the same when the strands are searched at
// once, however their threads run, though the forward one may then trace less.
TEST(Declump, APairsLaterStrandStopsWhereItsAlignmentsNoLongerRank) {
    const uint64_t seed = test::seed() + 41;
    std::mt19937_64 rng(seed);
    const Scoring scoring(1, -3, 5, 2);
    // S0 holds pieces of S1, longest first, on alternate strands, one change in 100 bases: the
    // two strands' alignments interleave, the forward one first.
    const std::string target = gen::random_dna(6000, rng);
    std::string query;
    for (int k = 0; k < 12; ++k) {
        std::string piece = target.substr(static_cast<size_t>(k) * 500, static_cast<size_t>(300 - 15 * k));
        for (int c = 0; c < 3 - k / 4; ++c) piece[rng() % piece.size()] = "ACGT"[rng() % 4];
        if (k % 2) {
            std::reverse(piece.begin(), piece.end());
            for (char& c : piece) c = c == 'A' ? 'T' : c == 'C' ? 'G' : c == 'G' ? 'C' : 'A';
        }
        query += gen::random_dna(50, rng) + piece;
    }
    const Sequence s0 = make_sequence("q", query), s1 = make_sequence("t", target), rc = reverse_complement(s1);
    DeclumpOptions opts = options(256, 256);
    for (const int count : {1, 4, 9}) for (const bool at_once : {false, true}) {
        opts.strands_at_once = at_once;
        const std::string what = "count " + std::to_string(count) + (at_once ? ", at once" : "") + ", seed " +
                                 std::to_string(seed);
        std::vector<StrandAlignment> want;
        std::vector<size_t> alone;  // each strand's search to its own end
        for (const auto& [strand, s] : {std::pair{Strand::kForward, &s1}, std::pair{Strand::kReverse, &rc}}) {
            const std::vector<Alignment> list = best_alignments(s0, *s, scoring, count, 20, opts);
            alone.push_back(list.size());
            for (const Alignment& a : list) want.push_back({strand, a});
        }
        std::stable_sort(want.begin(), want.end(),
                         [](const StrandAlignment& a, const StrandAlignment& b) { return a.alignment.score > b.alignment.score; });
        want.resize(std::min<size_t>(want.size(), static_cast<size_t>(count)));
        const size_t ranked_reverse = static_cast<size_t>(std::count_if(
            want.begin(), want.end(), [](const StrandAlignment& a) { return a.strand == Strand::kReverse; }));
        const size_t ranked_forward = want.size() - ranked_reverse;
        ASSERT_LT(ranked_reverse, alone[1]) << "the reverse strand has alignments the list cuts, " << what;

        DeclumpCounts counts;
        std::vector<size_t> found(2, 0);
        std::vector<std::string> ends;
        const std::vector<StrandAlignment> got = pair_alignments(
            s0, {{Strand::kForward, &s1, {}, false}, {Strand::kReverse, &rc, {}, false}}, scoring, count, 20, opts, counts,
            [&](Strand strand, const std::vector<Alignment>& so_far) { found[strand == Strand::kReverse] = so_far.size(); },
            [&](Strand strand, const std::vector<Alignment>& all, bool outranked) {
                ends.push_back(std::string(strand == Strand::kReverse ? "-" : "+") + std::to_string(all.size()) +
                               (outranked ? " outranked" : ""));
            });
        ASSERT_EQ(got.size(), want.size()) << what;
        for (size_t k = 0; k < want.size(); ++k) {
            EXPECT_EQ(got[k].strand, want[k].strand) << what << ": alignment " << k + 1;
            EXPECT_EQ(describe(got[k].alignment), describe(want[k].alignment)) << what << ": alignment " << k + 1;
        }
        if (at_once) {
            EXPECT_GE(found[0], ranked_forward) << what;
            EXPECT_LE(found[0], alone[0]) << what;
        } else {
            EXPECT_EQ(found[0], alone[0]) << "the forward strand knew nothing of the reverse one, " << what;
            EXPECT_EQ(found[1], ranked_reverse) << "the reverse strand traced only what ranks, " << what;
        }
        EXPECT_GE(found[1], ranked_reverse) << what;
        const std::string forward_end =
            "+" + std::to_string(ranked_forward) + (ranked_forward < alone[0] ? " outranked" : "");
        EXPECT_EQ(ends, (std::vector<std::string>{forward_end, "-" + std::to_string(ranked_reverse) + " outranked"}))
            << what;
    }
}

// Searched at once, a strand whose first pass fails ends the pair's search with its error, and
// the later strand, waiting for its turn, never starts its pass.
TEST(Declump, AFirstPassThatFailsLeavesTheLaterStrandsUnstarted) {
    const uint64_t seed = test::seed() + 42;
    std::mt19937_64 rng(seed);
    const auto [s0, s1] = test::mutated_pair(700, 800, rng);
    const Sequence rc = reverse_complement(s1);
    DeclumpOptions opts = options(128, 128);
    opts.strands_at_once = true;
    DeclumpCounts counts;
    int reverse_told = 0;
    const auto passing = [&](Strand strand, int64_t) {
        if (strand == Strand::kForward) throw Error("the forward pass fails");
        ++reverse_told;
    };
    try {
        pair_alignments(s0, {{Strand::kForward, &s1, {}, false}, {Strand::kReverse, &rc, {}, false}},
                        Scoring(1, -3, 5, 2), 4, 20, opts, counts, {}, {}, passing);
        ADD_FAILURE() << "no error, seed " << seed;
    } catch (const Error& e) {
        EXPECT_EQ(std::string(e.what()), "the forward pass fails");
    }
    EXPECT_EQ(reverse_told, 0) << "the reverse strand's pass started, seed " << seed;
}

}  // namespace
}  // namespace chromalign
