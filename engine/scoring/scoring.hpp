//! @file How an alignment is scored, in one place: the substitution scores and gap costs, their
//! validation, the 32-bit overflow bound, and every term the kernels derive from them.
//!
//! Kernels never look at a Scoring: they take the plain terms below (CpuScoringTerms,
//! CudaScoringTerms), which only this file's functions compute. A new scoring rule changes
//! scoring.{hpp,cpp} (and the option that sets it), not the kernels.
#pragma once

#include <array>
#include <cstdint>
#include <string>

namespace chromalign {

/// Scores of the four nucleotides against each other: at [a][b], S0 base a (the row) against
/// S1 base b (the column), both in BaseCode order A, C, G, T. Need not be symmetric.
using NucleotideMatrix = std::array<std::array<int32_t, 4>, 4>;

/// Scores as the user writes them. A pair of A/C/G/T bases scores matrix[a][b]. A pair with any
/// other code (N, every IUPAC code; N against N too) scores `other`: the mismatch for
/// match/mismatch scoring, and the lowest entry of a matrix, which is the same rule. A gap of
/// length k costs gap_open + (k-1) * gap_extend. Defaults are the CUDAlign paper's (+1, -3, 5, 2).
struct Scoring {
    NucleotideMatrix matrix;  ///< s(a, b) for a, b in A, C, G, T
    int32_t other;            ///< s(a, b) when a or b is another code (< 0, at most every entry)
    int32_t gap_open;         ///< cost of the first position of a gap (> 0)
    int32_t gap_extend;       ///< cost of each further position of the same gap (> 0)

    Scoring();
    /// Match/mismatch scoring: `match` on the diagonal, `mismatch` everywhere else and for N.
    Scoring(int32_t match, int32_t mismatch, int32_t gap_open, int32_t gap_extend);
    /// A substitution matrix; pairs with N or another code score its lowest entry.
    static Scoring from_matrix(const NucleotideMatrix& matrix, int32_t gap_open, int32_t gap_extend);

    /// s(a, b) for BaseCode values (anything >= kBaseOther is "another code").
    int32_t score(uint8_t a, uint8_t b) const { return a < 4 && b < 4 ? matrix[a][b] : other; }
    int32_t best_score() const;    ///< the largest substitution score
    int32_t lowest_score() const;  ///< the smallest one (other, once valid)
    /// What a run of k gap columns of one kind costs, 0 for none: open + (k - 1) * min(extend,
    /// open). Gotoh's recurrence may open a gap right after another of its kind (from an H that
    /// took the first gap's value), so with extend > open each further column costs open.
    int64_t gap_run_cost(int64_t k) const {
        return k > 0 ? gap_open + (k - 1) * int64_t{gap_extend < gap_open ? gap_extend : gap_open} : 0;
    }
    /// One value on the diagonal and `other` everywhere else: the kernels' equality fast paths.
    bool is_match_mismatch() const;
    int32_t match() const { return matrix[0][0]; }  ///< the diagonal, when is_match_mismatch()
    int32_t mismatch() const { return other; }      ///< everything else, when is_match_mismatch()

    /// Returns an empty string when the values are usable, else a one-line reason.
    /// The signs are what the engines rely on: padded cells outside the matrix score `other`
    /// (< 0) against everything, so they always score below a real cell, and E/F never
    /// underflow (gap costs > 0).
    std::string validate() const;

    /// The longest shorter sequence whose best possible score (best_score() per base) stays
    /// inside kMaxBestScore.
    int64_t longest_length() const;
    /// Throws Error when the scoring is invalid or when a pair of lengths m x n could reach a
    /// score beyond kMaxBestScore; the message names longest_length().
    void check_no_overflow(int64_t m, int64_t n) const;

    /// "match=1 mismatch=-3 gap_open=5 gap_extend=2" for match/mismatch scoring, else
    /// "matrix A:91,-114,-31,-123 C:... G:... T:... other=-125 gap_open=430 gap_extend=30".
    std::string to_string() const;

    /// Same scores (where they came from does not matter).
    bool operator==(const Scoring& o) const;
    bool operator!=(const Scoring& o) const { return !(*this == o); }
};

/// The most H(i, j) can be: each row and each column adds at most `best`, the largest
/// substitution score (Scoring::best_score). What a score read back from a file is held to.
inline int64_t most_score_at(int64_t i, int64_t j, int64_t best) { return (i < j ? i : j) * best; }

/// Largest magnitude accepted for any single score parameter.
constexpr int32_t kMaxScoreParameter = 1 << 20;

/// The best score a run may reach. The engines keep -2^30 as minus infinity and form
/// intermediates up to a few parameters away from a score, so a margin stays on both sides.
constexpr int64_t kMaxBestScore = (int64_t{1} << 30) - 4 * int64_t{kMaxScoreParameter};

/// What the CPU tile kernels (kernels/cpu) need. They add the diagonal term open + s(a, b) to
/// H(i-1, j-1) - open, the one form of H they keep.
struct CpuScoringTerms {
    int32_t open = 0;  ///< gap_open
    int32_t ext = 0;   ///< gap_extend
    /// Match/mismatch: the diagonal term is diag_match for a pair of equal A/C/G/T codes and
    /// diag_other for every other pair (the lanes' equality and xor-table paths).
    bool equality = false;
    int32_t diag_match = 0;  ///< open + match (equality)
    int32_t diag_other = 0;  ///< open + other: any pair with another code; with equality, any mismatch
    /// Any matrix: the diagonal term is diag_other + t(a, b), t = s(a, b) - other >= 0 (0 for a
    /// pair with another code). Byte p of t(a, b) sits at index 4a + b of planes[p] (a pshufb
    /// table); plane_count bytes hold every t.
    int plane_count = 1;
    uint8_t planes[3][16] = {};
    /// 16-bit lanes relative to the tile corner (see kernels/cpu/tile_kernel_impl.hpp): adjacent
    /// H differ by -open .. step, step = best_score + open, and every value of a tile of R x C
    /// stays within (R + C + 2) * step + slack of its corner, slack = 2 * (open + ext + best - lowest).
    int64_t step = 0;
    int64_t slack = 0;

    /// Whether a tile of rows x cols may run in 16-bit lanes: its values fit int16, and its
    /// substitution fits one table lookup (equality, or one plane).
    bool relative16_fits(int64_t rows, int64_t cols) const;
    /// The widest tile (in columns) that relative16_fits for `rows`; <= 0 when none.
    int64_t relative16_max_cols(int64_t rows) const;
};

/// What the CUDA tile kernels (kernels/cuda) need: diagonal terms open + s(a, b) as above, in
/// the cheapest form that expresses this scoring.
struct CudaScoringTerms {
    enum class Substitution : int32_t {
        kBytes,     ///< match/mismatch whose diagonal terms fit a signed byte: one prmt per cell
        kEquality,  ///< match/mismatch beyond a byte: compare and select
        kTable,     ///< any other matrix: a lookup in a table of diagonal terms
    };
    Substitution substitution = Substitution::kBytes;
    int32_t open = 0;   ///< gap_open
    int32_t ext = 0;    ///< gap_extend
    int32_t ext_f = 0;  ///< min(gap_extend, gap_open): F below a thread's top row
    int32_t diag_match = 0;  ///< kEquality: open + match
    int32_t diag_other = 0;  ///< kEquality: open + other, for every other pair
    /// kBytes: each byte of other_bytes is open + other, the word of S0's other code (and the
    /// prmt's bytes 4..7, S1's other code). The word of S0 code a < 4 is other_bytes with byte
    /// a xor-ed with match_flip, (open + match) ^ (open + other) in its low byte: byte c of it
    /// is then the diagonal term of a against c.
    int32_t other_bytes = 0;
    int32_t match_flip = 0;
    /// kTable: diag[a][b] for codes 0..3 and 4 (another code).
    int32_t diag[5][5] = {};
};

/// The CPU kernels' terms of a valid scoring.
CpuScoringTerms cpu_scoring_terms(const Scoring& scoring);

/// The CUDA kernels' terms of a valid scoring.
CudaScoringTerms cuda_scoring_terms(const Scoring& scoring);

}  // namespace chromalign
