//! @file What the two minimap2 passes share (the bound, --pairs mapped): sequences as minimap2
//! reads them, and mapping on the machine's cores. Included only where minimap.h may be.
#pragma once

#include <minimap.h>

#include <atomic>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "engine/sequence.hpp"

namespace chromalign {

/// Positions [from, to) of `s` as A, C, G, T and N.
std::string minimap2_letters(const Sequence& s, int64_t from, int64_t to);

/// Throws Error, naming `what`, when this process's address-space limit (ulimit -v or -d)
/// leaves less than minimap2 may need to index and map `bases` bases on `threads` threads:
/// its library does not check its allocations, so running out would crash the whole run.
void require_memory_for_minimap2(int64_t bases, int threads, const std::string& what);

/// minimap2's index of `records` under preset asm20, and its mapping options with `flags`
/// (MM_F_*) added. Throws Error, naming `what`, when minimap2 cannot build it. Given `cancel`,
/// the build (mm_idx_str: one core, uninterruptible) runs on a thread of its own
/// that a cancel leaves behind, so that a stop does not wait for it: index() is then null.
class Minimap2Index {
public:
    Minimap2Index(const std::vector<const Sequence*>& records, int64_t flags, const std::string& what,
                  const std::atomic<bool>* cancel = nullptr);
    ~Minimap2Index();
    Minimap2Index(const Minimap2Index&) = delete;
    Minimap2Index& operator=(const Minimap2Index&) = delete;
    const mm_idx_t* index() const { return index_; }
    const mm_mapopt_t& options() const { return options_; }

private:
    mm_idx_t* index_ = nullptr;
    mm_mapopt_t options_{};
};

/// Runs map_item(k, buffer) for every k in [0, items) on up to `threads` threads, each with
/// its own minimap2 buffer; no item starts once `cancel` (if given) is set. What an item throws
/// is rethrown as Error, naming `what`, once every thread has ended.
void map_in_parallel(int64_t items, int threads, const std::atomic<bool>* cancel, const std::string& what,
                     const std::function<void(int64_t k, mm_tbuf_t* buffer)>& map_item);

/// Maps `text` onto `index` and hands each alignment to `take` (its CIGAR, when asked for, in
/// r.p), freeing them afterwards.
void map_text(const Minimap2Index& index, const std::string& text, mm_tbuf_t* buffer,
              const std::function<void(const mm_reg1_t& r)>& take);

}  // namespace chromalign
