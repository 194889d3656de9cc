//! @file Windows between stage 1's rows swept ahead of the walk (linear_traceback.hpp).
//!
//! The walk goes through the windows below stage 1's rows one after another, and a window's
//! columns end where the walk crossed the row below it, so each waits for the last. On a GPU a
//! window is too small to fill the device, and the walk's CPU work inside a window leaves the
//! GPU idle. So the windows above the walk (and, from its start, its own first one) are swept
//! ahead, in threads of their own (several at once on the GPU), on columns guessed from stage
//! 1's rows: the path crosses a row about where that row's H less what a gap from there to
//! where it crossed the row below would cost is largest (CrossingBias), up to kGuessReach
//! spans left (a long gap moves the path that far, and its window must hold where it opens,
//! or no step below it can be certified). A guess is right when the walk's own window lies
//! within the swept one, which then serves it: any window does, since the walk certifies
//! every step. Otherwise the walk sweeps its own window, and the guesses start again from
//! where it is.
//!
//! The thread that swept a window also walks it, from where the path is guessed to enter it
//! (its bottom row, in state H): the walk from a point depends on nothing else, so when the
//! walk enters there, it takes that walk's steps as they are. The walk's own work in a
//! window it was served then runs in parallel with the others.
//!
//! A window the walk no longer needs (behind it, or planned from a wrong guess) is dropped:
//! the walk does not wait for it, and its sweep stops at its next diagonal, its walk at its
//! next window (a guessed entry off the path may lead that walk into long detours).
#pragma once

#include <atomic>
#include <cstdint>
#include <deque>
#include <functional>
#include <future>
#include <memory>
#include <optional>
#include <vector>

#include "engine/traceback/linear_traceback.hpp"
#include "engine/traceback/row_source.hpp"
#include "engine/traceback/window.hpp"

namespace chromalign {

/// How many window spans left of the walk a guess of where the path crosses a row may look.
constexpr int64_t kGuessReach = 8;

/// A point the walk taken ahead passed between two of its windows, and its steps from the entry.
struct TrailPoint {
    int64_t i = 0, j = 0;
    char state = 'H';
    int64_t steps = 0;
};

/// The walk through a swept window from a guessed entry, taken in the thread that swept it.
struct WalkAhead {
    bool taken = false;    ///< the walk left the window by its top row, or reached the start
    TracebackPoint entry;  ///< the window's bottom row, state 'H', v its true H (v <= 0: none)
    TracebackPoint exit;   ///< where the walk left; runs_back: its runs from entry to exit
    bool start = false;    ///< exit is the alignment's first cell
    /// Where it stood between its windows, by falling row: a walk that enters the window
    /// elsewhere and meets one of these (the same cell and state) goes on as this one did.
    std::vector<TrailPoint> trail;
    TracebackCounts counts;
};

class Lookahead {
public:
    struct Swept {
        std::unique_ptr<RowSource> rows;
        WalkAhead walk;
    };
    /// Sweeps window w below `top`, then walks it from `entry` (if its v > 0) unless the
    /// window was dropped by then.
    using Sweep = std::function<Swept(const WindowSpec& w, WindowRow top, const TracebackPoint& entry,
                                      const std::atomic<bool>& dropped)>;
    /// Keeps `depth` windows of `rows` in flight, swept by `sweep` (called from other threads).
    /// `start` (if given, state 'H'): where the walk starts, off the rows as a rule (the end
    /// cell): its own first window is swept and walked ahead too, first, while the windows
    /// above it are planned (reading their rows takes the walk's thread milliseconds each).
    Lookahead(RowSource& rows, const TracebackTerms& t, int depth, Sweep sweep,
              std::optional<TracebackPoint> start = std::nullopt)
        : rows_(rows), t_(t), depth_(depth), sweep_(std::move(sweep)), start_(std::move(start)) {}
    /// Drops the windows still ahead, then waits for every thread.
    ~Lookahead();

    struct Window {
        WindowSpec w;
        std::unique_ptr<RowSource> rows;
        WalkAhead walk;
    };
    /// The walk is at (i, j), on a row of `rows` or at its start, and needs the window below
    /// row_above(i) over columns [lo, j]: a window swept ahead that holds it (rows null if
    /// none). Plans the next.
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
        std::future<Swept> swept;
        std::shared_ptr<std::atomic<bool>> dropped;  ///< set when the walk no longer needs it
    };
    /// Lets a window go without waiting for it: it finishes in its thread, unwalked.
    void drop(Ahead& a);
    RowSource& rows_;
    const TracebackTerms& t_;
    const int depth_;
    const Sweep sweep_;
    std::deque<Ahead> ahead_;  ///< by falling bottom row: the next window the walk needs first
    std::deque<std::future<void>> retired_;  ///< windows being freed (waited for at the end)
    std::deque<std::future<Swept>> dropped_;  ///< windows no longer needed, still being swept
    std::optional<TracebackPoint> start_;  ///< the walk's start, until its first window is planned
};

/// Window [top, bottom] x [lo, hi] cut from `rows` with its bound (WindowSpec::k).
WindowSpec cut_window(RowSource& rows, const TracebackTerms& t, int64_t top, int64_t bottom, int64_t lo, int64_t hi);

}  // namespace chromalign
