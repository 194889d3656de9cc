//! @file The K best search's first pass on the cpu backend (kernels/cpu/simd_whole_pass.hpp):
//! every instruction set's kernels, 16- and 32-bit lanes, give the full matrices' edges and
//! peaks (expected_whole_pass) on random and mutated pairs, tiles of whole and narrow last
//! columns; tiles whose rows no kernel band divides are left to the portable lanes.
#include <gtest/gtest.h>

#include <random>
#include <string>
#include <vector>

#include "kernels/cpu/simd_whole_pass.hpp"
#include "tests/test_support.hpp"
#include "tests/whole_pass_support.hpp"

namespace chromalign {
namespace {

using kernels::cpu::CpuIsa;

TEST(SimdWholePass, EveryKernelGivesTheFullMatricesEdgesAndPeaks) {
    const uint64_t seed = test::seed() + 61;
    std::mt19937_64 rng(seed);
    const CpuIsa strongest = kernels::cpu::select_cpu_isa();
    // +1/-3 fits 16-bit lanes; +10/-3 does not (32-bit); matrices take the table lookups.
    std::vector<test::NamedScoring> scorings = {{"+1/-3", Scoring(1, -3, 5, 2)}, {"+10/-3", Scoring(10, -3, 5, 2)}};
    for (test::NamedScoring& ns : test::matrix_scorings(rng)) scorings.push_back(std::move(ns));
    // Tile columns: whole, cut into calls, and a last column narrower than two lane widths.
    const int64_t shapes[][4] = {{1100, 900, 512, 300}, {700, 1200, 512, 512}, {1030, 2 * 2100 + 9, 256, 2100}, {300, 73, 512, 70}};
    int compared = 0;
    for (int isa = 0; isa <= static_cast<int>(strongest); ++isa)
        for (const test::NamedScoring& ns : scorings)
            for (const auto& shape : shapes) {
                const Scoring& scoring = ns.scoring;
                const int64_t m = shape[0], n = shape[1], tr = shape[2], tc = shape[3];
                auto [s0, s1] = test::mutated_pair(m, n, rng);
                test::PassVectors want(m, n, tr, tc), got(m, n, tr, tc);
                test::expected_whole_pass(s0, s1, scoring, want.pass);
                kernels::cpu::SimdTileWaves waves(static_cast<CpuIsa>(isa), 2);
                const std::string what = kernels::cpu::cpu_isa_name(static_cast<CpuIsa>(isa)) + " " + ns.name +
                                         " " + std::to_string(m) + " x " + std::to_string(n) + " tiles " +
                                         std::to_string(tr) + " x " + std::to_string(tc) + ", seed " + std::to_string(seed);
                got.pass.keep = true;
                if (!waves.whole_pass(s0, s1, scoring, got.pass)) continue;  // no kernel's bands divide tr
                ++compared;
                EXPECT_FALSE(got.pass.keep) << what;
                EXPECT_EQ(got.row_h, want.row_h) << what;
                EXPECT_EQ(got.row_f, want.row_f) << what;
                EXPECT_EQ(got.col_h, want.col_h) << what;
                EXPECT_EQ(got.col_e, want.col_e) << what;
                EXPECT_EQ(got.peaks, want.peaks) << what;
            }
    EXPECT_GE(compared, 12) << "too few shapes ran on a kernel";
    // Rows of 100 are no band of 8 rows a lane: left to the portable lanes, nothing written.
    auto [s0, s1] = test::mutated_pair(400, 400, rng);
    test::PassVectors rows(400, 400, 100, 128);
    EXPECT_FALSE(kernels::cpu::SimdTileWaves(strongest, 2).whole_pass(s0, s1, Scoring(1, -3, 5, 2), rows.pass));
    EXPECT_TRUE(rows.peaks.empty());
}

}  // namespace
}  // namespace chromalign
