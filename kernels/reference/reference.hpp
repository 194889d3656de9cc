//! @file Textbook Gotoh local alignment: the oracle every fast backend is tested against.
#pragma once

#include "engine/result.hpp"
#include "engine/scoring/scoring.hpp"
#include "engine/sequence.hpp"

namespace chromalign {

/// Exact best local score and end cell, O(n) memory, one cell at a time in row-major order.
/// Shares no code with the tiled engines on purpose: one bug cannot hide in both.
AlignmentEnd reference_align(const Sequence& s0, const Sequence& s1, const Scoring& scoring);

}  // namespace chromalign
