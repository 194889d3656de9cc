//! @file Guessed windows swept ahead of the walk.
#include "engine/traceback/lookahead.hpp"

#include <algorithm>
#include <chrono>
#include <deque>
#include <future>

namespace chromalign {

WindowSpec cut_window(RowSource& rows, const TracebackTerms& t, int64_t top, int64_t bottom, int64_t lo, int64_t hi) {
    WindowSpec w;
    w.top = top;
    w.bottom = bottom;
    w.lo = lo;
    w.hi = hi;
    w.k = rows.k();
    if (lo > rows.lo()) w.k = std::max(w.k, rows.edge_term(top, lo - 1, t.gap) - (t.best + t.gap) * top);
    w.top_exact = rows.row_exact(top);
    return w;
}

namespace {

/// Pops the futures at the front of `q` that are ready, handing each to `take` first.
template <typename T, typename Take>
void pop_ready(std::deque<std::future<T>>& q, Take take) {
    while (!q.empty() && q.front().wait_for(std::chrono::seconds(0)) == std::future_status::ready) {
        take(q.front());
        q.pop_front();
    }
}

}  // namespace

Lookahead::Window Lookahead::take(int64_t i, int64_t j, int64_t lo) {
    pop_ready(dropped_, [this](std::future<Swept>& f) {
        if (Swept s = f.get(); s.rows) retire(std::move(s.rows));  // freeing here waits for the GPU
    });
    if (start_) plan(i, j);  // the walk's own window first (nothing is planned before it)
    while (!ahead_.empty() && ahead_.front().w.bottom > i) {  // behind the walk
        drop(ahead_.front());
        ahead_.pop_front();
    }
    Window got;
    if (!ahead_.empty() && ahead_.front().w.bottom == i) {
        Ahead& a = ahead_.front();
        if (a.w.lo <= lo && a.w.hi >= j) {
            Swept swept = a.swept.get();
            got.w = a.w;
            got.rows = std::move(swept.rows);
            got.walk = std::move(swept.walk);
            ahead_.pop_front();
        } else {
            for (Ahead& wrong : ahead_) drop(wrong);  // the guesses above were made from a wrong one
            ahead_.clear();
        }
    }
    plan(i, j);
    return got;
}

Lookahead::~Lookahead() {
    for (Ahead& a : ahead_) *a.dropped = true;
}

void Lookahead::drop(Ahead& a) {
    *a.dropped = true;
    dropped_.push_back(std::move(a.swept));
}

void Lookahead::retire(std::unique_ptr<RowSource> rows) {
    pop_ready(retired_, [](std::future<void>&) {});
    retired_.push_back(std::async(std::launch::async, [r = std::move(rows)]() mutable { r.reset(); }));
}

void Lookahead::plan(int64_t i, int64_t j) {
    if (i <= rows_.top()) return;
    int64_t bottom, cap, at;  // the next window's bottom row, column cap, and guessed crossing
    bool known = false;       // H(bottom, at) is entry_h: the window below read row `bottom`
    int64_t entry_h = 0;
    if (start_ && start_->i == i && start_->j == j) {  // nothing is planned yet
        // The walk's own window, entered where the walk stands: its walk taken ahead serves it
        // (its columns hold the walk's, as the guess below is the walk's own crossing).
        bottom = i;
        cap = at = j;
        known = true;
        entry_h = start_->v;
    } else if (ahead_.empty()) {
        bottom = rows_.row_above(i);  // the walk's own window ends here: plan from the one above
        cap = j;
        at = rows_.crossing_column(bottom, std::max(rows_.lo(), j - kGuessReach * window_span(i - bottom)),
                                   CrossingBias{t_.ext, i - bottom, j});
    } else {
        bottom = ahead_.back().w.top;
        cap = ahead_.back().cap;
        at = ahead_.back().guess;
    }
    start_.reset();
    while (static_cast<int>(ahead_.size()) < depth_ && bottom > rows_.top()) {
        const int64_t top = rows_.row_above(bottom), height = bottom - top;
        // Guesses of the crossings are often some thousand columns off: a window a quarter of
        // its height wider each side holds the walk's own window then (on a 4M related pair,
        // 1 of 84 windows missed it; with an eighth, 4).
        const int64_t slack = height / 4 + 256;
        Ahead a;
        a.guess = rows_.crossing_column(top, std::max(rows_.lo(), at - kGuessReach * window_span(height)),
                                        CrossingBias{t_.ext, height, at});
        // The path's columns between the two rows lie between its crossings (they never fall):
        // a window from left of the upper one to the lower one holds it, a long gap included.
        const int64_t hi = std::min(cap, at + slack);
        const int64_t lo = std::max(rows_.lo(), std::min(at - height, a.guess) - (window_span(height) - height) - slack);
        if (hi < lo) return;
        a.w = cut_window(rows_, t_, top, bottom, lo, hi);
        a.cap = hi;
        WindowRow top_row = rows_.read(top, lo, hi);  // columns lo - 1 .. hi
        TracebackPoint entry{bottom, at, 'H', at > hi ? 0 : known ? entry_h : rows_.read(bottom, at, at).h[1], {}};
        // The next window enters row `top` at a.guess, which this top row holds when a.guess <= hi
        // (the next window's hi is at most this one's: entry at a.guess > hi reads no row).
        known = a.guess >= lo - 1 && a.guess <= hi;
        if (known) entry_h = top_row.h[static_cast<size_t>(a.guess - lo + 1)];
        a.dropped = std::make_shared<std::atomic<bool>>(false);
        // sweep_ outlives the task: ~Lookahead waits for every window (ahead_, dropped_).
        a.swept = std::async(std::launch::async, [&sweep = sweep_, w = a.w, top_row = std::move(top_row),
                                                  entry = std::move(entry), dropped = a.dropped]() mutable {
            return sweep(w, std::move(top_row), entry, *dropped);
        });
        bottom = top;
        at = a.guess;
        ahead_.push_back(std::move(a));
    }
}

}  // namespace chromalign
