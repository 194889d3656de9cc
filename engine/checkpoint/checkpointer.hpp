//! @file The checkpointer of every run (one slab or many): a piece per slab of one flat row, two generations.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <future>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "engine/backend/backend.hpp"
#include "engine/checkpoint/band_capture.hpp"
#include "engine/checkpoint/checkpoint_file.hpp"
#include "engine/checkpoint/lock.hpp"
#include "engine/tiling/tile_executor.hpp"

namespace chromalign {

/// Rank k of P keeps its columns of checkpoint number q in PATH.slab<k>of<P>.<q % 2> (a plain
/// run is rank 0 of 1), in the format of checkpoint_file.hpp with the slab as S1 (so lengths,
/// fingerprints and CRC protect it). Each slab checkpoints its own state once it hears of
/// checkpoint q: its wavefront (cpu), else the latest row it has complete (standing_rows.hpp),
/// or its top row when it has begun no band: a staircase, ready at once on every slab, where
/// one row common to all would wait for the last slab to get there (the whole pipeline's
/// depth: 90 s at 250M on one GPU). A slab below its left neighbour's row keeps the rows of
/// its left edge in between. Rank 0 starts checkpoint q + 1 only once every rank has
/// acknowledged q, so whatever moment a job dies, every rank holds its piece of one
/// checkpoint; a resume takes the latest such. A flat row of all columns also resumes a run,
/// each rank taking its columns: a flat file at PATH itself (what release 0.1.0 wrote for a
/// single-slab run), or pieces at one row that a run with another number of ranks left (each
/// checked against its columns of S1).
class Checkpointer {
public:
    /// `slab` holds the slab's columns of S1, which start at column c0 (0-based) of S1. The
    /// sequences must outlive the checkpointer. Rank 0 holds the checkpoint's lock for the
    /// checkpointer's life: throws Error when another run holds it.
    Checkpointer(const Sequence& s0, const Sequence& s1, const Sequence& slab, int64_t c0,
                 const Scoring& scoring, int rank, int ranks, const CheckpointOptions& options,
                 std::function<void(const std::string&)> note);
    ~Checkpointer();

    bool enabled() const { return !options_.path.empty(); }

    /// Makes pieces that another rank count left at different rows into one flat row at the
    /// highest of them (engine/orchestration/level_pieces.hpp). Without one, such pieces are
    /// not offered. Set before offer().
    using Leveller = std::function<Checkpoint(const std::vector<Checkpoint>& pieces)>;
    void set_leveller(Leveller leveller) { leveller_ = std::move(leveller); }

    /// What this rank can resume from, for the agreement: {seq of piece 0, seq of piece 1,
    /// row of a flat row of all columns (a flat file at PATH, or another rank count's
    /// pieces), whether any of those files exists, row of piece 0, row of piece 1}; -1
    /// where none (or when --restart). A piece of an older format has seq 0 and resumes by
    /// its row, which every rank's piece of it shares.
    std::vector<int64_t> offer();
    /// Why a checkpoint file that exists could not be offered, for the error when no rank
    /// has a row to offer.
    std::string refusal() const;
    /// Warns of the files offer() found but could not use, once the run goes on without them:
    /// a refused run says why in its one line of error (refusal()), and nothing more.
    void warn_unused() const;
    /// Loads this rank's piece of checkpoint `seq` when seq > 0, else the state at `row` (0: a
    /// fresh start), one of the rows offered by every rank.
    void resume(int64_t seq, int64_t row);

    /// The row the executor starts below: the piece's lowest (Checkpoint::low_row).
    int64_t first_row() const { return first_row_; }
    /// The row the slab's first columns start below, from which its left edge is needed: the
    /// piece's row, above first_row() for a wavefront piece.
    int64_t left_row() const { return left_row_; }
    /// Cells of the slab above where it resumes (all of its columns down to their rows).
    int64_t cells_above() const { return cells_above_; }
    /// Whether the slab resumes from a wavefront (a piece with steps).
    bool wavefront() const { return !steps_.empty(); }
    /// The slab's columns of row first_row (corner not set; empty at row 0), or the wavefront
    /// to start from, for bands of `rows_per_band` rows (WavefrontMismatch when its steps are
    /// not whole bands apart).
    TopRow top(int64_t rows_per_band);
    /// A single slab that cannot start from its wavefront (another backend or grid) levels it
    /// to one row first (the Leveller, on its steps): first_row() and top() are that row's.
    void level_wavefront();
    /// After resume(seq > 0): H(first_row, c0 - 1), and the rows of the left edge the piece
    /// kept (first_row + 1 on); false after any other resume (every rank is at one row then).
    bool left_edge(int32_t& corner, std::vector<int32_t>& h, std::vector<int32_t>& e);
    const AlignmentEnd& resumed_best() const { return best_; }
    /// The number the next checkpoint gets (its piece goes to slot seq % 2).
    int64_t next_seq() const { return next_seq_; }

    /// Starts capturing `band` as checkpoint `seq` (the band's bottom is row first_row + (band+1)R).
    void start(int64_t band, int64_t seq, bool stop);
    /// Takes the slab's top row (the row or wavefront it resumed from, or row 0; holds_top()
    /// must hold) as checkpoint `seq`: ready at once, copied now.
    void start_top(int64_t seq, bool stop);
    /// Takes `row` (rows of the whole matrix), complete already, as checkpoint `seq`: ready at
    /// once (StandingRows' latest row).
    void start_row(Checkpoint row, int64_t seq, bool stop);
    /// Takes over `band`, a capture of the executor's grid begun earlier, as checkpoint `seq`
    /// (as start() would have begun it; StandingRows' capture in flight).
    void adopt(BandCapture band, int64_t seq, bool stop);
    /// Takes the executor's wavefront (TileExecutor::take_wavefront) as checkpoint `seq`:
    /// ready at once. False where the executor takes none, or where it is row 0 of a fresh
    /// run (start() then).
    bool start_wavefront(TileExecutor& ex, int64_t seq, bool stop);
    /// Takes this slab's last piece again as checkpoint `seq` (has_piece() must hold): ready at
    /// once. For a slab that has run its last diagonal (slab_run.cpp's serve), whose state it
    /// still is: its left neighbour, which finished first, gives its own last piece again, so
    /// the edge rows the piece kept still fit.
    void reissue(int64_t seq, bool stop);
    /// Whether this slab has a piece to give again (reissue): the latest it wrote that carried
    /// no stop, or the one it resumed from; kept only where there are several slabs.
    bool has_piece() const { return last_piece_ != nullptr; }
    /// Whether the piece being taken is a reissue; then the edge rows it keeps are its own.
    bool reissuing() const { return reissue_; }
    /// With reissuing(): the row down to which the piece keeps its left edge (its row if none).
    int64_t reissued_left_end() const { return last_piece_->row + static_cast<int64_t>(last_piece_->left_h.size()); }
    /// The rows of the piece being taken: its highest (that of its first columns) and lowest.
    int64_t capture_row() const { return reissue_ ? last_piece_->row : wave_.row; }
    int64_t capture_low_row() const { return reissue_ ? last_piece_->low_row() : wave_.low_row(); }
    bool capturing() const { return band_.active() || wave_capture_ || reissue_; }
    int64_t capturing_seq() const { return seq_; }
    /// After diagonal d was enqueued; true when the band's bottom row is complete.
    bool capture(TileExecutor& ex, int64_t d) { return band_.capture(ex, d); }
    /// Once the captured row is complete: writes it with `best` (global coordinates) and the
    /// left edge rows it needs (H(row, c0 - 1) and rows row+1 on) in the background, or at
    /// once when the checkpoint carries the stop request (a reissue: the piece as it was,
    /// with its own best cell and edge rows). Returns whether it did carry the stop.
    bool write(TileExecutor& ex, const AlignmentEnd& best, int32_t left_corner, std::vector<int32_t> left_h,
               std::vector<int32_t> left_e);
    /// Drops the copy of the top row kept for start_top (once the slab has begun a band, or
    /// has a complete standing row).
    void forget_top();
    /// Whether start_top may still take the top row: not forgotten (row 0 is kept as empty).
    bool holds_top() const { return !top_forgotten_ && (first_row_ == 0 || !top_h_.empty()); }
    /// The slab changed grids below `row` (slab_run.cpp's change_grid): the bands and
    /// wavefronts of later checkpoints count from there. Never while capturing.
    void rebase(int64_t row);
    /// A finished background write: its seq (> 0), else 0. Failures warn (or throw when strict).
    int64_t poll_written();
    /// Rank 0: an acknowledgement of `seq` arrived (its own included).
    void acknowledged(int64_t seq);
    /// Rank 0: whether a new checkpoint may start now: the previous one is on every rank, and
    /// the interval has elapsed or a stop was asked for.
    bool due(bool stop) const;
    /// Rank 0: no checkpoint is being taken, and the latest, if any, is on every rank.
    bool settled() const { return !capturing() && (seq_ == 0 || (acked_seq_ == seq_ && acks_ == ranks_)); }
    /// Rank 0 removes the completion marker: once every rank has resumed (the leftovers of a
    /// finished earlier run are gone then), and once every rank has finished.
    void remove_completion_marker();
    /// The run is complete on every rank. Rank 0 writes the completion marker and says whether
    /// it could (a failure warns: the pieces are then kept, and a rerun resumes from them).
    bool mark_complete();
    /// After the marker is written, on every rank: removes this rank's pieces.
    void finish();

private:
    /// Takes a resumed best cell, refused (an Error naming `source`) where it lies beyond S1:
    /// a piece holds its slab's width, not the matrix's.
    void take_best(const AlignmentEnd& best, const std::string& source);
    std::string piece(int slot) const;
    void begin(int64_t seq, bool stop);  ///< what start() and start_top() share
    bool write_piece(std::shared_ptr<Checkpoint> c);  ///< write()'s end: `c` goes to disk
    void note(const std::string& text) const;
    std::string progress_of(int64_t row) const;  ///< "row r of m, p% done"

    const Sequence& s0_;
    const Sequence& s1_;
    const Sequence& slab_;
    CheckpointOptions options_;
    std::function<void(const std::string&)> note_;
    Checkpoint base_;    ///< identity of this rank's piece (slab as S1)
    int64_t c0_ = 0;
    int rank_ = 0, ranks_ = 1;
    int64_t first_row_ = 0;
    int64_t left_row_ = 0;
    int64_t cells_above_ = 0;
    std::vector<StairStep> steps_;  ///< of the wavefront resumed from (rows of the whole matrix), until forget_top()
    bool spent_ = false;          ///< a completion marker lies there: the files are a finished run's
    int other_ranks_ = 0;         ///< another rank count that left pieces here, or 0
    Checkpoint other_;            ///< the whole row its pieces make, when offer() chose it (else row 0)
    std::vector<Checkpoint> other_pieces_;  ///< or its pieces, to level in resume()
    std::optional<Checkpoint> kept_;        ///< this rank's later piece, as offer() read it
    Leveller leveller_;
    AlignmentEnd best_;
    std::vector<std::string> problems_;  ///< files offer() found but could not use, and why
    std::vector<int32_t> top_h_, top_f_;  ///< row first_row, until forget_top()
    bool top_forgotten_ = false;          ///< forget_top() was called (row 0 then too)
    bool has_left_ = false;               ///< resumed from a piece with its left edge
    int32_t left_corner_ = 0;
    std::vector<int32_t> left_h_, left_e_;
    bool wave_capture_ = false;
    bool reissue_ = false;                         ///< the piece being taken is last_piece_ again
    std::shared_ptr<const Checkpoint> last_piece_;  ///< has_piece()'s, kept whole (8 bytes a column and its edge rows)
    Checkpoint wave_;  ///< the state taken whole (a wavefront, a complete row, the top row), until write()
    int64_t next_seq_ = 1;
    int64_t acked_seq_ = 0, acks_ = 0;  ///< rank 0: acknowledgements of the latest seq
    BandCapture band_;
    bool stop_ = false;
    int64_t seq_ = 0;
    std::chrono::steady_clock::time_point last_ = std::chrono::steady_clock::now();
    std::future<int64_t> writer_;
    std::unique_ptr<CheckpointLock> lock_;  ///< rank 0, with checkpoints on
};

}  // namespace chromalign
