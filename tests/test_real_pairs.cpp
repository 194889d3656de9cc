//! @file The reference engine on real sequences with published results (../shared/data/README.md).
#include <gtest/gtest.h>

#include "kernels/reference/reference.hpp"
#include "io/fasta.hpp"
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

}  // namespace
}  // namespace chromalign
