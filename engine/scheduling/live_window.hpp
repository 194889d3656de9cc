//! @file The scheduler of a pruned run: which block columns of an external diagonal can be
//! live, so that a launch runs those and leaves the rest of the diagonal out.
//!
//! With a bound from the first row (engine/bound/), the live blocks of a diagonal are a narrow
//! band around the alignment and the corner where gain alone reaches G; a launch of every
//! block column makes the GPU hold slots for blocks that only exit, and a cooperative launch
//! waits until all of them fit. Here the host launches a window that contains every block the
//! decision kernel (prune_block_runs) could find live, and nothing is lost by the rest:
//!
//! Notation: L(z) is the set of block columns whose run in diagonal z was decided live; C(z)
//! the corner, blocks whose run would be live with every input dead (H = 0, E = F = -inf):
//! (T-1) * best_score + gain >= G; S(z) the blocks whose inputs are not all handed on by
//! other blocks of the grid: block 0 (column 0 or the slab's left edge) and the run of band 0
//! (the starting row).
//!
//! Propagation: block b's run in diagonal z reads only what blocks b-1 and b handed on in
//! z-1 (the left state, the bus columns above it, its own state for the delegated cells), so
//!   L(z) is within L(z-1) + {0, 1}, C(z) and S(z).
//! The window of diagonal d, from a diagonal e <= d - 2 whose decisions the host has read:
//!   W(d) = L(e) + [0, d-e] | (C(z) | S(z)) + [0, d-z] for e < z <= d
//! with C computed from a G no higher than the device's at z (a lower G: a larger corner).
//!
//! Invariant, by induction over d: the compact run computes what a launch of every block
//! would, and every block left out of diagonal d would be decided dead there and has its
//! outputs (its bus columns and both vertical-bus slots it writes) dead already.
//! - L(x) is within W(y) for x <= y <= x + 2 (propagation from e <= x), so L(d-1) + {0, 1}
//!   is within W(d), and so are C(d) and S(d): a block left out has dead inputs and is
//!   outside the corner, so it would be decided dead.
//! - After its last live run x a block runs in x+1 and x+2, dead, which writes the dead
//!   outputs into both buffers of the vertical bus; a block never live ran dead at bands 0
//!   (S) and 1 (S(z-1) + 1). Nothing else writes a block's bus columns or slot.
#pragma once

#include <cstdint>

#include "engine/pruning/prune_rule.hpp"
#include "engine/scheduling/launch_map.hpp"
#include "engine/tiling/tile_grid.hpp"

namespace chromalign {

/// Block columns [first, last] (empty when first > last).
struct BlockSpan {
    int64_t first = 0, last = -1;
    bool empty() const { return first > last; }
};

/// C(z): the blocks of diagonal z, bands >= 1 and columns >= 1, whose run is live against g
/// with every input dead; exact under `rule` (columns as the kernels give them: the run of
/// block b starts T-1 columns left of b*C), the hull of those blocks under a gain table.
BlockSpan corner_blocks(const TileGrid& grid, const PruneRule& rule, int64_t z, int32_t g);

/// What the host read of diagonal x's decisions: the blocks whose run was live.
struct LiveSpan {
    int64_t diagonal = -1;
    BlockSpan live;
};

/// Real cells of block columns [first, last] in diagonal d (block b runs band d - b; blocks
/// without a band in d count none): what a launch leaves out of the count of cells computed.
/// Every block but those of the last band and the last columns is whole, so this is O(1) per
/// call but for those few.
int64_t block_cells(const TileGrid& grid, int64_t d, int64_t first, int64_t last);

/// The launch of diagonal d: W(d) (see the file comment) clipped to the blocks with cells in
/// d, from the decisions of `known` (diagonal e, 0 <= e <= d - 2) and g_min, a G no higher
/// than the device's in diagonals e..d. At most LaunchMap::kRanges runs: runs closer than the
/// rest are merged (a launch may run more blocks, never fewer).
LaunchMap live_window(const TileGrid& grid, const PruneRule& rule, int64_t d, const LiveSpan& known, int32_t g_min);

}  // namespace chromalign
