//! @file The gain table (engine/pruning/gain_table.hpp) against a brute force: what a path can
//! really add after each cell, from a reverse Gotoh over the whole matrix, never exceeds the
//! table's bound, on random, mutated, related and repeat-rich pairs, several k and grids, the
//! default scoring and the test matrices. And the bound is well below the plain gain where
//! the pair is unrelated, or the test could pass with a table that bounds nothing.
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <cstdio>
#include <random>
#include <string>
#include <vector>

#include "engine/kmers.hpp"
#include "engine/pruning/gain_table.hpp"
#include "tests/pruning_support.hpp"
#include "tests/test_support.hpp"
#include "tools/mutate.hpp"

namespace chromalign {
namespace {

constexpr int32_t kNone = -(1 << 29);

/// best[i][j]: the most a path can add after DP cell (i, j) in any state (H, or a gap of
/// either kind whose next column costs extend): max(RE, RF) of a reverse Gotoh.
std::vector<std::vector<int32_t>> after_each_cell(const Sequence& s0, const Sequence& s1, const Scoring& scoring) {
    const int64_t m = s0.length(), n = s1.length();
    const int32_t o = scoring.gap_open, e = std::min(scoring.gap_extend, scoring.gap_open);
    std::vector<std::vector<int32_t>> rh(m + 2, std::vector<int32_t>(n + 2, kNone)), re = rh, rf = rh, best = rh;
    for (int64_t i = m; i >= 0; --i)
        for (int64_t j = n; j >= 0; --j) {
            int32_t h = 0;
            if (i < m && j < n) h = std::max(h, scoring.score(s0.codes[i], s1.codes[j]) + rh[i + 1][j + 1]);
            if (j < n) h = std::max(h, re[i][j + 1] - o);
            if (i < m) h = std::max(h, rf[i + 1][j] - o);
            rh[i][j] = h;
            re[i][j] = std::max(h, j < n ? re[i][j + 1] - e : kNone);
            rf[i][j] = std::max(h, i < m ? rf[i + 1][j] - e : kNone);
            best[i][j] = std::max(re[i][j], rf[i][j]);
        }
    return best;
}

struct Checked {
    int64_t rectangles = 0, below_plain = 0;
};

/// Every rectangle of a lattice of `rows` x `cols` cells (as a cpu tile's inputs and cells),
/// and random ones: the table's bound is at least the brute force's best over its cells.
Checked expect_bounds(const GainView& view, const std::vector<std::vector<int32_t>>& best, int64_t m, int64_t n,
                      int32_t a, std::mt19937_64& rng, const std::string& what) {
    Checked c;
    std::vector<std::array<int64_t, 4>> rects;
    for (const int64_t rows : {int64_t{8}, int64_t{33}})
        for (const int64_t cols : {int64_t{12}, int64_t{50}})
            for (int64_t row = 0; row <= m; row += rows)
                for (int64_t col = 0; col <= n; col += cols) rects.push_back({row, col, rows, cols});
    for (int k = 0; k < 2000; ++k) {
        const int64_t row = static_cast<int64_t>(rng() % static_cast<uint64_t>(m + 1));
        const int64_t col = static_cast<int64_t>(rng() % static_cast<uint64_t>(n + 1));
        rects.push_back({row, col, static_cast<int64_t>(rng() % 40), static_cast<int64_t>(rng() % 40)});
    }
    for (const auto& [row, col, rows, cols] : rects) {
        int32_t most = 0;
        for (int64_t i = row; i <= std::min(m, row + rows); ++i)
            for (int64_t j = col; j <= std::min(n, col + cols); ++j) most = std::max(most, best[i][j]);
        const int64_t left = std::min(m - row, n - col);
        const int64_t bound = view.bound(row, col, rows, cols, left);
        ++c.rectangles;
        if (bound < int64_t{a} * left) ++c.below_plain;
        if (bound < most) {
            ADD_FAILURE() << what << ": rows " << row << "+" << rows << ", columns " << col << "+" << cols << ": bound "
                          << bound << " below " << most;
            return c;
        }
    }
    return c;
}

TEST(GainTable, NoPathAddsMoreThanTheTableSays) {
    const uint64_t seed = test::seed();
    std::mt19937_64 rng(seed);
    SCOPED_TRACE("seed " + std::to_string(seed));
    std::atomic<bool> cancel{false};
    int64_t tables = 0, below = 0, checked = 0, unrelated = 0;
    for (const auto& c : test::pruning_cases(rng, 600)) {
        if (c.s0.length() > 800 || c.s1.length() > 800) continue;
        // The case's own scoring (default, HOXD70, the test matrices), and two more: blastn's,
        // and gaps so cheap that rho is raised to keep lambda positive.
        for (const Scoring& scoring : {c.scoring, Scoring(2, -3, 7, 2), Scoring(1, -3, 2, 1)}) {
            const auto best = after_each_cell(c.s0, c.s1, scoring);
            int32_t a = 0;
            for (int x = 0; x < 4; ++x) a = std::max(a, scoring.matrix[x][x]);
            for (const int32_t k : {2, 3, 5, 8, 0})
                for (const int64_t strip : {int64_t{7}, int64_t{32}, int64_t{100}}) {
                    const auto table =
                        GainTable::build(c.s0, c.s1, scoring, 1 + static_cast<int>(rng() % 3), cancel, strip, k);
                    if (!table) continue;
                    ++tables;
                    const Checked r = expect_bounds(table->view(), best, c.s0.length(), c.s1.length(), a, rng,
                                                    c.what + ", k " + std::to_string(table->k()) + ", strips of " +
                                                        std::to_string(strip));
                    checked += r.rectangles;
                    below += r.below_plain;
                    // An unrelated pair shares few 8-mers: beyond the rate rho that every
                    // column gets (and the last run's tail), its chance matches must add
                    // well under what the plain gain adds beyond that rate. (A fixed share
                    // of the plain gain does not fit every scoring: with gaps as cheap as
                    // 2 and 1, rho is 3/4 of a match, and the bound came within 15 of 4/5.)
                    const int64_t left = std::min(c.s0.length(), c.s1.length());
                    if (c.what == "unrelated" && table->k() == 8 && scoring.is_match_mismatch()) {
                        ++unrelated;
                        const GainView& v = table->view();
                        const int64_t at_rate = (v.rho_k * left + v.k.d - 1) / v.k.d + v.tail;
                        const int64_t beyond_rate = int64_t{a} * left - at_rate;
                        EXPECT_GT(beyond_rate, 0) << "k " << table->k();
                        EXPECT_LT(3 * (v.bound(0, 0, 0, 0, left) - at_rate), beyond_rate)
                            << "k " << table->k() << ", strips of " << strip << ", rho k " << v.rho_k;
                    }
                    if (HasFailure()) return;
                }
        }
    }
    // Tables were built (the terms exist for these scorings), and unrelated pairs checked.
    EXPECT_GT(tables, 100);
    EXPECT_GT(unrelated, 4);
    std::printf("[ result   ] %lld tables, %lld of %lld rectangles bounded below the plain gain\n",
                static_cast<long long>(tables), static_cast<long long>(below), static_cast<long long>(checked));
}

TEST(GainTable, ARepeatLeavesATable) {
    // 300 kbp of one 50-base unit in both sequences: its 50 k-mers have 6000 x 6000 pairs
    // each, past the pairs a table lists. Their rows count in every band instead, and the
    // random stretch before the repeat keeps a gain well below the plain one.
    std::mt19937_64 rng(test::seed());
    const std::string unit = gen::random_dna(50, rng);
    std::string repeat;
    while (repeat.size() < 300000) repeat += unit;
    const Sequence s0 = make_sequence("s0", gen::random_dna(100000, rng) + repeat);
    const Sequence s1 = make_sequence("s1", gen::random_dna(100000, rng) + repeat);
    std::atomic<bool> cancel{false};
    const auto table = GainTable::build(s0, s1, Scoring(1, -3, 5, 2), 2, cancel);
    ASSERT_TRUE(table) << "no table: the repeat's pairs were listed";
    // The repeats align whole (300000) from their first cells; from the first cells of the
    // random stretches the table still bounds below the plain gain (400000).
    EXPECT_GE(table->view().bound(100000, 100000, 0, 0, 300000), 300000);
    EXPECT_LT(table->view().bound(0, 0, 0, 0, 400000), 400000);
}

TEST(GainTable, ARunPaysForItsLastCells) {
    // A copy with every 20th base changed: runs of 19 equal bases, each followed by a mismatch,
    // so the alignment scores 16 every 20 columns, 0.8 a column. Counting the rows of k-mer
    // starts (11 of a run's 19 at k = 9) gives the table 5/9 + 4/9 * 11/20 = 0.8 a column
    // too; counting every cell of the runs gave 5/9 + 4/9 * 19/20 = 0.978.
    std::mt19937_64 rng(test::seed() + 2);
    const int64_t n = 200000;
    std::string a = gen::random_dna(n, rng), b = a;
    for (int64_t i = 19; i < n; i += 20) b[static_cast<size_t>(i)] = "CGTA"[std::string("ACGT").find(a[static_cast<size_t>(i)])];
    std::atomic<bool> cancel{false};
    const auto table = GainTable::build(make_sequence("s0", a), make_sequence("s1", b), Scoring(1, -3, 5, 2), 2, cancel, 0, 9);
    ASSERT_TRUE(table);
    const int64_t bound = table->view().bound(0, 0, 0, 0, n);
    EXPECT_GE(bound, n / 20 * 16) << "below the alignment itself, seed " << test::seed();
    EXPECT_LT(bound, n * 81 / 100) << "seed " << test::seed();
}

TEST(GainTable, AMemoGivesTheBoundItKeeps) {
    // The stream of bands bounds chunk after chunk along a band with one GainMemo: the same
    // bound as a fresh read at every chunk, as the chunks cross the table's bands and, with a
    // new row, its strips (the memo is read again there, or a stale maximum would stand).
    const uint64_t seed = test::seed();
    std::mt19937_64 rng(seed);
    SCOPED_TRACE("seed " + std::to_string(seed));
    const int64_t n = 60000;
    const std::string a = gen::random_dna(n, rng);
    const std::string b = gen::mutate(a, gen::MutationSpec{}, rng);
    std::atomic<bool> cancel{false};
    const auto table =
        GainTable::build(make_sequence("s0", a), make_sequence("s1", b), Scoring(1, -3, 5, 2), 2, cancel, 500, 8);
    ASSERT_TRUE(table);
    const GainView& v = table->view();
    int64_t changed = 0;
    GainMemo memo;
    for (int64_t row = 0; row < n; row += 1 + static_cast<int64_t>(rng() % 700)) {
        for (int64_t col = 0; col < n; col += 32) {
            const int64_t left = std::min(n - row, n - col);
            const int32_t before = memo.phi;
            ASSERT_EQ(v.bound(row, col, 128, 63, left, memo), v.bound(row, col, 128, 63, left)) << row << ", " << col;
            changed += memo.phi != before;
        }
    }
    EXPECT_GT(changed, 100) << "the walk never changed the cells it read";
}

TEST(GainTable, EveryWorkerCountBuildsTheSameTable) {
    // The build splits S1's index, S0's counts and the k-mer rows over its workers, each
    // with counts of its own: the table must not depend on how many there are. A mutated
    // pair with N runs and a repeat (its k-mers counted in every band), small and default k.
    std::mt19937_64 rng(test::seed() + 1);
    std::string a = gen::random_dna(120000, rng, 0.001), unit = gen::random_dna(40, rng), repeat;
    while (repeat.size() < 60000) repeat += unit;
    const std::string b = gen::mutate(a, gen::MutationSpec{}, rng);
    const Sequence s0 = make_sequence("s0", a + repeat), s1 = make_sequence("s1", repeat + b);
    std::atomic<bool> cancel{false};
    for (const int32_t k : {4, 7, 0}) {
        const auto one = GainTable::build(s0, s1, Scoring(1, -3, 5, 2), 1, cancel, 0, k);
        ASSERT_TRUE(one) << "k " << k << ", seed " << test::seed();
        const GainView& v = one->view();
        const std::vector<int32_t> want(v.t, v.t + v.strips * v.bands);
        for (const int workers : {2, 3, 7, 64}) {
            const auto table = GainTable::build(s0, s1, Scoring(1, -3, 5, 2), workers, cancel, 0, k);
            ASSERT_TRUE(table);
            const GainView& w = table->view();
            ASSERT_EQ(w.strips * w.bands, v.strips * v.bands);
            EXPECT_TRUE(std::equal(want.begin(), want.end(), w.t))
                << "k " << one->k() << ", " << workers << " workers, seed " << test::seed();
        }
    }
}

TEST(Kmers, AScanUntilACancelEndsWithinAStretch) {
    // The gain table's scans of a chromosome stop soon after a cancel (a stop waits for
    // them): in stretches of 2^22 start positions, every k-mer as for_each_kmer gives them.
    std::mt19937_64 rng(test::seed() + 2);
    const Sequence s = make_sequence("s", gen::random_dna((1 << 22) + 5000, rng, 0.001));
    std::vector<std::pair<int64_t, uint64_t>> all, until;
    for_each_kmer(s.codes, 13, 5, s.length() - 20, [&](int64_t i, uint64_t x) { all.push_back({i, x}); });
    std::atomic<bool> cancel{false};
    EXPECT_TRUE(for_each_kmer_until(s.codes, 13, 5, s.length() - 20, cancel,
                                    [&](int64_t i, uint64_t x) { until.push_back({i, x}); }));
    EXPECT_EQ(until, all) << "seed " << test::seed();
    int64_t calls = 0;
    EXPECT_FALSE(for_each_kmer_until(s.codes, 13, 0, s.length(), cancel, [&](int64_t, uint64_t) {
        ++calls;
        cancel.store(true);
    }));
    EXPECT_GT(calls, 0);
    EXPECT_LE(calls, int64_t{1} << 22);
}

/// The table's quotients (engine/pruning/divisor.hpp) against `/` where the rounded
/// reciprocal is most likely off by one: at and beside multiples of d, for divisors from 1 to
/// 2^40 and quotients up to 2^50 / d.
TEST(Divisor, EqualsIntegerDivisionOnItsDomain) {
    const uint64_t seed = test::seed();
    std::mt19937_64 rng(seed);
    SCOPED_TRACE("seed " + std::to_string(seed));
    constexpr int64_t kTop = int64_t{1} << 50;
    std::vector<int64_t> divisors = {1, 2, 3, 7, 9, 10, 2233, 7813, 31250, (int64_t{1} << 40) - 1};
    for (int i = 0; i < 200; ++i) divisors.push_back(1 + static_cast<int64_t>(rng() % (uint64_t{1} << (1 + i % 40))));
    for (const int64_t d : divisors) {
        const Divisor by = Divisor::of(d);
        for (int i = 0; i < 500; ++i) {
            const int64_t q = static_cast<int64_t>(rng() % static_cast<uint64_t>(kTop / d));
            for (const int64_t x : {q * d - 1, q * d, q * d + 1, q * d + d - 1, static_cast<int64_t>(rng() % kTop)}) {
                if (x < 0 || x >= kTop) continue;
                ASSERT_EQ(by.div(x), x / d) << "x " << x << ", d " << d;
            }
        }
        EXPECT_EQ(by.div(0), 0);
        EXPECT_EQ(by.div(kTop - 1), (kTop - 1) / d);
    }
}

}  // namespace
}  // namespace chromalign
