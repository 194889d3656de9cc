//! @file run_slab: one rank's column slab, its edge streams, coordinated checkpoints and the final reduction.
#include "engine/orchestration/slab_run.hpp"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <deque>
#include <functional>
#include <map>
#include <thread>

#include "engine/error.hpp"
#include "engine/transport/local_link.hpp"
#include "engine/checkpoint/checkpointer.hpp"
#include "engine/tiling/tile_grid.hpp"
#include "engine/traceback/special_rows.hpp"

namespace chromalign {
namespace {

using Clock = std::chrono::steady_clock;

constexpr int64_t kInFlight = kMaxDiagonalsInFlight;
constexpr int64_t kDiagonalsPerReport = 64;
constexpr int64_t kDiagonalsPerShare = 16;  ///< how often a slab shares its best score (pruning)

/// An upper bound on the width cut_slabs gives any slab of n columns over `ranks`: a slab is
/// within 4 columns per block column (at least kMinSlabBlockCols wide) of its share, and its
/// share makes up for the previous slab's rounding. The shape is planned for it, so that every rank's tiles
/// fit the lanes (16- or 32-bit) the shape chose.
int64_t widest_slab(int64_t n, int ranks) {
    if (ranks == 1) return n;  // one slab is all of S1
    static_assert(kMinSlabBlockCols >= 32, "4 columns per block column must stay within share / 8");
    const int64_t share = std::max<int64_t>(1, n / ranks);
    return share + share / 8 + 2 * kColumnQuantum;
}

/// The largest row that every rank offers (entries 0..2 of each offer), or 0.
int64_t common_row(const std::vector<std::vector<int64_t>>& offers) {
    int64_t best = 0;
    for (int i = 0; i < 3; ++i) {
        const int64_t row = offers[0][i];
        if (row <= best) continue;
        const bool everywhere = std::all_of(offers.begin(), offers.end(), [&](const std::vector<int64_t>& o) {
            return o[0] == row || o[1] == row || o[2] == row;
        });
        if (everywhere) best = row;
    }
    return best;
}

/// Runs `step` on every rank and gathers what it returns (`width` values per rank). A step
/// that throws Error on any rank throws on every rank, so none is left waiting for the others.
std::vector<std::vector<int64_t>> on_every_rank(SlabLink& link, size_t width,
                                                const std::function<std::vector<int64_t>()>& step) {
    std::vector<int64_t> values(width + 1, 0);
    std::string problem;
    try {
        const std::vector<int64_t> mine = step();
        std::copy(mine.begin(), mine.end(), values.begin() + 1);
    } catch (const Error& e) {
        problem = e.what();
        values[0] = 1;
    }
    auto all = link.allgather(values);
    for (size_t k = 0; k < all.size(); ++k) {
        if (all[k][0] == 0) continue;
        throw Error(!problem.empty() ? problem : "rank " + std::to_string(k) + " failed (its message says why)");
    }
    for (auto& v : all) v.erase(v.begin());
    return all;
}

/// This rank's part of the run: the executor, the edge streams and the checkpoint protocol.
class SlabRank {
public:
    SlabRank(SlabLink& link, Checkpointer& ck, TileExecutor& ex, int32_t out_corner,
             const BackendOptions& options, const Scoring& scoring, SlabGroup* group, int local,
             SpecialRowWriter* special, int64_t special_bands)
        : link_(link), ck_(ck), ex_(ex), special_(special), special_bands_(special_bands), g_(ex.grid()), rows_(g_.rows_per_band()), out_corner_(out_corner),
          options_(options), scoring_(scoring), group_(group), local_(local), left_(link.rank() > 0),
          right_(link.rank() + 1 < link.ranks()),
          zero_h_(static_cast<size_t>(rows_), 0), neg_e_(static_cast<size_t>(rows_), kScoreNegInf) {}

    /// Walks every diagonal; throws Interrupted after a stop checkpoint.
    void run(const Sequence& s0, const Sequence& s1, int64_t c0) {
        if (group_) group_->set_cells(local_, {0, g_.m * g_.n, 0});  // the whole share counts from the start
        const auto start = start_ = Clock::now();
        auto last_report = start;
        share_best(ck_.resumed_best().score);
        for (int64_t d = 0; d < g_.diagonals(); ++d) {
            wait_until([&] { return ex_.done(d - kInFlight); }, d);
            if (d < g_.bands) begin_band(d);
            if (d % kDiagonalsPerShare == 0) share_best(0);
            ex_.enqueue_diagonal(d);
            if (ck_.capture(ex_, d)) {
                wait_until([&] { return ex_.done(d); }, d + 1);
                pump(d + 1);
                if (ck_.write(ex_, best(c0))) stop(d);
            }
            if (special_) keep_special_rows(d);
            pump(d + 1);
            if (!options_.on_progress || (d + 1) % kDiagonalsPerReport != 0) continue;
            const SlabGroup::Cells mine{g_.cells_finished(std::max<int64_t>(d + 1 - kInFlight, 0)), g_.m * g_.n,
                                        ex_.cells_pruned()};
            if (group_) group_->set_cells(local_, mine);
            const auto now = Clock::now();
            if (link_.rank() == 0 && now - last_report >= std::chrono::seconds(1)) {
                last_report = now;
                report(s0, s1, mine, std::chrono::duration<double>(now - start).count());
            }
        }
        ex_.synchronize();
        if (special_) keep_special_rows(g_.diagonals(), true);
        pump(g_.diagonals());
        finished_ = seconds_since_start();
    }

    /// Pipeline figures in milliseconds: first left edge received, time spent waiting for
    /// left edges, end of this rank's last diagonal (all from this rank's start).
    std::vector<int64_t> timings() const {
        return {static_cast<int64_t>(first_edge_ * 1e3), static_cast<int64_t>(edge_wait_ * 1e3),
                static_cast<int64_t>(finished_ * 1e3)};
    }

    int64_t cells_pruned() { return ex_.cells_pruned(); }

    /// This rank's best cell in whole-matrix coordinates, merged with the resumed one.
    AlignmentEnd best(int64_t c0) {
        return better_of(offset_end(ex_.best(), ck_.first_row(), c0), ck_.resumed_best());
    }

private:
    /// Collects the special rows in flight after diagonal d, and hands the ones that have
    /// landed to the writer (which writes in the background): the device never waits for them.
    /// At the end (`last`), after a synchronize(), every one has landed.
    void keep_special_rows(int64_t d, bool last = false) {
        for (BandCapture& c : special_rows_) c.capture(ex_, d);
        while (!special_rows_.empty() && special_rows_.front().complete() &&
               (last || special_rows_.front().landed(ex_))) {
            Checkpoint row;
            special_rows_.front().take(ex_, ck_.first_row(), row);
            special_->write(row.row, std::move(row.h), std::move(row.f));
            special_rows_.pop_front();
        }
    }

    /// Spins on `ready`, moving messages and finished writes meanwhile; yields the core so
    /// that ranks sharing cores (CPU backend, oversubscribed) keep computing.
    template <typename Ready>
    void wait_until(Ready ready, int64_t enqueued) {
        while (!ready()) {
            pump(enqueued);
            std::this_thread::yield();
        }
    }

    /// Pruning: the best score this slab knows of (its own, its process's, what its left
    /// neighbour sent, `g`) goes to its executor and to the process.
    void share_best(int32_t g) {
        best_ = std::max({best_, g, ex_.best_score_seen()});
        if (group_) best_ = group_->offer_best(best_);
        ex_.share_best_score(best_);
    }

    /// Band d starts in block 0 now: its left edge, and the checkpoint it may carry.
    void begin_band(int64_t d) {
        int64_t seq = 0;
        bool stop = false;
        if (left_ && (stop_band_ < 0 || d <= stop_band_)) {
            const double waiting = seconds_since_start();
            wait_until([&] { return !inbox_.empty(); }, d);
            edge_wait_ += seconds_since_start() - waiting;
            if (d == 0) first_edge_ = seconds_since_start();
            EdgeMessage m = std::move(inbox_.front());
            inbox_.pop_front();
            if (m.band != d)
                throw Error("rank " + std::to_string(link_.rank()) + " expected band " + std::to_string(d) +
                            " from its left neighbour and got band " + std::to_string(m.band));
            ex_.set_left_edge(d, m.h.data(), m.e.data(), m.corner);
            best_ = std::max(best_, m.best);
            seq = m.checkpoint_seq;
            stop = m.stop;
        } else if (left_) {
            // Past a stop band nothing comes from the left: these rows only finish the captured
            // row's diagonals. A fresh edge (H = 0, E = -inf) gives every cell a score no higher
            // than its true one, so a best found there is never wrong; the resumed run
            // recomputes these rows exactly.
            ex_.set_left_edge(d, zero_h_.data(), neg_e_.data(), 0);
        } else {
            decide_checkpoint(d, seq, stop);
        }
        // Past a stop band the left edges are fresh and the rows not exact: none is kept.
        const bool exact = !left_ || stop_band_ < 0 || d <= stop_band_;
        if (special_ && exact && (d + 1) % special_bands_ == 0 && d + 1 < g_.bands) {
            special_rows_.emplace_back();
            special_rows_.back().start(d, g_.n);
        }
        if (seq > 0) {
            ck_.start(d, seq, stop);
            if (stop) stop_band_ = d;
            if (right_) flags_[d] = {seq, stop};
        }
    }

    /// Rank 0 starts a checkpoint when one is due and the previous one is on every rank.
    void decide_checkpoint(int64_t d, int64_t& seq, bool& stop) {
        const int signal = options_.checkpoint.stop ? *options_.checkpoint.stop : 0;
        if (!ck_.enabled() || ck_.capturing()) return;
        if (d >= g_.bands - 1) {  // the last band has begun: finishing is as quick
            if (signal && !stop_noted_ && options_.on_note) {
                stop_noted_ = true;
                options_.on_note("signal received in the last band: finishing the run instead of checkpointing");
            }
            return;
        }
        if (!ck_.due(signal != 0)) return;
        seq = ck_.next_seq();
        stop = signal != 0;
    }

    /// Sends the right edges that finished, collects left edges, and handles finished writes
    /// and acknowledgements.
    void pump(int64_t enqueued) {
        while (next_right_ < enqueued && ex_.done(next_right_)) {
            const int64_t band = ex_.right_edge_band(next_right_++);
            if (band < 0 || (stop_band_ >= 0 && band > stop_band_)) continue;
            EdgeMessage m;
            m.band = band;
            m.h.resize(static_cast<size_t>(rows_));
            m.e.resize(static_cast<size_t>(rows_));
            ex_.read_right_edge(band, m.h.data(), m.e.data());
            m.corner = out_corner_;
            m.best = best_;
            out_corner_ = m.h.back();
            if (const auto f = flags_.find(band); f != flags_.end()) {
                m.checkpoint_seq = f->second.first;
                m.stop = f->second.second;
                flags_.erase(f);
            }
            link_.send_edge(m);
        }
        EdgeMessage in;
        while (left_ && link_.poll_edge(in)) inbox_.push_back(std::move(in));
        if (const int64_t seq = ck_.poll_written(); seq > 0) {
            if (link_.rank() == 0)
                ck_.acknowledged(seq);
            else
                link_.send_ack(seq);
        }
        int64_t seq = 0;
        while (link_.rank() == 0 && link_.poll_ack(seq)) ck_.acknowledged(seq);
    }

    /// After a stop checkpoint is written here: the right edges it needs downstream are sent,
    /// and every rank waits for the others' pieces before anyone exits (a launcher may kill
    /// the whole job when the first rank exits).
    [[noreturn]] void stop(int64_t d) {
        ck_.poll_written();
        pump(d + 1);
        link_.flush();
        const int signal = options_.checkpoint.stop ? *options_.checkpoint.stop : 0;
        const auto signals = link_.allgather({signal});
        const int sig = static_cast<int>(signals[0][0]);
        const std::string row = std::to_string(ck_.first_row() + (stop_band_ + 1) * rows_);
        throw Interrupted(sig, "interrupted by signal " + std::to_string(sig) + "; " +
                                   (link_.ranks() == 1 ? "checkpointed row " : "every slab checkpointed row ") + row +
                                   " under " + options_.checkpoint.path + ".slab*: run the same command again to resume");
    }

    double seconds_since_start() const { return std::chrono::duration<double>(Clock::now() - start_).count(); }

    /// The cells this process finished (its group's slabs; this slab's own without a group)
    /// against what it has to finish; the whole matrix's progress is estimated from that
    /// fraction (other processes keep about the same pace).
    void report(const Sequence& s0, const Sequence& s1, const SlabGroup::Cells& mine, double seconds) {
        const SlabGroup::Cells c = group_ ? group_->cells() : mine;
        const double fraction = c.total > 0 ? static_cast<double>(c.done) / static_cast<double>(c.total) : 0;
        const int64_t left_rows = s0.length() - ck_.first_row();
        Progress p;
        p.cells_total = s0.length() * s1.length();
        p.cells_this_run = c.done;
        p.cells_pruned = c.pruned;
        p.cells_left = c.total - c.done;
        p.cells_done = ck_.first_row() * s1.length() +
                       static_cast<int64_t>(fraction * static_cast<double>(left_rows) * static_cast<double>(s1.length()));
        const int64_t front = std::min(s0.length(), p.cells_done / s1.length());
        p.cells_left_live = static_cast<int64_t>(static_cast<double>(p.cells_left) *
                                                 live_fraction_below(front, s0.length(), s1.length()));
        p.seconds = seconds;
        p.best_score = ex_.best().score;
        options_.on_progress(p);
    }

    /// The share of the cells below row `front` of the rows x cols matrix that pruning is
    /// expected to leave, for the ETA; a model of a related pair, whose best alignment runs
    /// near the main diagonal.
    /// A cell (i, j) is kept when H(i, j) + gain(i, j) reaches the best score G known when it
    /// is decided (prune_rule.hpp). Far from the alignment H is small, so the cell is kept
    /// when gain alone, best_score * min(m - i, n - j), reaches G; and G grows about linearly
    /// down the rows, as G(i) = G * i / front. Near the alignment H is close to G, less the
    /// gap that leads there: at a distance of k columns, about k * extend below, while the
    /// gain falls by up to k * best_score, so cells within best * (m - i) / (best + extend)
    /// of it on either side are kept. The model counts, row by row, the larger of the two.
    double live_fraction_below(int64_t front, int64_t rows, int64_t cols) const {
        const int32_t best_score = scoring_.best_score();
        if (!options_.pruning || front >= rows || best_score <= 0 || best_ <= 0) return 1.0;
        const double m = static_cast<double>(rows), n = static_cast<double>(cols);
        const double per_row = static_cast<double>(best_) / best_score / static_cast<double>(std::max<int64_t>(front, 1));
        const double wedge = 2.0 * best_score / (best_score + scoring_.gap_extend);
        constexpr int kSamples = 256;
        double live = 0;
        for (int k = 0; k < kSamples; ++k) {
            const double i = static_cast<double>(front) + (m - static_cast<double>(front)) * (k + 0.5) / kSamples;
            const double reach = per_row * i;  // rows and columns a cell needs left to keep
            const double by_gain = m - i >= reach ? std::max(0.0, n - reach) : 0.0;
            live += std::max(by_gain, std::min(n, wedge * (m - i)));
        }
        return std::min(1.0, live / (kSamples * n));
    }

    SlabLink& link_;
    Checkpointer& ck_;
    TileExecutor& ex_;
    SpecialRowWriter* const special_;  ///< null: no special rows kept
    const int64_t special_bands_;      ///< bands from one special row to the next
    std::deque<BandCapture> special_rows_;  ///< special rows being collected
    const TileGrid& g_;
    const int64_t rows_;
    int32_t out_corner_;  ///< H of the right edge column in the row above the next band sent
    const BackendOptions& options_;
    const Scoring& scoring_;  ///< for the ETA's model of what pruning leaves
    SlabGroup* const group_;  ///< this process's slabs, for the progress (may be null)
    const int local_;
    const bool left_, right_;
    std::deque<EdgeMessage> inbox_;
    std::map<int64_t, std::pair<int64_t, bool>> flags_;  ///< band -> checkpoint seq and stop, to forward
    int64_t next_right_ = 0;   ///< next diagonal whose right edge to send
    int64_t stop_band_ = -1;   ///< band of the stop checkpoint, once known
    bool stop_noted_ = false;
    int32_t best_ = 0;  ///< the best score this slab knows of (share_best)
    const std::vector<int32_t> zero_h_, neg_e_;  ///< the fresh left edge: H = 0, E = -inf
    Clock::time_point start_;
    double first_edge_ = 0, edge_wait_ = 0, finished_ = 0;
};

/// One line per slab on how the pipeline went: how late its first left edge came, how long it
/// waited for edges in all (its GPU runs other slabs meanwhile), and when it finished.
std::string pipeline_note(const std::vector<std::vector<int64_t>>& timings) {
    std::string text = "pipeline (seconds from each slab's start):";
    for (size_t k = 0; k < timings.size(); ++k) {
        char line[160];
        std::snprintf(line, sizeof line, " slab %zu: first edge %.2f, edge waits %.2f, done %.2f;", k,
                      timings[k][0] / 1e3, timings[k][1] / 1e3, timings[k][2] / 1e3);
        text += line;
    }
    text.pop_back();
    return text;
}

}  // namespace

std::unique_ptr<TileExecutor> SlabEngine::window_executor(const Sequence& s0, const Sequence& s1,
                                                          const Scoring& scoring, const TopRow& top) {
    const SlabShape shape = slab_shape(s0.length(), s1.length(), scoring);
    const int64_t blocks = std::clamp<int64_t>(s1.length() / shape.min_block_cols, 1, std::max(1, shape.blocks));
    return slab_executor(s0, s1, scoring, 0, top, SlabEdges{true, false}, static_cast<int32_t>(blocks), PruneRule{});
}

std::vector<Slab> cut_slabs(int64_t n, const std::vector<SlabShape>& shapes) {
    const int64_t ranks = static_cast<int64_t>(shapes.size());
    int64_t min_cols = kMinSlabBlockCols;
    for (const SlabShape& shape : shapes) min_cols = std::max(min_cols, shape.min_block_cols);
    std::vector<Slab> slabs(shapes.size());
    int64_t c0 = 0;
    for (int64_t k = 0; k + 1 < ranks; ++k) {
        const int64_t share = std::max<int64_t>(n * (k + 1) / ranks - c0, 1);
        const int64_t blocks = std::clamp<int64_t>(share / min_cols, 1, shapes[k].blocks);
        int64_t cols = (share / blocks + kColumnQuantum / 2) / kColumnQuantum * kColumnQuantum;
        cols = std::max(cols, min_cols);
        slabs[k] = Slab{c0, blocks * cols, static_cast<int32_t>(blocks)};
        c0 += blocks * cols;
    }
    if (c0 >= n)
        throw Error("S1 has " + std::to_string(n) + " bases, too few to split over " + std::to_string(ranks) +
                    " slabs (a slab needs at least " + std::to_string(min_cols) + " columns)");
    slabs.back() = Slab{c0, n - c0, shapes.back().blocks};
    return slabs;
}

SlabRunResult run_slab(const Sequence& s0, const Sequence& s1, const Scoring& scoring, SlabEngine& engine,
                       SlabLink& link, const BackendOptions& options, SlabGroup* group, int local) {
    const int rank = link.rank(), ranks = link.ranks();
    scoring.check_no_overflow(s0.length(), s1.length());
    if (s0.length() < 1 || s1.length() < 1) throw Error("both sequences must hold at least one base");

    SlabShape shape;
    const auto raw = on_every_rank(link, 3, [&]() -> std::vector<int64_t> {
        shape = engine.slab_shape(s0.length(), widest_slab(s1.length(), ranks), scoring);
        return {shape.rows_per_band, shape.blocks, shape.min_block_cols};
    });
    std::vector<SlabShape> shapes;
    for (int k = 0; k < ranks; ++k) {
        if (raw[k][0] != shape.rows_per_band)
            throw Error("rank " + std::to_string(k) + " uses " + std::to_string(raw[k][0]) + " rows per band and rank " +
                        std::to_string(rank) + " " + std::to_string(shape.rows_per_band) +
                        ": run every rank with the same backend, --alpha and CPU instruction set");
        shapes.push_back(SlabShape{raw[k][0], static_cast<int32_t>(raw[k][1]), raw[k][2]});
    }
    const Slab me = cut_slabs(s1.length(), shapes)[rank];
    Sequence slab;
    slab.name = s1.name;
    slab.source = s1.source;
    slab.codes.assign(s1.codes.begin() + me.c0, s1.codes.begin() + me.c0 + me.width);

    std::unique_ptr<Checkpointer> ck;
    const auto offers = on_every_rank(link, 4, [&] {
        ck = std::make_unique<Checkpointer>(s0, s1, slab, me.c0, scoring, rank, ranks, options.checkpoint,
                                            options.on_note);
        return ck->offer();
    });
    const int64_t row = common_row(offers);
    const bool any_file = std::any_of(offers.begin(), offers.end(), [](const auto& o) { return o[3] != 0; });
    if (any_file && row == 0) throw Error(ck->refusal());
    if (row >= s0.length()) throw Error(options.checkpoint.path + ": checkpoint is past the last row");
    TopRow top;
    on_every_rank(link, 0, [&] {
        ck->resume(row);
        top = ck->top();
        return std::vector<int64_t>{};
    });
    ck->remove_completion_marker();  // every rank has removed the spent files, if any
    // Corners: H(first_row, c0 - 1) is the previous rank's last column of the starting row.
    const auto lasts = link.allgather({top.empty() ? 0 : top.h.back()});
    top.corner = rank > 0 ? static_cast<int32_t>(lasts[rank - 1][0]) : 0;
    std::unique_ptr<TileExecutor> ex;
    on_every_rank(link, 0, [&] {
        // The gain counts every column right of a cell, this slab's and the slabs' beyond it.
        const PruneRule prune{options.pruning, scoring.best_score(), s0.length() - row, s1.length() - me.c0};
        ex = engine.slab_executor(s0, slab, scoring, row, top, SlabEdges{rank > 0, rank + 1 < ranks}, me.blocks,
                                  prune);
        if (ex->grid().rows_per_band() != shape.rows_per_band)
            throw Error("internal: the slab executor's band height differs from the agreed one");
        return std::vector<int64_t>{};
    });

    std::unique_ptr<SpecialRowWriter> special;
    const int64_t spacing = options.special_rows.dir.empty()
                                ? 0
                                : special_row_spacing(s0.length(), s1.length(), options.special_rows.budget_bytes,
                                                      shape.rows_per_band, engine.special_row_spacing());
    if (spacing > 0)
        special = std::make_unique<SpecialRowWriter>(options.special_rows.dir, options.special_rows.identity, me.c0 + 1,
                                                     me.width, scoring, options.on_note);
    SlabRank worker(link, *ck, *ex, static_cast<int32_t>(lasts[rank][0]), options, scoring, group, local,
                    special.get(), spacing / shape.rows_per_band);
    worker.run(s0, s1, me.c0);
    if (special) special->finish();
    const AlignmentEnd mine = worker.best(me.c0);
    link.flush();
    std::vector<int64_t> shared{mine.score, mine.s0_end, mine.s1_end, worker.cells_pruned()};
    for (const int64_t t : worker.timings()) shared.push_back(t);
    const auto all = link.allgather(shared);
    SlabRunResult result;
    result.cells_resumed = row * s1.length();  // every rank resumed from this row
    std::vector<std::vector<int64_t>> timings;
    for (const auto& v : all) {
        const AlignmentEnd cand{static_cast<int32_t>(v[0]), v[1], v[2]};
        if (better_end(cand, result.best)) result.best = cand;
        result.cells_pruned += v[3];
        timings.emplace_back(v.begin() + 4, v.end());
    }
    if (rank == 0 && ranks > 1 && options.on_note) options.on_note(pipeline_note(timings));
    int64_t late_ack = 0;  // acknowledgements of a checkpoint rank 0 no longer waits for
    while (rank == 0 && link.poll_ack(late_ack)) {
    }
    // The marker goes first, then every rank's pieces, then the marker: a job killed in between
    // leaves files that the next run knows to be spent, never pieces without a common row.
    const auto marked = on_every_rank(link, 1, [&] { return std::vector<int64_t>{ck->mark_complete() ? 1 : 0}; });
    if (marked[0][0] != 0) {
        on_every_rank(link, 0, [&] {
            ck->finish();
            return std::vector<int64_t>{};
        });
        ck->remove_completion_marker();
    }
    return result;
}

SlabRunResult run_slabs(const Sequence& s0, const Sequence& s1, const Scoring& scoring, SlabEngine& engine,
                        SlabGroup& group, const std::function<std::unique_ptr<SlabLink>(int local)>& link_for,
                        const BackendOptions& options) {
    BackendOptions shared = options;
    if (!shared.special_rows.dir.empty()) shared.special_rows.identity = rows_identity(s0, s1);
    std::vector<SlabRunResult> best(static_cast<size_t>(group.slabs()));
    run_in_group(group, [&](int local) {
        const std::unique_ptr<SlabLink> link = link_for(local);
        best[static_cast<size_t>(local)] = run_slab(s0, s1, scoring, engine, *link, shared, &group, local);
    });
    return best.front();  // the same on every slab: run_slab reduces over all of them
}

SlabRunResult run_local_slabs(const Sequence& s0, const Sequence& s1, const Scoring& scoring, SlabEngine& engine,
                              int slabs, const BackendOptions& options) {
    SlabGroup group(slabs);
    LocalLinkHub hub(group);
    const auto link_for = [&hub](int local) { return std::make_unique<LocalLink>(hub, local); };
    return run_slabs(s0, s1, scoring, engine, group, link_for, options);
}

}  // namespace chromalign
