//! @file live_window: the block columns of a diagonal that a pruned run launches.
#include "engine/scheduling/live_window.hpp"

#include <algorithm>
#include <string>
#include <vector>

#include "engine/error.hpp"

namespace chromalign {
namespace {

/// floor(a / b) for b > 0.
int64_t floor_div(int64_t a, int64_t b) { return a >= 0 ? a / b : -((-a + b - 1) / b); }

/// `span` moved right by up to `by` columns: span + [0, by].
BlockSpan dilate(BlockSpan span, int64_t by) {
    if (!span.empty()) span.last += by;
    return span;
}

}  // namespace

BlockSpan corner_blocks(const TileGrid& grid, const PruneRule& rule, int64_t z, int32_t g) {
    const int64_t rows = grid.rows_per_band(), lag = grid.threads - 1;
    // Bands >= 1 and columns >= 1 of diagonal z: block b runs band z - b.
    BlockSpan span{std::max<int64_t>({1, grid.first_block(z)}), std::min(grid.last_block(z), z - 1)};
    if (!rule.on) return span;
    const int64_t need = int64_t{g} - lag * rule.best_score;  // what gain must reach
    if (need <= 0 || rule.best_score <= 0) return span;
    // gain = best * min(m - row0, n - col0) >= need  <=>  both terms >= q.
    const int64_t q = (need + rule.best_score - 1) / rule.best_score;
    // m - (z - b) * rows >= q  <=>  b >= z - floor((m - q) / rows)
    if (rule.m - q < 0) return BlockSpan{};
    span.first = std::max(span.first, z - floor_div(rule.m - q, rows));
    // n - (b * C - lag) >= q  <=>  b <= floor((n + lag - q) / C)
    span.last = std::min(span.last, floor_div(rule.n + lag - q, grid.block_cols));
    if (!rule.table.t) return span;
    // A gain table bounds less than best_score per column, but it does not fall with i and j:
    // the span is the hull of the blocks whose gain reaches `need`, scanned from either end.
    const auto live = [&](int64_t b) {
        return rule.gain((z - b) * rows, std::max<int64_t>(0, b * grid.block_cols - lag)) >= need;
    };
    while (!span.empty() && !live(span.first)) ++span.first;
    while (!span.empty() && !live(span.last)) --span.last;
    return span;
}

int64_t block_cells(const TileGrid& grid, int64_t d, int64_t first, int64_t last) {
    first = std::max({first, grid.first_block(d), int64_t{0}});
    last = std::min(last, grid.last_block(d));
    if (first > last) return 0;
    const int64_t rows = grid.rows_per_band(), cols = grid.block_cols;
    const auto cells = [&](int64_t b) {
        return std::clamp<int64_t>(grid.m - (d - b) * rows, 0, rows) * std::clamp<int64_t>(grid.n - b * cols, 0, cols);
    };
    // Band d - b is whole iff (d - b + 1) rows <= m, columns of b iff (b + 1) cols <= n.
    const int64_t whole_first = std::max(first, d + 1 - grid.m / rows);
    const int64_t whole_last = std::min(last, grid.n / cols - 1);
    int64_t sum = 0;
    if (whole_first > whole_last) {
        for (int64_t b = first; b <= last; ++b) sum += cells(b);
        return sum;
    }
    sum = (whole_last - whole_first + 1) * rows * cols;
    for (int64_t b = first; b < whole_first; ++b) sum += cells(b);
    for (int64_t b = whole_last + 1; b <= last; ++b) sum += cells(b);
    return sum;
}

LaunchMap live_window(const TileGrid& grid, const PruneRule& rule, int64_t d, const LiveSpan& known, int32_t g_min) {
    if (known.diagonal > d - 2 || known.diagonal < 0)
        throw Error("internal: a live window from diagonal " + std::to_string(known.diagonal) + " for " +
                    std::to_string(d));
    std::vector<BlockSpan> spans;
    spans.push_back(dilate(known.live, d - known.diagonal));
    for (int64_t z = known.diagonal + 1; z <= d; ++z) {
        spans.push_back(dilate(corner_blocks(grid, rule, z, g_min), d - z));
        spans.push_back(BlockSpan{0, d - z});          // block 0
        spans.push_back(BlockSpan{z, d});               // band 0 of diagonal z
    }
    // Clipped to the blocks with cells in d, sorted and merged where they touch.
    const int64_t lo = grid.first_busy_block(d), hi = grid.last_block(d);
    std::vector<BlockSpan> runs;
    for (BlockSpan s : spans) {
        s.first = std::max(s.first, lo);
        s.last = std::min(s.last, hi);
        if (!s.empty()) runs.push_back(s);
    }
    std::sort(runs.begin(), runs.end(), [](const BlockSpan& a, const BlockSpan& b) { return a.first < b.first; });
    std::vector<BlockSpan> merged;
    for (const BlockSpan& s : runs) {
        if (!merged.empty() && s.first <= merged.back().last + 1)
            merged.back().last = std::max(merged.back().last, s.last);
        else
            merged.push_back(s);
    }
    // Too many runs: close the narrowest gap until they fit.
    while (merged.size() > static_cast<size_t>(LaunchMap::kRanges)) {
        size_t at = 1;
        for (size_t k = 2; k < merged.size(); ++k)
            if (merged[k].first - merged[k - 1].last < merged[at].first - merged[at - 1].last) at = k;
        merged[at - 1].last = merged[at].last;
        merged.erase(merged.begin() + static_cast<std::ptrdiff_t>(at));
    }
    LaunchMap map;
    for (size_t r = 0; r < merged.size(); ++r) {
        map.first[r] = static_cast<int32_t>(merged[r].first);
        map.count[r] = static_cast<int32_t>(merged[r].last - merged[r].first + 1);
    }
    return map;
}

}  // namespace chromalign
