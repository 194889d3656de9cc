//! @file reference_align against a full-matrix oracle on random and mutated pairs; hand cases.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <iostream>
#include <iterator>
#include <ostream>
#include <random>
#include <sstream>
#include <stdexcept>
#include <string>
#include <utility>

#include "engine/error.hpp"
#include "kernels/reference/reference.hpp"
#include "tests/brute_force.hpp"
#include "tests/test_support.hpp"
#include "tools/mutate.hpp"

namespace chromalign {

// Found by argument-dependent lookup, so gtest prints results readably on failure.
void PrintTo(const AlignmentEnd& r, std::ostream* os) {
    *os << "score " << r.score << " at (" << r.s0_end << ", " << r.s1_end << ")";
}

namespace {

std::string describe(const AlignmentEnd& r) {
    std::ostringstream os;
    PrintTo(r, &os);
    return os.str();
}

/// An independent stream per test, so one test's pairs do not depend on which others ran.
std::mt19937_64 test_rng(uint64_t salt) {
    std::seed_seq seq{static_cast<uint32_t>(test::seed()), static_cast<uint32_t>(test::seed() >> 32),
                      static_cast<uint32_t>(salt)};
    return std::mt19937_64(seq);
}

uint64_t uniform(uint64_t lo, uint64_t hi, std::mt19937_64& rng) {
    return lo + rng() % (hi - lo + 1);
}

struct NamedScoring {
    const char* name;
    Scoring scoring;
};

const NamedScoring kScorings[] = {
    {"CUDAlign", {1, -3, 5, 2}},
    {"Blastn", {2, -3, 7, 2}},
    {"LinearLike", {1, -1, 2, 2}},
    {"HighMatch", {5, -4, 10, 1}},
    {"CheapGaps", {1, -2, 1, 1}},
};

struct Outcome {
    AlignmentEnd reference;
    AlignmentEnd brute_force;
};

/// Runs both aligners; on disagreement reports everything needed to replay the case.
Outcome align_both(const std::string& a, const std::string& b, const Scoring& sc,
                   const std::string& context) {
    const Sequence s0 = make_sequence("s0", a), s1 = make_sequence("s1", b);
    const Outcome o{reference_align(s0, s1, sc), brute_force_align(s0, s1, sc)};
    EXPECT_EQ(o.reference, o.brute_force)
        << context << "\n  S0 = " << a << "\n  S1 = " << b << "\n  " << sc.to_string()
        << "\n  reference_align:   " << describe(o.reference)
        << "\n  brute_force_align: " << describe(o.brute_force);
    return o;
}

/// Hand cases: the reference result, after checking that the oracle agrees.
AlignmentEnd checked(const std::string& a, const std::string& b, const Scoring& sc) {
    return align_both(a, b, sc, "hand case").reference;
}

std::string stream_context(uint64_t salt) {
    return "CHROMALIGN_TEST_SEED=" + std::to_string(test::seed()) + ", stream " +
           std::to_string(salt);
}

std::string replay_context(uint64_t salt, int pair) {
    return stream_context(salt) + ", pair " + std::to_string(pair);
}

/// N content drawn per pair: mostly clean DNA, sometimes a little N, sometimes a lot.
double random_n_rate(std::mt19937_64& rng) {
    static const double kRates[] = {0.0, 0.0, 0.0, 0.05, 0.3};
    return kRates[rng() % 5];
}

/// A length in [1, 60], forced to 1 now and then so thin matrices are always covered.
int64_t random_length(std::mt19937_64& rng) {
    return rng() % 10 == 0 ? 1 : static_cast<int64_t>(uniform(1, 60, rng));
}

/// A copy of `source` with a random mutation load, sometimes inside random flanks so the
/// best alignment starts and ends away from the matrix corners.
std::string mutated_copy(const std::string& source, std::mt19937_64& rng) {
    static const double kSubstitution[] = {0.0, 0.02, 0.1, 0.25};
    static const double kIndel[] = {0.0, 0.03, 0.1};
    gen::MutationSpec spec;
    spec.substitution = kSubstitution[rng() % 4];
    spec.indel = kIndel[rng() % 3];
    spec.max_indel = static_cast<int>(uniform(1, 6, rng));
    std::string copy = gen::mutate(source, spec, rng);
    if (rng() % 2 == 0) {
        const double n_rate = random_n_rate(rng);
        copy = gen::random_dna(uniform(0, 8, rng), rng, n_rate) + copy +
               gen::random_dna(uniform(0, 8, rng), rng, n_rate);
    }
    return copy;
}

constexpr int kPairsPerStream = 3000;
constexpr int kMaxReportedFailures = 5;

class ReferenceVsBruteForce : public ::testing::TestWithParam<size_t> {
protected:
    const Scoring& scoring() const { return kScorings[GetParam()].scoring; }
    uint64_t salt(uint64_t kind) const { return 2 * GetParam() + kind; }
};

TEST_P(ReferenceVsBruteForce, RandomPairs) {
    const uint64_t stream = salt(0);
    std::mt19937_64 rng = test_rng(stream);
    int failures = 0;
    for (int p = 0; p < kPairsPerStream; ++p) {
        const double n_rate = random_n_rate(rng);
        const std::string a = gen::random_dna(random_length(rng), rng, n_rate);
        const std::string b = gen::random_dna(random_length(rng), rng, n_rate);
        const Outcome o = align_both(a, b, scoring(), replay_context(stream, p));
        if (o.reference != o.brute_force && ++failures == kMaxReportedFailures) break;
    }
}

TEST_P(ReferenceVsBruteForce, MutatedPairs) {
    const uint64_t stream = salt(1);
    std::mt19937_64 rng = test_rng(stream);
    int failures = 0, high_scoring = 0;
    for (int p = 0; p < kPairsPerStream; ++p) {
        const std::string source = gen::random_dna(random_length(rng), rng, random_n_rate(rng));
        std::string a = source, b = mutated_copy(source, rng);
        if (rng() % 2 == 0) std::swap(a, b);
        const Outcome o = align_both(a, b, scoring(), replay_context(stream, p));
        // Half the best conceivable score: only similar pairs get there.
        const int64_t shortest = std::min(a.size(), b.size());
        if (shortest >= 8 && o.reference.score >= shortest * scoring().match() / 2) ++high_scoring;
        if (o.reference != o.brute_force && ++failures == kMaxReportedFailures) break;
    }
    // Guards the test itself: random pairs would leave the high-score path unexercised.
    EXPECT_GT(high_scoring, kPairsPerStream / 4) << stream_context(stream);
}

INSTANTIATE_TEST_SUITE_P(Scorings, ReferenceVsBruteForce,
                         ::testing::Range<size_t>(0, std::size(kScorings)),
                         [](const ::testing::TestParamInfo<size_t>& info) {
                             return std::string(kScorings[info.param].name);
                         });

TEST(ReferenceVsBruteForceMatrices, RandomAndMutatedPairs) {
    const uint64_t stream = 200;
    std::mt19937_64 rng = test_rng(stream);
    for (const test::NamedScoring& ns : test::matrix_scorings(rng)) {
        int failures = 0;
        for (int p = 0; p < 600; ++p) {
            const std::string source = gen::random_dna(random_length(rng), rng, random_n_rate(rng));
            std::string a = source;
            std::string b = p % 3 == 0 ? gen::random_dna(random_length(rng), rng, random_n_rate(rng))
                                       : mutated_copy(source, rng);
            if (rng() % 2 == 0) std::swap(a, b);
            const Outcome o = align_both(a, b, ns.scoring, ns.name + ", " + replay_context(stream, p));
            if (o.reference != o.brute_force && ++failures == kMaxReportedFailures) break;
        }
    }
}

const Scoring kCudalign{1, -3, 5, 2};

TEST(ReferenceHandCases, MatrixRowsAreS0Bases) {
    // A against G scores 5, G against A -5: only S0 = A, S1 = G aligns.
    const Scoring sc = Scoring::from_matrix({{{2, -4, 5, -4}, {-4, 2, -4, -4}, {-5, -4, 2, -4}, {-4, -4, -4, 2}}}, 5, 2);
    EXPECT_EQ(checked("A", "G", sc), (AlignmentEnd{5, 1, 1}));
    EXPECT_EQ(checked("G", "A", sc), AlignmentEnd{});
    // N scores the lowest entry (-5) against everything, itself included.
    EXPECT_EQ(checked("AGN", "GAN", sc), (AlignmentEnd{5, 1, 1}));
    EXPECT_EQ(checked("NNN", "NNN", sc), AlignmentEnd{});
}

TEST(ReferenceHandCases, CudalignFigure2) {
    // Linear gap 2: match +1, mismatch -1, gap_open 2, gap_extend 2.
    const Scoring sc{1, -1, 2, 2};
    EXPECT_EQ(checked("AGTTCCGGAGG", "ACTTCCAGA", sc), (AlignmentEnd{5, 9, 9}));
}

TEST(ReferenceHandCases, IdenticalSequencesScoreTheirFullLength) {
    // H(i,j) <= match * min(i,j), so only the last cell can reach match * length.
    const std::string s = "GATTACACATGCAGTTCGAAGCT";
    const int64_t len = static_cast<int64_t>(s.size());
    for (const NamedScoring& ns : kScorings) {
        SCOPED_TRACE(ns.name);
        const AlignmentEnd expected{static_cast<int32_t>(len * ns.scoring.match()), len, len};
        EXPECT_EQ(checked(s, s, ns.scoring), expected);
    }
}

TEST(ReferenceHandCases, NothingAlignsReportsZeroAtOrigin) {
    for (const NamedScoring& ns : kScorings) {
        SCOPED_TRACE(ns.name);
        EXPECT_EQ(checked("AAAA", "CCCC", ns.scoring), AlignmentEnd{});
        EXPECT_EQ(checked("NNNNN", "NNN", ns.scoring), AlignmentEnd{});
        EXPECT_EQ(checked("RYKMSW", "RYKMSW", ns.scoring), AlignmentEnd{});
    }
}

TEST(ReferenceHandCases, LengthOnePairs) {
    EXPECT_EQ(checked("A", "A", kCudalign), (AlignmentEnd{1, 1, 1}));
    EXPECT_EQ(checked("A", "C", kCudalign), AlignmentEnd{});
    EXPECT_EQ(checked("N", "N", kCudalign), AlignmentEnd{});
    EXPECT_EQ(checked("t", "T", kCudalign), (AlignmentEnd{1, 1, 1}));
    EXPECT_EQ(checked("G", "TTGTT", kCudalign), (AlignmentEnd{1, 1, 3}));
    EXPECT_EQ(checked("TTGTT", "G", kCudalign), (AlignmentEnd{1, 3, 1}));
}

TEST(ReferenceHandCases, EmptySequenceScoresZero) {
    EXPECT_EQ(checked("", "ACGT", kCudalign), AlignmentEnd{});
    EXPECT_EQ(checked("ACGT", "", kCudalign), AlignmentEnd{});
}

// Tie rule: among cells holding the best score, the smallest row wins, then the smallest column.
// In each case the best is 4 (one exact ACGT or GGCA); no gapped or mismatched path reaches 4,
// since every penalty costs at least 3 and no longer near-identical stretch exists.

TEST(ReferenceTieRule, SameRowSmallestColumnWins) {
    // ACGT of S0 ends at row 4 against columns 4 and 9.
    EXPECT_EQ(checked("ACGT", "ACGTTACGT", kCudalign), (AlignmentEnd{4, 4, 4}));
}

TEST(ReferenceTieRule, SameColumnSmallestRowWins) {
    // ACGT of S1 ends at column 4 against rows 4 and 9.
    EXPECT_EQ(checked("ACGTTACGT", "ACGT", kCudalign), (AlignmentEnd{4, 4, 4}));
}

TEST(ReferenceTieRule, EarlierRowWinsOverSmallerColumn) {
    // S0 = ACGT TTT GGCA, S1 = GGCA AAAA ACGT: ACGT scores 4 at (4, 11), GGCA scores 4 at
    // (11, 4). The later row has the smaller column; the earlier row must still win.
    EXPECT_EQ(checked("ACGTTTTGGCA", "GGCAAAAACGT", kCudalign), (AlignmentEnd{4, 4, 11}));
}

TEST(ReferenceTieRule, SixCellTie) {
    // S0 = AC G AC: AC ends at rows 2 and 5; S1 = AC T AC T AC: AC ends at columns 2, 5, 8.
    // All six cells score 2 (AC G AC vs AC T AC gives only 2 + 2 - 3); (2, 2) wins.
    EXPECT_EQ(checked("ACGAC", "ACTACTAC", kCudalign), (AlignmentEnd{2, 2, 2}));
}

// Gap convention: a gap of length k costs gap_open + (k-1) * gap_extend.

TEST(ReferenceGapCost, OneGapOfThree) {
    // S0 = A^20 C^20, S1 = A^20 GGG C^20. One 3-long gap: 40 - (5 + 2*2) = 31 at (40, 43).
    // Other conventions would give 29 (open + k*extend) or 25 (k * open); mismatching GGG
    // against CCC without a gap gives only 20 + 17 - 9 = 28; either half alone gives 20.
    const std::string as(20, 'A'), cs(20, 'C');
    EXPECT_EQ(checked(as + cs, as + "GGG" + cs, kCudalign), (AlignmentEnd{31, 40, 43}));
    // Blastn-like {2,-3,7,2}: 80 - (7 + 2*2) = 69.
    EXPECT_EQ(checked(as + cs, as + "GGG" + cs, Scoring{2, -3, 7, 2}),
              (AlignmentEnd{69, 40, 43}));
}

// Four unrelated 12-mers: shifting the diagonal through one of them instead of opening a gap
// matches only by chance, so the best alignment keeps every block on its own diagonal.
const std::string kBlocks[] = {"AGCTAGGTCCAT", "GATCCTAGCTTA", "CAGGTACGAATC", "TTCGGACATGCA"};

TEST(ReferenceGapCost, OneGapOfThreeUnderEveryScoring) {
    // S1 = S0 with GGG inserted mid-way: 48 matches and one gap of length 3.
    const std::string s0 = kBlocks[0] + kBlocks[1] + kBlocks[2] + kBlocks[3];
    const std::string s1 = kBlocks[0] + kBlocks[1] + "GGG" + kBlocks[2] + kBlocks[3];
    for (const NamedScoring& ns : kScorings) {
        const Scoring& sc = ns.scoring;
        const int32_t expected = 48 * sc.match() - (sc.gap_open + 2 * sc.gap_extend);
        EXPECT_EQ(checked(s0, s1, sc), (AlignmentEnd{expected, 48, 51})) << ns.name;
    }
}

TEST(ReferenceGapCost, SeparateGapsEachPayTheOpenCost) {
    // An N between consecutive blocks of S1: 48 matches and three gaps of length 1.
    const std::string s0 = kBlocks[0] + kBlocks[1] + kBlocks[2] + kBlocks[3];
    const std::string s1 =
        kBlocks[0] + "N" + kBlocks[1] + "N" + kBlocks[2] + "N" + kBlocks[3];
    for (const NamedScoring& ns : kScorings) {
        const int32_t expected = 48 * ns.scoring.match() - 3 * ns.scoring.gap_open;
        EXPECT_EQ(checked(s0, s1, ns.scoring), (AlignmentEnd{expected, 48, 51})) << ns.name;
    }
}

TEST(ScoringValidate, AcceptsTheTestedSets) {
    EXPECT_EQ(Scoring{}.validate(), "");
    for (const NamedScoring& ns : kScorings) EXPECT_EQ(ns.scoring.validate(), "") << ns.name;
    EXPECT_EQ((Scoring{kMaxScoreParameter, -kMaxScoreParameter, kMaxScoreParameter,
                       kMaxScoreParameter}
                   .validate()),
              "");
}

TEST(ScoringValidate, RejectsBadValues) {
    const int32_t big = kMaxScoreParameter + 1;
    const Scoring bad[] = {
        {0, -3, 5, 2},   {-1, -3, 5, 2}, {1, 0, 5, 2},   {1, 2, 5, 2},   {1, -3, 0, 2},
        {1, -3, -5, 2},  {1, -3, 5, 0},  {1, -3, 5, -2}, {big, -3, 5, 2}, {1, -big, 5, 2},
        {1, -3, big, 2}, {1, -3, 5, big},
    };
    for (const Scoring& sc : bad) EXPECT_NE(sc.validate(), "") << sc.to_string();
}

TEST(ScoringOverflow, ChromosomeScaleAtMatchOnePasses) {
    EXPECT_NO_THROW(kCudalign.check_no_overflow(250'000'000, 250'000'000));
    // Only the shorter sequence bounds the score.
    EXPECT_NO_THROW((Scoring{1000, -3, 5, 2}.check_no_overflow(3'000'000'000, 1000)));
}

TEST(ScoringOverflow, LargeMatchOnLongSequencesThrows) {
    EXPECT_THROW((Scoring{5, -4, 10, 1}.check_no_overflow(250'000'000, 250'000'000)), Error);
    EXPECT_THROW((Scoring{1000, -3, 5, 2}.check_no_overflow(10'000'000, 10'000'000)), Error);
    EXPECT_THROW(kCudalign.check_no_overflow(3'000'000'000, 3'000'000'000), Error);
}

TEST(Mutate, SameSeedSameOutput) {
    std::mt19937_64 r1 = test_rng(100), r2 = test_rng(100);
    const std::string s1 = gen::random_dna(500, r1, 0.1), s2 = gen::random_dna(500, r2, 0.1);
    EXPECT_EQ(s1, s2);
    EXPECT_EQ(gen::mutate(s1, gen::MutationSpec{0.1, 0.05, 4}, r1),
              gen::mutate(s2, gen::MutationSpec{0.1, 0.05, 4}, r2));
}

TEST(Mutate, SubstitutionsAlwaysChangeTheBase) {
    std::mt19937_64 rng = test_rng(101);
    const std::string source = gen::random_dna(1000, rng, 0.1);
    const std::string copy = gen::mutate(source, gen::MutationSpec{1.0, 0.0, 1}, rng);
    ASSERT_EQ(copy.size(), source.size());
    for (size_t i = 0; i < source.size(); ++i) {
        EXPECT_NE(copy[i], source[i]) << "position " << i;
        EXPECT_NE(std::string("ACGT").find(copy[i]), std::string::npos) << "position " << i;
    }
}

TEST(Mutate, NoMutationIsACopyAndIndelsChangeTheLength) {
    std::mt19937_64 rng = test_rng(102);
    const std::string source = gen::random_dna(2000, rng);
    EXPECT_EQ(source.find_first_not_of("ACGT"), std::string::npos);
    EXPECT_EQ(gen::random_dna(50, rng, 1.0), std::string(50, 'N'));
    EXPECT_EQ(gen::mutate(source, gen::MutationSpec{0.0, 0.0, 8}, rng), source);
    // About 200 indels of +-1..8 bases cancel out exactly once in ~180 draws (seed
    // 14684650493242851327 did): five draws that all keep the length would take ~1e-11.
    bool length_changed = false;
    for (int draw = 0; draw < 5; ++draw)
        length_changed |= gen::mutate(source, gen::MutationSpec{0.0, 0.1, 8}, rng).size() != source.size();
    EXPECT_TRUE(length_changed);
    EXPECT_THROW(gen::mutate(source, gen::MutationSpec{1.5, 0.0, 8}, rng), Error);
    EXPECT_THROW(gen::mutate(source, gen::MutationSpec{0.0, 0.0, 0}, rng), Error);
}

}  // namespace
}  // namespace chromalign
