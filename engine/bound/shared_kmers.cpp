//! @file shared_kmers.
#include "engine/bound/shared_kmers.hpp"

#include <algorithm>
#include <vector>

#include "engine/kmers.hpp"
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
/// start in its share of the positions.
std::vector<uint64_t> sampled(const std::vector<uint8_t>& codes, int workers) {
    constexpr int k = KmerShare::kK;
    const int64_t starts = static_cast<int64_t>(codes.size()) - k + 1;
    if (starts <= 0) return {};
    std::vector<std::vector<uint64_t>> parts(static_cast<size_t>(workers));
    for_each_worker(workers, [&](int w) {
        std::vector<uint64_t>& out = parts[static_cast<size_t>(w)];
        for_each_kmer(codes, k, starts * w / workers, starts * (w + 1) / workers, [&](int64_t, uint64_t kmer) {
            const uint64_t h = mix(kmer);
            if ((h & KmerShare::kSampleMask) == 0) out.push_back(h);
        });
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
