//! @file Exact block pruning: the rule's edge cases, and the cpu backend with and without
//! pruning against the reference (every lane width, several grids, slabs and ranks).
#include <gtest/gtest.h>

#include <cstdio>

#include <cstdlib>
#include <random>

#include "engine/pruning/prune_rule.hpp"
#include "kernels/registry.hpp"
#include "tests/pruning_support.hpp"
#include "tests/slab_support.hpp"
#include "tests/test_support.hpp"
#include "tools/mutate.hpp"

namespace chromalign {
namespace {

TEST(PruneRule, GainCountsWhatIsLeftOfTheShorterSide) {
    const PruneRule rule{true, 2, 100, 60};
    EXPECT_EQ(rule.gain(0, 0), 2 * 60);
    EXPECT_EQ(rule.gain(90, 0), 2 * 10);   // rows run out first
    EXPECT_EQ(rule.gain(10, 59), 2 * 1);   // the last column: one pair left
    EXPECT_EQ(rule.gain(100, 0), 0);       // below the last row
    EXPECT_EQ(rule.gain(10, 60), 0);       // right of the last column (padding)
    EXPECT_EQ(rule.gain(500, 500), 0);     // never negative
}

TEST(PruneRule, SkipsOnlyStrictlyBelowTheBestSoFar) {
    const PruneRule rule{true, 1, 100, 100};
    // Inputs reach 5 at most, 10 pairs are left: an alignment through the region reaches 15.
    EXPECT_FALSE(rule.dead(5, 90, 90, 15));  // a tie with the best so far could win the tie rule
    EXPECT_TRUE(rule.dead(5, 90, 90, 16));
    EXPECT_FALSE(rule.dead(6, 90, 90, 16));
    // A negative or -inf input counts as 0: an alignment may start inside the region.
    EXPECT_FALSE(rule.dead(-1000, 90, 90, 10));
    EXPECT_TRUE(rule.dead(-1000, 90, 90, 11));
    // Off: nothing is ever skipped.
    const PruneRule off{false, 1, 100, 100};
    EXPECT_FALSE(off.dead(0, 99, 99, 1000000));
    EXPECT_TRUE(off.live_by_gain(99, 99, 1000000));
    // live_by_gain answers without the inputs only when gain alone reaches g.
    EXPECT_TRUE(rule.live_by_gain(90, 90, 10));
    EXPECT_FALSE(rule.live_by_gain(90, 90, 11));
}

TEST(PruneRule, GainDoesNotOverflowAtTheLargestMatrix) {
    const PruneRule rule{true, 1 << 20, int64_t{1} << 40, int64_t{1} << 40};
    EXPECT_EQ(rule.gain(0, 0), (int64_t{1} << 40) * (1 << 20));
    EXPECT_FALSE(rule.dead(INT32_MAX, 0, 0, INT32_MAX));
}

class IsaScope {
public:
    explicit IsaScope(const char* isa) {
        if (isa) setenv("CHROMALIGN_CPU_ISA", isa, 1);
    }
    ~IsaScope() { unsetenv("CHROMALIGN_CPU_ISA"); }
};

/// Two threads, one thread with many narrow tiles, three slabs.
std::vector<BackendOptions> cpu_grids() {
    return {test::grid(0, 0, 0, 2), test::grid(4, 5, 0, 1), test::grid(0, 4, 3, 2)};
}

TEST(CpuPruning, SameAnswerAsTheReferenceWithAndWithoutPruning) {
    std::mt19937_64 rng(test::seed() + 20);
    const auto cases = test::pruning_cases(rng, 3000);
    // The best ISA (16-bit lanes where the scoring fits) and scalar (32-bit lanes).
    for (const char* isa : {static_cast<const char*>(nullptr), "scalar"}) {
        IsaScope scope(isa);
        const int64_t pruned = test::expect_pruning_exact("cpu", cases, cpu_grids());
        if (HasFailure()) return;
        EXPECT_GT(pruned, 0) << "pruning never skipped a cell: the test proves nothing";
    }
}

TEST(CpuPruning, AGainTableSkipsMoreAndGivesTheReferenceAnswer) {
    // engine/pruning/gain_table.hpp: from the optimum and from 0, every case, every grid.
    std::mt19937_64 rng(test::seed() + 23);
    test::expect_gain_table_exact("cpu", test::pruning_cases(rng, 3000), cpu_grids(), 256, 4000, rng);
}

TEST(CpuPruning, EdgeSizesOfTheTile) {
    std::mt19937_64 rng(test::seed() + 21);
    const auto cases = test::edge_cases(rng, {64, 128}, 1001);  // the tile heights of the grids below
    std::vector<BackendOptions> grids = cpu_grids();
    grids.pop_back();  // three slabs need more columns than the narrowest pairs here have
    test::expect_pruning_exact("cpu", cases, grids);
}

TEST(CpuPruning, RanksShareTheirBestAndAgree) {
    std::mt19937_64 rng(test::seed() + 22);
    gen::RelatedSpec related;
    related.max_long = 200;
    related.long_indel = 1e-3;
    for (const int ranks : {2, 3}) {
        const auto [a, b] = gen::related_pair(6000, related, rng);
        BackendOptions o;
        o.threads = 1;
        o.max_blocks = 6;
        test::expect_slab_matches_reference("cpu", make_sequence("s0", a), make_sequence("s1", b), Scoring(1, -3, 5, 2),
                                            ranks, o, "related pair over " + std::to_string(ranks) + " ranks");
    }
}

TEST(CpuPruning, SkipsAboutHalfOfAMutatedPair) {
    // The peers skip about half of such a pair; far less would mean the bound or the shared
    // best score is weaker than it should be.
    std::mt19937_64 rng(test::seed() + 23);
    auto [s0, s1] = test::mutated_pair(40000, 40000, rng);
    BackendOptions o;
    o.threads = 2;
    auto engine = make_backend("cpu", o);
    engine->align(s0, s1, Scoring(1, -3, 5, 2));
    const double fraction = static_cast<double>(engine->cells_pruned()) / (40000.0 * 40000.0);
    std::printf("[ pruned   ] %.3f of a 40k x 40k mutated pair\n", fraction);
    EXPECT_GT(fraction, 0.35);
    EXPECT_LT(fraction, 0.75);
}

TEST(CpuPruning, CheckpointsResumeWithOrWithoutPruning) {
    // About 0.7 s with pruning on 2 threads: the stop lands where many columns are pruned.
    std::mt19937_64 rng(test::seed() + 24);
    auto [s0, s1] = test::mutated_pair(120000, 120000, rng);
    const Scoring scoring(1, -3, 5, 2);
    BackendOptions on, off;
    on.threads = off.threads = 2;
    off.pruning = false;
    int64_t diagonals = 0;
    const AlignmentEnd want = test::counting_diagonals(
        on, [&](const BackendOptions& o) { return make_backend("cpu", o)->align(s0, s1, scoring); }, diagonals);
    test::TempDir dir;
    struct Leg {
        const char* what;
        BackendOptions first, second;
    };
    BackendOptions scalar_on = on;
    for (const Leg& leg : {Leg{"pruned, resumed unpruned", on, off}, Leg{"unpruned, resumed pruned", off, on},
                           Leg{"pruned, resumed pruned", on, on}}) {
        const auto r = test::stop_then_resume("cpu", leg.first, "cpu", leg.second, s0, s1, scoring,
                                              dir.file("run.ckpt"), diagonals * 7 / 10);
        ASSERT_TRUE(r.stopped) << leg.what << ": the run ended before the stop";
        EXPECT_EQ(r.result, want) << leg.what << ", seed " << test::seed();
        // GCUPS after a resume count only what this run finished.
        EXPECT_GT(r.cells_resumed, 0) << leg.what;
        EXPECT_LT(r.cells_resumed, s0.length() * s1.length()) << leg.what;
        EXPECT_EQ(r.cells_resumed, r.cells_above) << leg.what << ": the cells above the checkpoint's rows";
        if (leg.first.pruning)
            EXPECT_GT(r.pruned_columns, 0) << leg.what << ": the checkpointed row says which columns were pruned";
        else
            EXPECT_EQ(r.pruned_columns, 0) << leg.what << ": F = -inf marks pruned columns only";
    }
    {
        IsaScope scope("scalar");  // resumed on 32-bit lanes from a row written by 16-bit ones
        const auto r = test::stop_then_resume("cpu", on, "cpu", scalar_on, s0, s1, scoring, dir.file("isa.ckpt"),
                                              diagonals * 7 / 10);
        ASSERT_TRUE(r.stopped);
        EXPECT_EQ(r.result, want);
    }
}

}  // namespace
}  // namespace chromalign
