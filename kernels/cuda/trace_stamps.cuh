//! @file The diagonal trace's hook in the kernel: lane 0 stamps the GPU clock in the traced instance.
#pragma once

#include <cstdint>

namespace chromalign::kernels::cuda {

/// When in a block's run a stamp is taken; stamp k of blockIdx i lands at 3 i + k of the
/// diagonal's stamps (DiagonalTrace::stamps_for).
enum BlockStamp : int { kBlockStart = 0, kShortPhaseEnd = 1, kBlockEnd = 2 };

/// The stamps of a kernel instance: kTrace is the instance a traced run launches (PhaseArgs::
/// stamps set); the production instance has kTrace false and not one instruction of the trace.
template <bool kTrace>
struct TraceStamps {
    uint64_t* block = nullptr;  ///< this block's stamps within the diagonal's

    __device__ __forceinline__ explicit TraceStamps(uint64_t* diagonal) {
        if constexpr (kTrace) block = diagonal + 3 * blockIdx.x;
    }

    /// Lane 0 writes the GPU's global nanosecond timer to stamp k (pinned host memory, a
    /// posted write, so tracing adds no work to the stream).
    __device__ __forceinline__ void stamp(BlockStamp k) const {
        if constexpr (kTrace) {
            if (threadIdx.x == 0) {
                uint64_t now;
                asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(now));
                block[k] = now;
            }
        }
    }
};

}  // namespace chromalign::kernels::cuda
