//! @file run_job: the comparisons one after another, their shared floor, the job's state and
//! progress, and each pair's traceback.
#include "engine/job/job.hpp"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <map>
#include <memory>

#include <unistd.h>

#include "engine/checkpoint/checkpoint_file.hpp"
#include "engine/declump/edge_grid.hpp"
#include "engine/error.hpp"
#include "engine/job/job_files.hpp"
#include "engine/job/job_state.hpp"
#include "engine/job/stack.hpp"
#include "engine/job/stage1_record.hpp"
#include "engine/job/traceback_journal.hpp"
#include "engine/orchestration/slab_run.hpp"
#include "engine/pruning/live_model.hpp"
#include "engine/traceback/engine_sweeper.hpp"
#include "engine/traceback/special_rows.hpp"
#include "io/fasta.hpp"

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
    JobProgress(const JobSpec& spec, const JobOptions& options)
        : options_(options), scoring_(spec.scoring), total_(spec.cells()) {}

    /// Comparison `index` of `cells` cells (`rows` of them) starts; `later` more of the same
    /// record pair follow it (its other strand), to be pruned from the floor its best will be.
    void begin(int64_t index, int64_t cells, int64_t rows = 0, int later = 0) {
        index_ = index;
        current_ = cells;
        rows_ = rows;
        later_ = later;
    }
    /// It ended with `outcome`: outcome.cells_resumed of its cells came from a checkpoint or an
    /// earlier run's record.
    void end(const Stage1Outcome& outcome) {
        done_ += current_;
        this_run_ += current_ - outcome.cells_resumed;
        pruned_ += outcome.cells_pruned;
        current_ = 0;
        told_done_ = done_;
        told_this_run_ = this_run_;
        best_ = std::max(best_, outcome.best.score);  // a short or resumed run may have sent no report
        if (seconds_since(last_) < 1) return;
        report(Progress{});
    }

    /// The comparison's own progress, as the whole job's; a stack's counts `stacked` cells (its
    /// padding too) for the `real` ones of its comparisons.
    void report(const Progress& p, int64_t real = 1, int64_t stacked = 1) {
        if (!options_.on_progress) return;
        last_ = Clock::now();
        Progress q = p;
        const auto scaled = [&](int64_t c) {
            return static_cast<int64_t>(static_cast<double>(c) * static_cast<double>(real) / static_cast<double>(stacked));
        };
        q.cells_done = scaled(p.cells_done);
        q.cells_this_run = scaled(p.cells_this_run);
        q.cells_pruned = scaled(p.cells_pruned);
        q.cells_left = scaled(p.cells_left);
        q.cells_left_live = scaled(p.cells_left_live);
        q.cells_total = total_;
        q.cells_done += done_;
        q.cells_this_run += this_run_;
        q.cells_pruned += pruned_;
        const int64_t after = total_ - done_ - current_;
        q.cells_left += after;
        // The comparisons of other record pairs counted whole; this pair's later strand as
        // pruned from the best found so far (what its floor will at least be).
        const int64_t same_pair = later_ * current_;
        q.cells_left_live += after - same_pair + static_cast<int64_t>(static_cast<double>(same_pair) *
                                                                      floor_live_fraction(p.best_score));
        q.seconds = seconds_since(start_);
        q.best_score = std::max(p.best_score, best_);
        told_done_ = q.cells_done;
        told_this_run_ = q.cells_this_run;
        options_.on_progress(q, index_);
    }

    /// Comparison `index`'s search found its alignment `found` (of at most `wanted`) of `score`,
    /// the pair's best `best`; its cells are all told, and the job's as last told (another
    /// strand's first pass may be running).
    void searching(int64_t index, int found, int wanted, int32_t score, int32_t best) {
        if (!options_.on_progress) return;
        last_ = Clock::now();
        Progress q;
        q.cells_total = total_;
        q.cells_done = told_done_;
        q.cells_this_run = told_this_run_;
        q.cells_pruned = pruned_;
        q.cells_left = q.cells_left_live = total_ - q.cells_done;
        q.seconds = seconds_since(start_);
        q.best_score = std::max(best, best_);
        q.alignments_found = found;
        q.alignments_wanted = wanted;
        q.alignment_score = score;
        options_.on_progress(q, index);
    }

private:
    /// The share of the current comparison's matrix a comparison of the same size pruned from
    /// `floor` alone is expected to keep.
    double floor_live_fraction(int32_t floor) const {
        if (!options_.backend.pruning || rows_ <= 0) return 1.0;
        // A bound pass builds a gain table too (BoundThread).
        const LiveModel model = live_model(rows_, current_ / rows_, scoring_, floor, options_.bound != nullptr);
        return expected_live_fraction(model, 0, 0);
    }

    const JobOptions& options_;
    const Scoring& scoring_;
    int64_t total_ = 0, done_ = 0, this_run_ = 0, pruned_ = 0, current_ = 0, index_ = 0, rows_ = 0;
    int64_t told_done_ = 0, told_this_run_ = 0;  ///< the job's cells as last reported
    /// The best score of the comparisons ended: a report's best is the job's so far, which a
    /// later comparison (a reverse strand, an unrelated pair) scoring less must not lower.
    int32_t best_ = 0;
    int later_ = 0;
    Clock::time_point start_ = Clock::now(), last_ = Clock::now();
};

/// One job's run: the state, the progress, and each pair in turn.
class JobRun {
public:
    JobRun(const JobSpec& spec, const JobOptions& options, Backend& backend, const Stage1Runner& stage1)
        : spec_(spec), options_(options), backend_(backend), stage1_(stage1), progress_(spec, options) {
        const CheckpointOptions& ck = options.backend.checkpoint;
        if (!ck.path.empty())
            state_ = std::make_unique<JobState>(ck.path, job_fingerprint(spec), spec, ck.restart, options.writer,
                                                ck.strict, options.on_note);
    }

    JobResult run() {
        JobResult result;
        try {
            run_stacks();
        } catch (...) {
            save_state();  // what finished before a stop or a failure stays finished
            throw;
        }
        for (size_t k = 0; k < spec_.pairs.size(); ++k) {
            PairAnswer answer;
            try {
                answer = run_pair(k);
            } catch (...) {
                save_state();
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
    /// A pair's strands, then its traceback (and with --alignments the search), or the
    /// search alone.
    PairAnswer run_pair(size_t k) {
        const RecordPair& p = spec_.pairs[k];
        const Sequence& s0 = spec_.s0[p.s0];
        if (search_alone()) {
            PairAnswer searched;
            searched.pair = k;
            // Else a strand taken up as done with no alignment: stage 1 gives the pair's best.
            if (search(searched, s0, p.s1)) return searched;
        }
        PairAnswer answer;
        answer.pair = k;
        int32_t floor = 0;
        bool first = true;
        for (const Strand strand : spec_.strands) {
            const int64_t n = spec_.s1[p.s1].length();
            const auto start = Clock::now();
            const auto in_stack = stacked_.find({k, strand});  // run already, its progress counted
            Stage1Outcome outcome;
            BoundReport bound;
            if (in_stack != stacked_.end()) {
                outcome = in_stack->second.outcome;
                answer.seconds += in_stack->second.seconds;
            } else {
                stop_if_asked();
                const int later = static_cast<int>(spec_.strands.end() - std::find(spec_.strands.begin(),
                                                                                   spec_.strands.end(), strand)) - 1;
                progress_.begin(comparison_index(k, strand), s0.length() * n, s0.length(), later);
                outcome = stage1_of(k, strand, s0, compared(p.s1, strand), floor, bound);
                progress_.end(outcome);
            }
            answer.seconds += seconds_since(start);
            answer.cells += s0.length() * n;
            answer.cells_pruned += outcome.cells_pruned;
            answer.cells_resumed += outcome.cells_resumed;
            // Forward comes first, and a later strand wins only with a higher score.
            if (first || outcome.best.score > answer.best.score) {
                answer.strand = strand;
                answer.best = outcome.best;
                answer.bound = bound;
            }
            first = false;
            floor = std::max(floor, outcome.best.score);
        }
        if (options_.traceback && options_.writer && answer.best.score > 0 && answer.best.score >= options_.min_score)
            trace_back(answer, s0, compared(p.s1, answer.strand));
        if (options_.alignments > 1 && answer.alignment) search(answer, s0, p.s1);
        if (options_.drop_traced_rows && !options_.rows_dir.empty() && options_.writer) {
            if (state_) state_->save();  // the alignment is saved before the rows it came from go
            for (const Strand strand : spec_.strands) remove_special_rows(comparison_rows_dir(options_.rows_dir, k, strand));
        }
        return answer;
    }

    /// Whether a pair's K best alignments are searched for without its stage 1: the search's
    /// first pass computes every cell of each strand, and its best alignment is the one stage 1
    /// and the traceback give (the same tie and path rules), so they would only compute it
    /// again. Not where JobOptions::search_alone says so (several processes, rows kept for a
    /// later traceback), nor for a traceback from stage 1's records.
    bool search_alone() const {
        return options_.alignments > 1 && options_.traceback && options_.search_alone && !options_.traceback_only;
    }

    /// The pair's K best alignments over its strands. After a traceback (answer.alignment), the
    /// first of them must be the traceback's: both follow the reference's tie and path rules.
    /// Else the first, if any reaches the least score, becomes the pair's answer, and with none
    /// its strands' best cells do, as stage 1 would give them; false if a strand's search,
    /// taken up as done, gave none. Each strand's search is saved as it goes
    /// (JobState::add(DoneSearch)) and taken up from there.
    bool search(PairAnswer& answer, const Sequence& s0, size_t target) {
        stop_if_asked();
        const auto start = Clock::now();
        const int count = options_.alignments;
        const int32_t least = std::max(options_.min_score, 1);
        const Alignment* traced = answer.alignment ? &*answer.alignment : nullptr;
        std::vector<StrandSearch> strands;
        // Per strand: a GPU's waves, for wide antidiagonals, and the host's.
        std::vector<std::unique_ptr<TileWaves>> devices;
        int64_t searched = 0;
        for (const Strand strand : spec_.strands) {
            StrandSearch search{strand, &compared(target, strand), {}, false,
                                traced && strand == answer.strand ? traced : nullptr};
            if (state_) {
                if (std::optional<DoneSearch> saved = state_->search(answer.pair, strand))
                    take_up(*saved, s0, search, count, least);
            }
            if (!search.done) {
                devices.push_back(backend_.tile_waves());
                search.device = devices.back().get();
                devices.push_back(backend_.host_tile_waves());
                search.host = devices.back().get();
                ++searched;
            }
            strands.push_back(std::move(search));
        }
        // The strands are searched at once: each one's edges take its share of the memory.
        const int64_t m = s0.length(), n = spec_.s1[target].length(), strands_searched = std::max<int64_t>(1, searched);
        DeclumpOptions options = options_.declump_bytes > 0
                                     ? tiles_within(m, n, options_.declump_bytes / strands_searched)
                                     : auto_tiles(m, n, backend_.search_memory() / strands_searched);
        options.strands_at_once = true;
        options.trace_row_spacing = backend_.trace_row_spacing();
        options.threads = options_.backend.threads;
        options.stop = options_.backend.checkpoint.stop;
        if (SlabEngine* engine = backend_.slab_engine())
            options.sweeper = [engine, this](const Sequence& a, const Sequence& b) -> std::unique_ptr<WindowSweeper> {
                return std::make_unique<EngineSweeper>(*engine, a, b, spec_.scoring);
            };
        auto found = [&](Strand strand, const std::vector<Alignment>& so_far) {
            progress_.searching(comparison_index(answer.pair, strand), static_cast<int>(so_far.size()), count,
                                so_far.back().score, so_far.front().score);
            if (state_) state_->add(DoneSearch{answer.pair, strand, count, least, false, false, so_far}, every());
            if (state_ && crash_after_ > 0 && (crash_pair_ < 0 || static_cast<size_t>(crash_pair_) == answer.pair) &&
                --crash_after_ == 0) {
                state_->save();
                _exit(86);
            }
            stop_if_asked();
        };
        auto ended = [&](Strand strand, const std::vector<Alignment>& all, bool outranked) {
            if (state_) state_->add(DoneSearch{answer.pair, strand, count, least, true, outranked, all}, every());
        };
        // Alone, each strand's first pass is that comparison's progress (the search after it is
        // no function of the cells); else stage 1 reported it.
        const int64_t cells = s0.length() * spec_.s1[target].length();
        auto passing = [&](Strand strand, int64_t done) {
            if (done == 0) progress_.begin(comparison_index(answer.pair, strand), cells);
            Progress p;
            p.cells_done = p.cells_this_run = done;
            p.cells_left = p.cells_left_live = cells - done;
            progress_.report(p);
            if (done == cells) progress_.end(Stage1Outcome{});
        };
        std::vector<std::optional<AlignmentEnd>> bests;
        std::vector<StrandAlignment> all = pair_alignments(s0, strands, spec_.scoring, count, least, options,
                                                           answer.declump, found, ended,
                                                           traced ? std::function<void(Strand, int64_t)>{} : passing,
                                                           &bests);
        if (traced) {
            if (all.empty() || all.front().strand != answer.strand || all.front().alignment != *traced)
                throw Error("internal: the best of the K alignments of " + describe(answer.pair, answer.strand) +
                            " is not the traceback's");
        } else {
            answer.cells = cells * static_cast<int64_t>(spec_.strands.size());
            answer.seconds = answer.declump.first_seconds;  // the passes that computed every cell
            if (all.empty()) {
                // Forward first, and a later strand wins only with a higher score (run_pair).
                for (size_t k = 0; k < bests.size(); ++k) {
                    if (!bests[k]) return false;
                    if (k == 0 || bests[k]->score > answer.best.score) {
                        answer.strand = strands[k].strand;
                        answer.best = *bests[k];
                    }
                }
                return true;
            }
            answer.strand = all.front().strand;
            answer.best = all.front().alignment.as_end();
            answer.alignment = std::move(all.front().alignment);
        }
        all.erase(all.begin());
        answer.others = std::move(all);
        answer.declump_seconds = seconds_since(start);
        const DeclumpCounts& d = answer.declump;
        char text[480];
        std::snprintf(text, sizeof text,
                      " alignments sharing no pair found in %.3f s (tiles of %lld, %.3g GiB of edges): "
                      "a first pass of %.3g cells (%.3f s), "
                      "tracebacks (%.3f s; %lld tiles computed ahead, %lld of them walked ahead; "
                      "%lld of %lld walked ahead of their turn taken), "
                      "%.3g cells computed again (%.3f s)",
                      answer.declump_seconds, static_cast<long long>(options.tile_rows),
                      static_cast<double>(searched * EdgeGrid::edge_bytes(m, n, options.tile_rows)) / (1 << 30),
                      static_cast<double>(d.first_cells), d.first_seconds,
                      d.walk_seconds,
                      static_cast<long long>(d.walk.tiles_ahead), static_cast<long long>(d.walk.trails_met),
                      static_cast<long long>(d.taken_ahead), static_cast<long long>(d.walked_ahead),
                      static_cast<double>(d.recomputed_cells), d.recompute_seconds);
        // The pair's search, over every strand compared: not alignment 1's strand alone.
        note(pair_name(answer.pair) + " (" +
             (spec_.strands.size() > 1 ? std::string("both strands") : strand_name(spec_.strands.front())) +
             "): " + std::to_string(answer.others.size() + 1) + " of " + std::to_string(count) + text);
        return true;
    }

    /// What a saved search gives this run's: its alignments that reach `least`, at most
    /// `count` of them, each rescored first; all of this run's search when the saved one
    /// ended on the same terms or these are found, else a prefix the search finds again.
    void take_up(const DoneSearch& saved, const Sequence& s0, StrandSearch& search, int count, int32_t least) {
        for (size_t k = 0; k < saved.found.size(); ++k) {
            const Alignment& a = saved.found[k];
            int64_t score = -1;
            try {
                score = rescore(a, s0, *search.s1, spec_.scoring);
            } catch (const Error&) {
            }
            if (score != a.score || (k > 0 && a.score > saved.found[k - 1].score))
                throw Error(job_state_path(options_.backend.checkpoint.path) + ": alignment " + std::to_string(k + 1) +
                            " of " + describe(saved.pair, saved.strand) +
                            " does not score its score; it is left untouched (use --restart to discard it)");
            if (a.score < least || static_cast<int>(search.known.size()) == count) break;
            search.known.push_back(a);
        }
        const bool cut = search.known.size() < saved.found.size();  // this run's terms end it sooner
        // Outranked, it stays so for a count no larger and a least no lower: the earlier strands'
        // alignments that ranked before its next are found again, and reach that least.
        const bool same_end = saved.ended && (saved.outranked ? count <= saved.count && least >= saved.min_score
                                              : static_cast<int>(saved.found.size()) < saved.count
                                                  ? saved.min_score <= least  // nothing else reached its least
                                                  : saved.count >= count);
        search.done = cut || same_end || static_cast<int>(search.known.size()) == count;
        if (!search.known.empty() || saved.ended)
            note("taking up the search for " + std::to_string(count) + " alignments of " +
                 describe(saved.pair, saved.strand) + " from " + std::to_string(search.known.size()) + " found");
    }

    /// Whether a stage 1 answer pruned from `used` serves where this run prunes from `floor`:
    /// one from 0 is exact; one from the other strand's best is the same as this run's would be.
    static bool valid_floor(int32_t used, int32_t floor) { return used == 0 || used == floor; }

    /// Stage 1 of every comparison of a short S0 record (SlabEngine::stack_below) not done
    /// yet, stacked (engine/job/stack.hpp): per S1 record and strand, records in the pairs'
    /// order, each stack at most what the engine computes in --checkpoint-every (at its
    /// nominal rate), so that a kill loses no more than a comparison's checkpoints would.
    void run_stacks() {
        SlabEngine* engine = backend_.slab_engine();
        // A traceback from kept records runs no stage 1: each comparison's record is read (and
        // checked) by stage1_of instead.
        if (!engine || !options_.stack || options_.traceback_only || search_alone()) return;
        const int64_t below = engine->stack_below(spec_.scoring);
        const double rate = backend_.nominal_gcups() * 1e9;
        const int64_t most = rate > 0 ? std::max<int64_t>(int64_t{1} << 34, static_cast<int64_t>(every() * rate))
                                      : INT64_MAX;
        for (size_t target = 0; target < spec_.s1.size(); ++target)
            for (const Strand strand : spec_.strands) {
                std::vector<size_t> group;
                int64_t cells = 0;
                for (size_t k = 0; k < spec_.pairs.size(); ++k) {
                    const RecordPair& p = spec_.pairs[k];
                    if (p.s1 != target || spec_.s0[p.s0].length() >= below) continue;
                    if (state_ && state_->done(k, strand)) continue;
                    const int64_t more = spec_.s0[p.s0].length() * spec_.s1[target].length();
                    if (!group.empty() && cells + more > most) {
                        run_stack(group, target, strand, *engine);
                        group.clear();
                        cells = 0;
                    }
                    group.push_back(k);
                    cells += more;
                }
                if (!group.empty()) run_stack(group, target, strand, *engine);
            }
    }

    /// One stack: the S0 records of `pairs` against S1 record `target` on `strand`.
    void run_stack(const std::vector<size_t>& pairs, size_t target, Strand strand, SlabEngine& engine) {
        stop_if_asked();
        const auto start = Clock::now();
        const Sequence& forward = spec_.s1[target];
        const Sequence& s1 = compared(target, strand);
        std::vector<const Sequence*> records;
        int64_t rows = 0, cells = 0;
        for (const size_t k : pairs) {
            records.push_back(&spec_.s0[spec_.pairs[k].s0]);
            rows += records.back()->length();
            cells += records.back()->length() * s1.length();
        }
        // The band height the engine takes for a matrix of the stack's size (asked again with
        // the padded height, should it differ).
        int64_t band_rows = engine.slab_shape(rows, s1.length(), spec_.scoring).rows_per_band;
        Stack stack = make_stack(records, band_rows);
        const int64_t padded = engine.slab_shape(stack.s0.length(), s1.length(), spec_.scoring).rows_per_band;
        if (padded != band_rows) stack = make_stack(records, band_rows = padded);
        // The engine checks the matrix it is given against the 32-bit score range; a stack's
        // rows, padding included, may pass the limit that each record passes (no path crosses
        // records). Then halves are stacked, and a record alone is left to run_pair, unstacked.
        if (std::min(stack.s0.length(), s1.length()) > spec_.scoring.longest_length()) {
            if (pairs.size() == 1) return;
            const auto half = pairs.begin() + static_cast<std::ptrdiff_t>(pairs.size() / 2);
            run_stack(std::vector<size_t>(pairs.begin(), half), target, strand, engine);
            run_stack(std::vector<size_t>(half, pairs.end()), target, strand, engine);
            return;
        }
        BackendOptions run = options_.backend;
        run.pruning = false;
        run.prune_floor = 0;
        run.checkpoint = CheckpointOptions{};
        run.special_rows.dir.clear();
        run.stack_rows = &stack.first_rows;
        const int64_t stacked_cells = stack.s0.length() * s1.length();
        run.on_progress = [this, cells, stacked_cells](const Progress& p) { progress_.report(p, cells, stacked_cells); };
        progress_.begin(comparison_index(pairs.front(), strand), cells);
        const Stage1Outcome outcome = stage1_(stack.s0, s1, spec_.scoring, run);
        progress_.end(outcome);
        if (outcome.records.size() != pairs.size())
            throw Error("internal: a stack of " + std::to_string(pairs.size()) + " records gave " +
                        std::to_string(outcome.records.size()) + " answers");
        const double seconds = seconds_since(start);
        for (size_t r = 0; r < pairs.size(); ++r) {
            const size_t k = pairs[r];
            const AlignmentEnd best = unstacked(stack, r, outcome.records[r]);
            const int64_t share = records[r]->length() * s1.length();
            stacked_[{k, strand}] = Stacked{Stage1Outcome{best, 0, 0, {}}, seconds * static_cast<double>(share) / static_cast<double>(cells)};
            if (options_.rows_kept && options_.writer) {
                const std::string dir = comparison_rows_dir(options_.rows_dir, k, strand);
                std::error_code ec;
                std::filesystem::create_directories(dir, ec);
                write_stage1_record(dir, Stage1Record{options_.s0_path, selector_of(*records[r]), options_.s1_path,
                                                      selector_of(forward), identity_of(*records[r], target, strand),
                                                      spec_.scoring, best, strand, 0});
            }
            if (state_) state_->add(DoneComparison{k, strand, best, 0, 0}, every());
        }
    }

    /// S1 record `target` as a comparison on `strand` reads it; each reverse complement is made
    /// once (a job's pairs come back to each S1 record, once per S0 record).
    const Sequence& compared(size_t target, Strand strand) {
        if (strand == Strand::kForward) return spec_.s1[target];
        auto it = reversed_.find(target);
        if (it == reversed_.end()) it = reversed_.emplace(target, reverse_complement(spec_.s1[target])).first;
        return it->second;
    }

    /// rows_identity(s0, compared(target, strand)), hashing each S1 record's strand once: a
    /// job comes back to it for every S0 record.
    RowsIdentity identity_of(const Sequence& s0, size_t target, Strand strand) {
        auto it = s1_fingerprints_.find({target, strand});
        if (it == s1_fingerprints_.end())
            it = s1_fingerprints_.emplace(std::make_pair(target, strand), sequence_fingerprint(compared(target, strand))).first;
        return RowsIdentity{s0.length(), spec_.s1[target].length(), sequence_fingerprint(s0), it->second};
    }

    int64_t comparison_index(size_t k, Strand strand) const {
        const auto at = std::find(spec_.strands.begin(), spec_.strands.end(), strand) - spec_.strands.begin();
        return static_cast<int64_t>(k * spec_.strands.size()) + at;
    }

    /// Stage 1 of one comparison: from the job's state, from its record in a kept rows
    /// directory, or run now.
    Stage1Outcome stage1_of(size_t k, Strand strand, const Sequence& s0, const Sequence& s1, int32_t floor,
                            BoundReport& bound_report) {
        const int64_t cells = s0.length() * s1.length();
        if (state_)
            if (const auto done = state_->done(k, strand); done && valid_floor(done->floor, floor))
                return Stage1Outcome{done->best, done->cells_pruned, cells, {}};
        BackendOptions run = options_.backend;
        run.prune_floor = floor;
        if (!run.checkpoint.path.empty()) {
            run.checkpoint.path = comparison_checkpoint(run.checkpoint.path, k, strand);
            run.checkpoint.lock_held = true;  // by the job's state, for all its comparisons
        }
        run.on_progress = [this](const Progress& p) { progress_.report(p); };
        std::string dir;
        RowsIdentity identity;
        if (!options_.rows_dir.empty()) {
            dir = comparison_rows_dir(options_.rows_dir, k, strand);
            identity = identity_of(s0, spec_.pairs[k].s1, strand);
        }
        if (!dir.empty() && options_.rows_kept) {
            const std::optional<Stage1Record> record = read_stage1_record(dir);
            if (record && same_comparison(*record, identity, spec_.scoring, strand) && valid_floor(record->floor, floor)) {
                note("stage 1's result from " + stage1_record_path(dir) + " (" + describe(k, strand) + ")");
                return Stage1Outcome{record->result, 0, cells, {}};
            }
            if (options_.traceback_only)
                throw Error(stage1_record_path(dir) + (record ? " is of another comparison than " : " is missing for ") +
                            describe(k, strand) + " (run stage 1 with --traceback-dir first)");
            if (record) {
                // Its rows and walk are another comparison's too: gone before stage 1 writes this one's.
                remove_special_rows(dir);
                std::error_code ec;
                std::filesystem::remove(dir + "/traceback.journal", ec);
                note(stage1_record_path(dir) + " is of another comparison: its rows removed, running stage 1");
            }
        }
        if (!dir.empty()) {
            std::error_code ec;
            std::filesystem::create_directories(dir, ec);
            if (!std::filesystem::is_directory(dir)) throw Error("cannot make directory '" + dir + "' for special rows");
            run.special_rows.dir = dir;
        } else {
            run.special_rows.dir.clear();
        }
        // A resumed comparison prunes from the bound its first run found. The pass's thread
        // saves the bound into the state while this thread is inside stage1_.
        const int32_t known = state_ && run.pruning && options_.bound ? state_->bound(k, strand) : 0;
        std::function<void(int32_t)> keep;
        if (state_) keep = [this, k, strand](int32_t score) { state_->add_bound(k, strand, score); };
        BoundThread bound(run.pruning ? options_.bound : nullptr, s0, s1, spec_.scoring, known, keep);
        bound.lend_to(run);
        const Stage1Outcome outcome = stage1_(s0, s1, spec_.scoring, run);
        bound_report = bound.finish(outcome.best, floor, describe(k, strand));
        if (!bound_report.failure.empty())
            note("warning: the bound pass of " + describe(k, strand) + " failed (" + bound_report.failure +
                 "); stage 1 pruned without it");
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
        RowsIdentity identity;  // what rows and the journal are checked against, where there are any
        if (!options_.rows_dir.empty()) {
            dir = comparison_rows_dir(options_.rows_dir, answer.pair, answer.strand);
            identity = identity_of(s0, spec_.pairs[answer.pair].s1, answer.strand);
        }
        if (!dir.empty() && !stacked_.count({answer.pair, answer.strand})) {  // a stack keeps no rows
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
                                       journal.get(), options_.backend.checkpoint.stop);
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

    std::string pair_name(size_t k) const {
        const RecordPair& p = spec_.pairs[k];
        return spec_.s0[p.s0].name + " x " + spec_.s1[p.s1].name;
    }
    std::string describe(size_t k, Strand strand) const { return pair_name(k) + " (" + strand_name(strand) + ")"; }

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
    /// What run_stacks found for each comparison it ran, and its share of the stack's time.
    struct Stacked {
        Stage1Outcome outcome;
        double seconds = 0;
    };
    std::map<std::pair<size_t, Strand>, Stacked> stacked_;
    /// Crash tests (tests/test_alignments_cli.cpp), as CHROMALIGN_CRASH_POINT's: with
    /// CHROMALIGN_CRASH_SEARCH=N the process saves its state after the N-th alignment this run
    /// finds, over all its pairs (N@P: of the job's pair P, from 0), and ends there with
    /// _exit(86), as a kill would. Unset: never. A pair's strands searched at once find theirs
    /// in an order that varies, so only what ends their search is the same in every run.
    int crash_after_ = [] {
        const char* n = std::getenv("CHROMALIGN_CRASH_SEARCH");
        return n ? std::atoi(n) : 0;
    }();
    long crash_pair_ = [] {
        const char* n = std::getenv("CHROMALIGN_CRASH_SEARCH");
        const char* at = n ? std::strchr(n, '@') : nullptr;
        return at ? std::atol(at + 1) : -1L;
    }();
    std::map<size_t, Sequence> reversed_;  ///< compared(): S1 records' reverse complements
    std::map<std::pair<size_t, Strand>, uint64_t> s1_fingerprints_;  ///< identity_of()
};

}  // namespace

std::string selector_of(const Sequence& s) {
    const std::string region = s.region();
    // A whole record whose name reads as a region ("chr1:1000-2000") is written in braces.
    return region.empty() ? io::describe_selector(io::RecordSelector{s.name}) : s.name + ":" + region;
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
