//! @file pair_alignments: each strand's K best, merged.
#include "engine/declump/pair_alignments.hpp"

#include <algorithm>
#include <cmath>

namespace chromalign {

DeclumpOptions tiles_within(int64_t m, int64_t n, int64_t bytes) {
    // A square tile of side t keeps (m / t) rows of n + 1 columns and (n / t) columns of m rows.
    // Sides are multiples of 512 rows, so that a device's whole pass (bands of 512) can run.
    const double side = 16.0 * static_cast<double>(m) * static_cast<double>(n) / static_cast<double>(std::max<int64_t>(bytes, 1));
    DeclumpOptions o;
    o.tile_rows = o.tile_cols = std::max<int64_t>(1, static_cast<int64_t>(std::ceil(side / 512))) * 512;
    return o;
}

std::vector<StrandAlignment> pair_alignments(
    const Sequence& s0, const std::vector<StrandSearch>& strands, const Scoring& scoring, int count, int32_t min_score,
    const DeclumpOptions& options, DeclumpCounts& counts, const std::function<void(Strand, const std::vector<Alignment>&)>& found,
    const std::function<void(Strand, const std::vector<Alignment>&, bool outranked)>& ended,
    const std::function<void(Strand, int64_t cells)>& passing, std::vector<std::optional<AlignmentEnd>>* bests) {
    std::vector<StrandAlignment> all;
    if (bests) bests->assign(strands.size(), std::nullopt);
    for (size_t k = 0; k < strands.size(); ++k) {
        const StrandSearch& search = strands[k];
        std::vector<Alignment> list = search.known;
        if (!search.done) {
            DeclumpOptions strand_options = options;
            if (passing) strand_options.on_first_pass = [&](int64_t cells) { passing(search.strand, cells); };
            DeclumpCounts c;
            DeclumpResume resume{search.known, {}, {}, search.traced};
            if (found) resume.found = [&](const std::vector<Alignment>& so_far) { found(search.strand, so_far); };
            bool outranked = false;
            resume.wanted = [&](int32_t score, size_t before) {
                // `all` holds the earlier strands' alignments, which rank before this one's equals.
                const auto ahead = std::count_if(all.begin(), all.end(),
                                                 [&](const StrandAlignment& a) { return a.alignment.score >= score; });
                outranked = static_cast<size_t>(ahead) + before >= static_cast<size_t>(count);
                return !outranked;
            };
            AlignmentEnd best;
            list = best_alignments(s0, *search.s1, scoring, count, min_score, strand_options, &c, resume, &best);
            if (bests) (*bests)[k] = best;
            counts.add(c);
            if (ended) ended(search.strand, list, outranked);
        }
        for (Alignment& a : list) all.push_back({search.strand, std::move(a)});
    }
    std::stable_sort(all.begin(), all.end(),
                     [](const StrandAlignment& a, const StrandAlignment& b) { return a.alignment.score > b.alignment.score; });
    if (static_cast<int>(all.size()) > count) all.resize(static_cast<size_t>(count));
    return all;
}

}  // namespace chromalign
