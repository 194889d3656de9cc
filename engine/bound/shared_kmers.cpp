//! @file shared_kmers.
#include "engine/bound/shared_kmers.hpp"

#include <algorithm>
#include <vector>

#include "engine/threads/for_each_worker.hpp"

namespace chromalign {
namespace {

/// A bijective mix of the 2k-bit k-mer (splitmix64's finaliser): its low bits choose the sample.
uint64_t mix(uint64_t x) {
    x ^= x >> 30;
    x *= 0xbf58476d1ce4e5b9ULL;
    x ^= x >> 27;
    x *= 0x94d049bb133111ebULL;
    return x ^ (x >> 31);
}

/// The sampled k-mers' hashes of `codes`, sorted and distinct. Worker w scans the k-mers that
/// start in its share of the positions; a base other than A, C, G, T ends every k-mer over it.
std::vector<uint64_t> sampled(const std::vector<uint8_t>& codes, int workers) {
    constexpr int k = KmerShare::kK;
    constexpr uint64_t mask = (uint64_t{1} << (2 * k)) - 1;
    const int64_t starts = static_cast<int64_t>(codes.size()) - k + 1;
    if (starts <= 0) return {};
    std::vector<std::vector<uint64_t>> parts(static_cast<size_t>(workers));
    for_each_worker(workers, [&](int w) {
        const int64_t first = starts * w / workers, last = starts * (w + 1) / workers;
        std::vector<uint64_t>& out = parts[static_cast<size_t>(w)];
        uint64_t kmer = 0;
        int valid = 0;  // bases of the current k-mer read so far, up to k
        for (int64_t p = first; p < last + k - 1; ++p) {
            const uint8_t c = codes[static_cast<size_t>(p)];
            if (c > kBaseT) {
                valid = 0;
                continue;
            }
            kmer = ((kmer << 2) | c) & mask;
            if (++valid < k) continue;
            valid = k;
            const uint64_t h = mix(kmer);
            if ((h & KmerShare::kSampleMask) == 0) out.push_back(h);
        }
    });
    std::vector<uint64_t> all;
    for (auto& part : parts) all.insert(all.end(), part.begin(), part.end());
    std::sort(all.begin(), all.end());
    all.erase(std::unique(all.begin(), all.end()), all.end());
    return all;
}

}  // namespace

KmerShare shared_kmers(const Sequence& s0, const Sequence& s1, int workers) {
    workers = std::max(1, workers);
    const std::vector<uint64_t> a = sampled(s0.codes, workers), b = sampled(s1.codes, workers);
    KmerShare share;
    share.sampled = static_cast<int64_t>(b.size());
    // Both sorted: one merge counts the hashes in both (mix is a bijection, so equal hashes
    // are equal k-mers).
    size_t i = 0;
    for (const uint64_t h : b) {
        while (i < a.size() && a[i] < h) ++i;
        if (i < a.size() && a[i] == h) ++share.shared;
    }
    return share;
}

}  // namespace chromalign
