//! @file How the traceback sweeps a window too large to hold whole: once, keeping rows for
//! the walk to recurse into (linear_traceback.hpp), on one CPU thread or on a tiled engine.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>

#include "engine/scoring/scoring.hpp"
#include "engine/sequence.hpp"
#include "engine/traceback/row_source.hpp"
#include "engine/traceback/window.hpp"

namespace chromalign {

/// What the walk asks of a sweep's kept rows.
struct SweepSteps {
    int64_t wanted = 1;      ///< rows between kept rows, for children held whole
    int64_t at_least = 1;    ///< the fewest rows between kept rows that the memory allows
    /// Once set, the rows are no longer wanted: a sweep may stop and return null (a window
    /// swept ahead that the walk dropped, lookahead.hpp).
    const std::atomic<bool>* cancel = nullptr;
};

class WindowSweeper {
public:
    virtual ~WindowSweeper() = default;
    /// Computes window w below `top` and returns its rows for the walk: `top` and rows
    /// strictly between the window's top and bottom, at least `steps.at_least` apart and at
    /// least one when w.rows() >= 2. Any rows will do: the walk certifies every step it takes.
    virtual std::unique_ptr<RowSource> sweep(const WindowSpec& w, WindowRow top, const SweepSteps& steps) = 0;
    /// Windows worth sweeping ahead of the walk at once, from other threads (lookahead.hpp);
    /// 0: none, and sweep is called from the walk's thread only.
    virtual int lookahead() const { return 0; }
};

/// One CPU thread, kLanes rows at a time in SIMD lanes (sweep_stripes), keeping every
/// max(wanted, at_least)-th row, rounded up to whole stripes.
class CpuSweeper : public WindowSweeper {
public:
    CpuSweeper(const Sequence& s0, const Sequence& s1, const Scoring& scoring)
        : s0_(s0), s1_(s1), t_(scoring) {}
    std::unique_ptr<RowSource> sweep(const WindowSpec& w, WindowRow top, const SweepSteps& steps) override;

private:
    const Sequence& s0_;
    const Sequence& s1_;
    const TracebackTerms t_;
};

}  // namespace chromalign
