//! @file GPU resume tests: kill -9 a CUDA run and resume it; checkpoints cross between CUDA and CPU.
#include <gtest/gtest.h>

#include <csignal>
#include <cstdio>
#include <cstdlib>

#include "kernels/registry.hpp"
#include "engine/error.hpp"
#include "kernels/reference/reference.hpp"
#include "tests/pruning_support.hpp"
#include "tests/slab_support.hpp"
#include "tests/resume_harness.hpp"
#include "tests/stop_latency.hpp"
#include "tests/test_support.hpp"

namespace chromalign {
namespace {

#define SKIP_WITHOUT_GPU()                                             \
    if (!(backend_devices("cuda") > 0)) GTEST_SKIP() << "no CUDA device (or no CUDA build)"

/// Runs `first` until its first checkpoint is written (a pending stop makes the engine
/// checkpoint at once and throw Interrupted), then finishes the run with `second`.
AlignmentEnd interrupt_and_finish(const std::string& first, const std::string& second, const Sequence& s0,
                                  const Sequence& s1, const std::string& path) {
    volatile std::sig_atomic_t stop = SIGINT;
    BackendOptions o;
    o.max_blocks = 1;  // a cpu run's wavefront is then a row, which cuda takes from any cpu
    o.checkpoint.path = path;
    o.checkpoint.restart = true;
    o.checkpoint.stop = &stop;
    EXPECT_THROW(make_backend(first, o)->align(s0, s1, Scoring{}), Interrupted);
    o.checkpoint.restart = false;
    o.checkpoint.stop = nullptr;
    std::string note;
    o.on_note = [&note](const std::string& text) { note += text + "\n"; };
    const AlignmentEnd result = make_backend(second, o)->align(s0, s1, Scoring{});
    EXPECT_NE(note.find("resuming from"), std::string::npos) << note;
    return result;
}

TEST(ResumeGpu, CheckpointsCrossBetweenCudaAndCpu) {
    SKIP_WITHOUT_GPU();
    std::mt19937_64 rng(test::seed());
    const auto [s0, s1] = test::mutated_pair(30000, 20000, rng);
    const AlignmentEnd want = reference_align(s0, s1, Scoring{});
    const std::string path = "/tmp/chromalign-cross-" + std::to_string(test::seed()) + ".ckpt";
    EXPECT_EQ(interrupt_and_finish("cuda", "cpu", s0, s1, path), want);
    EXPECT_EQ(interrupt_and_finish("cpu", "cuda", s0, s1, path), want);
    EXPECT_EQ(interrupt_and_finish("cuda", "cuda", s0, s1, path), want);
}

/// A cpu run stopped mid-way leaves a wavefront, which the cuda backend cannot start from: a
/// single-slab run levels it to one row first, on its own engine. Bands of 4 x 32 rows divide
/// the cpu's on any CPU (lanes x 16 rows, 128 at the least).
TEST(ResumeGpu, ACpuWavefrontResumesOnCuda) {
    SKIP_WITHOUT_GPU();
    std::mt19937_64 rng(test::seed() + 2);
    const auto [s0, s1] = test::mutated_pair(150000, 150000, rng);
    const Scoring scoring{};
    BackendOptions cpu, cuda;
    cpu.threads = 4;
    cuda.alpha = 4;
    const AlignmentEnd want = make_backend("cuda", BackendOptions{})->align(s0, s1, scoring);
    int64_t diagonals = 0;
    EXPECT_EQ(test::counting_diagonals(
                  cpu, [&](const BackendOptions& o) { return make_backend("cpu", o)->align(s0, s1, scoring); }, diagonals),
              want);
    test::TempDir dir;
    const auto r = test::stop_then_resume("cpu", cpu, "cuda", cuda, s0, s1, scoring, dir.file("wave.ckpt"), diagonals / 2);
    ASSERT_TRUE(r.stopped);
    EXPECT_GT(r.steps, 0) << "the cpu stop left a row, not a wavefront";
    EXPECT_EQ(r.result, want);
    std::printf("[ wave     ] cpu stopped at diagonal %lld of %lld, %lld steps, resumed on cuda\n",
                static_cast<long long>(diagonals / 2), static_cast<long long>(diagonals), static_cast<long long>(r.steps));
}

TEST(ResumeGpu, KillNineAtRandomMomentsThenResume) {
    SKIP_WITHOUT_GPU();
    // About 5 s at 2 TCUPS with half of the cells pruned, so the kills land mid-run.
    test::ResumeHarness h(4500000, 4500000, test::seed());
    const test::ChildRun whole = h.run({"-q", "-b", "cuda"});
    ASSERT_EQ(whole.exit_code, 0) << whole.err;
    const AlignmentEnd expected = test::ResumeHarness::parse_tsv(whole.out);
    const std::string ck = h.path("gpu.ckpt");
    // Two slabs: each writes its piece ck.slab<k>of2.<0|1>; the first checkpoint is slot 1.
    const std::vector<std::string> args = {"-b", "cuda", "--slabs", "2", "--checkpoint", ck, "--checkpoint-every", "0.5s"};
    std::mt19937_64 rng(test::seed() + 1);
    int killed = 0;
    for (int moment = 0; moment < 5; ++moment) {
        const int after_ms = static_cast<int>(rng() % 1500);
        const test::ChildRun r = h.run(args, after_ms, SIGKILL, ck + ".slab1of2.1");
        std::printf("[ kill -9  ] %d ms after a checkpoint: exit %d\n", after_ms, r.exit_code);
        if (r.exit_code == 0) {
            EXPECT_EQ(test::ResumeHarness::parse_tsv(r.out), expected);
            continue;
        }
        ASSERT_EQ(r.exit_code, 128 + SIGKILL) << r.err;
        ++killed;
    }
    const test::ChildRun last = h.run(args);
    ASSERT_EQ(last.exit_code, 0) << last.err;
    EXPECT_EQ(test::ResumeHarness::parse_tsv(last.out), expected);
    EXPECT_GE(killed, 3);
}

/// Issue 22 on one GPU: a stop 75 s into stage 1 within 30 s, and the first checkpoint with
/// --checkpoint-every 10s within 10 + 10 s of falling due (10 s more to read the input and
/// eight 250 MB pieces), 8 slabs. It takes minutes at 250M: set CHROMALIGN_STOP_LATENCY_SIZE.
TEST(StopLatencyGpu, AStopOrACheckpointIsDueWithinSeconds) {
    SKIP_WITHOUT_GPU();
    const char* size = std::getenv("CHROMALIGN_STOP_LATENCY_SIZE");
    if (!size || !*size) GTEST_SKIP() << "set CHROMALIGN_STOP_LATENCY_SIZE (250M, say) to measure; it takes minutes";
    char* unit = nullptr;
    const double n = std::strtod(size, &unit);
    const double scale = *unit == 'M' ? 1e6 : *unit == 'K' ? 1e3 : 1;
    test::expect_stop_latencies({"cuda", static_cast<int64_t>(n * scale), {"--slabs", "8"}, 8, 75000, 30, 10, 10},
                                test::seed() + 24);
}

}  // namespace
}  // namespace chromalign
