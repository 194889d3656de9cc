//! @file The traceback in linear memory: the walk of kernels/reference/traceback.hpp, step for
//! step, over windows recomputed from rows kept above it.
//!
//! The walk starts at stage 1's end cell and goes back by the reference's path rule. It needs
//! the true H, E, F of the cells it tests; it reads them from a window cut between the last
//! kept row above it and its current cell (window.hpp). A window value that meets what the walk
//! needs is true; one that misses is a true miss where the window's bound U is lower; anything
//! else makes the walk widen the window to the left and try again. A window too large for
//! memory is swept once, keeping rows every `step`, and the walk recurses into it the same way.
//! Since every step is certified, the alignment is the reference's byte for byte, whatever rows
//! were kept, whatever the windows were, and whatever computed them.
#pragma once

#include <csignal>
#include <cstdint>
#include <vector>

#include "engine/alignment/alignment.hpp"
#include "engine/result.hpp"
#include "engine/scoring/scoring.hpp"
#include "engine/sequence.hpp"
#include "engine/traceback/row_source.hpp"
#include "engine/traceback/window_sweeper.hpp"

namespace chromalign {

struct TracebackLimits {
    int64_t window_cells = int64_t{1} << 22;  ///< the largest window held whole (12 bytes a cell)
    int64_t kept_row_bytes = int64_t{1} << 28;  ///< memory for the rows one sweep keeps
};

/// What the traceback did, for reports and tests.
struct TracebackCounts {
    int64_t cells = 0;    ///< window cells computed (sweeps and whole windows)
    int64_t windows = 0;  ///< windows walked whole
    int64_t widened = 0;  ///< windows recomputed wider
    int64_t swept_cells = 0;   ///< of `cells`, those of sweeps that kept rows
    double sweep_seconds = 0;  ///< the time those sweeps took (not those swept ahead)
    int64_t ahead = 0;         ///< windows swept ahead of the walk that served it (lookahead.hpp)
    int64_t walked_ahead = 0;  ///< of those, windows whose walk was taken ahead too
    int64_t joined = 0;        ///< of the others, windows where the walk met the one taken ahead

    /// Adds what a walk taken ahead computed (its sweeps' time was another thread's).
    void add(const TracebackCounts& o) {
        cells += o.cells;
        windows += o.windows;
        widened += o.widened;
        swept_cells += o.swept_cells;
    }
};

/// Where the walk stands between two windows of the rows it started from: cell (i, j) in
/// state 'H', 'E' or 'F' with true value v, and the runs from the end cell back to it, the
/// last run first. The walk from there depends on nothing else.
struct TracebackPoint {
    int64_t i = 0, j = 0;
    char state = 'H';
    int64_t v = 0;
    std::vector<AlignmentRun> runs_back;
};

/// Where a long traceback saves its walk, and takes it up again after an interruption.
class TracebackJournal {
public:
    virtual ~TracebackJournal() = default;
    /// A walk saved earlier for this traceback; false if none.
    virtual bool load(TracebackPoint& point) = 0;
    /// Asked between two windows of the starting rows: whether to save the walk now (the point
    /// holds every run so far, so the walk builds it only when asked).
    virtual bool due() = 0;
    virtual void save(const TracebackPoint& point) = 0;
};

/// The alignment that ends at `end` (stage 1's answer), from the rows of `rows` (row 0 at
/// least), sweeping large windows with `sweeper` (null: CpuSweeper), taking up and saving
/// its walk in `journal` (if any). Throws Error when `end` is not a best cell of s0 x s1
/// under `scoring`. `stop` (if any; a signal handler sets it to the signal number) is read
/// before each window: once set, the walk saves where it stands in `journal` and throws
/// Interrupted, losing at most the window in progress.
Alignment linear_traceback(const Sequence& s0, const Sequence& s1, const Scoring& scoring, const AlignmentEnd& end,
                           RowSource& rows, const TracebackLimits& limits = {}, TracebackCounts* counts = nullptr,
                           WindowSweeper* sweeper = nullptr, TracebackJournal* journal = nullptr,
                           const volatile std::sig_atomic_t* stop = nullptr);

}  // namespace chromalign
