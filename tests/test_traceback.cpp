//! @file The traceback oracle and the alignment type: every alignment rescores to its score
//! and ends where reference_align says, on random, mutated, tie-rich and edge-size pairs.
#include <gtest/gtest.h>

#include <random>

#include "engine/alignment/alignment.hpp"
#include "engine/error.hpp"
#include "kernels/reference/reference.hpp"
#include "kernels/reference/traceback.hpp"
#include "tests/test_support.hpp"

namespace chromalign {
namespace {

/// The traceback's alignment agrees with reference_align and with itself.
void expect_consistent(const Sequence& s0, const Sequence& s1, const Scoring& scoring, const std::string& what) {
    const Alignment a = reference_traceback(s0, s1, scoring);
    const AlignmentEnd end = reference_align(s0, s1, scoring);
    ASSERT_EQ(a.score, end.score) << what << ", seed " << test::seed();
    EXPECT_EQ(a.s0_end, end.s0_end) << what;
    EXPECT_EQ(a.s1_end, end.s1_end) << what;
    EXPECT_EQ(rescore(a, s0, s1, scoring), a.score) << what << " " << a.cigar();
    const AlignmentStats st = alignment_stats(a);
    EXPECT_EQ(st.columns, st.matches + st.mismatches + st.gap_bases) << what;
    int64_t s0_bases = 0, s1_bases = 0;
    for (const AlignmentRun& r : a.runs) {
        s0_bases += r.op == 'D' ? 0 : r.length;
        s1_bases += r.op == 'I' ? 0 : r.length;
    }
    if (a.score > 0) {
        EXPECT_EQ(s0_bases, a.s0_end - a.s0_start + 1) << what;
        EXPECT_EQ(s1_bases, a.s1_end - a.s1_start + 1) << what;
        EXPECT_TRUE(a.runs.front().op == '=' || a.runs.front().op == 'X') << "starts in a gap: " << a.cigar();
        EXPECT_TRUE(a.runs.back().op == '=' || a.runs.back().op == 'X') << "ends in a gap: " << a.cigar();
    }
}

TEST(ReferenceTraceback, HandMadePairs) {
    const Scoring cudalign(1, -3, 5, 2);
    const Alignment same = reference_traceback(make_sequence("a", "ACGTACGT"), make_sequence("b", "ACGTACGT"), cudalign);
    EXPECT_EQ(same.cigar(), "8=");
    EXPECT_EQ(same.score, 8);
    EXPECT_EQ(same.s0_start, 1);
    EXPECT_EQ(same.s1_end, 8);
    // Three C in S0 only: a gap of 3 costs 5 + 2 + 2 = 9, less than the 10 matches it joins.
    const std::string a(10, 'A'), t(10, 'T');
    const Alignment gap = reference_traceback(make_sequence("a", a + "CCC" + t), make_sequence("b", a + t), cudalign);
    EXPECT_EQ(gap.cigar(), "10=3I10=");
    EXPECT_EQ(gap.score, 11);
    const AlignmentStats st = alignment_stats(gap);
    EXPECT_EQ(st.gap_opens, 1);
    EXPECT_EQ(st.gap_bases, 3);
    EXPECT_NEAR(st.identity(), 20.0 / 23.0, 1e-12);
    // The same in S1 only is a deletion.
    EXPECT_EQ(reference_traceback(make_sequence("a", a + t), make_sequence("b", a + "GGG" + t), cudalign).cigar(), "10=3D10=");
    // N never matches, itself included: it is an X.
    EXPECT_EQ(reference_traceback(make_sequence("a", "AAAANAAAA"), make_sequence("b", "AAAANAAAA"), cudalign).cigar(), "4=1X4=");
    // Nothing aligns: the empty alignment.
    const Alignment none = reference_traceback(make_sequence("a", "AAAA"), make_sequence("b", "CCCC"), cudalign);
    EXPECT_EQ(none.cigar(), "*");
    EXPECT_EQ(rescore(none, make_sequence("a", "AAAA"), make_sequence("b", "CCCC"), cudalign), 0);
}

TEST(ReferenceTraceback, RandomMutatedAndTiedPairs) {
    std::mt19937_64 rng(test::seed() + 40);
    std::vector<test::NamedScoring> scorings = test::matrix_scorings(rng);
    scorings.push_back({"cudalign", Scoring(1, -3, 5, 2)});
    scorings.push_back({"blastn", Scoring(2, -3, 7, 2)});
    scorings.push_back({"hoxd70", test::hoxd70()});
    for (int k = 0; k < 60; ++k) {
        const test::NamedScoring& s = scorings[static_cast<size_t>(k) % scorings.size()];
        const int64_t m = 1 + static_cast<int64_t>(rng() % 600), n = 1 + static_cast<int64_t>(rng() % 600);
        auto [a, b] = k % 3 == 0 ? test::random_pair(m, n, rng) : test::mutated_pair(m, n, rng, k % 5 == 0 ? 0.02 : 0);
        expect_consistent(a, b, s.scoring, "pair #" + std::to_string(k) + ", " + s.name);
        if (HasFatalFailure()) return;
    }
    const std::string x = test::preview(test::mutated_pair(300, 1, rng).first, 300);
    expect_consistent(make_sequence("a", x), make_sequence("b", x + x), Scoring(1, -3, 5, 2), "S1 = S0 twice");
    expect_consistent(make_sequence("a", std::string(200, 'A')), make_sequence("b", std::string(150, 'A')),
                      Scoring(1, -3, 5, 2), "a homopolymer: ties everywhere");
    for (const int64_t m : {1, 2, 31, 32, 33, 127, 128, 129})
        for (const int64_t n : {1, 2, 63, 64, 65}) {
            auto [a, b] = test::mutated_pair(m, n, rng);
            expect_consistent(a, b, Scoring(1, -3, 5, 2), "edge " + std::to_string(m) + " x " + std::to_string(n));
        }
}

TEST(Alignment, RescoreRefusesRunsThatDoNotFit) {
    const Sequence s0 = make_sequence("a", "ACGTT"), s1 = make_sequence("b", "ACGAT");
    const Scoring sc(1, -3, 5, 2);
    Alignment a;
    a.score = 1;
    a.s0_start = a.s1_start = 1;
    a.s0_end = a.s1_end = 5;
    a.runs = {{'=', 3}, {'X', 1}, {'=', 1}};
    EXPECT_EQ(rescore(a, s0, s1, sc), 1);
    a.runs = {{'=', 5}};  // column 4 is a mismatch
    EXPECT_THROW(rescore(a, s0, s1, sc), Error);
    a.runs = {{'=', 3}, {'X', 1}};  // ends before the end
    EXPECT_THROW(rescore(a, s0, s1, sc), Error);
    a.runs = {{'=', 3}, {'X', 1}, {'=', 1}, {'I', 1}};  // passes it
    EXPECT_THROW(rescore(a, s0, s1, sc), Error);
    a.s0_end = 6;  // outside S0
    EXPECT_THROW(rescore(a, s0, s1, sc), Error);
}

TEST(ReferenceTraceback, RefusesMatricesItCannotHold) {
    const Sequence big = make_sequence("a", std::string(1 << 15, 'A'));
    EXPECT_THROW(reference_traceback(big, make_sequence("b", std::string(1 << 14, 'A')), Scoring{}), Error);
}

}  // namespace
}  // namespace chromalign
