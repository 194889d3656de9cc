//! @file BarredPairs: diagonal runs in buckets of rows.
#include "engine/declump/barred_pairs.hpp"

#include <algorithm>
#include <mutex>

#include "engine/error.hpp"

namespace chromalign {

void BarredPairs::add(const Alignment& a) {
    const std::unique_lock<std::shared_mutex> writing(store_->lock);
    if (seen_ != store_->alignments) throw Error("internal: pairs barred through a view that is not the newest");
    int64_t i = a.s0_start, j = a.s1_start;
    Run run{i, j, 0, seen_};
    for (const AlignmentRun& r : a.runs) {
        if (r.op == '=' || r.op == 'X') {
            run.length += r.length;
            i += r.length;
            j += r.length;
            continue;
        }
        add_run(run);
        i += r.op == 'I' ? r.length : 0;
        j += r.op == 'D' ? r.length : 0;
        run = Run{i, j, 0, seen_};
    }
    add_run(run);
    seen_ = ++store_->alignments;
}

void BarredPairs::add_run(Run run) {
    const int64_t rows = store_->bucket_rows;
    while (run.length > 0) {
        const int64_t bucket = run.i / rows;
        const int64_t piece = std::min(run.length, (bucket + 1) * rows - run.i);
        store_->buckets[bucket].push_back({run.i, run.j, piece, run.rank});
        run = Run{run.i + piece, run.j + piece, run.length - piece, run.rank};
    }
}

std::vector<std::pair<int64_t, int64_t>> BarredPairs::in(int64_t top, int64_t bottom, int64_t left,
                                                          int64_t right) const {
    std::vector<std::pair<int64_t, int64_t>> pairs;
    if (bottom <= top || right <= left || seen_ == 0) return pairs;
    const std::shared_lock<std::shared_mutex> reading(store_->lock);
    const int64_t rows = store_->bucket_rows;
    for (auto it = store_->buckets.lower_bound((top + 1) / rows); it != store_->buckets.end() && it->first <= bottom / rows;
         ++it) {
        for (const Run& r : it->second) {
            if (r.rank >= seen_) continue;  // added after this view
            // t such that top < r.i + t <= bottom and left < r.j + t <= right, 0 <= t < r.length.
            const int64_t from = std::max({int64_t{0}, top + 1 - r.i, left + 1 - r.j});
            const int64_t to = std::min({r.length - 1, bottom - r.i, right - r.j});
            for (int64_t t = from; t <= to; ++t) pairs.emplace_back(r.i + t, r.j + t);
        }
    }
    std::sort(pairs.begin(), pairs.end());
    return pairs;
}

}  // namespace chromalign
