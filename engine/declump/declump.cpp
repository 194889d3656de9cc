//! @file best_alignments: one pass over the grid, then after each alignment only the tiles it changes.
#include "engine/declump/declump.hpp"

#include <algorithm>
#include <chrono>
#include <optional>
#include <set>
#include <thread>

#include "engine/alignment/alignment.hpp"
#include "engine/declump/edge_grid.hpp"
#include "engine/declump/grid_rows.hpp"
#include "engine/declump/walks_ahead.hpp"
#include "engine/traceback/linear_traceback.hpp"
#include "engine/error.hpp"

namespace chromalign {

namespace {

/// Tiles bands b0 .. b1 by columns c0 .. c1.
struct TileBox {
    int64_t b0, b1, c0, c1;
    bool holds(const EdgeGrid::Tile& t) const { return t.first >= b0 && t.first <= b1 && t.second >= c0 && t.second <= c1; }
};

/// The tiles of cells rows top .. bottom by columns left .. right, and those around them.
TileBox around(const EdgeGrid& grid, int64_t top, int64_t bottom, int64_t left, int64_t right) {
    const Rect& a = grid.area();
    const EdgeGrid::Tile from = grid.tile_of(std::clamp(top, a.top + 1, a.bottom), std::clamp(left, a.left + 1, a.right));
    const EdgeGrid::Tile to = grid.tile_of(std::clamp(bottom, a.top + 1, a.bottom), std::clamp(right, a.left + 1, a.right));
    return TileBox{from.first - 1, to.first + 1, from.second - 1, to.second + 1};
}

/// Where the tiles an alignment changes lie, about: barring its pairs lowers H from its start
/// on, as far right and down as a gap of its score reaches, or a diagonal that keeps it.
TileBox reach(const EdgeGrid& grid, const Alignment& a) {
    return around(grid, a.s0_start, a.s0_end + a.score, a.s1_start, a.s1_end + a.score);
}

/// The same for a peak whose alignment is not walked yet: it starts up to about twice its
/// score up and left (the related pairs' alignments score above half a column).
TileBox reach(const EdgeGrid& grid, const EdgeGrid::Lead& lead) {
    const Rect r = grid.tile_rect(lead.tile);
    const int64_t i = lead.rows > 0 ? r.top : lead.end.s0_end, j = lead.rows > 0 ? r.left : lead.end.s1_end;
    const int64_t s = lead.end.score;
    return around(grid, i - 2 * s, (lead.rows > 0 ? r.bottom : i) + s, j - 2 * s, (lead.rows > 0 ? r.right : j) + s);
}

/// Alignment 1, nothing barred yet: the grid's band tops are exact rows of the matrix, so the
/// linear traceback from them gives it, by the same path rule as a walk of the tiles.
Alignment trace_first(const EdgeGrid& grid, const AlignmentEnd& end, const DeclumpOptions& options,
                      DeclumpCounts& counts) {
    ++counts.rows_traced;
    GridRows rows(grid, std::max<int64_t>(1, options.trace_row_spacing / grid.tile_rows()));
    const std::unique_ptr<WindowSweeper> sweeper = options.sweeper ? options.sweeper(grid.s0(), grid.s1()) : nullptr;
    return linear_traceback(grid.s0(), grid.s1(), grid.scoring(), end, rows, {}, nullptr, sweeper.get(), nullptr,
                            options.stop);
}

/// Starts walks ahead from the highest peaks that `last` (if given: just barred, its tiles not
/// computed again yet) cannot reach, nor the peaks walked ahead before them: twice as many in
/// hand as walk at once, the next alignments likely among them.
void walk_ahead(EdgeGrid& grid, const BarredPairs& barred, WalksAhead& ahead, const Alignment* last, int32_t least,
                const DeclumpOptions& options) {
    std::vector<TileBox> zones;
    if (last) zones.push_back(reach(grid, *last));
    const size_t want = 2 * static_cast<size_t>(options.walks_ahead);
    const std::vector<EdgeGrid::Lead> leads =
        grid.leads(3 * want, [&](const EdgeGrid::Tile& t) { return last != nullptr && zones.front().holds(t); });
    std::vector<EdgeGrid::Lead> chosen;
    size_t in_hand = 0;
    for (const EdgeGrid::Lead& lead : leads) {
        if (lead.end.score < least || in_hand == want) break;
        const bool held = ahead.holds(lead.tile);
        if (!held && std::any_of(zones.begin(), zones.end(), [&](const TileBox& z) { return z.holds(lead.tile); }))
            continue;
        if (!held) chosen.push_back(lead);
        zones.push_back(reach(grid, lead));
        ++in_hand;
    }
    if (!chosen.empty()) ahead.start(chosen, barred);
}

}  // namespace

std::vector<Alignment> best_alignments(const Sequence& s0, const Sequence& s1, const Scoring& scoring, int count,
                                       int32_t min_score, const DeclumpOptions& options, DeclumpCounts* counts,
                                       const DeclumpResume& resume, AlignmentEnd* best) {
    std::vector<Alignment> found;
    if (best) *best = AlignmentEnd{};
    if (count <= 0 || s0.length() == 0 || s1.length() == 0) return found;
    if (options.tile_rows < 1 || options.tile_cols < 1) throw Error("best_alignments: tiles need a row and a column");
    scoring.check_no_overflow(s0.length(), s1.length());
    CpuTileWaves lanes(options.cells_per_thread);
    TileWaves& cpu = options.host ? *options.host : lanes;
    if (options.device) options.device->bind(s0, s1);
    if (options.host) options.host->bind(s0, s1);
    const int threads =
        options.threads > 0 ? options.threads : std::max(1, static_cast<int>(std::thread::hardware_concurrency()));
    using Clock = std::chrono::steady_clock;
    const auto since = [](Clock::time_point t) { return std::chrono::duration<double>(Clock::now() - t).count(); };
    DeclumpCounts c;
    // An alignment found before is taken where it ends at the search's next cell and its runs
    // score its score there (rescore checks every column); else the search traces its own.
    const auto takes = [&](const Alignment* known, const AlignmentEnd& end) {
        if (known == nullptr || !(known->as_end() == end)) return false;
        try {
            return rescore(*known, s0, s1, scoring) == known->score;
        } catch (const Error&) {
            return false;
        }
    };
    auto start = Clock::now();  // the first pass: the grid's edges made, then computed
    EdgeGrid grid = EdgeGrid::whole(s0, s1, scoring, options.tile_rows, options.tile_cols,
                                    GridWorkers{&cpu, options.device, threads, options.device_cells, options.stop,
                                                options.on_first_pass, options.on_first_pass_queued});
    BarredPairs barred(options.tile_rows);
    grid.compute(barred);
    if (options.search_threads > 0) grid.set_threads(options.search_threads);
    c.first_seconds = since(start);
    c.first_cells = grid.cells_computed();
    const int32_t least = std::max(min_score, 1);
    // Declared after the grid, so that its walks end before the grid goes.
    std::unique_ptr<WalksAhead> ahead =
        options.walks_ahead > 0 && count > 1
            ? std::make_unique<WalksAhead>(grid, options.walk, options.walks_ahead)
            : nullptr;
    for (;;) {
        start = Clock::now();  // a traceback: where the best cell is, then the walk from it
        const AlignmentEnd end = grid.best(barred);
        if (best && found.empty()) *best = end;
        if (end.score < least) break;
        if (resume.wanted && !resume.wanted(end.score, found.size())) break;
        const size_t k = found.size();
        const Alignment* traced = k < resume.known.size() ? &resume.known[k] : found.empty() ? resume.traced : nullptr;
        const bool known = takes(traced, end);  // rescores it: once
        std::optional<Alignment> ahead_of_turn;
        if (ahead && !known && !found.empty()) ahead_of_turn = ahead->take(end);
        Alignment a = known               ? *traced
                      : ahead_of_turn     ? std::move(*ahead_of_turn)
                      : found.empty()     ? trace_first(grid, end, options, c)
                                          : walk_back(grid, barred, end, options.walk, &c.walk);
        c.walk_seconds += since(start);
        if (k < resume.known.size() && resume.known[k] != a)
            throw Error("the saved alignment " + std::to_string(k + 1) + " (score " +
                        std::to_string(resume.known[k].score) + ") is not the one the search finds (score " +
                        std::to_string(a.score) + ")");
        barred.add(a);
        found.push_back(std::move(a));
        if (k >= resume.known.size() && resume.found) resume.found(found);
        if (static_cast<int>(found.size()) == count) break;
        std::set<EdgeGrid::Tile> dirty;
        const Alignment& last = found.back();
        // Every tile a pair of the new alignment lies in: walk its diagonal runs tile by tile.
        int64_t i = last.s0_start, j = last.s1_start;
        for (const AlignmentRun& r : last.runs) {
            if (r.op == '=' || r.op == 'X') {
                for (int64_t k = 0; k < r.length; ++k) dirty.insert(grid.tile_of(i + k, j + k));
                i += r.length;
                j += r.length;
            } else {
                i += r.op == 'I' ? r.length : 0;
                j += r.op == 'D' ? r.length : 0;
            }
        }
        // Walks ahead run beside the device's recompute; on the threads', after it.
        const bool ahead_now = ahead && found.size() >= resume.known.size();
        if (ahead_now && grid.kept()) walk_ahead(grid, barred, *ahead, &found.back(), least, options);
        if (ahead && !grid.kept()) ahead->settle();
        start = Clock::now();
        const int64_t before = grid.cells_computed();
        std::set<EdgeGrid::Tile> computed;
        c.recomputed_tiles += grid.recompute(barred, dirty, ahead ? &computed : nullptr);
        if (ahead) ahead->computed(std::move(computed));
        if (ahead_now && !grid.kept()) walk_ahead(grid, barred, *ahead, nullptr, least, options);
        c.recomputed_cells += grid.cells_computed() - before;
        c.recompute_seconds += since(start);
    }
    if (ahead) {
        c.walked_ahead = ahead->walked();
        c.taken_ahead = ahead->taken();
        c.walk.walks += ahead->counts().walks;
        c.walk.tiles_ahead += ahead->counts().tiles_ahead;
        c.walk.trails_met += ahead->counts().trails_met;
    }
    if (counts) *counts = c;
    return found;
}

}  // namespace chromalign
