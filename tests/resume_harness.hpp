//! @file Runs the chromalign CLI as a child process that tests can interrupt (kill -9, SIGINT, SIGTERM).
#pragma once

#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "engine/result.hpp"

namespace chromalign::test {

/// Outcome of one CLI run.
struct ChildRun {
    int exit_code = -1;    ///< exit status, or 128 + signal when a signal ended it
    std::string out, err;  ///< captured standard output and standard error
    double seconds = 0;    ///< from the start to the exit
    double after_signal = -1;  ///< seconds from the signal to the exit; -1 when none was sent
    double after_file = -1;    ///< seconds from the start until after_new_file was written; -1: not
    bool watchdog = false;     ///< killed (the whole session) by ResumeHarness::set_watchdog's limit
};

/// A temporary directory holding a mutated pair as FASTA, for CLI runs against it.
class ResumeHarness {
public:
    /// Writes a mutated pair of lengths m x n (seeded) as a.fa and b.fa in a new temp dir.
    ResumeHarness(int64_t m, int64_t n, uint64_t seed);
    ~ResumeHarness();

    std::string path(const std::string& name) const { return dir_ + "/" + name; }

    /// Runs `chromalign -f tsv --strand forward <args> a.fa b.fa` (one comparison); when signal_after_ms >= 0, sends `signal`
    /// that many milliseconds after the start (if the child is still running). With
    /// `after_new_file`, the countdown starts only once this run has (re)written that file, so
    /// a kill lands at a random moment after a checkpoint whatever the machine's speed.
    ChildRun run(const std::vector<std::string>& args, int signal_after_ms = -1, int signal = 9,
                 const std::string& after_new_file = "") const;
    /// run() under a shell limit (`ulimit ...`) set just before the CLI starts.
    ChildRun run_limited(const std::string& limit, const std::vector<std::string>& args);
    /// Runs `chromalign <args>` as given (no format, no sequences), as run() does.
    ChildRun run_command(const std::vector<std::string>& args, int signal_after_ms = -1, int signal = 9,
                         const std::string& after_new_file = "") const;

    /// Runs the CLI under this launcher from now on (e.g. mpirun -np 2), found on the PATH;
    /// a signal then goes to the launcher, which forwards it to every rank, except SIGKILL,
    /// which goes to every process the run started (the whole job).
    void set_launcher(std::vector<std::string> launcher) { launcher_ = std::move(launcher); }

    /// Runs the CLI with $CHROMALIGN_TEST_PACE_US set (engine/orchestration/test_pace.hpp): every
    /// external diagonal of stage 1 and every window of the traceback then sleeps this long, so
    /// a small pair lasts long enough for a stop to land mid-way without using a core (0: none).
    void set_pace_us(int us) { pace_us_ = us; }

    /// Kills a run (all it started) that is still going `seconds` after its start, marking it
    /// ChildRun::watchdog, so that a hang fails its test with what the run printed (0: never).
    void set_watchdog(int seconds) { watchdog_s_ = seconds; }

    /// Parses score and end cell from a TSV result.
    static AlignmentEnd parse_tsv(const std::string& out);

private:
    std::string dir_;
    std::vector<std::string> launcher_;
    int watchdog_s_ = 0;
    int pace_us_ = 0;
};

}  // namespace chromalign::test
