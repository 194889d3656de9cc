//! @file The exact score of a path through the DP matrix: what turns a mapper's alignments into
//! a lower bound of the optimum. Any local path's score is at most the optimum S*, so the best
//! stretch of any path, scored here under the run's own scoring, is a lower bound that needs
//! no trust in the mapper: it is checked against the sequences column by column.
#pragma once

#include <cstdint>
#include <vector>

#include "engine/alignment/alignment.hpp"
#include "engine/scoring/scoring.hpp"
#include "engine/sequence.hpp"

namespace chromalign {

/// One run of a path: `length` columns of 'M' (an S0 base against an S1 base, equal or not),
/// 'I' (an S0 base against a gap) or 'D' (an S1 base against a gap), as in AlignmentRun.
struct PathRun {
    char op = 'M';
    int64_t length = 0;
};

/// A path through the matrix that starts after s0_from bases of S0 and s1_from of S1.
struct MatrixPath {
    int64_t s0_from = 0, s1_from = 0;
    std::vector<PathRun> runs;

    /// Appends a run, merging it into the last one when both are of one kind.
    void add(char op, int64_t length);
    int64_t s0_to() const;  ///< bases of S0 up to the path's end
    int64_t s1_to() const;
};

/// The path's best stretch: the contiguous part, starting and ending with an 'M' column, whose
/// score (rescore's: substitution scores, and Scoring::gap_run_cost per gap run) is the
/// largest, as an alignment that rescore() scores the same. Score 0 and no runs when no
/// stretch scores above 0. Throws Error when the path leaves the sequences.
Alignment best_stretch(const MatrixPath& path, const Sequence& s0, const Sequence& s1, const Scoring& scoring);

}  // namespace chromalign
