//! @file mapped_pairs: one minimap2 index of every S0 record; S1's records mapped on the cores.
#include "engine/bound/mapped_pairs.hpp"

#include <algorithm>
#include <mutex>
#include <set>
#include <string>
#include <thread>

#include "engine/bound/minimap2_support.hpp"
#include "engine/error.hpp"

namespace chromalign {

std::vector<RecordPair> mapped_pairs(const std::vector<Sequence>& s0, const std::vector<Sequence>& s1,
                                     int64_t min_bases, int64_t short_record, int threads) {
    if (threads <= 0) threads = std::max(1, static_cast<int>(std::thread::hardware_concurrency()));
    std::vector<const Sequence*> records;
    int64_t bases = 0;
    for (const Sequence& s : s0) {
        records.push_back(&s);
        bases += s.length();
    }
    for (const Sequence& s : s1) bases += s.length();
    require_memory_for_minimap2(bases, threads, "--pairs mapped");
    const Minimap2Index index(records, 0, "--pairs mapped");
    std::set<std::pair<size_t, size_t>> linked;
    std::mutex mutex;
    map_in_parallel(static_cast<int64_t>(s1.size()), threads, nullptr, "--pairs mapped", [&](int64_t k, mm_tbuf_t* buffer) {
        const size_t b = static_cast<size_t>(k);
        if (s1[b].length() > INT32_MAX) return;
        map_text(index, minimap2_letters(s1[b], 0, s1[b].length()), buffer, [&](const mm_reg1_t& r) {
            if (r.re - r.rs < std::min(min_bases, s1[b].length() / 2)) return;
            const std::lock_guard<std::mutex> lock(mutex);
            linked.insert({static_cast<size_t>(r.rid), b});
        });
    });
    std::vector<RecordPair> pairs;
    for (size_t a = 0; a < s0.size(); ++a)
        for (size_t b = 0; b < s1.size(); ++b)
            if (linked.count({a, b}) || s0[a].length() < short_record || s1[b].length() < short_record)
                pairs.push_back(RecordPair{a, b});
    return pairs;
}

}  // namespace chromalign
