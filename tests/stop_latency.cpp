//! @file expect_stop_latencies: three CLI runs per case, timed by the resume harness.
#include "tests/stop_latency.hpp"

#include <gtest/gtest.h>

#include <cstdio>

#include "engine/checkpoint/checkpoint_file.hpp"
#include "tests/resume_harness.hpp"

namespace chromalign::test {
namespace {

std::string piece(const std::string& ck, int slab, int slabs, int slot) {
    return ck + ".slab" + std::to_string(slab) + "of" + std::to_string(slabs) + "." + std::to_string(slot);
}

/// Whether every slab's piece of some checkpoint exists.
bool every_piece_exists(const std::string& ck, int slabs) {
    for (int k = 0; k < slabs; ++k)
        if (!file_exists(piece(ck, k, slabs, 0)) && !file_exists(piece(ck, k, slabs, 1))) return false;
    return true;
}

}  // namespace

void expect_stop_latencies(const StopLatencyCase& c, uint64_t seed) {
    const std::string what = c.backend + " " + std::to_string(c.size / 1000000) + "M x " +
                             std::to_string(c.size / 1000000) + "M";
    ResumeHarness h(c.size, c.size, seed);
    // A run that hangs fails here with its output, rather than the suite never ending: a
    // stop's run may take its stop_after_ms, then its limit, with minutes to spare.
    h.set_watchdog(c.stop_after_ms / 1000 + static_cast<int>(c.stop_limit_s) + 300);
    std::vector<std::string> base = {"-b", c.backend};
    base.insert(base.end(), c.extra.begin(), c.extra.end());
    // A stop signal into stage 1 (its lock taken).
    const std::string stop_ck = h.path("stop.ckpt");
    std::vector<std::string> args = base;
    args.insert(args.end(), {"--checkpoint", stop_ck, "--checkpoint-every", "1h"});
    const ChildRun stopped = h.run(args, c.stop_after_ms, SIGINT, stop_ck + ".lock");
    std::printf("[ stop     ] %s: SIGINT %.0f s into stage 1, exit %d %.2f s later (%s)\n", what.c_str(),
                c.stop_after_ms / 1e3, stopped.exit_code, stopped.after_signal,
                stopped.err.find("checkpointed") != std::string::npos ? "checkpointed" : "no checkpoint");
    EXPECT_EQ(stopped.exit_code, 130) << what << "\n" << stopped.err;
    EXPECT_TRUE(every_piece_exists(stop_ck, c.slabs)) << what;
    EXPECT_LE(stopped.after_signal, c.stop_limit_s) << what << ": the stop took too long";
    // The first checkpoint of a run, then of the run that resumes from it (each killed once
    // the last slab has written its piece: pieces 1 go to slot 1, pieces 2 to slot 0).
    const std::string ck = h.path("due.ckpt");
    args = base;
    args.insert(args.end(), {"--checkpoint", ck, "--checkpoint-every", std::to_string(c.every_s) + "s"});
    const ChildRun first = h.run(args, 0, SIGKILL, piece(ck, c.slabs - 1, c.slabs, 1));
    const ChildRun again = h.run(args, 0, SIGKILL, piece(ck, c.slabs - 1, c.slabs, 0));
    std::printf("[ due      ] %s, --checkpoint-every %ds: first checkpoint %.2f s after the start, %.2f s after "
                "the start of the run resuming from it\n",
                what.c_str(), c.every_s, first.after_file, again.after_file);
    const double limit = c.every_s + 10 + c.read_s;
    EXPECT_GE(first.after_file, 0) << what << ": no checkpoint was written\n" << first.err;
    EXPECT_LE(first.after_file, limit) << what;
    EXPECT_NE(again.err.find("resuming"), std::string::npos) << what << "\n" << again.err;
    EXPECT_GE(again.after_file, 0) << what << ": no checkpoint after the resume\n" << again.err;
    EXPECT_LE(again.after_file, limit) << what;
}

}  // namespace chromalign::test
