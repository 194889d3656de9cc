//! @file chromalign: compare two sequences with exact Smith-Waterman and report the best local score.
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iostream>
#include <memory>
#include <optional>
#include <set>
#include <string>

#include "kernels/registry.hpp"
#include "engine/bound/minimap2_bound.hpp"
#include "engine/error.hpp"
#include "engine/job/job.hpp"
#include "engine/job/job_files.hpp"
#include "engine/job/stage1_record.hpp"
#include "engine/orchestration/slab_run.hpp"
#include "engine/version.hpp"
#include "engine/traceback/special_rows.hpp"
#include "io/alignment_formats.hpp"
#include "io/alignment_plot.hpp"
#include "io/genome_plot.hpp"
#include "io/fasta.hpp"
#include "tools/cli_options.hpp"
#include "tools/recent_rate.hpp"
#include "tools/report.hpp"
#include "tools/whole_output.hpp"
#include "tools/job_input.hpp"
#include "tools/job_output.hpp"
#ifdef CHROMALIGN_HAVE_MPI
#include "engine/transport/mpi_link.hpp"
#endif

namespace {

using namespace chromalign;

/// Set by SIGINT, SIGTERM, SIGHUP or SIGUSR1 while a checkpointed run is going: the engine
/// writes one more checkpoint, then throws Interrupted. SIGUSR1 is the one mpirun forwards to
/// every rank without killing them a second later, as it does after forwarding SIGINT or
/// SIGTERM; SIGHUP is what a closed terminal or ssh session sends.
volatile std::sig_atomic_t g_stop_signal = 0;

extern "C" void on_stop_signal(int signal_number) { g_stop_signal = signal_number; }

void install_stop_handlers() {
    struct sigaction action{};
    action.sa_handler = on_stop_signal;
    sigemptyset(&action.sa_mask);
    sigaction(SIGINT, &action, nullptr);
    sigaction(SIGTERM, &action, nullptr);
    sigaction(SIGUSR1, &action, nullptr);
    sigaction(SIGHUP, &action, nullptr);
}

double peak_memory_mib() {
    rusage usage{};
    getrusage(RUSAGE_SELF, &usage);
    return static_cast<double>(usage.ru_maxrss) / 1024.0;  // ru_maxrss is in KiB on Linux
}

/// One progress line on stderr for the whole job: rewritten in place on a terminal, else a
/// line a minute.
class ProgressPrinter {
public:
    ProgressPrinter(bool enabled, int64_t comparisons)
        : enabled_(enabled), tty_(isatty(STDERR_FILENO) != 0), comparisons_(comparisons) {}

    void operator()(const Progress& p, int64_t comparison) {
        if (!enabled_) return;
        // A search computes no cells meanwhile: its time says nothing of the rate of passes.
        if (p.alignments_wanted == 0) computed_.add(p.seconds, static_cast<double>(p.cells_this_run - p.cells_pruned));
        if (!tty_ && p.seconds - last_line_ < 60) return;
        last_line_ = p.seconds;
        const double done = p.cells_total ? static_cast<double>(p.cells_done) / p.cells_total : 0;
        if (p.alignments_wanted > 0) {
            std::fprintf(stderr,
                         "%s%5.1f%% of cells done, comparison %lld of %lld searched: %d of at most %d alignments "
                         "found, the last of score %d, %.0f s elapsed, no ETA while searching%s",
                         tty_ ? "\r" : "", 100 * done, static_cast<long long>(comparison + 1),
                         static_cast<long long>(comparisons_), p.alignments_found, p.alignments_wanted,
                         p.alignment_score, p.seconds, tty_ ? "   " : "\n");
            printed_ = true;
            return;
        }
        // GCUPS counts skipped cells as done (as the run's summary does); the ETA divides the
        // cells still to compute by the recent rate of computed ones.
        const double rate = p.seconds > 0 ? p.cells_this_run / p.seconds : 0;
        const double computed = computed_.rate();
        const double eta = computed > 0 ? p.cells_left_live / computed : 0;
        char which[64] = "";
        if (comparisons_ > 1)
            std::snprintf(which, sizeof which, "comparison %lld of %lld, ", static_cast<long long>(comparison + 1),
                          static_cast<long long>(comparisons_));
        char until[32] = "ETA unknown yet";  // no cells computed to measure a rate by
        if (computed > 0) std::snprintf(until, sizeof until, "ETA %.0f s", eta);
        std::fprintf(stderr, "%s%5.1f%% done, %s%.2f GCUPS, %.0f s elapsed, %s, best so far %d%s",
                     tty_ ? "\r" : "", 100 * done, which, rate / 1e9, p.seconds, until, p.best_score,
                     tty_ ? "   " : "\n");
        printed_ = true;
    }
    void finish() {
        if (printed_ && tty_) std::fputc('\n', stderr);
    }

private:
    bool enabled_, tty_;
    int64_t comparisons_;
    bool printed_ = false;
    double last_line_ = -1e9;
    cli::RecentRate computed_;  ///< cells computed (not skipped)
};

cli::SequenceInfo info_of(const Sequence& s) {
    return {s.name, s.source, s.length(), s.offset, s.record_length(), s.region()};
}

std::string absolute_path(const std::string& path) {
    std::error_code ec;
    const auto p = std::filesystem::absolute(path, ec);
    return ec ? path : p.string();
}

/// A selector of a stage 1 record; an empty one (a release before jobs, which took the first
/// record by default) names the file's first record.
io::RecordSelector recorded_selector(const std::string& text, const std::string& path) {
    io::RecordSelector r = io::parse_selector(text);
    if (r.record.empty()) r.record = io::read_fasta(path, {}).name;
    return r;
}

/// `chromalign traceback DIR [options] [S0 S1]`: the options of a run that takes its job and
/// every comparison's stage 1 result from DIR's records. Throws cli::UsageError.
cli::Options traceback_command(int argc, char** argv) {
    if (argc >= 3 && (std::string(argv[2]) == "--help" || std::string(argv[2]) == "-h")) {
        const char* help[] = {argv[0], argv[2]};  // the help, whose usage shows this form too
        return cli::parse_options(2, help);
    }
    if (argc < 3 || argv[2][0] == '-')
        throw cli::UsageError("chromalign traceback needs the directory of a stage 1 run: chromalign traceback DIR");
    const std::string dir = argv[2];
    std::vector<const char*> rest = {argv[0]};
    for (int i = 3; i < argc; ++i) rest.push_back(argv[i]);
    cli::Options o = cli::parse_options(static_cast<int>(rest.size()), rest.data(), true);
    if (o.help || o.version) return o;
    if (o.traceback.empty()) throw cli::UsageError("chromalign traceback needs --traceback FILE");
    if (!o.traceback_dir.empty()) throw cli::UsageError("chromalign traceback takes its directory as DIR, not --traceback-dir");
    if (!o.pairs.empty() || !o.s0_records.empty() || !o.s1_records.empty())
        throw cli::UsageError("chromalign traceback takes its records from DIR's job");
    // DIR/job.json, or the stage1.json alone of a release before jobs: one pair, forward.
    std::optional<JobRecord> job;
    std::optional<Stage1Record> single;
    job = read_job_record(dir);  // a damaged record is an Error (exit 1), not a usage error
    if (!job) single = read_stage1_record(dir);
    if (!job && !single)
        throw cli::UsageError(dir + ": no stage 1 record (run stage 1 with --traceback-dir " + dir + " first)");
    const Scoring& recorded = job ? job->scoring : single->scoring;
    const std::string where = job ? job_record_path(dir) : stage1_record_path(dir);
    if (!same_scoring(o.scoring, Scoring()) && !same_scoring(o.scoring, recorded))
        throw cli::UsageError("chromalign traceback takes its scoring from " + where);
    // --strand is the job's, as the scoring is: one the job did not run is refused, not ignored.
    const std::vector<Strand> recorded_strands = job ? job->strands : std::vector<Strand>{Strand::kForward};
    if (o.strands != std::vector<Strand>{Strand::kForward, Strand::kReverse} && o.strands != recorded_strands)
        throw cli::UsageError("chromalign traceback takes its strands from " + where);
    if (o.s0_path.empty()) {
        o.s0_path = job ? job->s0_path : single->s0_path;
        o.s1_path = job ? job->s1_path : single->s1_path;
    }
    try {
        if (job) {
            for (const auto& [a, b] : job->pairs) o.pairs.push_back({io::parse_selector(a), io::parse_selector(b)});
            o.strands = job->strands;
        } else {
            o.pairs.push_back({recorded_selector(single->s0_record, o.s0_path), recorded_selector(single->s1_record, o.s1_path)});
            o.strands = {Strand::kForward};
        }
    } catch (const Error& e) {
        throw Error(where + ": " + e.what());
    }
    o.scoring = recorded;
    o.matrix_file.clear();
    o.preset.clear();
    o.traceback_dir = dir;
    o.traceback_only = true;
    return o;
}

/// Whether the search for --alignments finds every alignment alone, with no stage 1 and so no
/// special rows (JobOptions::search_alone): not over several ranks, which run each stage 1
/// together, nor where --traceback-dir keeps stage 1's rows for a later traceback.
bool searches_alone(const cli::Options& o, bool several_ranks) {
    return o.alignments > 1 && !several_ranks && o.traceback_dir.empty();
}

/// Where stage 1 keeps its special rows and records: --traceback-dir (made if missing, kept);
/// else for --traceback, unless the search runs alone, FILE.rows beside a --checkpoint FILE
/// (kept until the job is done, so that a resumed job traces back from the rows of the
/// comparisons it finished earlier), or a fresh temporary directory, removed at the end.
struct SpecialRowsDir {
    std::string path;
    bool temporary = false;  ///< removed when this goes
    bool until_done = false; ///< FILE.rows: removed by done()

    SpecialRowsDir(const cli::Options& o, bool several_ranks) {
        const std::string& checkpoint = o.backend_options.checkpoint.path;
        const bool rows = !o.traceback.empty() && o.traceback_disk > 0 && !searches_alone(o, several_ranks);
        if (!o.traceback_dir.empty()) {
            make(o.traceback_dir, "--traceback-dir");
        } else if (rows && !checkpoint.empty()) {
            make(checkpoint + ".rows", "--checkpoint");
            until_done = true;
        } else if (rows && !several_ranks) {  // ranks on other nodes could not see one temporary directory
            const char* tmp = std::getenv("TMPDIR");
            std::string pattern = std::string(tmp && *tmp ? tmp : "/tmp") + "/chromalign-rows-XXXXXX";
            if (!mkdtemp(pattern.data())) throw Error("cannot make a temporary directory for special rows: " + pattern);
            path = pattern;
            temporary = true;
        }
    }
    ~SpecialRowsDir() {
        std::error_code ec;
        if (temporary) std::filesystem::remove_all(path, ec);
    }
    SpecialRowsDir(const SpecialRowsDir&) = delete;
    SpecialRowsDir& operator=(const SpecialRowsDir&) = delete;

    /// Kept across runs of one job (their stage 1 records are taken up, their walks journalled).
    bool kept() const { return !path.empty() && !temporary; }
    /// The job is done: FILE.rows goes, as its checkpoint does.
    void done() const {
        std::error_code ec;
        if (until_done) std::filesystem::remove_all(path, ec);
    }

private:
    /// DIR itself, not its parents: a missing parent is refused, as for any output.
    void make(const std::string& dir, const std::string& option) {
        namespace fs = std::filesystem;
        std::error_code ec;
        const fs::path parent = fs::path(dir).lexically_normal().parent_path();
        if (!parent.empty() && !fs::is_directory(parent, ec))
            throw Error(option + " " + dir + ": no directory " + parent.string());
        fs::create_directory(dir, ec);
        if (!fs::is_directory(dir)) throw Error(option + ": cannot make directory '" + dir + "'");
        path = dir;
    }
};

/// This process's place in a run over several ranks (mpirun/srun); one rank otherwise.
struct RankInfo {
    /// Set when there are several ranks: the link of slab `local` of this process.
    std::function<std::unique_ptr<SlabLink>(SlabGroup&, int local)> link;
    int rank = 0, ranks = 1, local_rank = 0;
};

/// Refuses an output that could never be written, before stage 1 spends hours and the result is
/// lost: a file in a directory that is missing or not writable, or a directory ("-" passes).
void check_writable(const std::string& option, const std::string& path) {
    if (path.empty() || path == "-") return;
    namespace fs = std::filesystem;
    std::error_code ec;
    if (fs::is_directory(path, ec)) throw Error(option + " " + path + ": is a directory, not a file");
    const fs::path parent = fs::path(path).parent_path();
    const std::string dir = parent.empty() ? "." : parent.string();
    if (!fs::is_directory(dir, ec)) throw Error(option + " " + path + ": no directory " + dir);
    if (::access(dir.c_str(), W_OK) != 0)
        throw Error(option + " " + path + ": cannot write in " + dir + ": " + std::strerror(errno));
    if (fs::exists(path, ec) && ::access(path.c_str(), W_OK) != 0)
        throw Error(option + " " + path + ": cannot write it: " + std::strerror(errno));
}

/// Refuses a directory `option` names that is missing or not writable: found at the first
/// checkpoint, it would be a warning at each one and no file kept.
void check_directory(const std::string& option, const std::string& dir) {
    if (dir.empty()) return;
    std::error_code ec;
    if (!std::filesystem::is_directory(dir, ec)) throw Error(option + " " + dir + ": no such directory");
    if (::access(dir.c_str(), W_OK) != 0) throw Error(option + " " + dir + ": cannot write in it: " + std::strerror(errno));
}

/// One stage 1 in this process alone.
Stage1Outcome run_alone(Backend& backend, const Sequence& s0, const Sequence& s1, const Scoring& scoring,
                        const BackendOptions& run) {
    const AlignmentEnd best = backend.align_run(s0, s1, scoring, run);
    return Stage1Outcome{best, backend.cells_pruned(), backend.cells_resumed(), backend.record_bests()};
}

/// One stage 1 over this process's slabs and the other ranks' (mpirun, srun).
Stage1Runner slab_runner(Backend& backend, const RankInfo& ranks, int& slabs) {
    SlabEngine* engine = backend.slab_engine();
    if (!engine) throw Error("the " + backend.name() + " backend cannot run over several ranks (use cpu or cuda)");
    slabs = engine->slabs_per_process();
    auto noted = std::make_shared<std::set<std::string>>();  // short records told of (both strands meet them)
    return [engine, &backend, &ranks, noted](const Sequence& s0, const Sequence& s1, const Scoring& scoring,
                                             const BackendOptions& run) {
        {
            SlabGroup group(engine->slabs_per_process());
            const auto link_for = [&](int local) { return ranks.link(group, local); };
            const SlabRunResult r = run_slabs(s0, s1, scoring, *engine, group, link_for, run);
            if (!r.too_narrow) return Stage1Outcome{r.best, r.cells_pruned, r.cells_resumed, r.records};
        }
        // An S1 record too short to cut over every rank's slabs (a genome's plasmid or short
        // contig): each rank computes it alone, as one process would, and so holds the answer
        // the job goes on from, with no messages; rank 0 alone keeps its checkpoint and rows.
        BackendOptions alone = run;
        if (ranks.rank == 0) {
            if (run.on_note && noted->insert(s1.name).second)
                run.on_note("S1 record '" + s1.name + "' (" + std::to_string(s1.length()) +
                            " bases) is too short to cut over " + std::to_string(ranks.ranks * engine->slabs_per_process()) +
                            " column slabs: each rank computes it alone");
        } else {
            alone.checkpoint.path.clear();
            alone.special_rows.dir.clear();
            alone.on_progress = nullptr;
        }
        return run_alone(backend, s0, s1, scoring, alone);
    };
}

/// What the report says of one record pair (`alignments`: --alignments).
cli::PairReport pair_report(const JobSpec& spec, const PairAnswer& a, int alignments) {
    const RecordPair& p = spec.pairs[a.pair];
    cli::PairReport r;
    r.s0 = info_of(spec.s0[p.s0]);
    r.s1 = info_of(spec.s1[p.s1]);
    r.strand = a.strand;
    r.result = a.best;
    r.cells = a.cells;
    r.cells_pruned = a.cells_pruned;
    r.cells_resumed = a.cells_resumed;
    r.seconds = a.seconds;
    r.bound = a.bound;
    if (a.alignment) {
        r.alignment = &*a.alignment;
        r.traceback_seconds = a.traceback_seconds;
        r.special_rows = a.special_rows;
        r.traceback = a.traceback;
    }
    if (alignments > 1 && a.alignment) {
        r.others = &a.others;
        r.declump = a.declump;
        r.declump_seconds = a.declump_seconds;
    }
    return r;
}

/// The best pair's path over its matrix (--plot), on S1's forward strand.
void write_plot(const std::string& path, const JobSpec& spec, const PairAnswer& best) {
    const RecordPair& p = spec.pairs[best.pair];
    const Sequence& forward = spec.s1[p.s1];
    const Sequence s1 = best.strand == Strand::kForward ? forward : reverse_complement(forward);
    const Alignment none;
    io::write_alignment_plot(path, spec.s0[p.s0], s1, best.alignment ? *best.alignment : none,
                             io::ScoreMap{SpecialRows::kPeakColumns, best.score_map}, best.strand);
}

/// Every pair's alignments over the two genomes (--plot with --alignments K > 1).
void write_genome_plot(const std::string& path, const JobSpec& spec, const JobResult& result, int32_t min_score) {
    std::vector<io::PlottedAlignment> drawn;
    for (const PairAnswer& a : result.answers) {
        if (a.best.score < min_score || !a.alignment) continue;
        const RecordPair& p = spec.pairs[a.pair];
        drawn.push_back({p.s0, p.s1, a.strand, &*a.alignment, 1});
        for (size_t k = 0; k < a.others.size(); ++k)
            drawn.push_back({p.s0, p.s1, a.others[k].strand, &a.others[k].alignment, static_cast<int>(k) + 2});
    }
    io::write_genome_plot(path, spec.s0, spec.s1, drawn);
}

/// Whether two paths name one file: the same device and inode where both exist, else the same
/// path once made absolute and free of `.`, `..` and links.
bool same_file(const std::string& a, const std::string& b) {
    struct stat sa{}, sb{};
    const bool ea = ::stat(a.c_str(), &sa) == 0, eb = ::stat(b.c_str(), &sb) == 0;
    if (ea && eb) return sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
    if (ea != eb) return false;
    std::error_code ec;
    return std::filesystem::weakly_canonical(a, ec) == std::filesystem::weakly_canonical(b, ec);
}

/// Refuses an output path that is where another output already goes through a standard
/// stream: --traceback /dev/stdout (or /proc/self/fd/1) beside the result on standard output
/// interleaves the two in the pipe or file behind it, as --traceback - -o - would (a usage
/// error). A terminal or /dev/null (character devices) takes both as it does stderr's notes.
void check_one_stream(const cli::Options& o) {
    struct Stream {
        std::string what;
        bool named;  ///< a path the user gave, not a standard stream the program chose
        struct stat st;
    };
    std::vector<Stream> streams;
    const auto add = [&](const std::string& what, const std::string& path, int fd) {
        struct stat st{};
        if (fd >= 0 ? ::fstat(fd, &st) != 0 : path.empty() || ::stat(path.c_str(), &st) != 0) return;
        if (!S_ISCHR(st.st_mode)) streams.push_back({what, fd < 0, st});
    };
    // Where the result goes (main's report): standard error when the alignment takes standard
    // output, else standard output or the file -o names.
    if (o.output.empty() && o.traceback == "-")
        add("the result (standard error)", "", STDERR_FILENO);
    else if (o.output.empty() || o.output == "-")
        add("the result (standard output)", "", STDOUT_FILENO);
    else
        add("-o " + o.output, o.output, -1);
    if (o.traceback == "-")
        add("--traceback - (standard output)", "", STDOUT_FILENO);
    else
        add("--traceback " + o.traceback, o.traceback, -1);
    add("--plot " + o.plot, o.plot, -1);
    for (size_t k = 0; k < streams.size(); ++k)
        for (size_t l = k + 1; l < streams.size(); ++l)
            if ((streams[k].named || streams[l].named) && streams[k].st.st_dev == streams[l].st.st_dev &&
                streams[k].st.st_ino == streams[l].st.st_ino)
                throw Error(streams[k].what + " and " + streams[l].what +
                            " are one stream, where the two would interleave: name another file for one");
}

/// Refuses, before stage 1, an output that would overwrite an input or another output.
void check_distinct_files(const cli::Options& o) {
    const std::vector<std::pair<std::string, std::string>> outputs = {
        {"-o", o.output}, {"--traceback", o.traceback}, {"--plot", o.plot}};
    std::vector<std::pair<std::string, std::string>> inputs = {
        {"S0", o.s0_path}, {"S1", o.s1_path}, {"--matrix", o.matrix_file}, {"--checkpoint", o.backend_options.checkpoint.path}};
    inputs.insert(inputs.end(), o.option_files.begin(), o.option_files.end());
    // Only a regular file (or one still to be made) can be overwritten: /dev/null twice is fine.
    const auto replaceable = [](const std::string& path) {
        struct stat st{};
        return !path.empty() && path != "-" && (::stat(path.c_str(), &st) != 0 || S_ISREG(st.st_mode));
    };
    for (size_t k = 0; k < outputs.size(); ++k) {
        const auto& [option, path] = outputs[k];
        if (!replaceable(path)) continue;
        for (const auto& [what, input] : inputs)
            if (!input.empty() && same_file(path, input))
                throw Error(option + " " + path + " is " + what + " (" + input + "): it would be overwritten");
        for (size_t l = k + 1; l < outputs.size(); ++l)
            if (replaceable(outputs[l].second) && same_file(path, outputs[l].second))
                throw Error(option + " and " + outputs[l].first + " name one file, " + path);
    }
    check_one_stream(o);
}

/// Refuses S0 and S1 that are one stream (standard input, or one FIFO): it can be read only
/// once, and a second read would fail or wait for a writer for ever.
void check_inputs_readable(const cli::Options& o) {
    struct stat st{};
    const bool stream = o.s0_path == "-" || (::stat(o.s0_path.c_str(), &st) == 0 && !S_ISREG(st.st_mode));
    if (stream && (o.s0_path == o.s1_path || same_file(o.s0_path, o.s1_path)))
        throw Error("S0 and S1 are one stream (" + (o.s0_path == "-" ? std::string("standard input") : o.s0_path) +
                    "), which can be read only once: save it to a file and give that twice");
}

int run(const cli::Options& o, const std::string& command_line, const RankInfo& ranks) {
    const auto wall_start = std::chrono::steady_clock::now();
    check_inputs_readable(o);
    check_distinct_files(o);
    check_writable("-o", o.output);
    check_writable("--traceback", o.traceback);
    check_writable("--plot", o.plot);  // (a checkpoint warns at once, or stops with --checkpoint-strict)
    check_directory("--keep-rows", o.backend_options.checkpoint.keep_rows_dir);
    const io::AlignmentFormat format = o.alignment_format.empty() ? io::alignment_format_of(o.traceback)
                                                                  : io::parse_alignment_format(o.alignment_format);
    // Several ranks: rank 0 speaks for the job; the others only report their warnings.
    const bool speaks = ranks.rank == 0;
    std::vector<std::string> notes;
    const JobSpec spec = cli::load_job(o, &notes);
    spec.validate();
    if (!o.traceback.empty())
        for (const Sequence& s : spec.s0) io::require_query_name(s.name, format);
    if (!o.quiet && speaks)
        for (const auto& n : notes) std::cerr << "chromalign: note: " << n << "\n";
    const SpecialRowsDir rows_dir(o, ranks.link != nullptr);

    ProgressPrinter printer(!o.quiet && speaks, spec.comparisons());
    JobOptions jo;
    jo.backend = o.backend_options;
    jo.on_progress = [&printer](const Progress& p, int64_t comparison) { printer(p, comparison); };
    jo.backend.on_note = jo.on_note = [&o, &ranks, speaks](const std::string& text) {
        if (o.quiet) return;
        if (speaks)
            std::cerr << "chromalign: " << text << "\n";
        else if (text.compare(0, 7, "warning") == 0)
            std::cerr << "chromalign: rank " << ranks.rank << ": " << text << "\n";
    };
    jo.backend.special_rows.budget_bytes = o.traceback_disk;
    if (!jo.backend.checkpoint.path.empty()) {
        jo.backend.checkpoint.stop = &g_stop_signal;
        install_stop_handlers();
    }
    if (ranks.link && !o.device_given) {
        const int devices = backend_devices(o.backend);
        jo.backend.device = devices > 0 ? ranks.local_rank % devices : 0;
    }
    jo.traceback = !o.traceback.empty();
    jo.min_score = o.min_score;
    jo.alignments = o.alignments;
    jo.declump_bytes = o.alignments_memory;
    jo.search_alone = searches_alone(o, ranks.link != nullptr);
    jo.rows_dir = rows_dir.path;
    jo.rows_kept = rows_dir.kept();
    jo.drop_traced_rows = rows_dir.temporary || rows_dir.until_done;
    jo.traceback_only = o.traceback_only;
    jo.score_maps = !o.plot.empty();
    jo.stack = o.stack;
    Minimap2Bound minimap2;
    if (o.bound == "minimap2") jo.bound = &minimap2;
    jo.s0_path = absolute_path(o.s0_path);
    jo.s1_path = absolute_path(o.s1_path);
    jo.writer = speaks;
    if (jo.traceback_only && ranks.link) throw Error("a traceback from stage 1 records runs in one process (not under mpirun)");
    auto backend = make_backend(o.backend, jo.backend);
    if (!o.quiet && speaks)  // --alignments K > 1 needs --traceback (cli_options.cpp)
        std::cerr << "chromalign: " << cli::job_plan(spec, backend->nominal_gcups(), jo.alignments) << "\n";
    if (jo.rows_kept && speaks && !o.traceback_only) {
        JobRecord record{jo.s0_path, jo.s1_path, {}, spec.strands, spec.scoring};
        for (const RecordPair& p : spec.pairs)
            record.pairs.emplace_back(selector_of(spec.s0[p.s0]), selector_of(spec.s1[p.s1]));
        write_job_record(rows_dir.path, record);
    }
    int slabs = 1;
    const Stage1Runner stage1 =
        ranks.link ? slab_runner(*backend, ranks, slabs)
                   : Stage1Runner([&backend](const Sequence& s0, const Sequence& s1, const Scoring& scoring,
                                             const BackendOptions& run) { return run_alone(*backend, s0, s1, scoring, run); });
    const JobResult result = run_job(spec, jo, *backend, stage1);
    printer.finish();
    if (speaks) rows_dir.done();
    if (!speaks) return 0;

    cli::RunReport report;
    for (const PairAnswer& a : result.answers) report.pairs.push_back(pair_report(spec, a, o.alignments));
    report.strands = spec.strands;
    report.s0_records = static_cast<int64_t>(spec.s0.size());
    report.s1_records = static_cast<int64_t>(spec.s1.size());
    report.scoring = o.scoring;
    report.matrix_file = o.matrix_file;
    report.seconds = result.seconds;
    report.backend = backend->name();
    report.device = backend->device();
    if (ranks.link)
        report.device += ", rank 0 of " + std::to_string(ranks.ranks) + " (" + std::to_string(slabs * ranks.ranks) +
                         " column slabs over MPI)";
    report.layout = backend->layout();
    report.device_bytes = backend->device_bytes();
    // An alignment that cannot be written does not take the result with it: that is written
    // first, and the failure reported after.
    std::optional<Error> unwritten;
    if (!o.traceback.empty()) {
        try {
            cli::write_whole(o.traceback, [&](const std::string& target) {
                cli::write_job_alignments(target, format, spec, result, o.min_score, o.alignments, command_line);
            });
        } catch (const Error& e) {
            unwritten = e;
        }
        if (!o.plot.empty())
            cli::write_whole(o.plot, [&](const std::string& target) {
                if (o.alignments > 1)
                    write_genome_plot(target, spec, result, o.min_score);
                else
                    write_plot(target, spec, result.answers.front());
            });
    }
    const std::string text = cli::format_report(report, o.format);
    if (o.output.empty() && o.traceback == "-") {  // standard output holds the alignment, for a pipe
        std::cerr << text << std::flush;
    } else if (o.output.empty() || o.output == "-") {
        std::cout << text << std::flush;
        if (!std::cout) throw Error("cannot write the result to standard output");
    } else {
        cli::write_whole(o.output, [&text](const std::string& target) {
            std::ofstream out(target);
            out << text;
            out.close();
            if (!out) throw Error("cannot write the result to '" + target + "'");
        });
    }
    if (!o.quiet) {
        const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - wall_start).count();
        std::fprintf(stderr, "chromalign %s: %s\n", kVersion, command_line.c_str());
        std::fprintf(stderr, "chromalign %s: %s backend, wall %.3f s (align %.3f s", kVersion, report.backend.c_str(),
                     wall, report.seconds);
        if (!o.traceback.empty()) std::fprintf(stderr, ", traceback %.3f s", result.traceback_seconds);
        std::fprintf(stderr, "), %.2f GCUPS, peak memory %.1f MiB", report.gcups(), peak_memory_mib());
        if (report.device_bytes)
            std::fprintf(stderr, ", device memory %.1f MiB", report.device_bytes / 1048576.0);
        std::fprintf(stderr, ", %.1f%% of cells pruned", 100.0 * report.pruned_fraction());
        const cli::PairReport& best = report.pairs.front();
        if (!best.bound.source.empty()) {
            const std::string table = best.bound.table_k > 0 ? ", gain table of " + std::to_string(best.bound.table_k) +
                                                                   "-mers in " + cli::fixed(best.bound.table_seconds, 2) + " s"
                                                             : "";
            std::fprintf(stderr, " (bound %d from %s in %.2f s%s%s)", best.bound.score, best.bound.source.c_str(),
                         best.bound.seconds, best.bound.in_time ? "" : ", after stage 1", table.c_str());
        }
        std::fputc('\n', stderr);
    }
    if (unwritten) throw *unwritten;
    return 0;
}

}  // namespace

int main(int argc, char** argv) {
    // Past a file size limit (ulimit -f) a write then fails with EFBIG, which the checkpoint
    // writer reports and survives, instead of SIGXFSZ killing the run with nothing said.
    std::signal(SIGXFSZ, SIG_IGN);
    RankInfo ranks;
#ifdef CHROMALIGN_HAVE_MPI
    std::unique_ptr<MpiSession> mpi;
    if (MpiSession::launched_by_mpi()) {
        mpi = std::make_unique<MpiSession>(&argc, &argv);
        ranks.rank = mpi->rank();
        ranks.ranks = mpi->ranks();
        ranks.local_rank = mpi->local_rank();
        if (mpi->ranks() > 1)
            ranks.link = [&mpi](SlabGroup& group, int local) { return std::make_unique<MpiLink>(*mpi, group, local); };
    }
    // An error on one rank would leave the others waiting for its edges: end the whole job.
    auto fail = [&](int code) {
        if (ranks.link) mpi->abort(code);
        return code;
    };
    const std::string who = ranks.link ? "chromalign: rank " + std::to_string(ranks.rank) + ": " : "chromalign: ";
#else
    auto fail = [](int code) { return code; };
    const std::string who = "chromalign: ";
#endif
    cli::Options options;
    try {
        const bool traceback = argc > 1 && std::string(argv[1]) == "traceback";
        options = traceback ? traceback_command(argc, argv) : cli::parse_options(argc, argv);
    } catch (const cli::UsageError& e) {
        if (ranks.rank == 0) std::cerr << "chromalign: " << e.what() << " (see chromalign --help)\n";
        return 2;  // every rank parses the same command line and stops here alike
    } catch (const Error& e) {  // a traceback directory's damaged record
        if (ranks.rank == 0) std::cerr << "chromalign: " << e.what() << "\n";
        return 1;
    }
    if (options.help) {
        if (ranks.rank == 0) std::cout << options.help_text;
        return 0;
    }
    if (options.version) {
        if (ranks.rank == 0) std::cout << "chromalign " << kVersion << "\n";
        return 0;
    }
    try {
        std::string command_line = argv[0];
        for (int i = 1; i < argc; ++i) command_line += std::string(" ") + argv[i];
        return run(options, command_line, ranks);
    } catch (const Interrupted& e) {  // every rank stops at the same checkpoint
        if (ranks.rank == 0) std::cerr << "chromalign: " << e.what() << "\n";
        return 128 + e.signal_number();
    } catch (const std::bad_alloc&) {
        std::cerr << who << "out of memory\n";
    } catch (const std::exception& e) {
        std::cerr << who << e.what() << "\n";
    }
    return fail(1);
}
