//! @file Test-only full-matrix Gotoh oracle, independent of kernels/reference/reference.cpp.
#pragma once

#include "engine/result.hpp"
#include "engine/scoring/scoring.hpp"
#include "engine/sequence.hpp"

namespace chromalign {

/// Best local score and end cell computed the slowest obvious way: fill complete
/// (m+1) x (n+1) matrices H, E and F, then scan all of H for the maximum and apply the tie rule
/// (smallest row, then smallest column; score 0 reports (0, 0)). O(mn) memory: small inputs only.
AlignmentEnd brute_force_align(const Sequence& s0, const Sequence& s1, const Scoring& scoring);

}  // namespace chromalign
