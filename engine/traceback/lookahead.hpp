//! @file Windows between stage 1's rows swept ahead of the walk (linear_traceback.hpp).
//!
//! The walk goes through the windows below stage 1's rows one after another, and a window's
//! columns end where the walk crossed the row below it, so each waits for the last. On a GPU a
//! window is too small to fill the device, and the walk's CPU work inside a window leaves the
//! GPU idle. So the windows above the walk are swept ahead, in threads of their own (several
//! at once on the GPU), on columns guessed from stage 1's rows: the path crosses a row about
//! where that row's H is largest, left of where it crossed the row below (up to kGuessReach
//! spans left: a long gap moves the path that far, and its window must hold where it opens,
//! or no step below it can be certified). A guess is right when
//! the walk's own window lies within the swept one, which then serves it: any window does,
//! since the walk certifies every step. Otherwise the walk sweeps its own window, and the
//! guesses start again from where it is.
#pragma once

#include <cstdint>
#include <deque>
#include <functional>
#include <future>
#include <memory>

#include "engine/traceback/row_source.hpp"
#include "engine/traceback/window.hpp"

namespace chromalign {

/// How many window spans left of the walk a guess of where the path crosses a row may look.
constexpr int64_t kGuessReach = 8;

class Lookahead {
public:
    using Sweep = std::function<std::unique_ptr<RowSource>(const WindowSpec& w, WindowRow top)>;
    /// Keeps `depth` windows of `rows` in flight, swept by `sweep` (called from other threads).
    Lookahead(RowSource& rows, const TracebackTerms& t, int depth, Sweep sweep)
        : rows_(rows), t_(t), depth_(depth), sweep_(std::move(sweep)) {}

    struct Window {
        WindowSpec w;
        std::unique_ptr<RowSource> rows;
    };
    /// The walk is at (i, j), on a row of `rows`, and needs the window below row_above(i) over
    /// columns [lo, j]: a window swept ahead that holds it (rows null if none). Plans the next.
    Window take(int64_t i, int64_t j, int64_t lo);
    /// Frees a window the walk is done with in a thread of its own: freeing an executor's GPU
    /// memory waits for the whole device, where the windows ahead are being swept.
    void retire(std::unique_ptr<RowSource> rows);

private:
    /// Keeps depth_ windows in flight above row i, the walk being at column j there.
    void plan(int64_t i, int64_t j);

    struct Ahead {
        WindowSpec w;
        int64_t cap;    ///< the largest column a later window may take (the walk's j never grows)
        int64_t guess;  ///< where the path is guessed to cross w.top
        std::future<std::unique_ptr<RowSource>> rows;
    };
    RowSource& rows_;
    const TracebackTerms& t_;
    const int depth_;
    const Sweep sweep_;
    std::deque<Ahead> ahead_;  ///< by falling bottom row: the next window the walk needs first
    std::deque<std::future<void>> retired_;  ///< windows being freed (waited for at the end)
};

/// Window [top, bottom] x [lo, hi] cut from `rows` with its bound (WindowSpec::k).
WindowSpec cut_window(RowSource& rows, const TracebackTerms& t, int64_t top, int64_t bottom, int64_t lo, int64_t hi);

}  // namespace chromalign
