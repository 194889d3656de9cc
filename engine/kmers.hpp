//! @file The k-mers of an encoded sequence, 2 bits a base: the look at shared k-mers before the
//! slabs are cut (engine/bound/shared_kmers) and the gain table (engine/pruning/gain_table).
#pragma once

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <vector>

#include "engine/sequence.hpp"

namespace chromalign {

/// Calls f(position, kmer) for every k-mer (k <= 32) of `codes` that starts in [first, last)
/// and holds only A, C, G and T, in one pass; a k-mer over any other base is skipped.
template <typename F>
void for_each_kmer(const std::vector<uint8_t>& codes, int32_t k, int64_t first, int64_t last, F&& f) {
    const uint64_t mask = k >= 32 ? ~uint64_t{0} : (uint64_t{1} << (2 * k)) - 1;
    uint64_t kmer = 0;
    int32_t valid = 0;  // bases of the current k-mer read so far, up to k
    const int64_t end = std::min<int64_t>(last + k - 1, static_cast<int64_t>(codes.size()));
    for (int64_t p = first; p < end; ++p) {
        const uint8_t c = codes[static_cast<size_t>(p)];
        if (c > kBaseT) {
            valid = 0;
            continue;
        }
        kmer = ((kmer << 2) | c) & mask;
        if (++valid >= k) {
            valid = k;
            f(p - k + 1, kmer);
        }
    }
}

/// for_each_kmer in stretches of start positions, `cancel` read before each, so that a scan of a
/// chromosome ends soon after it is asked to (a stop waits for it). False when cancelled.
template <typename F>
bool for_each_kmer_until(const std::vector<uint8_t>& codes, int32_t k, int64_t first, int64_t last,
                         const std::atomic<bool>& cancel, F&& f) {
    constexpr int64_t kStretch = int64_t{1} << 22;
    for (int64_t lo = first; lo < last; lo += kStretch) {
        if (cancel.load(std::memory_order_relaxed)) return false;
        for_each_kmer(codes, k, lo, std::min(last, lo + kStretch), f);
    }
    return !cancel.load(std::memory_order_relaxed);
}

}  // namespace chromalign
