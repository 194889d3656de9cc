//! @file The reference engine on real sequences with published results, and the CLI on the
//! strands of a real pair (../shared/data/README.md).
#include <gtest/gtest.h>

#include <algorithm>
#include <sstream>

#include "kernels/reference/reference.hpp"
#include "io/fasta.hpp"
#include "tests/resume_harness.hpp"
#include "tests/test_support.hpp"

namespace chromalign {
namespace {

const Scoring kCudalign{1, -3, 5, 2};

void check_pair(const std::string& f0, const std::string& f1, const AlignmentEnd& expected) {
    if (f0.empty() || f1.empty()) GTEST_SKIP() << "../shared/data is absent";
    const Sequence s0 = io::read_fasta(f0, {});
    const Sequence s1 = io::read_fasta(f1, {});
    const AlignmentEnd got = reference_align(s0, s1, kCudalign);
    EXPECT_EQ(got.score, expected.score);
    EXPECT_EQ(got.s0_end, expected.s0_end);
    EXPECT_EQ(got.s1_end, expected.s1_end);
}

TEST(RealPairs, BundledBeeVirusPair) {
    const std::string dir = std::string(CHROMALIGN_SOURCE_DIR) + "/data/example/";
    check_pair(dir + "NC_004830.2_deformed_wing_virus.fasta.gz",
               dir + "NC_006494.1_varroa_destructor_virus_1.fasta.gz", {3706, 10139, 10111});
}

TEST(RealPairs, Hiv1Pair10k) {
    check_pair(test::shared_data("paper/AF133821.1.fasta.gz"), test::shared_data("paper/AY352275.1.fasta.gz"),
               {5091, 9418, 9114});
}

TEST(RealPairs, MitochondrialPair57k) {
    check_pair(test::shared_data("paper/AF494279.1.fasta.gz"), test::shared_data("paper/NC_001715.1.fasta.gz"),
               {52, 41352, 33438});
}

/// The TSV's first answer: score, end in S0, end in S1 (on its forward strand), strand.
struct TsvAnswer {
    int64_t score = 0, s0_end = 0, s1_end = 0;
    std::string strand;
};

TsvAnswer first_answer(const std::string& tsv) {
    std::stringstream in(tsv);
    std::string header, line, field;
    std::getline(in, header);
    std::getline(in, line);
    std::vector<std::string> f, names;
    for (std::stringstream row(line); std::getline(row, field, '\t');) f.push_back(field);
    for (std::stringstream row(header); std::getline(row, field, '\t');) names.push_back(field);
    const size_t strand = static_cast<size_t>(std::find(names.begin(), names.end(), "strand") - names.begin());
    if (f.size() != names.size() || strand >= f.size()) return {};
    return {std::stoll(f[0]), std::stoll(f[1]), std::stoll(f[2]), f[strand]};
}

// minimap2 -x asm5 puts ELS37 185,755-1,197,859 on G27 180,670-1,191,987, strand -
// (../shared/data/README.md). Part of that block, 200 kbp of ELS37 against 300 kbp of G27 on
// both strands, ends where the block ends, on the reverse strand; the forward strand alone
// scores far less.
TEST(RealPairs, HelicobacterInvertedBlockIsOnTheReverseStrand) {
    const std::string f0 = test::shared_data("related/H_Pylori_ELS37.fasta.gz");
    const std::string f1 = test::shared_data("related/H_Pylori_G27.fasta.gz");
    if (f0.empty() || f1.empty()) GTEST_SKIP() << "../shared/data is absent";
    const std::string r0 = io::read_fasta(f0, {}).name, r1 = io::read_fasta(f1, {}).name;
    const test::ResumeHarness h(10, 10, test::seed());
    const std::vector<std::string> regions = {"-q", "-b", "cpu", "-f", "tsv", "--s0-record", r0 + ":1000001-1200000",
                                              "--s1-record", r1 + ":150001-450000"};
    std::vector<std::string> both = regions, forward = regions;
    both.insert(both.end(), {f0, f1});
    forward.insert(forward.end(), {"--strand", "forward", f0, f1});
    const test::ChildRun b = h.run_command(both), f = h.run_command(forward);
    ASSERT_EQ(b.exit_code, 0) << b.err;
    ASSERT_EQ(f.exit_code, 0) << f.err;
    const TsvAnswer got = first_answer(b.out), fwd = first_answer(f.out);
    std::printf("[ strands  ] both: %lld at (%lld, %lld) on %s; forward alone: %lld\n", static_cast<long long>(got.score),
                static_cast<long long>(got.s0_end), static_cast<long long>(got.s1_end), got.strand.c_str(),
                static_cast<long long>(fwd.score));
    EXPECT_EQ(got.strand, "-") << b.out;
    EXPECT_NEAR(got.s0_end, 1197859, 100) << b.out;
    EXPECT_NEAR(got.s1_end, 180671, 100) << b.out;
    EXPECT_GT(got.score, 100000) << b.out;
    EXPECT_LT(fwd.score * 10, got.score) << f.out;
}

}  // namespace
}  // namespace chromalign
