//! @file The __global__ entry point of one external diagonal (CUDAlign §5, one warp per block).
#pragma once

#include "kernels/cuda/band_keeping.cuh"
#include "kernels/cuda/block_agent.cuh"
#include "kernels/cuda/trace_stamps.cuh"

namespace chromalign::kernels::cuda {

/// One external diagonal d in one launch: every block runs its short phase, then (if its
/// band exists) its long phase, with its registers carried across. The launch is cooperative
/// (all blocks resident), so a long phase may wait on its right neighbour's short phase: that
/// flag replaces the grid-wide barrier and the second launch of CUDAlign's two kernels.
/// With p.dead, prune_block_runs (block_pruning.cuh) ran just before: a block whose run it
/// skipped has nothing left to do here but block 0's delegated cells.
/// kKeep: the instance launched while stage 1 keeps band bottoms (p.keep: captures or the
/// score map). Each block then keeps the bus columns its run made final (band_keeping.cuh's
/// final_columns) of band d - b (its short phase wrote the first T - 1, its long phase the
/// rest; prune_block_runs keeps a skipped run's); block 0 also those of band d - B, its
/// delegated cells. The other instance carries none of that code.
/// kTrace: the instance of a traced run (trace_stamps.cuh), which stamps the GPU clock.
template <int A, Substitution kSub, bool kTrace, bool kKeep>
__global__ void __launch_bounds__(kWarp) diagonal_phases(const PhaseArgs p) {
    BlockPlace at = place_block(p);
    if (p.dead && p.dead[blockIdx.x]) at.main_valid = false;
    if (!at.main_valid && !at.del_valid) return;
    const TraceStamps<kTrace> trace(p.stamps);
    trace.stamp(kBlockStart);
    Lane<A> L;
    short_phase<A, kSub>(L, p, at);
    trace.stamp(kShortPhaseEnd);
    if (at.main_valid) long_phase<A, kSub>(L, p, at.b, at.band);
    if constexpr (kKeep) {
        __syncwarp();
        keep_block_columns(p, at.main_valid);
    }
    trace.stamp(kBlockEnd);
}

}  // namespace chromalign::kernels::cuda
