//! @file GPU tests of stage 1 as one stream of bands (kernels/cuda/stream/band_stream.cuh)
//! against the reference: pruning on and off, injected bounds, gain tables, edge sizes.
#include <gtest/gtest.h>

#include <cstdio>
#include <random>

#include "kernels/registry.hpp"
#include "tests/pruning_support.hpp"
#include "tests/test_support.hpp"

namespace chromalign {
namespace {

#define SKIP_WITHOUT_GPU()                                             \
    if (!(backend_devices("cuda") > 0)) GTEST_SKIP() << "no CUDA device (or no CUDA build)"

BackendOptions stream_grid(int alpha) {
    BackendOptions o = test::grid(alpha, 0);
    o.band_stream = true;
    return o;
}

std::vector<BackendOptions> stream_grids() { return {stream_grid(4), stream_grid(8), stream_grid(16)}; }

TEST(BandStream, SameAnswerAsTheReferenceWithAndWithoutPruning) {
    SKIP_WITHOUT_GPU();
    std::mt19937_64 rng(test::seed() + 70);
    const auto cases = test::pruning_cases(rng, 6000);
    const int64_t pruned = test::expect_pruning_exact("cuda", cases, stream_grids());
    EXPECT_GT(pruned, 0) << "pruning never skipped a cell: the test proves nothing";
}

TEST(BandStream, EdgeSizesOfTheBand) {
    SKIP_WITHOUT_GPU();
    std::mt19937_64 rng(test::seed() + 71);
    test::expect_pruning_exact("cuda", test::edge_cases(rng, {128, 256, 512}, 2001), stream_grids());
}

TEST(BandStream, AGainTableSkipsMoreAndGivesTheReferenceAnswer) {
    SKIP_WITHOUT_GPU();
    std::mt19937_64 rng(test::seed() + 72);
    test::expect_gain_table_exact("cuda", test::pruning_cases(rng, 6000), stream_grids(), 512, 8000, rng);
}

TEST(BandStream, InjectedBoundsGiveTheReferenceAnswer) {
    // Bounds 0, random below the optimum, the optimum - 1 and the optimum, from the first row.
    SKIP_WITHOUT_GPU();
    std::mt19937_64 rng(test::seed() + 73);
    const auto cases = test::pruning_cases(rng, 6000);
    test::expect_injected_bounds_exact("cuda", cases, stream_grids(), rng);
}

TEST(BandStream, ALargeMutatedPairEqualsTheTiledRun) {
    // Thousands of bands, a live band a few chunks wide, and long jumps over dead chunks.
    SKIP_WITHOUT_GPU();
    std::mt19937_64 rng(test::seed() + 74);
    auto [s0, s1] = test::mutated_pair(300000, 300000, rng);
    const Scoring scoring(1, -3, 5, 2);
    BackendOptions unpruned = test::grid(4, 0);
    unpruned.pruning = false;
    const AlignmentEnd want = make_backend("cuda", unpruned)->align(s0, s1, scoring);
    for (const BackendOptions& grid : stream_grids()) {
        int64_t pruned = 0;
        EXPECT_EQ(test::align_with_bound("cuda", grid, want.score, s0, s1, scoring, pruned), want)
            << "seed " << test::seed();
        const double fraction = static_cast<double>(pruned) / (300000.0 * 300000.0);
        std::printf("[ pruned   ] %.3f from the optimum\n", fraction);
        EXPECT_GT(fraction, 0.8) << "a bound at the optimum leaves a band and the corner";
        EXPECT_LT(fraction, 1.0);
    }
}

/// The stream from a lower bound (0, or the optimum itself: a bound pass at its best) on a real pair.
AlignmentEnd stream_from(const BackendOptions& grid, int32_t bound, const Sequence& s0, const Sequence& s1) {
    int64_t pruned = 0;
    return test::align_with_bound("cuda", grid, bound, s0, s1, Scoring(1, -3, 5, 2), pruned);
}

TEST(BandStream, RealPairsGiveTheirPublishedAnswers) {
    SKIP_WITHOUT_GPU();
    struct Pair {
        const char *s0, *s1;
        AlignmentEnd want;
    };
    for (const Pair& p : {Pair{"AF133821.1", "AY352275.1", {5091, 9418, 9114}},
                          Pair{"AF494279.1", "NC_001715.1", {52, 41352, 33438}},
                          Pair{"CP000051.1", "AE002160.2", {88353, 722725, 1072950}}}) {
        Sequence s0, s1;
        if (!test::load_shared_pair("paper", p.s0, p.s1, s0, s1)) GTEST_SKIP() << "../shared/data/paper is absent";
        for (const BackendOptions& grid : stream_grids())
            for (const int32_t bound : {0, p.want.score})
                EXPECT_EQ(stream_from(grid, bound, s0, s1), p.want) << p.s0 << " x " << p.s1 << ", bound " << bound;
    }
}

TEST(BandStream, RelatedGenomesEqualTheTiledRun) {
    // H. pylori ELS37 x G27: 1.6 Mbp each, an inverted block, a long live band.
    SKIP_WITHOUT_GPU();
    Sequence s0, s1;
    if (!test::load_shared_pair("related", "H_Pylori_ELS37", "H_Pylori_G27", s0, s1))
        GTEST_SKIP() << "../shared/data/related is absent";
    const AlignmentEnd want = make_backend("cuda", BackendOptions{})->align(s0, s1, Scoring(1, -3, 5, 2));
    for (const BackendOptions& grid : stream_grids())
        for (const int32_t bound : {0, want.score}) EXPECT_EQ(stream_from(grid, bound, s0, s1), want) << "bound " << bound;
}

}  // namespace
}  // namespace chromalign
