//! @file Window sweeps on a tiled backend's engine (cpu threads or a GPU): the traceback's
//! large windows at the speed of stage 1.
//!
//! A window is a small comparison of its own: rows top + 1 .. bottom of S0 against columns
//! lo .. hi of S1, starting from the window's top row (a resumed run's TopRow), with a left
//! edge that is fresh in every band (H = 0, E = -inf), its corner H(top, lo - 1) in band 0. So
//! the engine computes the values the CPU sweep does (window.hpp), without pruning, and
//! keeps bottom rows of bands: the rows the walk recurses into.
#pragma once

#include <atomic>

#include "engine/orchestration/slab_run.hpp"
#include "engine/traceback/window_sweeper.hpp"

namespace chromalign {

class EngineSweeper : public WindowSweeper {
public:
    /// `kept_bytes`: the memory the rows of one sweep may take where the executor keeps them
    /// (GPU memory for cuda), in place of the walk's host budget (SweepSteps::at_least).
    /// `lookahead`: windows swept ahead of the walk (-1: the engine's window_lookahead()).
    EngineSweeper(SlabEngine& engine, const Sequence& s0, const Sequence& s1, const Scoring& scoring,
                  int64_t kept_bytes = int64_t{2} << 30, int lookahead = -1)
        : engine_(engine), s0_(s0), s1_(s1), scoring_(scoring), kept_bytes_(kept_bytes),
          lookahead_(lookahead < 0 ? engine.window_lookahead() : lookahead), cpu_(s0, s1, scoring) {}
    /// Keeps the bottom row of every k-th band, k the least whose rows fit kept_bytes (the
    /// engine's bands are what it can keep: `steps` only matters to the CPU sweep). The rows
    /// stay with the executor (on the GPU for cuda); the walk fetches the columns it reads. A
    /// window of fewer than two of the engine's bands (SlabEngine::window_executor) goes to the
    /// CPU sweep.
    std::unique_ptr<RowSource> sweep(const WindowSpec& w, WindowRow top, const SweepSteps& steps) override;
    int64_t engine_sweeps() const { return engine_sweeps_; }  ///< windows the engine swept
    int lookahead() const override { return lookahead_; }

private:
    SlabEngine& engine_;
    const Sequence& s0_;
    const Sequence& s1_;
    const Scoring& scoring_;
    const int64_t kept_bytes_;
    const int lookahead_;
    CpuSweeper cpu_;
    std::atomic<int64_t> engine_sweeps_{0};  ///< sweep runs in several threads at once
};

}  // namespace chromalign
