//! @file The bottom row of one band, collected while the diagonals after it run: what both orchestrators checkpoint.
#pragma once

#include <cstdint>
#include <vector>

#include "engine/checkpoint/checkpoint_file.hpp"
#include "engine/tiling/tile_executor.hpp"

namespace chromalign {

/// Collects the flat bottom row of one band piece by piece (TileExecutor::capture_band_bottom)
/// over the B + 1 diagonals that make its columns final, so the device never stops for it.
class BandCapture {
public:
    /// Starts collecting the bottom row of `band`, `n` columns wide.
    void start(int64_t band, int64_t n) {
        active_ = true;
        complete_ = false;
        band_ = band;
        h_.assign(static_cast<size_t>(n), 0);
        f_.assign(static_cast<size_t>(n), 0);
    }

    bool active() const { return active_; }
    int64_t band() const { return band_; }

    /// After diagonal d was enqueued: collects its part of the row; true once the row is
    /// complete (after diagonal band + B).
    bool capture(TileExecutor& ex, int64_t d) {
        if (!active_ || complete_) return false;
        ex.capture_band_bottom(band_, d, h_.data(), f_.data());
        complete_ = d == band_ + ex.grid().blocks;
        return complete_;
    }

    bool complete() const { return complete_; }
    /// Non-blocking, once complete: whether the row has reached this capture.
    bool landed(TileExecutor& ex) const { return ex.capture_landed(band_); }

    /// Once complete: moves the row into `c` as DP row first_row + (band + 1)·R of the whole
    /// matrix, waiting for the device unless it has landed; ends the capture.
    void take(TileExecutor& ex, int64_t first_row, Checkpoint& c) {
        if (!landed(ex)) ex.synchronize();
        active_ = false;
        complete_ = false;
        c.row = first_row + (band_ + 1) * ex.grid().rows_per_band();
        c.h.swap(h_);
        c.f.swap(f_);
    }

private:
    bool active_ = false;
    bool complete_ = false;
    int64_t band_ = 0;
    std::vector<int32_t> h_, f_;
};

}  // namespace chromalign
