//! @file A diagonal's launch in pieces: the grid has more block columns than one cooperative
//! launch may hold, so that where the live blocks are few their tiles are narrow and the chain
//! along the alignment short (tools/BENCHMARKS.md); where they are many, the diagonal runs as
//! several launches of at most `most` blocks each, one after another on the slab's stream.
//!
//! Why in order right to left: a block reads what the blocks to its right write in the same
//! diagonal (the long phase of b waits for the short phase of b+1, which computes b's last
//! T-1 columns of the band above), never what those to its left write (b-1 writes columns
//! left of b*C - T + 1, and b reads from b*C on). So with the pieces launched from the right,
//! every block finds its right neighbour either in its own launch (resident with it, the
//! flag as before) or in one that has ended (then the launch does not hold it, and the long
//! phase reads its columns without waiting, as for a neighbour left out of the window).
//!
//! The wrap breaks the order: the right neighbour of the last block B-1 is block 0, whose
//! short phase first runs B-1's delegated cells and then its own band. When both are in a
//! window of several pieces, block 0 is split (LaunchMap::zero): its delegated cells run in
//! the first piece beside B-1, its own band in the last. Both parts are runs the kernels
//! already make (block 0 without a band d at the end of a run, without delegated cells at its
//! start); they write disjoint columns, and block 0's best-cell slot in order.
#pragma once

#include <cstdint>
#include <vector>

#include "engine/scheduling/launch_map.hpp"

namespace chromalign {

/// The launches that run `window` (at most LaunchMap::kWindowRuns runs) of a grid of `blocks`
/// block columns, each of at most `most` blocks, in the order to launch them: `window` itself
/// when it fits, else pieces from the right, block 0 split as above (with `most` 1 the wrap
/// is a piece of its own: it waits on nothing).
std::vector<LaunchMap> launch_pieces(const LaunchMap& window, int32_t blocks, int32_t most);

}  // namespace chromalign
