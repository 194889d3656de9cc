//! @file --plot: the alignment's path over the whole matrix as an SVG dot plot, over a map of
//! the scores stage 1 reached.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "engine/alignment/alignment.hpp"
#include "engine/job/strand.hpp"
#include "engine/sequence.hpp"

namespace chromalign::io {

/// Stage 1's scores under the plot: for some rows (stage 1's special rows), the largest H of
/// each run of `columns` columns, run b covering columns [b columns, (b + 1) columns).
struct ScoreMap {
    int64_t columns = 1;
    std::map<int64_t, std::vector<int32_t>> rows;
};

/// Writes the plot: S1 across on its forward strand, S0 down, the matrix scaled to about 800
/// pixels wide; each row of `map` shades the band of rows down to it by its runs' scores against
/// the alignment's, and in grey where they are 0 (the regions pruning skipped); the path runs
/// from the alignment's start to its end. `s1`, `a` and `map` are as the comparison read S1
/// (see AlignedPair): on the reverse strand column j is drawn at n - j (n = s1.length()), and
/// the path in another colour. Throws Error naming the file.
void write_alignment_plot(const std::string& path, const Sequence& s0, const Sequence& s1, const Alignment& a,
                          const ScoreMap& map, Strand strand = Strand::kForward);

}  // namespace chromalign::io
