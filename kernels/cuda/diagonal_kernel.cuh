//! @file The __global__ entry point of one external diagonal (CUDAlign §5, one warp per block).
#pragma once

#include <cstdint>

#include "kernels/cuda/block_agent.cuh"

namespace chromalign::kernels::cuda {

/// Lane 0 writes the GPU's global nanosecond timer to `stamp` (pinned host memory, a posted
/// write) when the diagonal trace asks for it.
__device__ __forceinline__ void stamp_time(uint64_t* stamp) {
    if (stamp && threadIdx.x == 0) {
        uint64_t now;
        asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(now));
        *stamp = now;
    }
}

/// One external diagonal d in one launch: every block runs its short phase, then (if its
/// band exists) its long phase, with its registers carried across. The launch is cooperative
/// (all blocks resident), so a long phase may wait on its right neighbour's short phase: that
/// flag replaces the grid-wide barrier and the second launch of CUDAlign's two kernels.
template <int A, Substitution kSub>
__global__ void __launch_bounds__(kWarp) diagonal_phases(const PhaseArgs p) {
    const BlockPlace at = place_block(p);
    if (!at.main_valid && !at.del_valid) return;
    uint64_t* const stamps = p.stamps ? p.stamps + 3 * blockIdx.x : nullptr;
    stamp_time(stamps);
    Lane<A> L;
    short_phase<A, kSub>(L, p, at);
    stamp_time(stamps ? stamps + 1 : nullptr);
    if (at.main_valid) long_phase<A, kSub>(L, p, at.b, at.band);
    stamp_time(stamps ? stamps + 2 : nullptr);
}

}  // namespace chromalign::kernels::cuda
