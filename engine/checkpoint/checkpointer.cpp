//! @file Checkpointer: per-rank pieces of a checkpoint row, their agreement and their writer.
#include "engine/checkpoint/checkpointer.hpp"

#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <utility>

#include "engine/error.hpp"
#include "engine/checkpoint/pieces.hpp"

namespace chromalign {

Checkpointer::Checkpointer(const Sequence& s0, const Sequence& s1, const Sequence& slab, int64_t c0,
                           const Scoring& scoring, int rank, int ranks, const CheckpointOptions& options,
                           std::function<void(const std::string&)> note)
    : s0_(s0), s1_(s1), slab_(slab), options_(options), note_(std::move(note)), c0_(c0), rank_(rank), ranks_(ranks) {
    base_.m = s0.length();
    base_.n = slab.length();
    base_.scoring = scoring;
    if (enabled()) {  // only pieces carry them: a job's many comparisons without checkpoints hash nothing
        base_.fingerprint0 = sequence_fingerprint(s0);
        base_.fingerprint1 = sequence_fingerprint(slab);
    }
    if (enabled() && rank_ == 0 && !options_.lock_held) {
        lock_ = std::make_unique<CheckpointLock>(options_.path);
        // What stops the lock stops every checkpoint write too: found now rather than at the first.
        if (!lock_->problem().empty() && options_.strict) throw Error(lock_->problem());
        if (!lock_->problem().empty()) this->note("warning: " + lock_->problem() + "; nothing keeps another run off this checkpoint");
    }
    if (!enabled() || options_.restart) return;
    spent_ = file_exists(completion_marker(options_.path));
    if (spent_) return;  // what lies there is spent; resume() removes it
    other_ranks_ = other_rank_count(options_.path, ranks_);
}

Checkpointer::~Checkpointer() {
    if (writer_.valid()) writer_.wait();
}

std::string Checkpointer::piece(int slot) const { return piece_name(options_.path, rank_, ranks_, slot); }

std::string Checkpointer::progress_of(int64_t row) const {
    char percent[32];
    std::snprintf(percent, sizeof percent, "%.1f%%", 100.0 * static_cast<double>(row) / static_cast<double>(base_.m));
    return "row " + std::to_string(row) + " of " + std::to_string(base_.m) + ", " + percent + " done";
}

std::string Checkpointer::refusal() const {
    return (problems_.empty() ? options_.path + ": the checkpoint pieces share no row (pieces missing or damaged)"
                              : problems_.front()) +
           "; it is left untouched (use --restart to discard it)";
}

void Checkpointer::note(const std::string& text) const {
    if (note_) note_(text);
}

std::vector<int64_t> Checkpointer::offer() {
    std::vector<int64_t> offered{-1, -1, -1, 0, -1, -1};
    if (!enabled() || options_.restart || spent_) return offered;
    auto read = [&](const std::string& path, const Sequence& columns, int64_t* seq, int64_t& row) {
        if (!file_exists(path)) return;
        offered[3] = 1;
        try {
            Checkpoint c = read_checkpoint(path);
            if (seq && c.m == s0_.length() && c.n != columns.length())  // a piece of another cut
                problems_.push_back(path + ": its slab holds " + std::to_string(c.n) + " columns, this run's " +
                                    std::to_string(columns.length()) +
                                    " (slabs are cut by the GPU, --slabs, the version, and whether a bound pass "
                                    "with pruning starts them narrow: resume as the run that took it)");
            else if (const std::string why = checkpoint_mismatch(c, s0_, columns, base_.scoring); !why.empty())
                problems_.push_back(path + ": checkpoint does not match this run: " + why);
            else if (!seq && !c.steps.empty())  // a piece renamed: its columns lie at several rows
                problems_.push_back(path + ": a wavefront piece, not a flat row of all columns");
            else if (seq && c.seq > 0 && c.seq % 2 != (seq == &offered[0] ? 0 : 1))
                problems_.push_back(path + ": checkpoint number " + std::to_string(c.seq) + " lies in the wrong slot");
            else {
                if (seq) *seq = c.seq;
                row = c.row;
                // The later piece is kept for resume(), which would otherwise read it again
                // (250 MB a slab at 250M); the other is read again if the agreement takes it.
                if (seq && (!kept_ || std::make_pair(c.seq, c.row) > std::make_pair(kept_->seq, kept_->row)))
                    kept_ = std::move(c);
            }
        } catch (const Error& e) {
            problems_.push_back(e.what());
        }
    };
    read(piece(0), slab_, &offered[0], offered[4]);
    read(piece(1), slab_, &offered[1], offered[5]);
    read(options_.path, s1_, nullptr, offered[2]);
    // Pieces of another rank count: the later of their two checkpoints, as a flat row of all
    // columns, at the highest of their rows (levelled up to there when they differ). Kept for
    // resume(), which would otherwise read and check every piece again.
    if (other_ranks_ > 0) {
        LatestPieces latest = latest_pieces(options_.path, other_ranks_, s0_, s1_, base_.scoring);
        if (latest.any) offered[3] = 1;
        problems_.insert(problems_.end(), latest.problems.begin(), latest.problems.end());
        int64_t top = 0;
        bool flat = true;
        for (const Checkpoint& p : latest.pieces) {
            top = std::max(top, p.row);
            flat = flat && p.row == latest.pieces.front().row && p.steps.empty();
        }
        if (!latest.pieces.empty() && !flat && !leveller_)
            problems_.push_back(options_.path + ": the pieces of " + std::to_string(other_ranks_) +
                                " slabs lie at different rows; resume with " + std::to_string(other_ranks_) + " slabs");
        else if (!latest.pieces.empty() && top > offered[2]) {
            offered[2] = top;
            if (flat)
                other_ = join_pieces(latest.pieces, s1_);
            else
                other_pieces_ = std::move(latest.pieces);
        }
    }
    return offered;
}

void Checkpointer::warn_unused() const {
    for (const std::string& why : problems_) note("warning: " + why + "; not used");
}

void Checkpointer::resume(int64_t seq, int64_t row) {
    if (spent_) {  // a finished run was killed while its ranks removed their files
        for (int slot = 0; slot < 2; ++slot) ::unlink(piece(slot).c_str());
        if (rank_ == 0) note(remove_spent_files(options_.path, ranks_));
    }
    std::optional<Checkpoint> kept = std::move(kept_);
    kept_.reset();
    if (seq > 0) {  // this rank's own piece of checkpoint seq, at its own row
        Checkpoint c = kept && kept->seq == seq ? std::move(*kept) : read_checkpoint(piece(static_cast<int>(seq % 2)));
        kept.reset();
        if (c.seq != seq || c.n != base_.n || c.fingerprint1 != base_.fingerprint1)
            throw Error(piece(static_cast<int>(seq % 2)) + ": changed while the run resumed from it");
        // This slab's state until it writes a piece: what it gives again should it end first
        // (slab_run.cpp's serve; a single slab never does).
        if (ranks_ > 1) last_piece_ = std::make_shared<Checkpoint>(c);
        first_row_ = c.low_row();
        left_row_ = c.row;
        cells_above_ = c.row * (c.steps.empty() ? c.n : c.steps.front().col);
        for (size_t k = 0; k < c.steps.size(); ++k)
            cells_above_ += c.steps[k].row * ((k + 1 < c.steps.size() ? c.steps[k + 1].col : c.n) - c.steps[k].col);
        steps_ = std::move(c.steps);
        take_best(c.best, piece(static_cast<int>(seq % 2)));
        if (c.row > 0) {  // a piece at row 0 (a slab that had begun no band) is a fresh start
            top_h_ = std::move(c.h);
            top_f_ = std::move(c.f);
        }
        has_left_ = true;
        left_corner_ = c.left_corner;
        left_h_ = std::move(c.left_h);
        left_e_ = std::move(c.left_e);
        next_seq_ = seq + 1;
        if (rank_ == 0)
            note("resuming from " + options_.path + " (" + std::to_string(ranks_) + (ranks_ == 1 ? " slab" : " slabs") +
                 ", checkpoint " + std::to_string(seq) + ") at " + progress_of(c.row) +
                 (ranks_ > 1 ? " in the first slab" : ""));
        return;
    }
    if (row <= 0) return;
    for (int slot = 0; slot < 2; ++slot) {
        if (!file_exists(piece(slot))) continue;
        Checkpoint c = read_checkpoint(piece(slot));
        if (c.seq != 0 || c.row != row || c.n != base_.n || c.fingerprint1 != base_.fingerprint1) continue;
        first_row_ = left_row_ = row;
        cells_above_ = row * base_.n;
        take_best(c.best, piece(slot));
        top_h_ = std::move(c.h);
        top_f_ = std::move(c.f);
        next_seq_ = slot + 1;  // the next checkpoint goes to the other slot
        if (rank_ == 0)
            note("resuming from " + options_.path + " (" + std::to_string(ranks_) + (ranks_ == 1 ? " slab" : " slabs") +
                 ") at " + progress_of(row));
        return;
    }
    // A flat row of all columns offered this row: pieces of another rank count, or a
    // flat file at PATH.
    if (!other_pieces_.empty()) {
        other_ = leveller_(other_pieces_);
        std::vector<Checkpoint>().swap(other_pieces_);
    }
    const bool from_pieces = other_.row > 0;
    Checkpoint c = from_pieces ? std::move(other_) : read_checkpoint(options_.path);
    other_ = Checkpoint{};
    first_row_ = left_row_ = row;
    cells_above_ = row * base_.n;
    take_best(c.best, from_pieces ? options_.path + ".slab*" : options_.path);
    top_h_.assign(c.h.begin() + c0_, c.h.begin() + c0_ + base_.n);
    top_f_.assign(c.f.begin() + c0_, c.f.begin() + c0_ + base_.n);
    if (rank_ == 0)
        note("resuming from " + (from_pieces ? "the pieces of " + std::to_string(other_ranks_) + " slabs at " : "the flat checkpoint ") +
             options_.path + " at " + progress_of(row));
}

TopRow Checkpointer::top(int64_t rows_per_band) {
    TopRow t;
    t.h = top_h_;  // a copy: a slab that begins no band before the next checkpoint writes it again
    t.f = top_f_;
    if (steps_.empty()) return t;
    const auto bands = [&](int64_t row) {
        if ((row - first_row_) % rows_per_band != 0)
            throw WavefrontMismatch("its steps lie at rows " + std::to_string(row) + " and " +
                                    std::to_string(first_row_) + ", not whole bands of " +
                                    std::to_string(rows_per_band) + " rows apart");
        return (row - first_row_) / rows_per_band;
    };
    t.first_band = bands(left_row_);
    t.steps = steps_;
    for (StairStep& step : t.steps) step.row = bands(step.row) * rows_per_band;
    return t;
}

void Checkpointer::level_wavefront() {
    Checkpoint piece = base_;
    piece.row = left_row_;
    piece.best = best_;
    piece.h = std::move(top_h_);
    piece.f = std::move(top_f_);
    piece.steps = std::move(steps_);
    steps_.clear();
    note("levelling the wavefront checkpoint " + options_.path + " to row " + std::to_string(piece.row) +
         ": this backend or grid starts from a row");
    Checkpoint flat = leveller_({std::move(piece)});
    first_row_ = left_row_ = flat.row;
    cells_above_ = flat.row * base_.n;
    take_best(flat.best, options_.path);
    top_h_ = std::move(flat.h);
    top_f_ = std::move(flat.f);
}

void Checkpointer::take_best(const AlignmentEnd& best, const std::string& source) {
    if (best.score > 0 && best.s1_end > s1_.length())
        throw Error(source + ": checkpoint cannot be right (its best cell lies outside the matrix)");
    best_ = best;
}

bool Checkpointer::left_edge(int32_t& corner, std::vector<int32_t>& h, std::vector<int32_t>& e) {
    if (!has_left_) return false;
    corner = left_corner_;
    h = std::move(left_h_);
    e = std::move(left_e_);
    return true;
}

void Checkpointer::forget_top() {
    top_forgotten_ = true;
    std::vector<int32_t>().swap(top_h_);
    std::vector<int32_t>().swap(top_f_);
    std::vector<StairStep>().swap(steps_);
}

void Checkpointer::rebase(int64_t row) {
    if (capturing()) throw Error("internal: a slab changed grids while a checkpoint was being taken");
    forget_top();
    first_row_ = left_row_ = row;
}

void Checkpointer::begin(int64_t seq, bool stop) {
    stop_ = stop;
    seq_ = seq;
    next_seq_ = seq + 1;
}

void Checkpointer::start(int64_t band, int64_t seq, bool stop) {
    begin(seq, stop);
    band_.start(band, base_.n);
}

void Checkpointer::start_top(int64_t seq, bool stop) {
    if (first_row_ > 0 && top_h_.empty()) throw Error("internal: a checkpoint took a top row already forgotten");
    // A copy, now: the slab may begin a band, and forget its top row, before the piece is
    // written; and one that begins none before the next checkpoint writes it again.
    Checkpoint top;
    top.row = left_row_;
    top.h = top_h_.empty() ? std::vector<int32_t>(static_cast<size_t>(base_.n), 0) : top_h_;
    top.f = top_f_.empty() ? std::vector<int32_t>(static_cast<size_t>(base_.n), kScoreNegInf) : top_f_;
    top.steps = steps_;
    start_row(std::move(top), seq, stop);
}

void Checkpointer::start_row(Checkpoint row, int64_t seq, bool stop) {
    begin(seq, stop);
    wave_ = std::move(row);
    wave_capture_ = true;
}

void Checkpointer::reissue(int64_t seq, bool stop) {
    if (!last_piece_) throw Error("internal: a slab was asked to give again a piece it never wrote");
    begin(seq, stop);
    reissue_ = true;
}

void Checkpointer::adopt(BandCapture band, int64_t seq, bool stop) {
    begin(seq, stop);
    band_ = std::move(band);
}

bool Checkpointer::start_wavefront(TileExecutor& ex, int64_t seq, bool stop) {
    wave_ = Checkpoint{};
    const int64_t rows = ex.take_wavefront(wave_.h, wave_.f, wave_.steps, stop);
    // Before diagonal 0 of a fresh run the wavefront is row 0, which holds nothing to resume
    // from: the caller takes band 0's bottom row instead (R n cells).
    if (rows < 0 || (rows == 0 && first_row_ == 0)) return false;
    begin(seq, stop);
    wave_capture_ = true;
    wave_.row = first_row_ + rows;
    bool level = true;
    for (StairStep& step : wave_.steps) {
        step.row += first_row_;
        level = level && step.row == wave_.row;
    }
    if (level) wave_.steps.clear();  // one row, which any backend resumes from
    return true;
}

bool Checkpointer::write(TileExecutor& ex, const AlignmentEnd& best, int32_t left_corner, std::vector<int32_t> left_h,
                         std::vector<int32_t> left_e) {
    last_ = std::chrono::steady_clock::now();
    if (writer_.valid()) writer_.wait();  // one write at a time; its result is polled by the caller
    if (reissue_) {
        reissue_ = false;
        auto again = std::make_shared<Checkpoint>(*last_piece_);
        again->seq = seq_;
        return write_piece(std::move(again));
    }
    auto c = std::make_shared<Checkpoint>(base_);
    if (wave_capture_) {
        wave_capture_ = false;
        c->row = wave_.row;
        c->h = std::move(wave_.h);
        c->f = std::move(wave_.f);
        c->steps = std::move(wave_.steps);
    } else {
        band_.take(ex, first_row_, *c);
    }
    c->best = best;
    c->seq = seq_;
    c->left_corner = left_corner;
    c->left_h = std::move(left_h);
    c->left_e = std::move(left_e);
    return write_piece(std::move(c));
}

bool Checkpointer::write_piece(std::shared_ptr<Checkpoint> c) {
    if (!stop_ && ranks_ > 1) last_piece_ = c;
    const std::string path = piece(static_cast<int>(seq_ % 2)), keep = options_.keep_rows_dir;
    const int64_t seq = seq_;
    const std::string keep_name = keep + "/row_" + std::to_string(c->row) + slab_suffix(rank_, ranks_) + ".ckpt";
    auto job = [c, path, keep, keep_name, seq] {
        write_checkpoint(path, *c);
        if (!keep.empty()) write_checkpoint(keep_name, *c);
        return seq;
    };
    writer_ = std::async(stop_ ? std::launch::deferred : std::launch::async, job);
    return stop_;
}

int64_t Checkpointer::poll_written() {
    if (!writer_.valid()) return 0;
    if (writer_.wait_for(std::chrono::seconds(0)) == std::future_status::deferred) {
        writer_.wait();  // a stop checkpoint: written now, in the caller's thread
    } else if (writer_.wait_for(std::chrono::seconds(0)) != std::future_status::ready) {
        return 0;
    }
    const int64_t seq = seq_;
    try {
        return writer_.get();
    } catch (const Error& e) {
        if (options_.strict) throw;
        // A piece lands whole or not at all, so the previous checkpoint stands. A stop still
        // stops, with 128 + its signal: a failed save (a full disk) is not a failed run.
        note(std::string("warning: ") + e.what() +
             (stop_ ? "; the stop's checkpoint is lost, the previous one is kept"
                    : "; the previous checkpoint is kept, the run goes on"));
        return seq;
    }
}

void Checkpointer::acknowledged(int64_t seq) {
    if (seq != acked_seq_) {
        acked_seq_ = seq;
        acks_ = 0;
    }
    ++acks_;
}

bool Checkpointer::due(bool stop) const {
    if (!enabled() || !settled()) return false;
    return stop || std::chrono::duration<double>(std::chrono::steady_clock::now() - last_).count() >= options_.every_seconds;
}

void Checkpointer::remove_completion_marker() {
    if (rank_ == 0 && enabled()) ::unlink(completion_marker(options_.path).c_str());
}

bool Checkpointer::mark_complete() {
    if (!enabled()) return false;
    if (writer_.valid()) writer_.wait();
    if (rank_ != 0) return true;
    try {
        write_completion_marker(options_.path);
        return true;
    } catch (const Error& e) {
        note(std::string("warning: ") + e.what() + "; the checkpoint pieces are kept");
        return false;
    }
}

void Checkpointer::finish() {
    if (!enabled()) return;
    bool removed = false;
    for (int slot = 0; slot < 2; ++slot)
        if (file_exists(piece(slot)) && ::unlink(piece(slot).c_str()) == 0) removed = true;
    // The flat row and the pieces of every other rank count are spent too, whatever this run
    // resumed from: a flat row older than the pieces it finished from made the next identical
    // command start over from it.
    if (rank_ == 0) {
        removed = removed || file_exists(options_.path);
        remove_spent_files(options_.path, ranks_);
    }
    if (removed && rank_ == 0) note("run complete; removed the checkpoint pieces " + options_.path + ".slab*");
}

}  // namespace chromalign
