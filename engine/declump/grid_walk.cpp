//! @file walk_back: the reference's path rule over tiles held whole, inside grids of grids.
#include "engine/declump/grid_walk.hpp"

#include <algorithm>
#include <string>
#include <vector>

#include "engine/error.hpp"

namespace chromalign {
namespace {

/// Where the walk stands: cell (i, j) in state 'H', 'E' or 'F', the runs so far, last first.
struct Walk {
    int64_t i = 0, j = 0;
    char state = 'H';
    bool done = false;  ///< the alignment starts at (i, j)
    std::vector<AlignmentRun> reversed;

    void add(char op) {
        if (!reversed.empty() && reversed.back().op == op)
            ++reversed.back().length;
        else
            reversed.push_back({op, 1});
    }
};

[[noreturn]] void no_move(const Walk& w) {
    throw Error("traceback of the K best alignments: no move into cell " + std::to_string(w.i) + ", " +
                std::to_string(w.j) + " (state " + std::string(1, w.state) + ")");
}

/// Walks inside one tile held whole until the walk leaves it or the alignment starts.
void walk_tile(const Sequence& s0, const Sequence& s1, const Scoring& sc, const FullTile& t,
               const std::vector<std::pair<int64_t, int64_t>>& barred, Walk& w) {
    while (!w.done && t.rect.holds(w.i, w.j)) {
        const size_t at = t.at(w.i, w.j);
        if (w.state == 'H') {
            const int32_t h = t.h[at], before = t.h[t.at(w.i - 1, w.j - 1)];
            const uint8_t x = s0.codes[static_cast<size_t>(w.i - 1)], y = s1.codes[static_cast<size_t>(w.j - 1)];
            const bool is_barred = std::binary_search(barred.begin(), barred.end(), std::make_pair(w.i, w.j));
            if (h > 0 && !is_barred && h == before + sc.score(x, y)) {
                w.add(x < kBaseOther && x == y ? '=' : 'X');
                if (before == 0) {
                    w.done = true;
                } else {
                    --w.i;
                    --w.j;
                }
            } else if (h > 0 && h == t.f[at]) {
                w.state = 'F';
            } else if (h > 0 && h == t.e[at]) {
                w.state = 'E';
            } else {
                no_move(w);
            }
        } else if (w.state == 'F') {
            w.add('I');
            if (t.f[at] == t.h[t.at(w.i - 1, w.j)] - sc.gap_open) w.state = 'H';
            --w.i;
        } else {
            w.add('D');
            if (t.e[at] == t.h[t.at(w.i, w.j - 1)] - sc.gap_open) w.state = 'H';
            --w.j;
        }
    }
}

void walk_grid(const Sequence& s0, const Sequence& s1, const Scoring& sc, const EdgeGrid& grid,
               const BarredPairs& barred, const WalkLimits& limits, Walk& w) {
    while (!w.done && grid.area().holds(w.i, w.j)) {
        const EdgeGrid::Tile tile = grid.tile_of(w.i, w.j);
        const TileEdges e = grid.edges(tile);
        // The walk only moves up and left: the tile's cells below it or to its right are never
        // read, and the rest depends on the tile's top and left edges alone.
        Rect r = grid.tile_rect(tile);
        r.bottom = w.i;
        r.right = w.j;
        if (r.rows() * r.cols() <= limits.leaf_cells) {
            FullTile full;
            TileSink sink;
            sink.full = &full;
            const auto bars = barred.in(r.top, r.bottom, r.left, r.right);
            tile_dp(s0, s1, sc, r, e, bars, sink);
            walk_tile(s0, s1, sc, full, bars, w);
            continue;
        }
        const size_t rows = static_cast<size_t>(r.rows()), cols = static_cast<size_t>(r.cols());
        const int64_t longer = std::max(r.rows(), r.cols()), least = std::max<int64_t>(limits.least_side, 1);
        const int64_t split = std::min(limits.split, std::max<int64_t>(2, (longer + least - 1) / least));
        EdgeGrid inner(s0, s1, sc, r, (r.rows() + split - 1) / split,
                       (r.cols() + split - 1) / split, std::vector<int32_t>(e.top_h, e.top_h + cols + 1),
                       std::vector<int32_t>(e.top_f, e.top_f + cols + 1), std::vector<int32_t>(e.left_h, e.left_h + rows),
                       std::vector<int32_t>(e.left_e, e.left_e + rows), grid.workers());
        inner.compute(barred);
        walk_grid(s0, s1, sc, inner, barred, limits, w);
    }
}

}  // namespace

Alignment walk_back(const EdgeGrid& grid, const BarredPairs& barred, const AlignmentEnd& end,
                    const WalkLimits& limits) {
    if (limits.split < 2) throw Error("walk_back: split must be at least 2");
    Walk w;
    w.i = end.s0_end;
    w.j = end.s1_end;
    walk_grid(grid.s0(), grid.s1(), grid.scoring(), grid, barred, limits, w);
    if (!w.done) no_move(w);
    Alignment a;
    a.score = end.score;
    a.s0_end = end.s0_end;
    a.s1_end = end.s1_end;
    a.s0_start = w.i;
    a.s1_start = w.j;
    a.runs.assign(w.reversed.rbegin(), w.reversed.rend());
    return a;
}

}  // namespace chromalign
