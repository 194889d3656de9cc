//! @file The scoring home: the N rule, validation, the overflow bound, the kernels' derived
//! terms (checked against Scoring::score for every pair of codes), and matrix files.
#include <gtest/gtest.h>

#include <cstdint>
#include <fstream>
#include <random>
#include <string>
#include <vector>

#include "engine/error.hpp"
#include "engine/scoring/matrix_file.hpp"
#include "engine/scoring/scoring.hpp"
#include "engine/sequence.hpp"
#include "tests/test_support.hpp"

namespace chromalign {
namespace {

const Scoring kHoxd70 = test::hoxd70();

/// Every scoring these tests derive terms from: presets, match/mismatch sets of the backend
/// tests, and the backends' matrices (random ones from the printed seed).
std::vector<test::NamedScoring> all_scorings() {
    std::mt19937_64 rng(test::seed());
    std::vector<test::NamedScoring> all = {
        {"cudalign", Scoring{}},         {"blastn", {2, -3, 7, 2}},  {"cheap_gaps", {1, -2, 1, 1}},
        {"wide", {200, -150, 300, 40}},  {"big_match", {12, -15, 25, 5}},
    };
    for (test::NamedScoring& s : test::matrix_scorings(rng)) all.push_back(std::move(s));
    return all;
}

TEST(ScoringRule, OtherCodesScoreTheLowestEntry) {
    const Scoring mm{2, -3, 7, 2};
    EXPECT_EQ(mm.other, -3);
    EXPECT_EQ(kHoxd70.other, -125);
    struct Pair {
        uint8_t a, b;
        int32_t match_mismatch, hoxd70;
    };
    const Pair pairs[] = {
        {kBaseA, kBaseA, 2, 91},    {kBaseC, kBaseC, 2, 100},   {kBaseA, kBaseG, -3, -31},
        {kBaseG, kBaseA, -3, -31},  {kBaseT, kBaseC, -3, -31},  {kBaseA, kBaseOther, -3, -125},
        {kBaseOther, kBaseT, -3, -125}, {kBaseOther, kBaseOther, -3, -125},  // N never matches, not even N
    };
    for (const Pair& p : pairs) {
        EXPECT_EQ(mm.score(p.a, p.b), p.match_mismatch) << int{p.a} << "/" << int{p.b};
        EXPECT_EQ(kHoxd70.score(p.a, p.b), p.hoxd70) << int{p.a} << "/" << int{p.b};
    }
}

TEST(ScoringRule, MatchMismatchIsTheMatrixOfThatShape) {
    const Scoring mm{2, -3, 7, 2};
    EXPECT_TRUE(mm.is_match_mismatch());
    EXPECT_EQ(mm.match(), 2);
    EXPECT_EQ(mm.mismatch(), -3);
    const Scoring same = Scoring::from_matrix(mm.matrix, 7, 2);
    EXPECT_EQ(same, mm);
    EXPECT_EQ(same.to_string(), "match=2 mismatch=-3 gap_open=7 gap_extend=2");
    EXPECT_FALSE(kHoxd70.is_match_mismatch());
    EXPECT_NE(kHoxd70, Scoring{});
    EXPECT_EQ(kHoxd70.to_string(), "matrix A:91,-114,-31,-123 C:-114,100,-125,-31 G:-31,-125,100,-114 "
                                   "T:-123,-31,-114,91 other=-125 gap_open=430 gap_extend=30");
    EXPECT_EQ(kHoxd70.best_score(), 100);
    EXPECT_EQ(kHoxd70.lowest_score(), -125);
}

TEST(ScoringValidate, MatricesNeedAPositiveScoreAndNegativeOthers) {
    EXPECT_EQ(kHoxd70.validate(), "");
    NucleotideMatrix all_negative{};
    for (auto& row : all_negative) row = {-1, -2, -3, -4};
    NucleotideMatrix all_positive{};
    for (auto& row : all_positive) row = {1, 2, 3, 4};
    NucleotideMatrix too_big = kHoxd70.matrix;
    too_big[2][3] = kMaxScoreParameter + 1;
    Scoring n_above_a_pair = kHoxd70;
    n_above_a_pair.other = -100;  // above -125: no rule gives this, validate still refuses it
    const struct {
        Scoring scoring;
        std::string why;
    } cases[] = {
        {Scoring::from_matrix(all_negative, 5, 2), "the matrix needs a positive score (its largest is -1)"},
        {Scoring::from_matrix(all_positive, 5, 2), "N and other codes score 1, which must be negative"},
        {Scoring::from_matrix(too_big, 5, 2), "every score parameter must lie within +-1048576"},
        {n_above_a_pair, "N and other codes score -100, above A/C (-114)"},
        {Scoring::from_matrix(kHoxd70.matrix, 0, 30), "gap-open must be a positive cost (got 0)"},
        {Scoring::from_matrix(kHoxd70.matrix, 430, -1), "gap-extend must be a positive cost (got -1)"},
    };
    for (const auto& c : cases) EXPECT_EQ(c.scoring.validate(), c.why) << c.scoring.to_string();
}

TEST(ScoringOverflow, RefusedBeyondTheLongestLengthThatFits) {
    // HOXD70's best is 100 per base: 10,695,475 bases fit under 2^30 - 2^22, 21.6 Mbp do not.
    EXPECT_EQ(kHoxd70.longest_length(), 10'695'475);
    EXPECT_NO_THROW(kHoxd70.check_no_overflow(10'695'475, 250'000'000));
    EXPECT_THROW(kHoxd70.check_no_overflow(10'695'476, 10'695'476), Error);
    try {
        kHoxd70.check_no_overflow(21'600'000, 22'000'000);
        FAIL() << "a 22 Mbp pair under HOXD70 must be refused";
    } catch (const Error& e) {
        const std::string what = e.what();
        EXPECT_NE(what.find("at most 10695475 bases"), std::string::npos) << what;
        EXPECT_NE(what.find("matrix of smaller scores"), std::string::npos) << what;
    }
    try {
        Scoring{1000, -3, 5, 2}.check_no_overflow(10'000'000, 10'000'000);
        FAIL() << "match 1000 on 10 Mbp must be refused";
    } catch (const Error& e) {
        EXPECT_NE(std::string(e.what()).find("at most 1069547 bases"), std::string::npos) << e.what();
        EXPECT_NE(std::string(e.what()).find("--match"), std::string::npos) << e.what();
    }
}

/// pshufb on one lane: byte i of the result is table[index byte i & 15], or 0 when bit 7 is set.
uint32_t pshufb_lane(const uint8_t* table, uint32_t index) {
    uint32_t out = 0;
    for (int i = 0; i < 4; ++i) {
        const uint32_t byte = (index >> (8 * i)) & 0xffu;
        if (!(byte & 0x80u)) out |= uint32_t{table[byte & 15u]} << (8 * i);
    }
    return out;
}

TEST(ScoringTerms, CpuTablesGiveEveryDiagonalTerm) {
    for (const test::NamedScoring& ns : all_scorings()) {
        const Scoring& s = ns.scoring;
        ASSERT_EQ(s.validate(), "") << ns.name;
        const CpuScoringTerms t = cpu_scoring_terms(s);
        EXPECT_EQ(t.equality, s.is_match_mismatch()) << ns.name;
        EXPECT_EQ(t.step, int64_t{s.best_score()} + s.gap_open) << ns.name;
        for (int a = 0; a <= kBaseOther; ++a)
            for (int b = 0; b <= kBaseOther; ++b) {
                const int64_t want = int64_t{s.gap_open} + s.score(static_cast<uint8_t>(a), static_cast<uint8_t>(b));
                // The matrix path's lanes (MatrixLookup): 4a | b in the low byte, 0x80 for another code.
                const uint32_t index = 0x80808000u | (a < 4 ? 4u * a : 0x80u) | (b < 4 ? uint32_t(b) : 0x80u);
                int64_t t_ab = 0;
                for (int p = 0; p < t.plane_count; ++p) t_ab |= int64_t{pshufb_lane(t.planes[p], index)} << (8 * p);
                EXPECT_EQ(t.diag_other + t_ab, want) << ns.name << " " << a << "/" << b;
                if (t.equality) {
                    EXPECT_EQ(a < 4 && a == b ? t.diag_match : t.diag_other, want) << ns.name;
                }
            }
    }
}

TEST(ScoringTerms, CpuPlanesAndSixteenBitEligibility) {
    std::mt19937_64 rng(test::seed());
    for (const test::NamedScoring& ns : test::matrix_scorings(rng)) {
        const CpuScoringTerms t = cpu_scoring_terms(ns.scoring);
        const int want_planes = ns.name == "big" || ns.name == "human_chimp_v2" ? 2 : ns.name == "huge" ? 3 : 1;
        EXPECT_EQ(t.plane_count, want_planes) << ns.name;
        // 16-bit lanes need one plane, and HOXD70's step of 530 never fits a tile of 64 rows.
        const bool sixteen = ns.name == "small" || ns.name == "tiny" || ns.name == "match_mismatch_shape";
        EXPECT_EQ(t.relative16_fits(64, 64), sixteen) << ns.name;
        EXPECT_EQ(t.relative16_max_cols(64) > 0, sixteen) << ns.name;
    }
}

TEST(ScoringTerms, CpuSixteenBitBoundOfMatchMismatchIsUnchanged) {
    for (const Scoring& s : {Scoring{}, Scoring{2, -3, 7, 2}, Scoring{12, -15, 25, 5}, Scoring{1, -2, 1, 1}})
        for (const int64_t rows : {8, 64, 128, 512}) {
            // The bound as cpu_kernels.cpp computed it before the scoring had a home.
            const int64_t step = int64_t{s.match()} + s.gap_open;
            const int64_t slack = 2 * (int64_t{s.gap_open} + s.gap_extend + s.match() - s.mismatch());
            const CpuScoringTerms t = cpu_scoring_terms(s);
            EXPECT_EQ(t.relative16_max_cols(rows), (32767 - ((rows + 2) * step + slack)) / step) << s.to_string();
            for (const int64_t cols : {int64_t{16}, int64_t{1024}, int64_t{4096}})
                EXPECT_EQ(t.relative16_fits(rows, cols), (rows + cols + 2) * step + slack <= 32767) << s.to_string();
        }
}

/// prmt in its default mode: byte i of the result picks byte (selector nibble i & 7) of
/// {b, a}, or replicates that byte's sign bit when the nibble's bit 3 is set.
uint32_t prmt(uint32_t a, uint32_t b, uint32_t selector) {
    const uint64_t bytes = uint64_t{a} | (uint64_t{b} << 32);
    uint32_t out = 0;
    for (int i = 0; i < 4; ++i) {
        const uint32_t nibble = (selector >> (4 * i)) & 0xfu;
        uint32_t byte = static_cast<uint32_t>(bytes >> (8 * (nibble & 7u))) & 0xffu;
        if (nibble & 8u) byte = byte & 0x80u ? 0xffu : 0u;
        out |= byte << (8 * i);
    }
    return out;
}

TEST(ScoringTerms, CudaTermsGiveEveryDiagonalTerm) {
    using Substitution = CudaScoringTerms::Substitution;
    for (const test::NamedScoring& ns : all_scorings()) {
        const Scoring& s = ns.scoring;
        const CudaScoringTerms t = cuda_scoring_terms(s);
        EXPECT_EQ(t.ext_f, std::min(s.gap_extend, s.gap_open)) << ns.name;
        for (int a = 0; a <= kBaseOther; ++a)
            for (const int c : {0, 1, 2, 3, 5}) {  // S1's other code is 5 on the device
                const int b = c < 4 ? c : kBaseOther;
                const int32_t want = s.gap_open + s.score(static_cast<uint8_t>(a), static_cast<uint8_t>(b));
                EXPECT_EQ(t.diag[a][b], want) << ns.name;
                if (t.substitution == Substitution::kBytes) {
                    // kernels/cuda: load_codes' word of code a, then
                    // byte_select(word, other_bytes, c * 0x1111 + 0x8880).
                    const uint32_t other = static_cast<uint32_t>(t.other_bytes);
                    const uint32_t word = a < 4 ? other ^ (static_cast<uint32_t>(t.match_flip) << (8 * a)) : other;
                    const uint32_t selector = static_cast<uint32_t>(c) * 0x1111u + 0x8880u;
                    EXPECT_EQ(static_cast<int32_t>(prmt(word, other, selector)), want) << ns.name << " " << a << "/" << c;
                }
                if (t.substitution == Substitution::kEquality) {
                    EXPECT_EQ(a == c ? t.diag_match : t.diag_other, want) << ns.name;
                }
            }
    }
}

TEST(ScoringTerms, CudaSubstitutionOfEachScoring) {
    using Substitution = CudaScoringTerms::Substitution;
    EXPECT_EQ(cuda_scoring_terms(Scoring{}).substitution, Substitution::kBytes);
    EXPECT_EQ(cuda_scoring_terms(Scoring{200, -150, 300, 40}).substitution, Substitution::kEquality);
    EXPECT_EQ(cuda_scoring_terms(kHoxd70).substitution, Substitution::kTable);
    std::mt19937_64 rng(test::seed());
    // Byte mode is match/mismatch's: a matrix of that shape takes it, every other the table,
    // even when its diagonal terms would fit a byte ("tiny", "small").
    for (const test::NamedScoring& ns : test::matrix_scorings(rng)) {
        const Substitution want = ns.name == "match_mismatch_shape" ? Substitution::kBytes : Substitution::kTable;
        EXPECT_EQ(cuda_scoring_terms(ns.scoring).substitution, want) << ns.name;
    }
    // The byte-mode terms of match/mismatch are the ones the kernel computed itself before.
    const CudaScoringTerms t = cuda_scoring_terms(Scoring{2, -3, 7, 2});
    EXPECT_EQ(static_cast<uint32_t>(t.other_bytes), (static_cast<uint32_t>(7 - 3) & 0xffu) * 0x01010101u);
    EXPECT_EQ(static_cast<uint32_t>(t.match_flip), static_cast<uint32_t>((7 + 2) ^ (7 - 3)) & 0xffu);
}

// ---------------------------------------------------------------------------------------------
// Matrix files
// ---------------------------------------------------------------------------------------------

const char kHoxd70Text[] =
    "# LASTZ's default\n"
    "      A     C     G     T\n"
    "A    91  -114   -31  -123\n"
    "C  -114   100  -125   -31\n"
    "G   -31  -125   100  -114\n"
    "T  -123   -31  -114    91\n";

struct GoodFile {
    const char* label;
    std::string text;
};

TEST(MatrixFile, AcceptedForms) {
    const GoodFile good[] = {
        {"lastz", kHoxd70Text},
        {"crlf_tabs_trailing_comments",
         "A\tC\tG\tT   # header\r\nA 91 -114 -31 -123\r\n\r\nC -114 100 -125 -31 # C row\r\n"
         "G -31 -125 100 -114\r\nT -123 -31 -114 91"},
        {"lower_case_and_row_order", "a c g t\nt -123 -31 -114 91\ng -31 -125 100 -114\nc -114 100 -125 -31\n"
                                     "a 91 -114 -31 -123\n"},
        {"ncbi_with_n_and_star_ignored",
         "#  NCBI style, with N and * rows and columns\n   A    C    G    T    N    *\n"
         "A  91 -114  -31 -123   -1 -1000\nC -114  100 -125  -31   -1 -1000\nN  -1   -1   -1   -1    5 -1000\n"
         "G  -31 -125  100 -114   -1 -1000\nT -123  -31 -114   91   -1 -1000\n*  -1000 -1000 -1000 -1000 -1000 1\n"},
        {"columns_in_another_order", "T G C A\nA -123 -31 -114 91\nC -31 -125 100 -114\nG -114 100 -125 -31\n"
                                     "T 91 -114 -31 -123\n"},
        {"blastz_without_row_labels", "   A    C    G    T\n  91 -114  -31 -123\n-114  100 -125  -31\n"
                                      " -31 -125  100 -114\n-123  -31 -114   91\n"},
    };
    for (const GoodFile& f : good) {
        NucleotideMatrix m{};
        ASSERT_NO_THROW(m = parse_matrix(f.text, "m.txt")) << f.label;
        EXPECT_EQ(m, kHoxd70.matrix) << f.label;
    }
}

struct BadFile {
    const char* label;
    std::string text;
    std::string message;  ///< the whole what(), file and line included
};

TEST(MatrixFile, MalformedFilesNameFileAndLine) {
    const BadFile bad[] = {
        {"empty", "", "m.txt: no header row of column letters (such as 'A C G T')"},
        {"only_comments", "# nothing\n\n   # here\n", "m.txt: no header row of column letters (such as 'A C G T')"},
        {"lastz_setting", "gap_open_penalty = 400\n   A C G T\n",
         "m.txt, line 1: 'gap_open_penalty = 400' is a setting, which a matrix file may not hold: give gap costs "
         "with --gap-open (LASTZ's O + E) and --gap-extend (E)"},
        {"numbers_before_header", "# x\n91 -114 -31 -123\n",
         "m.txt, line 2: expected a header row of column letters (such as 'A C G T'), not '91'"},
        {"two_letter_label", "A C GT\n", "m.txt, line 1: column label 'GT' is not one letter"},
        {"hex_label", "A C G T 0F\n", "m.txt, line 1: column label '0F' is not one letter"},
        {"repeated_column", "A C G T c\n", "m.txt, line 1: column C appears twice"},
        {"missing_column", "A C T N\n", "m.txt, line 1: the header has no column for G"},
        {"short_row", "A C G T\nA 1 -1 -1 -1\nC -1 1 -1\n", "m.txt, line 3: row C has 3 scores, the header has 4 columns"},
        {"long_row", "A C G T\nA 1 -1 -1 -1 7\n", "m.txt, line 2: row A has 5 scores, the header has 4 columns"},
        {"not_a_number", "A C G T\nA 1 -1 x1 -1\n", "m.txt, line 2: 'x1' in row A is not an integer score"},
        {"fraction", "A C G T\nA 1 -1 -1.5 -1\n", "m.txt, line 2: '-1.5' in row A is not an integer score"},
        {"too_large", "A C G T\nA 1 -1 -1 9999999\n", "m.txt, line 2: score 9999999 in row A lies beyond +-1048576"},
        {"beyond_int64", "A C G T\nA 1 -1 -1 -99999999999999999999\n",
         "m.txt, line 2: score -99999999999999999999 in row A lies beyond +-1048576"},
        {"second_row", "A C G T\nA 1 -1 -1 -1\n\nC -1 1 -1 -1\na 1 -1 -1 -1\n",
         "m.txt, line 5: a second row for a (the first is on line 2)"},
        {"missing_row", "A C G T\nA 1 -1 -1 -1\nC -1 1 -1 -1\nT -1 -1 -1 1\n", "m.txt: no row for G"},
        {"n_row_badly_formed", "A C G T N\nN 0 0 0\n", "m.txt, line 2: row N has 3 scores, the header has 5 columns"},
        {"too_many_unlabelled", "A C G T\n1 -1 -1 -1\n-1 1 -1 -1\n-1 -1 1 -1\n-1 -1 -1 1\n1 1 1 1\n",
         "m.txt, line 6: more rows than the header has columns"},
    };
    for (const BadFile& f : bad) {
        std::string what = "(no error)";
        try {
            parse_matrix(f.text, "m.txt");
        } catch (const Error& e) {
            what = e.what();
        }
        EXPECT_EQ(what, f.message) << f.label;
    }
}

TEST(MatrixFile, ReadErrorsNameTheFile) {
    const test::TempDir dir;
    EXPECT_THROW(read_matrix_file(dir.file("missing.mat")), Error);
    try {
        read_matrix_file(dir.path().string());
        FAIL() << "a directory is no matrix file";
    } catch (const Error& e) {
        EXPECT_NE(std::string(e.what()).find(dir.path().string() + ": cannot read matrix file"), std::string::npos)
            << e.what();
    }
    std::ofstream(dir.file("h.mat")) << kHoxd70Text;
    EXPECT_EQ(read_matrix_file(dir.file("h.mat")), kHoxd70.matrix);
}

TEST(MatrixFile, PresetMatricesHoldThePublishedScores) {
    const std::string configs = std::string(CHROMALIGN_SOURCE_DIR) + "/configs/";
    EXPECT_EQ(read_matrix_file(configs + "hoxd70.mat"), kHoxd70.matrix);
    const NucleotideMatrix hoxd55 = {{{91, -90, -25, -100}, {-90, 100, -100, -25}, {-25, -100, 100, -90},
                                      {-100, -25, -90, 91}}};
    EXPECT_EQ(read_matrix_file(configs + "hoxd55.mat"), hoxd55);
    const NucleotideMatrix human_chimp = {{{90, -330, -236, -356}, {-330, 100, -318, -236},
                                           {-236, -318, 100, -330}, {-356, -236, -330, 90}}};
    EXPECT_EQ(read_matrix_file(configs + "human_chimp_v2.mat"), human_chimp);
}

}  // namespace
}  // namespace chromalign
