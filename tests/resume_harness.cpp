//! @file Child-process runner for the interruption tests.
#include "tests/resume_harness.hpp"

#include <dirent.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <fstream>
#include <iterator>
#include <sstream>
#include <stdexcept>
#include <thread>

#include "io/fasta.hpp"
#include "tests/test_support.hpp"

namespace chromalign::test {
namespace {

/// Modification time of `path`, zero when it does not exist (or no path is given).
timespec modified(const std::string& path) {
    struct stat st{};
    if (path.empty() || stat(path.c_str(), &st) != 0) return timespec{0, 0};
    return st.st_mtim;
}

/// SIGKILL to every process of session `sid`: the child and whatever it started. mpirun puts
/// each rank in a process group of its own, and ranks outlive a killed mpirun for a while
/// (they may even finish and remove their checkpoint pieces), so killing mpirun alone is not
/// a kill of the whole job.
void kill_session(pid_t sid) {
    DIR* proc = opendir("/proc");
    if (!proc) return;
    while (const dirent* entry = readdir(proc)) {
        const pid_t pid = static_cast<pid_t>(std::atoi(entry->d_name));
        if (pid <= 0) continue;
        std::ifstream in("/proc/" + std::string(entry->d_name) + "/stat");
        std::string stat((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
        const size_t close = stat.rfind(')');  // the command name may hold spaces
        if (close == std::string::npos) continue;
        std::istringstream fields(stat.substr(close + 2));
        std::string state;
        long ppid = 0, pgrp = 0, session = 0;
        if (fields >> state >> ppid >> pgrp >> session && session == sid) ::kill(pid, SIGKILL);
    }
    closedir(proc);
}

std::string slurp(const std::string& path) {
    std::ifstream in(path);
    return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

}  // namespace

ResumeHarness::ResumeHarness(int64_t m, int64_t n, uint64_t seed) {
    char tmpl[] = "/tmp/chromalign-resume-XXXXXX";
    if (!mkdtemp(tmpl)) throw std::runtime_error("mkdtemp failed");
    dir_ = tmpl;
    std::mt19937_64 rng(seed);
    auto [s0, s1] = mutated_pair(m, n, rng);
    io::write_fasta(path("a.fa"), s0);
    io::write_fasta(path("b.fa"), s1);
}

ResumeHarness::~ResumeHarness() { std::system(("rm -rf " + dir_).c_str()); }

ChildRun ResumeHarness::run(const std::vector<std::string>& args, int signal_after_ms, int signal,
                            const std::string& after_new_file) const {
    // One comparison: the tests of checkpoints, stops and tracebacks look at its files alone
    // (jobs of several comparisons run through run_command). Without a bound, a run lasts long
    // enough for a stop to land mid-way (the bound would skip most of this mutated pair);
    // unless the caller names one.
    std::vector<std::string> all = {"-f", "tsv", "--strand", "forward"};
    if (std::find(args.begin(), args.end(), "--bound") == args.end()) all.insert(all.end(), {"--bound", "none"});
    all.insert(all.end(), args.begin(), args.end());
    all.push_back(path("a.fa"));
    all.push_back(path("b.fa"));
    return run_command(all, signal_after_ms, signal, after_new_file);
}

ChildRun ResumeHarness::run_limited(const std::string& limit, const std::vector<std::string>& args) {
    const std::vector<std::string> launcher = launcher_;
    launcher_ = {"sh", "-c", limit + "; exec \"$@\"", "sh"};
    launcher_.insert(launcher_.end(), launcher.begin(), launcher.end());
    ChildRun r = run(args);
    launcher_ = launcher;
    return r;
}

ChildRun ResumeHarness::run_command(const std::vector<std::string>& args, int signal_after_ms, int signal,
                                    const std::string& after_new_file) const {
    const timespec before = modified(after_new_file);
    // The GPU machine runs a copy of the binary elsewhere; $CHROMALIGN_CLI names it there.
    const char* cli = std::getenv("CHROMALIGN_CLI");
    std::vector<std::string> argv = launcher_;
    if (pace_us_ > 0) argv.insert(argv.begin(), {"env", "CHROMALIGN_TEST_PACE_US=" + std::to_string(pace_us_)});
    argv.push_back(cli && *cli ? cli : CHROMALIGN_CLI);
    argv.insert(argv.end(), args.begin(), args.end());
    const std::string out_path = path("stdout.txt"), err_path = path("stderr.txt");
    const auto start = std::chrono::steady_clock::now();
    const auto since = [](std::chrono::steady_clock::time_point t) {
        return std::chrono::duration<double>(std::chrono::steady_clock::now() - t).count();
    };
    ChildRun r;
    const pid_t pid = fork();
    if (pid == 0) {
        setsid();  // a session of its own, so that a kill -9 can reach all it starts
        const int out = open(out_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
        const int err = open(err_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
        dup2(out, 1);
        dup2(err, 2);
        std::vector<char*> cargv;
        for (auto& a : argv) cargv.push_back(a.data());
        cargv.push_back(nullptr);
        execvp(cargv[0], cargv.data());
        _exit(127);
    }
    int status = 0;
    bool ended = false;
    auto poll = [&] {
        ended = waitpid(pid, &status, WNOHANG) == pid;
        if (ended) return;
        if (watchdog_s_ > 0 && since(start) > watchdog_s_) {  // a hung run fails its test, not the suite
            kill_session(pid);
            waitpid(pid, &status, 0);
            ended = true;
            r.watchdog = true;
            return;
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(5));
    };
    if (signal_after_ms >= 0 && !after_new_file.empty()) {
        while (!ended) {
            const timespec now = modified(after_new_file);
            if (now.tv_sec != before.tv_sec || now.tv_nsec != before.tv_nsec) {
                r.after_file = since(start);
                break;
            }
            poll();
        }
    }
    std::chrono::steady_clock::time_point signalled;
    bool sent = false;
    if (signal_after_ms >= 0) {
        const auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(signal_after_ms);
        while (!ended && std::chrono::steady_clock::now() < deadline) poll();
        if (!ended) {
            if (signal == SIGKILL)
                kill_session(pid);
            else
                kill(pid, signal);
            signalled = std::chrono::steady_clock::now();
            sent = true;
        }
    }
    while (!ended) poll();
    r.seconds = since(start);
    if (sent) r.after_signal = since(signalled);
    r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
    r.out = slurp(out_path);
    r.err = slurp(err_path);
    if (r.watchdog) r.err += "\n(killed by the test's watchdog after " + std::to_string(watchdog_s_) + " s)";
    return r;
}

AlignmentEnd ResumeHarness::parse_tsv(const std::string& out) {
    std::istringstream in(out);
    std::string header, row;
    std::getline(in, header);
    std::getline(in, row);
    std::istringstream fields(row);
    AlignmentEnd r;
    fields >> r.score >> r.s0_end >> r.s1_end;
    if (!fields) throw std::runtime_error("no TSV result in: " + out);
    return r;
}

}  // namespace chromalign::test
