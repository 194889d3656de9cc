//! @file The report's part for --alignments K: every alignment of every pair, and the share of
//! each side's records that they cover.
#pragma once

#include <sstream>

#include <nlohmann/json.hpp>

#include "tools/report.hpp"

namespace chromalign::cli {

/// Whether the run asked for several alignments per pair (a pair has PairReport::others).
bool lists_alignments(const RunReport& r);

/// The bases of the S0 and S1 records of the report's pairs that some alignment covers, each
/// record counted once.
struct Coverage {
    int64_t s0_bases = 0, s0_covered = 0, s1_bases = 0, s1_covered = 0;
    double s0_share() const { return s0_bases > 0 ? static_cast<double>(s0_covered) / static_cast<double>(s0_bases) : 0; }
    double s1_share() const { return s1_bases > 0 ? static_cast<double>(s1_covered) / static_cast<double>(s1_bases) : 0; }
};
Coverage coverage(const RunReport& r);

/// A blank line, the coverage lines, then a table of every pair's alignments: the pairs best
/// first, each pair's by rank.
void alignments_text(std::ostringstream& out, const RunReport& r);

/// A pair's alignments, rank 1 first, as a JSON array.
nlohmann::ordered_json json_alignments(const PairReport& p);

}  // namespace chromalign::cli
