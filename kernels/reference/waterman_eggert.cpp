//! @file reference_alignments: reference_traceback again and again, each time with more pairs barred.
#include "kernels/reference/waterman_eggert.hpp"

#include <algorithm>

#include "kernels/reference/traceback.hpp"

namespace chromalign {

std::vector<Alignment> reference_alignments(const Sequence& s0, const Sequence& s1, const Scoring& scoring,
                                            int count, int32_t min_score) {
    std::vector<Alignment> found;
    UsedPairs used(s0.length());
    while (static_cast<int>(found.size()) < count) {
        Alignment a = reference_traceback(s0, s1, scoring, &used);
        if (a.score < std::max(min_score, 1)) break;
        used.add(a);
        found.push_back(std::move(a));
    }
    return found;
}

}  // namespace chromalign
