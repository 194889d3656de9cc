//! @file Stage 1 as one stream of bands on a CUDA device (band_stream.cuh): plain C++ interface.
#pragma once

#include <cstdint>

#include "engine/backend/options.hpp"
#include "engine/result.hpp"
#include "engine/scoring/scoring.hpp"
#include "engine/sequence.hpp"

namespace chromalign::kernels {

/// What a streamed run did.
struct BandStreamRun {
    AlignmentEnd best;
    int64_t cells_computed = 0;  ///< real cells run; the rest were skipped
    size_t device_bytes = 0;
};

/// Computes the best local alignment end of s0 x s1 (tie rule of engine/result.hpp) on device
/// `device` with rows of `alpha` a lane (4, 8 or 16). With run.pruning, chunks that cannot reach
/// max(best found, run.prune_floor, *run.lower_bound) are skipped, and run.gain_table's table
/// is taken up once built; both are read while the kernel runs. run.blocks_per_sm > 0 caps the
/// warps resident a multiprocessor (a band each). Checkpoints, special rows and stacked records
/// are not supported (Error).
BandStreamRun cuda_band_stream(int device, int alpha, const Sequence& s0, const Sequence& s1, const Scoring& scoring,
                               const BackendOptions& run);

}  // namespace chromalign::kernels
