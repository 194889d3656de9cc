//! @file walk_back: the reference's path rule over tiles held whole, inside grids of grids.
#include "engine/declump/grid_walk.hpp"

#include <algorithm>
#include <memory>
#include <string>
#include <vector>

#include "engine/declump/tiles_ahead.hpp"
#include "engine/error.hpp"

namespace chromalign {
namespace {

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

/// The walk of one alignment: what it reads, and what it counts.
struct GridWalker {
    const Sequence& s0;
    const Sequence& s1;
    const Scoring& sc;
    const BarredPairs& barred;
    const WalkLimits& limits;
    WalkCounts& counts;  ///< the walk's own thread alone counts
    const EdgeGrid* top = nullptr;  ///< the grid walk_back was given, whose tiles `entered` gets
    std::vector<EdgeGrid::Tile>* entered = nullptr;

    /// Walks `grid` from where w stands until it leaves the grid's area or the alignment
    /// starts. Where w enters a part of the grid at a stop of `follow`, it goes on as that
    /// trail did; each part it enters is kept in `record`.
    void walk(const EdgeGrid& grid, Walk& w, const Trail* follow = nullptr, Trail* record = nullptr) const {
        std::unique_ptr<TilesAhead> ahead;
        int64_t crossed = 0;  // tiles of this grid the walk has been in
        while (!w.done && grid.area().holds(w.i, w.j)) {
            if (grid.workers().stop && *grid.workers().stop != 0) search_interrupted(*grid.workers().stop);
            if (record) {
                const int64_t last = w.reversed.empty() ? 0 : w.reversed.back().length;
                record->stops.push_back({w.i, w.j, w.state, w.reversed.size(), last});
            }
            if (follow) {
                if (const Trail::Stop* stop = follow->at(w.i, w.j, w.state)) {
                    follow->follow(*stop, w);
                    ++counts.trails_met;
                    continue;
                }
            }
            const EdgeGrid::Tile tile = grid.tile_of(w.i, w.j);
            if (entered && &grid == top) entered->push_back(tile);
            // The walk only moves up and left: the tile's cells below it or to its right are
            // never read, and the rest depends on the tile's top and left edges alone.
            Rect r = grid.tile_rect(tile);
            const int64_t whole = r.rows() * r.cols();
            r.bottom = w.i;
            r.right = w.j;
            if (r.rows() * r.cols() <= limits.leaf_cells) {
                // A walk holds thousands of leaves one after another, each up to 768 KiB of H, E
                // and F: one buffer per thread, reused, spares an allocation and its first
                // touch per leaf (measured in a loop of leaves alone, not in a whole walk).
                static thread_local FullTile full;
                TileSink sink;
                sink.full = &full;
                const auto bars = barred.in(r.top, r.bottom, r.left, r.right);
                tile_dp(s0, s1, sc, r, grid.edges(tile), bars, sink);
                walk_tile(s0, s1, sc, full, bars, w);
                continue;
            }
            TileAhead taken;
            GridWorkers workers = grid.workers();
            if (limits.host_only) workers.device = nullptr;
            if (limits.threads > 0) workers.threads = limits.threads;
            if (crossed >= limits.ahead_after && whole <= limits.ahead_cells && limits.ahead > 0 && workers.threads > 1) {
                if (!ahead)
                    ahead = std::make_unique<TilesAhead>(grid, barred, limits, [this](const EdgeGrid& part, Walk& from, Trail& trail) {
                        walk(part, from, nullptr, &trail);
                        trail.walk = std::move(from);
                    });
                ahead->expect(w.i, w.j);
                taken = ahead->take(tile);
                if (taken.grid) ++counts.tiles_ahead;
            }
            if (!taken.grid) {
                taken.grid = grid.part(tile, r, walk_split(r, limits), workers);
                taken.grid->compute(barred);
            }
            ++crossed;
            walk(*taken.grid, w, taken.trail.stops.empty() ? nullptr : &taken.trail);
        }
    }
};

}  // namespace

int64_t walk_split(const Rect& r, const WalkLimits& limits) {
    const int64_t longer = std::max(r.rows(), r.cols()), least = std::max<int64_t>(limits.least_side, 1);
    return std::min(limits.split, std::max<int64_t>(2, (longer + least - 1) / least));
}

Alignment walk_back(const EdgeGrid& grid, const BarredPairs& barred, const AlignmentEnd& end,
                    const WalkLimits& limits, WalkCounts* counts, std::vector<EdgeGrid::Tile>* entered) {
    if (limits.split < 2) throw Error("walk_back: split must be at least 2");
    WalkCounts here;
    ++(counts ? *counts : here).walks;
    Walk w;
    w.i = end.s0_end;
    w.j = end.s1_end;
    GridWalker{grid.s0(), grid.s1(), grid.scoring(), barred, limits, counts ? *counts : here, &grid, entered}.walk(grid, w);
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
