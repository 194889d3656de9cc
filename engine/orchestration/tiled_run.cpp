//! @file run_tiled: the external-diagonal loop with progress, checkpoints and resume.
#include "engine/orchestration/tiled_run.hpp"

#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <future>

#include "engine/checkpoint/band_capture.hpp"
#include "engine/checkpoint/checkpoint_file.hpp"
#include "engine/error.hpp"
#include "engine/checkpoint/pieces.hpp"

namespace chromalign {
namespace {

using Clock = std::chrono::steady_clock;

/// Diagonals enqueued between two looks at the clock; each look waits for the device, which
/// bounds how far the host runs ahead and costs one launch latency per batch.
constexpr int64_t kDiagonalsPerBatch = 64;

std::string percent(int64_t part, int64_t whole) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.1f%%", whole > 0 ? 100.0 * part / whole : 0.0);
    return buf;
}

/// Checkpoint state of one run: the resumed checkpoint, the row being captured, and the
/// writer running in the background so the device is not kept waiting for the disk.
class Checkpointer {
public:
    Checkpointer(const Sequence& s0, const Sequence& s1, const Scoring& scoring, const BackendOptions& o)
        : options_(o.checkpoint), note_(o.on_note) {
        base_.m = s0.length();
        base_.n = s1.length();
        base_.fingerprint0 = sequence_fingerprint(s0);
        base_.fingerprint1 = sequence_fingerprint(s1);
        base_.scoring = scoring;
        if (enabled() && !options_.restart) remove_spent_run();
        if (enabled() && file_exists(options_.path) && !options_.restart) {
            Checkpoint c;
            try {
                c = read_checkpoint(options_.path);
            } catch (const Error& e) {
                throw Error(std::string(e.what()) + "; it is left untouched (use --restart to discard it)");
            }
            if (const std::string why = checkpoint_mismatch(c, s0, s1, scoring); !why.empty())
                throw Error(options_.path + ": checkpoint does not match this run: " + why +
                            "; it is left untouched (use --restart to discard it)");
            resumed_ = std::move(c);
            note("resuming from " + options_.path + " at row " + std::to_string(resumed_.row) + " of " +
                 std::to_string(base_.m) + ", " + percent(resumed_.row, base_.m) + " done");
        } else if (enabled() && !options_.restart) {
            resume_from_pieces(s0, s1, scoring);
        }
    }

    ~Checkpointer() {
        if (writer_.valid()) writer_.wait();
    }

    bool enabled() const { return !options_.path.empty(); }
    int64_t first_row() const { return resumed_.row; }
    TopRow top() { return TopRow{std::move(resumed_.h), std::move(resumed_.f)}; }
    const AlignmentEnd& resumed_best() const { return resumed_.best; }
    int stop_signal() const { return options_.stop ? *options_.stop : 0; }

    /// Starts capturing band `band` when a checkpoint is due (or a stop was asked for).
    void maybe_start(int64_t band, const TileGrid& grid, Clock::time_point now) {
        if (!enabled() || band_.active()) return;
        if (band >= grid.bands - 1) {  // the last band has begun: finishing is as quick
            if (stop_signal() && !stop_noted_) {
                stop_noted_ = true;
                note("signal received in the last band: finishing the run instead of checkpointing");
            }
            return;
        }
        const bool due = std::chrono::duration<double>(now - last_).count() >= options_.every_seconds;
        if (!due && !stop_signal()) return;
        band_.start(band, base_.n);
    }

    /// After diagonal d was enqueued; true when the band's bottom row is complete.
    bool capture(TileExecutor& ex, int64_t d) { return band_.capture(ex, d); }

    /// Writes the completed row (in the background unless a stop is pending).
    void write(TileExecutor& ex, const AlignmentEnd& best, Clock::time_point now) {
        last_ = now;
        finish_pending_write();
        auto c = std::make_shared<Checkpoint>(base_);
        band_.take(ex, resumed_.row, *c);
        c->best = best;
        const std::string path = options_.path, keep = options_.keep_rows_dir;
        auto job = [c, path, keep] {
            write_checkpoint(path, *c);
            if (!keep.empty()) write_checkpoint(keep + "/row_" + std::to_string(c->row) + ".ckpt", *c);
            return c->row;
        };
        if (stop_signal()) {
            writer_ = std::async(std::launch::deferred, job);
            const int64_t row = finish_pending_write();
            throw Interrupted(stop_signal(), "interrupted by signal " + std::to_string(stop_signal()) +
                                                 "; checkpoint " + path + " holds row " + std::to_string(row) +
                                                 " of " + std::to_string(base_.m) +
                                                 ": run the same command again to resume");
        }
        writer_ = std::async(std::launch::async, job);
    }

    /// Waits for the background writer; reports (or, when strict, throws) its failure.
    /// Returns the row written, or 0.
    int64_t finish_pending_write() {
        if (!writer_.valid()) return 0;
        try {
            return writer_.get();
        } catch (const Error& e) {
            if (options_.strict || stop_signal()) throw;
            note(std::string("warning: ") + e.what() + "; the previous checkpoint is kept, the run goes on");
            return 0;
        }
    }

    /// The run is complete: its checkpoint is no longer needed.
    void finish() {
        if (!enabled()) return;
        finish_pending_write();
        if (file_exists(options_.path) && ::unlink(options_.path.c_str()) == 0)
            note("run complete; removed checkpoint " + options_.path);
        remove_pieces(options_.path, piece_ranks_);
    }

private:
    /// Files beside a completion marker are those of a finished column-slab run that was
    /// killed while its slabs removed them (its pieces, and a flat checkpoint it had resumed
    /// from): they are removed, with the marker.
    void remove_spent_run() {
        if (!file_exists(completion_marker(options_.path))) return;
        const std::string removed = remove_spent_files(options_.path, 0);
        ::unlink(completion_marker(options_.path).c_str());
        note(removed);
    }

    /// No checkpoint at PATH: a column-slab run may have left its pieces there. The later of
    /// their two rows that assembles into a whole row is resumed; pieces that cannot are
    /// refused, and left untouched.
    void resume_from_pieces(const Sequence& s0, const Sequence& s1, const Scoring& scoring) {
        const int q = other_rank_count(options_.path, 0);
        if (q == 0) return;
        LatestPieces latest = latest_pieces(options_.path, q, s0, s1, scoring);
        if (latest.whole.row == 0)
            throw Error((latest.problems.empty() ? options_.path + ": the pieces of " + std::to_string(q) +
                                                       " slabs hold no whole row"
                                                 : latest.problems.back()) +
                        "; the checkpoint pieces are left untouched (use --restart to discard them)");
        resumed_ = std::move(latest.whole);
        piece_ranks_ = q;
        note("resuming from the pieces of " + std::to_string(piece_ranks_) + " slabs at " + options_.path +
             " at row " + std::to_string(resumed_.row) + " of " + std::to_string(base_.m) + ", " +
             percent(resumed_.row, base_.m) + " done");
    }

    void note(const std::string& text) const {
        if (note_) note_(text);
    }

    CheckpointOptions options_;
    std::function<void(const std::string&)> note_;
    Checkpoint base_;      ///< identity of this comparison (lengths, fingerprints, scoring)
    Checkpoint resumed_;   ///< row 0 and no best when not resumed
    int piece_ranks_ = 0;  ///< resumed from the pieces of this many ranks (removed at the end), or 0
    BandCapture band_;
    bool stop_noted_ = false;
    Clock::time_point last_ = Clock::now();
    std::future<int64_t> writer_;
};

}  // namespace

AlignmentEnd run_tiled(const Sequence& s0, const Sequence& s1, const Scoring& scoring,
                       const ExecutorFactory& make_executor, const BackendOptions& options) {
    Checkpointer ck(s0, s1, scoring, options);
    const int64_t first_row = ck.first_row();
    const std::unique_ptr<TileExecutor> ex = make_executor(first_row, ck.top());
    const TileGrid& grid = ex->grid();
    // Max with a fixed tie rule is idempotent, so the checkpoint's best (which may come from
    // rows below its saved row) merges safely with cells this run computes again.
    auto best_so_far = [&] { return better_of(offset_end(ex->best(), first_row, 0), ck.resumed_best()); };

    const auto start = Clock::now();
    auto last_report = start;
    for (int64_t d = 0; d < grid.diagonals(); ++d) {
        ex->enqueue_diagonal(d);
        const auto now = Clock::now();
        ck.maybe_start(d, grid, now);
        if (ck.capture(*ex, d)) ck.write(*ex, best_so_far(), now);
        if (options.on_progress && (d + 1) % kDiagonalsPerBatch == 0) {
            ex->synchronize();
            if (now - last_report >= std::chrono::seconds(1)) {
                last_report = now;
                Progress p;
                p.cells_total = s0.length() * s1.length();
                p.cells_this_run = grid.cells_finished(d + 1);
                p.cells_done = first_row * s1.length() + p.cells_this_run;
                p.seconds = std::chrono::duration<double>(now - start).count();
                p.best_score = best_so_far().score;
                options.on_progress(p);
            }
        }
    }
    const AlignmentEnd best = best_so_far();
    ck.finish();
    return best;
}

}  // namespace chromalign
