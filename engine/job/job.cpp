//! @file run_job: the comparisons one after another, their shared floor, the job's state and
//! progress, and each pair's traceback.
#include "engine/job/job.hpp"

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <memory>

#include "engine/error.hpp"
#include "engine/job/job_files.hpp"
#include "engine/job/job_state.hpp"
#include "engine/job/stage1_record.hpp"
#include "engine/job/traceback_journal.hpp"
#include "engine/orchestration/slab_run.hpp"
#include "engine/traceback/engine_sweeper.hpp"
#include "engine/traceback/special_rows.hpp"

namespace chromalign {
namespace {

using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point t) { return std::chrono::duration<double>(Clock::now() - t).count(); }

/// A comparison's special rows, once its pair is traced back (JobOptions::drop_traced_rows);
/// its stage 1 record stays, and the directory goes with the job's.
void remove_special_rows(const std::string& dir) {
    std::error_code ec;
    for (const auto& entry : std::filesystem::directory_iterator(dir, ec)) {
        const std::string name = entry.path().filename().string();
        if (entry.is_regular_file(ec) && name.find(".srow") != std::string::npos) std::filesystem::remove(entry.path(), ec);
    }
}

/// The job's progress: each comparison's Progress widened to the whole job, and a report after
/// each comparison (short ones send none of their own).
class JobProgress {
public:
    JobProgress(const JobSpec& spec, const JobOptions& options) : options_(options), total_(spec.cells()) {}

    /// Comparison `index` of `cells` cells starts.
    void begin(int64_t index, int64_t cells) {
        index_ = index;
        current_ = cells;
    }
    /// It ended: `resumed` of its cells came from a checkpoint or an earlier run's record.
    void end(int64_t cells_pruned, int64_t resumed) {
        done_ += current_;
        this_run_ += current_ - resumed;
        pruned_ += cells_pruned;
        current_ = 0;
        if (seconds_since(last_) >= 1) report(Progress{});
    }

    /// The comparison's own progress, as the whole job's.
    void report(const Progress& p) {
        if (!options_.on_progress) return;
        last_ = Clock::now();
        Progress q = p;
        q.cells_total = total_;
        q.cells_done = done_ + p.cells_done;
        q.cells_this_run = this_run_ + p.cells_this_run;
        q.cells_pruned = pruned_ + p.cells_pruned;
        const int64_t after = total_ - done_ - current_;
        q.cells_left = p.cells_left + after;
        q.cells_left_live = p.cells_left_live + after;  // later comparisons counted whole
        q.seconds = seconds_since(start_);
        q.best_score = p.best_score;
        options_.on_progress(q, index_);
    }

private:
    const JobOptions& options_;
    int64_t total_ = 0, done_ = 0, this_run_ = 0, pruned_ = 0, current_ = 0, index_ = 0;
    Clock::time_point start_ = Clock::now(), last_ = Clock::now();
};

/// One job's run: the state, the progress, and each pair in turn.
class JobRun {
public:
    JobRun(const JobSpec& spec, const JobOptions& options, Backend& backend, const Stage1Runner& stage1)
        : spec_(spec), options_(options), backend_(backend), stage1_(stage1), progress_(spec, options) {
        const CheckpointOptions& ck = options.backend.checkpoint;
        if (!ck.path.empty())
            state_ = std::make_unique<JobState>(job_state_path(ck.path), job_fingerprint(spec), spec, ck.restart,
                                                options.writer, ck.strict, options.on_note);
    }

    JobResult run() {
        JobResult result;
        for (size_t k = 0; k < spec_.pairs.size(); ++k) {
            PairAnswer answer;
            try {
                answer = run_pair(k);
            } catch (...) {
                save_state();  // what finished before a stop or a failure stays finished
                throw;
            }
            result.cells += answer.cells;
            result.cells_pruned += answer.cells_pruned;
            result.cells_resumed += answer.cells_resumed;
            result.seconds += answer.seconds;
            result.traceback_seconds += answer.traceback_seconds;
            result.answers.push_back(std::move(answer));
        }
        if (state_) state_->finish();
        std::stable_sort(result.answers.begin(), result.answers.end(),
                         [](const PairAnswer& a, const PairAnswer& b) { return a.best.score > b.best.score; });
        return result;
    }

private:
    /// A pair's strands, then its traceback.
    PairAnswer run_pair(size_t k) {
        const RecordPair& p = spec_.pairs[k];
        const Sequence& s0 = spec_.s0[p.s0];
        const Sequence& forward = spec_.s1[p.s1];
        std::unique_ptr<Sequence> reverse;  // made once, if a strand needs it
        const auto compared = [&](Strand strand) -> const Sequence& {
            if (strand == Strand::kForward) return forward;
            if (!reverse) reverse = std::make_unique<Sequence>(reverse_complement(forward));
            return *reverse;
        };
        PairAnswer answer;
        answer.pair = k;
        int32_t floor = 0;
        bool first = true;
        for (const Strand strand : spec_.strands) {
            stop_if_asked();
            const Sequence& s1 = compared(strand);
            const auto start = Clock::now();
            progress_.begin(comparison_index(k, strand), s0.length() * s1.length());
            const Stage1Outcome outcome = stage1_of(k, strand, s0, s1, floor);
            progress_.end(outcome.cells_pruned, outcome.cells_resumed);
            answer.seconds += seconds_since(start);
            answer.cells += s0.length() * s1.length();
            answer.cells_pruned += outcome.cells_pruned;
            answer.cells_resumed += outcome.cells_resumed;
            // Forward comes first, and a later strand wins only with a higher score.
            if (first || outcome.best.score > answer.best.score) {
                answer.strand = strand;
                answer.best = outcome.best;
            }
            first = false;
            floor = std::max(floor, outcome.best.score);
        }
        if (options_.traceback && options_.writer && answer.best.score > 0 && answer.best.score >= options_.min_score)
            trace_back(answer, s0, compared(answer.strand));
        if (options_.drop_traced_rows && !options_.rows_dir.empty() && options_.writer) {
            if (state_) state_->save();  // the alignment is saved before the rows it came from go
            for (const Strand strand : spec_.strands) remove_special_rows(comparison_rows_dir(options_.rows_dir, k, strand));
        }
        return answer;
    }

    int64_t comparison_index(size_t k, Strand strand) const {
        const auto at = std::find(spec_.strands.begin(), spec_.strands.end(), strand) - spec_.strands.begin();
        return static_cast<int64_t>(k * spec_.strands.size()) + at;
    }

    /// Stage 1 of one comparison: from the job's state, from its record in a kept rows
    /// directory, or run now.
    Stage1Outcome stage1_of(size_t k, Strand strand, const Sequence& s0, const Sequence& s1, int32_t floor) {
        const int64_t cells = s0.length() * s1.length();
        if (state_)
            if (const auto done = state_->done(k, strand); done && done->floor == floor)
                return Stage1Outcome{done->best, done->cells_pruned, cells};
        BackendOptions run = options_.backend;
        run.prune_floor = floor;
        if (!run.checkpoint.path.empty()) run.checkpoint.path = comparison_checkpoint(run.checkpoint.path, k, strand);
        run.on_progress = [this](const Progress& p) { progress_.report(p); };
        std::string dir;
        RowsIdentity identity;
        if (!options_.rows_dir.empty()) {
            dir = comparison_rows_dir(options_.rows_dir, k, strand);
            identity = rows_identity(s0, s1);
        }
        if (!dir.empty() && options_.rows_kept) {
            const std::optional<Stage1Record> record = read_stage1_record(dir);
            if (record && same_comparison(*record, identity, spec_.scoring, strand, floor)) {
                note("stage 1's result from " + stage1_record_path(dir) + " (" + describe(k, strand) + ")");
                return Stage1Outcome{record->result, 0, cells};
            }
            if (options_.traceback_only)
                throw Error(stage1_record_path(dir) + (record ? " is of another comparison than " : " is missing for ") +
                            describe(k, strand) + " (run stage 1 with --traceback-dir first)");
            if (record) note(stage1_record_path(dir) + " is of another comparison: running stage 1");
        }
        if (!dir.empty()) {
            std::error_code ec;
            std::filesystem::create_directories(dir, ec);
            if (!std::filesystem::is_directory(dir)) throw Error("cannot make directory '" + dir + "' for special rows");
            run.special_rows.dir = dir;
        } else {
            run.special_rows.dir.clear();
        }
        const Stage1Outcome outcome = stage1_(s0, s1, spec_.scoring, run);
        if (options_.rows_kept && options_.writer) {
            const RecordPair& p = spec_.pairs[k];
            write_stage1_record(dir, Stage1Record{options_.s0_path, selector_of(spec_.s0[p.s0]), options_.s1_path,
                                                  selector_of(spec_.s1[p.s1]), identity, spec_.scoring, outcome.best,
                                                  strand, floor});
        }
        if (state_) state_->add(DoneComparison{k, strand, outcome.best, floor, outcome.cells_pruned}, every());
        return outcome;
    }

    /// The alignment of a pair's best strand: from the job's state, or traced back now from
    /// the special rows stage 1 kept (row 0 alone without them).
    void trace_back(PairAnswer& answer, const Sequence& s0, const Sequence& s1) {
        const auto start = Clock::now();
        if (state_) {
            if (std::optional<Alignment> saved = state_->traced(answer.pair)) {
                if (saved->score != answer.best.score || saved->s0_end != answer.best.s0_end ||
                    saved->s1_end != answer.best.s1_end || rescore(*saved, s0, s1, spec_.scoring) != answer.best.score)
                    throw Error(job_state_path(options_.backend.checkpoint.path) + ": the alignment of " +
                                describe(answer.pair, answer.strand) +
                                " does not score its answer; it is left untouched (use --restart to discard it)");
                answer.alignment = std::move(saved);
                return;
            }
        }
        std::unique_ptr<RowSource> rows = std::make_unique<FirstRowOnly>();
        std::string dir;
        RowsIdentity identity = rows_identity(s0, s1);
        if (!options_.rows_dir.empty()) {
            dir = comparison_rows_dir(options_.rows_dir, answer.pair, answer.strand);
            auto special = std::make_unique<SpecialRows>(dir, identity, spec_.scoring);
            answer.special_rows = special->count();
            if (options_.score_maps) answer.score_map = special->region_peaks();
            rows = std::move(special);
        }
        note(describe(answer.pair, answer.strand) + ": best score " + std::to_string(answer.best.score) + " at " +
             std::to_string(s0.in_record(answer.best.s0_end)) + ", " +
             std::to_string(forward_position(s1, answer.strand, answer.best.s1_end)) + "; tracing back from " +
             std::to_string(answer.special_rows) + " special rows");
        std::unique_ptr<EngineSweeper> sweeper;
        if (SlabEngine* engine = backend_.slab_engine())
            sweeper = std::make_unique<EngineSweeper>(*engine, s0, s1, spec_.scoring);
        std::unique_ptr<FileJournal> journal;
        if (options_.rows_kept) {
            journal = std::make_unique<FileJournal>(dir, identity, spec_.scoring, answer.best, every());
            if (TracebackPoint saved; journal->load(saved))
                note("taking up the traceback at row " + std::to_string(saved.i) + " from " + journal->path());
        }
        Alignment a = linear_traceback(s0, s1, spec_.scoring, answer.best, *rows, {}, &answer.traceback, sweeper.get(),
                                       journal.get());
        if (journal) journal->finish();
        if (rescore(a, s0, s1, spec_.scoring) != answer.best.score)
            throw Error("internal: the alignment found does not score " + std::to_string(answer.best.score));
        if (state_) state_->add(DoneTraceback{answer.pair, answer.strand, a}, every());
        answer.alignment = std::move(a);
        answer.traceback_seconds = seconds_since(start);
    }

    void save_state() noexcept {
        try {
            if (state_) state_->save();
        } catch (const Error&) {  // the error that ended the job says more
        }
    }

    /// Between comparisons a stop signal ends the job at once: what is done is in the state.
    void stop_if_asked() {
        const volatile std::sig_atomic_t* stop = options_.backend.checkpoint.stop;
        if (!stop || *stop == 0 || !state_) return;
        state_->save();
        const int signal = *stop;
        throw Interrupted(signal, "interrupted by signal " + std::to_string(signal) + " between two comparisons; " +
                                      std::to_string(state_->done_count()) + " of " +
                                      std::to_string(spec_.comparisons()) + " are saved in " +
                                      job_state_path(options_.backend.checkpoint.path) +
                                      ": run the same command again to resume");
    }

    std::string describe(size_t k, Strand strand) const {
        const RecordPair& p = spec_.pairs[k];
        return spec_.s0[p.s0].name + " x " + spec_.s1[p.s1].name + " (" + strand_name(strand) + ")";
    }

    double every() const { return options_.backend.checkpoint.every_seconds; }
    void note(const std::string& text) const {
        if (options_.on_note) options_.on_note(text);
    }

    const JobSpec& spec_;
    const JobOptions& options_;
    Backend& backend_;
    const Stage1Runner& stage1_;
    JobProgress progress_;
    std::unique_ptr<JobState> state_;
};

}  // namespace

std::string selector_of(const Sequence& s) {
    const std::string region = s.region();
    return region.empty() ? s.name : s.name + ":" + region;
}

int64_t JobSpec::cells() const {
    int64_t total = 0;
    for (const RecordPair& p : pairs) total += s0[p.s0].length() * s1[p.s1].length();
    return total * static_cast<int64_t>(strands.size());
}

void JobSpec::validate() const {
    if (pairs.empty()) throw Error("the job has no record pairs to compare");
    if (strands.empty() || strands.size() > 2 || (strands.size() == 2 && strands[0] == strands[1]))
        throw Error("internal: a job compares one strand or both, each once");
    for (const RecordPair& p : pairs) {
        if (p.s0 >= s0.size() || p.s1 >= s1.size()) throw Error("internal: a record pair out of range");
        scoring.check_no_overflow(s0[p.s0].length(), s1[p.s1].length());
    }
}

JobResult run_job(const JobSpec& spec, const JobOptions& options, Backend& backend, const Stage1Runner& stage1) {
    spec.validate();
    return JobRun(spec, options, backend, stage1).run();
}

}  // namespace chromalign
