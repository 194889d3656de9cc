//! @file The __global__ entry point of one external diagonal (CUDAlign §5, one warp per block).
#pragma once

#include "kernels/cuda/block_agent.cuh"
#include "kernels/cuda/block_pruning.cuh"
#include "kernels/cuda/trace_stamps.cuh"

namespace chromalign::kernels::cuda {

/// One external diagonal d in one launch: every block runs its short phase, then (if its
/// band exists) its long phase, with its registers carried across. The launch is cooperative
/// (all blocks resident), so a long phase may wait on its right neighbour's short phase: that
/// flag replaces the grid-wide barrier and the second launch of CUDAlign's two kernels.
/// A band's run that pruning skips (block_pruning.cuh) leaves lower bounds in its outputs and
/// releases its flag; block 0 still computes the delegated cells of band d - B.
template <int A, Substitution kSub>
__global__ void __launch_bounds__(kWarp) diagonal_phases(const PhaseArgs p) {
    BlockPlace at = place_block(p);
    if (!at.main_valid && !at.del_valid) return;
    const int32_t right = at.b + 1 == p.blocks ? 0 : at.b + 1;
    const bool skipped = main_run_dead<A>(p, at, right);
    if (skipped) {
        at.main_valid = false;  // block 0 still runs its delegated cells
        skip_main_run<A>(p, at, right);
        if (!at.del_valid) {
            release_flag(p.flags + at.b, static_cast<int32_t>(p.d + 1));
            return;
        }
    }
    uint64_t* const stamps = block_stamps(p.stamps);
    stamp_time(stamps, kBlockStart);
    Lane<A> L;
    short_phase<A, kSub>(L, p, at);
    stamp_time(stamps, kShortPhaseEnd);
    if (at.main_valid) long_phase<A, kSub>(L, p, at.b, at.band);
    stamp_time(stamps, kBlockEnd);
}

}  // namespace chromalign::kernels::cuda
