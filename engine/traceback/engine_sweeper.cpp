//! @file A window as a one-slab run of the engine, its band bottoms captured.
#include "engine/traceback/engine_sweeper.hpp"

#include <algorithm>
#include <deque>
#include <thread>
#include <vector>

#include "engine/checkpoint/band_capture.hpp"
#include "engine/error.hpp"

namespace chromalign {
namespace {

Sequence slice(const Sequence& s, int64_t from, int64_t to) {
    Sequence out;
    out.name = s.name;
    out.codes.assign(s.codes.begin() + from, s.codes.begin() + to);
    return out;
}

/// A band bottom as a window row: the fresh edge's H = 0, F = -inf before the n columns.
WindowRow window_row(Checkpoint& c) {
    WindowRow r;
    r.row = c.row;
    r.h.reserve(c.h.size() + 1);
    r.h.push_back(0);
    r.h.insert(r.h.end(), c.h.begin(), c.h.end());
    r.f.reserve(c.f.size() + 1);
    r.f.push_back(kScoreNegInf);
    r.f.insert(r.f.end(), c.f.begin(), c.f.end());
    return r;
}

}  // namespace

void EngineSweeper::sweep(const WindowSpec& w, const SweepSteps& steps, KeptRows& kept) {
    const SlabShape shape = engine_.slab_shape(w.rows(), w.width(), scoring_);
    const int64_t rows = shape.rows_per_band;
    if (w.rows() < 2 * rows) return scalar_.sweep(w, steps, kept);
    const int64_t every = std::max<int64_t>(1, (steps.at_least + rows - 1) / rows);  // bands per kept row
    ++engine_sweeps_;

    const Sequence s0 = slice(s0_, w.top, w.bottom), s1 = slice(s1_, w.lo - 1, w.hi);
    const WindowRow& above = kept.top_row();
    TopRow top;
    top.h.assign(above.h.begin() + 1, above.h.end());
    top.f.assign(above.f.begin() + 1, above.f.end());
    top.corner = above.h.front();
    const int32_t blocks = static_cast<int32_t>(
        std::clamp<int64_t>(w.width() / shape.min_block_cols, 1, std::max(1, shape.blocks)));
    const std::unique_ptr<TileExecutor> ex =
        engine_.slab_executor(s0, s1, scoring_, 0, top, SlabEdges{true, false}, blocks, PruneRule{});
    const TileGrid& g = ex->grid();
    if (g.rows_per_band() != rows) throw Error("internal: the window's executor changed its band height");

    const std::vector<int32_t> zero_h(static_cast<size_t>(rows), 0), neg_e(static_cast<size_t>(rows), kScoreNegInf);
    std::deque<BandCapture> captures;
    for (int64_t d = 0; d < g.diagonals(); ++d) {
        while (!ex->done(d - kMaxDiagonalsInFlight)) std::this_thread::yield();
        if (d < g.bands) {
            ex->set_left_edge(d, zero_h.data(), neg_e.data(), d == 0 ? top.corner : 0);
            if ((d + 1) % every == 0 && w.top + (d + 1) * rows < w.bottom) {
                captures.emplace_back();
                captures.back().start(d, g.n);
            }
        }
        ex->enqueue_diagonal(d);
        for (BandCapture& c : captures) c.capture(*ex, d);
    }
    ex->synchronize();
    for (BandCapture& c : captures) {
        Checkpoint row;
        c.take(*ex, w.top, row);
        kept.keep(window_row(row));
    }
}

}  // namespace chromalign
