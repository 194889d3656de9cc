//! @file Test-only full-matrix Gotoh oracle, independent of kernels/reference/reference.cpp.
#include "tests/brute_force.hpp"

#include <algorithm>
#include <cstdint>
#include <vector>

namespace chromalign {
namespace {

using Matrix = std::vector<std::vector<int64_t>>;

// Far below any reachable score, yet far enough from INT64_MIN that subtracting penalties
// from it cannot overflow.
constexpr int64_t kMinusInfinity = INT64_MIN / 4;

/// The scoring rule spelled out again: the 4x4 matrix for A/C/G/T pairs, and the lowest entry of
/// the matrix (for match/mismatch: the mismatch) for a pair with any other code, N-N included.
int64_t substitution(uint8_t a, uint8_t b, const Scoring& sc) {
    const auto nucleotide = [](uint8_t c) { return c == kBaseA || c == kBaseC || c == kBaseG || c == kBaseT; };
    if (nucleotide(a) && nucleotide(b)) return sc.matrix[a][b];
    int64_t lowest = sc.matrix[0][0];
    for (const auto& row : sc.matrix)
        for (const int32_t v : row) lowest = std::min<int64_t>(lowest, v);
    return lowest;
}

struct GotohMatrices {
    Matrix h, e, f;
};

/// Fills H, E, F completely, column by column (row 0 and column 0 are the borders:
/// H = 0, while E and F cannot start a gap there).
GotohMatrices fill(const Sequence& s0, const Sequence& s1, const Scoring& sc) {
    const size_t m = s0.codes.size(), n = s1.codes.size();
    GotohMatrices g{Matrix(m + 1, std::vector<int64_t>(n + 1, 0)),
                    Matrix(m + 1, std::vector<int64_t>(n + 1, kMinusInfinity)),
                    Matrix(m + 1, std::vector<int64_t>(n + 1, kMinusInfinity))};
    for (size_t j = 1; j <= n; ++j) {
        for (size_t i = 1; i <= m; ++i) {
            g.e[i][j] = std::max(g.e[i][j - 1] - sc.gap_extend, g.h[i][j - 1] - sc.gap_open);
            g.f[i][j] = std::max(g.f[i - 1][j] - sc.gap_extend, g.h[i - 1][j] - sc.gap_open);
            const int64_t diagonal =
                g.h[i - 1][j - 1] + substitution(s0.codes[i - 1], s1.codes[j - 1], sc);
            g.h[i][j] = std::max({int64_t{0}, diagonal, g.e[i][j], g.f[i][j]});
        }
    }
    return g;
}

int64_t matrix_max(const Matrix& h) {
    int64_t best = 0;
    for (const auto& row : h) best = std::max(best, *std::max_element(row.begin(), row.end()));
    return best;
}

/// The tie rule spelled out: the first row holding `best`, then the first column in that row.
AlignmentEnd first_cell_with(const Matrix& h, int64_t best) {
    for (size_t i = 1; i < h.size(); ++i) {
        const auto hit = std::find(h[i].begin() + 1, h[i].end(), best);
        if (hit != h[i].end())
            return AlignmentEnd{static_cast<int32_t>(best), static_cast<int64_t>(i),
                                static_cast<int64_t>(hit - h[i].begin())};
    }
    return AlignmentEnd{};
}

}  // namespace

AlignmentEnd brute_force_align(const Sequence& s0, const Sequence& s1, const Scoring& scoring) {
    const GotohMatrices g = fill(s0, s1, scoring);
    const int64_t best = matrix_max(g.h);
    if (best == 0) return AlignmentEnd{};
    return first_cell_with(g.h, best);
}

}  // namespace chromalign
