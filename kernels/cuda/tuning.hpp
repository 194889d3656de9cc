//! @file Every tuning constant of the cuda backend, per GPU architecture, with what it was measured on.
#pragma once

#include <cstdint>

namespace chromalign::kernels::cuda {

/// Hopper (sm_90: H100, H200), the architecture the backend is built for (CMake's
/// CMAKE_CUDA_ARCHITECTURES 90) and the only one measured.
struct Sm90Tuning {
    /// Rows per thread when the user does not choose: more rows amortise the per-step
    /// shuffles, votes and bus traffic over more cells. On an H100, 8M x 8M: alpha 16
    /// (12 blocks per SM, register-limited) 2.20 TCUPS, alpha 8 (16 per SM) 2.04 TCUPS. Fewer
    /// rows per band do not shorten the chain of tiles along a narrow live band either: H200,
    /// 8M x 8M mutated with the bound (87% pruned), medians of 3: alpha 16 8.15 s, alpha 8
    /// 9.82 s, alpha 4 17.63 s; alpha 8 with 3 slabs 8.85 s, with 12 slabs 22.96 s.
    static constexpr int kDefaultAlpha = 16;
    /// Resident one-warp blocks per multiprocessor when the user does not choose (capped by
    /// the occupancy the kernel's registers allow: 12 for alpha 16 on sm_90).
    static constexpr int kDefaultBlocksPerSm = 16;
    /// Column slabs per GPU when the user does not choose. H200s of one 4-GPU machine, 16M x 16M
    /// mutated (51% pruned), align seconds: one GPU 57.07 with 6, 57.70 with 8, 58.34 with 4,
    /// 59.55 with 16; four ranks 18.35 and 18.38 with 6, 18.90 and 19.17 with 7, 20.36 to
    /// 20.57 with 8 (three runs), 19.11 with 4, 30.45 with 12; without pruning four ranks 26.70
    /// with 6, 26.27 with 8; two unrelated 8M sequences on one GPU 24.32 with 6, 24.42 with 8.
    /// Fewer slabs make fewer hops for the last bands' edges, which end the run one slab after
    /// another (tools/BENCHMARKS.md, "One, two and four GPUs").
    static constexpr int kDefaultSlabs = 6;
    /// Each slab's grid has this many times its share of the resident blocks (every launch
    /// still fits the GPU, as a cooperative launch must), so the GPU holds more work than it
    /// runs at once: the multiprocessors that pruned blocks, and slabs whose columns are dead,
    /// leave go to the launches of the other slabs. H100, 8 slabs, medians of 2 runs on one
    /// machine: 8M x 8M mutated (49% pruned) 18.61 s with 1, 15.30 s with 2, 15.15 s with 4
    /// (4 slabs with 2: 15.48 s); two unrelated random 8M sequences (nothing pruned) 24.23 s
    /// with 1, 24.22 s with 2, 24.60 s with 4 slabs and 2 (release 2a0bb8a: 24.40 s).
    /// chromalign-bench --oversubscription N measures another share. H200, 6 slabs, with the
    /// bound: 8M mutated (87% pruned) 8.10 s with 2, 6.20 s with 4, 5.85 s with 6; two
    /// unrelated 8M sequences 24.08, 25.49 and 27.93 s: a narrow live band wants narrow block
    /// columns, a dense matrix wide ones, so while a bound pass runs slabs start on all the
    /// resident blocks (narrow_blocks) and change to this share where the pass leaves most of
    /// the matrix live (slab_run.cpp); without a pass, or for a pair that shares almost no
    /// k-mers, they run this share throughout. H200, medians of 3: 8M mutated 5.90 s, two
    /// unrelated 8M sequences 24.12 s (25.42 s when they too started narrow: the narrow start
    /// delays the slabs' first edges).
    static constexpr int kSlabOversubscription = 2;
    /// The same for the grid a slab that started narrow changes to (its columns' corner is
    /// live, but pruned as the table and the best score allow). H200, 16M related, one run
    /// each on one lease: 4 shares 27.506 s, 2 shares 30.542 s (the same answer, 77.1%
    /// pruned). A matrix live throughout keeps kSlabOversubscription: two unrelated 8M
    /// sequences took 25.49 s with 4 shares against 24.08 s (6b8a44a).
    static constexpr int kChangedOversubscription = 4;
    /// A narrow grid (narrow_blocks) has this many times every resident block: narrower
    /// tiles shorten the chain of tiles along a live band, and a diagonal with more live
    /// blocks than the GPU holds runs in two launches (CudaTileRunner). H200, 6 slabs,
    /// chromalign-bench, 8M mutated medians of 3 (16M related, one run): 1 (C = 840) 5.043 s
    /// (31.899 s), 2 (C = 424) 4.806, 4.815 and 4.666 s (30.509 s), 3 4.886 s, 4 5.127 s
    /// (31.122 s), 6 5.903 s. Two launches for every diagonal cost 7% (5.396 s at 1): the
    /// launches' gaps, not the tiles, hold the narrower grids back.
    static constexpr int kNarrowShares = 2;
    /// A run is cut into slabs only when the block columns are at least this wide: below,
    /// each slab's per-diagonal host work and the edges' trip through the host outweigh the
    /// overlap (H100, 1M x 1M, 632 columns: 0.76 s with 8 slabs, 0.63 s with one; 4M x 4M,
    /// 2520 columns: 6.48 s against 7.17 s).
    static constexpr int64_t kMinBlockColsForSlabs = 1024;
    /// Long phase: steps per group whose horizontal bus and S1 codes are prefetched while the
    /// group before computes (the bus and S1 arrays carry this many columns of slack).
    static constexpr int kPrefetch = 8;
    /// Depth of a runner's rings of slab edges and of recorded diagonals: the caller keeps
    /// fewer than this many diagonals between an edge's use and its slot's reuse (slab_run
    /// keeps kMaxDiagonalsInFlight, 8; cuda_backend.cpp asserts the margin).
    static constexpr int kEdgeSlots = 32;
};

/// The tuning in use. Other architectures use sm_90's values until they are measured.
using Tuning = Sm90Tuning;

}  // namespace chromalign::kernels::cuda
