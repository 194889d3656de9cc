//! @file The tiles of the K best alignments' search (engine/declump/) on a CUDA device.
#pragma once

#include <memory>

#include "engine/declump/tile_waves.hpp"

namespace chromalign::kernels {

/// TileWaves on CUDA device `device`: each tile of a wave in bands of 8 x 32 rows, a warp a band
/// (kernels/cuda/tile_waves.cu); its whole pass is the edge pass (edge_pass.hpp). Throws Error
/// when the device cannot be used.
std::unique_ptr<TileWaves> make_cuda_tile_waves(int device);

}  // namespace chromalign::kernels
