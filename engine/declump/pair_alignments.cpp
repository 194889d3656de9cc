//! @file pair_alignments: each strand's K best, merged.
#include "engine/declump/pair_alignments.hpp"

#include <algorithm>
#include <chrono>
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

DeclumpOptions auto_tiles(int64_t m, int64_t n, int64_t most) {
    DeclumpOptions o = tiles_within(m, n, most);
    const int64_t share = (std::max(m, n) / kAutoTilesAcross + 511) / 512 * 512;
    o.tile_rows = o.tile_cols = std::max(o.tile_rows, std::clamp<int64_t>(share, 512, kAutoTileSide));
    return o;
}

namespace {

/// What the strands' searches share: the scores each has found (best first), which rank the
/// others' next ones; the first passes' turn; and the callers' callbacks, called one at a time.
class StrandsShared {
public:
    StrandsShared(const std::vector<StrandSearch>& strands, int count) : count_(count), scores_(strands.size()) {
        for (size_t k = 0; k < strands.size(); ++k)
            for (const Alignment& a : strands[k].known) scores_[k].push_back(a.score);
    }

    /// Whether strand k's next alignment, of `score` after `before` of its own, can still rank
    /// among `count`. What the other strands found so far and rank before it (a higher score,
    /// or an earlier strand's equal) are among what they will find, so a cut is final; a
    /// strand that knows less goes on further than it needs to.
    bool wanted(size_t k, int32_t score, size_t before) {
        const std::lock_guard<std::mutex> lock(mutex_);
        if (failed_) return false;  // another strand's error ends the pair's search
        size_t ahead = before;
        for (size_t j = 0; j < scores_.size(); ++j)
            if (j != k)
                ahead += static_cast<size_t>(std::count_if(scores_[j].begin(), scores_[j].end(),
                                                           [&](int32_t s) { return j < k ? s >= score : s > score; }));
        return ahead < static_cast<size_t>(count_);
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

    /// Searched strand `order`'s first pass may start once those before it ended: one pass
    /// fills the device (or every core), and the searches after the passes overlap. False:
    /// another strand failed, and this one's pass is not to start.
    bool wait_turn(size_t order) {
        std::unique_lock<std::mutex> lock(mutex_);
        changed_.wait(lock, [&] { return passes_ended_ >= order || failed_; });
        return !failed_;
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
    std::mutex mutex_;
    std::condition_variable changed_;
    size_t passes_ended_ = 0;
    bool failed_ = false;
};

/// Thrown from a strand's first pass that another strand's failure leaves unstarted: that
/// failure is the pair's, and this strand ends quietly.
struct Abandoned {};

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
    std::vector<uint8_t> cut(strands.size(), 0);  // a strand's search ended outranked
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
            if (strand.host) strand_options.host = strand.host;
            // Threads asked for are the searches' to share; their first passes run in turn.
            if (options.strands_at_once && options.threads > 0 && options.search_threads == 0)
                strand_options.search_threads = std::max(1, options.threads / static_cast<int>(searched.size()));
            const int64_t cells_all = s0.length() * strand.s1->length();
            double waited = 0;  // for the turn: no part of the pass's time
            strand_options.on_first_pass = [&](int64_t cells) {
                if (cells == 0 && !turn_ended) {
                    const auto start = std::chrono::steady_clock::now();
                    if (!shared.wait_turn(order)) throw Abandoned{};
                    waited = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
                }
                if (passing) shared.tell([&] { passing(strand.strand, cells); });
                if (cells == cells_all) end_turn();
            };
            // The next strand's pass queues behind this one's last launch, so that the device
            // fills with it as this one's last units end.
            strand_options.on_first_pass_queued = end_turn;
            DeclumpCounts c;
            DeclumpResume resume{strand.known, {}, {}, strand.traced};
            resume.found = [&](const std::vector<Alignment>& so_far) {
                shared.found(k, so_far.back().score, [&] {
                    if (found) found(strand.strand, so_far);
                });
            };
            resume.wanted = [&](int32_t score, size_t before) {
                cut[k] = !shared.wanted(k, score, before);
                return cut[k] == 0;
            };
            AlignmentEnd best;
            lists[k] = best_alignments(s0, *strand.s1, scoring, count, min_score, strand_options, &c, resume, &best);
            c.first_seconds -= waited;
            end_turn();
            shared.tell([&] {
                if (bests) (*bests)[k] = best;
                counts.add(c);
            });
        } catch (const Abandoned&) {
            end_turn();
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
    for (size_t k = 0; k < strands.size(); ++k)
        if (strands[k].done) lists[k] = strands[k].known;
    // The merged list: by score, then strand, then each strand's order.
    std::vector<std::pair<size_t, size_t>> order;  // (strand, index in its list)
    for (size_t k = 0; k < strands.size(); ++k)
        for (size_t a = 0; a < lists[k].size(); ++a) order.emplace_back(k, a);
    std::stable_sort(order.begin(), order.end(), [&](const auto& x, const auto& y) {
        return lists[x.first][x.second].score > lists[y.first][y.second].score;
    });
    if (static_cast<int>(order.size()) > count) order.resize(static_cast<size_t>(count));
    // Each searched strand ends with what of it ranks: a prefix of its search, whatever the
    // threads' timing traced beyond it; outranked if anything of it ranked below.
    std::vector<size_t> ranked(strands.size(), 0);
    for (const auto& [k, a] : order) ranked[k] = std::max(ranked[k], a + 1);
    if (ended)
        for (const size_t k : searched) {
            const bool outranked = cut[k] != 0 || ranked[k] < lists[k].size();
            ended(strands[k].strand, std::vector<Alignment>(lists[k].begin(), lists[k].begin() + static_cast<long>(ranked[k])),
                  outranked);
        }
    std::vector<StrandAlignment> all;
    for (const auto& [k, a] : order) all.push_back({strands[k].strand, std::move(lists[k][a])});
    return all;
}

}  // namespace chromalign
