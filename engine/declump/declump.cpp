//! @file best_alignments: one pass over the grid, then after each alignment only the tiles it changes.
#include "engine/declump/declump.hpp"

#include <algorithm>
#include <chrono>
#include <set>
#include <thread>

#include "engine/alignment/alignment.hpp"
#include "engine/declump/edge_grid.hpp"
#include "engine/declump/grid_rows.hpp"
#include "engine/traceback/linear_traceback.hpp"
#include "engine/error.hpp"

namespace chromalign {

namespace {

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
    for (;;) {
        start = Clock::now();  // a traceback: where the best cell is, then the walk from it
        const AlignmentEnd end = grid.best(barred);
        if (best && found.empty()) *best = end;
        if (end.score < std::max(min_score, 1)) break;
        if (resume.wanted && !resume.wanted(end.score, found.size())) break;
        const size_t k = found.size();
        const Alignment* traced = k < resume.known.size() ? &resume.known[k] : found.empty() ? resume.traced : nullptr;
        Alignment a = takes(traced, end) ? *traced
                      : found.empty()                  ? trace_first(grid, end, options, c)
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
        start = Clock::now();
        const int64_t before = grid.cells_computed();
        c.recomputed_tiles += grid.recompute(barred, dirty);
        c.recomputed_cells += grid.cells_computed() - before;
        c.recompute_seconds += since(start);
    }
    if (counts) *counts = c;
    return found;
}

}  // namespace chromalign
