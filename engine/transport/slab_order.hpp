//! @file Which process runs which column slab, with S slabs per process over P processes.
//!
//! The slabs come in S groups of P neighbours; group l holds slab l of every process, left to
//! right in even groups and right to left in odd ones. Neighbouring slabs are on different
//! processes but at a turn (slabs lP + P - 1 and lP + P), so each GPU holds slabs all along the
//! row and shares the wavefront's ramps. The turns matter with pruning: the live cells thin
//! out to the right, and in plain order (slab lP + p on process p) process 0 held the leftmost
//! slab of every group. On 16M and 32M mutated pairs its slabs waited for edges half as long
//! as the others' (2 ranks: 6 to 13 s against 19 to 22 s of 31): it held the most work and
//! set the pace. Snaking, every process holds about the same share of any such trend.
#pragma once

namespace chromalign {

/// Process `process`'s slab number `local`: its place among all slabs (SlabLink::rank).
constexpr int slab_rank(int process, int local, int processes) {
    return local * processes + (local % 2 == 0 ? process : processes - 1 - process);
}

/// The process that runs slab `rank` (0 <= rank < S x P); its local number is rank / processes.
constexpr int slab_process(int rank, int processes) {
    const int group = rank / processes, at = rank % processes;
    return group % 2 == 0 ? at : processes - 1 - at;
}

}  // namespace chromalign
