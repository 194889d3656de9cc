//! @file run_slab: one rank's column slab, its edge streams, coordinated checkpoints and the final reduction.
#include "engine/orchestration/slab_run.hpp"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <deque>
#include <functional>
#include <optional>
#include <thread>

#include "engine/bound/shared_kmers.hpp"
#include "engine/error.hpp"
#include "engine/orchestration/left_column.hpp"
#include "engine/orchestration/level_pieces.hpp"
#include "engine/orchestration/test_pace.hpp"
#include "engine/pruning/gain_table.hpp"
#include "engine/pruning/live_model.hpp"
#include "engine/transport/local_link.hpp"
#include "engine/checkpoint/checkpointer.hpp"
#include "engine/checkpoint/standing_rows.hpp"
#include "engine/tiling/tile_grid.hpp"
#include "engine/traceback/special_rows.hpp"

namespace chromalign {
namespace {

using Clock = std::chrono::steady_clock;

constexpr int64_t kInFlight = kMaxDiagonalsInFlight;
constexpr int64_t kDiagonalsPerReport = 64;
constexpr int64_t kDiagonalsPerShare = 16;  ///< how often a slab shares its best score (pruning)
/// Rank 0's last bands, in which it takes a checkpoint whatever the interval (decide_checkpoint).
constexpr int64_t kLastChanceBands = 8;
/// The share of the matrix below a row that pruning is expected to leave above which the rows
/// there are dense: wide block columns serve them better than narrow ones.
constexpr double kDenseBelow = 0.25;

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

/// The latest checkpoint whose piece every rank offers (Checkpointer::offer), or 0.
int64_t common_seq(const std::vector<std::vector<int64_t>>& offers) {
    int64_t best = 0;
    for (int i = 0; i < 2; ++i) {
        const int64_t seq = offers[0][i];
        if (seq <= best) continue;
        if (std::all_of(offers.begin(), offers.end(), [&](const auto& o) { return o[0] == seq || o[1] == seq; }))
            best = seq;
    }
    return best;
}

/// Without a common checkpoint: the largest row that every rank offers as a flat row or as a
/// piece of an older format (which all share their row), or 0.
int64_t common_row(const std::vector<std::vector<int64_t>>& offers) {
    const auto rows = [](const std::vector<int64_t>& o) {
        return std::vector<int64_t>{o[0] == 0 ? o[4] : -1, o[1] == 0 ? o[5] : -1, o[2]};
    };
    int64_t best = 0;
    for (const int64_t row : rows(offers[0])) {
        if (row <= best) continue;
        if (std::all_of(offers.begin(), offers.end(), [&](const auto& o) {
                const auto r = rows(o);
                return std::find(r.begin(), r.end(), row) != r.end();
            }))
            best = row;
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
        if (!problem.empty()) throw Error(problem);
        throw PeerFailed("rank " + std::to_string(k) + " failed (its message says why)");
    }
    for (auto& v : all) v.erase(v.begin());
    return all;
}

/// This rank's part of the run: the executor, the edge streams and the checkpoint protocol.
class SlabRank {
public:
    /// `left` is the left edge column from the slab's first row on (what the resumed piece
    /// kept of it); special rows are kept at rows special_base + k * special_bands * R.
    SlabRank(SlabLink& link, Checkpointer& ck, std::unique_ptr<TileExecutor> ex, LeftColumn left,
             const BackendOptions& options, const Scoring& scoring, SlabGroup* group, int local,
             SpecialRowWriter* special, int64_t special_bands, int64_t special_base)
        : link_(link), ck_(ck), ex_(std::move(ex)), special_(special), special_bands_(special_bands),
          special_base_(special_base), rows_(ex_->grid().rows_per_band()), m_(ck.first_row() + ex_->grid().m),
          origin_(ck.first_row()),
          options_(options), scoring_(scoring), group_(group), local_(local), left_(link.rank() > 0),
          right_(link.rank() + 1 < link.ranks()), left_col_(std::move(left)),
          zero_h_(static_cast<size_t>(rows_), 0), neg_e_(static_cast<size_t>(rows_), kScoreNegInf),
          edge_h_(static_cast<size_t>(rows_)), edge_e_(static_cast<size_t>(rows_)) {}

    /// How this slab may change to a grid of other block columns once (make null: it may not).
    struct GridChange {
        /// The executor for the rows below `first_row` (0-based) from `top`, that grid's.
        std::function<std::unique_ptr<TileExecutor>(int64_t first_row, const TopRow& top)> make;
        int32_t blocks = 0;  ///< its block columns
        TopRow top;          ///< the slab's top row, for a change before its first band
        bool testing = false;   ///< tests: change at the first band bottom (or the top row)
        int64_t test_row = 0;   ///< below this row, whatever the bound
    };
    void change_with(GridChange n) { change_ = std::move(n); }

    /// Walks every diagonal; throws Interrupted after a stop checkpoint.
    void run(const Sequence& s0, const Sequence& s1, int64_t c0) {
        c0_ = c0;
        n_ = s1.length();
        // A wavefront start has finished the diagonals before its first: they count as resumed.
        int64_t first = ex_->first_diagonal(), before = g().cells_finished(first);
        first_band_ = (ck_.left_row() - ck_.first_row()) / rows_;  // block 0 may lag others by a band
        const int64_t share = g().m * g().n - before;
        // This run's cells once diagonals [first, d) are finished (`before` and the grid left
        // behind, carried_cells_, change with a grid change).
        const auto cells_before = [&](int64_t d) {
            return SlabGroup::Cells{g().cells_finished(d) - before + carried_cells_, share, cells_pruned(), c0_, g().n};
        };
        if (group_) group_->set_cells(local_, {0, share, 0, c0_, g().n});  // the whole share counts from the start
        const auto start = start_ = Clock::now();
        auto last_report = start;
        share_best(std::max(ck_.resumed_best().score, options_.prune_floor));
        standing_on_ = keeps_standing_rows();
        if (special_)
            ex_->track_region_peaks(c0 + 1, SpecialRows::kPeakColumns, special_bands_, special_band_offset());
        arm_interrupt();
        for (int64_t d = first; d < g().diagonals(); ++d) {
            test_pace();
            wait_until([&] { return ex_->done(d - kInFlight); }, d);
            // Past the last band of a grid being left, the new one runs the bands.
            if (d < g().bands && d >= first_band_ && (change_band_ < 0 || d <= change_band_)) begin_band(d);
            if (ex_->interrupted() && !stopping_)
                throw Error("internal: a diagonal was interrupted but no stop checkpoint taken");
            interruptible_.store(interruptible(d), std::memory_order_relaxed);
            if (d % kDiagonalsPerShare == 0) share_best(0);
            ex_->enqueue_diagonal(d);
            if (options_.on_diagonal) options_.on_diagonal(link_.rank(), d);
            if (ck_.capture(*ex_, d)) {  // written by pump() once the left neighbour's piece is known
                wait_until([&] { return ex_->done(d); }, d + 1);
                capture_ready_ = true;
            }
            if (standing_on_) {
                standing_.collect(*ex_, d, origin_);
                if (ck_.holds_top() && standing_.has_complete()) ck_.forget_top();
            }
            if (special_) keep_special_rows(d);
            if (change_band_ >= 0 && !special_) change_row_.capture(*ex_, d);
            pump(d + 1);
            if (change_band_ >= 0 && d == change_band_ + g().blocks) {  // its bottom row is complete
                change_grid();
                d = -1;  // the new grid's diagonal 0 next
                first = before = 0;
                continue;
            }
            if (!options_.on_progress || (d + 1) % kDiagonalsPerReport != 0) continue;
            const SlabGroup::Cells mine = cells_before(std::max<int64_t>(d + 1 - kInFlight, first));
            const auto now = Clock::now();
            if (group_) {
                group_->set_cells(local_, mine);
                // Whichever slab of the process is still running reports: the first to end is
                // the left one, long before the last on a band-shaped run.
                if (const auto reporting = group_->claim_report())
                    report(s0, s1, mine, std::chrono::duration<double>(now - start).count());
            } else if (link_.rank() == 0 && now - last_report >= std::chrono::seconds(1)) {
                last_report = now;
                report(s0, s1, mine, std::chrono::duration<double>(now - start).count());
            }
        }
        ex_->synchronize();
        if (group_ && options_.on_progress)  // all of its share finished, for the slabs still reporting
            group_->set_cells(local_, cells_before(g().diagonals()));
        // A stop checkpoint waits for the left neighbour's piece; pump() ends the run then.
        while (stopping_) {
            pump(g().diagonals());
            std::this_thread::yield();
        }
        if (special_) keep_special_rows(g().diagonals(), true);
        pump(g().diagonals());
        finished_ = seconds_since_start();
        serve();
    }

    /// Pipeline figures in milliseconds: first left edge received, time spent waiting for
    /// left edges, end of this rank's last diagonal (all from this rank's start); then the
    /// row its grid changed below and its block columns there (-1 and 0: it did not).
    std::vector<int64_t> timings() const {
        return {static_cast<int64_t>(first_edge_ * 1e3), static_cast<int64_t>(edge_wait_ * 1e3),
                static_cast<int64_t>(finished_ * 1e3), changed() ? origin_ : -1, changed() ? g().blocks : 0};
    }

    int64_t cells_pruned() { return ex_->cells_pruned() + carried_pruned_; }

    /// The executor of the slab's last rows.
    TileExecutor& executor() { return *ex_; }

    /// This rank's best cell in whole-matrix coordinates, merged with the resumed one and
    /// with the best of the grid it left, if any.
    AlignmentEnd best(int64_t c0) {
        return better_of(better_of(offset_end(ex_->best(), origin_, c0), carried_best_), ck_.resumed_best());
    }

private:
    /// Collects the special rows in flight after diagonal d, and hands the ones that have
    /// landed to the writer (which writes in the background): the device never waits for them.
    /// At the end (`last`), after a synchronize(), every one has landed.
    void keep_special_rows(int64_t d, bool last = false) {
        for (SpecialRowCapture& c : special_rows_) c.row.capture(*ex_, d);
        while (!special_rows_.empty() && special_rows_.front().row.complete() &&
               (last || special_rows_.front().row.landed(*ex_))) {
            Checkpoint row;
            special_rows_.front().row.take(*ex_, origin_, row);
            if (change_band_ >= 0 && row.row == origin_ + (change_band_ + 1) * rows_) change_top_ = TopRow{row.h, row.f};
            special_->write(row.row, std::move(row.h), std::move(row.f), std::move(special_rows_.front().region_peaks));
            special_rows_.pop_front();
        }
    }

    /// The region of the plot's score map that band d's bottom row belongs to: the bands down
    /// to a special row and past the one above (the writer stores its peaks with that row).
    int64_t special_region(int64_t d) const { return (d + special_band_offset()) / special_bands_; }
    int64_t special_band_offset() const { return (origin_ - special_base_) / rows_; }

    /// Rank 0 leaves a diagonal on the signal; the other slabs of its process once it has
    /// taken the stop (whose request then reaches them).
    void arm_interrupt() {
        const volatile std::sig_atomic_t* const signal = options_.checkpoint.stop;
        if (link_.rank() == 0 && signal && ck_.enabled())
            ex_->set_interrupt([this, signal] { return interruptible_.load(std::memory_order_relaxed) && *signal != 0; });
        else if (link_.rank() > 0 && group_ && ck_.enabled())
            ex_->set_interrupt([this] { return interruptible_.load(std::memory_order_relaxed) && group_->stopping(); });
    }

    /// Whether a stop may leave diagonal d unfinished (TileExecutor::set_interrupt): only
    /// where the next band to begin is sure to take the stop's wavefront (rank 0: it will ask
    /// for it; the others: it has been asked for), and that wavefront is past row 0.
    bool interruptible(int64_t d) const {
        // A grid being left begins no band past change_band_: the new grid takes the stop.
        const bool next_band = d + 1 >= first_band_ && d + 1 < g().bands - (link_.rank() == 0 ? 1 : 0) &&
                               (change_band_ < 0 || d + 1 <= change_band_);
        const bool asks = link_.rank() == 0 ? pending_.seq == 0 && ck_.due(true) : !ck_.capturing();
        return !stopping_ && asks && next_band && ex_->takes_wavefronts() && (d > 0 || ck_.first_row() > 0);
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
        best_ = std::max({best_, g, bound(), ex_->best_score_seen()});
        if (group_) best_ = group_->offer_best(best_);
        ex_->share_best_score(best_);
        if (!table_shared_ && options_.gain_table) {
            if (const GainView* table = options_.gain_table->load(std::memory_order_acquire)) {
                ex_->share_gain_table(*table);
                table_shared_ = true;
            }
        }
    }

    int32_t bound() const {
        return options_.lower_bound ? options_.lower_bound->load(std::memory_order_relaxed) : 0;
    }

    /// Band d starts in block 0 now: the checkpoint asked for, if any, then its left edge.
    void begin_band(int64_t d) {
        const int64_t row0 = origin_ + d * rows_;
        // Slab 0 decides before its first band; one with a left neighbour once its first edge
        // has come (below), as late as it can.
        if (d == 0 && !begun_ && !left_ && changes_at(origin_, g().bands)) switch_grid(origin_, change_.top);
        if (!left_) decide_checkpoint(d);
        if (pending_.seq > 0 && !ck_.capturing()) start_checkpoint(d);
        // The last band may reach past the matrix: rows there are never sent.
        const int64_t real = std::min(rows_, m_ - row0);
        const double waiting = seconds_since_start();
        const auto asked = [&] { return pending_.seq > 0 && !ck_.capturing(); };
        if (left_ && (!stopping_ || d <= stop_band_) && (ex_->takes_wavefronts() || standing_on_)) {
            // A wavefront is the state before this band, a standing row (or the top row) lies
            // above it: a checkpoint asked for while the band's left edge is awaited is taken
            // at once, and a stop then needs the edge no more (the left neighbour, stopped too,
            // may never send it).
            // After an interrupted diagonal the stop's request is on its way: it, not the edge.
            // Once a checkpoint is taken the edge may still be long in coming, and a stop may
            // follow the checkpoint meanwhile: a left neighbour that takes it above this band
            // never sends the edge (waiting for the edge alone here hung).
            while (true) {
                wait_until([&] { return (left_col_.has(row0, real) && !ex_->interrupted()) || asked(); }, d);
                if (!asked()) break;
                start_checkpoint(d);
                if (stopping_) break;
            }
        }
        if (left_ && (!stopping_ || d <= stop_band_)) {
            if (!ex_->takes_wavefronts() && !standing_on_) {
                // A checkpoint asked for while the edge is awaited is this band's row: the left
                // neighbour, which forwarded the request before sending this edge, sends edges
                // down to its own row, this band's at least. The next band's may never come:
                // a grid left behind (change_grid) brings the neighbour's last block up to its
                // block 0, so this slab may be waiting for the very band the neighbour stops at.
                wait_until([&] { return left_col_.has(row0, real) || asked(); }, d);
                if (asked()) start_checkpoint(d);
            }
            wait_until([&] { return left_col_.has(row0, real); }, d);
            edge_wait_ += seconds_since_start() - waiting;
            if (d == 0 && !changed()) first_edge_ = seconds_since_start();
            if (d == 0 && !begun_ && changes_at(origin_, g().bands)) switch_grid(origin_, change_.top);
            const int32_t corner = left_col_.copy(row0, real, edge_h_.data(), edge_e_.data());
            std::fill(edge_h_.begin() + real, edge_h_.end(), 0);
            std::fill(edge_e_.begin() + real, edge_e_.end(), kScoreNegInf);
            ex_->set_left_edge(d, edge_h_.data(), edge_e_.data(), corner);
            // This band's rows stay until the next begins (an interrupt may leave block 0's
            // tile of it for a wavefront to keep), and a checkpoint being taken keeps the rows
            // below its own (its neighbour's are lower).
            // A standing row a checkpoint may take keeps them from its own row on.
            int64_t keep = row0;
            if (standing_on_) keep = std::min(keep, ck_.holds_top() ? ck_.left_row() : standing_.top_row(origin_, rows_));
            // (The top row is held until a standing row is complete: B + 1 bands of rows.)
            left_col_.forget_before(ck_.capturing() ? std::min(capture_row_, keep) : keep);
        } else if (left_) {
            // Past a stop band the left neighbour need not send anything: these rows only
            // finish the captured row's diagonals. A fresh edge (H = 0, E = -inf) gives every
            // cell a score no higher than its true one, so a best found there is never wrong;
            // the resumed run recomputes these rows exactly.
            ex_->set_left_edge(d, zero_h_.data(), neg_e_.data(), 0);
        }
        if (!begun_ && !standing_on_) ck_.forget_top();  // with standing rows, once one is complete
        begun_ = true;
        if (standing_on_ && !stopping_) standing_.begin(d, g().n);  // its left edge is in
        // Past a stop band the left edges are fresh and the rows not exact: none is kept.
        const bool exact = !stopping_ || d <= stop_band_;
        const int64_t bottom = row0 + rows_;
        if (special_ && exact && bottom < m_ && (bottom - special_base_) % (special_bands_ * rows_) == 0) {
            SpecialRowCapture& c = special_rows_.emplace_back();
            c.row.start(d, g().n);
            c.region_peaks.assign(static_cast<size_t>(special_->runs()), 0);
            ex_->capture_region_peaks(d, special_region(d), c.region_peaks.data());
        }
        if (changes_at(origin_ + (d + 1) * rows_, g().bands - d - 1)) {
            change_band_ = d;
            ex_->limit_bands(d);
            if (!special_) change_row_.start(d, g().n);  // else band d's special row is the top row
        }
    }

    /// Whether the slab changes grids below row `bottom`: a band's bottom, the last this slab
    /// runs on its grid, with `bands_left` of its bands below it; or its top row, before any
    /// band has run.
    /// A slab starts on narrow block columns while a bound pass runs (run_slab): a diagonal
    /// is one tile of R x C cells along a narrow live band, where the tiles depend on each
    /// other and the run takes about m (R + C) / (one block's rate), and where the band is wide
    /// narrow columns fill more of the device. Where most of the matrix stays live, wide
    /// columns keep the device busier (their launches overlap: tools/BENCHMARKS.md, issue 40).
    /// So once the pass has ended, a slab changes to wide columns if the model of what pruning
    /// leaves (live_model.hpp) says that much of the matrix below stays live; else it keeps its
    /// grid for good. At a special row, where a region of the score map ends.
    bool changes_at(int64_t bottom, int64_t bands_left) {
        if (!change_.make || changed() || change_band_ >= 0 || stopping_ || kept_grid_) return false;
        // A checkpoint being taken reads the old executor; a resumed wavefront is of its grid.
        if (ck_.capturing() || pending_.seq > 0 || (!begun_ && !change_.top.steps.empty())) return false;
        if (bands_left <= 2 * int64_t{change_.blocks}) return false;  // too little left to gain
        if (special_ && (bottom - special_base_) % (special_bands_ * rows_) != 0) return false;
        if (change_.testing) return bottom > change_.test_row;
        if (options_.bound_settled && !options_.bound_settled->load(std::memory_order_relaxed)) return false;
        // The slab's own columns: a related pair's live corner makes the left slabs dense
        // while the others keep a band.
        kept_grid_ = live_fraction_below(live_model_now(m_, n_), bottom,
                                         std::max(carried_best_.score, ex_->best_score_seen()), c0_, c0_ + g().n) <= kDenseBelow;
        return !kept_grid_;
    }

    /// Runs the rows below `row` on the other grid, from `top`: before the first band (when
    /// the pass has ended by then, nothing has run on the first grid and nothing carries
    /// over), or from change_grid(). The old executor goes before the new one is made, its
    /// device memory with it.
    void switch_grid(int64_t row, const TopRow& top) {
        ex_.reset();
        ex_ = change_.make(row, top);
        changed_ = true;
        table_shared_ = false;
        origin_ = row;
        standing_on_ = keeps_standing_rows();
        arm_interrupt();
        share_best(0);
        if (special_)
            ex_->track_region_peaks(c0_ + 1, SpecialRows::kPeakColumns, special_bands_, special_band_offset());
    }

    /// Changes to the other grid once the last band of the old one, change_band_, is done:
    /// its bottom row is the new executor's top row, its right edges are all sent, and its
    /// best cell and counts carry over.
    void change_grid() {
        ex_->synchronize();
        pump(change_band_ + g().blocks + 1);  // the old bands' right edges
        const int64_t row = origin_ + (change_band_ + 1) * rows_;
        if (special_) {
            keep_special_rows(g().diagonals(), true);  // band change_band_'s row comes in change_top_
        } else {
            Checkpoint bottom;
            change_row_.take(*ex_, origin_, bottom);
            change_top_ = TopRow{std::move(bottom.h), std::move(bottom.f)};
        }
        if (change_top_.empty()) throw Error("internal: the row a slab changes grids at was not kept");
        change_top_.corner = left_ ? left_col_.h_at(row) : 0;
        carried_best_ = better_of(carried_best_, offset_end(ex_->best(), origin_, c0_));
        carried_pruned_ += ex_->cells_pruned();
        carried_cells_ += std::min(g().m, (change_band_ + 1) * rows_) * g().n;
        if (standing_on_) standing_.leave_grid(*ex_, origin_);
        if (options_.narrow_test_pause_ms > 0)
            std::this_thread::sleep_for(std::chrono::milliseconds(options_.narrow_test_pause_ms));
        ck_.rebase(row);
        change_band_ = -1;
        first_band_ = 0;
        next_right_ = 0;
        switch_grid(row, change_top_);
        change_top_ = TopRow{};
    }

    /// Checkpoints of rows (no wavefronts) take standing rows.
    bool keeps_standing_rows() const { return ck_.enabled() && !ex_->takes_wavefronts(); }

    /// Whether the slab changed grids; then it did so below row origin_.
    bool changed() const { return changed_; }

    /// Takes the checkpoint asked for before band d begins: the executor's wavefront, ready at
    /// once (the slab's first columns at row0, its last ones lower); else a standing row, the
    /// latest complete one, or before there is one the top row (both ready at once) or the
    /// one in flight; else band d's bottom row, ready once its B + 1 diagonals are done. A
    /// stop then computes nothing more than that row: nothing at all but for a row in flight
    /// or band d's. None but band d's needs a left edge this slab has not had, so a left
    /// neighbour may stop above the band this slab waits for.
    void start_checkpoint(int64_t d) {
        // Before diagonal 0 of a fresh run a wavefront would be row 0: the request waits for
        // the next band, one tile (R C cells) away, where band 0's row is R n.
        if (d == 0 && ck_.first_row() == 0 && ex_->takes_wavefronts() && g().bands > 1) return;
        const Request r = pending_;
        pending_ = Request{};
        if (ck_.start_wavefront(*ex_, r.seq, r.stop)) {
            capture_row_ = ck_.capture_row();
            marker_row_ = ck_.capture_low_row();
            capture_ready_ = true;
            if (!r.stop) return;
            if (group_) group_->set_stopping();
            stop_after((marker_row_ - origin_) / rows_ - 1);  // the last band the last block finished
            return;
        }
        if (standing_on_ && standing_.has_complete()) {
            ck_.start_row(std::move(*standing_.take_complete(*ex_, origin_, r.stop)), r.seq, r.stop);
            capture_row_ = marker_row_ = ck_.capture_row();
            capture_ready_ = true;
            // A row of a grid left behind lies above origin_: every band of this one goes.
            if (r.stop) stop_after(capture_row_ >= origin_ ? (capture_row_ - origin_) / rows_ - 1 : -1);
            return;
        }
        // Before one is complete, the top row, ready at once: the row the slab resumed from,
        // or row 0 but on rank 0 (pieces all at row 0 would hold no row to resume from). Else
        // the row in flight: band 0's, on rank 0 of a fresh run.
        if (standing_on_ && (left_ || ck_.first_row() > 0) && ck_.holds_top()) {
            take_top(r.seq, r.stop);
            return;
        }
        if (std::optional<BandCapture> band = standing_on_ ? standing_.take_flight() : std::nullopt) {
            const int64_t b = band->band();
            capture_row_ = marker_row_ = origin_ + (b + 1) * rows_;
            ck_.adopt(std::move(*band), r.seq, r.stop);
            if (r.stop) stop_after(b);
            return;
        }
        ck_.start(d, r.seq, r.stop);
        capture_row_ = marker_row_ = origin_ + (d + 1) * rows_;
        if (r.stop) stop_after(d);
    }

    /// A stop whose piece is band `last`'s bottom row (-1: this grid's top row): no later band
    /// runs, and no capture of one goes on.
    void stop_after(int64_t last) {
        stopping_ = true;
        stop_band_ = last;
        ex_->limit_bands(last);
        // Special rows of later bands would be taken from tiles no longer run. Standing rows
        // stay as they are (the executor may still write into them), never collected again.
        while (!special_rows_.empty() && special_rows_.back().row.band() > last) special_rows_.pop_back();
        standing_on_ = false;
    }

    /// Checkpoint `seq` is asked for (by rank 0, or by the left neighbour, which forwards
    /// what rank 0 asked): forwarded at once, and taken at the next band this slab begins, or
    /// at its top row when it has begun none (a slab waiting for its first left edge).
    void request(int64_t seq, bool stop) {
        pending_ = Request{seq, stop};
        if (right_) {
            EdgeMessage m;
            m.request_seq = seq;
            m.request_stop = stop;
            m.best = best_;
            link_.send_edge(m);
        }
        if (!left_ || begun_ || ck_.capturing()) return;  // rank 0 never waits to begin a band
        take_top(seq, stop);
        pending_ = Request{};
    }

    /// Takes the slab's top row (the one it resumed from, or row 0) as checkpoint `seq`.
    void take_top(int64_t seq, bool stop) {
        ck_.start_top(seq, stop);
        capture_row_ = ck_.left_row();
        marker_row_ = ck_.first_row();
        capture_ready_ = true;
        if (stop) stop_after(-1);
    }

    /// Writes this slab's piece once its row is complete and, but on rank 0, the left
    /// neighbour has said where its own piece is: the left edge rows between the two go in.
    void try_write() {
        if (!capture_ready_ || (left_ && left_captured_seq_ != ck_.capturing_seq())) return;
        int32_t corner = 0;
        std::vector<int32_t> h, e;
        if (left_ && ck_.reissuing()) {
            // The left neighbour, finished first, gave its own last piece again (serve).
            const int64_t kept = ck_.reissued_left_end();
            if (kept > capture_row_ ? left_captured_row_ != kept : left_captured_row_ > capture_row_)
                throw Error("internal: a slab's last piece keeps its left edge down to row " + std::to_string(kept) +
                            ", its left neighbour's lies at row " + std::to_string(left_captured_row_));
        } else if (left_) {
            corner = left_col_.h_at(capture_row_);
            if (left_captured_row_ > capture_row_) left_col_.rows(capture_row_, left_captured_row_, h, e);
        }
        capture_ready_ = false;
        const bool stop = ck_.write(*ex_, best(c0_), corner, std::move(h), std::move(e));
        if (right_) {  // every row of the right edge down to marker_row_ has been sent
            EdgeMessage m;
            m.captured_seq = ck_.capturing_seq();
            m.captured_row = marker_row_;
            m.best = best_;
            link_.send_edge(m);
        }
        if (stop) stop_now();
    }

    /// Rank 0 asks for a checkpoint when one is due and the previous one is on every rank.
    void decide_checkpoint(int64_t d) {
        const int signal = options_.checkpoint.stop ? *options_.checkpoint.stop : 0;
        if (!ck_.enabled() || ck_.capturing()) return;
        if (d >= g().bands - 1) {  // the last band has begun: serve() takes it from here
            if (link_.ranks() == 1) note_finishing(signal, "in the last band");  // finishing is as quick
            return;
        }
        // Once finished, rank 0 gives its last piece again (serve), and a resume computes what
        // lies below it: one is taken in its last bands, the interval elapsed or not, as soon
        // as the one before is on every rank.
        const int64_t window = g().bands - 1 - kLastChanceBands;
        const bool last_chance = link_.ranks() > 1 && d >= window && last_chance_band_ < window;
        if (pending_.seq > 0 || !(ck_.due(signal != 0) || (last_chance && ck_.due(true)))) return;
        if (last_chance) last_chance_band_ = d;
        request(ck_.next_seq(), signal != 0);
    }

    void note_finishing(int signal, const char* when) {
        if (signal && !stop_noted_ && options_.on_note) {
            stop_noted_ = true;
            options_.on_note(std::string("signal received ") + when + ": finishing the run instead of checkpointing");
        }
    }

    /// A slab that has run its last diagonal still takes its part in checkpoints and stops
    /// until every slab has: on a pruned run the left slabs end long before the right ones
    /// (90 s of a 270 s run at 48M), and rank 0, which decides both, would leave the rest of
    /// the run without either. A finished slab's state is its last piece, which it gives again
    /// (Checkpointer::reissue). Rank 0 ends this once every slab has finished and no
    /// checkpoint is being taken, so none is left half taken.
    void serve() {
        if (!ck_.enabled() || link_.ranks() == 1) return;
        if (left_) link_.send_ack(kFinishedAck);
        else ++finished_slabs_;
        while (!ended_) {
            pump(g().diagonals());
            if (pending_.seq > 0 && !ck_.capturing()) reissue();
            if (!left_ && finished_slabs_ == link_.ranks() && pending_.seq == 0 && ck_.settled()) {
                EdgeMessage end;
                end.run_ended = ended_ = true;
                link_.send_edge(end);
            } else if (!left_ && finished_slabs_ < link_.ranks() && !ck_.capturing() && pending_.seq == 0) {
                const int signal = options_.checkpoint.stop ? *options_.checkpoint.stop : 0;
                if (!ck_.has_piece()) note_finishing(signal, "once the first slab had ended without a checkpoint");
                else if (ck_.due(signal != 0)) request(ck_.next_seq(), signal != 0);
            }
            // A checkpoint or a stop may wait a fraction of a millisecond; a spin would take a
            // core from the slabs still running.
            std::this_thread::sleep_for(std::chrono::microseconds(200));
        }
    }

    /// A finished slab takes the checkpoint asked for: its last piece again.
    void reissue() {
        const Request r = pending_;
        pending_ = Request{};
        ck_.reissue(r.seq, r.stop);
        capture_row_ = ck_.capture_row();
        marker_row_ = ck_.capture_low_row();
        capture_ready_ = true;
        if (!r.stop) return;
        stopping_ = true;
        standing_on_ = false;
        if (group_) group_->set_stopping();
    }

    /// Sends the right edges that finished, collects left edges, and handles finished writes
    /// and acknowledgements.
    void pump(int64_t enqueued) {
        while (next_right_ < enqueued && ex_->right_edge_done(next_right_)) {
            const int64_t band = ex_->right_edge_band(next_right_++);
            if (band < 0 || (stopping_ && band > stop_band_)) continue;
            EdgeMessage m;
            m.row0 = origin_ + band * rows_;
            m.h.resize(static_cast<size_t>(rows_));
            m.e.resize(static_cast<size_t>(rows_));
            ex_->read_right_edge(band, m.h.data(), m.e.data());
            const size_t real = static_cast<size_t>(std::min(rows_, m_ - m.row0));  // none past the matrix
            m.h.resize(real);
            m.e.resize(real);
            m.best = best_;
            link_.send_edge(m);
        }
        EdgeMessage in;
        while (left_ && link_.poll_edge(in)) {
            if (!in.h.empty()) left_col_.append(in.row0, in.h, in.e);
            best_ = std::max(best_, in.best);
            if (in.request_seq > seen_request_) {
                seen_request_ = in.request_seq;
                request(in.request_seq, in.request_stop);
            }
            if (in.captured_seq > 0) left_captured_seq_ = in.captured_seq, left_captured_row_ = in.captured_row;
            if (in.run_ended) {
                ended_ = true;
                if (right_) link_.send_edge(in);
            }
        }
        try_write();
        if (const int64_t seq = ck_.poll_written(); seq > 0) {
            if (link_.rank() == 0)
                ck_.acknowledged(seq);
            else
                link_.send_ack(seq);
        }
        int64_t seq = 0;
        while (link_.rank() == 0 && link_.poll_ack(seq)) {
            if (seq == kFinishedAck) ++finished_slabs_;
            else ck_.acknowledged(seq);
        }
    }

    /// After a stop checkpoint's piece is written here (and the right edges it needs
    /// downstream are sent), every rank waits for the others' pieces before anyone exits (a
    /// launcher may kill the whole job when the first rank exits).
    [[noreturn]] void stop_now() {
        ck_.poll_written();
        link_.flush();
        const int signal = options_.checkpoint.stop ? *options_.checkpoint.stop : 0;
        const auto all = link_.allgather({signal, capture_row_, marker_row_});
        const int sig = static_cast<int>(all[0][0]);
        int64_t low = all[0][2], high = all[0][1];
        for (const auto& v : all) low = std::min(low, v[2]), high = std::max(high, v[1]);
        const std::string rows = "rows " + std::to_string(low) + " to " + std::to_string(high);
        const std::string where = low == high ? (link_.ranks() == 1 ? "checkpointed row " : "every slab checkpointed row ") +
                                                    std::to_string(low)
                                  : link_.ranks() == 1 ? "checkpointed its wavefront (" + rows + ")"
                                                       : "every slab checkpointed its own row or wavefront (" + rows + ")";
        throw Interrupted(sig, "interrupted by signal " + std::to_string(sig) + "; " + where + " under " +
                                   options_.checkpoint.path + ".slab*: run the same command again to resume");
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
        // This slab's best, with its rows above a resume (best() waits for the executor: once).
        const int32_t own = best(c0_).score;
        // What pruning leaves of each slab's rows left, below its own front and in its own
        // columns: on a pruned run the left slabs end long before the right ones, whose rows
        // left hold the band (one front for all put the right slabs' rows with the left's).
        const std::optional<LiveModel> model = live_model_now(s0.length(), s1.length());
        double live = 0;
        for (const SlabGroup::Cells& slab : group_ ? group_->each() : std::vector<SlabGroup::Cells>{mine}) {
            if (slab.cols <= 0 || slab.total <= slab.done) continue;
            const int64_t left = slab.total - slab.done;
            const int64_t front = std::max<int64_t>(0, s0.length() - left / slab.cols);
            live += static_cast<double>(left) *
                    live_fraction_below(model, front, own, slab.col_begin, slab.col_begin + slab.cols);
        }
        p.cells_left_live = static_cast<int64_t>(live);
        p.seconds = seconds;
        // Or the best any slab of the process has shared (share_best: theirs above a resume
        // too), whichever is higher.
        p.best_score = std::max(own, best_);
        options_.on_progress(p);
    }

    /// The model of what pruning leaves of the rows x cols matrix (engine/pruning/live_model.hpp)
    /// from the bounds known now; none without pruning.
    std::optional<LiveModel> live_model_now(int64_t rows, int64_t cols) const {
        if (!options_.pruning) return std::nullopt;
        const int32_t own_bound = bound();  // one read: it may rise meanwhile
        LiveModel model = live_model(rows, cols, scoring_, std::max(own_bound, options_.prune_floor),
                                     options_.gain_table != nullptr);
        model.own_bound = own_bound;
        return model;
    }

    /// The share of the cells below row `front` that `model` expects pruning to leave, over
    /// columns [col_begin, col_end); 1 without a model. `own`: this slab's best cell's score;
    /// the best shared by the other slabs counts once it is above every floor.
    double live_fraction_below(std::optional<LiveModel> model, int64_t front, int32_t own, int64_t col_begin,
                               int64_t col_end) const {
        if (!model) return 1.0;
        model->col_begin = col_begin;
        model->col_end = col_end;
        return expected_live_fraction(*model, front, std::max(own, best_ > model->floor ? best_ : 0));
    }

    SlabLink& link_;
    Checkpointer& ck_;
    std::unique_ptr<TileExecutor> ex_;  ///< the slab's executor: the one run_slab made, or the one it changed to
    const TileGrid& g() const { return ex_->grid(); }
    SpecialRowWriter* const special_;  ///< null: no special rows kept
    const int64_t special_bands_;      ///< bands from one special row to the next
    const int64_t special_base_;       ///< a row every slab's special rows are a multiple of those bands from
    struct SpecialRowCapture {
        BandCapture row;
        std::vector<int32_t> region_peaks;  ///< TileExecutor::capture_region_peaks lands them here
    };
    std::deque<SpecialRowCapture> special_rows_;  ///< special rows being collected (a deque: they stay put)
    const int64_t rows_;
    const int64_t m_;     ///< rows of the whole matrix
    int64_t n_ = 0;       ///< columns of the whole matrix
    int64_t origin_;      ///< the row the executor starts below: the resumed one, or where it changed
    GridChange change_;
    bool changed_ = false;      ///< the slab changed grids (below origin_)
    int64_t change_band_ = -1;  ///< the old grid's last band, while it finishes it
    bool kept_grid_ = false;    ///< decided not to change (the model is not asked every band)
    bool table_shared_ = false;  ///< the executor has the gain table (share_best)
    BandCapture change_row_;    ///< that band's bottom row, where no special row takes it
    StandingRows standing_;     ///< rows a checkpoint takes at once (executors without wavefronts)
    bool standing_on_ = false;  ///< standing_ is kept: checkpoints of rows, and no stop yet
    TopRow change_top_;
    AlignmentEnd carried_best_;  ///< of the grid left
    int64_t carried_pruned_ = 0, carried_cells_ = 0;
    const BackendOptions& options_;
    const Scoring& scoring_;  ///< for the ETA's model of what pruning leaves
    SlabGroup* const group_;  ///< this process's slabs, for the progress (may be null)
    const int local_;
    const bool left_, right_;
    LeftColumn left_col_;
    int64_t c0_ = 0;           ///< the slab's first column in S1 (0-based)
    int64_t next_right_ = 0;   ///< next diagonal whose right edge to send
    struct Request {
        int64_t seq = 0;
        bool stop = false;
    };
    Request pending_;               ///< a checkpoint asked for, not yet begun here
    int64_t seen_request_ = 0;      ///< the latest request forwarded
    bool begun_ = false;            ///< a band has begun (else the top row is this slab's state)
    int64_t capture_row_ = 0;       ///< the row of the piece being taken (of its first columns)
    int64_t marker_row_ = 0;        ///< its lowest row, down to which the right edge has been sent
    int64_t first_band_ = 0;        ///< the first band block 0 begins (a wavefront start's)
    std::atomic<bool> interruptible_{false};  ///< interruptible() of the diagonal being run
    bool capture_ready_ = false;    ///< that row is complete: written once the left piece is known
    int64_t left_captured_seq_ = 0, left_captured_row_ = 0;  ///< the left neighbour's latest piece
    bool stopping_ = false;         ///< the piece being taken carries the stop
    int64_t stop_band_ = -1;        ///< its band (-1: the top row) when stopping_
    bool stop_noted_ = false;
    int finished_slabs_ = 0;   ///< rank 0: the slabs that have run their last diagonal
    bool ended_ = false;       ///< every slab has, and no checkpoint is being taken (serve)
    int64_t last_chance_band_ = -1;  ///< rank 0: the band a checkpoint of its last ones was asked at
    int32_t best_ = 0;  ///< the best score this slab knows of (share_best)
    const std::vector<int32_t> zero_h_, neg_e_;  ///< the fresh left edge: H = 0, E = -inf
    std::vector<int32_t> edge_h_, edge_e_;       ///< a band's left edge, taken from left_col_
    Clock::time_point start_;
    double first_edge_ = 0, edge_wait_ = 0, finished_ = 0;
};

/// One line per slab on how the pipeline went: how late its first left edge came, how long it
/// waited for edges in all (its GPU runs other slabs meanwhile), when it finished, and where
/// its grid changed, if it did.
std::string pipeline_note(const std::vector<std::vector<int64_t>>& timings) {
    std::string text = "pipeline (seconds from each slab's start):";
    for (size_t k = 0; k < timings.size(); ++k) {
        char line[240];
        int at = std::snprintf(line, sizeof line, " slab %zu: first edge %.2f, edge waits %.2f, done %.2f", k,
                               timings[k][0] / 1e3, timings[k][1] / 1e3, timings[k][2] / 1e3);
        if (timings[k][3] >= 0)
            at += std::snprintf(line + at, sizeof line - static_cast<size_t>(at),
                                ", changed to %lld block columns below row %lld",
                                static_cast<long long>(timings[k][4]), static_cast<long long>(timings[k][3]));
        std::snprintf(line + at, sizeof line - static_cast<size_t>(at), ";");
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

namespace {

/// The record of each band of a stack (BackendOptions::stack_rows) of `rows` rows in bands of
/// `band_rows`; throws Error when a record does not start at a band.
std::vector<int32_t> band_records(const std::vector<int64_t>& first_rows, int64_t rows, int64_t band_rows) {
    if (first_rows.empty() || first_rows[0] != 0) throw Error("internal: a stack starts with a record at row 0");
    for (size_t k = 1; k < first_rows.size(); ++k)
        if (first_rows[k] % band_rows != 0 || first_rows[k] <= first_rows[k - 1] || first_rows[k] >= rows)
            throw Error("internal: stacked record " + std::to_string(k) + " does not start at a band of " +
                        std::to_string(band_rows) + " rows");
    std::vector<int32_t> of(static_cast<size_t>((rows + band_rows - 1) / band_rows), 0);
    for (size_t k = 1; k < first_rows.size(); ++k)
        std::fill(of.begin() + first_rows[k] / band_rows, of.end(), static_cast<int32_t>(k));
    return of;
}

/// Each record's best over every rank (a stack's; none without one), by the tie rule.
std::vector<AlignmentEnd> reduce_records(SlabLink& link, const std::vector<AlignmentEnd>& mine) {
    std::vector<int64_t> flat;
    for (const AlignmentEnd& e : mine) flat.insert(flat.end(), {e.score, e.s0_end, e.s1_end});
    std::vector<AlignmentEnd> all(mine.size());
    for (const std::vector<int64_t>& v : link.allgather(flat))
        for (size_t k = 0; k < all.size() && 3 * k + 2 < v.size(); ++k)
            all[k] = better_of(AlignmentEnd{static_cast<int32_t>(v[3 * k]), v[3 * k + 1], v[3 * k + 2]}, all[k]);
    return all;
}

/// Whether the bound pass may leave most of the matrix pruned, so that slabs start narrow
/// (run_slab). Two sequences that share almost none of their k-mers give it little to find:
/// then the matrix stays dense unless a floor from elsewhere prunes it, and a narrow start
/// would only cost the time of changing grids (tools/BENCHMARKS.md, issue 40). A function of
/// the sequences and options alone, so that a resume cuts the slabs as the run it resumes.
bool bound_may_prune(const Sequence& s0, const Sequence& s1, const Scoring& scoring, const BackendOptions& options) {
    const KmerShare share = shared_kmers(s0, s1, static_cast<int>(std::thread::hardware_concurrency()));
    constexpr int64_t kTooFewToTell = 256;
    constexpr double kLittleShared = 0.01;  // a pair of 10% divergence aligned over half its length keeps 5%
    if (share.sampled < kTooFewToTell || share.shared >= kLittleShared * static_cast<double>(share.sampled))
        return true;
    const LiveModel model =
        live_model(s0.length(), s1.length(), scoring, options.prune_floor, options.gain_table != nullptr);
    return expected_live_fraction(model, 0, 0) <= kDenseBelow;
}

}  // namespace

SlabRunResult run_slab(const Sequence& s0, const Sequence& s1, const Scoring& scoring, SlabEngine& engine,
                       SlabLink& link, const BackendOptions& options, SlabGroup* group, int local) {
    const int rank = link.rank(), ranks = link.ranks();
    scoring.check_no_overflow(s0.length(), s1.length());
    if (s0.length() < 1 || s1.length() < 1) throw Error("both sequences must hold at least one base");
    if (options.stack_rows && (options.pruning || !options.checkpoint.path.empty() || !options.special_rows.dir.empty()))
        throw Error("internal: stacked records run without pruning, checkpoints or special rows");

    // While a bound pass runs, its answer is unknown: the slabs start on k times the block
    // columns of their shape (or of the engine's changed_blocks), narrow ones, and may change
    // to those later (SlabRank::changes_at). Not with stacked records. The slabs are cut for
    // the narrow count, so a checkpoint resumes with the options that took it (a bound pass,
    // pruning).
    const bool testing = options.narrow_test_blocks > 0;
    const int32_t most = testing ? options.narrow_test_blocks : options.narrow_grid ? engine.narrow_blocks(scoring) : 0;
    const bool may_start_narrow = most > 0 && (testing || (options.pruning && options.lower_bound)) &&
                                  !options.stack_rows;
    SlabShape shape;
    int32_t k = 1;
    const auto raw = on_every_rank(link, 3, [&]() -> std::vector<int64_t> {
        shape = engine.slab_shape(s0.length(), widest_slab(s1.length(), ranks), scoring);
        const int32_t changed = testing ? 0 : engine.changed_blocks(scoring);
        if (may_start_narrow && changed > 0 && most / changed >= 2) shape.blocks = changed;
        if (may_start_narrow && most / shape.blocks >= 2) {
            k = most / shape.blocks;
            shape.blocks *= k;
        }
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
    std::vector<Slab> slabs;
    try {
        slabs = cut_slabs(s1.length(), shapes);
    } catch (const Error&) {  // every rank cut the same shapes: each of them returns here
        SlabRunResult narrow;
        narrow.too_narrow = true;
        return narrow;
    }
    const Slab me = slabs[static_cast<size_t>(rank)];
    Sequence slab;
    slab.name = s1.name;
    slab.source = s1.source;
    slab.codes.assign(s1.codes.begin() + me.c0, s1.codes.begin() + me.c0 + me.width);

    std::unique_ptr<Checkpointer> ck;
    const auto offers = on_every_rank(link, 6, [&] {
        ck = std::make_unique<Checkpointer>(s0, s1, slab, me.c0, scoring, rank, ranks, options.checkpoint,
                                            options.on_note);
        ck->set_leveller([&](const std::vector<Checkpoint>& pieces) {
            const auto level = [&] { return std::make_shared<Checkpoint>(level_pieces(pieces, s0, s1, scoring, engine)); };
            return *std::static_pointer_cast<Checkpoint>(group ? group->once(level) : level());
        });
        return ck->offer();
    });
    const int64_t seq = common_seq(offers);
    const int64_t common = seq > 0 ? 0 : common_row(offers);
    const bool any_file = std::any_of(offers.begin(), offers.end(), [](const auto& o) { return o[3] != 0; });
    if (any_file && seq == 0 && common == 0) throw Error(ck->refusal());
    ck->warn_unused();
    if (common >= s0.length()) throw Error(options.checkpoint.path + ": checkpoint is past the last row");
    TopRow top;
    std::string no_wavefront;  // why the wavefront resumed from cannot start this slab's executor
    LeftColumn left;
    bool own_left = false;
    std::vector<int32_t> left_h, left_e;
    int32_t left_corner = 0;
    // Per rank: its first columns' row, the end of the left edge it holds, its width, the row
    // its executor starts below (from which it sends its right edge), the cells above.
    const auto resumed = on_every_rank(link, 5, [&] {
        ck->resume(seq, common);
        try {
            top = ck->top(shape.rows_per_band);
        } catch (const WavefrontMismatch& e) {
            no_wavefront = e.what();
        }
        own_left = ck->left_edge(left_corner, left_h, left_e);
        const int64_t row = ck->left_row();
        return std::vector<int64_t>{row, row + static_cast<int64_t>(left_h.size()), me.width, ck->first_row(),
                                    ck->cells_above()};
    });
    ck->remove_completion_marker();  // every rank has removed the spent files, if any
    // A staircase fits together when each slab holds its left edge down to the row its left
    // neighbour then sends on from.
    on_every_rank(link, 0, [&] {
        for (int k = 1; k < ranks; ++k)
            if (resumed[k][0] < resumed[k - 1][3] && resumed[k][1] < resumed[k - 1][3])
                throw Error(options.checkpoint.path + ": the pieces of checkpoint " + std::to_string(seq) +
                            " do not fit together (slab " + std::to_string(k) + " lacks rows " +
                            std::to_string(resumed[k][1] + 1) + " to " + std::to_string(resumed[k - 1][3]) +
                            " of its left edge); it is left untouched (use --restart to discard it)");
        return std::vector<int64_t>{};
    });
    // Corners: H(first_row, c0 - 1). A piece keeps it; at one row for all it is the previous
    // rank's last column of that row.
    const auto lasts = link.allgather({top.empty() ? 0 : top.h.back()});
    if (!own_left) left_corner = rank > 0 ? static_cast<int32_t>(lasts[rank - 1][0]) : 0;
    top.corner = rank > 0 ? left_corner : 0;
    left.reset(ck->left_row(), left_corner, left_h, left_e);
    std::vector<int32_t>().swap(left_h);
    std::vector<int32_t>().swap(left_e);
    // This slab's executor for the rows below `row` from `from`, on `blocks` block columns.
    const auto executor_at = [&](int64_t row, const TopRow& from, int32_t blocks) {
        // The gain counts every column right of a cell, this slab's and the slabs' beyond it.
        PruneRule prune{options.pruning, scoring.best_score(), s0.length() - row, s1.length() - me.c0};
        prune.row_offset = row;  // where the executor's matrix lies in a gain table's
        prune.col_offset = me.c0;
        return engine.slab_executor(s0, slab, scoring, row, from, SlabEdges{rank > 0, rank + 1 < ranks, rank}, blocks,
                                    prune);
    };
    std::unique_ptr<TileExecutor> ex;
    on_every_rank(link, 0, [&] {
        const auto make = [&] {
            // A single slab has no neighbour to match: its grid takes the wavefront's block
            // columns. Other slabs take those of the wide grid where the slab had changed to it.
            const auto theirs = static_cast<int32_t>(top.steps.size() + 1);
            const bool wide = k > 1 && me.blocks % k == 0 && theirs == me.blocks / k;
            const int32_t blocks = !top.steps.empty() && (ranks == 1 || wide) ? theirs : me.blocks;
            return executor_at(ck->first_row(), top, blocks);
        };
        try {
            if (!no_wavefront.empty()) throw WavefrontMismatch(no_wavefront);
            ex = make();
        } catch (const WavefrontMismatch& e) {
            if (ranks > 1)
                throw Error(options.checkpoint.path + ": checkpoint " + std::to_string(seq) + " cannot be resumed here: " +
                            e.what() + "; resume it with the backend, --alpha and CPU that took it, or use --restart");
            ck->level_wavefront();  // one slab: levelled to one row, which any executor starts from
            top = ck->top(shape.rows_per_band);
            ex = make();
        }
        if (ex->grid().rows_per_band() != shape.rows_per_band)
            throw Error("internal: the slab executor's band height differs from the agreed one");
        if (options.stack_rows) ex->stack_records(band_records(*options.stack_rows, s0.length(), shape.rows_per_band));
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
    int64_t lowest = ck->first_row();
    for (const auto& r : resumed) lowest = std::min(lowest, r[3]);
    const bool on_narrow = ex->grid().blocks == me.blocks;  // not resumed on the wide grid
    SlabRank worker(link, *ck, std::move(ex), std::move(left), options, scoring, group, local, special.get(),
                    spacing / shape.rows_per_band, lowest);
    // The wide grid: k times fewer block columns, k times as wide (so a slab with a right edge
    // still has its last column there), where cut_slabs kept the narrow count a multiple of k.
    if (k > 1 && me.blocks % k == 0 && on_narrow) {
        const int32_t wide = me.blocks / k;
        worker.change_with({[&executor_at, wide](int64_t row, const TopRow& from) { return executor_at(row, from, wide); },
                            wide, top, testing, options.narrow_test_row});
    }
    worker.run(s0, s1, me.c0);
    if (special) special->finish();
    const AlignmentEnd mine = worker.best(me.c0);
    std::vector<AlignmentEnd> records;
    if (options.stack_rows)
        for (const AlignmentEnd& e : worker.executor().record_bests()) records.push_back(offset_end(e, 0, me.c0));
    link.flush();
    std::vector<int64_t> shared{mine.score, mine.s0_end, mine.s1_end, worker.cells_pruned()};
    for (const int64_t t : worker.timings()) shared.push_back(t);
    const auto all = link.allgather(shared);
    SlabRunResult result;
    if (options.stack_rows) result.records = reduce_records(link, records);
    for (const auto& r : resumed) result.cells_resumed += r[4];
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
    shared.on_note = one_note_at_a_time(options.on_note);
    // Once per process, before any slab is cut (run_slab's narrow start).
    if (shared.narrow_grid && shared.pruning && shared.lower_bound && !shared.stack_rows &&
        shared.narrow_test_blocks == 0 && engine.narrow_blocks(scoring) > 0)
        shared.narrow_grid = bound_may_prune(s0, s1, scoring, shared);
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
    {
        SlabGroup group(slabs);
        LocalLinkHub hub(group);
        const auto link_for = [&hub](int local) { return std::make_unique<LocalLink>(hub, local); };
        const SlabRunResult run = run_slabs(s0, s1, scoring, engine, group, link_for, options);
        if (!run.too_narrow) return run;
        if (slabs == 1) throw Error("internal: S1 of " + std::to_string(s1.length()) + " bases too short for one slab");
    }
    return run_local_slabs(s0, s1, scoring, engine, 1, options);
}

}  // namespace chromalign
