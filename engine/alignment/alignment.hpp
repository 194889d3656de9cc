//! @file A local alignment itself (the traceback's answer): its runs in SAM's letters, their
//! statistics, and its score recomputed from the sequences.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "engine/result.hpp"
#include "engine/scoring/scoring.hpp"
#include "engine/sequence.hpp"

namespace chromalign {

/// `length` columns of one kind, in SAM's letters with S1 as the reference and S0 as the
/// query: '=' pairs equal A/C/G/T bases (N equals nothing, itself included), 'X' any other
/// pair, 'I' an S0 base against a gap, 'D' an S1 base against a gap.
struct AlignmentRun {
    char op = '=';
    int64_t length = 0;
    bool operator==(const AlignmentRun& o) const { return op == o.op && length == o.length; }
};

/// S0[s0_start .. s0_end] aligned to S1[s1_start .. s1_end] (1-based, inclusive), run by run
/// from the start. An empty alignment (score 0) has no runs and every coordinate 0.
struct Alignment {
    int32_t score = 0;
    int64_t s0_start = 0, s0_end = 0;
    int64_t s1_start = 0, s1_end = 0;
    std::vector<AlignmentRun> runs;

    /// Its score and last cell, as a search's best cell is given.
    AlignmentEnd as_end() const { return AlignmentEnd{score, s0_end, s1_end}; }
    /// "12=1X3I40=": the runs as a SAM CIGAR ("*" when empty).
    std::string cigar() const;
    /// The same score, coordinates and runs.
    bool operator==(const Alignment& o) const {
        return score == o.score && s0_start == o.s0_start && s0_end == o.s0_end && s1_start == o.s1_start &&
               s1_end == o.s1_end && runs == o.runs;
    }
    bool operator!=(const Alignment& o) const { return !(*this == o); }
};

/// What an alignment holds, column by column.
struct AlignmentStats {
    int64_t columns = 0;     ///< alignment length: pairs and gap bases
    int64_t matches = 0;     ///< '=' columns
    int64_t mismatches = 0;  ///< 'X' columns
    int64_t gap_opens = 0;   ///< 'I' and 'D' runs (two adjacent runs are two gaps)
    int64_t gap_bases = 0;   ///< 'I' and 'D' columns
    double identity() const { return columns > 0 ? static_cast<double>(matches) / static_cast<double>(columns) : 0; }
};

AlignmentStats alignment_stats(const Alignment& alignment);

/// The score of `alignment` recomputed from the sequences: each pair's substitution score,
/// minus Scoring::gap_run_cost for each run of gap columns. Throws Error when the runs do not
/// span the coordinates, leave the sequences, or call a pair '=' or 'X' wrongly.
int64_t rescore(const Alignment& alignment, const Sequence& s0, const Sequence& s1, const Scoring& scoring);

}  // namespace chromalign
