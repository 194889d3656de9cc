//! @file mapped_pairs: one minimap2 index of every S0 record; S1's records mapped on the cores.
#include "engine/bound/mapped_pairs.hpp"

#include <minimap.h>

#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <mutex>
#include <set>
#include <string>
#include <thread>

#include "engine/bound/minimap2_text.hpp"
#include "engine/error.hpp"

namespace chromalign {

std::vector<RecordPair> mapped_pairs(const std::vector<Sequence>& s0, const std::vector<Sequence>& s1,
                                     int64_t min_bases, int threads) {
    if (threads <= 0) threads = std::max(1, static_cast<int>(std::thread::hardware_concurrency()));
    std::vector<std::string> texts;
    std::vector<const char*> seqs, names;
    for (const Sequence& s : s0) {
        if (s.length() > INT32_MAX) throw Error("--pairs mapped: record " + s.name + " is too long for minimap2");
        texts.push_back(minimap2_letters(s, 0, s.length()));
    }
    for (size_t k = 0; k < s0.size(); ++k) {
        seqs.push_back(texts[k].c_str());
        names.push_back(s0[k].name.c_str());
    }
    mm_idxopt_t iopt;
    mm_mapopt_t mopt;
    mm_verbose = 1;
    if (mm_set_opt(nullptr, &iopt, &mopt) != 0 || mm_set_opt("asm20", &iopt, &mopt) != 0)
        throw Error("internal: minimap2 has no preset asm20");
    mm_idx_t* index = mm_idx_str(iopt.w, iopt.k, iopt.flag & MM_I_HPC, iopt.bucket_bits, static_cast<int>(seqs.size()),
                                 seqs.data(), names.data());
    if (!index) throw Error("--pairs mapped: minimap2 could not index S0");
    texts.clear();
    mm_mapopt_update(&mopt, index);
    std::set<std::pair<size_t, size_t>> linked;
    std::mutex mutex;
    std::atomic<size_t> next{0};
    std::string failure;
    const auto map_records = [&] {
        mm_tbuf_t* buffer = mm_tbuf_init();
        try {
        for (size_t b; (b = next.fetch_add(1)) < s1.size();) {
            if (s1[b].length() > INT32_MAX) continue;
            const std::string text = minimap2_letters(s1[b], 0, s1[b].length());
            int count = 0;
            mm_reg1_t* regs = mm_map(index, static_cast<int>(text.size()), text.c_str(), &count, buffer, &mopt,
                                     s1[b].name.c_str());
            for (int r = 0; r < count; ++r) {
                if (regs[r].re - regs[r].rs >= std::min(min_bases, s1[b].length() / 2)) {
                    const std::lock_guard<std::mutex> lock(mutex);
                    linked.insert({static_cast<size_t>(regs[r].rid), b});
                }
                std::free(regs[r].p);
            }
            std::free(regs);
        }
        } catch (const std::exception& e) {  // (out of memory) a worker thread must not throw
            const std::lock_guard<std::mutex> lock(mutex);
            failure = e.what();
        }
        mm_tbuf_destroy(buffer);
    };
    std::vector<std::thread> workers;
    for (int t = 1; t < std::min<int64_t>(threads, static_cast<int64_t>(s1.size())); ++t) workers.emplace_back(map_records);
    map_records();
    for (std::thread& w : workers) w.join();
    mm_idx_destroy(index);
    if (!failure.empty()) throw Error("--pairs mapped: minimap2's pass failed: " + failure);
    std::vector<RecordPair> pairs;
    for (const auto& [a, b] : linked) pairs.push_back(RecordPair{a, b});
    return pairs;
}

}  // namespace chromalign
