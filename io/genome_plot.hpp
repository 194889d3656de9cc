//! @file --plot with --alignments K: every alignment of every record pair as a dot plot of the
//! two genomes, like mummerplot's: S1's records across, S0's down, forward alignments and
//! reverse ones in two colours, axes ticked in bp, kbp or Mbp, record boundaries and names.
#pragma once

#include <string>
#include <vector>

#include "engine/alignment/alignment.hpp"
#include "engine/job/strand.hpp"
#include "engine/sequence.hpp"

namespace chromalign::io {

/// One alignment to draw: its records (indexes into the plot's S0 and S1 records) and strand,
/// with its coordinates as the comparison read S1 (AlignedPair's convention).
struct PlottedAlignment {
    size_t s0 = 0, s1 = 0;
    Strand strand = Strand::kForward;
    const Alignment* alignment = nullptr;
    int rank = 1;  ///< in its pair
};

/// Writes the plot of `alignments` over the records of `s0` and `s1` (each laid out by the
/// length compared, in order). Throws Error naming the file.
void write_genome_plot(const std::string& path, const std::vector<Sequence>& s0, const std::vector<Sequence>& s1,
                       const std::vector<PlottedAlignment>& alignments);

/// A position as an axis label: "0", "750 bp", "250 kbp", "1.5 Mbp".
std::string axis_label(double bases, double step);

}  // namespace chromalign::io
