//! @file A tighter gain for the prune rule (prune_rule.hpp): what an alignment can still add
//! after a region, from the long exact matches the two sequences share, not best_score per
//! column. Two unrelated stretches score far less than best_score per column, and a pair
//! whose alignment scores rho per column keeps a corner of (1 - rho)^2 of the matrix live
//! under the plain gain (41% of a 16M related pair): the gain below keeps (1 - rho / r)^2,
//! with r about 2/3 instead of 1.
//!
//! The argument. Let a be the largest identity score (s(x, x)), b the largest other entry of
//! the matrix (b < 0; N scores below it), o the gap open cost, e the extend cost (min(e, o),
//! as gap_run_cost), and k >= 2. DP cell (i + 1, j + 1), which holds the pair s0[i], s1[j],
//! starts a k-mer when s0[i .. i + k) = s1[j .. j + k). Cut a path (the steps an alignment
//! takes after a cell) into maximal runs of identity steps, each followed by a separator: a
//! non-identity diagonal step (scores <= b) or a gap (costs o + (g - 1) e for g columns). With
//!   rho = (a (k - 1) + b) / k, and rho >= a - o / (k - 1) (else take that),
//!   lambda = min(e, o - (a - rho)(k - 1)) > 0,
//! b <= rho - (a - rho)(k - 1) and o + (g - 1) e >= (a - rho)(k - 1) + lambda g for every
//! g >= 1. A run of r identity steps, s of them into k-mer starts, scores
//!   a r <= rho r + (a - rho) s + (a - rho)(k - 1):
//! when r >= k its first r - k + 1 steps enter k-mer starts (the run goes on k steps from
//! each), so s >= r - k + 1; when r < k, (a - rho) r <= (a - rho)(k - 1). The separator pays
//! the last term: the run and a diagonal separator score at most rho (r + 1) + (a - rho) s,
//! the run and a gap of g columns rho r + (a - rho) s - lambda g. The last run has no
//! separator. So with D the path's diagonal steps (at most min(m - i, n - j) after cell
//! (i, j)), M its steps into k-mer starts and G its gap columns:
//!   score <= rho D + (a - rho) M - lambda G + (a - rho)(k - 1).
//! (Counting every cell of a shared run instead, as this table did first, left each run's
//! last k - 1 cells uncharged: on chromalign-bench's mutated pair, a copy with 5% substitutions
//! and 0.5% short indels, the gain from (0, 0) was 0.96 a column at k = 9, and is 0.83 now;
//! its alignment scores 0.73.)
//! What (a - rho) M - lambda G can reach is bounded on a coarse grid: strips of H rows and
//! bands of W diagonals (d = j - i). A path's band is kept with hysteresis: it starts in the
//! band of its first diagonal and moves to the next band only once it is W / 2 inside it, so
//! its band holds its diagonal within W / 2 on either side (the bands beta - 1 .. beta + 1
//! cover it), and every move of band but the first costs at least W gap columns (the first
//! W / 2). In a strip a path's steps into k-mer starts are on distinct rows holding a k-mer
//! start on a diagonal it visits. With W >= (a - rho) H / lambda, a path that visits a band
//! beyond [min(beta, beta'), max(beta, beta')], from beta to beta' at the next strip, pays two
//! moves more than the strip's rows can repay. So, with cnt(s, gamma) an upper count of strip
//! s's rows holding a k-mer start in band gamma,
//!   T(s, beta) = max over beta' of (a - rho) min(H, sum of cnt(s, .) over [min - 1, max + 1])
//!                - lambda |beta - beta'| W + T(s + 1, beta'),   T(S, .) = 0,
//! bounds (a - rho) M - lambda G - lambda W / 2 for every path whose first cell is in strip s
//! and band beta (banding without hysteresis would let a path drift a band a strip for free).
//! For |beta - beta'| >= 2 the sum is taken over every band of the strip, which only raises T
//! and makes the largest such term one sweep each way over T(s + 1, .): O(bands) a strip, so
//! that bands can be as narrow as W = (a - rho) H / lambda, and the chance matches a band
//! counts as few.
//! Everything is kept in units of 1/k, where rho k, (a - rho) k and lambda k are integers.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <optional>
#include <vector>

#include "engine/host_device.hpp"
#include "engine/pruning/divisor.hpp"
#include "engine/scoring/scoring.hpp"
#include "engine/sequence.hpp"

namespace chromalign {

/// The terms of the argument for one scoring and k, in units of 1/k.
struct GainTerms {
    int32_t k = 0;
    int64_t rho_k = 0;     ///< rho k
    int64_t credit_k = 0;  ///< (a - rho) k: what a step into a k-mer start adds beyond rho
    int64_t lambda_k = 0;  ///< lambda k: what each gap column surely costs beyond its run's share
    int32_t a = 0, b = 0;  ///< the largest identity score and the largest other entry
    /// The terms for `scoring` and k, or nothing when the argument gives no gain below
    /// best_score per column (b >= 0, or gaps too cheap to charge).
    static std::optional<GainTerms> of(const Scoring& scoring, int32_t k);
};

/// The cells of T a rectangle's bound read (strip s, bands b0 .. b1) and their largest value:
/// a caller that bounds region after region along one band reads T again only where they
/// change (a band of W diagonals spans W / 32 of the stream's chunks).
struct GainMemo {
    int32_t s = -1, b0 = 0, b1 = -1, phi = 0;  ///< T's strips and bands, as T's entries, fit 32 bits
};

/// What a kernel reads: the table T in whole score units (rounded up), strips x bands, and
/// the terms. A plain value, copied into the kernels' arguments; `t` points into host or device
/// memory as the executor needs. An empty view (t null) bounds nothing.
struct GainView {
    const int32_t* t = nullptr;
    Divisor strip_rows = {}, band_diagonals = {};
    int64_t strips = 0, bands = 0;
    int64_t diagonal_origin = 0;  ///< band of diagonal d: (d + diagonal_origin) / band_diagonals
    int64_t rho_k = 0;
    Divisor k = {};
    int64_t tail = 0;  ///< (a - rho)(k - 1), rounded up
    /// The build that made it, a serial of the process (0: none): executors on one device
    /// share one copy of a build (kernels/cuda/gain_copies.hpp).
    uint64_t id = 0;

    /// An upper bound of what a path can add after any cell of the rectangle of DP cells
    /// rows [row, row + rows] x columns [col, col + cols] (global, 0 = the matrix's edge),
    /// with `left` = min(m - row, n - col) diagonal steps at most. -1 when the view is empty.
    CHROMALIGN_HOST_DEVICE int64_t bound(int64_t row, int64_t col, int64_t rows, int64_t cols, int64_t left) const {
        GainMemo memo;
        return bound(row, col, rows, cols, left, memo);
    }
    /// The same, reading T only where `memo` does not hold the cells it needs already.
    CHROMALIGN_HOST_DEVICE int64_t bound(int64_t row, int64_t col, int64_t rows, int64_t cols, int64_t left,
                                         GainMemo& memo) const {
        if (!t) return -1;
        const int64_t strip = strip_rows.div(row);
        const int64_t s = strip < strips ? strip : strips - 1;
        // Diagonals of the rectangle, col - (row + rows) .. col + cols - row, and one more on
        // either side, where a path's first step may lead (those before band 0's in it).
        const int64_t d0 = col - row - rows - 1 + diagonal_origin;
        const int64_t d1 = col + cols - row + 1 + diagonal_origin;
        const int64_t b0 = band_diagonals.div(d0 > 0 ? d0 : 0);
        int64_t b1 = band_diagonals.div(d1 > 0 ? d1 : 0);
        b1 = b1 >= bands ? bands - 1 : b1;
        if (s != memo.s || b0 != memo.b0 || b1 != memo.b1) {
            int32_t phi = 0;
            for (int64_t b = b0; b <= b1; ++b) {
                const int32_t v = t[s * bands + b];
                phi = v > phi ? v : phi;
            }
            memo = GainMemo{static_cast<int32_t>(s), static_cast<int32_t>(b0), static_cast<int32_t>(b1), phi};
        }
        return k.div(rho_k * left + k.d - 1) + tail + memo.phi;
    }
};

/// T for one comparison (S0 x S1 as compared), built once; its view stays valid while it lives.
class GainTable {
public:
    /// Builds the table, or nothing when the terms give no gain, the sequences are too short,
    /// or their shared k-mers are too many to list: then the plain gain stands. A repeat's
    /// k-mers (many pairs each) are not listed; their rows count in every band.
    /// `strip_rows` and `k` 0 pick them for the size; tests pass small ones.
    static std::unique_ptr<GainTable> build(const Sequence& s0, const Sequence& s1, const Scoring& scoring,
                                            int workers, const std::atomic<bool>& cancel, int64_t strip_rows = 0,
                                            int32_t k = 0);

    /// The k build() would pick for an m x n matrix (0: none fits); with GainTerms::of, what
    /// its gain counts per column, for the model of what pruning leaves (live_model.hpp).
    static int32_t k_for(int64_t m, int64_t n, const Scoring& scoring);

    const GainView& view() const { return view_; }
    int32_t k() const { return static_cast<int32_t>(view_.k.d); }

private:
    std::vector<int32_t> t_;
    GainView view_;
};

}  // namespace chromalign
