//! @file minimap2's mapping on every core.
#include "engine/bound/minimap2_support.hpp"

#include <algorithm>
#include <cstdlib>
#include <exception>
#include <mutex>
#include <thread>
#include <vector>

#include "engine/error.hpp"

namespace chromalign {

std::string minimap2_letters(const Sequence& s, int64_t from, int64_t to) {
    static const char kLetters[] = {'A', 'C', 'G', 'T', 'N'};
    std::string text(static_cast<size_t>(to - from), 'N');
    for (int64_t p = from; p < to; ++p)
        text[static_cast<size_t>(p - from)] = kLetters[std::min<uint8_t>(s.codes[static_cast<size_t>(p)], 4)];
    return text;
}

Minimap2Index::Minimap2Index(const std::vector<const Sequence*>& records, int64_t flags, const std::string& what) {
    mm_verbose = 1;  // errors only: its progress lines are not ours to print
    mm_idxopt_t iopt;
    // Defaults first: a preset only changes some of them.
    if (mm_set_opt(nullptr, &iopt, &options_) != 0 || mm_set_opt("asm20", &iopt, &options_) != 0)
        throw Error("internal: minimap2 has no preset asm20");
    std::vector<std::string> texts;
    std::vector<const char*> seqs, names;
    for (const Sequence* s : records) {
        if (s->length() > INT32_MAX) throw Error(what + ": record " + s->name + " is too long for minimap2");
        texts.push_back(minimap2_letters(*s, 0, s->length()));
    }
    for (size_t k = 0; k < records.size(); ++k) {
        seqs.push_back(texts[k].c_str());
        names.push_back(records[k]->name.c_str());
    }
    index_ = mm_idx_str(iopt.w, iopt.k, iopt.flag & MM_I_HPC, iopt.bucket_bits, static_cast<int>(seqs.size()),
                        seqs.data(), names.data());
    if (!index_) throw Error(what + ": minimap2 could not index S0");
    mm_mapopt_update(&options_, index_);
    options_.flag |= flags;
}

Minimap2Index::~Minimap2Index() { mm_idx_destroy(index_); }

void map_in_parallel(int64_t items, int threads, const std::atomic<bool>* cancel, const std::string& what,
                     const std::function<void(int64_t k, mm_tbuf_t* buffer)>& map_item) {
    std::atomic<int64_t> next{0};
    std::mutex mutex;
    std::string failure;
    const auto worker = [&] {
        mm_tbuf_t* buffer = mm_tbuf_init();
        try {  // a worker thread must not throw (out of memory, say)
            for (int64_t k; !(cancel && cancel->load(std::memory_order_relaxed)) && (k = next.fetch_add(1)) < items;)
                map_item(k, buffer);
        } catch (const std::exception& e) {
            const std::lock_guard<std::mutex> lock(mutex);
            failure = e.what();
        }
        mm_tbuf_destroy(buffer);
    };
    std::vector<std::thread> workers;
    for (int64_t t = 1; t < std::min<int64_t>(std::max(threads, 1), items); ++t) workers.emplace_back(worker);
    worker();
    for (std::thread& w : workers) w.join();
    if (!failure.empty()) throw Error(what + ": minimap2's pass failed: " + failure);
}

void map_text(const Minimap2Index& index, const std::string& text, mm_tbuf_t* buffer,
              const std::function<void(const mm_reg1_t& r)>& take) {
    int count = 0;
    mm_reg1_t* regs =
        mm_map(index.index(), static_cast<int>(text.size()), text.c_str(), &count, buffer, &index.options(), "s1");
    try {
        for (int r = 0; r < count; ++r) take(regs[r]);
    } catch (...) {
        for (int r = 0; r < count; ++r) std::free(regs[r].p);
        std::free(regs);
        throw;
    }
    for (int r = 0; r < count; ++r) std::free(regs[r].p);
    std::free(regs);
}

}  // namespace chromalign
