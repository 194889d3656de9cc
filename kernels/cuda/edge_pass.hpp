//! @file The K best search's first pass on a CUDA device: TileWaves::whole_pass for
//! CudaTileWaves (kernels/cuda/edge_pass.cuh).
#pragma once

#include "engine/declump/tile_waves.hpp"

namespace chromalign::kernels {

/// Computes s0 x s1 whole on CUDA device `device` into `out` and returns true; false, having
/// written nothing, when the tiles' rows are not a multiple of 128 (a band of lanes must not
/// straddle two tiles) or the device lacks the memory to hold every edge at once.
bool cuda_whole_pass(int device, const Sequence& s0, const Sequence& s1, const Scoring& scoring, WholePass& out);

}  // namespace chromalign::kernels
