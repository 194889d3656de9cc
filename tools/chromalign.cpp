//! @file chromalign: compare two sequences with exact Smith-Waterman and report the best local score.
#include <sys/resource.h>
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

#include "kernels/registry.hpp"
#include "engine/error.hpp"
#include "engine/orchestration/slab_run.hpp"
#include "engine/version.hpp"
#include "engine/traceback/engine_sweeper.hpp"
#include "engine/traceback/linear_traceback.hpp"
#include "engine/traceback/special_rows.hpp"
#include "io/alignment_formats.hpp"
#include "io/alignment_plot.hpp"
#include "io/fasta.hpp"
#include "tools/cli_options.hpp"
#include "tools/report.hpp"
#include "tools/stage1_record.hpp"
#include "tools/traceback_journal.hpp"
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

/// One progress line on stderr: rewritten in place on a terminal, else a line a minute.
class ProgressPrinter {
public:
    explicit ProgressPrinter(bool enabled) : enabled_(enabled), tty_(isatty(STDERR_FILENO) != 0) {}

    void operator()(const Progress& p) {
        if (!enabled_ || (!tty_ && p.seconds - last_line_ < 60)) return;
        last_line_ = p.seconds;
        const double done = p.cells_total ? static_cast<double>(p.cells_done) / p.cells_total : 0;
        // GCUPS counts skipped cells as done (as the run's summary does); the ETA divides the
        // cells still to compute by the rate of computed ones.
        const double rate = p.seconds > 0 ? p.cells_this_run / p.seconds : 0;
        const double computed = p.seconds > 0 ? (p.cells_this_run - p.cells_pruned) / p.seconds : 0;
        const double eta = computed > 0 ? p.cells_left_live / computed : 0;
        std::fprintf(stderr, "%s%5.1f%% done, %.2f GCUPS, %.0f s elapsed, ETA %.0f s, best so far %d%s",
                     tty_ ? "\r" : "", 100 * done, rate / 1e9, p.seconds, eta, p.best_score,
                     tty_ ? "   " : "\n");
        printed_ = true;
    }
    void finish() {
        if (printed_ && tty_) std::fputc('\n', stderr);
    }

private:
    bool enabled_, tty_;
    bool printed_ = false;
    double last_line_ = -1e9;
};

cli::SequenceInfo info_of(const Sequence& s) {
    return {s.name, s.source, s.length(), s.offset, s.record_length(), s.region()};
}

std::string absolute_path(const std::string& path) {
    std::error_code ec;
    const auto p = std::filesystem::absolute(path, ec);
    return ec ? path : p.string();
}

/// A record selector as --s0-record takes it.
std::string selector_text(const io::RecordSelector& r) {
    if (!r.has_region()) return r.record;
    return r.record + ":" + std::to_string(r.start) + "-" + std::to_string(r.end);
}

/// `chromalign traceback DIR [options] [S0 S1]`: the options of a run that takes stage 1's
/// result, sequences and scoring from DIR's record. Throws cli::UsageError.
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
    std::optional<cli::Stage1Record> record;
    try {
        record = cli::read_stage1_record(dir);
    } catch (const Error& e) {
        throw cli::UsageError(e.what());
    }
    if (!record) throw cli::UsageError(cli::stage1_record_path(dir) + ": no stage 1 record (run stage 1 with --traceback-dir " + dir + ")");
    if (!cli::same_scoring(o.scoring, Scoring()) && !cli::same_scoring(o.scoring, record->scoring))
        throw cli::UsageError("chromalign traceback takes its scoring from " + cli::stage1_record_path(dir));
    if (o.s0_path.empty()) {
        o.s0_path = record->s0_path;
        o.s1_path = record->s1_path;
    }
    o.s0_record = io::parse_selector(record->s0_record);
    o.s1_record = io::parse_selector(record->s1_record);
    o.scoring = record->scoring;
    o.matrix_file.clear();
    o.preset.clear();
    o.traceback_dir = dir;
    o.traceback_only = true;
    return o;
}

/// Where stage 1 keeps its special rows and its record: --traceback-dir (made if missing,
/// kept), else for --traceback a fresh temporary directory removed at the end.
struct SpecialRowsDir {
    std::string path;
    bool temporary = false;

    SpecialRowsDir(const cli::Options& o, bool several_ranks) {
        if (!o.traceback_dir.empty()) {
            std::error_code ec;
            std::filesystem::create_directories(o.traceback_dir, ec);
            if (!std::filesystem::is_directory(o.traceback_dir))
                throw Error("--traceback-dir: cannot make directory '" + o.traceback_dir + "'");
            path = o.traceback_dir;
            return;
        }
        if (o.traceback.empty() || o.traceback_disk == 0) return;
        if (several_ranks) return;  // ranks on other nodes could not see one temporary directory
        const char* tmp = std::getenv("TMPDIR");
        std::string pattern = std::string(tmp && *tmp ? tmp : "/tmp") + "/chromalign-rows-XXXXXX";
        if (!mkdtemp(pattern.data())) throw Error("cannot make a temporary directory for special rows: " + pattern);
        path = pattern;
        temporary = true;
    }
    ~SpecialRowsDir() {
        std::error_code ec;
        if (temporary) std::filesystem::remove_all(path, ec);
    }
    SpecialRowsDir(const SpecialRowsDir&) = delete;
    SpecialRowsDir& operator=(const SpecialRowsDir&) = delete;
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

int run(const cli::Options& o, const std::string& command_line, const RankInfo& ranks) {
    const auto wall_start = std::chrono::steady_clock::now();
    check_writable("-o", o.output);
    check_writable("--traceback", o.traceback);
    check_writable("--plot", o.plot);  // (a checkpoint warns at once, or stops with --checkpoint-strict)
    std::vector<std::string> notes;
    const Sequence s0 = io::read_fasta(o.s0_path, o.s0_record, &notes);
    const Sequence s1 = io::read_fasta(o.s1_path, o.s1_record, &notes);
    if (!o.quiet)
        for (const auto& n : notes) std::cerr << "chromalign: note: " << n << "\n";
    o.scoring.check_no_overflow(s0.length(), s1.length());
    const SpecialRowsDir rows_dir(o, ranks.link != nullptr);

    // Several ranks: rank 0 speaks for the job; the others only report their warnings.
    const bool speaks = ranks.rank == 0;
    ProgressPrinter printer(!o.quiet && speaks);
    BackendOptions bo = o.backend_options;
    bo.on_progress = [&printer](const Progress& p) { printer(p); };
    bo.on_note = [&o, &ranks, speaks](const std::string& text) {
        if (o.quiet) return;
        if (speaks)
            std::cerr << "chromalign: " << text << "\n";
        else if (text.compare(0, 7, "warning") == 0)
            std::cerr << "chromalign: rank " << ranks.rank << ": " << text << "\n";
    };
    bo.special_rows.dir = rows_dir.path;
    bo.special_rows.budget_bytes = o.traceback_disk;
    if (!bo.checkpoint.path.empty()) {
        bo.checkpoint.stop = &g_stop_signal;
        install_stop_handlers();
    }
    if (ranks.link && !o.device_given) {
        const int devices = backend_devices(o.backend);
        bo.device = devices > 0 ? ranks.local_rank % devices : 0;
    }
    auto backend = make_backend(o.backend, bo);
    // Hashed once, for the stage 1 record, the special rows and the journal.
    const RowsIdentity identity = rows_dir.path.empty() ? RowsIdentity{} : rows_identity(s0, s1);
    const auto start = std::chrono::steady_clock::now();
    AlignmentEnd result;
    int64_t cells_pruned = 0, cells_resumed = 0;
    int slabs = 1;
    // A record of this very comparison in --traceback-dir: stage 1 is done (traceback later).
    std::optional<cli::Stage1Record> done;
    if (!o.traceback.empty() && !o.traceback_dir.empty()) {
        done = cli::read_stage1_record(o.traceback_dir);
        if (done && !cli::same_comparison(*done, identity, o.scoring)) {
            if (o.traceback_only)
                throw Error(cli::stage1_record_path(o.traceback_dir) + " is of another comparison than " + o.s0_path +
                            " x " + o.s1_path + " (sequences or scoring differ)");
            if (!o.quiet && speaks)
                std::cerr << "chromalign: note: " << cli::stage1_record_path(o.traceback_dir)
                          << " is of another comparison: running stage 1\n";
            done.reset();
        }
        if (done && ranks.link) throw Error("a traceback from a stage 1 record runs in one process (not under mpirun)");
    }
    if (o.traceback_only && !done)
        throw Error(cli::stage1_record_path(o.traceback_dir) + ": no stage 1 record (run stage 1 with --traceback-dir first)");
    if (done) {
        result = done->result;
        cells_resumed = s0.length() * s1.length();  // all of stage 1 was done before
        if (!o.quiet) std::cerr << "chromalign: stage 1's result from " << cli::stage1_record_path(o.traceback_dir) << "\n";
    } else if (ranks.link) {
        SlabEngine* engine = backend->slab_engine();
        if (!engine) throw Error("the " + backend->name() + " backend cannot run over several ranks (use cpu or cuda)");
        slabs = engine->slabs_per_process();
        SlabGroup group(slabs);
        const auto link_for = [&](int local) { return ranks.link(group, local); };
        const SlabRunResult run = run_slabs(s0, s1, o.scoring, *engine, group, link_for, bo);
        result = run.best;
        cells_pruned = run.cells_pruned;
        cells_resumed = run.cells_resumed;
    } else {
        result = backend->align(s0, s1, o.scoring);
        cells_pruned = backend->cells_pruned();
        cells_resumed = backend->cells_resumed();
    }
    const auto stop = std::chrono::steady_clock::now();
    printer.finish();
    if (!done && !o.traceback_dir.empty() && speaks)
        cli::write_stage1_record(o.traceback_dir, {absolute_path(o.s0_path), selector_text(o.s0_record),
                                                   absolute_path(o.s1_path), selector_text(o.s1_record), identity,
                                                   o.scoring, result});
    if (!speaks) return 0;

    cli::RunReport report;
    report.s0 = info_of(s0);
    report.s1 = info_of(s1);
    report.scoring = o.scoring;
    report.matrix_file = o.matrix_file;
    report.result = result;
    report.seconds = std::chrono::duration<double>(stop - start).count();
    report.backend = backend->name();
    report.device = backend->device();
    if (ranks.link)
        report.device += ", rank 0 of " + std::to_string(ranks.ranks) + " (" + std::to_string(slabs * ranks.ranks) +
                         " column slabs over MPI)";
    report.layout = backend->layout();
    report.device_bytes = backend->device_bytes();
    report.cells_pruned = cells_pruned;
    report.cells_resumed = cells_resumed;
    Alignment alignment;
    if (!o.traceback.empty()) {
        const auto traceback_start = std::chrono::steady_clock::now();
        std::unique_ptr<RowSource> rows = std::make_unique<FirstRowOnly>();
        io::ScoreMap map;  // for --plot
        if (!rows_dir.path.empty()) {
            auto special = std::make_unique<SpecialRows>(rows_dir.path, identity, o.scoring);
            report.special_rows = special->count();
            if (!o.plot.empty()) map = io::ScoreMap{SpecialRows::kPeakColumns, special->region_peaks()};
            rows = std::move(special);
        }
        if (!o.quiet)
            std::fprintf(stderr, "chromalign: best score %d at %lld, %lld after %.3f s; tracing back from %lld special rows\n",
                         result.score, static_cast<long long>(s0.in_record(result.s0_end)),
                         static_cast<long long>(s1.in_record(result.s1_end)),
                         report.seconds, static_cast<long long>(report.special_rows));
        TracebackCounts counts;
        // A tiled backend sweeps the large windows on its engine, the scalar sweep otherwise.
        std::unique_ptr<EngineSweeper> sweeper;
        if (SlabEngine* engine = backend->slab_engine()) sweeper = std::make_unique<EngineSweeper>(*engine, s0, s1, o.scoring);
        // In a kept --traceback-dir the walk is saved as it goes, and a rerun takes it up.
        std::unique_ptr<cli::FileJournal> journal;
        if (!rows_dir.path.empty() && !rows_dir.temporary) {
            journal = std::make_unique<cli::FileJournal>(rows_dir.path, identity, o.scoring, result,
                                                         o.backend_options.checkpoint.every_seconds);
            if (TracebackPoint saved; !o.quiet && journal->load(saved))
                std::cerr << "chromalign: taking up the traceback at row " << saved.i << " from " << journal->path()
                          << "\n";
        }
        alignment = linear_traceback(s0, s1, o.scoring, result, *rows, {}, &counts, sweeper.get(), journal.get());
        if (journal) journal->finish();
        report.traceback_cells = counts.cells;
        report.traceback_swept_cells = counts.swept_cells;
        report.traceback_sweep_seconds = counts.sweep_seconds;
        report.traceback_windows_ahead = counts.ahead;
        report.traceback_walked_ahead = counts.walked_ahead;
        report.traceback_joined = counts.joined;
        if (rescore(alignment, s0, s1, o.scoring) != result.score)
            throw Error("internal: the alignment found does not score " + std::to_string(result.score));
        report.traceback_seconds =
            std::chrono::duration<double>(std::chrono::steady_clock::now() - traceback_start).count();
        const io::AlignmentFormat format = o.alignment_format.empty() ? io::alignment_format_of(o.traceback)
                                                                      : io::parse_alignment_format(o.alignment_format);
        io::write_alignment(o.traceback, format, io::AlignedPair{s0, s1, alignment, command_line});
        if (!o.plot.empty()) io::write_alignment_plot(o.plot, s0, s1, alignment, map);
        report.alignment = &alignment;
    }
    const std::string text = cli::format_report(report, o.format);
    if (o.output.empty() && o.traceback == "-") {  // standard output holds the alignment, for a pipe
        std::cerr << text << std::flush;
    } else if (o.output.empty() || o.output == "-") {
        std::cout << text << std::flush;
        if (!std::cout) throw Error("cannot write the result to standard output");
    } else {
        std::ofstream out(o.output);
        out << text;
        out.close();
        if (!out) throw Error("cannot write the result to '" + o.output + "'");
    }
    if (!o.quiet) {
        const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - wall_start).count();
        std::fprintf(stderr, "chromalign %s: %s\n", kVersion, command_line.c_str());
        std::fprintf(stderr, "chromalign %s: %s backend, wall %.3f s (align %.3f s), %.2f GCUPS, peak memory %.1f MiB",
                     kVersion, report.backend.c_str(), wall, report.seconds, report.gcups(), peak_memory_mib());
        if (report.device_bytes)
            std::fprintf(stderr, ", device memory %.1f MiB", report.device_bytes / 1048576.0);
        std::fprintf(stderr, ", %.1f%% of cells pruned", 100.0 * report.pruned_fraction());
        std::fputc('\n', stderr);
    }
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
