//! @file chromalign: compare two sequences with exact Smith-Waterman and report the best local score.
#include <sys/resource.h>
#include <unistd.h>

#include <chrono>
#include <csignal>
#include <cstdio>
#include <fstream>
#include <iostream>

#include "engine/error.hpp"
#include "engine/version.hpp"
#include "io/fasta.hpp"
#include "tools/cli_options.hpp"
#include "tools/report.hpp"

namespace {

using namespace chromalign;

/// Set by SIGINT/SIGTERM while a checkpointed run is going: the engine writes one more
/// checkpoint, then throws Interrupted.
volatile std::sig_atomic_t g_stop_signal = 0;

extern "C" void on_stop_signal(int signal_number) { g_stop_signal = signal_number; }

void install_stop_handlers() {
    struct sigaction action{};
    action.sa_handler = on_stop_signal;
    sigemptyset(&action.sa_mask);
    sigaction(SIGINT, &action, nullptr);
    sigaction(SIGTERM, &action, nullptr);
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
        const double rate = p.seconds > 0 ? p.cells_this_run / p.seconds : 0;
        const double eta = rate > 0 ? (p.cells_total - p.cells_done) / rate : 0;
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

cli::SequenceInfo info_of(const Sequence& s) { return {s.name, s.source, s.length()}; }

int run(const cli::Options& o, const std::string& command_line) {
    const auto wall_start = std::chrono::steady_clock::now();
    std::vector<std::string> notes;
    const Sequence s0 = io::read_fasta(o.s0_path, o.s0_record, &notes);
    const Sequence s1 = io::read_fasta(o.s1_path, o.s1_record, &notes);
    if (!o.quiet)
        for (const auto& n : notes) std::cerr << "chromalign: note: " << n << "\n";
    o.scoring.check_no_overflow(s0.length(), s1.length());

    ProgressPrinter printer(!o.quiet);
    BackendOptions bo = o.backend_options;
    bo.on_progress = [&printer](const Progress& p) { printer(p); };
    bo.on_note = [&o](const std::string& text) {
        if (!o.quiet) std::cerr << "chromalign: " << text << "\n";
    };
    if (!bo.checkpoint.path.empty()) {
        bo.checkpoint.stop = &g_stop_signal;
        install_stop_handlers();
    }
    auto backend = make_backend(o.backend, bo);
    const auto start = std::chrono::steady_clock::now();
    const AlignmentEnd result = backend->align(s0, s1, o.scoring);
    const auto stop = std::chrono::steady_clock::now();
    printer.finish();

    cli::RunReport report;
    report.s0 = info_of(s0);
    report.s1 = info_of(s1);
    report.scoring = o.scoring;
    report.result = result;
    report.seconds = std::chrono::duration<double>(stop - start).count();
    report.backend = backend->name();
    report.device = backend->device();
    report.layout = backend->layout();
    report.device_bytes = backend->device_bytes();
    const std::string text = cli::format_report(report, o.format);
    if (o.output.empty()) {
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
        std::fputc('\n', stderr);
    }
    return 0;
}

}  // namespace

int main(int argc, char** argv) {
    cli::Options options;
    try {
        options = cli::parse_options(argc, argv);
    } catch (const cli::UsageError& e) {
        std::cerr << "chromalign: " << e.what() << " (see chromalign --help)\n";
        return 2;
    }
    if (options.help) {
        std::cout << options.help_text;
        return 0;
    }
    if (options.version) {
        std::cout << "chromalign " << kVersion << "\n";
        return 0;
    }
    try {
        std::string command_line = argv[0];
        for (int i = 1; i < argc; ++i) command_line += std::string(" ") + argv[i];
        return run(options, command_line);
    } catch (const Interrupted& e) {
        std::cerr << "chromalign: " << e.what() << "\n";
        return 128 + e.signal_number();
    } catch (const std::bad_alloc&) {
        std::cerr << "chromalign: out of memory\n";
    } catch (const std::exception& e) {
        std::cerr << "chromalign: " << e.what() << "\n";
    }
    return 1;
}
