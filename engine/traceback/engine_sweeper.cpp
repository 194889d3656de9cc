//! @file A window as a one-slab run of the engine, its band bottoms captured.
#include "engine/traceback/engine_sweeper.hpp"

#include <algorithm>
#include <chrono>
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

/// Diagonals per EngineSweeper::sweep call of enqueue_window: one launch on the GPU.
constexpr int64_t kWindowRun = 64;

/// Columns per run of the block maxima that bound a window cut from these rows (window.hpp).
constexpr int64_t kMaximaRun = 512;

/// A swept window's rows: its top row (read as KeptRows reads it), and the band bottoms its
/// executor kept (rows top + q·S, S = every·R), read column range by column range. Executor
/// column x is column lo + x.
class SweptRows : public RowSource {
public:
    SweptRows(const WindowSpec& w, WindowRow top, std::unique_ptr<TileExecutor> ex, int64_t every, int64_t gap)
        : w_(w), top_(w, std::move(top)), ex_(std::move(ex)), every_(every),
          spacing_(every * ex_->grid().rows_per_band()), runs_((ex_->grid().n + kMaximaRun - 1) / kMaximaRun),
          maxima_(static_cast<size_t>(ex_->grid().bands / every * runs_)), gap_(gap) {
        ex_->kept_band_maxima(gap, kMaximaRun, maxima_.data());
    }

    int64_t lo() const override { return w_.lo; }
    int64_t k() const override { return w_.k; }
    int64_t top() const override { return w_.top; }
    int64_t row_above(int64_t i) const override { return w_.top + (i - 1 - w_.top) / spacing_ * spacing_; }
    bool row_exact(int64_t row) const override { return row == w_.top && w_.top_exact; }

    WindowRow read(int64_t row, int64_t from, int64_t to) override {
        if (row == w_.top) return top_.read(row, from, to);
        WindowRow out;
        out.row = row;
        out.h.resize(static_cast<size_t>(to - from + 2));
        out.f.resize(out.h.size());
        const bool edge = from == w_.lo;  // column lo - 1 is the fresh edge: H = 0, F = -inf
        if (edge) {
            out.h[0] = 0;
            out.f[0] = kScoreNegInf;
        }
        fetch(band(row), from - w_.lo - (edge ? 0 : 1), to - w_.lo + 1, out.h.data() + (edge ? 1 : 0),
              out.f.data() + (edge ? 1 : 0));
        return out;
    }

    int64_t edge_term(int64_t row, int64_t to, int64_t gap) override {
        if (row == w_.top) return top_.edge_term(row, to, gap);
        int64_t best = edge_value(0, w_.lo - 1, gap);  // the edge column counts H = 0
        if (gap != gap_) throw Error("internal: the traceback's gap term changed");
        // Whole runs from their maxima, the rest of the last one from its columns.
        const int64_t last = to - w_.lo, whole = (last + 1) / kMaximaRun;
        const int64_t* maxima = maxima_.data() + (band(row) / every_) * runs_;
        for (int64_t r = 0; r < whole; ++r) best = std::max(best, maxima[r] + gap * w_.lo);
        const int64_t from = whole * kMaximaRun;
        if (from <= last) {
            std::vector<int32_t> h(static_cast<size_t>(last + 1 - from)), f(h.size());
            fetch(band(row), from, last + 1, h.data(), f.data());
            for (int64_t x = from; x <= last; ++x) best = std::max(best, edge_value(h[static_cast<size_t>(x - from)], w_.lo + x, gap));
        }
        return best;
    }

    /// One transfer of the row alone, past the cache: the walk asks it over a whole window's
    /// width, and only where a window proved too narrow.
    int64_t crossing_column(int64_t row, int64_t from, const CrossingBias& bias) override {
        if (row == w_.top) return top_.crossing_column(row, from, bias);
        std::vector<int32_t> h(static_cast<size_t>(bias.j - from + 1)), f(h.size());
        ex_->kept_band_bottoms(band(row), 1, from - w_.lo, bias.j - w_.lo + 1, h.data(), f.data());
        return best_crossing(h.data(), from, bias.j, bias);
    }

private:
    int64_t band(int64_t row) const { return (row - w_.top) / ex_->grid().rows_per_band() - 1; }

    /// Executor columns [from, to) of a kept band, through a cache of the last block fetched:
    /// that band and up to kFetchRows - 1 kept bands above it, over [from, to) widened by
    /// kFetchAhead columns right and by the columns the path may drift left over those bands.
    /// A window's edge term reads the columns left of its own, which it reads next, and the
    /// windows above it read the rows above (each fetch from a GPU is a transfer of its own).
    void fetch(int64_t band, int64_t from, int64_t to, int32_t* h, int32_t* f) {
        const int64_t row = band / every_;  // its index among the kept bands
        if (row < cached_row_ || row >= cached_row_ + cached_rows_ || from < cached_from_ || to > cached_to_) {
            const int64_t first = std::max<int64_t>(0, row - (kFetchRows - 1));
            const int64_t drift = (row - first) * spacing_ * 5 / 4 + 256;
            cached_row_ = first;
            cached_rows_ = row - first + 1;
            cached_from_ = std::max<int64_t>(0, from - drift);
            cached_to_ = std::min(ex_->grid().n, std::max(to, from + kFetchAhead));
            cached_h_.resize(static_cast<size_t>(cached_rows_ * (cached_to_ - cached_from_)));
            cached_f_.resize(cached_h_.size());
            ex_->kept_band_bottoms(first * every_ + every_ - 1, cached_rows_, cached_from_, cached_to_,
                                   cached_h_.data(), cached_f_.data());
        }
        const int64_t at = (row - cached_row_) * (cached_to_ - cached_from_) + (from - cached_from_);
        std::copy(cached_h_.begin() + at, cached_h_.begin() + at + (to - from), h);
        std::copy(cached_f_.begin() + at, cached_f_.begin() + at + (to - from), f);
    }
    static constexpr int64_t kFetchRows = 8;
    static constexpr int64_t kFetchAhead = 2048;

    const WindowSpec w_;
    KeptRows top_;  ///< the window's top row alone
    const std::unique_ptr<TileExecutor> ex_;
    const int64_t every_, spacing_, runs_;
    std::vector<int64_t> maxima_;
    const int64_t gap_;
    int64_t cached_row_ = 0, cached_rows_ = 0, cached_from_ = 0, cached_to_ = 0;  ///< the block fetched
    std::vector<int32_t> cached_h_, cached_f_;
};

}  // namespace

std::unique_ptr<RowSource> EngineSweeper::sweep(const WindowSpec& w, WindowRow above, const SweepSteps& steps) {
    const Sequence s0 = slice(s0_, w.top, w.bottom), s1 = slice(s1_, w.lo - 1, w.hi);
    TopRow top;
    top.h.assign(above.h.begin() + 1, above.h.end());
    top.f.assign(above.f.begin() + 1, above.f.end());
    top.corner = above.h.front();
    std::unique_ptr<TileExecutor> ex = engine_.window_executor(s0, s1, scoring_, top);
    const TileGrid& g = ex->grid();
    const int64_t rows = g.rows_per_band();
    if (w.rows() < 2 * rows) return cpu_.sweep(w, std::move(above), steps);  // no band bottom inside
    // Bands per kept row: the rows kept (8 bytes a column) fit kept_bytes_.
    const int64_t all = g.bands * 8 * g.n;
    const int64_t every = std::max<int64_t>(1, (all + kept_bytes_ - 1) / std::max<int64_t>(kept_bytes_, 1));
    ++engine_sweeps_;
    ex->keep_band_bottoms(every);

    // Diagonals in runs of kWindowRun, at most two runs enqueued: a dropped window stops
    // within one, and the thread sleeps rather than polls while its window is swept (the
    // threads walking other windows need the cores).
    for (int64_t d = 0; d < g.diagonals(); d += kWindowRun) {
        if (steps.cancel && *steps.cancel) return nullptr;  // what was enqueued ends as ex is freed
        while (!ex->done(d - kWindowRun - 1)) std::this_thread::sleep_for(std::chrono::microseconds(200));
        ex->enqueue_window(d, std::min(d + kWindowRun, g.diagonals()), top.corner);
    }
    ex->synchronize();
    return std::make_unique<SweptRows>(w, std::move(above), std::move(ex), every, TracebackTerms(scoring_).gap);
}

}  // namespace chromalign
