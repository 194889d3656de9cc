//! @file The diagonal trace's hook in the kernel: lane 0 stamps the GPU clock when the trace is on.
#pragma once

#include <cstdint>

namespace chromalign::kernels::cuda {

/// When in a block's run a stamp is taken; stamp k of blockIdx i lands at 3 i + k of the
/// diagonal's stamps (DiagonalTrace::stamps_for).
enum BlockStamp : int { kBlockStart = 0, kShortPhaseEnd = 1, kBlockEnd = 2 };

/// This block's stamps within the diagonal's (PhaseArgs::stamps), or null without the trace.
/// Without the trace every stamp is one test of this pointer, uniform across the warp. The
/// test stays in the production kernel because ptxas 13.0 schedules the kernel worse without
/// it: an instance built without the stamps (a template hook) was slower on an H100, 4M x 4M
/// with the default 8 slabs and byte-mode scoring, medians of 3 runs: 6.48 s against 6.42 s
/// at alpha 16 and 7.33 s against 7.13 s at alpha 8.
__device__ __forceinline__ uint64_t* block_stamps(uint64_t* diagonal) {
    return diagonal ? diagonal + 3 * blockIdx.x : nullptr;
}

/// Lane 0 writes the GPU's global nanosecond timer to stamp k of `block` (pinned host memory,
/// a posted write, so tracing adds no work to the stream) when the trace is on.
__device__ __forceinline__ void stamp_time(uint64_t* block, BlockStamp k) {
    uint64_t* const stamp = block ? block + k : nullptr;
    if (stamp && threadIdx.x == 0) {
        uint64_t now;
        asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(now));
        *stamp = now;
    }
}

}  // namespace chromalign::kernels::cuda
