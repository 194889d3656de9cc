//! @file The __global__ entry points of one external diagonal (CUDAlign §5, one warp per block).
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
    BlockPlace at = place_live_block(p);
    if (!at.main_valid && !at.del_valid) return;
    const TraceStamps<kTrace> trace(p.stamps);
    trace.stamp(kBlockStart);
    Lane<A> L;
    short_phase<A, kSub>(L, p, at);
    trace.stamp(kShortPhaseEnd);
    if (at.main_valid) long_phase<A, kSub>(L, p, at.b, at.band, false);
    if constexpr (kKeep) {
        __syncwarp();
        keep_block_columns(p, at.main_valid);
    }
    trace.stamp(kBlockEnd);
}

/// A diagonal of more blocks than the GPU holds at once (a narrow grid's, slab_run.cpp) in two
/// launches, CUDAlign's two kernels: short_phases, then long_phases. No block waits on another
/// within a launch, so neither needs its blocks resident together, and either may share the
/// device with other slabs' cooperative launches (a block that waited on one not yet started
/// would hold room those need). Between the two, each live block's rows after step T-1 wait in
/// p.lanes[blockIdx.x], in the vertical bus's layout. Tracing and keeping band bottoms are
/// tested at run time here, not by instances of their own: fewer instances, a shorter build.
template <int A, Substitution kSub>
__global__ void __launch_bounds__(kWarp) short_phases(const PhaseArgs p) {
    BlockPlace at = place_live_block(p);
    if (!at.main_valid && !at.del_valid) return;
    const TraceStamps<true> trace(p.stamps);
    if (p.stamps) trace.stamp(kBlockStart);
    Lane<A> L;
    short_phase<A, kSub>(L, p, at);
    if (at.main_valid) save_state(L, p.lanes + int64_t{blockIdx.x} * kSlotWords<A>, threadIdx.x);
    if (p.stamps) trace.stamp(kShortPhaseEnd);
}

/// The second launch: each live block takes its rows up from p.lanes (codes and table afresh)
/// and runs its long phase; its right neighbour's delegated columns were written before the
/// launch. Invariant on entry, as long_phase's: p.lanes[blockIdx.x] holds band d - b's rows
/// after step T-1 of diagonal d.
template <int A, Substitution kSub>
__global__ void __launch_bounds__(kWarp) long_phases(const PhaseArgs p) {
    BlockPlace at = place_live_block(p);
    if (!at.main_valid && !at.del_valid) return;
    if (at.main_valid) {
        copy_block_table<kSub>(p);
        Lane<A> L;
        load_state(L, p.lanes + int64_t{blockIdx.x} * kSlotWords<A>, threadIdx.x);
        load_codes<A, kSub>(L, p, p.s0 + at.band * (int64_t{A} * kWarp) + threadIdx.x * A);
        __syncwarp();  // the table
        long_phase<A, kSub>(L, p, at.b, at.band, true);
    }
    if (p.keep.count > 0 || p.keep.regions.peaks) {
        __syncwarp();
        keep_block_columns(p, at.main_valid);
    }
    const TraceStamps<true> trace(p.stamps);
    if (p.stamps) trace.stamp(kBlockEnd);
}

}  // namespace chromalign::kernels::cuda
