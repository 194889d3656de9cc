//! @file Checkpoints and stops after the left slab has run its last diagonal (slab_run.cpp's
//! serve): on a pruned run the left slabs end long before the right ones, and rank 0, which
//! decides both, must go on deciding them until every slab has ended.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "engine/checkpoint/checkpoint_file.hpp"
#include "engine/checkpoint/pieces.hpp"
#include "engine/error.hpp"
#include "kernels/reference/reference.hpp"
#include "kernels/registry.hpp"
#include "tests/slab_support.hpp"
#include "tests/test_support.hpp"

namespace chromalign {
namespace {

constexpr int kSlabs = 3;

/// The newest checkpoint number among rank k's pieces at `path`, 0 if none.
int64_t newest_seq(const std::string& path, int k) {
    int64_t seq = 0;
    for (int slot = 0; slot < 2; ++slot) {
        const std::string name = piece_name(path, k, kSlabs, slot);
        if (file_exists(name)) seq = std::max(seq, read_checkpoint(name).seq);
    }
    return seq;
}

/// Runs 3 slabs whose last one is slowed (a sleep per diagonal), so that slab 0 ends long
/// before it; once slab 0 has run its last diagonal (`last0`), lets the last slab run
/// `after` more diagonals, then raises the stop flag. Returns the checkpoint number slab 0's
/// pieces had reached by the first of those; `stopped_at` gets the last slab's diagonal at
/// the stop.
int64_t stop_after_slab0_ended(const BackendOptions& options, const Sequence& s0, const Sequence& s1,
                               const Scoring& sc, int64_t last0, int64_t after, int64_t& stopped_at) {
    static volatile std::sig_atomic_t stop = 0;
    stop = 0;
    std::atomic<bool> ended{false};
    std::atomic<int64_t> seq_then{-1}, count{0};
    BackendOptions o = options;
    o.checkpoint.stop = &stop;
    o.on_diagonal = [&](int rank, int64_t d) {
        if (rank == 0 && d == last0) ended = true;
        if (rank != kSlabs - 1) return;
        // Slower than a checkpoint's write (with its fsyncs), which a stop may have to wait for.
        std::this_thread::sleep_for(std::chrono::milliseconds(3));
        if (!ended) return;
        if (++count == 1) seq_then = newest_seq(o.checkpoint.path, 0);
        if (count == after) {
            stopped_at = d;
            stop = SIGTERM;
        }
    };
    EXPECT_THROW(test::slab_align("cpu", s0, s1, sc, kSlabs, o), Interrupted);
    return seq_then;
}

void expect_stops_after_slab0_ended(BackendOptions o, const char* what) {
    const uint64_t seed = test::seed();
    std::mt19937_64 rng(seed + 31);
    auto [s0, s1] = test::mutated_pair(12000, 9000, rng, 0.02);
    const Scoring sc{1, -3, 5, 2};
    const AlignmentEnd want = reference_align(s0, s1, sc);
    test::TempDir dir;
    o.checkpoint.path = dir.file("finished.ckpt");
    // Every diagonal of each slab, from a run to the end.
    std::vector<std::atomic<int64_t>> last(kSlabs);
    BackendOptions counting = o;
    counting.on_diagonal = [&](int rank, int64_t d) {
        if (d > last[static_cast<size_t>(rank)]) last[static_cast<size_t>(rank)] = d;
    };
    ASSERT_EQ(test::slab_align("cpu", s0, s1, sc, kSlabs, counting), want) << what;
    const int64_t last0 = last[0], last_slab = last[kSlabs - 1];
    ASSERT_GT(last_slab, 40) << what;
    for (const double every : {1e9, 0.0}) {
        o.checkpoint.every_seconds = every;
        int64_t stopped_at = -1;
        const int64_t seq_then = stop_after_slab0_ended(o, s0, s1, sc, last0, 5, stopped_at);
        const std::vector<int64_t> rows = test::piece_rows(o.checkpoint.path, kSlabs);
        const int64_t seq_stop = newest_seq(o.checkpoint.path, 0);
        std::printf("[ stop     ] %s, checkpoints every %g s: slab 0 ended at checkpoint %lld, the last slab stopped "
                    "at diagonal %lld of %lld with checkpoint %lld; rows %lld %lld %lld\n",
                    what, every, static_cast<long long>(seq_then), static_cast<long long>(stopped_at),
                    static_cast<long long>(last_slab), static_cast<long long>(seq_stop), static_cast<long long>(rows[0]),
                    static_cast<long long>(rows[1]), static_cast<long long>(rows[2]));
        EXPECT_LT(stopped_at, last_slab) << what << ": the stop waited for the end, seed " << seed;
        // Checkpoints went on after slab 0 ended (every 0 s: one after another, each once the
        // slowed slab has begun a band): one at least before the stop's.
        if (every == 0) {
            EXPECT_GE(seq_stop, seq_then + 2) << what << ", seed " << seed;
        }
        test::expect_pieces_exact(s0, s1, sc, o.checkpoint.path, kSlabs, o.pruning);
        BackendOptions resumed = o;
        resumed.checkpoint.every_seconds = 1e9;
        for (const int slabs : {kSlabs, 2, 1}) {
            // Each resume finishes the run and removes the pieces: stop again for the next.
            const AlignmentEnd got = slabs == 1 ? make_backend("cpu", resumed)->align(s0, s1, sc)
                                                : test::slab_align("cpu", s0, s1, sc, slabs, resumed);
            EXPECT_EQ(got, want) << what << ", resumed with " << slabs << " slab(s), seed " << seed;
            if (slabs == 1) break;
            stop_after_slab0_ended(o, s0, s1, sc, last0, 5, stopped_at);
        }
    }
}

TEST(FinishedSlabs, StopsAndCheckpointsGoOnAfterSlab0EndedOnWavefronts) {
    BackendOptions o;
    o.threads = 1;
    o.alpha = 4;
    o.max_blocks = 8;
    expect_stops_after_slab0_ended(o, "wavefronts");
}

TEST(FinishedSlabs, StopsAndCheckpointsGoOnAfterSlab0EndedOnRows) {
    BackendOptions o;
    o.threads = 1;
    o.alpha = 4;
    o.max_blocks = 8;
    o.test_row_checkpoints = true;  // as the cuda backend checkpoints
    expect_stops_after_slab0_ended(o, "rows");
}

}  // namespace
}  // namespace chromalign
