//! @file The oracle of the K best non-intersecting alignments (kernels/reference/waterman_eggert.hpp):
//! the first is the reference traceback's, each re-scores, no two share an aligned pair, and on
//! tiny pairs each is as good as the best of every alignment, enumerated, that avoids the others.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <functional>
#include <random>
#include <string>
#include <vector>

#include "kernels/reference/traceback.hpp"
#include "kernels/reference/waterman_eggert.hpp"
#include "tests/test_support.hpp"

namespace chromalign {
namespace {

const Scoring kScorings[] = {{1, -3, 5, 2}, {2, -3, 7, 2}, {1, -1, 2, 1}, {5, -4, 10, 1}};

std::string random_text(int64_t length, const std::string& letters, std::mt19937_64& rng) {
    std::string text(static_cast<size_t>(length), 'A');
    for (char& c : text) c = letters[rng() % letters.size()];
    return text;
}

/// Every alignment re-scores to its score, scores never rise, and no pair is aligned twice.
void expect_disjoint_and_exact(const std::vector<Alignment>& found, const Sequence& s0, const Sequence& s1,
                               const Scoring& scoring, const std::string& what) {
    UsedPairs seen(s0.length());
    for (size_t k = 0; k < found.size(); ++k) {
        const Alignment& a = found[k];
        EXPECT_EQ(rescore(a, s0, s1, scoring), a.score) << what << ": alignment " << k + 1;
        if (k > 0) {
            EXPECT_LE(a.score, found[k - 1].score) << what << ": alignment " << k + 1;
        }
        for (const auto& [i, j] : aligned_pairs(a))
            ASSERT_FALSE(seen.has(i, j)) << what << ": alignment " << k + 1 << " aligns " << i << ", " << j << " again";
        seen.add(a);
    }
}

TEST(WatermanEggert, TheFirstIsTheReferenceTracebacksAndTheRestAvoidIt) {
    const uint64_t seed = test::seed() + 71;
    std::mt19937_64 rng(seed);
    for (int trial = 0; trial < 12; ++trial) {
        const Scoring& scoring = kScorings[trial % 4];
        auto [s0, s1] = trial % 3 == 0 ? test::random_pair(300 + rng() % 700, 300 + rng() % 700, rng)
                                       : test::mutated_pair(300 + rng() % 700, 300 + rng() % 700, rng);
        const std::vector<Alignment> found = reference_alignments(s0, s1, scoring, 15);
        ASSERT_FALSE(found.empty());
        const Alignment first = reference_traceback(s0, s1, scoring);
        EXPECT_EQ(found[0].score, first.score);
        EXPECT_EQ(found[0].cigar(), first.cigar()) << "seed " << seed;
        EXPECT_EQ(found[0].s0_start, first.s0_start);
        EXPECT_EQ(found[0].s1_start, first.s1_start);
        expect_disjoint_and_exact(found, s0, s1, scoring, "trial " + std::to_string(trial) + ", seed " +
                                                              std::to_string(seed));
    }
}

TEST(WatermanEggert, ARepeatGivesOneAlignmentPerCopyThenStopsAtTheMinimumScore) {
    // S1 holds 5 copies of a 200-base unit apart; S0 one copy: the best 5 are the copies.
    std::mt19937_64 rng(test::seed() + 72);
    const std::string unit = random_text(200, "ACGT", rng);
    std::string target;
    for (int k = 0; k < 5; ++k) target += random_text(150, "ACGT", rng) + unit;
    const Sequence s0 = make_sequence("unit", unit), s1 = make_sequence("copies", target);
    const Scoring scoring(1, -3, 5, 2);
    const std::vector<Alignment> found = reference_alignments(s0, s1, scoring, 8, 100);
    ASSERT_EQ(found.size(), 5u) << "one per copy, and nothing else reaches 100";
    std::vector<int64_t> starts;
    for (const Alignment& a : found) {
        EXPECT_EQ(a.score, 200);
        starts.push_back(a.s1_start);
    }
    std::sort(starts.begin(), starts.end());
    for (int k = 0; k < 5; ++k) EXPECT_EQ(starts[static_cast<size_t>(k)], 150 * (k + 1) + 200 * k + 1);
    // Equal scores: the tie rule takes the end cell first in row-major order, the first copy.
    EXPECT_EQ(found[0].s1_start, 151);
    expect_disjoint_and_exact(found, s0, s1, scoring, "repeat");
}

/// The best score of any local alignment of s0 x s1 that aligns no pair of `used`, by walking
/// every alignment from every start pair: an alignment starts and ends with a pair (a gap at
/// either end only lowers the score), and adjacent I and D runs are two gaps.
int64_t best_avoiding(const Sequence& s0, const Sequence& s1, const Scoring& scoring, const UsedPairs& used) {
    const int64_t m = s0.length(), n = s1.length();
    int64_t best = 0;
    // From the pair (i, j) just aligned, with `score` so far and the open gap kind, if any.
    std::function<void(int64_t, int64_t, int64_t, char)> walk = [&](int64_t i, int64_t j, int64_t score, char gap) {
        if (gap == 0) best = std::max(best, score);
        if (i < m && j < n && !used.has(i + 1, j + 1))
            walk(i + 1, j + 1, score + scoring.score(s0.codes[static_cast<size_t>(i)], s1.codes[static_cast<size_t>(j)]), 0);
        if (i < m) walk(i + 1, j, score - (gap == 'I' ? scoring.gap_extend : scoring.gap_open), 'I');
        if (j < n) walk(i, j + 1, score - (gap == 'D' ? scoring.gap_extend : scoring.gap_open), 'D');
    };
    for (int64_t i = 1; i <= m; ++i)
        for (int64_t j = 1; j <= n; ++j)
            if (!used.has(i, j)) walk(i, j, scoring.score(s0.codes[static_cast<size_t>(i - 1)], s1.codes[static_cast<size_t>(j - 1)]), 0);
    return best;
}

TEST(WatermanEggert, EachIsTheBestOfEveryAlignmentThatAvoidsTheOthers) {
    const uint64_t seed = test::seed() + 73;
    std::mt19937_64 rng(seed);
    int compared = 0;
    for (int trial = 0; trial < 10000; ++trial) {
        // Two letters and short sequences: many ties, many co-optimal and overlapping candidates.
        const Sequence s0 = make_sequence("a", random_text(1 + rng() % 7, "AC", rng));
        const Sequence s1 = make_sequence("b", random_text(1 + rng() % 7, "AC", rng));
        const Scoring& scoring = kScorings[trial % 4];
        const std::vector<Alignment> found = reference_alignments(s0, s1, scoring, 4);
        UsedPairs used(s0.length());
        for (size_t k = 0; k <= found.size() && k < 4; ++k) {
            const int64_t want = best_avoiding(s0, s1, scoring, used);
            const int64_t got = k < found.size() ? found[k].score : 0;
            ASSERT_EQ(got, want) << "alignment " << k + 1 << " of " << test::preview(s0, s0.codes.size()) << " x "
                                 << test::preview(s1, s1.codes.size()) << ", "
                                 << scoring.to_string() << ", seed " << seed;
            ++compared;
            if (k < found.size()) used.add(found[k]);
        }
        expect_disjoint_and_exact(found, s0, s1, scoring, "tiny, seed " + std::to_string(seed));
    }
    EXPECT_GT(compared, 15000);
}

}  // namespace
}  // namespace chromalign
