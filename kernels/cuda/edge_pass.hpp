//! @file The K best search's first pass on a CUDA device: TileWaves::whole_pass for
//! CudaTileWaves (kernels/cuda/edge_pass.cuh).
#pragma once

#include <cuda_runtime.h>

#include <cstdint>

#include "engine/declump/tile_waves.hpp"
#include "kernels/cuda/device_buffer.hpp"

namespace chromalign::kernels {

/// The edges a whole pass left on the device (WholePass::keep), as it wrote them: H and F of
/// band b's top row (b >= 1) at column j >= 1 in row_h[(b - 1) * n + j - 1], row_f; H and E of
/// tile column c's left column (c >= 1) at row i >= 1 in col_h[(c - 1) * m + i - 1], col_e.
struct KeptEdges {
    int64_t m = 0, n = 0, tile_rows = 0, tile_cols = 0;  ///< m == 0: nothing kept
    DeviceBuffer<int32_t> row_h, row_f, col_h, col_e;

    /// Frees them.
    void clear() {
        m = n = tile_rows = tile_cols = 0;
        DeviceBuffer<int32_t>{}.swap(row_h);
        DeviceBuffer<int32_t>{}.swap(row_f);
        DeviceBuffer<int32_t>{}.swap(col_h);
        DeviceBuffer<int32_t>{}.swap(col_e);
    }
};

/// Computes s0 x s1 whole on CUDA device `device` into `out` and returns true; false, having
/// written nothing, when the tiles' rows are not a multiple of 128 (a band of lanes must not
/// straddle two tiles) or the device lacks the memory to hold every edge at once. With
/// out.keep and a GiB to spare, the edges stay on the device in `kept` (its m > 0) and out's
/// edge vectors are left as they were (out.peaks is written). Its copies and launches go to
/// `stream`, which it leaves idle.
bool cuda_whole_pass(int device, cudaStream_t stream, const Sequence& s0, const Sequence& s1, const Scoring& scoring,
                     WholePass& out, KeptEdges& kept);

}  // namespace chromalign::kernels
