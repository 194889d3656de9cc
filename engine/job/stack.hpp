//! @file Short records stacked: S0 records of a few bands each (an assembly's contigs), one
//! under another in one matrix against one S1 record, so that one comparison keeps the whole
//! engine busy where each alone would keep a few of its blocks busy and pay its set-up.
//!
//! Each record is padded to whole bands of the engine with codes that score the matrix's
//! lowest entry against everything (BaseCode kBaseOther). The engine hands row 0 of the DP
//! matrix (H = 0, F = -inf) to a record's first band instead of the band above's bottom row
//! (TileExecutor::stack_records), so every cell of a record has the values of that record's
//! own matrix: no path crosses between records. A padding row's H is 0 or below the H of a
//! cell above it (its pair scores below 0, its gaps cost), so a record's best cell is never in
//! its padding, and tracking each record's best apart gives each record its own answer, tie
//! rule included. The engine runs a stack without pruning, checkpoints or special rows.
#pragma once

#include <cstdint>
#include <vector>

#include "engine/result.hpp"
#include "engine/sequence.hpp"

namespace chromalign {

struct Stack {
    Sequence s0;                     ///< the records one under another, each padded to whole bands
    std::vector<int64_t> first_rows; ///< record k's first row, 0-based (BackendOptions::stack_rows)
};

/// The records (in this order) stacked in bands of `band_rows` rows.
Stack make_stack(const std::vector<const Sequence*>& records, int64_t band_rows);

/// Record k's own answer from its best cell in the stack (rows of the stack).
inline AlignmentEnd unstacked(const Stack& stack, size_t k, const AlignmentEnd& in_stack) {
    return offset_end(in_stack, -stack.first_rows[k], 0);
}

}  // namespace chromalign
