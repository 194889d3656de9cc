//! @file Band bottoms captured all along a slab's run, so that a checkpoint of rows (the cuda
//! backend's) is ready at once rather than B + 1 diagonals after it is asked for.
#pragma once

#include <cstdint>
#include <optional>

#include "engine/checkpoint/band_capture.hpp"
#include "engine/checkpoint/checkpoint_file.hpp"
#include "engine/tiling/tile_executor.hpp"

namespace chromalign {

/// A row checkpoint asked for before band d begins was band d's bottom row, complete B + 1
/// diagonals later. Those diagonals compute about half of B x B tiles, where B is the block
/// columns of the slab: at 250M on a narrow grid (B = 3168) in a corner not yet pruned, a stop
/// waited 42 s for them. Here the slab keeps a band's bottom row always being captured (one
/// at a time, the next begun once the last is complete) and the latest complete one: a
/// checkpoint takes that one at once; before any is complete, the slab's top row (a stop, or a
/// resumed slab's) or the one in flight (slab_run.cpp). The row taken is older, by up to
/// 2B + 1 bands; a resume recomputes them, the stop computes nothing.
/// Costs a row's copy (8 bytes a column) every B + 1 bands and at each checkpoint, and three
/// rows of host memory.
class StandingRows {
public:
    /// Band `band` of the executor's grid (rows first_row + band R + 1 on) has begun and has
    /// its left edge: starts capturing its bottom row unless one is being captured.
    void begin(int64_t band, int64_t n) {
        if (!flight_) flight_.emplace().start(band, n);
    }

    /// After diagonal d was enqueued (first_row: the executor's). A complete capture becomes the
    /// latest row once landed; the one it replaces has landed, so no transfer writes into it.
    void collect(TileExecutor& ex, int64_t d, int64_t first_row) {
        if (!flight_) return;
        flight_->capture(ex, d);
        if (flight_->complete() && flight_->landed(ex)) latest_ = take_flown(ex, first_row);
    }

    bool has_complete() const { return latest_ || (flight_ && flight_->complete()); }
    /// What a checkpoint takes first: the latest complete row (rows of the whole matrix), if
    /// any. One complete but not landed is waited for (a synchronize), being the newest. A
    /// copy, unless `last` (a stop): a stop soon after a checkpoint takes the same row again,
    /// where it found none and waited for the one in flight (10 s at 250M, B = 3168).
    std::optional<Checkpoint> take_complete(TileExecutor& ex, int64_t first_row, bool last) {
        if (flight_ && flight_->complete()) latest_ = take_flown(ex, first_row);
        if (!last) return latest_;
        std::optional<Checkpoint> row = std::move(latest_);
        latest_.reset();
        return row;
    }

    /// Else the capture in flight, of the executor's grid, if any.
    std::optional<BandCapture> take_flight() {
        std::optional<BandCapture> band = std::move(flight_);
        flight_.reset();
        return band;
    }

    /// The highest row a checkpoint may take now: the left edge rows from there on must stay.
    int64_t top_row(int64_t first_row, int64_t rows_per_band) const {
        if (latest_) return latest_->row;
        if (flight_) return first_row + (flight_->band() + 1) * rows_per_band;
        return INT64_MAX;
    }

    /// The slab leaves its grid (synchronized: a row complete by then has landed). A complete
    /// row stays; a capture of a later band, which the old executor will never finish, is
    /// dropped before it goes.
    void leave_grid(TileExecutor& ex, int64_t first_row) {
        if (flight_ && flight_->complete()) latest_ = take_flown(ex, first_row);
        flight_.reset();
    }

private:
    /// The complete capture as a row of the whole matrix (waiting for it unless it landed).
    Checkpoint take_flown(TileExecutor& ex, int64_t first_row) {
        Checkpoint row;
        flight_->take(ex, first_row, row);
        flight_.reset();
        return row;
    }

    std::optional<BandCapture> flight_;  ///< the capture begun, until its row is taken
    std::optional<Checkpoint> latest_;
};

}  // namespace chromalign
