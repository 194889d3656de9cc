//! @file Exact block pruning (CUDAlign 2.1 §4): when a region of the DP matrix can be skipped,
//! and what a skipped region hands on. One rule for every backend that prunes (cpu, cuda); the
//! reference never prunes, it is the oracle.
//!
//! The bound. Let G be a lower bound of the final best S*: a score some cell already reached
//! (the best so far: of this slab, of the process, or of another rank), or the exact score of
//! any local path through the matrix, which no cell of the run need have reached yet (a bound
//! pass, engine/bound/bound_thread.hpp: S* is the best score over all local paths). The
//! argument below uses G <= S* and nothing else, so it holds from the first row on.
//! Let Q be a region of the matrix whose cells are reached only through its input cells X (the
//! row above it, the column left of it) or by an alignment that starts inside Q. With
//! gain(i, j) = best_score * max(0, min(m - i, n - j)), the most any alignment can add after
//! cell (i, j) (each further aligned pair scores at most best_score, gaps score less):
//!   - an alignment through input x = (i, j) scores at most H(x) + gain(i, j): its part up to x
//!     scores at most H(x), and E(x), F(x) <= H(x), so entering Q in a gap is no better;
//!   - an alignment that starts at a cell of Q scores at most gain(i0 - 1, j0 - 1), with
//!     (i0, j0) the top-left cell of Q (1-based), since it starts at or below and right of it.
//! gain only falls with i and j, so every alignment through Q scores at most
//!   bound(Q) = max(0, max over x in X of H(x)) + gain(i0 - 1, j0 - 1).
//! Q is skipped when bound(Q) < G. Then every alignment through Q scores below G <= S*: no
//! cell of Q, nor any cell an alignment reaches through Q, can be the answer, nor tie with it
//! (the comparison is strict, so the tie rule is never asked).
//!
//! What a skipped region hands on: H = 0, E = F = minus infinity on every output (its bottom
//! row, its right column). These are lower bounds of the true values (H >= 0 always). The
//! recurrence is monotone, so every value computed from them is a lower bound too, and it is
//! exact at every cell whose best path avoids skipped regions. Induction over the order in
//! which regions are decided: a region decided with lower-bound inputs has each alignment
//! through it either pass an earlier skipped region (score < G) or avoid them all (its part up
//! to its input x scores at most the computed H(x)); so bound(Q) computed from those inputs
//! still bounds every alignment that could reach G. An optimal alignment passes no skipped
//! region, so every cell on it, the end cell included, is computed exactly, and no cell is
//! computed above its true value: the best score, its end cell and the tie rule's choice
//! among tied cells are those of the unpruned run. With G = S* exactly (a bound pass that
//! found an optimal path), the optimal cells' regions have bound(Q) >= S* = G and stay live.
//!
//! A tighter gain (gain_table.hpp): where a table bounds what any path adds after every cell
//! of a rectangle that holds Q and its inputs, gain(Q) is the smaller of the two. Both bound
//! every alignment through Q as above, so the argument stands unchanged; the table need not
//! fall with i and j, which is why it bounds the whole rectangle, not one corner cell.
//!
//! A G above S* (a bug, or a forged checkpoint) breaks the argument, and is always caught:
//! every computed value is still a lower bound of its true one, so the best found is at most
//! S* < G, and a caller whose G came from outside the run refuses an answer below it
//! (BoundThread::finish).
#pragma once

#include <cstdint>

#include "engine/host_device.hpp"
#include "engine/pruning/gain_table.hpp"

namespace chromalign {

/// The terms of the bound for one comparison (an executor's matrix, m x n real cells).
struct PruneRule {
    bool on = false;         ///< false: never skip (--no-pruning)
    int32_t best_score = 0;  ///< the largest substitution score (Scoring::best_score)
    int64_t m = 0, n = 0;    ///< real rows and columns of the executor's matrix
    /// A gain table over the whole comparison (empty: none), the executor's first row and
    /// column in it, and the extent of a region beyond its corner cell: span_rows rows and
    /// span_cols columns hold the region and its inputs (the executor's tiles).
    GainView table = {};
    int64_t row_offset = 0, col_offset = 0;
    int64_t span_rows = 0, span_cols = 0;

    /// What an alignment can still add after entering the region whose first (0-based) row is
    /// `row0` and first column `col0`: best_score per column left after its corner cell, or
    /// the table's bound over the region, the smaller.
    CHROMALIGN_HOST_DEVICE int64_t gain(int64_t row0, int64_t col0) const {
        GainMemo memo;
        return gain(row0, col0, memo);
    }
    /// The same, with the table's cells read last kept in `memo` (GainMemo).
    CHROMALIGN_HOST_DEVICE int64_t gain(int64_t row0, int64_t col0, GainMemo& memo) const {
        const int64_t rows = m - row0, cols = n - col0;
        const int64_t left = rows < cols ? rows : cols;
        const int64_t plain = left > 0 ? left * best_score : 0;
        if (!table.t) return plain;
        const int64_t tight =
            table.bound(row0 + row_offset, col0 + col_offset, span_rows, span_cols, left > 0 ? left : 0, memo);
        return tight < plain ? tight : plain;
    }

    /// True when gain alone can reach g: the region is live whatever its inputs hold, so a
    /// caller need not read them.
    CHROMALIGN_HOST_DEVICE bool live_by_gain(int64_t row0, int64_t col0, int32_t g) const {
        return !on || live_by(gain(row0, col0), g);
    }
    /// The same for a region whose gain(row0, col0) a caller took already: a caller that may
    /// read the inputs next takes the gain once for both (a table's bound is not free).
    CHROMALIGN_HOST_DEVICE bool live_by(int64_t region_gain, int32_t g) const { return !on || region_gain >= g; }

    /// The decision: skip the region iff max(0, input_max) + gain < g (see the file comment).
    CHROMALIGN_HOST_DEVICE bool dead(int32_t input_max, int64_t row0, int64_t col0, int32_t g) const {
        return on && dead_by(input_max, gain(row0, col0), g);
    }
    CHROMALIGN_HOST_DEVICE bool dead_by(int32_t input_max, int64_t region_gain, int32_t g) const {
        const int64_t h = input_max > 0 ? input_max : 0;
        return on && h + region_gain < g;
    }
};

}  // namespace chromalign
