//! @file pair_alignments: each strand's K best, merged.
#include "engine/declump/pair_alignments.hpp"

#include <algorithm>
#include <cmath>

namespace chromalign {

DeclumpOptions tiles_within(int64_t m, int64_t n, int64_t bytes) {
    // A square tile of side t keeps (m / t) rows of n + 1 columns and (n / t) columns of m rows.
    const double side = 16.0 * static_cast<double>(m) * static_cast<double>(n) / static_cast<double>(std::max<int64_t>(bytes, 1));
    DeclumpOptions o;
    o.tile_rows = o.tile_cols = std::max<int64_t>(256, static_cast<int64_t>(std::ceil(side)));
    return o;
}

std::vector<StrandAlignment> pair_alignments(const Sequence& s0, const std::vector<std::pair<Strand, const Sequence*>>& compared,
                                             const Scoring& scoring, int count, int32_t min_score, int64_t bytes,
                                             DeclumpCounts& counts) {
    std::vector<StrandAlignment> all;
    for (const auto& [strand, s1] : compared) {
        DeclumpCounts c;
        for (Alignment& a : best_alignments(s0, *s1, scoring, count, min_score, tiles_within(s0.length(), s1->length(), bytes), &c))
            all.push_back({strand, std::move(a)});
        counts.first_cells += c.first_cells;
        counts.recomputed_cells += c.recomputed_cells;
        counts.recomputed_tiles += c.recomputed_tiles;
    }
    std::stable_sort(all.begin(), all.end(),
                     [](const StrandAlignment& a, const StrandAlignment& b) { return a.alignment.score > b.alignment.score; });
    if (static_cast<int>(all.size()) > count) all.resize(static_cast<size_t>(count));
    return all;
}

}  // namespace chromalign
