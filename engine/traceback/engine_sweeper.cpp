//! @file A window as a one-slab run of the engine, its band bottoms captured.
#include "engine/traceback/engine_sweeper.hpp"

#include <algorithm>
#include <thread>
#include <vector>

#include "engine/error.hpp"

namespace chromalign {
namespace {

Sequence slice(const Sequence& s, int64_t from, int64_t to) {
    Sequence out;
    out.name = s.name;
    out.codes.assign(s.codes.begin() + from, s.codes.begin() + to);
    return out;
}

}  // namespace

void EngineSweeper::sweep(const WindowSpec& w, const SweepSteps& steps, KeptRows& kept) {
    const Sequence s0 = slice(s0_, w.top, w.bottom), s1 = slice(s1_, w.lo - 1, w.hi);
    const WindowRow& above = kept.top_row();
    TopRow top;
    top.h.assign(above.h.begin() + 1, above.h.end());
    top.f.assign(above.f.begin() + 1, above.f.end());
    top.corner = above.h.front();
    const std::unique_ptr<TileExecutor> ex = engine_.window_executor(s0, s1, scoring_, top);
    const TileGrid& g = ex->grid();
    const int64_t rows = g.rows_per_band();
    if (w.rows() < 2 * rows) return scalar_.sweep(w, steps, kept);  // no band bottom inside
    const int64_t every = std::max<int64_t>(1, (steps.at_least + rows - 1) / rows);  // bands per kept row
    ++engine_sweeps_;
    ex->keep_band_bottoms(every);

    const std::vector<int32_t> zero_h(static_cast<size_t>(rows), 0), neg_e(static_cast<size_t>(rows), kScoreNegInf);
    for (int64_t d = 0; d < g.diagonals(); ++d) {
        while (!ex->done(d - kMaxDiagonalsInFlight)) std::this_thread::yield();
        if (d < g.bands) ex->set_left_edge(d, zero_h.data(), neg_e.data(), d == 0 ? top.corner : 0);
        ex->enqueue_diagonal(d);
    }
    ex->synchronize();
    for (int64_t band = every - 1; w.top + (band + 1) * rows < w.bottom; band += every) {
        WindowRow r;
        r.row = w.top + (band + 1) * rows;
        r.h.resize(static_cast<size_t>(g.n + 1));
        r.f.resize(r.h.size());
        r.h[0] = 0;  // the fresh edge
        r.f[0] = kScoreNegInf;
        ex->kept_band_bottom(band, r.h.data() + 1, r.f.data() + 1);
        kept.keep(std::move(r));
    }
}

}  // namespace chromalign
