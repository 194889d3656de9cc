//! @file Checkpoints of rows, as the cuda backend takes them (the cpu backend's
//! test_row_checkpoints): standing rows (engine/checkpoint/standing_rows.hpp) make a stop's
//! piece ready at once, and the pieces resume exactly with any rank count.
#include <gtest/gtest.h>

#include <chrono>
#include <csignal>
#include <cstdio>
#include <optional>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "engine/checkpoint/checkpoint_file.hpp"
#include "engine/checkpoint/checkpointer.hpp"
#include "engine/checkpoint/standing_rows.hpp"
#include "engine/error.hpp"
#include "engine/orchestration/slab_run.hpp"
#include "kernels/reference/reference.hpp"
#include "kernels/registry.hpp"
#include "tests/slab_support.hpp"
#include "tests/test_support.hpp"

namespace chromalign {
namespace {

const Scoring kScorings[] = {{1, -3, 5, 2}, {2, -3, 7, 2}, {1, -1, 2, 2}};

BackendOptions rows_only(int max_blocks) {
    BackendOptions o;
    o.threads = 1;
    o.alpha = 4;
    o.max_blocks = max_blocks;
    o.test_row_checkpoints = true;
    return o;
}

TEST(StandingRows, RowStopsAtRandomMomentsResumeExactlyWithAnyRankCount) {
    // A slab's piece is a standing row, complete or in flight, so that a left neighbour may
    // stop above the band its right neighbour waits for, and a right one below its left one.
    std::mt19937_64 rng(test::seed() + 21);
    auto [s0, s1] = test::mutated_pair(30000, 12000, rng, 0.02);
    const Scoring& sc = kScorings[rng() % 3];
    test::expect_staircases_resume_exactly("cpu", s0, s1, sc, rows_only(12), reference_align(s0, s1, sc), rng());
}

TEST(StandingRows, AStopComputesNoDiagonalOnceARowIsComplete) {
    // Rank 0 takes the stop before band at + 1 begins. Band at + 1's bottom row would take
    // B + 1 more diagonals; a complete standing row takes none, and before the first one is
    // complete (at < B) the one in flight, band 0's, ends at diagonal B (rank 0 of a fresh
    // run takes no piece at row 0).
    const uint64_t seed = test::seed();
    std::mt19937_64 rng(seed + 22);
    auto [s0, s1] = test::mutated_pair(30000, 12000, rng, 0.02);
    const Scoring& sc = kScorings[rng() % 3];
    const AlignmentEnd want = reference_align(s0, s1, sc);
    test::TempDir dir;
    BackendOptions o = rows_only(12);
    o.threads = 3;  // 4 block columns a thread
    o.checkpoint.path = dir.file("rows.ckpt");
    o.checkpoint.every_seconds = 1e9;
    const auto run = [&](const BackendOptions& with) { return test::slab_align("cpu", s0, s1, sc, 2, with); };
    const auto backend = make_backend("cpu", o);
    const SlabShape shape = backend->slab_engine()->slab_shape(s0.length(), s1.length() / 2, sc);
    const int64_t blocks = std::min<int64_t>(shape.blocks, o.max_blocks), bands = s0.length() / shape.rows_per_band;
    ASSERT_GE(blocks, 8) << "B + 1 diagonals must stand out";
    for (const int64_t at : {int64_t{2}, blocks + 3, bands / 3, bands / 2 + int64_t(rng() % 20)}) {
        for (const bool pruning : {false, true}) {
            static volatile std::sig_atomic_t stop = 0;
            stop = 0;
            int64_t last = -1;
            BackendOptions stopping = o;
            stopping.pruning = pruning;
            stopping.checkpoint.stop = &stop;
            stopping.on_diagonal = [&](int rank, int64_t d) {
                if (rank != 0) return;
                last = d;
                if (d == at) stop = SIGTERM;
            };
            EXPECT_THROW(run(stopping), Interrupted) << "stop at diagonal " << at << ", seed " << seed;
            const std::vector<int64_t> rows = test::piece_rows(o.checkpoint.path, 2);
            std::printf("[ stop     ] diagonal %lld: rank 0 ran to %lld, rows %lld %lld\n", static_cast<long long>(at),
                        static_cast<long long>(last), static_cast<long long>(rows[0]), static_cast<long long>(rows[1]));
            EXPECT_LE(last, at < blocks ? blocks : at + 1) << "B = " << blocks << ", pruning " << pruning << ", seed " << seed;
            test::expect_pieces_exact(s0, s1, sc, o.checkpoint.path, 2, pruning);
            EXPECT_EQ(run(o), want) << "resumed from rows " << rows[0] << " " << rows[1] << ", seed " << seed;
        }
    }
}

TEST(StandingRows, ACheckpointLeavesItsRowForAStopThatFollows) {
    // A checkpoint took the latest complete row and left none: a stop before the next one was
    // complete took the row in flight and waited up to B + 1 diagonals for it (a SIGTERM just
    // after a checkpoint at 250M: 10 s). The row now stays for the stop, which takes it whole.
    std::mt19937_64 rng(test::seed() + 25);
    auto [s0, s1] = test::mutated_pair(3000, 2000, rng, 0.02);
    const Scoring& sc = kScorings[rng() % 3];
    const auto backend = make_backend("cpu", rows_only(4));
    SlabEngine* engine = backend->slab_engine();
    const int32_t blocks = engine->slab_shape(s0.length(), s1.length(), sc).blocks;
    const auto ex = engine->slab_executor(s0, s1, sc, 0, TopRow{}, SlabEdges{}, blocks, PruneRule{});
    const int64_t bands = ex->grid().bands;
    StandingRows rows;
    int64_t d = 0;
    for (; !rows.has_complete() && d < bands + blocks; ++d) {
        if (d < bands) rows.begin(d, s1.length());
        ex->enqueue_diagonal(d);
        rows.collect(*ex, d, 0);
    }
    ex->synchronize();
    ASSERT_TRUE(rows.has_complete()) << "no row complete after " << d << " diagonals";
    const std::optional<Checkpoint> taken = rows.take_complete(*ex, 0, false);
    ASSERT_TRUE(taken);
    const test::DpRow want = test::dp_row(s0, s1, sc, taken->row);
    EXPECT_EQ(taken->h, want.h);
    EXPECT_EQ(taken->f, want.f);
    ASSERT_TRUE(rows.has_complete()) << "the checkpoint's row is gone";
    const std::optional<Checkpoint> stop = rows.take_complete(*ex, 0, true);
    ASSERT_TRUE(stop);
    EXPECT_EQ(stop->row, taken->row);
    EXPECT_EQ(stop->h, want.h);
    EXPECT_EQ(stop->f, want.f);
    EXPECT_FALSE(rows.has_complete()) << "a stop takes the row for good";
}

TEST(StandingRows, StopsAmidCheckpointsResumeAgainAndAgain) {
    // Checkpoints one after another on 8 slabs that change grids, stopped, resumed and stopped
    // again, then resumed to the end. A resumed staircase keeps right slabs waiting long for
    // edges, and a slab took a checkpoint while awaiting one, then awaited the edge alone: a
    // stop that followed made its left neighbour stop above that band, and it waited for ever
    // (1 run of this test in about 20 hung).
    const uint64_t seed = test::seed();
    std::mt19937_64 rng(seed + 27);
    auto [s0, s1] = test::mutated_pair(60000, 30000, rng, 0.02);
    const Scoring& sc = kScorings[rng() % 3];
    const AlignmentEnd want = reference_align(s0, s1, sc);
    constexpr int kSlabs = 8;
    for (int trial = 0; trial < 3; ++trial) {
        test::TempDir dir;
        BackendOptions o = rows_only(6);
        o.narrow_test_blocks = 24;
        o.narrow_test_row = 20000;
        o.checkpoint.path = dir.file("again.ckpt");
        o.checkpoint.every_seconds = 0;
        const auto run = [&](const BackendOptions& with) { return test::slab_align("cpu", s0, s1, sc, kSlabs, with); };
        for (const int64_t most : {60, 30}) {
            const int64_t at = 3 + static_cast<int64_t>(rng() % most);
            const bool stopped = test::stopped_after(at, o, run);  // it may end before it takes the stop
            const std::vector<int64_t> rows = test::piece_rows(o.checkpoint.path, kSlabs);
            std::printf("[ stop     ] trial %d, after %lld diagonals of rank 0: %s, rows", trial,
                        static_cast<long long>(at), stopped ? "stopped" : "ran to the end");
            for (const int64_t row : rows) std::printf(" %lld", static_cast<long long>(row));
            std::printf("\n");
            std::fflush(stdout);  // a hang in the next run still shows which stop it resumed
        }
        EXPECT_EQ(run(o), want) << "trial " << trial << ", seed " << seed;
    }
}

TEST(StandingRows, AStopBeforeAnyRowIsCompleteResumesWithAnotherSlabCount) {
    // Asked for before the first band: slabs 1 and 2 take their top rows, row 0; rank 0 takes
    // band 0's row in flight, never row 0, or the pieces would hold no row to resume from
    // (ResumeGpu.CheckpointsCrossBetweenCudaAndCpu).
    std::mt19937_64 rng(test::seed() + 23);
    auto [s0, s1] = test::mutated_pair(9000, 6000, rng, 0.02);
    const AlignmentEnd want = reference_align(s0, s1, kScorings[0]);
    test::TempDir dir;
    BackendOptions o = rows_only(4);
    o.checkpoint.path = dir.file("early.ckpt");
    static volatile std::sig_atomic_t stop = SIGINT;
    BackendOptions stopping = o;
    stopping.checkpoint.stop = &stop;
    EXPECT_THROW(test::slab_align("cpu", s0, s1, kScorings[0], 3, stopping), Interrupted);
    const std::vector<int64_t> rows = test::piece_rows(o.checkpoint.path, 3);
    EXPECT_GT(rows[0], 0) << "rank 0's piece";
    EXPECT_EQ(make_backend("cpu", o)->align(s0, s1, kScorings[0]), want) << "resumed by one slab from row " << rows[0];
}

TEST(StandingRows, ATopRowTakenIsWrittenThoughForgottenBeforeTheWrite) {
    // A slab takes its top row, then waits for its left neighbour's piece before writing its
    // own; meanwhile it may begin a band, or complete a standing row, and forget the top row.
    // The piece must still hold that row, not the zeros of row 0.
    std::mt19937_64 rng(test::seed() + 24);
    auto [s0, s1] = test::mutated_pair(3000, 2000, rng, 0.02);
    const Scoring& sc = kScorings[0];
    test::TempDir dir;
    Checkpoint flat;
    flat.m = s0.length();
    flat.n = s1.length();
    flat.fingerprint0 = sequence_fingerprint(s0);
    flat.fingerprint1 = sequence_fingerprint(s1);
    flat.scoring = sc;
    flat.row = 1024;
    test::DpRow top = test::dp_row(s0, s1, sc, flat.row);
    flat.h = top.h;
    flat.f = top.f;
    Sequence head = s0;  // the best cell above the row: no H may lie above it
    head.codes.resize(static_cast<size_t>(flat.row));
    flat.best = reference_align(head, s1, sc);
    CheckpointOptions o;
    o.path = dir.file("top.ckpt");
    write_checkpoint(o.path, flat);
    Checkpointer ck(s0, s1, s1, 0, sc, 0, 1, o, [](const std::string&) {});
    ASSERT_EQ(ck.offer()[2], flat.row) << ck.refusal();
    ck.resume(0, flat.row);
    ASSERT_TRUE(ck.holds_top());
    const int64_t seq = ck.next_seq();
    ck.start_top(seq, false);
    ck.forget_top();
    const auto backend = make_backend("cpu", rows_only(2));
    SlabEngine* engine = backend->slab_engine();
    const int32_t blocks = engine->slab_shape(s0.length(), s1.length(), sc).blocks;
    const auto ex = engine->slab_executor(s0, s1, sc, flat.row, TopRow{top.h, top.f}, SlabEdges{}, blocks, PruneRule{});
    ck.write(*ex, flat.best, 0, {}, {});
    while (ck.poll_written() != seq) std::this_thread::yield();
    const Checkpoint piece = read_checkpoint(o.path + ".slab0of1." + std::to_string(seq % 2));
    EXPECT_EQ(piece.row, flat.row);
    EXPECT_EQ(piece.h, top.h);
    EXPECT_EQ(piece.f, top.f);
}

}  // namespace
}  // namespace chromalign
