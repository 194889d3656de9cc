//! @file pair_alignments: each strand's K best, merged.
#include "engine/declump/pair_alignments.hpp"

#include <algorithm>
#include <climits>
#include <cmath>
#include <condition_variable>
#include <mutex>

#include "engine/threads/for_each_worker.hpp"

namespace chromalign {

DeclumpOptions tiles_within(int64_t m, int64_t n, int64_t bytes) {
    // A square tile of side t keeps (m / t) rows of n + 1 columns and (n / t) columns of m rows.
    // Sides are multiples of 512 rows, so that a device's whole pass (bands of 512) can run.
    const double side = 16.0 * static_cast<double>(m) * static_cast<double>(n) / static_cast<double>(std::max<int64_t>(bytes, 1));
    DeclumpOptions o;
    o.tile_rows = o.tile_cols = std::max<int64_t>(1, static_cast<int64_t>(std::ceil(side / 512))) * 512;
    return o;
}

namespace {

/// What the strands' searches share: the scores each has found (best first), which rank a
/// later strand's; how far each has come; the first passes' turn; and the callers' callbacks,
/// called one at a time.
class StrandsShared {
public:
    StrandsShared(const std::vector<StrandSearch>& strands, int count)
        : count_(count), scores_(strands.size()), next_(strands.size(), INT64_MAX), ended_(strands.size()) {
        for (size_t k = 0; k < strands.size(); ++k) {
            for (const Alignment& a : strands[k].known) scores_[k].push_back(a.score);
            ended_[k] = strands[k].done;
        }
    }

    /// Whether strand k's next alignment, of `score` after `before` of its own, still ranks
    /// among `count`: as when the strands are searched one after another, the earlier strands'
    /// alignments of at least `score` rank before it. Their number is final once each earlier
    /// strand ended or its next is lower (a search's alignments never rise), so this waits for
    /// that: the answer, and so every strand's search, is the same however the threads run.
    bool wanted(size_t k, int32_t score, size_t before, bool& outranked) {
        std::unique_lock<std::mutex> lock(mutex_);
        next_[k] = score;
        changed_.notify_all();
        const auto settled = [&] {
            for (size_t j = 0; j < k; ++j)
                if (!ended_[j] && next_[j] >= score) return false;
            return true;
        };
        changed_.wait(lock, [&] { return failed_ || settled(); });
        if (failed_) return false;  // another strand's error ends the pair's search
        size_t ahead = before;
        for (size_t j = 0; j < k; ++j)
            ahead += static_cast<size_t>(std::count_if(scores_[j].begin(), scores_[j].end(), [&](int32_t s) { return s >= score; }));
        outranked = ahead >= static_cast<size_t>(count_);
        return !outranked;
    }

    /// Strand k found an alignment of `score` (beyond those it knew), then `tell` runs.
    template <class Tell>
    void found(size_t k, int32_t score, Tell&& tell) {
        const std::lock_guard<std::mutex> lock(mutex_);
        scores_[k].push_back(score);
        tell();
    }

    template <class Tell>
    void tell(Tell&& tell) {
        const std::lock_guard<std::mutex> lock(mutex_);
        tell();
    }

    /// Strand k's search ended.
    void ended(size_t k) {
        {
            const std::lock_guard<std::mutex> lock(mutex_);
            ended_[k] = true;
        }
        changed_.notify_all();
    }

    /// Searched strand `order`'s first pass may start once those before it ended: one pass
    /// fills the device (or every core), and the searches after the passes overlap.
    void wait_turn(size_t order) {
        std::unique_lock<std::mutex> lock(mutex_);
        changed_.wait(lock, [&] { return passes_ended_ >= order || failed_; });
    }
    /// Searched strand `order`'s first pass ended (or its search did, by any route).
    void end_turn(size_t order) {
        {
            const std::lock_guard<std::mutex> lock(mutex_);
            passes_ended_ = std::max(passes_ended_, order + 1);
        }
        changed_.notify_all();
    }

    void fail() {
        {
            const std::lock_guard<std::mutex> lock(mutex_);
            failed_ = true;
        }
        changed_.notify_all();
    }

private:
    const int count_;
    std::vector<std::vector<int32_t>> scores_;
    std::vector<int64_t> next_;  ///< each strand's next alignment's score, as last asked for
    std::vector<uint8_t> ended_;
    std::mutex mutex_;
    std::condition_variable changed_;
    size_t passes_ended_ = 0;
    bool failed_ = false;
};

}  // namespace

std::vector<StrandAlignment> pair_alignments(
    const Sequence& s0, const std::vector<StrandSearch>& strands, const Scoring& scoring, int count, int32_t min_score,
    const DeclumpOptions& options, DeclumpCounts& counts, const std::function<void(Strand, const std::vector<Alignment>&)>& found,
    const std::function<void(Strand, const std::vector<Alignment>&, bool outranked)>& ended,
    const std::function<void(Strand, int64_t cells)>& passing, std::vector<std::optional<AlignmentEnd>>* bests) {
    if (bests) bests->assign(strands.size(), std::nullopt);
    StrandsShared shared(strands, count);
    std::vector<size_t> searched;  // the strands whose search runs, in order
    for (size_t k = 0; k < strands.size(); ++k)
        if (!strands[k].done) searched.push_back(k);
    std::vector<std::vector<Alignment>> lists(strands.size());
    const auto search = [&](size_t order) {
        const size_t k = searched[order];
        const StrandSearch& strand = strands[k];
        bool turn_ended = false;
        const auto end_turn = [&] {
            if (!turn_ended) shared.end_turn(order);
            turn_ended = true;
        };
        try {
            DeclumpOptions strand_options = options;
            if (strand.device) strand_options.device = strand.device;
            const int64_t cells_all = s0.length() * strand.s1->length();
            strand_options.on_first_pass = [&](int64_t cells) {
                if (cells == 0 && !turn_ended) shared.wait_turn(order);
                if (passing) shared.tell([&] { passing(strand.strand, cells); });
                if (cells == cells_all) end_turn();
            };
            DeclumpCounts c;
            DeclumpResume resume{strand.known, {}, {}, strand.traced};
            resume.found = [&](const std::vector<Alignment>& so_far) {
                shared.found(k, so_far.back().score, [&] {
                    if (found) found(strand.strand, so_far);
                });
            };
            bool outranked = false;
            resume.wanted = [&](int32_t score, size_t before) { return shared.wanted(k, score, before, outranked); };
            AlignmentEnd best;
            lists[k] = best_alignments(s0, *strand.s1, scoring, count, min_score, strand_options, &c, resume, &best);
            end_turn();
            shared.ended(k);
            shared.tell([&] {
                if (bests) (*bests)[k] = best;
                counts.add(c);
                if (ended) ended(strand.strand, lists[k], outranked);
            });
        } catch (...) {
            shared.fail();
            end_turn();
            throw;
        }
    };
    if (options.strands_at_once && !searched.empty())
        for_each_worker(static_cast<int>(searched.size()), [&](int w) { search(static_cast<size_t>(w)); });
    else
        for (size_t order = 0; order < searched.size(); ++order) search(order);
    std::vector<StrandAlignment> all;
    for (size_t k = 0; k < strands.size(); ++k) {
        if (strands[k].done) lists[k] = strands[k].known;
        for (Alignment& a : lists[k]) all.push_back({strands[k].strand, std::move(a)});
    }
    std::stable_sort(all.begin(), all.end(),
                     [](const StrandAlignment& a, const StrandAlignment& b) { return a.alignment.score > b.alignment.score; });
    if (static_cast<int>(all.size()) > count) all.resize(static_cast<size_t>(count));
    return all;
}

}  // namespace chromalign
