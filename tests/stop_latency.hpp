//! @file Issue 22's latencies, measured on the CLI and printed: how long a stop signal takes to
//! end a run with a complete checkpoint, and when the first checkpoint lands.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace chromalign::test {

/// What expect_stop_latencies runs and allows.
struct StopLatencyCase {
    std::string backend;             ///< "cpu" or "cuda"
    int64_t size = 0;                ///< a generated size x size mutated pair
    std::vector<std::string> extra;  ///< more CLI arguments (--threads 2, say)
    int slabs = 1;                   ///< pieces a checkpoint has (the last slab's is written last)
    int stop_after_ms = 2000;        ///< SIGINT this long after stage 1 took its lock
    double stop_limit_s = 10;        ///< from the signal to the exit with a complete checkpoint
    int every_s = 2;                 ///< --checkpoint-every of the runs timed to their first checkpoint
    double read_s = 5;               ///< allowed on top of every + 10 s: reading the input (and pieces)
};

/// Runs the case and prints its latencies: SIGINT stop_after_ms into a run (exit 130 with
/// every slab's piece within stop_limit_s); the first checkpoint of a run with
/// --checkpoint-every every_s, then of the run resuming from it, each within every_s + 10 s of
/// falling due, read_s allowed for the input (both measured from the launch).
void expect_stop_latencies(const StopLatencyCase& c, uint64_t seed);

}  // namespace chromalign::test
