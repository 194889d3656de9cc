//! @file launch_pieces: the window's runs cut from the right into pieces of `most` blocks.
#include "engine/scheduling/launch_pieces.hpp"

#include <algorithm>

namespace chromalign {

std::vector<LaunchMap> launch_pieces(const LaunchMap& window, int32_t blocks, int32_t most) {
    if (window.blocks() <= most) return {window};
    // The window's runs, left to right; pieces take blocks from the right end.
    struct Run {
        int32_t first, count;
    };
    std::vector<Run> left;
    for (int r = 0; r < LaunchMap::kRanges; ++r)
        if (window.count[r] > 0) left.push_back({window.first[r], window.count[r]});
    const bool split = window.has(0) && window.has(blocks - 1);
    std::vector<LaunchMap> pieces;
    while (!left.empty()) {
        LaunchMap piece;
        const bool first = pieces.empty();
        int32_t room = most - (first && split ? 1 : 0);  // with most 1, the wrap alone
        std::vector<Run> taken;  // right to left
        while (room > 0 && !left.empty()) {
            Run& run = left.back();
            const int32_t take = std::min(room, run.count);
            taken.push_back({run.first + run.count - take, take});
            run.count -= take;
            room -= take;
            if (run.count == 0) left.pop_back();
        }
        int r = 0;
        if (first && split) {
            piece.first[r] = 0;
            piece.count[r++] = 1;
            piece.zero = ZeroPart::kWrapOnly;
        }
        for (auto it = taken.rbegin(); it != taken.rend(); ++it, ++r) {
            piece.first[r] = it->first;
            piece.count[r] = it->count;
        }
        if (left.empty() && split) piece.zero = ZeroPart::kBandOnly;  // block 0 is the leftmost
        pieces.push_back(piece);
    }
    return pieces;
}

}  // namespace chromalign
