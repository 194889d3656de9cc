//! @file LaunchMap: which block columns one launch of an external diagonal runs, shared by the
//! host that chooses them (live_window.hpp) and the kernels that place their blocks by it.
#pragma once

#include <cstdint>

#include "engine/host_device.hpp"

namespace chromalign {

/// Up to kRanges runs of consecutive block columns, in increasing order and disjoint:
/// blockIdx x runs column first[r] + k when x is the k-th index of run r.
struct LaunchMap {
    static constexpr int kRanges = 4;
    int32_t first[kRanges] = {};
    int32_t count[kRanges] = {};

    /// Every block column of [first_block, last_block].
    static LaunchMap all(int64_t first_block, int64_t last_block) {
        LaunchMap map;
        map.first[0] = static_cast<int32_t>(first_block);
        map.count[0] = static_cast<int32_t>(last_block >= first_block ? last_block - first_block + 1 : 0);
        return map;
    }

    CHROMALIGN_HOST_DEVICE int64_t blocks() const {
        int64_t total = 0;
        for (int r = 0; r < kRanges; ++r) total += count[r];
        return total;
    }

    /// The block column of launch index x (x < blocks()).
    CHROMALIGN_HOST_DEVICE int32_t column(int32_t x) const {
        for (int r = 0; r < kRanges - 1; ++r) {
            if (x < count[r]) return first[r] + x;
            x -= count[r];
        }
        return first[kRanges - 1] + x;
    }

    /// Whether block column b runs in this launch.
    CHROMALIGN_HOST_DEVICE bool has(int32_t b) const {
        for (int r = 0; r < kRanges; ++r)
            if (b >= first[r] && b < first[r] + count[r]) return true;
        return false;
    }
};

}  // namespace chromalign
