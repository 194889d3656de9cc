//! @file Scoring: validation, the overflow bound, and the terms each kernel family derives.
#include "engine/scoring/scoring.hpp"

#include <algorithm>

#include "engine/error.hpp"

namespace chromalign {
namespace {

constexpr char kLetters[] = "ACGT";

bool out_of_range(int64_t v) { return v > kMaxScoreParameter || v < -kMaxScoreParameter; }

/// The diagonal entries are one value and every other entry, `other` included, another.
bool uniform(const Scoring& s) {
    for (int a = 0; a < 4; ++a)
        for (int b = 0; b < 4; ++b)
            if (s.matrix[a][b] != (a == b ? s.matrix[0][0] : s.other)) return false;
    return true;
}

std::string matrix_problem(const Scoring& s) {
    if (uniform(s)) {  // match/mismatch: the messages name the flags
        if (s.match() <= 0) return "match must be positive (got " + std::to_string(s.match()) + ")";
        if (s.mismatch() >= 0) return "mismatch must be negative (got " + std::to_string(s.mismatch()) + ")";
        return {};
    }
    if (s.best_score() <= 0)
        return "the matrix needs a positive score (its largest is " + std::to_string(s.best_score()) + ")";
    if (s.other >= 0)
        return "N and other codes score " + std::to_string(s.other) + ", which must be negative";
    for (int a = 0; a < 4; ++a)
        for (int b = 0; b < 4; ++b)
            if (s.matrix[a][b] < s.other)
                return std::string("N and other codes score ") + std::to_string(s.other) + ", above " +
                       kLetters[a] + "/" + kLetters[b] + " (" + std::to_string(s.matrix[a][b]) + ")";
    return {};
}

}  // namespace

Scoring::Scoring() : Scoring(1, -3, 5, 2) {}

Scoring::Scoring(int32_t match, int32_t mismatch, int32_t gap_open_, int32_t gap_extend_)
    : other(mismatch), gap_open(gap_open_), gap_extend(gap_extend_) {
    for (int a = 0; a < 4; ++a)
        for (int b = 0; b < 4; ++b) matrix[a][b] = a == b ? match : mismatch;
}

Scoring Scoring::from_matrix(const NucleotideMatrix& matrix, int32_t gap_open, int32_t gap_extend) {
    Scoring s(1, -1, gap_open, gap_extend);
    s.matrix = matrix;
    s.other = matrix[0][0];
    for (const auto& row : matrix) s.other = std::min(s.other, *std::min_element(row.begin(), row.end()));
    return s;
}

int32_t Scoring::best_score() const {
    int32_t best = other;
    for (const auto& row : matrix) best = std::max(best, *std::max_element(row.begin(), row.end()));
    return best;
}

int32_t Scoring::lowest_score() const {
    int32_t lowest = other;
    for (const auto& row : matrix) lowest = std::min(lowest, *std::min_element(row.begin(), row.end()));
    return lowest;
}

bool Scoring::is_match_mismatch() const { return uniform(*this) && match() > mismatch(); }

std::string Scoring::validate() const {
    bool in_range = !out_of_range(other) && !out_of_range(gap_open) && !out_of_range(gap_extend);
    for (const auto& row : matrix)
        for (const int32_t v : row) in_range = in_range && !out_of_range(v);
    if (!in_range) return "every score parameter must lie within +-" + std::to_string(kMaxScoreParameter);
    if (const std::string why = matrix_problem(*this); !why.empty()) return why;
    if (gap_open <= 0) return "gap-open must be a positive cost (got " + std::to_string(gap_open) + ")";
    if (gap_extend <= 0) return "gap-extend must be a positive cost (got " + std::to_string(gap_extend) + ")";
    return {};
}

int64_t Scoring::longest_length() const { return kMaxBestScore / std::max(1, best_score()); }

void Scoring::check_no_overflow(int64_t m, int64_t n) const {
    if (const std::string why = validate(); !why.empty()) throw Error("invalid scoring: " + why);
    // The best score is at most best_score() per base of the shorter sequence.
    const int64_t shortest = std::min(m, n), longest = longest_length();
    if (shortest > longest)
        throw Error("sequences of " + std::to_string(m) + " x " + std::to_string(n) + " could reach a score of " +
                    std::to_string(shortest * best_score()) + ", beyond the 32-bit score range (limit " +
                    std::to_string(kMaxBestScore) + "); with a largest score of " + std::to_string(best_score()) +
                    " the shorter sequence may have at most " + std::to_string(longest) +
                    " bases: compare regions that short (--s0-record NAME:START-END)" +
                    (is_match_mismatch() ? " or lower --match" : " or use a matrix of smaller scores"));
}

std::string Scoring::to_string() const {
    const std::string gaps = " gap_open=" + std::to_string(gap_open) + " gap_extend=" + std::to_string(gap_extend);
    if (uniform(*this)) return "match=" + std::to_string(match()) + " mismatch=" + std::to_string(mismatch()) + gaps;
    std::string text = "matrix";
    for (int a = 0; a < 4; ++a) {
        text += std::string(" ") + kLetters[a] + ":";
        for (int b = 0; b < 4; ++b) text += (b ? "," : "") + std::to_string(matrix[a][b]);
    }
    return text + " other=" + std::to_string(other) + gaps;
}

bool Scoring::operator==(const Scoring& o) const {
    return matrix == o.matrix && other == o.other && gap_open == o.gap_open && gap_extend == o.gap_extend;
}

bool CpuScoringTerms::relative16_fits(int64_t rows, int64_t cols) const {
    return (equality || plane_count == 1) && (rows + cols + 2) * step + slack <= 32767;
}

int64_t CpuScoringTerms::relative16_max_cols(int64_t rows) const {
    if (!equality && plane_count != 1) return 0;
    return (32767 - (rows + 2) * step - slack) / step;
}

CpuScoringTerms cpu_scoring_terms(const Scoring& s) {
    CpuScoringTerms t;
    t.open = s.gap_open;
    t.ext = s.gap_extend;
    t.equality = s.is_match_mismatch();
    t.diag_match = s.gap_open + s.match();
    t.diag_other = s.gap_open + s.other;
    const int64_t span = int64_t{s.best_score()} - s.other;  // largest t
    t.plane_count = span < (1 << 8) ? 1 : span < (1 << 16) ? 2 : 3;
    for (int a = 0; a < 4; ++a)
        for (int b = 0; b < 4; ++b) {
            const int64_t v = int64_t{s.matrix[a][b]} - s.other;
            for (int p = 0; p < 3; ++p) t.planes[p][4 * a + b] = static_cast<uint8_t>(v >> (8 * p));
        }
    t.step = int64_t{s.best_score()} + s.gap_open;
    t.slack = 2 * (int64_t{s.gap_open} + s.gap_extend + s.best_score() - s.lowest_score());
    return t;
}

CudaScoringTerms cuda_scoring_terms(const Scoring& s) {
    using Substitution = CudaScoringTerms::Substitution;
    CudaScoringTerms t;
    t.open = s.gap_open;
    t.ext = s.gap_extend;
    t.ext_f = std::min(s.gap_extend, s.gap_open);
    t.diag_match = s.gap_open + s.match();
    t.diag_other = s.gap_open + s.other;
    for (int a = 0; a < 5; ++a)
        for (int b = 0; b < 5; ++b) t.diag[a][b] = s.gap_open + s.score(static_cast<uint8_t>(a), static_cast<uint8_t>(b));
    t.other_bytes = static_cast<int32_t>((static_cast<uint32_t>(t.diag_other) & 0xffu) * 0x01010101u);
    t.match_flip = static_cast<int32_t>(static_cast<uint32_t>(t.diag_match ^ t.diag_other) & 0xffu);
    const auto byte = [](int32_t v) { return v >= -128 && v <= 127; };
    t.substitution = !s.is_match_mismatch()                    ? Substitution::kTable
                     : byte(t.diag_match) && byte(t.diag_other) ? Substitution::kBytes
                                                                : Substitution::kEquality;
    return t;
}

}  // namespace chromalign
